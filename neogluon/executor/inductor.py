"""A compiled backend for hybridized graphs: the straight-line graph through ``torch.compile``.

MXNet 1.9.1 lets ``hybridize(static_alloc=True, static_shape=True)`` and
``hybridize(backend='MKLDNN')`` (``optimize_for(x, backend=...)``) run a graph with fused,
preallocated kernels (oneDNN subgraphs, static memory plans). neogluon does the same with
torch's graph compiler: the function :class:`~neogluon.executor.CompiledGraph` generates for
each mode (plain Python over the operators' kernels) is handed to ``torch.compile`` (inductor).

- **Modes.** One compiled function per mode: prediction without autograd (compiled with
  inductor's weight *freezing*: the parameters become constants of the compiled code, so
  conv+BatchNorm folding, oneDNN weight prepacking (``mkldnn._convolution_pointwise`` with
  fused ReLU / residual add) and constant folding apply; the graph is given to inductor
  without fold.py's folding, which inductor does itself; a small graph's matrix products
  autotuned between aten's and inductor's C++ GEMM with the weights packed into the code
  (``AUTOTUNE_PARAMS``), and tiny 2-d convolutions traced as im2col + a matrix product
  (``IM2COL_MACS`` in operator/conv.py): oneDNN's fixed cost per call was most of LeNet's
  time at batch 1; a graph without convolutions is compiled unfrozen, see
  :func:`freeze_options`), training without autograd, and recorded calls (forward and
  backward through torch autograd, AOTAutograd: the gradients reach the Parameters' own leaf
  tensors, so ``backward`` fills their grads exactly as the plain graph does; BatchNorm's
  running statistics are updated in place once per call). Once a recorded call's forward and
  backward are compiled, later calls run the compiled code from one autograd node
  (:class:`_JointCompiled`), without dynamo's guards and AOTAutograd's wrappers; a small
  training graph's kernels are serial and its tiny convolutions keep torch's GEMM kernel
  (operator/conv.py).
- **Shapes.** A mode is compiled for the first input shapes it sees; other shapes run the
  plain straight-line graph (no recompilation per shape), unless ``static_shape=True``
  promised few shapes: then each new shape is compiled, up to :data:`MAX_SHAPES`. A
  prediction's first call at given shapes runs the plain graph and its second compiles: a
  one-off call (GluonTS's Trainer initialising its network outside ``autograd.record()``, a
  call before ``export``, an odd last batch) compiles nothing and uses up no shape.
- **Background.** A mode's first compilation at given shapes runs in a child process
  (executor/warm.py) that fills the disk caches below while the parent's calls run the plain
  graph; once the child has exited, the next call compiles from the caches (ResNet-18: seconds
  instead of 20) and goes on as below. A frozen prediction's package (at the first freeze and
  each refreeze) and its unfrozen function (once the weights move) are built by children of
  its own the same way (:class:`_Frozen`). Where the caches are known warm, an earlier verdict was "plain", the
  tensors are not on the CPU, or with ``NEOGLUON_COMPILE_BACKGROUND=0``, the call compiles
  itself. :meth:`InductorGraph.wait_warm` waits for the children (benchmarks, tests).
- **Freezing** folds the weights' values into the compiled code, so a frozen function is
  used only while the parameters are the tensors it was compiled with, unchanged (their
  version counters); once a parameter changes (a training step), prediction goes on with
  an unfrozen compiled function (the weights as inputs), and once the parameters have
  stayed unchanged for :data:`REFREEZE_CALLS` prediction calls they are frozen again
  (from the package cache when it has these weights, else compiled anew); each time frozen
  weights move on, the next freeze waits :data:`REFREEZE_BACKOFF` times longer (a training
  loop that validates every epoch freezes a few times a run, not once an epoch). Note: dynamo
  lifts a module's parameters as constants only when inductor's *global* ``freezing``
  flag is on while it traces; ``torch.compile(options={"freezing": True})`` alone left
  them graph inputs (nothing was prepacked).
- **Packages.** On the CPU, a frozen prediction graph is exported (``torch.export``) and
  compiled by AOTInductor into a ``.pt2`` package (a shared library with the prepacked
  weights) stored in ``<cache_dir>/packages/<key>.pt2``, keyed by :func:`package_key`
  (graph, shapes, weight values, torch, CPU, neogluon's sources). A new process with the
  same network and weights loads it instead of compiling (ResNet-18: about half a second,
  dynamo and inductor are not even imported); a package whose SHA-256 does not match its
  record, or that does not load, is reported by a warning naming the file and rebuilt.
  Inductor's own FX graph cache cannot store frozen graphs (their prepacked oneDNN weights
  are "unpickleable"), so without packages every new process compiled anew.
  ``NEOGLUON_COMPILE_PACKAGE=0`` (or a graph that cannot be exported) uses torch.compile's
  freezing instead. A package holds a copy of the weights (ResNet-18: 48 MB).
- **Winograd** (``NEOGLUON_WINOGRAD=1``; off by default: it pays on one thread only, see
  operator/winograd.py). Before a frozen graph is packaged, it runs once eagerly to note its
  3x3 stride-1 convolutions; each shape gets the faster of oneDNN's direct convolution and
  Winograd's F(2x2,3x3)/F(4x4,3x3) at the intra-op thread count of the call that freezes
  (timed once per count, recorded in ``<cache_dir>/neogluon_winograd.json``), and the graph
  is exported with those choices (part of the package's key).
- **Calibration.** For a small graph (the tutorial's LeNet at batch 1) the compiled code
  is slower than the plain graph: torch.compile's guards and runtime wrappers cost more
  than the Python it removes, and inductor's prepacked oneDNN convolutions lose to aten's
  at tiny sizes. So a prediction function, once compiled and warm, is timed against the
  plain graph on the same inputs (:data:`CALIBRATION_CALLS` alternating calls each, best
  call of each, by the process's CPU time on one thread, which other processes on a shared
  machine do not disturb, and by the wall clock on more (:func:`_clock`); prediction has no
  side effects) and the faster one serves that shape from
  then on (``choices`` records it). The verdict is recorded in the cache directory, so a
  new process with the same graph, shapes and settings takes it without timing again
  (:class:`_Choice`, :func:`calibration_key`). Training functions are calibrated the same
  way, each trial a forward and (when recording) a ``torch.autograd.grad`` of the outputs' sum
  (which fills no Parameter's gradient); the auxiliary states the trials moved (BatchNorm's
  running statistics) and torch's random state (Dropout) are restored afterwards, so the
  call's results are those of one call. ``NEOGLUON_COMPILE_CALIBRATE=0`` keeps the
  compiled function without timing.
- **Dropout** keeps torch's eager random stream (inductor's ``fallback_random``), so the
  compiled graph draws the same masks as the plain one.
- **Disk cache.** Compiled code is cached across processes by inductor's FX graph cache and,
  for graphs with autograd, AOTAutograd's cache above it (a new process neither traces the
  joint graph nor partitions it: :func:`_from_autograd_cache`) in :func:`cache_dir`
  (``$TORCHINDUCTOR_CACHE_DIR`` when set, else ``$MXNET_HOME/inductor``, else
  ``~/.cache/neogluon/inductor``). ``compile_seconds`` records each first call's time.
  ResNet-18 b1's first training step (one thread, 2026-12-07, load 1-4): about 20 s with an
  empty cache; in a new process with the cache 10.1-11.2 s before the cache hits were
  mended (the package build had changed the FX graph cache's key, AOTAutograd's cache was
  off), 4.6-4.8 s with the FX graph cache's hits, 2.1-2.6 s with AOTAutograd's too (about
  half of it dynamo's tracing of the graph function, a quarter importing inductor's compiler).
  BERT b8's: 4.6-4.8 s before, 1.4-1.8 s.
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
import contextlib
import hashlib
import io
import json
import logging
import os
import platform
import re
import threading
import time
import types
import warnings

import torch

from ..fileio import file_digest, read_record, write_record
from ..operator import detection, indexing, rnn, winograd
from . import warm
from ..operator.nn import FLOAT_MASK_RELU

__all__ = ["AUTOTUNE_PARAMS", "BACKENDS", "CALIBRATION_CALLS", "MAX_SHAPES", "REFREEZE_BACKOFF", "REFREEZE_CALLS",
           "InductorGraph", "cache_dir", "calibration_key", "frozen_package", "package_key", "vec_isa_probe", "wanted"]

# hybridize(backend=...) names selecting the compiled CPU path (MXNet's oneDNN backend names too)
BACKENDS = ("inductor", "MKLDNN", "ONEDNN")
MAX_SHAPES = 8
CALIBRATION_CALLS = 5
REFREEZE_CALLS = 20  # unchanged weights for this many prediction calls: frozen again
# ... times this for each time frozen weights then moved on: a training loop that validates
# every epoch (GluonTS's Trainer with validation_data, which hybridizes static_alloc and
# static_shape) froze, and built a package with a copy of the weights, once an epoch; now
# after 20, 200, 2000 ... stable calls, so a few times a run, and a model served after
# training is still frozen
REFREEZE_BACKOFF = 10


def _clock():
    """The calibration's clock (tests replace it): on one intra-op thread the process's CPU
    time, which other processes on a shared machine do not disturb; on more the wall clock.
    CPU time then counts every thread's work and OpenMP's waiting, so it favoured serial code
    over parallel code that finishes sooner: LeNet b16's compiled training step (serial
    kernels, _SMALL_POOLING) won the calibration at two threads and ran 2.01 ms a step against
    the plain graph's 1.58 (bench_workloads.py, idle, 2026-12-07 10:35 UTC)."""
    return time.process_time() if torch.get_num_threads() == 1 else time.perf_counter()


