"""The fused Gluon layers rnn.RNN / LSTM / GRU against MXNet 1.9.1 and against stacks of cells.

Reference data: the exported models of ``fixtures/mxnet-1.9.1/models`` and
``fixtures/extra/rnn_layers`` (made by ``tools/make_extra_fixtures_rnn_layers.py``).
"""
import json
import os
import re

import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.gluon import nn, rnn

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "fixtures", "mxnet-1.9.1", "models")
EXTRA = os.path.join(HERE, "fixtures", "extra", "rnn_layers")
META = json.load(open(os.path.join(EXTRA, "meta.json")))
CASES = sorted(k for k in META if k != "repr_deferred")

MODEL_LAYERS = {
    "lstm_layer_2x_bidir": lambda: rnn.LSTM(12, num_layers=2, bidirectional=True, layout="NTC", prefix="lstm_"),
    "gru_layer_2x_bidir": lambda: rnn.GRU(12, num_layers=2, bidirectional=True, layout="NTC", prefix="gru_"),
    "rnn_tanh_layer": lambda: rnn.RNN(10, activation="tanh", prefix="rnn_"),
    "lstm_projection_layer": lambda: rnn.LSTM(10, projection_size=6, prefix="lstmp_"),
}


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.asnumpy() if hasattr(a, "asnumpy") else a, b, rtol=tol, atol=tol)


def extra_case(name):
    """(layer with the fixture's parameters, arrays) for one case of the extra fixtures."""
    meta = META[name]
    layer = getattr(rnn, meta["kind"])(prefix=meta["prefix"], **meta["kwargs"])
    layer.load_parameters(os.path.join(EXTRA, name + ".params"))
    return layer, np.load(os.path.join(EXTRA, name + ".npz"))


def fixture_states(arrays):
    return [nd.array(arrays["state:%d" % i]) for i in range(sum(k.startswith("state:") for k in arrays))]


# ------------------------------------------------------------------ MXNet's exported layers
def load_model_params(name):
    loaded = nd.load(os.path.join(MODELS, name + "-0000.params"))
    return {k.split(":", 1)[1]: v for k, v in loaded.items()}


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", sorted(MODEL_LAYERS))
def test_fixture_model_outputs_with_gluon_layer(name, hybridize):
    io = np.load(os.path.join(MODELS, name + "-io.npz"))
    layer = MODEL_LAYERS[name]()
    layer.initialize()
    if hybridize:
        layer.hybridize()
    x = nd.array(io["data:0"])
    layer(x)   # deferred initialisation from the data
    weights = load_model_params(name)
    for pname, p in layer.collect_params().items():
        p.set_data(weights[pname])
    close(layer(x), io["out:0"])


@pytest.mark.parametrize("name", sorted(MODEL_LAYERS))
def test_export_writes_mxnet_json(name, tmp_path):
    io = np.load(os.path.join(MODELS, name + "-io.npz"))
    layer = MODEL_LAYERS[name]()
    layer.initialize(mx.init.Xavier(magnitude=2.0))
    layer.hybridize()
    layer(nd.array(io["data:0"]))
    layer.export(str(tmp_path / name), epoch=0)
    ours = json.load(open(str(tmp_path / name) + "-symbol.json"))
    theirs = json.load(open(os.path.join(MODELS, name + "-symbol.json")))
    assert ours["nodes"] == theirs["nodes"]
    assert ours["heads"] == theirs["heads"] and ours["arg_nodes"] == theirs["arg_nodes"]
    assert sorted(nd.load(str(tmp_path / name) + "-0000.params")) == \
        sorted(nd.load(os.path.join(MODELS, name + "-0000.params")))


@pytest.mark.parametrize("name", sorted(MODEL_LAYERS))
def test_exported_layer_reloads_as_symbol_block(name, tmp_path):
    io = np.load(os.path.join(MODELS, name + "-io.npz"))
    layer = MODEL_LAYERS[name]()
    layer.initialize(mx.init.Xavier())
    layer.hybridize()
    x = nd.array(io["data:0"])
    expected = layer(x).asnumpy()
    layer.export(str(tmp_path / "m"))
    net = gluon.SymbolBlock.imports(str(tmp_path / "m-symbol.json"), ["data0", "data1", "data2"][:len(
        layer.state_info()) + 1], str(tmp_path / "m-0000.params"))
    batch = x.shape[layer._layout.find("N")]
    close(net(x, *layer.begin_state(batch)), expected)


