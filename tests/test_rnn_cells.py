"""The recurrent cells of gluon.rnn / gluon.contrib.rnn against MXNet 1.9.1.

``tests/fixtures/extra/rnn_cells`` (``tools/make_extra_fixtures_rnn_cells.py``) holds, per
case, a cell spec, fixed weights, inputs, the unrolled outputs and states, gradients and
the names of the graph unrolled over Symbols. Every case is replayed imperatively
(values and gradients), over Symbols (names and values), inside a hybridized HybridBlock
(``hybrid_forward`` and a traced ``forward``) and step by step on a hybridized cell.
The other tests cover what the fixtures cannot: the modifier cells' randomness in train
and predict mode, ``valid_length`` semantics, errors, and the two exported fixture models
built from cells (``cell_unroll_stack``, ``bidirectional_cell_valid_length``).
"""
import json
import os
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.base import MXNetError
from neogluon.gluon import nn, rnn

HERE = os.path.dirname(os.path.abspath(__file__))
CELLS = os.path.join(HERE, "fixtures", "extra", "rnn_cells")
MODELS = os.path.join(HERE, "fixtures", "mxnet-1.9.1", "models")
with open(os.path.join(CELLS, "cases.json")) as _f:
    CASES = json.load(_f)
NAMESPACES = {"rnn": rnn, "nn": nn, "contrib.rnn": gluon.contrib.rnn}
TOL = dict(rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------- replaying the fixtures
def case_names(conv):
    """The recorded cases of convolutional cells (``conv``) or of the others."""
    return sorted(n for n, m in CASES.items() if m["spec"]["cls"].startswith("contrib.rnn.Conv") == conv)


def build(spec):
    """The cell a spec describes (see the generator): children are the leading positional
    arguments of modifier/bidirectional cells, or ``add``-ed to sequential ones."""
    ns, name = spec["cls"].rsplit(".", 1)
    cls = getattr(NAMESPACES[ns], name)
    kwargs = {k: build(v) if isinstance(v, dict) else v for k, v in spec["kwargs"].items()}
    children = [build(c) for c in spec["children"]]
    if name in ("SequentialRNNCell", "HybridSequentialRNNCell"):
        cell = cls(*spec["args"], **kwargs)
        for child in children:
            cell.add(child)
        return cell
    return cls(*(children + list(spec["args"])), **kwargs)


def load(name):
    with np.load(os.path.join(CELLS, name + ".npz")) as data:
        return CASES[name], dict(data)


def make_cell(name):
    """The case's cell, built in a fresh NameManager, with the recorded weights."""
    meta, arrays = load(name)
    with mx.name.NameManager():
        cell = build(meta["spec"])
    cell.initialize()
    unroll(cell, meta, *inputs(meta, arrays))  # finishes deferred initialisation
    params = cell.collect_params()
    for pname in params.keys():
        params[pname].set_data(nd.array(arrays["p:" + pname]))
    return cell, meta, arrays


def inputs(meta, arrays):
    """(x, begin states or None, valid_length or None) as NDArrays."""
    begin = [nd.array(arrays["s%d" % i]) for i in range(meta["num_states"])] if meta["begin_state"] else None
    vl = nd.array(arrays["vl"]) if meta["valid_length"] else None
    return nd.array(arrays["x"]), begin, vl


def unroll(cell, meta, x, begin, vl, F=nd):
    """Unroll as the case did: (outputs stacked along the time axis, states)."""
    axis = meta["layout"].find("T")
    if meta["as_list"]:
        x = list(F.split(x, axis=axis, num_outputs=meta["length"], squeeze_axis=1))
    outputs, states = cell.unroll(meta["length"], x, begin_state=begin, layout=meta["layout"],
                                  merge_outputs=meta["merge_outputs"], valid_length=vl)
    if isinstance(outputs, list):
        outputs = F.stack(*outputs, axis=axis)
    return outputs, list(states)


def check_forward(arrays, out, states):
    np.testing.assert_allclose(out.asnumpy(), arrays["out"], **TOL)
    assert len(states) == len([k for k in arrays if k.startswith("st")])
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.asnumpy(), arrays["st%d" % i], **TOL)


