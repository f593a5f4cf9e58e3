"""The compiled (torch.compile / inductor) backend of hybridize (neogluon/executor/inductor.py).

MXNet 1.9.1 runs ``hybridize(static_alloc=True, static_shape=True)`` and
``backend='MKLDNN'`` graphs with fused kernels whose results equal the plain graph's up to
rounding; here the compiled graph is checked against neogluon's plain hybridized graph
(itself tested against MXNet's recorded outputs): outputs, gradients, BatchNorm's running
statistics (updated once per training call), Dropout's masks, op hooks and export.
Tests marked ``slow`` compile with inductor (10-40 s each on a loaded machine)."""
import contextlib
import json
import warnings

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.executor import inductor
from neogluon.fileio import file_digest
from neogluon.gluon import nn, rnn


@pytest.fixture(autouse=True)
def _compile_on(monkeypatch):
    monkeypatch.setenv("NEOGLUON_COMPILE", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "0")  # the compiled code always runs (checked below)
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "0")  # torch.compile's freezing; the package route: below
    monkeypatch.setenv("NEOGLUON_COMPILE_BACKGROUND", "0")  # compiled in the call (background: test_compile_warm.py)
    monkeypatch.setattr(inductor, "_ISA_DONE", [None])  # inductor probes the CPU itself (vec_isa_probe: tested below)


def _pair(make, x, **flags):
    """The same network twice (same parameters): plain hybridized, and with ``flags``."""
    plain, comp = make(), make()
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
    plain(x)  # finish deferred initialisation
    comp(x)
    for (_, p), (_, q) in zip(plain.collect_params().items(), comp.collect_params().items()):
        q.set_data(p.data().copy())
    plain.hybridize()
    comp.hybridize(**flags)
    return plain, comp


def _grads(net):
    return [p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"]


def _compiled(net, count):
    """The block ran ``count`` compiled functions (and never fell back to the plain graph)."""
    graph = net._cached_op.compiled
    assert not graph._failed and len(graph.compile_seconds) == count, graph.compile_seconds


def _close(a, b, tol=1e-4):
    """Equal up to float rounding, relative to the array's scale (sums are reordered by fusion)."""
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, float(np.abs(b).max(initial=0))))


def _step_both(plain, comp, x, seed=None):
    """One recorded call and backward of ``sum(y*y)`` on each network (with the random seed
    ``seed`` before each: the same Dropout masks): the same outputs and gradients."""
    outs = []
    for net in (plain, comp):
        if seed is not None:
            mx.random.seed(seed)
        with autograd.record():
            y = net(x)
            (y * y).sum().backward()
        outs.append(y.asnumpy())
    _close(outs[1], outs[0])
    for g, h in zip(_grads(plain), _grads(comp)):
        _close(h, g)


def _accumulate_both(plain, comp, x):
    """grad_req 'add' on both networks: two recorded calls and backwards accumulate the same
    gradients."""
    for net in (plain, comp):
        for p in net.collect_params().values():
            p.grad_req = "add"
            p.zero_grad()
    for _ in range(2):
        _step_both(plain, comp, x)


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(32, activation="relu"), nn.BatchNorm(), nn.Dropout(0.5), nn.Dense(5))
    return net


def lenet():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Conv2D(16, 5, activation="relu"),
            nn.MaxPool2D(2, 2), nn.Flatten(), nn.Dense(32, activation="relu"), nn.Dense(10))
    return net


class Unrolled(gluon.HybridBlock):
    """An LSTM cell unrolled over 4 steps (begin states from F.zeros, deferred shapes)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.cell = rnn.LSTMCell(8, input_size=6)

    def hybrid_forward(self, F, x):
        out, _ = self.cell.unroll(4, x, layout="NTC", merge_outputs=True)
        return out


# ---------------------------------------------------------------------- cheap: no compilation
def test_options_select_the_compiled_graph(monkeypatch):
    x = nd.ones((2, 3))
    for flags, compiled in ((dict(), False), (dict(static_alloc=True), False),
                            (dict(static_alloc=True, static_shape=True), True), (dict(backend="inductor"), True),
                            (dict(backend="MKLDNN"), True), (dict(backend="ONEDNN"), True)):
        net = nn.Dense(4, in_units=3)
        net.initialize()
        net.hybridize(**flags)
        net._build_cache(x)
        assert isinstance(net._cached_op.compiled, inductor.InductorGraph) is compiled, flags
    net = nn.Dense(4, in_units=3)
    net.initialize()
    net.optimize_for(x, backend="inductor")
    assert isinstance(net._cached_op.compiled, inductor.InductorGraph)
    monkeypatch.setenv("NEOGLUON_COMPILE", "0")
    net.optimize_for(x, backend="inductor", clear=True)
    assert not isinstance(net._cached_op.compiled, inductor.InductorGraph)


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert inductor.cache_dir() == str(tmp_path / "inductor")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "x"))
    assert inductor.cache_dir() == str(tmp_path / "x")
    # torch's own default, which importing torch._dynamo writes there when it is unset (shape
    # inference imports it), is not a choice of the user's
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", default_cache_dir())
    assert inductor.cache_dir() == str(tmp_path / "inductor")


@pytest.mark.parametrize("passed", [True, False])
def test_vec_isa_probe_is_recorded_and_reused(monkeypatch, tmp_path, passed):
    from torch._inductor import config
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    with config.patch({"cpp.vec_isa_ok": None}):
        _check_vec_isa_probe(monkeypatch, tmp_path, passed, config)


def _check_vec_isa_probe(monkeypatch, tmp_path, passed, config):
    monkeypatch.setattr(inductor, "_isa_key", lambda: "torch|cxx|cpu")
    probes = []
    monkeypatch.setattr(inductor, "_probe_all", lambda: probes.append(1) or passed)
    assert inductor.vec_isa_probe() is False and probes == [1]  # first process: inductor's probe runs
    assert json.loads((tmp_path / "neogluon_vec_isa.json").read_text()) == {"torch|cxx|cpu": passed}
    assert config.cpp.vec_isa_ok is (True if passed else None)  # the same cache key as later processes
    config.cpp.vec_isa_ok = None  # a new process
    # a later process: the record says all passed -> no probe; a failed probe is probed again
    assert inductor.vec_isa_probe() is passed and probes == ([1] if passed else [1, 1])
    assert config.cpp.vec_isa_ok is (True if passed else None)
    # the user's TORCHINDUCTOR_VEC_ISA_OK wins
    config.cpp.vec_isa_ok = False
    assert inductor.vec_isa_probe() is False and config.cpp.vec_isa_ok is False


def test_a_package_is_loaded_after_the_recorded_isa_probe(monkeypatch):
    """AOTInductor's loader asks for the CPU's vector ISA, which inductor probes (child
    processes) unless told: vec_isa_probe's record is consulted first, once per process."""
    import torch._inductor  # pylint: disable=import-outside-toplevel
    events = []
    monkeypatch.setattr(inductor, "_ISA_DONE", [])
    monkeypatch.setattr(inductor, "vec_isa_probe", lambda: events.append("probe") or True)
    monkeypatch.setattr(torch._inductor, "aoti_load_package", lambda path: events.append(path) or path)
    assert inductor._load_package("a.pt2") == "a.pt2" and inductor._load_package("b.pt2") == "b.pt2"
    assert events == ["probe", "a.pt2", "b.pt2"]