_ISA_DONE = []  # vec_isa_probe ran in this process
_OPTIONS = {"fallback_random": True}
# Graphs whose parameters are inputs (training, recorded calls, unfrozen prediction): no
# layout optimization. With it, inductor runs a graph with convolutions in channels-last and
# so converts every convolution weight to channels-last in the forward and every weight
# gradient back in the backward, on each call: for ResNet-18 at batch 1, 2 x 47 MB of copies
# (into fresh memory, page faults included) took 30-45 ms of a 150-190 ms training step
# (one thread, CPU time), more than its channels-last activations saved, and the compiled
# step lost to the plain graph; without it, 150 ms (benchmarks/bench_train_step.py).
_UNFROZEN = {"layout_optimization": False}
_LOG = logging.getLogger(__name__)


def cache_dir():
    """The directory of inductor's on-disk cache used by neogluon: ``$TORCHINDUCTOR_CACHE_DIR``
    when the user set it, else ``$MXNET_HOME/inductor``, else ``~/.cache/neogluon/inductor``.
    Importing ``torch._dynamo`` sets ``TORCHINDUCTOR_CACHE_DIR`` to torch's default
    (``/tmp/torchinductor_<user>``) when it is unset, and shape inference imports it (the meta
    kernels of ``torch._refs``): that value is taken as unset. (Before, GluonTS's networks
    compiled into /tmp, which a reboot empties, with their calibration verdicts.)"""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env and os.path.abspath(env) != _torch_default_cache_dir():
        return env
    home = os.environ.get("MXNET_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "neogluon")
    return os.path.join(home, "inductor")


def _torch_default_cache_dir():
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir  # pylint: disable=import-outside-toplevel
    return os.path.abspath(default_cache_dir())


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
        record = read_record(path)
        if record.get(key) is True:
            config.cpp.vec_isa_ok = True
            return True
        ok = _probe_all()
        if ok:  # compile with the same configuration as the later processes (it is in the cache key)
            config.cpp.vec_isa_ok = True
        record[key] = ok
        write_record(path, record)
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
        self._once = set()  # prediction keys called once (compiled at their second call)
        # key -> the warm.Job compiling it in a child process (its shape counted in _modes), or
        # None where this process compiles it itself (decided once)
        self._jobs = {}
        self._counted = set()  # keys whose shape was counted in _modes when their child started
        # compiled training-mode calls so far that updated auxiliary states (BatchNorm's running
        # statistics) in place: they do not move the tensors' version counters (AOTAutograd keeps
        # the mutation inside the graph, and moving them would fail the saved-tensor checks of
        # backward), so frozen prediction reads this count as well (:meth:`_Frozen.valid`)
        self.aux_updates = [0]
        self._failed = False
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir()  # (the user's, or neogluon's instead of torch's default)

    def __getattr__(self, name):
        return getattr(self.graph, name)

    def __call__(self, tensors, is_train=False):
        if self._failed:
            return self.graph(tensors, is_train)
        mode = (is_train, torch.is_grad_enabled())
        key = (mode, tuple((tensors[k].shape, tensors[k].dtype) for k in self.data_index))
        fn = self._fns.get(key, False)
        if fn is False:
            if mode == (False, False) and key not in self._once:
                # a prediction's first call at these shapes runs the plain graph; it compiles at the
                # second: a one-off call (GluonTS's Trainer initialising its network, a call before
                # export(), an odd last batch) neither compiles nor uses up a shape
                self._once.add(key)
                return self.graph(tensors, is_train)
            if self._warming(key, mode, tensors):
                return self.graph(tensors, is_train)  # a child process compiles (warm.py)
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
                    warnings.filterwarnings("ignore", message="TypedStorage is deprecated")  # inductor's autotuner
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
        if first and not getattr(fn, "waiting", False):  # (a prediction waiting for its child compiled nothing)
            self.compile_seconds[key] = time.perf_counter() - start
        return out

    def _may_compile(self, mode):
        """Whether another shape of ``mode`` may be compiled (see the module's docstring)."""
        count = self._modes.get(mode, 0)
        return not count or (self.static_shape and count < MAX_SHAPES)

    def _new(self, key, mode, tensors):
        if key in self._counted:  # its shape was counted when its child started
            self._counted.discard(key)
            fn = self._compile(mode, tensors)
        elif not self._may_compile(mode):
            fn = None  # a new shape: the plain graph, no recompilation
        else:
            self._modes[mode] = self._modes.get(mode, 0) + 1
            fn = self._compile(mode, tensors)
        self._fns[key] = fn
        return fn

    def _warming(self, key, mode, tensors):
        """Whether the first compilation for ``key`` is (still) left to a child process, which
        fills the disk caches while the plain graph serves (executor/warm.py); starts the child
        when none runs and the caches are not known warm. False once the child has exited
        (the caller then compiles, from the caches), or where this process compiles itself."""
        if key in self._jobs:
            job = self._jobs[key]
            return job is not None and job.poll()
        if mode == (False, False) or not self._may_compile(mode) or not warm.enabled(tensors):
            return False  # (a frozen prediction's package is built by a child of its own: _Frozen)
        if self._plain_recorded(mode, tensors) or warm.is_warm(warm.warm_key(self.graph.symbol, mode, tensors,
                                                                            self.is_param)):
            self._jobs[key] = None  # asked once: compiled here
            return False
        if warm.running():
            return True  # one child at a time: the plain graph until it is this key's turn
        job = warm.start(self.graph.symbol, mode, tensors, self.is_param, self.static_shape)
        if job is None:
            self._jobs[key] = None
            return False
        self._jobs[key] = job
        self._modes[mode] = self._modes.get(mode, 0) + 1
        self._counted.add(key)
        return True

    def _plain_recorded(self, mode, tensors):
        """Whether an earlier process recorded the verdict "plain" for this call (then nothing
        is compiled: :class:`_Trained`, :class:`_Frozen`)."""
        if os.environ.get("NEOGLUON_COMPILE_CALIBRATE", "1") == "0":
            return False
        return read_record(_verdicts_path()).get(calibration_key(self.graph.symbol, mode, tensors,
                                                                 self.is_param)) == "plain"

    def _children(self):
        """``(key, job)`` of this graph's children: first compilations, frozen predictions' packages."""
        jobs = [(key, job) for key, job in self._jobs.items() if job]
        jobs += [(key, fn.job) for key, fn in self._fns.items() if isinstance(fn, _Frozen) and fn.job]
        return jobs

    @property
    def warming(self):
        """The (mode, shapes) keys whose caches a child process is filling now."""
        return [key for key, job in self._children() if job.poll()]

    def wait_warm(self, timeout=None):
        """Wait until no child process warms the caches for this graph (at most ``timeout``
        seconds); whether none does. The next call at each such key compiles from the caches."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for _, job in self._children():
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not job.wait(left):
                return False
        return True

    def _compile(self, mode, tensors):
        is_train, grad = mode
        plain = self.graph.fn(is_train, tensors)
        # inductor folds BatchNorm itself (fold.py's Python-side cache of folded weights would
        # be a side effect of the traced code, and guarded on)
        unfolded = self.graph.fn(is_train, tensors, fold=False)
        options = _UNFROZEN
        params = [t for t, p in zip(tensors, self.is_param) if p]
        small = (is_train or grad) and sum(t.numel() for t in params) <= AUTOTUNE_PARAMS
        pooling = False
        if small:  # serial kernels (see _SMALL); with pooling, channels-last (_SMALL_POOLING)
            pooling = "Pooling" in _graph_ops(self.graph.symbol)
            options = dict(_UNFROZEN, **(_SMALL_POOLING if pooling else _SERIAL))
        # ReLU's float-mask backward where it was measured to pay (_SMALL_POOLING): its Function
        # makes AOTAutograd's disk cache bypass the graph (_from_autograd_cache), which a large
        # graph's start in a new process needs and a small graph's hardly
        compiled = _JointCompiled(unfolded, options, float_mask=pooling) if grad else _lazy_compile(unfolded, options)
        calibrate = os.environ.get("NEOGLUON_COMPILE_CALIBRATE", "1") != "0"
        key = (mode, tuple((tensors[k].shape, tensors[k].dtype) for k in self.data_index))
        chosen = _Choice(self.choices, key, lambda ts: calibration_key(self.graph.symbol, mode, ts, self.is_param)) \
            if calibrate else None
        if is_train or grad:
            aux = set(self.graph.aux_names) if is_train else set()  # updated only in training mode
            return _Trained(plain, compiled, [k for k, n in enumerate(self.graph.input_names) if n in aux], chosen,
                            self.aux_updates)
        return _Frozen(plain, compiled, tensors, self.is_param, chosen, unfolded, self.graph.symbol,
                       self.aux_updates)

    def _fail(self, err):
        self._failed = True
        warnings.warn("the compiled (inductor) backend could not run this graph, the plain graph runs instead: %s"
                      % str(err).split("\n")[0])


def _prepare():
    """Before inductor compiles for the first time in the process: :func:`vec_isa_probe`, and
    the RNN operator's fused kernel, NMS and the gather_nd bounds check made opaque to dynamo
    (operator/rnn.py, operator/detection.py, operator/indexing.py)."""
    _probe_once()
    rnn.prepare_compiled()
    detection.prepare_compiled()
    indexing.prepare_compiled()


def _probe_once():
    """:func:`vec_isa_probe`, once per process."""
    if not _ISA_DONE:
        _ISA_DONE.append(vec_isa_probe())


# Inductor's C++ kernels run ``omp parallel num_threads(N)`` with N the thread count when
# they were compiled, unless ``cpp.dynamic_threads``: then they use the count of each call.
# neogluon's count adapts to the load (threads.py), so with N fixed a graph compiled while
# the machine was busy stayed serial in every later process (the disk cache serves it), and
# one compiled idle kept two threads in its own kernels when the policy had dropped to one.
# Small graphs are compiled serial instead (:data:`_SMALL`).
_DYNAMIC_THREADS = {"cpp.dynamic_threads": True}


def _with_passes(options):
    """``options`` with the kernels' thread count read at run time (unless ``options`` fix it)
    and neogluon's own inductor pass (executor/unfuse_bias.py)."""
    from .unfuse_bias import UnfuseBias  # pylint: disable=import-outside-toplevel
    return dict(_DYNAMIC_THREADS, **options, post_grad_custom_post_pass=UnfuseBias())


# Dynamo guards every compiled function on torch's global state (GlobalStateGuard: grad mode,
# autocast, deterministic algorithms, default dtype, torch-function state, ... and the number
# of intra-op threads), so each change of the adaptive count (neogluon/threads.py) recompiled
# every function on this path once for the new count ("GLOBAL_STATE changed: num_threads"; about
# 1 s each for BERT with a warm cache). The count does not change what our graphs compute:
# inductor's loops read the count at run time (``cpp.dynamic_threads``, and a kernel generated
# at one thread still gets one parallel scope that OpenMP runs on the threads of the call) or
# are serial (``_SERIAL``), aten's kernels read it at run time, and inductor's FX graph cache
# leaves it out of its key under ``cpp.dynamic_threads`` (the recompilation mostly re-traced to
# get the same code). So :class:`_AnyThreads` drops dynamo's global-state guard
# (``guard_filter_fn``) and checks the same state itself, all of it but the thread count: a
# call under another state (grad mode, autocast, ...) gets a function compiled for it. Should a
# later torch name the guard or the mismatch differently, the guard stays or the check fails,
# and each count is compiled again, as before: never a function run under a state it was not
# traced for. Measured (2026-12-07 09:00 UTC, load 0.8-1.2, alternating processes against the
# commit before): BERT b8's training-mode call (no autograd) at a new count took 0.28-0.30 s
# (its recompilation, warm cache) and now 0.03 s, as at the old count; a call of this path costs
# no more (the MLP b4 in training mode, medians of 5 x 500 calls: 126-136 us against 136-211
# before, the state checked here being cheaper than the guard it replaces).
_ANY_STATES = 8  # global states compiled per function (dynamo's own recompile limit); then the plain function
_ONLY_THREADS = "num_threads "  # GlobalStateGuard.reason() when the thread count alone differs


def _keep_but_global_state(entries):
    """A ``guard_filter_fn``: every guard of dynamo's but the global state's."""
    return [e.guard_type != "GLOBAL_STATE" for e in entries]


class _AnyThreads:
    """``torch.compile(fn, **kwargs)`` whose calls at any intra-op thread count use the same
    compiled code (see above): one compiled function per global state but the thread count,
    each for a copy of ``fn``'s code (dynamo keeps its cache per code object)."""

    def __init__(self, fn, **kwargs):
        self.fn, self.kwargs = fn, kwargs
        self.states = []  # (the state a function is compiled for, the function)

    def __call__(self, *args):
        for state, compiled in self.states:
            if state.check() or state.reason() == _ONLY_THREADS:
                return compiled(*args)
        if len(self.states) >= _ANY_STATES:
            return self.fn(*args)
        from torch._C._dynamo.guards import GlobalStateGuard  # pylint: disable=import-outside-toplevel
        fn = self.fn
        if self.states:
            fn = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__,
                                    fn.__closure__)
        kwargs = dict(self.kwargs)
        kwargs["options"] = dict(kwargs.get("options") or {}, guard_filter_fn=_keep_but_global_state)
        compiled = torch.compile(fn, **kwargs)
        self.states.append((GlobalStateGuard(), compiled))
        return compiled(*args)