# ------------------------------------------------------------------ extra fixtures: values and gradients
@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", CASES)
def test_outputs_and_states_match_mxnet(name, hybridize):
    layer, a = extra_case(name)
    if hybridize:
        layer.hybridize()
    out, states = layer(nd.array(a["x"]), fixture_states(a))
    close(out, a["out"])
    assert len(states) == len(META[name]["state_info"])
    for i, s in enumerate(states):
        close(s, a["state_out:%d" % i])


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", [c for c in CASES if "grad:x" in np.load(os.path.join(EXTRA, c + ".npz"))])
def test_gradients_match_mxnet(name, hybridize):
    layer, a = extra_case(name)
    if hybridize:
        layer.hybridize()
    x, states = nd.array(a["x"]), fixture_states(a)
    for v in [x] + states:
        v.attach_grad()
    with autograd.record():
        out, new_states = layer(x, states)
        heads = [a["head:out"]] + [a["head:state:%d" % i] for i in range(len(new_states))]
        loss = sum((o * nd.array(h)).sum() for o, h in zip([out] + new_states, heads))
    loss.backward()
    close(x.grad, a["grad:x"], 1e-4)
    for i, s in enumerate(states):
        close(s.grad, a["grad:state:%d" % i], 1e-4)
    for p in layer.collect_params().values():
        close(p.grad(), a["grad:param:" + p.name[len(layer.prefix):]], 1e-4)


# ------------------------------------------------------------------ names, repr, states
@pytest.mark.parametrize("name", CASES)
def test_parameter_names_repr_and_state_info(name):
    meta = META[name]
    layer, _ = extra_case(name)
    assert list(layer.collect_params().keys()) == meta["collect_params"]
    assert sorted(layer._collect_params_with_prefix()) == meta["structural"]
    assert repr(layer) == meta["repr"]
    assert [dict(i, shape=list(i["shape"])) for i in layer.state_info(2)] == meta["state_info"]
    assert [s.name for s in layer.begin_state(2, func=mx.sym.zeros)] == meta["begin_state_names"]


def test_repr_before_initialisation():
    assert repr(rnn.RNN(4, dropout=0.5)) == META["repr_deferred"]["RNN(4, dropout=0.5)"]
    assert repr(rnn.GRU(3, num_layers=2, bidirectional=True, input_size=2)) == \
        META["repr_deferred"]["GRU(3, num_layers=2, bidirectional=True, input_size=2)"]


def test_automatic_prefixes_and_parameter_shapes():
    lstm, gru = rnn.LSTM(8, num_layers=2, projection_size=3, input_size=5), rnn.GRU(4)
    assert lstm.prefix.startswith("lstm") and gru.prefix.startswith("gru")
    shapes = {k[len(lstm.prefix):]: v.shape for k, v in lstm.collect_params().items()}
    assert shapes["l0_i2h_weight"] == (32, 5) and shapes["l0_h2h_weight"] == (32, 3)
    assert shapes["l0_h2r_weight"] == (3, 8) and shapes["l1_i2h_weight"] == (32, 3)
    assert shapes["l1_h2h_bias"] == (32,)


@pytest.mark.parametrize("name", ["lstm_2x_bidir_ntc", "gru_3x", "lstm_proj"])
def test_save_parameters_round_trip(name, tmp_path):
    layer, a = extra_case(name)
    layer.save_parameters(str(tmp_path / "p.params"))
    assert sorted(nd.load(str(tmp_path / "p.params"))) == META[name]["structural"]
    other = getattr(rnn, META[name]["kind"])(**META[name]["kwargs"])
    other.load_parameters(str(tmp_path / "p.params"))
    close(other(nd.array(a["x"]), fixture_states(a))[0], a["out"])


# ------------------------------------------------------------------ calling conventions
@pytest.mark.parametrize("hybridize", [False, True])
def test_states_returned_only_when_given(hybridize):
    layer = rnn.LSTM(6, num_layers=2, layout="NTC")
    layer.initialize()
    if hybridize:
        layer.hybridize()
    x = nd.random.uniform(shape=(3, 5, 4))
    out = layer(x)
    assert isinstance(out, nd.NDArray) and out.shape == (3, 5, 6)
    out2, states = layer(x, layer.begin_state(3))
    assert [s.shape for s in states] == [(2, 3, 6), (2, 3, 6)]
    close(out2, out.asnumpy())
    assert isinstance(layer(x), nd.NDArray)


def test_single_state_array_accepted():
    layer = rnn.GRU(4, input_size=3)
    layer.initialize()
    out, states = layer(nd.ones((5, 2, 3)), nd.zeros((1, 2, 4)))
    assert out.shape == (5, 2, 4) and len(states) == 1 and states[0].shape == (1, 2, 4)


def test_invalid_state_shape_raises():
    layer = rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize()
    with pytest.raises(ValueError, match=r"Invalid recurrent state shape. Expecting \(4, 2, 4\), got \(4, 3, 4\)"):
        layer(nd.ones((5, 2, 3)), [nd.zeros((4, 3, 4)), nd.zeros((4, 2, 4))])


