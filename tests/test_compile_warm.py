"""Background compilation (neogluon/executor/warm.py): a graph's first compilation runs in a
child process, which fills the disk caches while the plain graph serves; the parent then
compiles from the caches. Tests marked ``slow`` compile with inductor in a child process."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.executor import inductor, warm
from neogluon.gluon import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _background(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_COMPILE", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_BACKGROUND", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "0")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    # the parent reads the vector-ISA probe's record the child leaves in the cache, as a new
    # process does (the probe's setting is part of the FX graph cache's key); restored afterwards
    from torch._inductor import config  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(inductor, "_ISA_DONE", [])
    with config.patch({"cpp.vec_isa_ok": config.cpp.vec_isa_ok}):
        yield
    for job in list(warm._RUNNING):  # pylint: disable=protected-access
        job.terminate()


def _net(dropout=0.0):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, activation="relu"), nn.BatchNorm(), nn.Flatten(), nn.Dense(16, activation="relu"))
    if dropout:
        net.add(nn.Dropout(dropout))
    net.add(nn.Dense(5))
    return net


def _pair(x, dropout=0.0, make=None):
    """The same network (``make()``, else :func:`_net`) twice: plain hybridized, and with the compiled backend."""
    plain, comp = (make(), make()) if make else (_net(dropout), _net(dropout))
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
        net(x)
    for p, q in zip(plain.collect_params().values(), comp.collect_params().values()):
        q.set_data(p.data().copy())
    plain.hybridize()
    comp.hybridize(static_alloc=True, static_shape=True)
    return plain, comp


def _step(net, x, seed):
    mx.random.seed(seed)
    with autograd.record():
        out = net(x)
        loss = (out * out).mean()
    loss.backward()
    return out.asnumpy(), [p.grad().asnumpy() for p in net.collect_params().values() if p.grad_req != "null"]


def _close(a, b, tol=1e-4):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, float(np.abs(b).max(initial=0))))


class _FakeJob:
    """A warm.Job stand-in: running until ``finish()``."""

    ok = True
    what = "package"
    returncode = 0

    def __init__(self):
        self.running = True
        self.owner = os.getpid()

    def poll(self):
        return self.running

    def wait(self, timeout=None):
        return not self.running

    def finish(self):
        self.running = False
        warm._RUNNING.remove(self)  # pylint: disable=protected-access

    def terminate(self):
        self.finish()


def _fake_children(monkeypatch, by_mode=False, jobs=None):
    """Children that never run: warm.start records each one's ``what`` (or mode) in the list
    returned, and the job in ``jobs``."""
    started = []

    def start(symbol, mode, tensors, is_param, static_shape, what="first"):
        started.append(mode if by_mode else what)
        job = _FakeJob()
        job.what = what
        warm._RUNNING.append(job)  # pylint: disable=protected-access
        if jobs is not None:
            jobs.append(job)
        return job
    monkeypatch.setattr(warm, "start", start)
    return started


def _counted_unfrozen(monkeypatch):
    """Unfrozen functions that are the plain graph, their calls counted in the list returned."""
    calls = []

    def lazy(fn, options=None):
        def run(*tensors):
            calls.append(1)
            return fn(*tensors)
        return run
    monkeypatch.setattr(inductor, "_lazy_compile", lazy)
    return calls


@pytest.fixture
def fake(monkeypatch):
    """Children that never run (``started`` lists their modes) and compilations that run the
    plain graph (``compiled`` lists their modes): the parent's decisions, without inductor."""
    compiled, jobs = [], []
    started = _fake_children(monkeypatch, by_mode=True, jobs=jobs)

    def compile_(self, mode, tensors):
        compiled.append(mode)
        plain = self.graph.fn(mode[0], tensors)
        return lambda ts: plain(*ts)
    monkeypatch.setattr(inductor.InductorGraph, "_compile", compile_)
    return started, compiled, jobs


def test_the_plain_graph_serves_while_a_child_compiles(fake):
    started, compiled, jobs = fake
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x)
    graph = None
    for k in range(3):
        a, b = _step(plain, x, k), _step(comp, x, k)
        graph = comp._cached_op.compiled
        _close(b[0], a[0])
        for g, h in zip(b[1], a[1]):
            _close(g, h)
    train = (True, True)
    assert started == [train] and compiled == [] and len(graph.warming) == 1
    # the shape is counted: another shape (static_shape promises few, up to MAX_SHAPES) may start
    # a child only once this one is done (one at a time)
    y = nd.random.uniform(shape=(3, 3, 8, 8))
    _step(comp, y, 0)
    assert started == [train]
    jobs[0].finish()
    assert graph.wait_warm(0)
    _step(comp, x, 3)
    assert compiled == [train] and graph.warming == []
    assert any(key[0] == train for key in graph.compile_seconds)
    _step(comp, y, 4)  # its turn now
    assert started == [train, train] and not graph._failed  # pylint: disable=protected-access