def _lazy_compile(fn, options=None):
    """``torch.compile(fn)`` with inductor ``options`` added to :data:`_OPTIONS`, made at its
    first call: a process whose prediction comes from a cached package (below) never imports
    dynamo (seconds)."""
    made = []

    def run(*args):
        if not made:
            _prepare()
            made.append(_AnyThreads(fn, dynamic=False, options=_with_passes(dict(_OPTIONS, **(options or {})))))
        return made[0](*args)
    run.fn = fn
    return run


# AOTAutograd's output kinds its runtime wrapper returns as they come (its NoopAliasHandler): a
# fresh tensor, or a view of an intermediate no other output shares, which its graph already
# hid behind ``_unsafe_view`` (a 3-d ``Dense(flatten=False)``'s product reshaped back, as in the
# LSTMCell benchmark's decoder, whose training graph took the usual path for it: 1-2% slower)
_PLAIN_OUTPUTS = ("OutputType.non_alias", "OutputType.unsafe_view_alias")


class _JointCompiled:
    """A recorded (forward + backward) function compiled by ``torch.compile`` whose compiled
    forward and backward code, once both exist, are called directly from one
    ``torch.autograd.Function`` (:class:`_JointFunction`) instead of through dynamo's frame
    evaluation and guards and AOTAutograd's runtime wrappers.

    Those wrappers cost about as much as the whole compiled computation of a small graph:
    the tutorial LeNet's training step at batch 1 (benchmarks/bench_train_step.py, one
    thread, wall clock, load 2, 2026-11-28) took 1.4 ms compiled against 0.7 ms for the plain
    graph; with the direct call (and serial kernels, and the GEMM convolutions of
    operator/conv.py) 0.78 ms, and with scalar pooling loops (:data:`_SMALL_POOLING` then) 0.61
    ms against the plain graph's 0.58 (load 1): still not faster than the plain graph, which
    calibration then keeps. The compiled code itself is unchanged: inductor compiles the graph as
    ``torch.compile`` does (``compile_fx`` with these options), and this class only keeps,
    through ``compile_fx``'s ``inner_compile`` hook, the compiled forward and backward and
    AOTAutograd's description of them, or, when AOTAutograd's own disk cache serves them (a
    new process: :func:`_from_autograd_cache`), the same from its cache entry. The direct
    call is used only for what it handles exactly as AOTAutograd's wrappers would: one
    graph (no graph break) taking tensors named after the function's arguments, no input
    mutation left to the wrappers (BatchNorm's running statistics, updated under no_grad,
    are updated by the compiled forward itself), no output aliasing an input or another
    output, every output differentiable, no saved symbolic sizes or opaque objects, no functionalized random
    numbers (Dropout draws from torch's eager stream, ``fallback_random``); and each call
    only while the inputs' dtypes, shapes, strides, devices and ``requires_grad`` are those
    it was compiled for (else the usual compiled function, which checks its guards and
    recompiles as needed, runs). As through AOTAutograd, the backward cannot itself be
    differentiated (``create_graph`` raises)."""

    def __init__(self, fn, options=None, float_mask=False):
        self.fn = fn
        self.options = options
        self.float_mask = float_mask  # its ReLUs traced with the float-mask backward (operator/nn.py relu_with)
        self._compiled = None
        # "gm": dynamo's graph; "fw"/"bw": the compiled forward/backward; "meta": AOTAutograd's
        # description of them (ViewAndMutationMeta); "saved": how many forward outputs the backward takes
        self._record = {}
        self._graphs = self._last_graphs = 0  # backend calls: in all, and in the last call that compiled
        self.mutated = []  # positions of the direct call's arguments the compiled forward updates in place
        self.direct = None  # (input index, n outputs, saved slices, guards, tangent strides) once usable; False: never

    def __call__(self, *tensors):
        direct = self.direct
        if direct:
            index, _, _, guard, _ = direct
            args = [tensors[k] for k in index]
            if all(g == (a.dtype, a.shape, a.stride(), a.device, a.requires_grad) for g, a in zip(guard, args)):
                return _JointFunction.apply(self, *args)
            return self._traced(tensors)
        if self._compiled is None:
            _prepare()
            self._compiled = _AnyThreads(self.fn, dynamic=False, backend=self._backend)
        graphs = self._graphs
        out = self._traced(tensors)
        if self._graphs != graphs:  # this call compiled: dynamo's graphs for it (one unless a graph break)
            self._last_graphs = self._graphs - graphs
        elif direct is None and "bw" in self._record:
            self.direct = self._direct(tensors, out)
        return out

    def _traced(self, tensors):
        """The compiled function's call (dynamo traces ``fn`` in it when its guards ask), with
        ReLU's float-mask backward chosen for this graph or not (dynamo guards on the choice)."""
        if not self.float_mask:
            return self._compiled(*tensors)
        saved, FLOAT_MASK_RELU[0] = FLOAT_MASK_RELU[0], True
        try:
            return self._compiled(*tensors)
        finally:
            FLOAT_MASK_RELU[0] = saved

    def _backend(self, gm, example_inputs):
        """dynamo's backend: inductor's ``compile_fx``, keeping what it compiles."""
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner  # pylint: disable=import-outside-toplevel
        from torch._functorch import config as functorch_config  # pylint: disable=import-outside-toplevel
        self._graphs += 1
        self._record.clear()  # a recompilation (a guard failed) replaces the graph the next calls run
        self._record["gm"] = gm
        record = self._record

        def inner_compile(graph, inputs, **kwargs):
            out = compile_fx_inner(graph, inputs, **kwargs)
            if kwargs.get("is_backward"):
                tangents = [n for n in graph.graph.nodes if n.op == "placeholder" and n.name.startswith("tangents")]
                record.update(bw=out, saved=len(inputs) - len(tangents))
            else:
                context = torch._guards.TracingContext.try_get()  # pylint: disable=protected-access
                record.update(fw=out, meta=getattr(context, "fw_metadata", None))
            return out
        # No donated buffers: with them inductor's backward may write a gradient into a saved
        # tensor it takes as dead (a ReLU output saved as float, operator/nn.py ``relu_with``), which
        # AOTAutograd's wrappers allow only without ``retain_graph`` (they raise otherwise) and
        # the direct call (_JointFunction) would run twice on the overwritten tensor. (AOTAutograd's
        # cache keys hold functorch's config, this setting included.)
        with _from_autograd_cache(record), functorch_config.patch(donated_buffer=False):
            return compile_fx(gm, example_inputs, inner_compile=inner_compile,
                              config_patches=_with_passes(dict(_OPTIONS, **(self.options or {}))))

    def _direct(self, tensors, out):
        """The direct call's plan, or False when the graph needs AOTAutograd's wrappers."""
        try:
            return self._plan(tensors, out) or False
        except Exception:  # pylint: disable=broad-except
            return False  # torch's internals moved: the usual compiled function serves

    def _plan(self, tensors, out):
        if self._last_graphs != 1 or any(self._record.get(k) is None for k in ("fw", "bw", "meta", "saved")):
            return None
        gm, meta = self._record["gm"], self._record["meta"]
        if not isinstance(out, tuple) or not all(isinstance(o, torch.Tensor) for o in out):
            return None
        index = []
        for node in gm.graph.nodes:
            if node.op == "placeholder":  # dynamo names the argument iK's tensor l_iK_
                match = re.fullmatch(r"l_i(\d+)_", node.name)
                if match is None:
                    return None
                index.append(int(match.group(1)))
        results = [a for a in gm.graph.find_nodes(op="output")[0].args[0]]
        if (len(results) != len(out) or len(set(results)) != len(results)
                or any(not isinstance(r, torch.fx.Node) or r.op == "placeholder" for r in results)):
            return None
        if (meta.num_mutated_inp_runtime_indices or meta.num_intermediate_bases or meta.num_outputs != len(out)
                or meta.num_outputs_aliased or meta.is_rng_op_functionalized or meta.num_symints_saved_for_bw
                or meta.num_opaque_objects_saved_for_bw or getattr(meta, "num_backward_tokens", 0)
                or meta.tokens or any(str(o.output_type) not in _PLAIN_OUTPUTS for o in meta.output_info)
                or not all(o.requires_grad for o in meta.output_info) or len(meta.input_info) != len(index)):
            return None
        # the outputs' gradients, in the strides the compiled backward was traced for (those
        # AOTAutograd's wrapper gives them): the outputs' own, for plain tensors of static shapes
        tangents = meta.subclass_tangent_meta
        if len(tangents) != len(out) or any(type(m).__name__ != "PlainTensorMeta" or m.memory_format is None
                                            or m.memory_format.stride is None for m in tangents):
            return None
        tangent_strides = [tuple(m.memory_format.stride) for m in tangents]
        n_saved = self._record["saved"]
        n_vc = n_saved - meta.num_tensors_saved_with_no_vc_check
        if n_vc < 0:
            return None
        args = [tensors[k] for k in index]
        guard = [(a.dtype, a.shape, a.stride(), a.device, a.requires_grad) for a in args]
        # inputs the compiled forward updates in place (BatchNorm's running statistics): their
        # version counters move on, as AOTAutograd's wrapper moves them (frozen prediction reads them)
        self.mutated = list(meta.mutated_graph_handled_indices_seen_by_autograd) if meta.keep_input_mutations else []
        return index, len(out), (len(out), len(out) + n_vc, len(out) + n_saved), guard, tangent_strides


