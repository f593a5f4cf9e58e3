"""Gluon under ``npx.set_np()`` against MXNet 1.9.1, and the rnn reference's examples.

``gluon_train.npz`` (``tools/make_extra_fixtures_numpy.py``) holds an np-style network's
parameters, data, and MXNet's losses, final parameters and outputs after three SGD steps,
imperatively and hybridized; the same source (``gluon_net.py.txt``) trains here.
"""
import json
import os

import numpy as onp
import pytest

import neogluon as mx
from neogluon import autograd, gluon, np, npx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "numpy")
PARAMS = ("conv.weight", "conv.bias", "d1.weight", "d1.bias", "d2.weight", "d2.bias")


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def make_net(data, hybridize):
    env = dict(gluon=gluon)
    exec(open(os.path.join(FIXTURES, "gluon_net.py.txt")).read(), env)  # pylint: disable=exec-used
    net = env["Net"]()
    net.initialize()
    for k in PARAMS:
        blk, attr = k.split(".")
        getattr(getattr(net, blk), attr).set_data(np.array(data["p_" + k]))
    if hybridize:
        net.hybridize()
    return net


@pytest.mark.parametrize("hybridize", [False, True])
def test_np_network_trains_as_mxnet(hybridize):
    data = dict(onp.load(os.path.join(FIXTURES, "gluon_train.npz")))
    tag = "hybrid" if hybridize else "imperative"
    net = make_net(data, hybridize)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = np.array(data["x"]), np.array(data["y"])
    losses = []
    for _ in range(3):
        with autograd.record():
            out = net(x)
            loss = loss_fn(out, y)
        assert isinstance(out, np.ndarray) and isinstance(loss, np.ndarray)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(loss.asnumpy())
    onp.testing.assert_allclose(onp.stack(losses), data["losses_" + tag], rtol=1e-4, atol=1e-5)
    for k in PARAMS:
        p = getattr(getattr(net, k.split(".")[0]), k.split(".")[1])
        assert isinstance(p.data(), np.ndarray) and isinstance(p.grad(), np.ndarray)
        onp.testing.assert_allclose(p.data().asnumpy(), data["final_%s_%s" % (tag, k)], rtol=1e-4, atol=1e-5)
    onp.testing.assert_allclose(net(x).asnumpy(), data["out_" + tag], rtol=1e-4, atol=1e-5)