def test_a_prediction_builds_its_package_in_a_child(monkeypatch):
    """A prediction compiles at its second call: a child builds the frozen package while the
    plain graph serves, uncounted and uncalibrated; once the child is done the package is
    loaded and the compiled function calibrated against the plain graph."""
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "1")
    started, frozen = _fake_children(monkeypatch, by_mode=True), []
    monkeypatch.setattr(inductor._Frozen, "_freeze", lambda self, data: _plain_freeze(self, data, frozen))
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x)
    expect = plain(x).asnumpy()
    _close(comp(x).asnumpy(), expect)
    assert started == []  # a one-off call compiles nothing
    for _ in range(3):
        _close(comp(x).asnumpy(), expect)
    graph = comp._cached_op.compiled
    assert started == [(False, False)] and frozen == [] and graph.choices == {} and len(graph.warming) == 1
    assert graph.compile_seconds == {}  # (the calls compiling are the first: dynamo's warnings filtered)
    warm._RUNNING[0].finish()  # pylint: disable=protected-access
    for _ in range(2):
        _close(comp(x).asnumpy(), expect)
    assert frozen == [1] and list(graph.choices.values())[0] in ("plain", "compiled") and graph.warming == []
    assert len(graph.compile_seconds) == 1
    assert not graph._failed  # pylint: disable=protected-access


@pytest.mark.parametrize("unfrozen_ok", [True, False])
def test_a_package_for_weights_that_moved_on_is_built_again(monkeypatch, unfrozen_ok):
    """Weights that change while the child builds their package (a training loop validating
    every epoch): a child compiles the unfrozen function while the plain graph serves, then the
    unfrozen function serves (compiled here, from the caches that child filled, or on its own
    when that child failed), and once the weights have settled a child builds the package of
    the new weights."""
    started, frozen, unfrozen = _fake_children(monkeypatch), [], _counted_unfrozen(monkeypatch)
    monkeypatch.setattr(inductor._Frozen, "_freeze", lambda self, data: _plain_freeze(self, data, frozen))
    monkeypatch.setattr(inductor, "REFREEZE_CALLS", 2)
    monkeypatch.setattr(inductor, "REFREEZE_BACKOFF", 1)
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x)
    comp(x)
    comp(x)
    graph = comp._cached_op.compiled
    assert started == ["package"]
    for net in (plain, comp):
        for p in net.collect_params().values():
            p.set_data(p.data() * 1.5)
    expect = plain(x).asnumpy()
    warm._RUNNING[0].finish()  # pylint: disable=protected-access
    _close(comp(x).asnumpy(), expect)
    assert started == ["package", "unfrozen"] and unfrozen == []
    job = warm._RUNNING[0]  # pylint: disable=protected-access
    job.ok = unfrozen_ok
    job.finish()
    for _ in range(4):
        _close(comp(x).asnumpy(), expect)
    assert started == ["package", "unfrozen", "package"]
    # (the unfrozen function's last two calls: while the package's child ran)
    assert frozen == [] and len(unfrozen) == 4 and not graph._failed  # pylint: disable=protected-access
    warm._RUNNING[0].finish()  # pylint: disable=protected-access
    _close(comp(x).asnumpy(), expect)
    assert frozen == [1] and not graph._failed  # pylint: disable=protected-access


def test_a_graph_without_a_package_is_served_unfrozen(monkeypatch):
    """A package child that reports the graph cannot be packaged (torch.export fails on it)
    compiled the unfrozen function instead: it serves, and nothing is frozen in the call
    (torch.compile's freezing is not cached on disk: it would compile there)."""
    started, unfrozen = _fake_children(monkeypatch), _counted_unfrozen(monkeypatch)
    monkeypatch.setattr(inductor._Frozen, "_freeze", lambda self, data: pytest.fail("frozen in the call"))
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x)
    expect = plain(x).asnumpy()
    comp(x)
    comp(x)
    job = warm._RUNNING[0]  # pylint: disable=protected-access
    job.ok, job.returncode = False, warm.UNPACKAGED
    job.finish()
    for _ in range(3):
        _close(comp(x).asnumpy(), expect)
    graph = comp._cached_op.compiled
    assert started == ["package"] and len(unfrozen) == 3 and not graph._failed  # pylint: disable=protected-access


def _plain_freeze(self, data, frozen):
    """A stand-in for _Frozen._freeze: the frozen function is the plain graph on the frozen parameters."""
    frozen.append(1)
    self.traced = True
    params = list(self.params)

    def run(*d):
        tensors = [None] * (len(params) + len(d))
        for k, t in zip(self.param_index, params):
            tensors[k] = t
        for k, t in zip(self.data_index, d):
            tensors[k] = t
        return self.plain(*tensors)
    return run