@contextlib.contextmanager
def _from_autograd_cache(record):
    """While :class:`_JointCompiled`'s backend compiles: when AOTAutograd's disk cache serves the
    graph (a new process with a warm cache), ``record`` gets what ``inner_compile`` records when
    it compiles (the compiled forward and backward, AOTAutograd's metadata, the number of saved
    forward outputs), taken from the cache entry as AOTAutograd loads it.

    On a cache hit AOTAutograd calls no compiler: it reads its entry and inductor's compiled
    forward and backward from the FX graph cache, and neither traces the graph nor partitions
    it. Without its cache a new process on a warm FX graph cache re-traced and re-partitioned
    ResNet-18's joint graph at every start (its first training step at batch 1: 4.6-4.8 s with
    the FX graph cache alone, 2.1-2.2 s with AOTAutograd's too; 2026-12-07, load 1). The entry
    is taken by wrapping ``GenericAOTAutogradResult._load_and_post_compile`` (the step of a hit
    that returns the loaded forward and backward) for the duration of the backend's call, in
    this thread only; should torch rename it, nothing is recorded and the graph runs through
    AOTAutograd's wrappers, as before the direct call existed. The backward comes wrapped in
    ``torch._dynamo.disable`` on a hit (a compiler's backward is wrapped outside
    ``inner_compile``): the direct call runs it unwrapped in both cases."""
    try:
        from torch._functorch._aot_autograd.aot_autograd_result import (  # pylint: disable=import-outside-toplevel
            GenericAOTAutogradResult)
        original = GenericAOTAutogradResult._load_and_post_compile  # pylint: disable=protected-access
    except (ImportError, AttributeError):
        yield
        return
    thread = threading.get_ident()

    def load(entry, *args, **kwargs):
        fw, bw, needs_autograd = original(entry, *args, **kwargs)
        if threading.get_ident() == thread and bw is not None:
            record.update(fw=fw, bw=getattr(bw, "_torchdynamo_orig_callable", bw), meta=entry.runtime_metadata,
                          saved=entry.num_fw_outs_saved_for_bw)
        return fw, bw, needs_autograd
    GenericAOTAutogradResult._load_and_post_compile = load  # pylint: disable=protected-access
    try:
        yield
    finally:
        GenericAOTAutogradResult._load_and_post_compile = original  # pylint: disable=protected-access


