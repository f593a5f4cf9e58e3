"""Block, HybridBlock and SymbolBlock against MXNet 1.9.1.

Expected names, reprs, summary text, error messages, op-hook names and exported graphs
come from tools/make_extra_fixtures_block.py (tests/fixtures/extra/block/); the exported
models and the nested parameter file from the shared MXNet fixtures.
"""
import json
import os
import warnings

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.base import MXNetError
from neogluon.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
EXTRA = os.path.join(HERE, "fixtures", "extra", "block")
FIXTURES = os.path.join(HERE, "fixtures", "mxnet-1.9.1")
CASES = json.load(open(os.path.join(EXTRA, "cases.json")))
ARRAYS = np.load(os.path.join(EXTRA, "arrays.npz"))


def fresh_names():
    mx.name.NameManager._current.value = mx.name.NameManager()


class Inner(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(4, in_units=3)
            self.scale = self.params.get("scale", shape=(1,))

    def hybrid_forward(self, F, x, scale):
        return F.broadcast_mul(F.relu(self.dense(x)), scale)


class Outer(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            with self.body.name_scope():
                self.body.add(Inner(), nn.Dense(5, in_units=4))
            self.head = nn.Dense(2, in_units=5)

    def forward(self, x):
        return self.head(self.body(x))


class Model(gluon.HybridBlock):
    """The HybridBlock page's (1.7) second example: forward overridden with mx.nd code."""
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(20)
            self.dense1 = nn.Dense(20)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        x = nd.relu(self.dense0(x))
        return nd.relu(self.dense1(x))


class LeNet(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.bn = nn.BatchNorm()
            self.fc1 = nn.Dense(32)
            self.fc3_weight = self.params.get("fc3_weight", shape=(10, 32))

    def hybrid_forward(self, F, x, fc3_weight):
        x = self.bn(self.pool1(F.relu(self.conv1(x))))
        x = F.relu(self.fc1(x.reshape((0, -1))))
        return F.dot(x, fc3_weight, transpose_b=True)


# ---------------------------------------------------------------------- naming and structure
def test_naming_matches_mxnet():
    fresh_names()
    nets = [Outer(), Outer(), nn.HybridSequential(), nn.Dense(3), Inner(prefix="custom_")]
    want = CASES["naming"]
    assert [n.prefix for n in nets] == want["prefixes"]
    assert [n.name for n in nets] == want["names"]
    assert sorted(nets[1].collect_params().keys()) == want["params"]
    assert sorted(nets[1].collect_params(".*weight").keys()) == want["select"]
    assert sorted(nets[1]._collect_params_with_prefix().keys()) == want["structural"]
    assert [c.prefix for c in nets[1].body._children.values()] == want["child_prefixes"]
    assert repr(nets[1]) == want["repr"]


def test_setattr_rules():
    net = Inner()
    with pytest.raises(TypeError, match="Changing attribute type for dense"):
        net.dense = 3
    with pytest.raises(AssertionError, match="Overriding Parameter attribute"):
        net.scale = gluon.Parameter("other", shape=(1,))
    err = CASES["errors"]["hybrid_child"]
    with pytest.raises(ValueError) as e:
        nn.HybridSequential().add(nn.Sequential())
    assert str(e.value).split(" but ")[0] == err[1].split(" but ")[0]


def test_unregistered_container_warns():
    class Holder(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2)]
    with pytest.warns(UserWarning, match="unregistered container"):
        Holder().collect_params()


# ---------------------------------------------------------------------- hooks and summary
def test_forward_hooks_and_handles():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    seen = []
    pre = net.register_forward_pre_hook(lambda b, i: seen.append(("pre", b.name, len(i))))
    with net.register_forward_hook(lambda b, i, o: seen.append(("post", o.shape))):
        net(nd.ones((1, 3)))
    net(nd.ones((4, 3)))
    pre.detach()
    net(nd.ones((1, 3)))
    assert seen == [("pre", net.name, 1), ("post", (1, 2)), ("pre", net.name, 1)]


def test_summary_matches_mxnet(capsys):
    fresh_names()
    net = Outer()
    net.initialize()
    net.summary(nd.array(ARRAYS["outer:__input__"]))
    assert capsys.readouterr().out == CASES["summary"]


def test_summary_refuses_hybridized():
    net = nn.HybridSequential()
    net.add(nn.Dense(2))
    net.initialize()
    net.hybridize()
    with pytest.raises(AssertionError, match="must not be hybridized"):
        net.summary(nd.ones((1, 3)))


# ---------------------------------------------------------------------- parameters files
def test_load_parameters_reproduces_mxnet_forward():
    net = Outer()
    net.load_parameters(os.path.join(EXTRA, "outer.params"))
    for k, v in net._collect_params_with_prefix().items():
        np.testing.assert_array_equal(v.data().asnumpy(), ARRAYS["outer:" + k])
    out = net(nd.array(ARRAYS["outer:__input__"]))
    np.testing.assert_allclose(out.asnumpy(), ARRAYS["outer:__output__"], rtol=1e-5, atol=1e-6)


def test_nested_params_fixture():
    class Nested(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.features = nn.HybridSequential()
                self.features.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Dense(5))
                self.head = nn.Dense(2)
                self.scale = self.params.get("scale", shape=(1,), init=mx.init.One())

        def hybrid_forward(self, F, x, scale):
            return F.broadcast_mul(self.head(self.features(x)), scale)

    ref = np.load(os.path.join(FIXTURES, "params", "nested.npz"))
    for hybrid in (False, True):
        net = Nested()
        net.load_parameters(os.path.join(FIXTURES, "params", "nested.params"))
        if hybrid:
            net.hybridize()
        out = net(nd.array(ref["__input__"]))
        np.testing.assert_allclose(out.asnumpy(), ref["__output__"], rtol=1e-5, atol=1e-6)


def test_load_parameters_errors_match_mxnet(tmp_path):
    small = nn.HybridSequential()
    small.add(nn.Dense(2, in_units=3))
    big = nn.HybridSequential()
    big.add(nn.Dense(2, in_units=3), nn.Dense(2, in_units=2))
    big.initialize()
    small.initialize()
    big.save_parameters(str(tmp_path / "_big.params"))
    small.save_parameters(str(tmp_path / "_small.params"))
    d = str(tmp_path) + "/"
    with pytest.raises(ValueError) as e:
        small.load_parameters(d + "_big.params")
    assert str(e.value) == CASES["errors"]["extra"][1].replace("DIR/", d)
    with pytest.raises(AssertionError) as e:
        big.load_parameters(d + "_small.params")
    assert str(e.value) == CASES["errors"]["missing"][1].replace("DIR/", d)
    big.load_parameters(d + "_small.params", allow_missing=True)
    small.load_parameters(d + "_big.params", ignore_extra=True)


def test_save_load_roundtrips(tmp_path):
    net = Outer()
    net.initialize()
    x = nd.ones((2, 3))
    y = net(x).asnumpy()
    net.save_parameters(str(tmp_path / "a.params"), deduplicate=True)
    with pytest.warns(UserWarning, match="save_params is deprecated"):
        net.save_params(str(tmp_path / "legacy.params"))
    assert all("." not in k for k in nd.load(str(tmp_path / "legacy.params")))
    for fname in ("a.params", "legacy.params"):
        other = Outer()
        other.load_parameters(str(tmp_path / fname))
        np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-6)
    other = Outer()
    with pytest.warns(UserWarning, match="load_params is deprecated"):
        other.load_params(str(tmp_path / "a.params"))
    other = Outer()
    other.load_dict({k: v.data() for k, v in net._collect_params_with_prefix().items()}, device=mx.cpu())
    np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-6)