def test_invalid_layout_rejected():
    with pytest.raises(AssertionError, match="Invalid layout"):
        rnn.GRU(4, layout="NCT")


def test_begin_state_functions_and_kwargs():
    layer = rnn.LSTM(5, num_layers=3, projection_size=2)
    states = layer.begin_state(4, func=nd.ones, dtype="float64")
    assert [s.shape for s in states] == [(3, 4, 2), (3, 4, 5)]
    assert all(s.dtype == np.float64 and float(s.sum().asscalar()) == s.size for s in states)
    syms = layer.begin_state(4, func=mx.sym.var)
    assert [s.name for s in syms] == [layer.prefix + "h0_0", layer.prefix + "h0_1"]


def test_symbolic_call_without_states_uses_zero_states():
    layer = rnn.GRU(3, num_layers=2, prefix="g_")
    out = layer(mx.sym.var("data"))
    assert out.list_outputs() == ["g_rnn0_output"]
    arg_shapes, out_shapes, _ = out.infer_shape(data=(7, 2, 5))
    assert out_shapes == [(7, 2, 3)]
    assert dict(zip(out.list_arguments(), arg_shapes))["g_l0_i2h_weight"] == (9, 5)


def test_float64_layer():
    layer = rnn.RNN(4, num_layers=2, dtype="float64", input_size=3)
    layer.initialize()
    out, states = layer(nd.ones((5, 2, 3), dtype="float64"), layer.begin_state(2))
    assert out.dtype == np.float64 and states[0].dtype == np.float64
    assert layer.l1_h2h_weight.data().dtype == np.float64


def test_cast_changes_states_dtype():
    layer = rnn.GRU(4, input_size=3)
    layer.initialize()
    layer.cast("float64")
    assert layer.state_info(2)[0]["dtype"] == "float64"
    assert layer(nd.ones((5, 2, 3), dtype="float64")).dtype == np.float64


def test_initializers_are_used():
    layer = rnn.LSTM(3, input_size=2, i2h_weight_initializer="ones", h2h_weight_initializer=mx.init.Constant(2),
                     i2h_bias_initializer=mx.init.Constant(3), h2h_bias_initializer="zeros",
                     projection_size=2, h2r_weight_initializer=mx.init.Constant(5))
    layer.initialize()
    for name, value in [("l0_i2h_weight", 1), ("l0_h2h_weight", 2), ("l0_i2h_bias", 3), ("l0_h2h_bias", 0),
                        ("l0_h2r_weight", 5)]:
        assert (getattr(layer, name).data().asnumpy() == value).all(), name


@pytest.mark.parametrize("hybridize", [False, True])
def test_dropout_between_layers_only_in_training(hybridize):
    mx.random.seed(3)
    layer = rnn.LSTM(16, num_layers=2, dropout=0.5, input_size=8)
    layer.initialize(mx.init.Uniform(0.5))
    if hybridize:
        layer.hybridize()
    x = nd.random.uniform(shape=(6, 4, 8))
    predict = [layer(x).asnumpy() for _ in range(2)]
    np.testing.assert_array_equal(predict[0], predict[1])
    with autograd.record():
        train = [layer(x).asnumpy() for _ in range(2)]
    assert not np.allclose(train[0], predict[0]) and not np.allclose(train[0], train[1])
    single = rnn.LSTM(16, num_layers=1, dropout=0.5, input_size=8)
    single.initialize()
    with autograd.record():
        np.testing.assert_array_equal(single(x).asnumpy(), single(x).asnumpy())


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_input_size_inside_a_hybridized_model(hybridize):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Embedding(20, 7), rnn.LSTM(6, num_layers=2, bidirectional=True, layout="NTC"),
                nn.Dense(5, flatten=False))
    net.initialize()
    if hybridize:
        net.hybridize()
    out = net(nd.array(np.random.randint(0, 20, (3, 9))))
    assert out.shape == (3, 9, 5)
    lstm = net[1]
    assert lstm.l0_i2h_weight.shape == (24, 7) and lstm.r1_i2h_weight.shape == (24, 12)


def test_imperative_and_hybridized_agree_in_training():
    layer = rnn.GRU(5, num_layers=2, bidirectional=True, input_size=3)
    layer.initialize(mx.init.Uniform(0.4))
    x = nd.random.uniform(shape=(4, 2, 3))
    grads = []
    for hybridize in (False, True):
        layer.hybridize(hybridize)
        with autograd.record():
            loss = (layer(x, layer.begin_state(2))[0] ** 2).sum()
        loss.backward()
        grads.append({k: p.grad().asnumpy() for k, p in layer.collect_params().items()})
    for k in grads[0]:
        close(grads[1][k], grads[0][k])