def loss_of(arrays, out, states):
    loss = (out * nd.array(arrays["head_out"])).sum()
    for i, s in enumerate(states):
        loss = loss + (s * nd.array(arrays["head_st%d" % i])).sum()
    return loss


def check_gradients(cell, arrays, x, begin):
    np.testing.assert_allclose(x.grad.asnumpy(), arrays["g:x"], **TOL)
    for i, s in enumerate(begin or []):
        np.testing.assert_allclose(s.grad.asnumpy(), arrays["g:s%d" % i], **TOL)
    for pname, p in cell.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), arrays["g:p:" + pname], err_msg=pname, **TOL)


def replay_imperative(name):
    cell, meta, arrays = make_cell(name)
    x, begin, vl = inputs(meta, arrays)
    out, states = unroll(cell, meta, x, begin, vl)
    check_forward(arrays, out, states)
    x.attach_grad()
    for s in begin or []:
        s.attach_grad()
    with autograd.record(train_mode=False):
        out, states = unroll(cell, meta, x, begin, vl)
        loss = loss_of(arrays, out, states)
    loss.backward()
    check_gradients(cell, arrays, x, begin)


def symbolic_unroll(spec, meta):
    """A fresh cell unrolled over variables ``data``, ``s<i>``, ``vl`` in a fresh NameManager."""
    with mx.name.NameManager():
        cell = build(spec)
        begin = [mx.sym.var("s%d" % i) for i in range(meta["num_states"])] if meta["begin_state"] else None
        vl = mx.sym.var("vl") if meta["valid_length"] else None
        x = mx.sym.var("data")
        if meta["as_list"]:
            x = list(mx.sym.split(x, axis=meta["layout"].find("T"), num_outputs=meta["length"], squeeze_axis=1))
        outputs, states = cell.unroll(meta["length"], x, begin_state=begin, layout=meta["layout"],
                                      merge_outputs=meta["merge_outputs"], valid_length=vl)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        return mx.sym.Group(outputs + list(states)), len(outputs)


def replay_symbolic(name):
    meta, arrays = load(name)
    group, n_out = symbolic_unroll(meta["spec"], meta)
    if meta["sym_outputs"] is not None:
        assert group.list_outputs() == meta["sym_outputs"]
        assert group.list_arguments() == meta["sym_args"]
    args = {"data": nd.array(arrays["x"])}
    args.update({k[2:]: nd.array(v) for k, v in arrays.items() if k.startswith("p:")})
    args.update({k: nd.array(v) for k, v in arrays.items() if k == "vl" or k[0] == "s" and k[1:].isdigit()})
    res = group.eval(**{k: args[k] for k in group.list_arguments()})
    axis = meta["layout"].find("T")
    out = res[0] if n_out == 1 and not meta["outputs_list"] else nd.stack(*res[:n_out], axis=axis)
    check_forward(arrays, out, res[n_out:])


class Unroller(gluon.HybridBlock):
    """Unrolls a cell in ``hybrid_forward``; returns ``[outputs] + states``."""

    def __init__(self, cell, meta, **kwargs):
        super().__init__(**kwargs)
        self.cell = cell
        self._meta = meta

    def hybrid_forward(self, F, x, *rest):
        begin = list(rest[:self._meta["num_states"]]) if self._meta["begin_state"] else None
        vl = rest[-1] if self._meta["valid_length"] else None
        out, states = unroll(self.cell, self._meta, x, begin, vl, F)
        return [out] + states


class ForwardUnroller(Unroller):
    """The same with ``forward`` written in ``mx.nd`` (hybridized by tracing)."""

    def forward(self, x, *rest):
        return self.hybrid_forward(nd, x, *rest)


def replay_hybridized(name, wrapper):
    cell, meta, arrays = make_cell(name)
    x, begin, vl = inputs(meta, arrays)
    net = wrapper(cell, meta)
    net.hybridize()
    args = [x] + (begin or []) + ([vl] if vl is not None else [])
    res = net(*args)
    check_forward(arrays, res[0], res[1:])
    x.attach_grad()
    for s in begin or []:
        s.attach_grad()
    with autograd.record(train_mode=False):
        res = net(*args)
        loss = loss_of(arrays, res[0], res[1:])
    loss.backward()
    check_gradients(cell, arrays, x, begin)


