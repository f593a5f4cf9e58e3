"""Record MXNet 1.9.1's 2-bit gradient compression on a 'device' KVStore.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_kvstore.py

Writes ``tests/fixtures/extra/kvstore/two_bit.json``: for a few thresholds, the values
pulled after each of three pushes of two devices' gradients (each device quantizes with its
own residual, the store sums), and the Adam mean after one compressed push of ones.
``tests/test_kvstore_dist.py`` replays them on the local store and on the compressor of
the distributed stores.
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "kvstore")


def pushes(threshold, grads):
    kv = mx.kv.create("device")
    params = {"type": "2bit"} if threshold is None else {"type": "2bit", "threshold": threshold}
    kv.set_gradient_compression(params)
    kv.init(0, mx.nd.zeros(len(grads[0])))
    out = mx.nd.zeros(len(grads[0]))
    pulled = []
    for _ in range(3):
        kv.push(0, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(grads)])
        kv.pull(0, out=out)
        pulled.append(out.asnumpy().tolist())
    return pulled


def main():
    os.makedirs(OUT, exist_ok=True)
    rs = np.random.RandomState(0)
    grads = [[0.3, 0.6, -0.7, -0.2, 1.4], [0.6, 1.2, -1.4, -0.4, 2.8]]
    cases = [{"threshold": t, "grads": grads, "pulled": pushes(t, grads)} for t in (None, 0.5, 1.0)]
    rgrads = rs.randn(2, 7).round(3).tolist()
    cases.append({"threshold": 0.25, "grads": rgrads, "pulled": pushes(0.25, rgrads)})
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv.init("w", mx.nd.ones((3,)))
    kv.push("w", mx.nd.ones((3,)))
    w = mx.nd.zeros(3)
    kv.pull("w", out=w)
    with open(os.path.join(OUT, "two_bit.json"), "w") as f:
        json.dump({"cases": cases, "adam_weight_after_push_of_ones": w.asnumpy().tolist()}, f, indent=1)


if __name__ == "__main__":
    main()