class _JointFunction(torch.autograd.Function):  # pylint: disable=abstract-method
    """One autograd node for a whole compiled graph (:class:`_JointCompiled`): the compiled
    forward returns the outputs followed by the tensors its backward needs (saved here as
    AOTAutograd saves them), the compiled backward takes those and the outputs' gradients
    and returns a gradient (or None) for each input."""

    @staticmethod
    def forward(ctx, joint, *args):  # pylint: disable=arguments-differ
        n, vc_end, end = joint.direct[2]
        outs = joint._record["fw"](list(args))  # pylint: disable=protected-access
        ctx.save_for_backward(*[x.detach() if x._is_view() else x for x in outs[n:vc_end]])
        ctx.no_vc = [x.detach() if x._is_view() else x for x in outs[vc_end:end]]
        ctx.joint = joint
        if joint.mutated:
            torch.autograd.graph.increment_version([args[i] for i in joint.mutated])
        return tuple(outs[:n])

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, *grads):  # pylint: disable=arguments-differ
        joint = ctx.joint
        strides = joint.direct[4]
        grads = [g if g.stride() == s else torch.empty_strided(g.shape, s, dtype=g.dtype, device=g.device).copy_(g)
                 for g, s in zip(grads, strides)]
        args = [*ctx.saved_tensors, *ctx.no_vc, *grads]  # ctx.no_vc stays: backward(retain_graph=True) again
        return (None, *joint._record["bw"](args))  # pylint: disable=protected-access


def _verdicts_path():
    """The record of calibration verdicts: ``<cache_dir>/neogluon_calibration.json``."""
    return os.path.join(cache_dir(), "neogluon_calibration.json")


class _Choice:
    """Where a calibration's verdict goes (``"plain"`` or ``"compiled"``): the graph's
    ``choices`` under ``key``, and ``<cache_dir>/neogluon_calibration.json`` under the
    :func:`calibration_key` that ``identity(tensors)`` computes from the calibrating call's
    inputs (so the first call pays none of it), where a later process with the same graph finds it
    (:meth:`recorded`) and does not time again. The trials cost a new process more than its
    first step once the compiled code comes from the caches: ResNet-18 b1's second training
    step (five plain and five compiled steps, the plain graph's first convolutions timing
    their kernels, operator/conv_choice.py) took 1.1-1.9 s against 0.07-0.13 s for a third
    (one thread, 2026-12-07, load 1-2). A verdict stays until neogluon's sources, torch, the
    CPU, the thread count or a ``NEOGLUON_*`` setting change (the key), or the file is removed."""

    def __init__(self, choices, key, identity):
        self.choices, self.key, self.identity = choices, key, identity
        self._disk = None  # (the record's path, the verdict's key in it), once known

    def recorded(self, tensors):
        """The verdict an earlier process recorded for this graph called on ``tensors``, or None."""
        self._disk = (_verdicts_path(), self.identity(tensors))
        choice = read_record(self._disk[0]).get(self._disk[1])
        return choice if choice in ("plain", "compiled") else None

    def earlier(self, tensors):
        """:meth:`recorded`, noted in ``choices`` (not recorded again) when there is one."""
        choice = self.recorded(tensors)
        if choice is not None:
            self(choice, measured=False)
        return choice

    def __call__(self, choice, measured=True):
        """Note ``choice``; when ``measured`` (after :meth:`recorded`), record it on disk too."""
        self.choices[self.key] = choice
        if measured and self._disk is not None:
            path, key = self._disk
            record = read_record(path)
            record[key] = choice
            write_record(path, record)


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
    """A training-mode compiled function, calibrated against the plain graph (see the
    module's docstring) at its second call, and again at the first call at each other intra-op
    thread count."""

    def __init__(self, plain, compiled, aux_index, chosen, aux_updates=None):
        # aux_index: the auxiliary states a training-mode call updates; aux_updates: the graph's
        # count of compiled calls that updated them (InductorGraph.aux_updates)
        self.plain, self.compiled, self.aux_index, self.chosen = plain, compiled, aux_index, chosen
        self.aux_updates = [0] if aux_updates is None else aux_updates
        self.calls = 0
        # intra-op thread count -> whether the plain graph serves calls at it. Calibrated per
        # count: a small graph's serial compiled kernels can win on one thread and lose on two
        # (LeNet b16's training step: 1.66 against 1.78 ms on one, 1.74 against 1.59 on two),
        # and the adaptive count changes with the machine's load
        self.verdicts = {}
        self.asked = set()  # thread counts whose recorded verdict was looked up

    @property
    def use_plain(self):
        """Whether the plain graph serves calls at the current intra-op thread count."""
        return bool(self.verdicts.get(torch.get_num_threads()))

    def __call__(self, tensors):
        threads = torch.get_num_threads()
        use_plain = self.verdicts.get(threads)
        if use_plain is None and self.chosen is not None and threads not in self.asked:
            use_plain = self._recorded(tensors, threads)
        if use_plain:
            return self.plain(*tensors)
        if use_plain is None:
            self.calls += 1
            if self.calls >= 2 and self.chosen is not None and self._calibrate(tensors, threads):
                return self.plain(*tensors)
        if self.aux_index:
            self.aux_updates[0] += 1
        return self.compiled(*tensors)

    def _recorded(self, tensors, threads):
        """An earlier process's verdict at ``threads``, looked up before the first call at that
        count compiles anything: where the plain graph won, the graph is never compiled again
        (GluonTS's Trainer compiles its networks at their first step: half a minute to minutes,
        README), where the compiled function won, it is not timed again; None without one."""
        self.asked.add(threads)
        recorded = self.chosen.earlier(tensors)
        if recorded is None:
            return None
        self.verdicts[threads] = recorded == "plain"
        return self.verdicts[threads]

    def _calibrate(self, tensors, threads):
        """Choose between the plain graph and the compiled function at ``threads`` (an earlier
        process's verdict when one is recorded); whether the plain graph serves."""
        if threads not in self.asked:  # (else _recorded found none at this count's first call)
            recorded = self.chosen.earlier(tensors)
            if recorded is not None:
                self.verdicts[threads] = recorded == "plain"
                return self.verdicts[threads]
        saved = [(tensors[k], tensors[k].detach().clone()) for k in self.aux_index]
        rng = torch.get_rng_state()
        leaves = [t for t in tensors if t.requires_grad]

        def trial(fn):
            outs = [o for o in fn(*tensors) if o.requires_grad]
            if outs and leaves:
                torch.autograd.grad(sum(o.sum() for o in outs), leaves, allow_unused=True)
        try:
            plain, _ = _time_both(lambda *ts: self.plain(*ts), lambda *ts: self.compiled(*ts), trial)
        finally:
            with torch.no_grad():
                for t, value in saved:
                    t.copy_(value)
            torch.set_rng_state(rng)
        self.verdicts[threads] = plain
        self.chosen("plain" if plain else "compiled")
        return plain