def replay_stepwise_hybridized(name):
    cell, meta, arrays = make_cell(name)
    cell.hybridize()
    out, states = unroll(cell, meta, *inputs(meta, arrays))
    check_forward(arrays, out, states)


def steppable(meta):
    """Hybrid cells whose unroll steps the cell itself (no bidirectional part)."""
    return meta["hybrid"] and "Bidirectional" not in json.dumps(meta["spec"])


DENSE = case_names(conv=False)


@pytest.mark.parametrize("name", DENSE)
def test_imperative_unroll_matches_mxnet(name):
    replay_imperative(name)


@pytest.mark.parametrize("name", DENSE)
def test_symbolic_unroll_names_and_values(name):
    replay_symbolic(name)


@pytest.mark.parametrize("wrapper", [Unroller, ForwardUnroller])
@pytest.mark.parametrize("name", [n for n in DENSE if CASES[n]["hybrid"]])
def test_unroll_inside_hybridized_block(name, wrapper):
    replay_hybridized(name, wrapper)


@pytest.mark.parametrize("name", [n for n in DENSE if steppable(CASES[n])])
def test_hybridized_cell_stepped_by_unroll(name):
    replay_stepwise_hybridized(name)


@pytest.mark.parametrize("name", DENSE)
def test_parameters_states_and_repr(name):
    cell, meta, _ = make_cell(name)
    params = cell.collect_params()
    assert list(params.keys()) == meta["params"]
    assert {k: list(p.shape) for k, p in params.items()} == meta["shapes"]
    batch = meta["state_info"][0]["shape"][0] if meta["state_info"] else 0
    info = cell.state_info(batch)
    assert [dict(shape=list(i["shape"]), layout=i["__layout__"]) for i in info] == meta["state_info"]
    assert repr(cell) == meta["repr"]


# ---------------------------------------------------------------------- the exported fixture models
class CellUnroll(gluon.HybridBlock):
    """The block MXNet exported as models/cell_unroll_stack."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cells = rnn.HybridSequentialRNNCell()
            with self.cells.name_scope():
                self.cells.add(rnn.LSTMCell(8))
                self.cells.add(rnn.ResidualCell(rnn.GRUCell(8)))
                self.cells.add(rnn.RNNCell(6, activation="relu"))
            self.out = nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        outputs, _ = self.cells.unroll(5, x, layout="NTC", merge_outputs=True)
        return self.out(outputs)


class BiCell(gluon.HybridBlock):
    """The block MXNet exported as models/bidirectional_cell_valid_length."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.BidirectionalCell(rnn.LSTMCell(5, prefix="l_"), rnn.GRUCell(5, prefix="r_"))

    def hybrid_forward(self, F, x, length):
        outputs, _ = self.cell.unroll(4, x, layout="TNC", merge_outputs=True, valid_length=length)
        return outputs


FIXTURE_MODELS = {"cell_unroll_stack": lambda: CellUnroll(prefix="unroll_"),
                  "bidirectional_cell_valid_length": lambda: BiCell(prefix="bi_")}


def _model_io(name):
    base = os.path.join(MODELS, name)
    with np.load(base + "-io.npz") as io:
        ins = [nd.array(io["data:%d" % i]) for i in range(sum(k.startswith("data:") for k in io.files))]
        return base, ins, io["out:0"]


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", sorted(FIXTURE_MODELS))
def test_fixture_model_rebuilt_from_cells(name, hybridize):
    base, ins, expected = _model_io(name)
    with mx.name.NameManager():
        net = FIXTURE_MODELS[name]()
    loaded = nd.load(base + "-0000.params")
    assert sorted(net.collect_params().keys()) == sorted(k.split(":", 1)[1] for k in loaded)
    net.collect_params().load(base + "-0000.params", ctx=mx.cpu())
    if hybridize:
        net.hybridize()
    np.testing.assert_allclose(net(*ins).asnumpy(), expected, **TOL)
    if hybridize:
        with open(base + "-symbol.json") as f:
            ref = json.load(f)["nodes"]
        ours = json.loads(net._cached_graph[1].tojson())["nodes"]
        assert [(n["op"], n["name"], n["inputs"]) for n in ours] == [(n["op"], n["name"], n["inputs"]) for n in ref]