def test_use_sequence_length_keyword():
    layer = rnn.LSTM(4, input_size=3, use_sequence_length=True)
    layer.initialize()
    out = layer(nd.ones((5, 2, 3)), None, nd.array([5, 3]))
    assert out.shape == (5, 2, 4)


# ------------------------------------------------------------------ fused layer == stack of cells
def to_cell_states(states, mode_lstm):
    """Fused [h (L*D,N,W)[, c]] -> the cell stack's flat list [h_k[, c_k]] per layer and direction."""
    h = states[0]
    return [s for k in range(h.shape[0]) for s in ([h[k], states[1][k]] if mode_lstm else [h[k]])]


def from_cell_states(cell_states, mode_lstm):
    step = 2 if mode_lstm else 1
    out = [nd.stack(*cell_states[0::step])]
    return out + ([nd.stack(*cell_states[1::step])] if mode_lstm else [])


def projected_stack(layer):
    """A stack of LSTMPCells (BidirectionalCell when bidirectional) with the layer's weights."""
    stack = rnn.HybridSequentialRNNCell()
    for i in range(layer._num_layers):
        cells = [rnn.LSTMPCell(layer._hidden_size, layer._projection_size, prefix="%s%d_" % (d, i))
                 for d in ["l", "r"][:layer._dir]]
        stack.add(rnn.BidirectionalCell(*cells) if layer._dir == 2 else cells[0])
    stack.initialize()
    return stack


def short_name(name):
    """'l0_i2h_weight' from any prefixed parameter name."""
    return re.search(r"[lr]\d+_(i2h|h2h|h2r)_(weight|bias)$", name).group(0)


def copy_weights(layer, stack, x, states):
    stack.unroll(x.shape[0], x, begin_state=states, layout="TNC", merge_outputs=True)  # deferred shapes
    ours = {short_name(k): p for k, p in layer.collect_params().items()}
    for k, p in stack.collect_params().items():
        p.set_data(ours[short_name(k)].data())
    return stack.collect_params()


def run_with_grads(fn, x, states, params):
    for v in [x] + states:
        v.attach_grad()
    with autograd.record():
        out, new_states = fn(x, states)
        loss = (out * out).sum() + sum((s * 0.5).sum() for s in new_states)
    loss.backward()
    return out, new_states, [x.grad.copy()] + [s.grad.copy() for s in states], \
        {short_name(k): p.grad().copy() for k, p in params.items()}


LAYER_CONFIGS = [
    ("lstm", dict(num_layers=1)), ("lstm", dict(num_layers=3)), ("lstm", dict(num_layers=1, bidirectional=True)),
    ("lstm", dict(num_layers=3, bidirectional=True)), ("gru", dict(num_layers=3, bidirectional=True)),
    ("gru", dict(num_layers=1)), ("rnn_tanh", dict(num_layers=3)), ("rnn_relu", dict(num_layers=1, bidirectional=True)),
    ("lstmp", dict(num_layers=1)), ("lstmp", dict(num_layers=3, bidirectional=True)),
]


def make_layer(kind, kwargs):
    if kind == "lstmp":
        return rnn.LSTM(6, projection_size=4, input_size=3, **kwargs)
    if kind.startswith("rnn_"):
        return rnn.RNN(6, activation=kind[4:], input_size=3, **kwargs)
    return getattr(rnn, kind.upper())(6, input_size=3, **kwargs)


@pytest.mark.parametrize("kind,kwargs", LAYER_CONFIGS)
def test_fused_layer_equals_stack_of_cells(kind, kwargs):
    layer = make_layer(kind, kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    is_lstm = kind.startswith("lstm")
    x = nd.random.uniform(-1, 1, shape=(5, 2, 3))
    states = [nd.random.uniform(-1, 1, shape=info["shape"]) for info in layer.state_info(2)]
    cell_begin = to_cell_states(states, is_lstm)
    if kind == "lstmp":
        stack = projected_stack(layer)
        stack_params = copy_weights(layer, stack, x, cell_begin)
    else:
        stack = layer._unfuse()
        stack_params = stack.collect_params()
    fused = run_with_grads(lambda x_, s_: layer(x_, s_), x.copy(), [s.copy() for s in states],
                           layer.collect_params())

    def cells(x_, s_):
        out, new = stack.unroll(5, x_, begin_state=to_cell_states(s_, is_lstm), layout="TNC", merge_outputs=True)
        return out, from_cell_states(new, is_lstm)
    unfused = run_with_grads(cells, x.copy(), [s.copy() for s in states], stack_params)
    close(unfused[0], fused[0].asnumpy())
    for a, b in zip(unfused[1] + unfused[2], fused[1] + fused[2]):
        close(a, b.asnumpy())
    assert sorted(unfused[3]) == sorted(fused[3])
    for k in fused[3]:
        close(unfused[3][k], fused[3][k].asnumpy())
