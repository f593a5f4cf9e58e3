"""Record MXNet 1.9.1's answers for the operator-level gaps GluonCV 0.10.5's models showed
(tests/test_gluoncv_models.py), so that CI checks them without GluonCV:

- ``split``/``_split_v2`` and ``amp_multicast`` with one output give one array (Faster
  R-CNN's box decoder splits into one part, then casts with ``amp_multicast``);
- ``Symbol.tojson``/``save``/``HybridBlock.export`` drop ``amp_cast`` and ``amp_multicast``
  nodes unless ``remove_amp_cast=False`` (every GluonCV detector exports its box decoder).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_gluoncv_ops.py

It writes ``tests/fixtures/extra/gluoncv_ops`` (see ``tools/mxcases.py`` for the format) and
``amp_graphs.json``; ``tests/test_ops_gluoncv.py`` replays them.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxcases import Recorder  # noqa: E402

R = Recorder("gluoncv_ops")
RNG = np.random.RandomState(14)


def U(*shape):
    return RNG.uniform(-2, 2, size=shape).astype("float32")


case = R.case
case("split_one", "SliceChannel", [("data", U(2, 3))], dict(num_outputs=1, axis=0), grad=["data"])
case("split_one_squeeze", "SliceChannel", [("data", U(1, 3, 2))], dict(num_outputs=1, axis=0, squeeze_axis=True),
     grad=["data"])
case("split_v2_one", "_split_v2", [("data", U(2, 4))], dict(indices=(), sections=1, axis=1), grad=["data"])
case("amp_multicast_one", "amp_multicast", [("data", U(3, 2))], dict(num_outputs=1))


def amp_graphs():
    """JSON of graphs with amp_cast/amp_multicast nodes, with and without their removal, and
    what Python returns for one-output calls."""
    import mxnet as mx
    a, b = mx.sym.var("a"), mx.sym.var("b")
    cast = mx.sym.amp_cast(a, dtype="float16", name="c0")
    multi = mx.sym.amp_multicast(cast, b, num_outputs=2, cast_narrow=True, name="m0")
    body = mx.sym.elemwise_add(multi[0], multi[1], name="add0")
    chain = mx.sym.amp_cast(mx.sym.amp_cast(a, dtype="float16", name="c1"), dtype="float32", name="c2")
    head = mx.sym.Group([mx.sym.relu(chain, name="r0"), mx.sym.amp_cast(b, dtype="float16", name="c3")])
    one = mx.sym.split(mx.sym.amp_multicast(a, num_outputs=1, name="m1"), num_outputs=1, axis=0, name="s0")
    graphs = {}
    for key, sym in (("body", body), ("chain", chain), ("head", head), ("one", one)):
        graphs[key] = {"removed": sym.tojson(), "kept": sym.tojson(remove_amp_cast=False)}
    x = mx.nd.array(U(2, 3))
    graphs["python_types"] = {
        "split": type(mx.nd.split(x, num_outputs=1, axis=0)).__name__,
        "split_v2": type(mx.nd.split_v2(x, 1, axis=0)).__name__,
        "amp_multicast": type(mx.nd.amp_multicast(x, num_outputs=1)).__name__,
        "sym_split_outputs": len(mx.sym.split(a, num_outputs=1).list_outputs()),
    }
    with open(os.path.join(R.out, "amp_graphs.json"), "w") as f:
        json.dump(graphs, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    R.write()
    amp_graphs()