@pytest.mark.parametrize("name", sorted(FIXTURE_MODELS))
def test_fixture_model_imports_and_reexport(name, tmp_path):
    base, ins, expected = _model_io(name)
    data = ["data"] if len(ins) == 1 else ["data0", "data1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = gluon.SymbolBlock.imports(base + "-symbol.json", data, base + "-0000.params")
    np.testing.assert_allclose(imported(*ins).asnumpy(), expected, **TOL)
    with mx.name.NameManager():
        net = FIXTURE_MODELS[name]()
    net.collect_params().load(base + "-0000.params", ctx=mx.cpu())
    net.hybridize()
    net(*ins)
    net.export(str(tmp_path / name))
    again = gluon.SymbolBlock.imports(str(tmp_path / (name + "-symbol.json")), data,
                                      str(tmp_path / (name + "-0000.params")))
    np.testing.assert_allclose(again(*ins).asnumpy(), expected, **TOL)


# ---------------------------------------------------------------------- naming, states, deferred shapes
def test_parameter_and_output_names():
    with mx.name.NameManager():
        cell = rnn.RNNCell(4, prefix="rnn_")
        outputs, states = cell.unroll(3, mx.sym.var("data"), merge_outputs=False)
    assert sorted(cell.collect_params().keys()) == ["rnn_h2h_bias", "rnn_h2h_weight", "rnn_i2h_bias",
                                                    "rnn_i2h_weight"]
    assert [o.name for o in outputs] == ["rnn_t0_out", "rnn_t1_out", "rnn_t2_out"]
    assert mx.sym.Group(outputs).list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output", "rnn_t2_out_output"]
    with mx.name.NameManager():
        stack = rnn.SequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.LSTMCell(3))
            stack.add(rnn.GRUCell(3))
    assert sorted(stack.collect_params().keys())[:2] == ["sequentialrnncell0_gru0_h2h_bias",
                                                         "sequentialrnncell0_gru0_h2h_weight"]
    assert "sequentialrnncell0_lstm0_i2h_weight" in stack.collect_params().keys()


def test_begin_state_functions_and_names():
    cell = rnn.LSTMCell(3, prefix="lstm_")
    zeros = cell.begin_state(batch_size=2)
    assert [s.shape for s in zeros] == [(2, 3), (2, 3)] and zeros[0].asnumpy().sum() == 0
    ones = cell.begin_state(batch_size=2, func=nd.ones)
    assert ones[1].asnumpy().tolist() == [[1.0] * 3] * 2
    variables = cell.begin_state(func=mx.sym.var)
    assert [v.name for v in variables] == ["lstm_begin_state_4", "lstm_begin_state_5"]
    cell.reset()
    assert [s.name for s in cell.begin_state(func=mx.sym.zeros)] == ["lstm_begin_state_0", "lstm_begin_state_1"]
    stack = rnn.HybridSequentialRNNCell()
    stack.add(rnn.RNNCell(2))
    stack.add(rnn.LSTMCell(4))
    assert [s.shape for s in stack.begin_state(batch_size=5)] == [(5, 2), (5, 4), (5, 4)]
    assert len(stack.state_info()) == 3


def test_deferred_input_size_and_explicit_input_size():
    cell = rnn.GRUCell(4)
    assert cell.i2h_weight.shape == (12, 0)
    cell.initialize()
    out, states = cell(nd.ones((2, 7)), cell.begin_state(batch_size=2))
    assert cell.i2h_weight.shape == (12, 7) and out.shape == (2, 4) and states[0].shape == (2, 4)
    assert repr(cell) == "GRUCell(7 -> 12)"
    fixed = rnn.LSTMCell(5, input_size=3)
    assert fixed.i2h_weight.shape == (20, 3) and repr(fixed) == "LSTMCell(3 -> 20)"
    assert repr(rnn.RNNCell(3)) == "RNNCell(None -> 3, tanh)"