def test_export_writes_the_mxnet_graph(tmp_path):
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, backend="inductor")
    comp._build_cache(x)
    plain._build_cache(x)
    plain.export(str(tmp_path / "plain"))
    comp.export(str(tmp_path / "comp"))
    a = json.loads((tmp_path / "plain-symbol.json").read_text())
    b = json.loads((tmp_path / "comp-symbol.json").read_text())
    assert [n["op"] for n in a["nodes"]] == [n["op"] for n in b["nodes"]]
    assert "BatchNorm" in [n["op"] for n in b["nodes"]]


def test_op_hook_runs_node_by_node():
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    seen = []
    comp.register_op_hook(lambda name, op, arr: seen.append((name, op, arr.shape)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = comp(x)
    _close(out.asnumpy(), plain(x).asnumpy())
    assert [op for _, op, _ in seen] == ["FullyConnected", "Activation", "BatchNorm", "Dropout", "FullyConnected"]


def test_compile_failure_falls_back_with_a_warning(monkeypatch):
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, backend="inductor")

    def broken(fn, **_):
        def run(*args):
            raise RuntimeError("no C++ compiler")
        return run
    monkeypatch.setattr(torch, "compile", broken)
    _close(comp(x).asnumpy(), plain(x).asnumpy())  # a prediction's first call: the plain graph
    with pytest.warns(UserWarning, match="no C\\+\\+ compiler"):
        out = comp(x)
    _close(out.asnumpy(), plain(x).asnumpy())
    _close(comp(x).asnumpy(), plain(x).asnumpy())  # no second warning, plain graph
    with pytest.raises(mx.base.MXNetError, match="FullyConnected"):
        comp(nd.ones((4, 7)))  # a user's error names the node, as the plain graph does


def _identity_compile(fn, **_):
    """torch.compile stand-in that runs the function as is: the backend's bookkeeping, fast."""
    return fn


def test_a_users_shape_error_does_not_use_up_the_compilation(monkeypatch):
    monkeypatch.setattr(torch, "compile", _identity_compile)
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, backend="inductor")
    for _ in range(2):  # (a prediction's first call at a shape runs the plain graph, its second compiles)
        with pytest.raises(mx.base.MXNetError, match="FullyConnected"):
            comp(nd.ones((4, 7)))
    for _ in range(2):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    graph = comp._cached_op.compiled
    assert [k[1][0][0] for k in graph.compile_seconds] == [(4, 10)] and not graph._failed


def test_frozen_prediction_stops_when_the_weights_change_and_freezes_again(monkeypatch):
    monkeypatch.setattr(torch, "compile", _identity_compile)
    monkeypatch.setattr(inductor, "REFREEZE_CALLS", 3)
    monkeypatch.setattr(inductor, "REFREEZE_BACKOFF", 1)
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    _close(comp(x).asnumpy(), plain(x).asnumpy())  # the first call: the plain graph, nothing compiled
    assert not comp._cached_op.compiled._fns
    _close(comp(x).asnumpy(), plain(x).asnumpy())
    frozen = [f for f in comp._cached_op.compiled._fns.values() if isinstance(f, inductor._Frozen)]
    assert len(frozen) == 1 and frozen[0].frozen is not None
    _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert frozen[0].frozen is not None
    for step in range(2):  # the weights change between calls: never frozen
        for net in (plain, comp):
            net[0].weight.data()[:] += 1  # in place: same tensor, a new version
        _close(comp(x).asnumpy(), plain(x).asnumpy())
        assert frozen[0].frozen is None and frozen[0].freezes == 1
    for _ in range(3):  # unchanged for REFREEZE_CALLS calls: frozen again, with the new weights
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert frozen[0].frozen is not None and frozen[0].freezes == 2
    _close(frozen[0].module.p0.detach().numpy(), comp[0].weight.data().asnumpy(), 0)
    # trained again and validated (an epoch): the next freeze waits REFREEZE_BACKOFF times longer
    monkeypatch.setattr(inductor, "REFREEZE_BACKOFF", 2)
    for net in (plain, comp):
        net[0].weight.data()[:] += 1
    for _ in range(4):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert frozen[0].frozen is None and frozen[0].freezes == 2 and frozen[0].refreeze_calls == 6
    for _ in range(3):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert frozen[0].frozen is not None and frozen[0].freezes == 3
    # static_shape: a new shape is compiled too
    x2 = nd.random.uniform(shape=(2, 10))
    _close(comp(x2).asnumpy(), plain(x2).asnumpy())
    assert len(comp._cached_op.compiled.compile_seconds) == 1
    _close(comp(x2).asnumpy(), plain(x2).asnumpy())
    assert len(comp._cached_op.compiled.compile_seconds) == 2


def test_each_frozen_graph_compiles_its_own_code_object(monkeypatch):
    """torch.compile wraps bound methods without source in one shared helper frame (one
    dynamo cache, 8 entries for the whole process); a frozen graph hands it a function of
    its own."""
    import inspect
    compiled = []
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: compiled.append(fn) or fn)
    x = nd.random.uniform(shape=(4, 10))
    for _ in range(2):
        _, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
        comp(x)
        comp(x)
    entries = [f for f in compiled if getattr(f, "__name__", "") == "frozen_graph"]
    assert len(entries) == 2 and all(inspect.isfunction(f) for f in entries)
    assert entries[0].__code__ is not entries[1].__code__


class _FakePackages:
    """AOTInductor stand-in: "compiling" writes the module's weights to the package file
    (torch.save); "loading" reads them back and runs the graph on them."""

    def __init__(self, monkeypatch):
        self.built, self.loaded = [], []
        monkeypatch.setattr(inductor, "_export_package", self.export)
        monkeypatch.setattr(inductor, "_load_package", self.load)

    def export(self, module, data, path, options=None):
        self.built.append(path)
        self.options = options
        torch.save({"params": [p.detach().clone() for p in module.parameters()], "module": id(module)}, path)
        _FakePackages.modules[id(module)] = module

    modules = {}

    def load(self, path):
        saved = torch.load(path)
        module = _FakePackages.modules[saved["module"]]
        self.loaded.append(path)

        class Loader:  # as torch._inductor.aoti_load_package's model: called on the data tensors
            def __call__(self, *data):
                with torch.no_grad():
                    for p, v in zip(module.parameters(), saved["params"]):
                        assert torch.equal(p, v)
                    return list(module.entry(*data))
        return Loader()