class _Frozen:
    """Prediction with the parameters frozen into the compiled code, while they are the
    tensors it was frozen with and unchanged; else the unfrozen compiled function, until the
    (new) parameters have stayed unchanged for :data:`REFREEZE_CALLS` prediction calls
    (:data:`REFREEZE_BACKOFF` times more for each time the weights moved on after a
    freeze): then they are frozen again (from the package cache when it has them)."""

    def __init__(self, plain, unfrozen, tensors, is_param, chosen=None, traced=None, symbol=None, aux_updates=None):
        self.plain = plain
        self.aux_updates = [0] if aux_updates is None else aux_updates
        self.traced_fn = plain if traced is None else traced  # what the frozen module runs
        self.calls = 0
        self.use_plain = False
        self.chosen = chosen  # None: no calibration; else called with the choice once made
        self.recorded = None  # an earlier process's verdict, looked up at the first call
        self.asked = False  # whether it was looked up
        self.waiting = False  # the call being made waits for a child (executor/warm.py)
        self.unfrozen = unfrozen
        self.param_index = [k for k, p in enumerate(is_param) if p]
        self.data_index = [k for k, p in enumerate(is_param) if not p]
        self.is_param = is_param
        self.symbol = symbol
        self.package = None  # the path of the AOTInductor package serving the frozen graph
        # children (executor/warm.py): the one running (a warm.Job), the package keys (and
        # "unfrozen") children were started for, whether none can start in this process, and
        # whether a child's run left the unfrozen function's code in the caches
        self.job = None
        self.tried = set()
        self.no_children = False
        self.unpackaged = False  # a child found that the graph cannot be packaged: it is served unfrozen
        self.unfrozen_warm = False
        self.unfrozen_ready = False  # the unfrozen function has run (compiled)
        self.freezes = 0  # how many times parameters were frozen
        self.refreeze_calls = REFREEZE_CALLS  # stable calls before the next freeze
        self._setup(tensors)

    def _setup(self, tensors):
        """Freeze the parameters of ``tensors`` (compiled at the next call)."""
        self._remember(tensors)
        self.module = _ParamModule(self.traced_fn, self.params, self.is_param)
        self.frozen = None  # built at the first call: a package (below) or torch.compile's frozen function
        self.plan = None  # (kernels chosen, package key) of this freeze's package, once computed
        self.traced = False
        self.stable = 0  # prediction calls since the weights last changed, while unfrozen
        self.freezes += 1

    def _packaged(self, data):
        """Whether this freeze goes through an AOTInductor package (see :meth:`_freeze`)."""
        return (self.symbol is not None and os.environ.get("NEOGLUON_COMPILE_PACKAGE", "1") != "0"
                and all(t.device.type == "cpu" for t in data + self.params))

    def _package_plan(self, data):
        """``(kernels, key)``: the convolution kernels chosen (operator/winograd.py) and the package's key."""
        if self.plan is None:
            record = os.path.join(cache_dir(), "neogluon_winograd.json")
            chosen = winograd.prepare(lambda: self.module.entry(*data), record)
            self.plan = chosen, package_key(self.symbol, data, self.params, self.is_param, chosen)
        return self.plan

    def _child_runs(self):
        """Whether a child of this prediction still runs (one compiling the unfrozen function
        that exited well left its code in the caches; a package child reports a graph that
        cannot be packaged, having compiled the unfrozen function instead)."""
        if self.job is not None and not self.job.poll():
            if self.job.returncode == warm.UNPACKAGED:
                self.unpackaged = self.unfrozen_warm = True
            self.unfrozen_warm = self.unfrozen_warm or (self.job.ok and self.job.what == "unfrozen")
            self.job = None
        return self.job is not None

    def package_only(self, data):
        """In a package child (executor/warm.py): build this freeze's package; whether the graph has one."""
        return self._packaged(data) and self._package(data)[0] is not None

    def _package(self, data):
        """``(runner, path)`` of this freeze's package, built when the cache lacks it; ``(None,
        None)`` when the graph cannot be packaged (see :func:`frozen_package`)."""
        chosen, key = self._package_plan(data)
        with winograd.active(chosen):
            return frozen_package(key, self.module, data, freeze_options(self.symbol, self.params))

    def _start_child(self, tensors, what, key):
        """Start a child building ``what`` (``"package"`` or ``"unfrozen"``) for ``tensors``,
        unless one was started for ``key`` before; whether the call is to wait for it (True
        also while another child runs: this one starts later)."""
        if self.no_children or key in self.tried or not warm.enabled(tensors) or self.symbol is None:
            return False
        if warm.running():
            return True
        self.job = warm.start(self.symbol, (False, False), tensors, self.is_param, True, what)
        if self.job is None:
            self.no_children = True
            return False
        self.tried.add(key)
        return True

    def _building(self, tensors, data):
        """Whether a child process builds (or is about to build) this freeze's package, which
        the disk cache does not hold yet (executor/warm.py): meanwhile :meth:`_meanwhile`
        serves. False once the child has exited: :meth:`_freeze` then loads the package, or
        builds it here if the child could not; False where this process builds it itself."""
        if self._child_runs():
            return True
        if not self._packaged(data) or not warm.enabled(tensors):
            return False
        key = self._package_plan(data)[1]
        return not os.path.exists(_package_path(key)) and self._start_child(tensors, "package", key)

    def _unfrozen_waits(self, tensors):
        """Whether the unfrozen function's first compilation waits for a child: one running
        now, or one started for it; not once a child left its code in the caches."""
        if self.unfrozen_warm:
            return False
        if self._child_runs():
            return True
        return not self.unfrozen_warm and self._start_child(tensors, "unfrozen", "unfrozen")

    def _meanwhile(self, tensors):
        """While a child builds the package: the unfrozen compiled function when it has run
        already (its code is compiled), else the plain graph (neither is calibrated, see
        :meth:`__call__`)."""
        self.waiting = True
        return (lambda: self.unfrozen(*tensors)) if self.unfrozen_ready else (lambda: self.plain(*tensors))

    def _unfrozen(self, tensors):
        """The unfrozen compiled function bound to ``tensors``, compiling at its first call: from
        the caches a child filled (meanwhile the plain graph, uncounted), or here."""
        if not self.unfrozen_ready and self._unfrozen_waits(tensors):
            self.waiting = True
            return lambda: self.plain(*tensors)

        def run():
            out = self.unfrozen(*tensors)
            self.unfrozen_ready = True
            return out
        return run

    def _freeze(self, data):
        """The frozen function: an AOTInductor package from the disk cache, or compiled and
        stored there (see :func:`frozen_package`); else (no symbol, not on the CPU,
        ``NEOGLUON_COMPILE_PACKAGE=0``, export failed) ``torch.compile`` with freezing."""
        if self._packaged(data):
            runner, self.package = self._package(data)
            if runner is not None:
                self.traced = True
                return runner
        _prepare()
        options = dict(_OPTIONS, freezing=True)
        options.update(freeze_options(self.symbol, self.params))
        return _AnyThreads(self.module.entry, dynamic=False, options=_with_passes(options))

    def _trace(self, data):
        """The first call, which traces: dynamo makes the module's parameters constants of the
        graph (rather than inputs) only when inductor's *global* ``freezing`` is on while it
        traces (``options=`` apply to inductor's compilation, after dynamo)."""
        from torch._inductor import config  # pylint: disable=import-outside-toplevel
        with config.patch(freezing=True):
            out = self.frozen(*data)
        self.traced = True
        return out

    def _remember(self, tensors):
        """Take ``tensors``' parameters, their versions and the auxiliary updates as they are now."""
        self.params = [tensors[k] for k in self.param_index]
        self.versions = [t._version for t in self.params]  # pylint: disable=protected-access
        self.seen_updates = self.aux_updates[0]

    def valid(self, tensors):
        """Whether the parameters are the frozen ones, unchanged (also by compiled training)."""
        return self.seen_updates == self.aux_updates[0] and all(
            tensors[k] is b and b._version == v  # pylint: disable=protected-access
            for k, b, v in zip(self.param_index, self.params, self.versions))

    def __call__(self, tensors):
        if self.use_plain:
            return self.plain(*tensors)
        if not self.asked and self.chosen is not None:
            self.asked = True
            self.recorded = self.chosen.earlier(tensors)
            if self.recorded == "plain":
                self.use_plain = True  # an earlier process found the plain graph faster: nothing is compiled
                return self.plain(*tensors)
        self.waiting = False
        fn = self._compiled(tensors)
        if self.waiting:  # a child builds the package: calls then are not counted (nor calibrated)
            return fn()
        self.calls += 1
        if self.calls == 2 and self.chosen is not None:  # compiled and warm: is it worth it?
            return self._calibrate(fn, tensors)
        return fn()

    def _compiled(self, tensors):
        """The compiled function to use, bound to its arguments."""
        if self.module is None:  # unfrozen: freeze again once the weights stay put
            if self.valid(tensors):
                self.stable += 1
                if self.stable >= self.refreeze_calls:
                    self._setup(tensors)
            else:
                self._remember(tensors)
                self.stable = 0
        if self.module is not None:
            if self.valid(tensors):
                data = [tensors[k] for k in self.data_index]
                if self.frozen is None:
                    if self._building(tensors, data):
                        return self._meanwhile(tensors)
                    if self.unpackaged:  # torch.compile's freezing, uncached, would compile in the call
                        return self._unfrozen(tensors)
                    self.frozen = self._freeze(data)
                if not self.traced:
                    return lambda: self._trace(data)
                return lambda: self.frozen(*data)
            self.frozen = self.module = None  # the weights moved on: the unfrozen function, for now
            self.refreeze_calls *= REFREEZE_BACKOFF
            self._remember(tensors)
            self.stable = 0
        return self._unfrozen(tensors)

    def _calibrate(self, fn, tensors):
        """Time the compiled function against the plain graph, alternately; keep the faster
        (an earlier process's verdict when one is recorded)."""
        if self.recorded is not None:  # (looked up at the first call)
            return fn()
        self.use_plain, out = _time_both(lambda: self.plain(*tensors), fn, lambda f: f())
        self.chosen("plain" if self.use_plain else "compiled")
        return out