def test_unroll_layouts_and_merge_outputs():
    cell = rnn.LSTMCell(3)
    cell.initialize()
    x = nd.random.uniform(shape=(2, 4, 5))
    merged, states = cell.unroll(4, x, layout="NTC", merge_outputs=True)
    listed, _ = cell.unroll(4, x, layout="NTC", merge_outputs=False)
    default, _ = cell.unroll(4, x, layout="NTC")
    tnc, _ = cell.unroll(4, x.swapaxes(0, 1), layout="TNC", merge_outputs=True)
    steps, _ = cell.unroll(4, [x[:, t] for t in range(4)], merge_outputs=True)
    assert merged.shape == (2, 4, 3) and isinstance(listed, list) and isinstance(default, list)
    assert len(states) == 2 and states[1].shape == (2, 3)
    for other in (nd.stack(*listed, axis=1), nd.stack(*default, axis=1), tnc.swapaxes(0, 1), steps):
        np.testing.assert_allclose(other.asnumpy(), merged.asnumpy(), rtol=1e-6)
    with pytest.raises(MXNetError, match="length"):
        cell.unroll(3, x)


def test_valid_length_returns_last_valid_states_and_masks_outputs():
    cell = rnn.LSTMCell(4)
    cell.initialize()
    x = nd.random.uniform(shape=(3, 5, 2))
    lengths = [5, 2, 3]
    full, _ = cell.unroll(5, x, merge_outputs=True)
    out, states = cell.unroll(5, x, merge_outputs=True, valid_length=nd.array(lengths))
    full, out = full.asnumpy(), out.asnumpy()
    for n, length in enumerate(lengths):
        np.testing.assert_allclose(out[n, :length], full[n, :length], rtol=1e-6)
        assert not out[n, length:].any()
        np.testing.assert_allclose(states[0].asnumpy()[n], full[n, length - 1], rtol=1e-6)
        _, ref_states = cell.unroll(length, x[n:n + 1, :length], merge_outputs=True)
        np.testing.assert_allclose(states[1].asnumpy()[n], ref_states[1].asnumpy()[0], rtol=1e-5)


def test_bidirectional_valid_length_reverses_valid_part_only():
    fwd, bwd = rnn.RNNCell(2, prefix="f_"), rnn.RNNCell(2, prefix="b_")
    bi = rnn.BidirectionalCell(fwd, bwd)
    bi.initialize()
    x = nd.random.uniform(shape=(2, 4, 3))
    out, states = bi.unroll(4, x, merge_outputs=True, valid_length=nd.array([4, 2]))
    assert out.shape == (2, 4, 4) and len(states) == 2
    short, _ = bi.unroll(2, x[1:2, :2], merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy()[1, :2], short.asnumpy()[0], rtol=1e-5)
    assert not out.asnumpy()[1, 2:].any()
    with pytest.raises(MXNetError, match="cannot be stepped"):
        bi(x[:, 0], bi.begin_state(batch_size=2))


def test_gru_gluon2_activations():
    x = nd.random.uniform(-1, 1, shape=(2, 3))
    cells = [rnn.GRUCell(4, input_size=3), rnn.GRUCell(4, input_size=3, activation="relu",
                                                          recurrent_activation="tanh")]
    for cell in cells:
        cell.initialize(mx.init.Uniform(0.5))
    h = nd.random.uniform(shape=(2, 4))
    for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
        getattr(cells[1], name).set_data(getattr(cells[0], name).data())
    w_i, w_h = cells[0].i2h_weight.data().asnumpy(), cells[0].h2h_weight.data().asnumpy()
    b_i, b_h = cells[0].i2h_bias.data().asnumpy(), cells[0].h2h_bias.data().asnumpy()
    i2h = x.asnumpy() @ w_i.T + b_i
    h2h = h.asnumpy() @ w_h.T + b_h
    for cell, act, rec in ((cells[0], np.tanh, lambda v: 1 / (1 + np.exp(-v))),
                           (cells[1], lambda v: np.maximum(v, 0), np.tanh)):
        r, z = rec(i2h[:, :4] + h2h[:, :4]), rec(i2h[:, 4:8] + h2h[:, 4:8])
        n = act(i2h[:, 8:] + r * h2h[:, 8:])
        out, _ = cell(x, [h])
        np.testing.assert_allclose(out.asnumpy(), (1 - z) * n + z * h.asnumpy(), rtol=1e-5, atol=1e-6)


