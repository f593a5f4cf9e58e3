"""``_CustomFunction``, the operator of an ``autograd.Function`` call, against MXNet 1.9.1
(recorded by tools/make_extra_fixtures_custom_function.py): a two-output Function's values
and gradients through the registry's operator, and MXNet's errors where the node is used
on its own (an imperative call, the JSON of MXNet's recorded graph)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.operator import registry

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "custom_function")
CASES = json.load(open(os.path.join(HERE, "cases.json")))
V = np.load(os.path.join(HERE, "values.npz"))


class Sigmoid2(mx.autograd.Function):
    """The generator's Function: sigmoid(x) * y and x * 2, with a hand-written backward."""

    def forward(self, x, y):  # pylint: disable=arguments-differ
        z = 1 / (1 + mx.nd.exp(-x)) * y
        self.save_for_backward(x, y)
        return z, x * 2

    def backward(self, dz, dw):  # pylint: disable=arguments-differ
        x, y = self.saved_tensors
        s = 1 / (1 + mx.nd.exp(-x))
        return dz * s * (1 - s) * y + dw * 2, dz * s


def test_function_runs_as_the_custom_function_operator(monkeypatch):
    op = registry.get("_CustomFunction")
    calls = []
    original = op.call
    monkeypatch.setattr(op, "call", lambda *a, **k: calls.append(1) or original(*a, **k))
    x, y = mx.nd.array(V["x"]), mx.nd.array(V["y"])
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        z, w = Sigmoid2()(x, y)
        t = z + w
    t.backward(mx.nd.array(V["head"]))
    assert calls == [1]
    for name, got in (("z", z), ("w", w), ("grad_x", x.grad), ("grad_y", y.grad)):
        np.testing.assert_allclose(got.asnumpy(), V[name], rtol=1e-5, atol=1e-6, err_msg=name)
    z2 = Sigmoid2()(x, y)[0]  # outside record(): forward alone, no node (as MXNet)
    np.testing.assert_allclose(z2.asnumpy(), V["z"], rtol=1e-6)
    assert calls == [1]


def test_the_node_alone_gives_mxnets_error():
    message = CASES["imperative"].replace("MXNetError: ", "")
    with pytest.raises(mx.MXNetError, match="The any container is empty") as info:
        mx.nd._internal._CustomFunction(mx.nd.array(V["x"]))
    assert message in str(info.value)


def test_mxnets_recorded_graph_cannot_be_loaded():
    """MXNet writes the node without attributes (its Function is not in the file) and fails
    when the node's outputs are needed; here loading fails, naming the node."""
    assert CASES["load_json"] is not None and "any container is empty" in CASES["load_json"]
    with pytest.raises(mx.MXNetError, match="node_0.*any container is empty"):
        mx.sym.load(os.path.join(HERE, "graph-symbol.json"))