def test_export_imports_and_parameters_round_trip(tmp_path):
    data = dict(onp.load(os.path.join(FIXTURES, "gluon_train.npz")))
    net = make_net(data, True)
    x = np.array(data["x"])
    want = net(x)
    net.export(str(tmp_path / "net"))
    back = gluon.SymbolBlock.imports(str(tmp_path / "net-symbol.json"), ["data"], str(tmp_path / "net-0000.params"))
    got = back(x)
    assert isinstance(got, np.ndarray)
    onp.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    net.save_parameters(str(tmp_path / "p.params"))
    other = make_net({k: onp.zeros_like(v) for k, v in data.items()}, False)
    other.load_parameters(str(tmp_path / "p.params"))
    onp.testing.assert_allclose(other(x).asnumpy(), want.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_rnn_reference_examples_verbatim(kind, hybridize):
    """The examples of the gluon.rnn reference page (mx.np.random.uniform inputs)."""
    layer = getattr(mx.gluon.rnn, kind)(100, 3)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    input = mx.np.random.uniform(size=(5, 3, 10))  # pylint: disable=redefined-builtin
    output = layer(input)
    assert isinstance(output, mx.np.ndarray) and output.shape == (5, 3, 100)
    h0 = mx.np.random.uniform(size=(3, 3, 100))
    if kind == "LSTM":
        c0 = mx.np.random.uniform(size=(3, 3, 100))
        output, hn = layer(input, [h0, c0])
        assert [h.shape for h in hn] == [(3, 3, 100)] * 2
    else:
        output, hn = layer(input, h0)  # the states come back as a list, as in MXNet
        assert [h.shape for h in hn] == [(3, 3, 100)]
    assert output.shape == (5, 3, 100) and isinstance(output, mx.np.ndarray)


def _load_flat(layer, flat):
    """MXNet 2's one flat ``rnn_param`` into the layer's per-gate Parameters (the fused order)."""
    at = 0
    for name in layer._flat_param_names():  # pylint: disable=protected-access
        p = getattr(layer, name)
        n = int(onp.prod(p.shape))
        p.set_data(np.array(flat[at:at + n].reshape(p.shape)))
        at += n
    assert at == flat.size


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_rnn_reference_examples_give_mxnet2_values(kind, hybridize):
    """The page's examples with MXNet 2.0.0b1's parameters and inputs give its outputs, states
    and gradients (tools/make_fixtures_rnn_page_mx2.py)."""
    rec = dict(onp.load(os.path.join(FIXTURES, "rnn_page_mx2_%s.npz" % kind)))
    layer = getattr(mx.gluon.rnn, kind)(100, 3)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    input = np.array(rec["input"])  # pylint: disable=redefined-builtin
    layer(input)  # the shapes of the deferred parameters
    _load_flat(layer, rec["rnn_param"])
    tag = "hybrid_" if hybridize else ""
    output = layer(input)
    onp.testing.assert_allclose(output.asnumpy(), rec[tag + "output0"], rtol=1e-4, atol=1e-5)
    states = [np.array(rec["state%d" % i]) for i in range(2 if kind == "LSTM" else 1)]
    output, hn = layer(input, states if kind == "LSTM" else states[0])
    onp.testing.assert_allclose(output.asnumpy(), rec[tag + "output"], rtol=1e-4, atol=1e-5)
    for i, h in enumerate(hn):
        onp.testing.assert_allclose(h.asnumpy(), rec[tag + "hn%d" % i], rtol=1e-4, atol=1e-5)
    input.attach_grad()
    with autograd.record():
        out, _ = layer(input, states if kind == "LSTM" else states[0])
        (out * np.array(rec["head"])).sum().backward()
    onp.testing.assert_allclose(input.grad.asnumpy(), rec["grad_input"], rtol=1e-3, atol=1e-5)
    flat_grad = onp.concatenate([getattr(layer, n).grad().asnumpy().reshape(-1)
                                 for n in layer._flat_param_names()])  # pylint: disable=protected-access
    onp.testing.assert_allclose(flat_grad, rec["grad_rnn_param"], rtol=1e-3, atol=1e-4)


def test_switches_and_decorators():
    npx.reset_np()
    assert not npx.is_np_array() and not npx.is_np_shape()

    @npx.use_np
    def inner():
        return npx.is_np_array(), npx.is_np_shape()
    assert inner() == (True, True)
    assert not npx.is_np_array()
    npx.set_np()
    assert npx.is_np_array() and npx.is_np_shape()
    with pytest.raises(ValueError):
        npx.set_np(shape=False, array=True)


def test_conversions_share_memory():
    a = np.zeros((2, 2))
    b = a.as_nd_ndarray()
    assert type(b) is mx.nd.NDArray
    b[:] = 3
    assert a.sum().item() == 12
    c = b.as_np_ndarray()
    c += 1
    assert a.sum().item() == 16 and type(c) is np.ndarray


def test_save_load(tmp_path):
    a = np.arange(6).reshape(2, 3)
    npx.save(str(tmp_path / "a"), {"a": a})
    back = npx.load(str(tmp_path / "a"))
    assert isinstance(back["a"], np.ndarray)
    onp.testing.assert_array_equal(back["a"].asnumpy(), a.asnumpy())


def test_random_seed_repeats():
    mx.random.seed(7)
    a = np.random.normal(size=(3,))
    mx.random.seed(7)
    b = np.random.normal(size=(3,))
    onp.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    x = np.arange(10)
    np.random.shuffle(x)
    assert sorted(x.asnumpy().tolist()) == list(range(10))
    c = np.random.choice(4, size=(50,), replace=False) if False else np.random.choice(10, size=(10,), replace=False)
    assert sorted(c.asnumpy().tolist()) == list(range(10))


def test_repr_and_scalars():
    assert repr(np.array([[1, 2]])) == "array([[1., 2.]])"
    assert repr(np.array([1, 2], dtype="int32")) == "array([1, 2], dtype=int32)"
    x = np.array([1.5, 2.5])
    assert float(x[1]) == 2.5 and x[0].shape == () and x.sum().ndim == 0
    with pytest.raises(TypeError):
        hash(x)


# mx.npx names neogluon adds (the brief of issue 16 asks for them under npx; MXNet 1.9.1 has them in mx.util)
NPX_EXTRAS = {"use_np", "use_np_array", "use_np_shape", "np_array", "np_shape", "set_np_shape"}


def test_names_against_mxnet():
    """No public name MXNet 1.9.1's mx.np/npx lacks (but NPX_EXTRAS), and at least the
    coverage reached when this was written (names.json: MXNet's lists)."""
    import json
    import types
    names = json.load(open(os.path.join(FIXTURES, "names.json")))
    mods = {"np": np, "np.random": np.random, "np.linalg": np.linalg, "npx": npx}
    floor = {"np": 284, "np.random": 20, "np.linalg": 20, "npx": 56}
    for key, mod in mods.items():
        mine = {n for n in dir(mod) if not n.startswith("_") and not isinstance(getattr(mod, n), types.ModuleType)}
        extra = mine - set(names[key]) - (NPX_EXTRAS if key == "npx" else set())
        assert not extra, (key, sorted(extra))
        assert len(mine & set(names[key])) >= floor[key], key


def test_dataloader_and_losses_give_np_arrays():
    X = np.arange(20).reshape(10, 2)
    y = np.arange(10)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 4)
    xb, yb = next(iter(loader))
    assert isinstance(xb, np.ndarray) and isinstance(yb, np.ndarray) and xb.shape == (4, 2)
    onp.testing.assert_array_equal(xb.asnumpy(), X.asnumpy()[:4])
    loss = gluon.loss.L2Loss()(np.ones((4, 1)), yb)
    assert isinstance(loss, np.ndarray) and loss.shape == (4,)
    onp.testing.assert_allclose(loss.asnumpy(), 0.5 * (1 - onp.arange(4)) ** 2)


