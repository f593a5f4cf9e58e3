"""A compiled backend for hybridized graphs: the straight-line graph through ``torch.compile``.

MXNet 1.9.1 lets ``hybridize(static_alloc=True, static_shape=True)`` and
``hybridize(backend='MKLDNN')`` (``optimize_for(x, backend=...)``) run a graph with fused,
preallocated kernels (oneDNN subgraphs, static memory plans). neogluon does the same with
torch's graph compiler: the function :class:`~neogluon.executor.CompiledGraph` generates for
each mode (plain Python over the operators' kernels) is handed to ``torch.compile`` (inductor).

- **Modes.** One compiled function per mode: prediction without autograd (compiled with
  inductor's weight *freezing*: the parameters become constants, conv+BatchNorm folding and
  weight prepacking apply), training without autograd, and recorded calls (forward and
  backward through torch autograd, AOTAutograd: the gradients reach the Parameters' own leaf
  tensors, so ``backward`` fills their grads exactly as the plain graph does; BatchNorm's
  running statistics are updated in place once per call).
- **Shapes.** A mode is compiled for the first input shapes it sees; other shapes run the
  plain straight-line graph (no recompilation per shape), unless ``static_shape=True``
  promised few shapes: then each new shape is compiled, up to :data:`MAX_SHAPES`.
- **Freezing** folds the weights' values into the compiled code, so a frozen function is
  used only while the parameters are the tensors it was compiled with, unchanged (their
  version counters); once a parameter changes (a training step), prediction goes on with
  an unfrozen compiled function (the weights as inputs).
- **Calibration.** For a small graph (the tutorial's LeNet at batch 1) the compiled code
  is slower than the plain graph: torch.compile's guards and runtime wrappers cost more
  than the Python it removes, and inductor's prepacked oneDNN convolutions lose to aten's
  at tiny sizes. So a prediction function, once compiled and warm, is timed against the
  plain graph on the same inputs (:data:`CALIBRATION_CALLS` alternating calls each, best
  call of each, by the process's CPU time, which other processes on a shared machine do
  not disturb; prediction has no side effects) and the faster one serves that shape from
  then on (``choices`` records it). Training functions are calibrated the same way, each
  trial a forward and (when recording) a ``torch.autograd.grad`` of the outputs' sum
  (which fills no Parameter's gradient); the auxiliary states the trials moved (BatchNorm's
  running statistics) and torch's random state (Dropout) are restored afterwards, so the
  call's results are those of one call. ``NEOGLUON_COMPILE_CALIBRATE=0`` keeps the
  compiled function without timing.
- **Dropout** keeps torch's eager random stream (inductor's ``fallback_random``), so the
  compiled graph draws the same masks as the plain one.
- **Disk cache.** Compiled code is cached across processes by inductor's FX graph cache in
  :func:`cache_dir` (``$TORCHINDUCTOR_CACHE_DIR`` when set, else ``$MXNET_HOME/inductor``,
  else ``~/.cache/neogluon/inductor``). ``compile_seconds`` records each first call's time.
  A new process also pays inductor's CPU vector-ISA probe (it compiles a test kernel per
  ISA and loads it in a child Python, about ten child processes: a third of ResNet-18's
  cached start on a loaded machine); :func:`vec_isa_probe` records its result in the cache
  directory, keyed by torch version, compiler and CPU flags, and a later process whose
  probe all passed tells inductor so (``torch._inductor.config.cpp.vec_isa_ok``) instead
  of probing again (the process that probed sets it too once all passed: the setting is
  part of the FX graph cache's key). ``TORCHINDUCTOR_VEC_ISA_OK`` set by the user wins.
- **Off switch.** ``NEOGLUON_COMPILE=0`` runs the plain graph whatever the options.
- **Failure.** If inductor cannot compile (no C++ compiler, an unsupported kernel), a
  warning is given once and the plain graph runs; a user's error (wrong shapes) is raised
  by the plain graph, naming the node, as without the backend.

Op hooks (``register_op_hook``) run the graph node by node as before, and ``export`` writes
the MXNet graph, never the compiled code.
"""
import json
import os
import platform
import time
import types
import warnings