def test_block_save_load_architecture(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=2), nn.Dense(1, in_units=3))
    net.initialize()
    net.hybridize()
    x = nd.ones((4, 2))
    y = net(x).asnumpy()
    net.save(str(tmp_path / "m"))
    other = nn.HybridSequential()
    other.add(nn.Dense(3, in_units=2), nn.Dense(1, in_units=3))
    other.load(str(tmp_path / "m"))
    np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-6)


def test_gluon2_helpers():
    a, b = Outer(), Outer()
    a.initialize()
    b.initialize()
    b.share_parameters(a._collect_params_with_prefix())
    x = nd.ones((2, 3))
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy())
    c = Outer()
    c.setattr("grad_req", "null")
    assert all(p.grad_req == "null" for p in c.collect_params().values())
    a.reset_device(mx.cpu())
    with autograd.record():
        a(x).backward()
    a.zero_grad()
    assert all(float(abs(p.grad()).sum().asscalar()) == 0 for p in a.collect_params().values())


class _Unscoped(gluon.HybridBlock):
    """Children created outside name_scope(): MXNet 1.x names them dense<N>_ by a global counter."""

    def __init__(self):
        super().__init__()
        self.a = nn.Dense(3, in_units=2)
        self.b = nn.Dense(1, in_units=3)

    def hybrid_forward(self, F, x):
        return self.b(self.a(x))