# ---------------------------------------------------------------- MXNet 2's flat rnn_param
_MX2_PARAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "numpy")


def _mx2_case(name):
    rec = onp.load(os.path.join(_MX2_PARAMS, "rnn_param_mx2_%s.npz" % name))
    spec = json.loads(str(rec["spec"]))
    layer = getattr(mx.gluon.rnn, spec["kind"])(**spec["kwargs"])
    if spec["wrapped"]:
        net = mx.gluon.nn.HybridSequential()
        net.add(layer, mx.gluon.nn.Dense(2, flatten=False, in_units=4))
        return net, rec, spec
    return layer, rec, spec


@pytest.mark.parametrize("name", ["lstm2", "gru_bi", "rnn_tanh", "lstm_in_net"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_mx2_rnn_param_file_loads(name, hybridize):
    """A parameter file of MXNet 2.0.0b1 (one flat ``rnn_param`` per recurrent layer) loads
    with ``load_parameters`` and gives MXNet 2's outputs (tools/make_fixtures_rnn_param_mx2.py)."""
    npx.set_np()
    try:
        net, rec, _ = _mx2_case(name)
        net.load_parameters(os.path.join(_MX2_PARAMS, "rnn_param_mx2_%s.params" % name))
        if hybridize:
            net.hybridize()
        out = net(np.array(rec["x"]))
        onp.testing.assert_allclose(out.asnumpy(), rec["out"], rtol=1e-5, atol=1e-6)
    finally:
        npx.reset_np()


def test_mx2_rnn_param_dict_and_errors():
    """``load_dict`` takes the flat key too, a deferred input size is read from its length,
    and a vector of the wrong length names the file and the layer."""
    npx.set_np()
    try:
        _, rec, spec = _mx2_case("lstm2")
        with onp.load(os.path.join(_MX2_PARAMS, "rnn_param_mx2_lstm2.params")) as z:  # MXNet 2 writes an .npz
            loaded = {k: np.array(z[k]) for k in z.files}
        kwargs = dict(spec["kwargs"])
        kwargs.pop("input_size")  # deferred: (16, 0) for the first layer's i2h weight
        layer = mx.gluon.rnn.LSTM(**kwargs)
        layer.load_dict(loaded)
        onp.testing.assert_allclose(layer(np.array(rec["x"])).asnumpy(), rec["out"], rtol=1e-5, atol=1e-6)
        with pytest.raises(mx.MXNetError, match="rnn_param of 7 values"):
            mx.gluon.rnn.LSTM(**spec["kwargs"]).load_dict({"rnn_param": np.zeros((7,))})
    finally:
        npx.reset_np()


def test_corrupt_npz_parameter_file_names_the_file(tmp_path):
    bad = tmp_path / "broken.params"
    bad.write_bytes(b"PK\x03\x04 not really a zip archive")
    with pytest.raises(mx.MXNetError, match="broken.params"):
        mx.gluon.rnn.LSTM(4, input_size=3).load_parameters(str(bad))


def test_initializer_gets_np_ndarray():
    """A custom ``Initializer._init_weight`` under ``npx.set_np()`` is handed an
    ``mx.np.ndarray`` (d2l's ``MyInit`` does ``data *= np.abs(data) >= 5``, bool mask
    times float); values from MXNet 1.9.1."""
    seen = []

    class MyInit(mx.init.Initializer):
        def _init_weight(self, name, data):
            seen.append(type(data))
            data[:] = np.arange(data.size).reshape(data.shape) - 5
            data *= np.abs(data) >= 3

    net = gluon.nn.Dense(2, in_units=4)
    net.initialize(MyInit())
    assert seen == [np.ndarray]
    onp.testing.assert_array_equal(net.weight.data().asnumpy(),
                                   [[-5, -4, -3, 0], [0, 0, 0, 0]])
    assert isinstance(net.weight.data(), np.ndarray)


def test_unknown_parameter_dims_read_minus_one():
    """Under NumPy shape semantics an unknown dimension is -1, in ``Parameter.shape`` and in
    the reprs built on it (MXNet 1.9.1's output); a shared, deferred parameter still infers."""
    net = gluon.nn.Dense(4)
    assert net.weight.shape == (4, -1)
    assert repr(net) == "Dense(-1 -> 4, linear)"
    assert repr(net.weight).startswith("Parameter %s (shape=(4, -1)" % net.weight.name)
    assert repr(gluon.nn.BatchNorm()).endswith("in_channels=-1)")
    assert repr(gluon.rnn.LSTM(4)) == "LSTM(-1 -> 4, TNC)"
    shared = gluon.nn.Dense(3)
    tied = gluon.nn.Dense(3, params=shared.params)
    seq = gluon.nn.Sequential()
    seq.add(shared, tied)
    seq.initialize()
    assert seq(np.ones((2, 3))).shape == (2, 3)
    assert net.weight.shape == (4, -1)
    net.initialize()
    net(np.ones((2, 5)))
    assert net.weight.shape == (4, 5)
    npx.reset_np()
    assert gluon.nn.Dense(4).weight.shape == (4, 0)


def test_hybrid_forward_F_prints_as_its_module():
    """d2l's hybridize section prints ``F``: MXNet 1.9.1 shows the ``mx.nd`` module
    imperatively and the ``mx.sym`` module while tracing."""
    seen = []

    class Net(gluon.nn.HybridBlock):
        def hybrid_forward(self, F, x):
            seen.append(repr(F))
            return F.npx.relu(x)

    net = Net()
    net(np.ones((1, 2)))
    net.hybridize()
    net(np.ones((1, 2)))
    assert seen == [repr(mx.nd), repr(mx.sym)]
