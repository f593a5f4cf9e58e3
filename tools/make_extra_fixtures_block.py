"""Record MXNet 1.9.1's Block behaviour for tests/test_block.py (run with /tmp/mxref/bin/python).

Writes tests/fixtures/extra/block/: cases.json (names, reprs, summary text, error messages,
op-hook names, exported graph structure) and arrays.npz (parameters, inputs and outputs).
"""
import contextlib
import io
import json
import os

import numpy as np
import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "block")
os.makedirs(OUT, exist_ok=True)
CASES, ARRAYS = {}, {}
rng = np.random.RandomState(0)


def printed(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args)
    return buf.getvalue()


def error_of(fn):
    try:
        fn()
    except Exception as e:  # pylint: disable=broad-except
        return [type(e).__name__, str(e)]
    return None


class Inner(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Inner, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(4, in_units=3)
            self.scale = self.params.get("scale", shape=(1,))

    def hybrid_forward(self, F, x, scale):
        return F.broadcast_mul(F.relu(self.dense(x)), scale)


class Outer(gluon.Block):
    def __init__(self, **kwargs):
        super(Outer, self).__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            with self.body.name_scope():
                self.body.add(Inner(), nn.Dense(5, in_units=4))
            self.head = nn.Dense(2, in_units=5)

    def forward(self, x):
        return self.head(self.body(x))


# ------------------------------------------------------------------ naming and structure
mx.name.NameManager._current.value = mx.name.NameManager()
nets = [Outer(), Outer(), nn.HybridSequential(), nn.Dense(3), Inner(prefix="custom_")]
CASES["naming"] = {
    "prefixes": [n.prefix for n in nets],
    "names": [n.name for n in nets],
    "params": sorted(nets[1].collect_params().keys()),
    "select": sorted(nets[1].collect_params(".*weight").keys()),
    "structural": sorted(nets[1]._collect_params_with_prefix().keys()),
    "child_prefixes": [c.prefix for c in nets[1].body._children.values()],
    "repr": repr(nets[1]),
}

# ------------------------------------------------------------------ summary and forward of a known model
mx.name.NameManager._current.value = mx.name.NameManager()
net = Outer()
net.initialize(mx.init.Normal(0.5))
x = rng.uniform(-1, 1, (2, 3)).astype("float32")
CASES["summary"] = printed(net.summary, nd.array(x))
ARRAYS.update({"outer:" + k: v.data().asnumpy() for k, v in net._collect_params_with_prefix().items()})
ARRAYS["outer:__input__"] = x
ARRAYS["outer:__output__"] = net(nd.array(x)).asnumpy()
net.save_parameters(os.path.join(OUT, "outer.params"))

# ------------------------------------------------------------------ load_parameters errors
mx.name.NameManager._current.value = mx.name.NameManager()
small = nn.HybridSequential()
small.add(nn.Dense(2, in_units=3))
big = nn.HybridSequential()
big.add(nn.Dense(2, in_units=3), nn.Dense(2, in_units=2))
big.initialize()
big.save_parameters("/tmp/_big.params")
small.save_parameters if False else None
small.initialize()
small.save_parameters("/tmp/_small.params")
CASES["errors"] = {
    "extra": error_of(lambda: small.load_parameters("/tmp/_big.params")),
    "missing": error_of(lambda: big.load_parameters("/tmp/_small.params")),
    "export_first": error_of(lambda: nn.Dense(2).export("/tmp/_x")),
    "hybrid_child": error_of(lambda: nn.HybridSequential().add(nn.Sequential())),
}
for key in ("extra", "missing"):
    CASES["errors"][key][1] = CASES["errors"][key][1].replace("/tmp/", "DIR/")

# ------------------------------------------------------------------ op hook names, exported graph
mx.name.NameManager._current.value = mx.name.NameManager()
seq = nn.HybridSequential()
with seq.name_scope():
    seq.add(nn.Dense(3, activation="relu"), nn.BatchNorm())
seq.initialize()
seq.hybridize()
seq(nd.ones((2, 4)))
names = []
seq.register_op_hook(lambda n, o, a: names.append([n.decode() if isinstance(n, bytes) else n,
                                                    o.decode() if isinstance(o, bytes) else o]), monitor_all=False)
seq(nd.ones((2, 4)))
CASES["op_hook_outputs"] = names
seq.export("/tmp/_seq")
exported = json.load(open("/tmp/_seq-symbol.json"))
CASES["export"] = {"nodes": [[n["op"], n["name"]] for n in exported["nodes"]],
                   "params": sorted(nd.load("/tmp/_seq-0000.params").keys())}


# ------------------------------------------------------------------ the 1.7 page's forward-overriding model
class Model(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Model, self).__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(20)
            self.dense1 = nn.Dense(20)

    def forward(self, x):
        x = nd.relu(self.dense0(x))
        return nd.relu(self.dense1(x))


mx.name.NameManager._current.value = mx.name.NameManager()
model = Model()
model.initialize(mx.init.Normal(0.3), ctx=mx.cpu(0))
model.hybridize()
x = rng.uniform(-1, 1, (10, 10)).astype("float32")
ARRAYS["model:__input__"] = x
ARRAYS["model:__output__"] = model(nd.array(x)).asnumpy()
model.save_parameters(os.path.join(OUT, "model17.params"))

with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump(CASES, f, indent=1, sort_keys=True)
np.savez(os.path.join(OUT, "arrays.npz"), **ARRAYS)
print("cases:", sorted(CASES))