def test_sequential_add_index_len_and_step():
    stack = rnn.SequentialRNNCell()
    cells = [rnn.RNNCell(3), rnn.LSTMCell(3), rnn.GRUCell(2)]
    for c in cells:
        stack.add(c)
    assert len(stack) == 3 and stack[0] is cells[0] and stack[-1] is cells[2]
    stack.initialize()
    x = nd.random.uniform(shape=(2, 4))
    out, states = stack(x, stack.begin_state(batch_size=2))
    assert out.shape == (2, 2) and [s.shape for s in states] == [(2, 3), (2, 3), (2, 3), (2, 2)]
    assert repr(stack).startswith("SequentialRNNCell(\n(0): RNNCell(4 -> 3, tanh)")
    hybrid = rnn.HybridSequentialRNNCell()
    hybrid.add(rnn.RNNCell(3))
    with pytest.raises(ValueError, match="HybridBlock"):
        hybrid.add(rnn.SequentialRNNCell())


# ---------------------------------------------------------------------- modifier cells and randomness
def _steps_equal_base(modifier, base, x):
    """The modifier's unroll in predict mode equals its base cell's."""
    out, states = modifier.unroll(x.shape[1], x, merge_outputs=True)
    base._modified = False
    ref, ref_states = base.unroll(x.shape[1], x, merge_outputs=True)
    base._modified = True
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    for s, r in zip(states, ref_states):
        np.testing.assert_allclose(s.asnumpy(), r.asnumpy(), rtol=1e-6)


def test_dropout_cell_follows_mode():
    cell = rnn.DropoutCell(0.5)
    x = nd.ones((40, 6, 50))
    out, states = cell.unroll(6, x, merge_outputs=True)
    assert states == [] and (out.asnumpy() == 1).all()
    with autograd.train_mode():
        out, _ = cell.unroll(6, x, merge_outputs=True)
        steps, _ = cell.unroll(6, x, merge_outputs=False)
    values = np.unique(out.asnumpy())
    assert set(values.tolist()) <= {0.0, 2.0} and 0.4 < (out.asnumpy() == 0).mean() < 0.6
    assert len(steps) == 6 and 0.4 < (steps[2].asnumpy() == 0).mean() < 0.6
    shared = rnn.DropoutCell(0.5, axes=(1,))
    with autograd.train_mode():
        out, _ = shared.unroll(6, x, merge_outputs=True)
    assert (out.asnumpy() == out.asnumpy()[:, :1]).all()
    assert repr(shared) == "DropoutCell(rate=0.5, axes=(1,))"
    with pytest.raises(TypeError):
        rnn.DropoutCell("0.5")


def test_zoneout_cell_follows_mode():
    base = rnn.GRUCell(30)
    cell = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    cell.initialize()
    x = nd.random.uniform(-1, 1, shape=(20, 5, 4))
    _steps_equal_base(cell, base, x)
    with autograd.train_mode():
        out, _ = cell.unroll(5, x, merge_outputs=False)
    out = [o.asnumpy() for o in out]
    kept_zero = (out[0] == 0).mean()  # zoned-out first outputs keep the zero "previous output"
    assert 0.35 < kept_zero < 0.65
    repeated = np.mean([(out[t] == out[t - 1]).mean() for t in range(1, 5)])
    assert 0.35 < repeated < 0.65
    assert repr(cell).startswith("ZoneoutCell(p_out=0.5, p_state=0.5, GRUCell")