def test_frozen_graphs_are_packaged_once_and_reloaded(monkeypatch, tmp_path):
    """The package route (NEOGLUON_COMPILE_PACKAGE): built once per graph, shapes and
    weights; a new network with the same weights loads it; other weights are another entry;
    a corrupt entry is reported by a warning naming the file, and rebuilt."""
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(torch, "compile", _identity_compile)
    fake = _FakePackages(monkeypatch)
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, backend="inductor")
    _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert not fake.built  # a prediction's first call runs the plain graph
    _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert len(fake.built) == 1 and len(fake.loaded) == 1
    assert fake.options == dict(inductor._SMALL, freezing=False, **{"cpp.weight_prepack": False})  # freeze_options
    packages = sorted(p.name for p in (tmp_path / "packages").iterdir())
    assert len(packages) == 2 and packages[0].endswith(".json") and packages[1].endswith(".pt2")
    path = fake.loaded[0]
    assert json.loads(open(path[:-4] + ".json").read())["sha256"] == file_digest(path)

    def again(weights_from):
        net = mlp()
        net.initialize()
        net(x)
        for (_, p), (_, q) in zip(weights_from.collect_params().items(), net.collect_params().items()):
            q.set_data(p.data().copy())
        net.hybridize(backend="inductor")
        for _ in range(2):
            _close(net(x).asnumpy(), weights_from(x).asnumpy())
        return net
    again(plain)  # same graph, shapes and weights: loaded, not built
    assert len(fake.built) == 1 and fake.loaded[-1] == path
    # a corrupt entry: a warning naming the file, then compiled again
    with open(path, "ab") as f:
        f.write(b"garbage")
    with pytest.warns(UserWarning, match="cache entry %s is corrupt" % path):
        again(plain)
    assert len(fake.built) == 2 and fake.loaded[-1] == path
    # other weights: another entry
    plain[0].weight.data()[:] += 1
    again(plain)
    assert len(fake.built) == 3 and fake.loaded[-1] != path


def test_a_package_that_cannot_be_built_falls_back_to_torch_compile(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    compiled = []
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: compiled.append(kw) or fn)

    def broken(module, data, path, options=None):
        with open(path, "wb") as f:
            f.write(b"half")
        raise RuntimeError("export failed")
    monkeypatch.setattr(inductor, "_export_package", broken)
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, backend="inductor")
    for _ in range(2):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    # no convolution in the graph: not frozen, so no weight packing (MKL's packed Linear loses to addmm)
    assert [kw["options"].get("freezing") for kw in compiled] == [False]
    assert compiled[0]["options"]["cpp.weight_prepack"] is False
    assert not (tmp_path / "packages").exists() or not list((tmp_path / "packages").iterdir())


def test_graphs_are_frozen_only_with_convolutions():
    """Freezing packs Linear weights once any frozen graph of the process packed (inductor
    registers its passes once), whatever cpp.weight_prepack says: graphs without
    convolutions are compiled unfrozen (freeze_options)."""
    x = mx.sym.var("x")
    dense = mx.sym.FullyConnected(mx.sym.Activation(x, act_type="relu"), num_hidden=3)
    assert inductor.freeze_options(dense) == {"freezing": False, "cpp.weight_prepack": False}
    for conv in (mx.sym.Convolution(x, kernel=(3, 3), num_filter=2),
                 mx.sym.Deconvolution(x, kernel=(3, 3), num_filter=2)):
        assert inductor.freeze_options(mx.sym.FullyConnected(conv, num_hidden=3)) == {}
    assert inductor.freeze_options(None) == {}


def test_small_frozen_graphs_autotune_their_matrix_products_with_serial_kernels(monkeypatch):
    x = mx.sym.var("x")
    dense = mx.sym.FullyConnected(x, num_hidden=3)
    small = [torch.zeros(3, 10), torch.zeros(3)]
    unfrozen = {"freezing": False, "cpp.weight_prepack": False}
    serial = {"cpp.threads": 1, "cpp.dynamic_threads": False}
    assert inductor.freeze_options(dense, small) == dict(inductor._AUTOTUNE, **unfrozen, **serial)
    assert inductor._with_passes(inductor.freeze_options(dense, small))["cpp.dynamic_threads"] is False
    assert inductor._with_passes(unfrozen)["cpp.dynamic_threads"] is True  # larger graphs: the call's count
    assert inductor._AUTOTUNE["max_autotune"] and inductor._AUTOTUNE["autotune_num_choices_displayed"] == 0
    monkeypatch.setattr(inductor, "AUTOTUNE_PARAMS", 32)  # 33 parameter elements: not small
    assert inductor.freeze_options(dense, small) == unfrozen


@pytest.mark.parametrize("shape, kernel, stride, pad", [((1, 1, 28, 28), (5, 5), (1, 1), (0, 0)),
                                                        ((2, 3, 9, 7), (3, 2), (2, 1), (1, 2))])
def test_tiny_convolutions_run_as_im2col_in_compiled_prediction(monkeypatch, shape, kernel, stride, pad):
    """While a prediction graph is traced for inductor (compiling, no gradients), a tiny 2-d
    convolution is im2col + a matrix product (operator/conv.py), with conv2d's values."""
    from neogluon.operator import conv as conv_module
    x, w, b = torch.randn(shape), torch.randn(4, shape[1], *kernel), torch.randn(4)
    expected = torch.nn.functional.conv2d(x, w, b, stride, pad)
    _close(conv_module._im2col_conv2d(x, w, b, stride, pad).numpy(), expected.numpy(), 1e-5)
    kernel_fn = mx.operator.registry.get("Convolution").kernel(
        dict(kernel=kernel, stride=stride, dilate=(), pad=pad, num_filter=4, num_group=1, no_bias=False,
             layout=None, workspace=1024, cudnn_tune=None, cudnn_off=False), False)
    calls = []
    monkeypatch.setattr(conv_module, "_im2col_conv2d", lambda *a: calls.append(1) or expected)
    kernel_fn(x, w, b)
    assert not calls  # eager: torch's convolution
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    with torch.no_grad():
        kernel_fn(x, w, b)
    assert calls == [1]
    with torch.enable_grad():
        kernel_fn(x, w, b)
    assert calls == [1]  # training graphs keep torch's convolution
    monkeypatch.setattr(conv_module, "IM2COL_MACS", 10)
    with torch.no_grad():
        kernel_fn(x, w, b)
    assert calls == [1]  # not tiny