import torch

__all__ = ["BACKENDS", "CALIBRATION_CALLS", "MAX_SHAPES", "InductorGraph", "cache_dir", "vec_isa_probe", "wanted"]

# hybridize(backend=...) names selecting the compiled CPU path (MXNet's oneDNN backend names too)
BACKENDS = ("inductor", "MKLDNN", "ONEDNN")
MAX_SHAPES = 8
CALIBRATION_CALLS = 5
_clock = time.process_time  # the calibration's clock (tests replace it): CPU time, not disturbed by other processes
_ISA_DONE = []  # vec_isa_probe ran in this process
_OPTIONS = {"fallback_random": True}


def cache_dir():
    """The directory of inductor's on-disk cache used by neogluon."""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env:
        return env
    home = os.environ.get("MXNET_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "neogluon")
    return os.path.join(home, "inductor")


def _isa_key():
    """What the vector-ISA probe's result depends on: torch, the C++ compiler, the CPU."""
    from torch._inductor import cpu_vec_isa
    flags = sorted(cpu_vec_isa.x86_isa_checker()) if platform.machine() in ("x86_64", "AMD64") else []
    return "|".join([torch.__version__, os.environ.get("CXX", ""), platform.machine(), ",".join(flags)])


def _probe_all():
    """Run inductor's probe; whether every ISA the CPU reports passed it."""
    from torch._inductor import cpu_vec_isa
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    flags = cpu_vec_isa.x86_isa_checker()
    listed = [isa for isa in cpu_vec_isa.supported_vec_isa_list if all(f in flags for f in str(isa).split())]
    return bool(listed) and len(cpu_vec_isa.valid_vec_isa_list()) == len(listed)


def vec_isa_probe():
    """Skip inductor's per-process vector-ISA probe when an earlier process recorded, in
    :func:`cache_dir`, that it all passed on this torch/compiler/CPU; else let it probe
    and record the result. Returns True when the recorded result was used."""
    try:
        from torch._inductor import config
        if config.cpp.vec_isa_ok is not None:  # the user's TORCHINDUCTOR_VEC_ISA_OK
            return False
        path = os.path.join(cache_dir(), "neogluon_vec_isa.json")
        key = _isa_key()
        try:
            with open(path) as f:
                record = json.load(f)
        except (OSError, ValueError):
            record = {}
        if record.get(key) is True:
            config.cpp.vec_isa_ok = True
            return True
        ok = _probe_all()
        if ok:  # compile with the same configuration as the later processes (it is in the cache key)
            config.cpp.vec_isa_ok = True
        record[key] = ok
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.%d" % (path, os.getpid())
        with open(tmp, "w") as f:
            json.dump(record, f)
        os.replace(tmp, path)
    except Exception:  # pylint: disable=broad-except
        pass  # inductor's internals moved, or the cache is not writable: inductor probes as usual
    return False


def wanted(flags):
    """Whether hybridize's options (a dict with ``backend``, ``static_alloc``, ``static_shape``)
    ask for the compiled backend; ``NEOGLUON_COMPILE=0`` in the environment turns it off
    (the plain graph runs, as the test suite does outside the backend's own tests)."""
    if os.environ.get("NEOGLUON_COMPILE", "1") == "0":
        return False
    if flags.get("backend") in BACKENDS:
        return True
    return bool(flags.get("static_alloc") and flags.get("static_shape"))


class InductorGraph:
    """A :class:`CompiledGraph` whose modes run through ``torch.compile``, with the same call
    interface (``graph(tensors, is_train)``); every other attribute is the plain graph's.

    ``is_param`` marks, in the graph's input order, the inputs that are Parameters (frozen
    in prediction); ``static_shape`` lets each new input shape be compiled."""

    def __init__(self, graph, is_param, static_shape=False):
        self.graph = graph
        self.is_param = list(is_param)
        self.data_index = [k for k, p in enumerate(self.is_param) if not p]
        self.static_shape = bool(static_shape)
        self.compile_seconds = {}  # (mode, shapes) -> seconds of the first (compiling) call
        self.choices = {}  # (mode, shapes) -> "compiled" or "plain", for calibrated prediction functions
        self._fns = {}  # (mode, shapes) -> callable(tensors) or None (plain graph)
        self._modes = {}  # mode -> number of shapes compiled
        self._failed = False
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", cache_dir())

    def __getattr__(self, name):
        return getattr(self.graph, name)

    def __call__(self, tensors, is_train=False):
        if self._failed:
            return self.graph(tensors, is_train)
        mode = (is_train, torch.is_grad_enabled())
        key = (mode, tuple((tensors[k].shape, tensors[k].dtype) for k in self.data_index))
        fn = self._fns.get(key, False)
        if fn is False:
            fn = self._new(key, mode, tensors)
        if fn is None:
            return self.graph(tensors, is_train)
        first = key not in self.compile_seconds
        start = time.perf_counter()
        try:
            if first:
                with warnings.catch_warnings():
                    # the kernels' shape plans (Reshape's infer_reshape, ...) are lru_cached pure
                    # functions of shapes: dynamo tracing through the cache is exactly right
                    warnings.filterwarnings("ignore", message="Dynamo detected a call to a `functools.lru_cache`")
                    out = fn(tensors)
            else:
                out = fn(tensors)
        except Exception as e:  # pylint: disable=broad-except
            if first:  # forget the attempt: a user's error (below) must not use up the mode's compilation
                del self._fns[key]
                self._modes[mode] -= 1
            out = self.graph(tensors, is_train)  # a user's error is raised here, as without the backend
            self._fail(e)
            return out
        if first:
            self.compile_seconds[key] = time.perf_counter() - start
        return out

    def _new(self, key, mode, tensors):
        count = self._modes.get(mode, 0)
        if count and (not self.static_shape or count >= MAX_SHAPES):
            fn = None  # a new shape: the plain graph, no recompilation
        else:
            self._modes[mode] = count + 1
            fn = self._compile(mode, tensors)
        self._fns[key] = fn
        return fn

    def _compile(self, mode, tensors):
        is_train, grad = mode
        if not _ISA_DONE:
            _ISA_DONE.append(vec_isa_probe())
        plain = self.graph.fn(is_train, tensors)
        compiled = torch.compile(plain, dynamic=False, options=dict(_OPTIONS))
        calibrate = os.environ.get("NEOGLUON_COMPILE_CALIBRATE", "1") != "0"
        key = (mode, tuple((tensors[k].shape, tensors[k].dtype) for k in self.data_index))
        chosen = (lambda choice: self.choices.__setitem__(key, choice)) if calibrate else None
        if is_train or grad:
            aux = set(self.graph.aux_names)
            return _Trained(plain, compiled, [k for k, n in enumerate(self.graph.input_names) if n in aux], chosen)
        return _Frozen(plain, compiled, tensors, self.is_param, chosen)

    def _fail(self, err):
        self._failed = True
        warnings.warn("the compiled (inductor) backend could not run this graph, the plain graph runs instead: %s"
                      % str(err).split("\n")[0])


def _time_both(plain, compiled, trial):
    """The best of :data:`CALIBRATION_CALLS` alternating ``trial(fn)`` calls for each; the
    last compiled result."""
    best = {"compiled": float("inf"), "plain": float("inf")}
    out = None
    for _ in range(CALIBRATION_CALLS):
        for name, f in (("plain", plain), ("compiled", compiled)):
            start = _clock()
            out = trial(f)
            best[name] = min(best[name], _clock() - start)
    return best["plain"] < best["compiled"], out


class _Trained:
    """A training-mode compiled function, calibrated once against the plain graph (see the
    module's docstring) at its second call."""

    def __init__(self, plain, compiled, aux_index, chosen):
        self.plain, self.compiled, self.aux_index, self.chosen = plain, compiled, aux_index, chosen
        self.calls = 0
        self.use_plain = False

    def __call__(self, tensors):
        if self.use_plain:
            return self.plain(*tensors)
        self.calls += 1
        if self.calls == 2 and self.chosen is not None:
            self._calibrate(tensors)
            if self.use_plain:
                return self.plain(*tensors)
        return self.compiled(*tensors)

    def _calibrate(self, tensors):
        saved = [(tensors[k], tensors[k].detach().clone()) for k in self.aux_index]
        rng = torch.get_rng_state()
        leaves = [t for t in tensors if t.requires_grad]

        def trial(fn):
            outs = [o for o in fn(*tensors) if o.requires_grad]
            if outs and leaves:
                torch.autograd.grad(sum(o.sum() for o in outs), leaves, allow_unused=True)
        try:
            self.use_plain, _ = _time_both(lambda *ts: self.plain(*ts), lambda *ts: self.compiled(*ts), trial)
        finally:
            with torch.no_grad():
                for t, value in saved:
                    t.copy_(value)
            torch.set_rng_state(rng)
        self.chosen("plain" if self.use_plain else "compiled")


class _Frozen:
    """Prediction with the parameters frozen into the compiled code, while they are the
    tensors it was compiled with and unchanged; else the unfrozen compiled function."""

    def __init__(self, plain, unfrozen, tensors, is_param, chosen=None):
        self.plain = plain
        self.calls = 0
        self.use_plain = False
        self.chosen = chosen  # None: no calibration; else called with the choice once made
        self.unfrozen = unfrozen
        self.param_index = [k for k, p in enumerate(is_param) if p]
        self.data_index = [k for k, p in enumerate(is_param) if not p]
        self.params = [tensors[k] for k in self.param_index]
        self.versions = [t._version for t in self.params]  # pylint: disable=protected-access
        self.module = _ParamModule(plain, self.params, is_param)
        self.frozen = torch.compile(self.module.entry, dynamic=False, options=dict(_OPTIONS, freezing=True))

    def valid(self, tensors):
        return all(tensors[k] is b and b._version == v  # pylint: disable=protected-access
                   for k, b, v in zip(self.param_index, self.params, self.versions))

    def __call__(self, tensors):
        fn = self._compiled(tensors)
        if self.use_plain:
            return self.plain(*tensors)
        self.calls += 1
        if self.calls == 2 and self.chosen is not None:  # compiled and warm: is it worth it?
            return self._calibrate(fn, tensors)
        return fn()

    def _compiled(self, tensors):
        """The compiled function to use, bound to its arguments."""
        if self.frozen is not None:
            if self.valid(tensors):
                data = [tensors[k] for k in self.data_index]
                return lambda: self.frozen(*data)
            self.frozen = self.module = self.params = None  # the weights moved on: stop freezing
        return lambda: self.unfrozen(*tensors)

    def _calibrate(self, fn, tensors):
        """Time the compiled function against the plain graph, alternately; keep the faster."""
        self.use_plain, out = _time_both(lambda: self.plain(*tensors), fn, lambda f: f())
        self.chosen("plain" if self.use_plain else "compiled")
        return out


class _ParamModule(torch.nn.Module):
    """The graph's Parameter inputs as the parameters of a module (sharing their memory),
    which is what inductor's freezing folds, and ``entry(*data)``: a plain function, generated
    for this graph, running the graph on the module's parameters and the data.

    ``entry`` is a function of its own code object, not a bound method: torch.compile wraps a
    method whose source it cannot find (this generated one) in a helper whose code object
    all such methods share, so every frozen graph of the process would share one dynamo
    cache and its recompile limit (8): the ninth graph ran uncompiled, and each call
    checked the guards of the others."""

    def __init__(self, fn, params, is_param):
        super().__init__()
        for k, t in enumerate(params):
            self.register_parameter("p%d" % k, torch.nn.Parameter(t.detach(), requires_grad=False))
        data, args, k_param = [], [], 0
        for p in is_param:
            if p:
                args.append("_m.p%d" % k_param)
                k_param += 1
            else:
                data.append("d%d" % len(data))
                args.append(data[-1])
        src = "def frozen_graph(%s):\n    return _fn(%s)\n" % (", ".join(data), ", ".join(args))
        scope = {"_m": self, "_fn": fn}
        exec(compile(src, "<neogluon.executor.inductor frozen graph>", "exec"), scope)  # pylint: disable=exec-used
        self.entry = scope["frozen_graph"]