_CONVOLUTIONS = ("Convolution", "Deconvolution")
# A small frozen graph's matrix products are autotuned at compile time between aten's and
# inductor's own C++ GEMM (the weights packed into the code, no oneDNN/MKL call): the tutorial
# LeNet at batch 1 predicts 1.76x faster with it (package, one thread, CPU time, alternating).
# Larger graphs gain nothing and pay 10-20 s more compiling (BERT b8 1.00x, LSTMCell b32
# 0.99x), and an autotune benchmarked on a loaded machine once built an LSTMCell package
# slower than its plain graph. So: graphs of at most this many parameter elements.
AUTOTUNE_PARAMS = 1 << 20
_AUTOTUNE = {"max_autotune": True, "max_autotune_gemm_backends": "CPP,ATEN",
             "autotune_num_choices_displayed": 0, "max_autotune_report_choices_stats": False}  # quietly
# Inductor writes the intra-op thread count of the moment into the C++ kernels it generates
# (``torch.get_num_threads()``, or ``cpp.threads``): serial loops when it is 1, else OpenMP
# regions. neogluon's adaptive count (neogluon/threads.py) is 1 whenever another process was
# runnable, so a package built on a busy machine had serial kernels and one built on an idle
# machine parallel ones, and the disk cache then served either to every later process (the
# key holds no thread count): LeNet's predictions were fast or slow by the load of the day
# they compiled. A small graph's kernels (a few microseconds each) gain nothing from a second
# thread and pay its wake-up in every region, so they are always generated serial (aten's
# matrix products, ``addmm``/MKL, still use the threads of the call). Measured with
# benchmarks/compile_threads.py on 2026-11-28 at load 3-5 (other engineers' jobs), medians of 8
# alternating rounds of 200 calls, serial kernels against kernels generated at 2 threads (what
# an idle machine compiled): run at 2 threads, LeNet b1 0.102 against 0.305 ms, LeNet b16 0.349
# against 0.413 ms; run at 1 thread 0.111 against 0.302 ms and 0.389 against 0.477 ms.
_SERIAL = {"cpp.threads": 1, "cpp.dynamic_threads": False}
_SMALL = dict(_AUTOTUNE, **_SERIAL)
# A small training graph with pooling: serial kernels as above, and layout optimization
# (channels-last activations, which _UNFROZEN turns off for larger graphs: a small graph's
# weights cost little to convert). In NCHW, inductor's loops for 2x2 max pooling read each
# window's elements two apart, which its vector code gathers lane by lane (the tutorial
# LeNet's first pooling with its ReLU at batch 16: 208 us a step) and its scalar code
# (``cpp.simdlen=1``, this graph's option until 2026-12-07) runs with a data-dependent branch
# per comparison (gcc turns the selects into jumps: about half mispredicted on ReLU outputs);
# in channels-last the window's elements are contiguous vectors along the channels (54 us in
# the same network under torch.compile). With ReLU's float-mask backward (operator/nn.py
# ``relu``), LeNet b16's compiled training step (bench_train_step's phases, one thread, wall
# clock, 7 alternating rounds of 20 steps, 2026-12-07 09:23 UTC, load 1.5-3.2) took 1.66 ms
# [1.61-1.69] against the plain graph's 1.78 [1.71-1.79] (0.94 [0.90-0.97]); scalar loops
# 1.91 (1.10x the plain graph), vector code in NCHW 1.79 (1.02x), scalar channels-last 1.90;
# with the bool-mask ReLU and scalar NCHW loops (before) 2.50 (1.42x). LeNet b1: 0.515 ms
# against scalar NCHW's 0.523 and the plain graph's 0.548, all within the spread (0.49-0.57).
# (Earlier, in NCHW: the vectorized pooling gathered each lane's strided elements through a
# buffer, LeNet b1's compiled training forward 150 us against 61 us with scalar loops, one
# thread, CPU time. Without pooling the vector code wins: the MLP b64's compiled training
# step took 2.61 ms with scalar loops against the plain graph's 2.26 ms, and 2.68 against
# 2.72 ms with vector code, bench_train_step.py, CPU time, two runs at load 1-2.5.)
_SMALL_POOLING = dict(_SERIAL, layout_optimization=True)


def _graph_ops(symbol):
    """The operator names of a graph."""
    return {node["op"] for node in json.loads(symbol.tojson())["nodes"]}


def freeze_options(symbol, params=None):
    """Inductor options of a frozen graph: GEMM autotuning and serial kernels when its
    ``params`` (tensors) are small (:data:`AUTOTUNE_PARAMS`), and, for a graph without convolutions, no freezing.
    Freezing pays for convolutions (BatchNorm folded, oneDNN weight layouts), but it packs a
    float32 Linear's weights for MKL (``mkl::_mkl_linear``), no faster than ``addmm`` for
    MLP/BERT-sized layers and about 20% slower for the LSTMCell benchmark's many small ones
    (batch 32, 256 -> 1024). ``cpp.weight_prepack=False`` alone does not prevent it: inductor
    registers its packing passes once per process, at the first frozen compilation that
    packs, and from then on packs every frozen graph's Linear weights whatever the option
    says (an LSTMCell package compiled after a LeNet in the same process held 20 packed
    copies of its weights, 48 MB instead of 8, and ran no faster than the plain graph).
    Unfrozen, the weights are still constants of a package (or inputs of the compiled
    function). ``None`` (no graph known): inductor's defaults (freezing)."""
    if symbol is None:
        return {}
    ops = _graph_ops(symbol)
    small = params is not None and sum(p.numel() for p in params) <= AUTOTUNE_PARAMS
    options = dict(_SMALL) if small else {}
    if not ops.intersection(_CONVOLUTIONS):
        options.update({"freezing": False, "cpp.weight_prepack": False})
    return options


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

    def forward(self, *data):
        """What ``torch.export`` traces (the package route)."""
        return self.entry(*data)


# ---------------------------------------------------------------------- the package cache
_SOURCE_DIGEST = []


def _source_digest():
    """A digest of neogluon's Python sources (the kernels a graph's code calls), once per process."""
    if not _SOURCE_DIGEST:
        h = hashlib.sha256()
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for base, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    h.update(name.encode())
                    with open(os.path.join(base, name), "rb") as f:
                        h.update(f.read())
        _SOURCE_DIGEST.append(h.hexdigest())
    return _SOURCE_DIGEST[0]


def package_key(symbol, data, params, is_param, kernels=None):
    """The disk-cache key of a frozen prediction graph: the graph's JSON (names aside),
    which inputs are Parameters, the data inputs' shapes, strides and dtypes, the
    parameters' shapes, dtypes and *values* (frozen into the package), torch's version, the
    CPU and compiler, neogluon's sources, the compile options and the ``kernels`` chosen for
    its convolutions (operator/winograd.py)."""
    return _graph_key(symbol, data, params, is_param, [repr(sorted((kernels or {}).items()))], values=True)


def calibration_key(symbol, mode, tensors, is_param):
    """The disk key of a calibration's verdict (:class:`_Choice`): what :func:`package_key`
    holds but the parameters' values (the verdict is one of shapes and kernels), plus the mode
    (training, recording), which inputs record a gradient, the intra-op thread count of the
    calibrating call and neogluon's ``NEOGLUON_*`` settings (Winograd, the package route, the
    convolution choice change what is compared)."""
    data = [t for t, p in zip(tensors, is_param) if not p]
    params = [t for t, p in zip(tensors, is_param) if p]
    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("NEOGLUON_"))
    parts = ["calibration", repr(mode), repr([t.requires_grad for t in tensors]), str(torch.get_num_threads()),
             repr(settings)]
    return _graph_key(symbol, data, params, is_param, parts, values=False)