def _scoped():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2), nn.Dense(1, in_units=3))
    return net


@pytest.mark.parametrize("make", [_scoped, _Unscoped], ids=["name_scope", "unscoped"])
@pytest.mark.parametrize("form", ["ParameterDict", "dict", "structural"])
def test_share_parameters_takes_collect_params(make, form):
    """Gluon 2's share_parameters with what collect_params() returns (a ParameterDict by full
    name in 1.x), a dict of it, or structural names: every Parameter is tied, none silently missed."""
    a, b = make(), make()
    a.initialize()
    b.initialize()
    shared = {"ParameterDict": a.collect_params(), "dict": dict(a.collect_params().items()),
              "structural": a._collect_params_with_prefix()}[form]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b.share_parameters(shared)
    assert [id(p) for p in b.collect_params().values()] == [id(p) for p in a.collect_params().values()]
    x = nd.array([[1.0, 2.0]])
    b.hybridize()
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), rtol=1e-6)


def test_share_parameters_names_what_it_cannot_tie():
    a, b = _scoped(), nn.HybridSequential()
    with b.name_scope():
        b.add(nn.Dense(3, in_units=2))
    with pytest.warns(UserWarning, match="is not in the current model"):
        b.share_parameters(a.collect_params())
    with pytest.raises(ValueError, match="should be in type of Dict"):
        b.share_parameters([1, 2])


@pytest.mark.parametrize("make", [_scoped, _Unscoped], ids=["name_scope", "unscoped"])
@pytest.mark.parametrize("form", ["collect_params", "full names", "save_parameters", "own full names"])
def test_load_dict_takes_collect_params_and_save_parameters_keys(make, form, tmp_path):
    a, b = make(), make()
    a.initialize(mx.init.Uniform(1.0))
    b.initialize(mx.init.Zero())
    a.save_parameters(str(tmp_path / "a.params"))
    source = {"collect_params": a.collect_params(),
              "full names": {k: v.data() for k, v in a.collect_params().items()},
              "save_parameters": nd.load(str(tmp_path / "a.params")),
              "own full names": {k: a.collect_params()[n].data() for k, n in
                                 zip(b.collect_params().keys(), a.collect_params().keys())}}[form]
    b.load_dict(source)
    for pa, pb in zip(a.collect_params().values(), b.collect_params().values()):
        assert pa is not pb
        np.testing.assert_array_equal(pb.data().asnumpy(), pa.data().asnumpy())


def test_load_dict_names_a_missing_parameter():
    a, b = _scoped(), _scoped()
    a.initialize()
    partial = {k: v.data() for k, v in list(a.collect_params().items())[:3]}
    with pytest.raises(AssertionError, match="is missing in the dict"):
        b.load_dict(partial)
    b.initialize(mx.init.Zero())
    b.load_dict(partial, allow_missing=True)
    np.testing.assert_array_equal(b[1].weight.data().asnumpy(), a[1].weight.data().asnumpy())