def test_residual_cell_adds_inputs():
    base = rnn.RNNCell(3)
    cell = rnn.ResidualCell(base)
    cell.initialize()
    x = nd.random.uniform(shape=(2, 4, 3))
    out, _ = cell.unroll(4, x, merge_outputs=True)
    base._modified = False
    ref, _ = base.unroll(4, x, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), (ref + x).asnumpy(), rtol=1e-6)
    stepped, _ = cell(x[:, 0], cell.begin_state(batch_size=2))
    np.testing.assert_allclose(stepped.asnumpy(), out.asnumpy()[:, 0], rtol=1e-6)


@pytest.mark.parametrize("drop_states", [0.0, 0.5])
def test_variational_dropout_masks_fixed_across_steps(drop_states):
    base = rnn.RNNCell(60, activation="sigmoid")
    cell = gluon.contrib.rnn.VariationalDropoutCell(base, drop_inputs=0.0, drop_states=drop_states,
                                                    drop_outputs=0.5)
    cell.initialize(mx.init.Uniform(0.1))
    x = nd.random.uniform(0.5, 1, shape=(8, 5, 10))
    _steps_equal_base(cell, base, x)
    with autograd.train_mode():
        out, _ = cell.unroll(5, x, merge_outputs=True)
    dropped = out.asnumpy() == 0
    assert 0.35 < dropped.mean() < 0.65
    assert (dropped == dropped[:, :1]).all()  # the same units are dropped at every step


def test_variational_dropout_mask_kept_until_reset():
    base = rnn.RNNCell(80, activation="sigmoid")
    cell = gluon.contrib.rnn.VariationalDropoutCell(base, drop_inputs=0.5, drop_states=0.5, drop_outputs=0.5)
    cell.initialize(mx.init.Uniform(0.1))
    x = nd.random.uniform(0.5, 1, shape=(4, 6))
    states = cell.begin_state(batch_size=4)
    with autograd.train_mode():
        first, states = cell(x, states)
        second, _ = cell(x, states)
        masks = [m.asnumpy() for m in (cell.drop_inputs_mask, cell.drop_states_mask, cell.drop_outputs_mask)]
        assert ((first.asnumpy() == 0) <= (second.asnumpy() == 0)).all()
        cell.reset()
        assert cell.drop_outputs_mask is None
        cell(x, cell.begin_state(batch_size=4))
    assert not np.array_equal(masks[2], cell.drop_outputs_mask.asnumpy())
    assert repr(cell) == "VariationalDropoutCell(p_out = 0.5, p_state = 0.5)"


def test_modifier_rules():
    base = rnn.LSTMCell(3)
    zone = rnn.ZoneoutCell(base, 0.1, 0.1)
    assert zone.params is base.params and zone.state_info(2) == base.state_info(2)
    assert [s.shape for s in zone.begin_state(batch_size=2)] == [(2, 3), (2, 3)]
    with pytest.raises(MXNetError, match="already modified"):
        rnn.ResidualCell(base)
    with pytest.raises(MXNetError, match="modifier"):
        base.begin_state(batch_size=2)
    bi = rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2))
    with pytest.raises(MXNetError, match="zoneout"):
        rnn.ZoneoutCell(bi, 0.1)
    with pytest.raises(MXNetError, match="variational state dropout"):
        gluon.contrib.rnn.VariationalDropoutCell(bi, drop_states=0.2)
    stack = rnn.SequentialRNNCell()
    stack.add(rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2)))
    with pytest.raises(MXNetError, match="stepped"):
        stack(nd.ones((1, 2)), stack.begin_state(batch_size=1))


def test_contrib_rnn_aliases():
    contrib = gluon.contrib.rnn
    assert contrib.LSTMPCell is rnn.LSTMPCell and contrib.VariationalDropoutCell is rnn.VariationalDropoutCell
    assert contrib.Conv2DLSTMCell is rnn.Conv2DLSTMCell
    assert set(contrib.__all__) == {"Conv%dD%sCell" % (d, k) for d in (1, 2, 3) for k in ("RNN", "LSTM", "GRU")} | \
        {"LSTMPCell", "VariationalDropoutCell"}