def _graph_key(symbol, data, params, is_param, parts, values):
    """A SHA-256 of a graph, its inputs' shapes (and the parameters' values when ``values``),
    torch, the CPU, neogluon's sources, the compile options and ``parts`` (strings)."""
    h = hashlib.sha256()
    for part in (torch.__version__, _cpu_key(), _source_digest(), _graph_json(symbol), repr(list(is_param)),
                 repr(sorted(_OPTIONS.items())), *parts):
        h.update(part.encode())
        h.update(b"\0")
    for t in data:
        h.update(repr((tuple(t.shape), t.stride(), str(t.dtype))).encode())
    for t in params:
        h.update(repr((tuple(t.shape), str(t.dtype))).encode())
        if values:
            h.update(t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().data)
    return h.hexdigest()


def _graph_json(symbol):
    """The graph's JSON without its node names (a second, identical network of a process
    has other names: the same entry serves it)."""
    graph = json.loads(symbol.tojson())
    for k, node in enumerate(graph["nodes"]):
        node["name"] = str(k)
    return json.dumps(graph, sort_keys=True)


def _cpu_key():
    """The CPU and compiler a package was built for: torch's CPU capability, the CPU's flags
    (``/proc/cpuinfo``), the machine and ``$CXX`` (without importing inductor)."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    flags = " ".join(sorted(line.split(":", 1)[1].split()))
                    break
    except OSError:
        pass
    return "|".join([torch.backends.cpu.get_cpu_capability(), platform.machine(), os.environ.get("CXX", ""), flags])


def _export_package(module, data, path, options=None):
    """Export the frozen graph and compile it with AOTInductor (weights frozen: conv+BN
    folding, oneDNN weight prepacking, constant folding) into the package ``path``."""
    _prepare()
    from torch._inductor import config  # pylint: disable=import-outside-toplevel
    # AOTInductor writes the package's device information into inductor's *global*
    # ``aot_inductor.metadata`` dict in place, and that dict is part of the FX graph cache's key
    # of every later compilation in the process: a process that built a package compiled its
    # training graph under another key than a later process that only loaded the package, so
    # the second process missed the cache and compiled anew (ResNet-18 b1's first training step
    # 10.1-10.2 s instead of 4.6-4.8 s with the hit). A dict of its own, restored afterwards.
    with torch.no_grad(), config.patch({"aot_inductor.metadata": {}}):
        # a graph torch.export cannot capture (box_nms: sizes that depend on the data) falls
        # back to torch.compile (frozen_package), but torch.export first printed the partial
        # graph to stderr, 500 lines for GluonCV's SSD: kept for the debug log instead
        # (and its shape logger warned "Unable to find user code corresponding to {u0}" for a
        # bounds check reading index values, BERT's gather_nd: quiet while exporting)
        printed, shapes_log = io.StringIO(), logging.getLogger("torch.fx.experimental.symbolic_shapes")
        level = shapes_log.level
        try:
            shapes_log.setLevel(logging.ERROR)
            with contextlib.redirect_stderr(printed):
                program = torch.export.export(module, tuple(data), strict=False)
        finally:
            shapes_log.setLevel(level)
            if printed.getvalue():
                _LOG.debug("torch.export printed:\n%s", printed.getvalue())
        torch._inductor.aoti_compile_and_package(  # pylint: disable=protected-access
            program, package_path=path, inductor_configs=_with_passes(dict({"freezing": True}, **(options or {}))))


def _load_package(path):
    """A callable running a package's graph on the data tensors: torch's documented
    AOTInductor loader (it imports inductor, about 1 s of a new process's start). The loader
    asks inductor for the CPU's vector ISA (the package's device information), and inductor
    finds it by its probe (ten test kernels compiled and loaded in child processes) unless
    told: :func:`vec_isa_probe`'s record tells it first. ResNet-18 b1's first prediction in a
    new process with the cache: 2.20-2.56 s -> 1.29-1.51 s (1.52-1.81x, four alternating
    processes each, one thread, 2026-12-07 09:44-09:47, load 2.3; cProfile had put 1.5 s of it
    in the probe)."""
    from torch._inductor import aoti_load_package  # pylint: disable=import-outside-toplevel
    _probe_once()
    return aoti_load_package(path)


class _Packaged:
    """A loaded package as the frozen function: data tensors -> tuple of outputs.

    The package runs through its loader's ``boxed_run`` on the list of data tensors: the
    loader's documented ``__call__`` decodes the package's call specification (two JSON
    parses into pytree specs) and flattens and unflattens the arguments at every call, 40%
    of the tutorial LeNet's prediction at batch 1 (pyinstrument, 2026-11-28). The
    specification is decoded once, at the first call, and the documented call is kept when it
    is not the flat one of ``entry(*data)`` (or the loader's internals moved)."""

    def __init__(self, loader):
        self.loader = loader
        self._run = None  # boxed_run once the call specification is known flat; False: the documented call
        self._out_spec = None  # the outputs' pytree spec; None: a flat tuple (or list) of tensors

    def __call__(self, *data):
        data = [t if t.is_contiguous() else t.contiguous() for t in data]
        if self._run is None:
            self._direct(data)
        if self._run:
            out = self._run(list(data))
            if self._out_spec is not None:
                out = _pytree().tree_unflatten(out, self._out_spec)
        else:
            out = self.loader(*data)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)

    def _direct(self, data):
        self._run = False
        try:
            pytree = _pytree()
            inner = self.loader.loader
            in_spec, out_spec = (pytree.treespec_loads(spec) for spec in inner.get_call_spec())
            if in_spec != pytree.tree_flatten((tuple(data), {}))[1]:
                return
            flat = out_spec.type in (tuple, list) and all(c.is_leaf() for c in out_spec.children())
            self._out_spec = None if flat else out_spec
            self._run = inner.boxed_run
        except Exception:  # pylint: disable=broad-except
            self._run = False


def _pytree():
    from torch.utils import _pytree  # pylint: disable=import-outside-toplevel
    return _pytree


def _package_path(key):
    """Where the package of ``key`` is stored: ``<cache_dir>/packages/<key>.pt2``."""
    return os.path.join(cache_dir(), "packages", key + ".pt2")


def frozen_package(key, module, data, options=None):
    """``(callable, path)`` serving a frozen prediction graph from the package
    ``<cache_dir>/packages/<key>.pt2``, built (exported and compiled) when absent; a new
    process with the same graph, shapes and weights only loads it (well under a second).
    Each package has a ``.json`` beside it with its SHA-256: a package that does not match
    (truncated, overwritten) or cannot be loaded is reported by a warning naming the file,
    removed, and compiled again. ``(None, path)`` when the graph cannot be exported or
    compiled this way (the caller compiles with torch.compile)."""
    path = _package_path(key)
    folder = os.path.dirname(path)
    record = path[:-4] + ".json"
    if os.path.exists(path) and os.path.exists(record):
        try:
            with open(record) as f:
                digest = json.load(f)["sha256"]
            if file_digest(path) != digest:
                raise ValueError("its SHA-256 does not match the one recorded in %s" % record)
            return _Packaged(_load_package(path)), path
        except Exception as e:  # pylint: disable=broad-except
            warnings.warn("neogluon: the compiled-graph cache entry %s is corrupt or unreadable (%s); it is removed "
                          "and the graph compiled again" % (path, str(e).split("\n")[0]))
            for name in (path, record):
                try:
                    os.remove(name)
                except OSError:
                    pass
    os.makedirs(folder, exist_ok=True)
    tmp = "%s.%d.tmp.pt2" % (path[:-4], os.getpid())
    try:
        _export_package(module, data, tmp, options)
        digest = file_digest(tmp)
        os.replace(tmp, path)
        with open(record + ".%d" % os.getpid(), "w") as f:
            json.dump({"sha256": digest, "torch": torch.__version__}, f)
        os.replace(record + ".%d" % os.getpid(), record)
        return _Packaged(_load_package(path)), path
    except Exception as e:  # pylint: disable=broad-except
        _LOG.info("the frozen graph could not be packaged with AOTInductor (%s): torch.compile serves it", e)
        try:
            os.remove(tmp)
        except OSError:
            pass
        return None, None