def test_where_the_call_compiles_itself(fake, monkeypatch):
    """No child when the caches are known warm, when an earlier process found the plain graph
    faster, when a child cannot start, when turned off, and for a shape the graph will not compile."""
    started, compiled, _ = fake
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    train = (True, True)

    monkeypatch.setattr(warm, "is_warm", lambda key: True)
    _step(_pair(x)[1], x, 0)
    assert started == [] and compiled == [train]
    monkeypatch.setattr(warm, "is_warm", lambda key: False)

    monkeypatch.setattr(inductor.InductorGraph, "_plain_recorded", lambda self, mode, tensors: True)
    _step(_pair(x)[1], x, 0)
    assert started == [] and compiled == [train] * 2


def test_no_child_when_turned_off_or_not_startable(monkeypatch):
    compiled = []

    def compile_(self, mode, tensors):
        compiled.append(mode)
        plain = self.graph.fn(mode[0], tensors)
        return lambda ts: plain(*ts)
    monkeypatch.setattr(inductor.InductorGraph, "_compile", compile_)
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    monkeypatch.setattr(warm, "start", lambda *a: None)  # could not start (disk full, ...)
    _step(_pair(x)[1], x, 0)
    assert compiled == [(True, True)]
    monkeypatch.setattr(warm, "start", lambda *a: pytest.fail("a child started"))
    monkeypatch.setenv("NEOGLUON_COMPILE_BACKGROUND", "0")
    _step(_pair(x)[1], x, 0)
    assert compiled == [(True, True)] * 2


def test_without_static_shape_a_later_shape_starts_no_child(fake):
    """Without ``static_shape`` a mode compiles its first shape only, also when it is still
    compiling in a child: a later shape runs the plain graph, then and after."""
    started, compiled, jobs = fake
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    _, comp = _pair(x)
    comp.hybridize(backend="inductor")
    y = nd.random.uniform(shape=(3, 3, 8, 8))
    _step(comp, x, 0)
    _step(comp, y, 0)
    jobs[0].finish()
    _step(comp, y, 0)
    _step(comp, x, 0)
    assert started == [(True, True)] and compiled == [(True, True)]


def test_a_child_that_fails_leaves_its_directory_clean(monkeypatch, tmp_path):
    """A child that cannot load the graph exits with an error: the job reports it, its
    temporary directory is removed, nothing is recorded warm (the parent compiles itself)."""
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    _, comp = _pair(x)
    comp(x)
    symbol = comp._cached_op.compiled.graph.symbol
    monkeypatch.setattr(type(symbol), "tojson", lambda self: "{not json")
    monkeypatch.setattr(warm, "warm_key", lambda *a: "k")
    job = warm.start(symbol, (False, False), [torch.rand(2, 3, 8, 8)], [False], True)
    assert job is not None and os.path.isdir(job.folder)
    assert job.wait(300)
    assert not job.ok and not os.path.exists(job.folder)
    assert not warm.is_warm("k") and not warm.running()


def _counters():
    from torch._dynamo.utils import counters  # pylint: disable=import-outside-toplevel
    return dict(counters["inductor"]), dict(counters["aot_autograd"])


@pytest.mark.slow
def test_a_training_graph_compiled_by_its_child_comes_from_the_caches():
    """The child compiles a recorded call (forward and backward) into the caches; the parent's
    compilation afterwards misses none of inductor's FX graph cache, and the compiled steps
    compute what the plain graph does, Dropout's masks included."""
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x, dropout=0.5)
    a, b = _step(plain, x, 0), _step(comp, x, 0)
    graph = comp._cached_op.compiled
    assert len(graph.warming) == 1 and graph.compile_seconds == {}
    _close(b[0], a[0])
    assert graph.wait_warm(900)
    record = json.load(open(warm.record_path()))
    assert list(record.values()) == [True]
    before = _counters()[0]
    for k in range(1, 3):
        a, b = _step(plain, x, k), _step(comp, x, k)
        _close(b[0], a[0])
        for g, h in zip(b[1], a[1]):
            _close(g, h)
    after = _counters()[0]
    assert not graph._failed and len(graph.compile_seconds) == 1  # pylint: disable=protected-access
    assert after.get("fxgraph_cache_miss", 0) == before.get("fxgraph_cache_miss", 0)
    assert after.get("fxgraph_cache_hit", 0) >= before.get("fxgraph_cache_hit", 0) + 2  # forward and backward
    for p, q in zip(plain.collect_params().values(), comp.collect_params().values()):
        _close(q.data().asnumpy(), p.data().asnumpy())  # BatchNorm's running statistics too


