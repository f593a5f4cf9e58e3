"""Record MXNet 1.9.1's gluon.contrib.cnn layers: parameter names, shapes and repr, and for
DeformableConvolution (CPU in MXNet) its output and input gradient with random offsets.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_contrib_cnn.py
Writes tests/fixtures/extra/contrib_cnn/.
"""
import json
import os

import mxnet as mx
import numpy as np
from mxnet.gluon.contrib.cnn import DeformableConvolution, ModulatedDeformableConvolution

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "contrib_cnn")


def main():
    os.makedirs(OUT, exist_ok=True)
    record = {}
    for name, cls, kw in (("deformable", DeformableConvolution, dict(channels=4, kernel_size=3, padding=1,
                                                                     in_channels=2)),
                          ("deformable_nobias_act", DeformableConvolution,
                           dict(channels=3, kernel_size=(3, 3), strides=2, use_bias=False, activation="relu",
                                num_deformable_group=2, in_channels=4, offset_use_bias=False)),
                          ("modulated", ModulatedDeformableConvolution, dict(channels=4, kernel_size=3, padding=1,
                                                                             in_channels=2))):
        with mx.name.NameManager():  # each case named as the first of its kind
            net = cls(**kw)
        record[name] = {"kwargs": kw, "repr": repr(net),
                        "params": [[k, list(v.shape)] for k, v in net.collect_params().items()]}
        if cls is DeformableConvolution:
            net.initialize(mx.init.Normal(0.3))
            rng = np.random.RandomState(0)
            x = mx.nd.array(rng.rand(2, kw["in_channels"], 7, 7))
            x.attach_grad()
            with mx.autograd.record():
                y = net(x)
            y.backward(mx.nd.ones_like(y))
            net.save_parameters(os.path.join(OUT, name + ".params"))
            np.savez(os.path.join(OUT, name + ".npz"), x=x.asnumpy(), y=y.asnumpy(), dx=x.grad.asnumpy())
            record[name]["repr_after"] = repr(net)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": record}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