def test_package_key(monkeypatch):
    x = nd.random.uniform(shape=(4, 10))
    net = mlp()
    net.initialize()
    net(x)
    net.hybridize(backend="inductor")
    net(x)
    sym = net._cached_op.symbol
    params = [p.data()._t for p in net.collect_params().values()]
    is_param = [False] + [True] * len(params)
    key = inductor.package_key(sym, [x._t], params, is_param)
    assert key == inductor.package_key(sym, [x._t.clone()], [p.clone() for p in params], is_param)
    assert key != inductor.package_key(sym, [x._t[:2]], params, is_param)
    assert key != inductor.package_key(sym, [x._t.double()], params, is_param)
    changed = [p.clone() for p in params]
    changed[0][0, 0] += 1
    assert key != inductor.package_key(sym, [x._t], changed, is_param)
    other = mlp()  # the same graph under other node names: the same key
    other.initialize()
    other(x)
    other.hybridize(backend="inductor")
    other(x)
    assert other._cached_op.symbol.list_arguments() != sym.list_arguments()
    assert key == inductor.package_key(other._cached_op.symbol, [x._t], params, is_param)


class _FakeClock:
    """The calibration's clock: each call of the function whose name is ``slow`` takes 1
    time unit longer than the other (the frames between two clock reads are inspected)."""

    def __init__(self, slow):
        self.slow, self.now, self.last = slow, 0.0, None

    def __call__(self):
        import inspect
        self.now += 1.0
        caller = inspect.currentframe().f_back
        name = caller.f_locals.get("name") if caller is not None else None
        if self.last == name == self.slow:
            self.now += 1.0
        self.last = name
        return self.now


@pytest.mark.parametrize("slow, chosen", [("compiled", "plain"), ("plain", "compiled")])
def test_prediction_and_training_keep_the_faster_of_compiled_and_plain(monkeypatch, tmp_path, slow, chosen):
    monkeypatch.setattr(torch, "compile", _identity_compile)
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))  # no verdict recorded by another run
    monkeypatch.setattr(inductor, "_clock", _FakeClock(slow))
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    for _ in range(4):  # the plain graph (a first call), compile, calibrate, use the choice
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    graph = comp._cached_op.compiled
    assert list(graph.choices.values()) == [chosen]
    frozen = [f for f in graph._fns.values() if isinstance(f, inductor._Frozen)][0]
    assert frozen.use_plain is (chosen == "plain") and frozen.calls == (2 if chosen == "plain" else 3)
    # training: calibrated too, and the trials leave no trace: BatchNorm's running statistics
    # moved once per call, the same Dropout masks, the same gradients as the plain graph
    for step in range(3):
        _step_both(plain, comp, x, seed=5 + step)
        _close(comp[1].running_mean.data().asnumpy(), plain[1].running_mean.data().asnumpy(), 1e-6)
        _close(comp[1].running_var.data().asnumpy(), plain[1].running_var.data().asnumpy(), 1e-6)
    assert list(graph.choices.values()) == [chosen, chosen] and len(graph.compile_seconds) == 2
    trained = [f for f in graph._fns.values() if isinstance(f, inductor._Trained)][0]
    assert trained.use_plain is (chosen == "plain")


def test_training_is_calibrated_again_at_another_thread_count(monkeypatch, tmp_path):
    """The training verdict is per intra-op thread count: serial compiled kernels can win on
    one thread and lose on two, and the adaptive count moves with the load."""
    monkeypatch.setattr(torch, "compile", _identity_compile)
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    n0 = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        monkeypatch.setattr(inductor, "_clock", _FakeClock("plain"))
        for step in range(3):
            _step_both(plain, comp, x, seed=step)
        trained = [f for f in comp._cached_op.compiled._fns.values() if isinstance(f, inductor._Trained)][0]
        assert trained.verdicts == {1: False} and not trained.use_plain
        torch.set_num_threads(2)
        monkeypatch.setattr(inductor, "_clock", _FakeClock("compiled"))
        for step in range(2):
            _step_both(plain, comp, x, seed=10 + step)
        assert trained.verdicts == {1: False, 2: True} and trained.use_plain
        torch.set_num_threads(1)
        assert not trained.use_plain
    finally:
        torch.set_num_threads(n0)