@pytest.mark.slow
def test_a_prediction_loads_the_package_its_child_built(monkeypatch):
    """A prediction's child builds its AOTInductor package; the parent loads it and exports nothing."""
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    x = nd.random.uniform(shape=(2, 3, 8, 8))
    plain, comp = _pair(x)
    expect = plain(x).asnumpy()
    for _ in range(2):
        _close(comp(x).asnumpy(), expect)
    graph = comp._cached_op.compiled
    assert len(graph.warming) == 1
    assert graph.wait_warm(900)
    monkeypatch.setattr(inductor, "_export_package", lambda *a, **k: pytest.fail("the parent compiled the package"))
    for _ in range(2):
        _close(comp(x).asnumpy(), expect)
    frozen = graph._fns[next(iter(graph.compile_seconds))]  # pylint: disable=protected-access
    assert frozen.package is not None and os.path.exists(frozen.package)


_PARENT = textwrap.dedent("""
    import os, signal, sys
    import neogluon as mx
    from neogluon import nd
    from neogluon.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(3))
    net.initialize()
    net.hybridize(static_alloc=True, static_shape=True)
    x = nd.ones((2, 4))
    net(x); net(x)  # the second call starts the child
    graph = net._cached_op.compiled
    assert graph.warming, "no child"
    from neogluon.executor import warm
    print(warm._RUNNING[0].proc.pid, warm._RUNNING[0].folder, flush=True)
    if sys.argv[1] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
""")


def _gone(pid, timeout=60.0):
    """Whether process ``pid`` has ended within ``timeout`` seconds (polled; a bound, not a measurement)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie still answers kill(0): it has ended
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("how", ["exit", "kill"])
def test_the_child_ends_with_its_parent(how, tmp_path):
    """A parent that exits terminates its running child; one killed outright (no exit
    handlers) leaves a child that notices within seconds and exits."""
    env = dict(os.environ, NEOGLUON_COMPILE="1", NEOGLUON_COMPILE_BACKGROUND="1",
               TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", _PARENT, how], env=env, capture_output=True, text=True,
                          check=False, timeout=600)
    assert done.returncode == (-signal.SIGKILL if how == "kill" else 0), done.stderr[-2000:]
    pid, folder = done.stdout.split()[:2]
    assert _gone(int(pid))
    assert os.path.isabs(folder) and not os.path.exists(folder)  # its inputs removed


def test_a_forked_process_leaves_its_parents_children_alone():
    """A forked process (a DataLoader worker) inherits the list of running children: it
    neither waits for them nor terminates them at exit."""
    job = _FakeJob()
    job.owner = -1  # another process's
    job.terminate = lambda: pytest.fail("terminated")
    warm._RUNNING.append(job)  # pylint: disable=protected-access
    try:
        warm._terminate_all()  # pylint: disable=protected-access
        assert not warm.running() and job not in warm._RUNNING  # pylint: disable=protected-access
    finally:
        if job in warm._RUNNING:  # pylint: disable=protected-access
            warm._RUNNING.remove(job)  # pylint: disable=protected-access


class _Detector(gluon.HybridBlock):
    """A convolution, then box_nms, whose output sizes depend on the data: torch.export fails."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(4, 3, padding=1)
            self.dense = nn.Dense(24)

    def hybrid_forward(self, F, x):  # pylint: disable=arguments-differ
        boxes = self.dense(self.conv(x)).reshape((0, 4, 6))
        return F.contrib.box_nms(boxes, overlap_thresh=0.5, coord_start=2, score_index=1, id_index=0)


@pytest.mark.slow
def test_a_graph_without_a_package_gets_its_unfrozen_function_from_the_child(monkeypatch):
    """box_nms cannot be exported: the package child compiles the unfrozen function instead and
    says so; the parent serves that function from the caches and freezes nothing."""
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    x = nd.random.uniform(shape=(2, 3, 4, 4))
    plain, comp = _pair(x, make=_Detector)
    expect = plain(x).asnumpy()
    comp(x)
    comp(x)
    graph = comp._cached_op.compiled
    assert graph.wait_warm(900)
    monkeypatch.setattr(inductor, "_export_package", lambda *a, **k: pytest.fail("exported in the call"))
    monkeypatch.setattr(inductor._Frozen, "_freeze", lambda self, data: pytest.fail("frozen in the call"))
    before = _counters()[0]
    for _ in range(2):
        _close(comp(x).asnumpy(), expect)
    after = _counters()[0]
    frozen = graph._fns[next(iter(graph.compile_seconds))]  # pylint: disable=protected-access
    assert frozen.unpackaged and frozen.unfrozen_ready and not graph._failed  # pylint: disable=protected-access
    assert after.get("fxgraph_cache_miss", 0) == before.get("fxgraph_cache_miss", 0)