# ---------------------------------------------------------------------- hybridization
def test_hybridized_runs_cached_graph_without_hybrid_forward():
    calls = []

    class Net(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.fc = nn.Dense(3)

        def hybrid_forward(self, F, x):
            calls.append(type(x).__name__)
            return F.relu(self.fc(x))

    net = Net()
    net.initialize()
    net(nd.ones((2, 4)))
    net.hybridize()
    y1 = net(nd.ones((2, 4)))
    y2 = net(nd.ones((5, 4)))  # a new batch size runs the same graph
    assert calls == ["NDArray", "Symbol"]
    assert y1.shape == (2, 3) and y2.shape == (5, 3)
    net.hybridize(active=False)
    net(nd.ones((2, 4)))
    assert calls[-1] == "NDArray"


@pytest.mark.parametrize("train", [False, True])
def test_imperative_and_hybridized_agree(train):
    mx.random.seed(1)
    x = nd.random.uniform(shape=(3, 1, 12, 12))
    results = []
    for hybrid in (False, True):
        mx.random.seed(7)
        net = LeNet()
        net.initialize(mx.init.Xavier())
        if hybrid:
            net.hybridize()
        with autograd.record(train_mode=train):
            y = net(x)
            loss = (y * y).sum()
        loss.backward()
        params = net.collect_params()
        results.append((y.asnumpy(), {k[len(net.prefix):]: p.grad().asnumpy() for k, p in params.items()
                                      if p.grad_req != "null"},
                        {k[len(net.prefix):]: p.data().asnumpy() for k, p in params.items() if "running" in k}))
    (y0, g0, a0), (y1, g1, a1) = results
    np.testing.assert_allclose(y0, y1, rtol=1e-4, atol=1e-5)
    assert g0.keys() == g1.keys() and len(g0) == 7
    for k in g0:
        np.testing.assert_allclose(g0[k], g1[k], rtol=1e-3, atol=1e-5, err_msg=k)
    for k in a0:
        np.testing.assert_allclose(a0[k], a1[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_input_gradient_through_cached_graph():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    x = nd.ones((4, 3))
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    w = net.weight.data().asnumpy()
    np.testing.assert_allclose(x.grad.asnumpy(), np.tile(w.sum(0), (4, 1)), rtol=1e-6)


def test_deferred_init_from_traced_graph():
    net = nn.HybridSequential()
    net.add(nn.Dense(5), nn.Dense(2))
    net.initialize()
    net.hybridize()
    net(nd.ones((3, 7)))
    assert net[0].weight.shape == (5, 7) and net[1].weight.shape == (2, 5)


def test_infer_shape_and_type():
    net = nn.Dense(4)
    assert net.weight.shape == (4, 0)
    net.infer_shape(nd.ones((2, 3)))
    assert net.weight.shape == (4, 3)
    net.infer_type(nd.ones((2, 3)))
    assert net.weight.dtype == np.float32


def test_forward_overriding_block_hybridizes():
    fresh_names()
    model = Model()
    model.initialize(ctx=mx.cpu(0))
    model.hybridize()
    model.load_parameters(os.path.join(EXTRA, "model17.params"))
    x = nd.array(ARRAYS["model:__input__"])
    y = model(x)
    np.testing.assert_allclose(y.asnumpy(), ARRAYS["model:__output__"], rtol=1e-5, atol=1e-6)
    model(x)
    assert model.calls == 1  # traced once, then the cached graph runs
    ops = [n["op"] for n in json.loads(model._cached_graph[1].tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["FullyConnected", "relu", "FullyConnected", "relu"]


def test_hybridize_restrictions_give_clear_errors():
    class Shape(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.reshape(x.shape)

    class Values(gluon.HybridBlock):
        def forward(self, x):
            return nd.array(x.asnumpy())

    for cls in (Shape, Values):
        net = cls()
        net(nd.ones((2, 2)))  # imperatively fine
        net.hybridize()
        with pytest.raises(MXNetError, match="only available|not implemented for Symbol"):
            net(nd.ones((2, 2)))


def test_non_hybrid_parent_hybridizes_children():
    net = Outer()
    net.initialize()
    net.hybridize()
    assert net.body._active and net.head._active
    net(nd.ones((2, 3)))
    assert net.body._cached_op is not None


def test_op_hook_names_match_mxnet():
    fresh_names()
    seq = nn.HybridSequential()
    with seq.name_scope():
        seq.add(nn.Dense(3, activation="relu"), nn.BatchNorm())
    seq.initialize()
    seq.hybridize()
    plain = seq(nd.ones((2, 4))).asnumpy()
    names = []
    seq.register_op_hook(lambda n, o, a: names.append([n, o]))
    np.testing.assert_allclose(seq(nd.ones((2, 4))).asnumpy(), plain, rtol=1e-6)
    assert names == CASES["op_hook_outputs"]
    names.clear()
    seq.register_op_hook(lambda n, o, a: names.append(n), monitor_all=True)
    seq(nd.ones((2, 4)))
    assert "hybridsequential0_dense0_fwd_weight" in names and len(names) == 12


def test_export_matches_mxnet_and_loads_back(tmp_path):
    fresh_names()
    seq = nn.HybridSequential()
    with seq.name_scope():
        seq.add(nn.Dense(3, activation="relu"), nn.BatchNorm())
    seq.initialize()
    with pytest.raises(RuntimeError) as e:
        seq.export(str(tmp_path / "x"))
    assert str(e.value) == CASES["errors"]["export_first"][1]
    seq.hybridize()
    x = nd.random.uniform(shape=(2, 4))
    y = seq(x)
    path = str(tmp_path / "seq")
    seq.export(path)
    graph = json.load(open(path + "-symbol.json"))
    assert [[n["op"], n["name"]] for n in graph["nodes"]] == CASES["export"]["nodes"]
    assert sorted(nd.load(path + "-0000.params")) == CASES["export"]["params"]
    back = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(back(x).asnumpy(), y.asnumpy(), rtol=1e-6)


def test_optimize_for_backends():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    x = nd.ones((1, 3))
    with pytest.raises(ValueError, match="Must specify"):
        net.optimize_for(x)
    with pytest.raises(MXNetError, match="backend 'nope' is not registered"):
        net.optimize_for(x, backend="nope")
    expected = nd.dot(x, net.weight.data(), transpose_b=True).asnumpy() + net.bias.data().asnumpy()
    for backend in ("default", "MKLDNN", "ONEDNN"):  # MXNet 1.9.1's CPU backend names run the plain graph
        net.optimize_for(x, backend=backend)
        assert net._cached_op is not None
        np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)
    net.hybridize(backend="MKLDNN", static_alloc=True)
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)


def test_cast_clears_cache():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 3)))
    net.cast("float64")
    assert net._cached_op is None
    assert net(nd.ones((1, 3), dtype="float64")).dtype == np.float64


# ---------------------------------------------------------------------- SymbolBlock
def test_symbolblock_shares_params_and_composes():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3, activation="relu"), nn.Dense(2, in_units=4))
    net.initialize()
    data = mx.sym.var("data")
    internals = net(data).get_internals()
    feat = gluon.SymbolBlock(internals[net[0].name + "_relu_fwd_output"], data, params=net.collect_params())
    x = nd.ones((2, 3))
    np.testing.assert_allclose(feat(x).asnumpy(), net[0](x).asnumpy(), rtol=1e-6)
    composed = feat(mx.sym.var("other"))
    assert composed.list_arguments()[0] == "other"
    assert repr(feat).startswith("SymbolBlock(\n<Symbol ")