def test_a_calibration_verdict_is_recorded_and_taken_by_a_new_process(monkeypatch, tmp_path):
    """The verdicts (prediction and training) go to the cache directory; the same graph built
    again (as by a new process) takes them without timing anything, and computes as the plain
    graph; another graph (other shapes) is calibrated anew."""
    monkeypatch.setattr(torch, "compile", _identity_compile)
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(inductor, "_clock", _FakeClock("compiled"))
    x = nd.random.uniform(shape=(4, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    for step in range(3):
        comp(x)
        _step_both(plain, comp, x, seed=step)
    record = json.loads((tmp_path / "neogluon_calibration.json").read_text())
    assert sorted(record.values()) == ["plain", "plain"]
    ticks = []
    monkeypatch.setattr(inductor, "_clock", lambda: ticks.append(1) or 0.0)
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    for step in range(3):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
        _step_both(plain, comp, x, seed=step)
        _close(comp[1].running_mean.data().asnumpy(), plain[1].running_mean.data().asnumpy(), 1e-6)
    graph = comp._cached_op.compiled
    assert list(graph.choices.values()) == ["plain", "plain"] and not ticks
    assert all(f.use_plain for f in graph._fns.values())
    # where the plain graph won, the new process compiles nothing (not even at the first call)
    for f in graph._fns.values():
        assert f.frozen is None if isinstance(f, inductor._Frozen) else f.compiled._compiled is None
    y = nd.random.uniform(shape=(6, 10))  # other shapes: other verdicts, timed
    plain, comp = _pair(mlp, y, static_alloc=True, static_shape=True)
    for _ in range(3):
        comp(y)
    assert ticks and len(json.loads((tmp_path / "neogluon_calibration.json").read_text())) == 3


# ---------------------------------------------------------------------- compiling
@pytest.mark.slow
def test_mlp_batchnorm_dropout_train_and_predict():
    x = nd.random.uniform(shape=(8, 10))
    plain, comp = _pair(mlp, x, backend="inductor")
    bn_plain, bn_comp = plain[1], comp[1]
    for step in range(2):
        _step_both(plain, comp, x, seed=7 + step)  # the same Dropout masks (inductor keeps torch's random stream)
        # running statistics moved once per call, as in the plain graph
        _close(bn_comp.running_mean.data().asnumpy(), bn_plain.running_mean.data().asnumpy(), 1e-5)
        _close(bn_comp.running_var.data().asnumpy(), bn_plain.running_var.data().asnumpy(), 1e-5)
    graph = comp._cached_op.compiled
    # predict: frozen weights (at the second call)
    for _ in range(2):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    assert len(graph.compile_seconds) == 2
    # a new shape runs the plain graph: nothing compiled
    x2 = nd.random.uniform(shape=(3, 10))
    for _ in range(2):
        _close(comp(x2).asnumpy(), plain(x2).asnumpy())
    assert len(graph.compile_seconds) == 2
    # the weights change (a training step): the frozen function is not used any more
    for net in (plain, comp):
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
        mx.random.seed(11)
        with autograd.record():
            (net(x) ** 2).sum().backward()
        trainer.step(8)
    _close(comp(x).asnumpy(), plain(x).asnumpy(), 1e-3)


@pytest.mark.slow
def test_lenet_static_flags_predict_and_gradients():
    x = nd.random.uniform(shape=(2, 1, 28, 28))
    plain, comp = _pair(lenet, x, static_alloc=True, static_shape=True)
    for _ in range(2):  # (the first call runs the plain graph)
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    for net in (plain, comp):
        with autograd.record():
            y = net(x)
        y.backward(nd.ones_like(y))
    for g, h in zip(_grads(plain), _grads(comp)):
        _close(h, g)
    _compiled(comp, 2)  # predict (frozen) and training


@pytest.mark.slow
def test_lstm_unrolled_gradients():
    x = nd.random.uniform(shape=(3, 4, 6))
    plain, comp = _pair(Unrolled, x, backend="inductor")
    outs = []
    for net in (plain, comp):
        with autograd.record():
            y = net(x)
        y.backward(nd.ones_like(y))
        outs.append(y.asnumpy())
    _close(outs[0], outs[1])
    for g, h in zip(_grads(plain), _grads(comp)):
        _close(h, g)
    _compiled(comp, 1)


@pytest.mark.slow
def test_fused_lstm_layer_trains_as_the_plain_graph():
    """A fused ``rnn.LSTM`` layer's recorded graph: the fused kernel stays out of the traced
    graph (torch.compile runs the pieces around it) and gives the plain graph's outputs and
    gradients; the flat parameter vector's gradient reaches every piece."""
    x = nd.random.uniform(shape=(5, 3, 6))

    def make():
        net = nn.HybridSequential()
        net.add(rnn.LSTM(8, num_layers=2, input_size=6), nn.Dense(4, flatten=False, in_units=8))
        return net
    plain, comp = _pair(make, x, backend="inductor")
    for _ in range(2):
        _step_both(plain, comp, x)
    _compiled(comp, 1)


class ConvBN(gluon.HybridBlock):
    """conv-BN-relu, conv-BN, a residual add and a Dense head: what freezing folds and prepacks."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                          nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm())
            self.head = nn.Dense(5)

    def hybrid_forward(self, F, x):
        return self.head(F.relu(self.body(x) + x))


class _BoxedLoader:
    """AOTInductor's loaded model as _Packaged sees it: ``__call__`` (the documented call) and
    ``loader`` (``get_call_spec``, ``boxed_run`` on a flat list of tensors)."""

    def __init__(self, fn, out_spec, n_in=1):
        from torch.utils import _pytree
        self.fn, self.boxed, self.called = fn, 0, 0
        in_spec = _pytree.tree_flatten((tuple(torch.zeros(1) for _ in range(n_in)), {}))[1]
        self.loader = self
        self.spec = [_pytree.treespec_dumps(in_spec), _pytree.treespec_dumps(out_spec)]
        self.out_spec = out_spec

    def get_call_spec(self):
        return self.spec

    def boxed_run(self, flat):
        self.boxed += 1
        return self.fn(*flat)

    def __call__(self, *data):
        from torch.utils import _pytree
        self.called += 1
        return _pytree.tree_unflatten(self.fn(*data), self.out_spec)


def test_packages_run_boxed_with_the_call_specification_decoded_once():
    from torch.utils import _pytree
    x = torch.arange(6.0).reshape(2, 3)
    two = lambda a: [a + 1, a * 2]  # noqa: E731
    flat = _BoxedLoader(two, _pytree.tree_flatten((x, x))[1])
    run = inductor._Packaged(flat)
    for _ in range(3):
        out = run(x)
        assert len(out) == 2 and torch.equal(out[0], x + 1) and torch.equal(out[1], x * 2)
    assert (flat.boxed, flat.called) == (3, 0)
    nested = _BoxedLoader(two, _pytree.tree_flatten(((x,), {"b": x}))[1])  # not a flat tuple: unflattened
    out = inductor._Packaged(nested)(x.t())  # a non-contiguous input is made contiguous
    assert nested.boxed == 1 and torch.equal(out[0][0], x.t() + 1) and torch.equal(out[1]["b"], x.t() * 2)
    single = _BoxedLoader(lambda a: [a - 1], _pytree.tree_flatten(x)[1])
    out = inductor._Packaged(single)(x)
    assert len(out) == 1 and torch.equal(out[0], x - 1)
    other = _BoxedLoader(two, _pytree.tree_flatten((x, x))[1], n_in=2)  # another input specification
    out = inductor._Packaged(other)(x)
    assert (other.boxed, other.called) == (0, 1) and torch.equal(out[1], x * 2)


@pytest.mark.slow
def test_frozen_package_predicts_as_the_plain_graph_and_is_reused(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    x = nd.random.uniform(shape=(2, 8, 6, 6))
    plain, comp = _pair(ConvBN, x, backend="inductor")
    mean, var = nd.random.uniform(shape=(8,)), nd.random.uniform(1, 2, shape=(8,))
    for net in (plain, comp):  # BatchNorm statistics that are not 0/1
        net.body[1].running_mean.set_data(mean)
        net.body[1].running_var.set_data(var)
    for _ in range(2):  # (the first call runs the plain graph)
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    frozen = [f for f in comp._cached_op.compiled._fns.values() if isinstance(f, inductor._Frozen)][0]
    assert frozen.package is not None and isinstance(frozen.frozen, inductor._Packaged)
    packaged = frozen.frozen
    assert packaged._run and packaged._out_spec is None  # the boxed run: the call specification decoded once
    documented = packaged.loader(x._t)  # AOTInductor's own call
    assert len(documented) == 1 and torch.equal(packaged(x._t)[0], documented[0])
    built = []
    monkeypatch.setattr(inductor, "_export_package", lambda *a: built.append(a))
    again = ConvBN()
    again.initialize()
    again(x)
    for (_, p), (_, q) in zip(comp.collect_params().items(), again.collect_params().items()):
        q.set_data(p.data().copy())
    again.hybridize(backend="inductor")
    for _ in range(2):
        _close(again(x).asnumpy(), plain(x).asnumpy())
    assert not built  # loaded from the package


@pytest.mark.slow
def test_compiled_training_keeps_the_weights_layout():
    """A compiled training step of a network with convolutions gives the plain graph's
    outputs and gradients without copying any convolution weight or weight gradient: with
    inductor's layout optimization the graph converted each weight to channels-last and each
    gradient back, and AccumulateGrad copied the gradient once more (executor/inductor.py)."""
    from torch.profiler import profile  # pylint: disable=import-outside-toplevel
    x = nd.random.uniform(shape=(2, 8, 6, 6))
    plain, comp = _pair(ConvBN, x, static_alloc=True, static_shape=True)
    with autograd.train_mode():
        _step_both(plain, comp, x)
    with profile(record_shapes=True) as prof:
        with autograd.record():
            y = comp(x)
            (y * y).sum().backward()
    _compiled(comp, 1)
    weight = [8, 8, 3, 3]
    copies = [e.name for e in prof.events() if e.name in ("aten::copy_", "aten::_to_copy")
              and any(list(s) == weight for s in e.input_shapes if isinstance(s, (list, tuple)))]
    assert not copies, copies
    # the graph did run the convolutions' backward (these tiny ones: torch's im2col + GEMM kernel)
    conv = [e for e in prof.events() if e.name in ("aten::convolution_backward", "aten::_slow_conv2d_backward")]
    assert len(conv) == 2


def _joint(net):
    """The block's compiled recorded-training function (executor/inductor.py's _JointCompiled)."""
    graph = net._cached_op.compiled
    trained = [f for f in graph._fns.values() if isinstance(f, inductor._Trained)]
    assert len(trained) == 1
    return trained[0].compiled


@pytest.mark.slow
def test_small_training_graph_runs_as_one_autograd_node():
    """A recorded call of a compiled graph without mutated inputs runs its compiled forward
    and backward through one autograd node (no dynamo guards, no AOTAutograd wrappers) once
    both are compiled; outputs and gradients stay the plain graph's, for grad_req 'write'
    and 'add', through Trainer steps; a parameter that stops needing a gradient sends the
    call back to the usual compiled function (which recompiles for it)."""
    from torch.profiler import profile  # pylint: disable=import-outside-toplevel
    x = nd.random.uniform(shape=(1, 1, 28, 28))
    plain, comp = _pair(lenet, x, static_alloc=True, static_shape=True)
    trainers = [gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}) for net in (plain, comp)]
    for _ in range(3):
        _step_both(plain, comp, x)
        for t in trainers:
            t.step(1)
    joint = _joint(comp)
    assert joint.direct, "the compiled graph should run as one autograd node"
    with autograd.record():
        y = comp(x)
    assert type(y._t.grad_fn).__name__ == "_JointFunctionBackward"
    # a tiny convolution keeps torch's im2col + GEMM kernel in the compiled training graph
    with profile() as prof:
        with autograd.record():
            (comp(x) ** 2).sum().backward()
    names = {e.name for e in prof.events()}
    assert "aten::_slow_conv2d_forward" in names and "aten::mkldnn_convolution" not in names, names
    _accumulate_both(plain, comp, x)
    # a parameter without gradient: the guard sends the call to the usual compiled function
    for net in (plain, comp):
        net[0].weight.grad_req = "null"
    _step_both(plain, comp, x)
    assert not comp[0].weight.data()._t.requires_grad
    _compiled(comp, 1)


@pytest.mark.slow
def test_direct_training_call_updates_running_statistics():
    """BatchNorm's running statistics are updated in place by the compiled forward itself
    (AOTAutograd keeps the mutation in the graph): through the one-node call they move once
    per call as in the plain graph, with the same Dropout masks and gradients."""
    x = nd.random.uniform(shape=(8, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    for step in range(4):
        _step_both(plain, comp, x, seed=3 + step)
        _close(comp[1].running_mean.data().asnumpy(), plain[1].running_mean.data().asnumpy(), 1e-5)
        _close(comp[1].running_var.data().asnumpy(), plain[1].running_var.data().asnumpy(), 1e-5)
    assert _joint(comp).direct
    with autograd.predict_mode():
        _close(comp(x).asnumpy(), plain(x).asnumpy())


@pytest.mark.slow
def test_direct_training_call_takes_an_output_reshaped_from_an_intermediate():
    """A 3-d ``Dense(flatten=False)`` returns a reshape of its 2-d product, which AOTAutograd
    hides behind ``_unsafe_view`` and returns as it comes (the LSTM language model's decoder):
    it runs through the one-node call too, with the plain graph's outputs and gradients, for
    grad_req 'write' and 'add'."""
    def decoded():
        net = nn.HybridSequential()
        net.add(nn.Dense(8, flatten=False, in_units=6), nn.Dense(5, flatten=False, in_units=8))
        return net
    x = nd.random.uniform(shape=(3, 4, 6))
    plain, comp = _pair(decoded, x, static_alloc=True, static_shape=True)
    for _ in range(3):
        _step_both(plain, comp, x)
    assert _joint(comp).direct
    with autograd.record():
        y = comp(x)
    assert type(y._t.grad_fn).__name__ == "_JointFunctionBackward"
    _accumulate_both(plain, comp, x)
    _compiled(comp, 1)


@pytest.mark.slow
def test_direct_training_call_backward_twice_with_retain_graph():
    """``backward(retain_graph=True)`` twice through the one-node call adds the gradients
    twice (grad_req 'add'), as the plain graph does."""
    x = nd.random.uniform(shape=(1, 1, 28, 28))
    plain, comp = _pair(lenet, x, static_alloc=True, static_shape=True)
    for _ in range(3):
        _step_both(plain, comp, x)
    assert _joint(comp).direct
    for net in (plain, comp):
        for p in net.collect_params().values():
            p.grad_req = "add"
            p.zero_grad()
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
    for g, h in zip(_grads(plain), _grads(comp)):
        _close(h, g)


@pytest.mark.slow
def test_frozen_prediction_sees_running_statistics_updated_by_compiled_training():
    """Recorded training-mode calls of the compiled graph update BatchNorm's running statistics
    (without a Trainer step, as when re-estimating them): a prediction frozen before them
    must use the new statistics afterwards, as the plain graph does."""
    def net_bn():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation("relu"), nn.Dense(3))
        return net
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(net_bn, x, static_alloc=True, static_shape=True)
    _close(comp(x).asnumpy(), plain(x).asnumpy())  # frozen here
    for _ in range(3):
        _step_both(plain, comp, x)
    _close(comp[1].running_mean.data().asnumpy(), plain[1].running_mean.data().asnumpy(), 1e-5)
    assert np.abs(plain[1].running_mean.data().asnumpy()).max() > 1e-3  # they did move
    for _ in range(2):
        _close(comp(x).asnumpy(), plain(x).asnumpy())


@pytest.mark.slow
def test_training_graph_with_reshape_and_reductions_compiles_once():
    """Reshape's and the reductions' per-shape plan caches are bypassed while TorchDynamo traces:
    dynamo guarded on their contents, so every compiled training graph with a Reshape was
    compiled a second time at its second call (the trace had filled the cache)."""
    def net_reshape():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3), nn.HybridLambda(lambda F, x: F.reshape(x, (0, -1))),
                nn.HybridLambda(lambda F, x: F.broadcast_sub(x, F.mean(x, axis=1, keepdims=True))), nn.Dense(3))
        return net
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(net_reshape, x, static_alloc=True, static_shape=True)
    for _ in range(4):
        _step_both(plain, comp, x)
    assert _joint(comp)._graphs == 1  # dynamo handed one graph to the backend: no recompilation


# ---------------------------------------------------------------------- the intra-op thread count
def _counting_backend(compiles):
    def backend(gm, example_inputs):  # dynamo's graph as it is (no inductor): counts compilations
        compiles.append(gm)
        return gm.forward
    return backend


def test_a_new_thread_count_compiles_nothing_but_another_grad_mode_does():
    """torch 2.13's dynamo guards on the intra-op thread count (GlobalStateGuard), so the
    adaptive count (neogluon/threads.py) recompiled every function once per count it set;
    ``_AnyThreads`` drops that guard and checks the rest of the global state itself."""
    n0 = torch.get_num_threads()
    x = torch.ones(3, requires_grad=True)

    def f(t):
        return t * 2 + 1

    def g(t):
        return t * 2 + 1
    plain_compiles, compiles = [], []
    plain = torch.compile(g, dynamic=False, backend=_counting_backend(plain_compiles))
    fn = inductor._AnyThreads(f, dynamic=False, backend=_counting_backend(compiles))
    try:
        for n in (2, 1, 2, 1):
            torch.set_num_threads(n)
            assert plain(x).requires_grad and fn(x).requires_grad
        assert len(plain_compiles) == 2             # torch.compile alone: once per count
        assert len(compiles) == 1 and len(fn.states) == 1
        with torch.no_grad():                       # another grad mode: compiled for it, not the first one reused
            y = fn(x)
        assert not y.requires_grad and len(compiles) == 2 and len(fn.states) == 2
        torch.set_num_threads(2)
        with torch.no_grad():
            assert not fn(x).requires_grad
        assert fn(x).requires_grad and len(compiles) == 2
        np.testing.assert_allclose(fn(x).detach().numpy(), f(x).detach().numpy())
    finally:
        torch.set_num_threads(n0)


@pytest.mark.slow
def test_compiled_graphs_run_at_a_new_thread_count_without_recompiling():
    """The torch.compile paths (training mode without autograd, recorded calls before the
    direct call, prediction) at 2, then 1, then 2 threads: the same results as the plain
    graph and no recompilation (dynamo raises on one; the backend would fall back and say so)."""
    n0 = torch.get_num_threads()
    x = nd.random.uniform(shape=(8, 10))
    plain, comp = _pair(mlp, x, static_alloc=True, static_shape=True)
    # recompiling raises after the first round (dynamo's config.patch: monkeypatch's restoring
    # setattr left dynamo's config without the name, and a later compilation in the process failed)
    with contextlib.ExitStack() as stack:
        try:
            for k, n in enumerate((2, 1, 2)):
                torch.set_num_threads(n)
                outs = []
                for net in (plain, comp):
                    mx.random.seed(3)                       # the same Dropout masks
                    with autograd.train_mode():             # training mode without autograd
                        outs.append(net(x).asnumpy())
                _close(outs[1], outs[0])
                _step_both(plain, comp, x, seed=5)          # recorded calls
                _close(comp(x).asnumpy(), plain(x).asnumpy())  # prediction
                if k == 0:
                    stack.enter_context(torch._dynamo.config.patch(error_on_recompile=True))  # pylint: disable=W0212
        finally:
            torch.set_num_threads(n0)
    assert not comp._cached_op.compiled._failed


def test_relu_traced_for_training_has_a_float_mask_backward(monkeypatch):
    """Traced for a small compiled training graph with pooling, ReLU's backward multiplies by
    ``sign`` of its output (operator/nn.py ``relu_with``): the same outputs and gradients as torch's ReLU for
    finite values, zeros and ties included."""
    from neogluon.operator import nn as nn_ops  # pylint: disable=import-outside-toplevel
    x = torch.tensor([[-2.0, -0.0, 0.0, 1e-30, 3.0, 3.0], [-1e30, 2.5, -2.5, 0.0, 7.0, -7.0]])
    g = torch.tensor([[1.0, -2.0, 3.0, -4.0, 5.0, 6.0], [0.5, -0.25, 1e30, -1e30, 0.0, 2.0]])
    want_x = x.clone().requires_grad_()
    want = torch.relu(want_x)
    want.backward(g)
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    got_x = x.clone().requires_grad_()
    relu = nn_ops.relu_with(torch.relu)
    assert relu(got_x).grad_fn.name() == "ReluBackward0"  # a graph not chosen for it (not small with pooling)
    monkeypatch.setattr(nn_ops, "FLOAT_MASK_RELU", [True])
    got = relu(got_x)
    assert type(got.grad_fn).__name__ == "_ReluFloatMaskBackward"
    got.backward(g)
    assert torch.equal(got, want) and torch.equal(got_x.grad, want_x.grad)
    with torch.no_grad():  # no gradient: torch's ReLU
        assert relu(got_x).grad_fn is None


class _TiedLeNet(gluon.HybridBlock):
    """LeNet's layers as the tutorial writes them: ``F.relu`` between convolution and pooling
    (the ``relu`` operator), ``Activation('relu')`` in a Dense."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.conv1, self.conv2 = nn.Conv2D(6, 5), nn.Conv2D(16, 5)
            self.pool1, self.pool2 = nn.MaxPool2D(2), nn.MaxPool2D(2)
            self.fc1, self.fc2 = nn.Dense(20, activation="relu"), nn.Dense(10)

    def hybrid_forward(self, F, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        return self.fc2(self.fc1(x))


@pytest.mark.slow
def test_small_pooling_graph_trains_in_channels_last_with_the_plain_graphs_gradients():
    """A small training graph with pooling compiles with layout optimization
    (``_SMALL_POOLING``: channels-last activations) and ReLU's float-mask backward: outputs
    and gradients equal the plain graph's, also where pooling windows hold equal maxima
    (small integers as data and weights: many ties, many ReLU zeros; the gradient goes to
    the window's first maximum, as in MXNet), over two Trainer steps."""
    assert inductor._SMALL_POOLING.get("layout_optimization") is True
    rng = np.random.RandomState(3)
    x = nd.array(rng.randint(-2, 3, size=(4, 1, 28, 28)).astype("float32"))
    plain, comp = _pair(_TiedLeNet, x, static_alloc=True, static_shape=True)
    for (name, p), q in zip(plain.collect_params().items(), comp.collect_params().values()):
        values = rng.randint(-1, 2, size=p.shape) if "conv" in name else rng.uniform(-0.3, 0.3, size=p.shape)
        p.set_data(nd.array(values.astype("float32")))
        q.set_data(p.data().copy())
    act = nd.relu(plain.conv1(x)).asnumpy()
    windows = act.reshape(4, 6, 12, 2, 12, 2).transpose(0, 1, 2, 4, 3, 5).reshape(-1, 4)
    top = windows.max(axis=1)
    assert ((windows == top[:, None]).sum(axis=1)[top > 0] > 1).mean() > 0.05  # tied positive maxima
    trainers = [gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01}) for net in (plain, comp)]
    for _ in range(2):
        _step_both(plain, comp, x)
        for t in trainers:
            t.step(4)
    _compiled(comp, 1)
    joints = [f.compiled for f in comp._cached_op.compiled._fns.values() if f is not None and hasattr(f, "aux_index")]
    assert joints and all(j.float_mask for j in joints)  # its ReLUs took the float mask


# ---------------------------------------------------------------------- a new process on the disk cache
_NEW_PROCESS = r'''
import json, sys
import numpy as np
import neogluon as mx
from neogluon import autograd, nd
from neogluon.gluon import nn
import torch._dynamo.utils

mx.random.seed(0)
net = nn.HybridSequential()
net.add(nn.Conv2D(4, 3, activation="relu"), nn.BatchNorm(), nn.Flatten(), nn.Dense(3))
net.initialize(mx.init.Xavier())
x = nd.random.uniform(shape=(2, 3, 8, 8))
net(x)
net.hybridize(static_alloc=True, static_shape=True)
net(x)  # a prediction's first call: the plain graph
pred = net(x).asnumpy()  # the frozen graph: its package built (first process) or loaded
with autograd.record():
    y = net(x)
    (y * y).sum().backward()
joint = [f.compiled for f in net._cached_op.compiled._fns.values() if f is not None and hasattr(f, "aux_index")][0]
for _ in range(2):  # the second call plans the direct call (one autograd node), the third runs it
    with autograd.record():
        y2 = net(x)
        (y2 * y2).sum().backward()
counters = {k: dict(torch._dynamo.utils.counters[k]) for k in ("inductor", "aot_autograd")}
print(json.dumps({"counters": counters, "direct": type(y2._t.grad_fn).__name__ == "_JointFunctionBackward",
                  "pred": pred.tolist(), "out": y2.asnumpy().tolist(),
                  "grads": [p.grad().asnumpy().tolist() for p in net.collect_params().values()
                            if p.grad_req != "null"],
                  "mean": net[1].running_mean.data().asnumpy().tolist()}))
'''


def _new_process(cache):
    """Run :data:`_NEW_PROCESS` in a new Python on the inductor cache ``cache``; its JSON report."""
    import os  # pylint: disable=import-outside-toplevel
    import subprocess  # pylint: disable=import-outside-toplevel
    import sys  # pylint: disable=import-outside-toplevel
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, NEOGLUON_COMPILE="1", NEOGLUON_COMPILE_CALIBRATE="0", NEOGLUON_COMPILE_PACKAGE="1",
               NEOGLUON_COMPILE_BACKGROUND="0",
               TORCHINDUCTOR_CACHE_DIR=str(cache), PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", _NEW_PROCESS], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_new_process_trains_from_the_disk_cache(tmp_path):
    """A second process with the same network, on the same cache directory, takes its frozen
    prediction from the package and its training graph from AOTAutograd's cache (no tracing,
    no partitioning), whose compiled forward and backward come from inductor's FX graph cache
    (no miss: the first process's package build left inductor's global configuration, part of
    the cache key, as it found it); it runs them as one autograd node as the first process
    does, and computes what the first did: predictions, outputs, gradients and BatchNorm's
    running statistics, bit for bit (the same compiled code)."""
    first = _new_process(tmp_path)
    second = _new_process(tmp_path)
    inductor_counts, aot_counts = second["counters"]["inductor"], second["counters"]["aot_autograd"]
    assert inductor_counts.get("fxgraph_cache_miss", 0) == 0 and aot_counts.get("autograd_cache_miss", 0) == 0, \
        second["counters"]
    assert aot_counts.get("autograd_cache_hit", 0) == 1 and first["counters"]["aot_autograd"].get(
        "autograd_cache_miss", 0) == 1, (first["counters"], second["counters"])
    assert first["direct"] and second["direct"]
    for name in ("pred", "out", "mean"):
        np.testing.assert_array_equal(np.array(second[name]), np.array(first[name]), err_msg=name)
    for g, h in zip(first["grads"], second["grads"]):
        np.testing.assert_array_equal(np.array(h), np.array(g))


class _ConvNMS(gluon.HybridBlock):
    """A convolution whose output rows [id, score, x1, y1, x2, y2] go through box_nms, as a
    hybridized GluonCV SSD predicts (its sizes depend on the data: torch.export cannot capture it)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.conv = nn.Conv2D(6, 3, padding=1)

    def hybrid_forward(self, F, x):
        rows = F.transpose(F.reshape(self.conv(x), (0, 6, -1)), (0, 2, 1)) * 20
        return F.contrib.box_nms(rows, overlap_thresh=0.3, topk=40, id_index=0, score_index=1, coord_start=2)


@pytest.mark.slow
def test_compiled_prediction_through_box_nms_prints_nothing(monkeypatch, tmp_path, capfd):
    """The frozen graph cannot be packaged (torch.export fails on box_nms) and torch.compile
    serves it; neither torch.export's partial graph (500 lines for GluonCV's SSD) nor dynamo's
    warning about ``Tensor.item()`` (``capture_scalar_outputs``) reached the user's stderr."""
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    x = nd.array(np.random.RandomState(3).uniform(-1, 1, (1, 3, 8, 8)))
    plain, comp = _pair(_ConvNMS, x, static_alloc=True, static_shape=True)
    capfd.readouterr()
    for _ in range(2):
        _close(comp(x).asnumpy(), plain(x).asnumpy())
    _compiled(comp, 1)
    assert not list((tmp_path / "packages").glob("*.pt2"))  # not packaged: torch.compile ran it
    out, err = capfd.readouterr()
    assert out == "" and err == "", err[:2000]


