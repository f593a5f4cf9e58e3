"""Unknown (0) dimensions inferred through a graph as MXNet 1.9.1 infers them: GluonTS
DeepAR's begin states ``F.zeros((0, 8))`` pass through ``F.where(cond, begin_state,
state)`` into an LSTM cell; the 0 is the condition's batch size. Recorded by
tools/make_extra_fixtures_infer.py (the block's parameters, outputs and gradients, its
export and ``infer_shape`` of every internal output)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.gluon import HybridBlock, SymbolBlock, rnn

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "infer")
DATA = np.load(os.path.join(HERE, "deepar.npz"))
SHAPES = json.load(open(os.path.join(HERE, "deepar.json")))
NAMES = ("x", "reset", "prev_h", "prev_c")


class DeepARStep(HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.LSTMCell(8, input_size=4)

    def hybrid_forward(self, F, x, reset, prev_h, prev_c):
        begin = self.cell.begin_state(batch_size=0, func=F.zeros)
        states = [F.where(reset, b, s) for b, s in zip(begin, [prev_h, prev_c])]
        out, new = self.cell(x, states)
        return out, new[1]


def inputs():
    return [mx.nd.array(DATA["in:" + k]) for k in NAMES]


def make_net():
    net = DeepARStep(prefix="deepar_")
    net.load_parameters(os.path.join(HERE, "deepar.params"))
    return net


def test_imperatively_the_unknown_batch_is_an_error_as_in_mxnet():
    with pytest.raises(MXNetError, match="where"):
        make_net()(*inputs())


def test_hybridized_begin_state_takes_the_batch_from_the_condition():
    net = make_net()
    net.hybridize()
    arrays = inputs()
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out, c = net(*arrays)
        loss = (out * out).sum() + (c * 2).sum()
    loss.backward()
    np.testing.assert_allclose(out.asnumpy(), DATA["out:0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), DATA["out:1"], rtol=1e-5, atol=1e-6)
    for k, a in zip(NAMES, arrays):
        np.testing.assert_allclose(a.grad.asnumpy(), DATA["grad:" + k], rtol=1e-5, atol=1e-6, err_msg=k)
    for name, p in net.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), DATA["pgrad:" + name], rtol=1e-5, atol=1e-5, err_msg=name)


def test_infer_shape_of_mxnets_export_gives_mxnets_shapes():
    sym = mx.sym.load(os.path.join(HERE, "deepar-symbol.json"))
    shapes = {k: tuple(v) for k, v in SHAPES["shapes"].items()}
    arg, outs, _ = sym.infer_shape(**shapes)
    assert dict(zip(sym.list_arguments(), [list(s) for s in arg])) == SHAPES["arg_shapes"]
    assert [list(s) for s in outs] == SHAPES["out_shapes"]
    internals = sym.get_internals()
    _, int_shapes, _ = internals.infer_shape(**shapes)
    assert dict(zip(internals.list_outputs(), [list(s) for s in int_shapes])) == SHAPES["internal_shapes"]


def test_mxnets_export_runs_as_a_symbol_block(tmp_path):
    block = SymbolBlock.imports(os.path.join(HERE, "deepar-symbol.json"), ["data0", "data1", "data2", "data3"],
                                os.path.join(HERE, "deepar-export.params"))
    out, c = block(*inputs())
    np.testing.assert_allclose(out.asnumpy(), DATA["out:0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), DATA["out:1"], rtol=1e-5, atol=1e-6)


def test_export_writes_mxnets_graph(tmp_path):
    net = make_net()
    net.hybridize()
    net(*inputs())
    net.export(str(tmp_path / "deepar"))
    ours = json.load(open(str(tmp_path / "deepar-symbol.json")))
    theirs = json.load(open(os.path.join(HERE, "deepar-symbol.json")))
    assert ours == theirs


PARTIAL = json.load(open(os.path.join(HERE, "partial.json")))


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_where_partial_shapes_as_mxnet(name):
    """``infer_shape_partial`` around ``where``: x, y and the output share their (partial)
    shape once the condition is known; the condition never gives it (MXNet's WhereOpShape);
    a FullyConnected's parameters follow from the known dimensions of a (0, 6) input."""
    case = PARTIAL[name]
    sym = mx.sym.load_json(case["json"])
    arg, outs, _ = sym.infer_shape_partial(**{k: tuple(v) for k, v in case["shapes"].items()})
    assert dict(zip(sym.list_arguments(), [list(s) for s in arg])) == case["args"]
    assert [list(s) for s in outs] == case["outs"]