def test_a_hybridized_call_sets_torchs_grad_mode_only_for_its_graph():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((2, 4))
    assert torch.is_grad_enabled()
    net(x)
    assert torch.is_grad_enabled()  # back after a prediction call (run without autograd)
    with mx.autograd.record():
        y = net(x)
    assert y._t.requires_grad and torch.is_grad_enabled()
    with torch.no_grad():
        with mx.autograd.record():
            assert net(x)._t.requires_grad  # recording: the graph runs with autograd, as MXNet records
        assert not torch.is_grad_enabled()  # the caller's mode restored
    with pytest.raises(MXNetError):
        net(mx.nd.ones((2, 5)))  # a user's error inside the graph
    assert torch.is_grad_enabled()


def test_forward_override_with_hybrid_forward_runs_imperatively_around_the_cached_graph():
    """A HybridBlock with its own hybrid_forward whose forward prepares the inputs with mx.nd
    (GluonNLP's TransformerOneStepDecoder) and calls super().forward: hybridized, forward
    still runs imperatively on every call and only hybrid_forward is the cached graph, so
    the number of states may change between calls. Values from MXNet 1.9.1."""
    class Step(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(3, flatten=False, in_units=2)

        def forward(self, x, states):
            if len(states) == 2:  # the previous input comes back as an extra state
                x = mx.nd.concat(states[0], x, dim=1)
                states = states[1:]
            return super().forward(x, states)

        def hybrid_forward(self, F, x, states):
            return F.broadcast_add(self.dense(x), F.sum(states[0])), [x]

    net = Step()
    net.initialize(mx.init.Constant(0.5))
    x = mx.nd.array([[[1.0, 2.0]]])
    for hybridize in (False, True):
        if hybridize:
            net.hybridize()
        o1, s1 = net(x, [mx.nd.ones((1,))])
        o2, s2 = net(x * 2, [s1[0], mx.nd.ones((1,)) * 3])
        np.testing.assert_allclose(o1.asnumpy(), [[[2.5, 2.5, 2.5]]])
        np.testing.assert_allclose(o2.asnumpy(), [[[4.5, 4.5, 4.5], [6.0, 6.0, 6.0]]])
        assert s2[0].shape == (1, 2, 2)


def test_plain_block_on_a_second_cpu_context_uses_that_contexts_parameters():
    """Multi-context training on CPUs (GluonNLP's ParallelBigRNN): a plain Block's forward on
    a ``cpu(1)`` batch unrolls a recurrent cell and feeds its children arrays it made itself;
    as in MXNet they are on ``cpu(1)``, so the gradients land in each context's own copy.
    Values from MXNet 1.9.1."""
    ctxs = [mx.cpu(0), mx.cpu(1)]
    assert [nd.zeros((2,), ctx=c).context for c in ctxs] == ctxs
    assert [nd.ones((2,), ctx=c).context for c in ctxs] == ctxs
    assert nd.arange(3, ctx=mx.cpu(1)).context == mx.cpu(1) and nd.full((2,), 1.0, ctx=mx.cpu(1)).context == mx.cpu(1)

    class Net(gluon.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.emb = nn.Embedding(10, 3)
                self.cell = gluon.rnn.HybridSequentialRNNCell()
                self.cell.add(gluon.contrib.rnn.LSTMPCell(4, 2, input_size=3))
                self.out = nn.Dense(5, flatten=False, in_units=2)

        def forward(self, x):
            e = self.emb(x)
            st = self.cell.begin_state(batch_size=x.shape[1], func=nd.zeros, ctx=x.context)
            o, _ = self.cell.unroll(x.shape[0], e, st, layout="TNC", merge_outputs=True)
            return self.out(o)

    net = Net()
    net.initialize(mx.init.Constant(0.1), ctx=ctxs)
    xs = gluon.utils.split_and_load(nd.array([[1, 2, 3, 4], [5, 6, 7, 8]]), ctxs, batch_axis=1)
    for i, xi in enumerate(xs):
        with autograd.record():
            loss = (net(xi) * (i + 1)).sum()
        loss.backward()
    assert [net(xi).context for xi in xs] == ctxs
    grads = {p.name.split("_", 1)[1]: [float(p.grad(c).sum().asscalar()) for c in ctxs]
             for p in net.collect_params().values()}
    expected = {"lstmp0_i2h_weight": [0.16129, 0.32259], "lstmp0_h2h_weight": [0.00133, 0.00266],
                "lstmp0_h2r_weight": [0.15759, 0.31518], "lstmp0_i2h_bias": [0.53765, 1.0753],
                "dense0_weight": [0.15626, 0.31252], "dense0_bias": [20.0, 40.0]}
    for name, want in expected.items():
        np.testing.assert_allclose(grads[name], want, rtol=1e-4, atol=1e-5, err_msg=name)


def test_hybridized_inputs_the_graph_does_not_use():
    """A hybridized block called with inputs its graph does not read (GluonTS's NBEATS
    prediction network given future_target): the parameters were fed from the unused inputs'
    slots ("Provided weight = (2, 5)"). MXNet 1.9.1 warns "The 1-th, 2-th input to HybridBlock
    is not used by any computation. Is this intended?" and gives the imperative result."""
    class Block(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=4)

        def hybrid_forward(self, F, x, y, z):
            return self.dense(x) * 2

    net = Block()
    net.initialize(mx.init.Xavier())
    x, y, z = nd.arange(8).reshape((2, 4)) / 8, nd.ones((2, 5)), nd.ones((7,))
    with autograd.record():
        want = net(x, y, z)
    want.backward()
    want_grad = net.dense.weight.grad().asnumpy().copy()
    net.hybridize()
    with pytest.warns(UserWarning, match=r"The 1-th, 2-th input to HybridBlock is not used by any computation"):
        with autograd.record():
            got = net(x, y, z)
    got.backward()
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(net.dense.weight.grad().asnumpy(), want_grad, rtol=1e-6)


def test_hybridized_gather_nd_out_of_bounds_is_mxnets_index_error():
    """A hybridized graph whose gather_nd gets an index out of bounds raises MXNet 1.9.1's
    IndexError ("index 5 is out of bounds for axis 1 with size 5"), not the error of the meta
    run that looks for the failing node (which cannot read index values)."""
    class Gather(gluon.HybridBlock):
        def hybrid_forward(self, F, x, positions):
            return F.gather_nd(x * 2, positions)

    net = Gather()
    net.hybridize()
    x = nd.arange(30).reshape((2, 5, 3))
    np.testing.assert_array_equal(net(x, nd.array([[0, 1], [4, 0]])).asnumpy(), [[24, 26, 28], [30, 32, 34]])
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
        net(x, nd.array([[0, 1], [4, 5]])).asnumpy()