class _DenseGatherND(gluon.HybridBlock):
    """A Dense layer whose rows are gathered by positions given as data, as BERT's MLM
    decoder gathers the masked positions (``gather_nd``, bounds-checked as MXNet)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.dense = nn.Dense(4, flatten=False)

    def hybrid_forward(self, F, x, positions):
        return F.gather_nd(self.dense(x), positions)


@pytest.mark.slow
def test_compiled_gather_nd_prints_nothing_and_keeps_its_bounds_check(monkeypatch, tmp_path, capfd):
    """torch.export cannot capture gather_nd's bounds check (it reads index values) and
    torch.compile serves the graph; neither dynamo's ``Tensor.item()`` advice nor the shape
    logger's "Unable to find user code" line reached stderr, and an index out of bounds still
    raises MXNet's IndexError."""
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    x = nd.array(np.random.RandomState(3).uniform(-1, 1, (2, 5, 3)))
    positions = nd.array([[0, 1, 1], [4, 0, 2]])
    plain, comp = _DenseGatherND(), _DenseGatherND()
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
        net(x, positions)
    comp.dense.weight.set_data(plain.dense.weight.data().copy())
    plain.hybridize()
    comp.hybridize(static_alloc=True, static_shape=True)
    capfd.readouterr()
    for _ in range(2):
        _close(comp(x, positions).asnumpy(), plain(x, positions).asnumpy())
    _compiled(comp, 1)
    out, err = capfd.readouterr()
    assert out == "" and err == "", err[:2000]
    for net in (comp, plain):  # MXNet's IndexError, not the meta run's "Tensor.item() ... meta tensors"
        with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
            net(x, nd.array([[0, 1, 1], [4, 0, 5]])).asnumpy()
