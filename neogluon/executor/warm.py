"""Compiling in the background: a child process fills the disk caches while the plain graph serves.

The compiled backend (executor/inductor.py) compiles a graph at its first training call, or its
second prediction call, with the same shapes. Compiling is dynamo's tracing, AOTAutograd's
partitioning, inductor's code generation and a C++ compiler: ResNet-18 b1 takes 21-24 s with
an empty cache, GluonTS's DeepAR training graph (a long unrolled RNN) 40-48 s; in a process
that finds the caches filled, 1.6-3 s and about 8 s. Until this file, the user's call waited
for it, so a short run (a DeepAR epoch of five batches: 1.2-1.4 s on the plain graph) took
thirty times as long the first time on a machine (2026-12-07, idle).

So the first compilation of a graph (mode and shapes) runs in a child process instead: the
graph's JSON and the call's input tensors are written to a temporary directory, and
``python -m neogluon.executor.warm DIR`` loads them, builds the same :class:`CompiledGraph`
and :class:`InductorGraph` and makes the same call (a recorded call with its backward),
which compiles into the same disk caches (inductor's FX graph cache, AOTAutograd's cache).
Meanwhile the parent's calls run the plain graph. Once the child has exited, the parent's
next call compiles as before, now served by the caches, and the compiled function is
calibrated and kept as before.

A frozen prediction (inductor.py's ``_Frozen``) starts its own children: one builds the
AOTInductor package of the current weights whenever a freeze finds no package for them (at
the first compilation, and at each refreeze after training moved the weights), and one
compiles the unfrozen function (whose code does not depend on the weights' values) when the
weights have moved and it has not run yet. Meanwhile the unfrozen function serves once it
has run, else the plain graph. A graph torch.export cannot capture (box_nms's data-dependent
sizes) has no package: its package child compiles the unfrozen function instead and exits
with :data:`UNPACKAGED`, and the parent serves that function (torch.compile's frozen graphs
are not cached on disk, so freezing would compile in the call: GluonCV's YOLOv3 MobileNet at
160x160, 19.6 s; the hand-over from the child's caches took 8 s, calibration included). Measured on ResNet-18 b1
(one process training 40 steps and predicting 40 images per epoch, 12 epochs, empty cache,
2026-12-07, idle machine): the first step took 2.3 s instead of 38.6 s, the first epoch ended
at 10.9 s instead of 56.2 s, the longest pause afterwards was the training graph's hand-over
(4.1 s, then 1.1 s of calibration) where the call compiling the prediction package had taken
11.5 s and the unfrozen function 7.4 s; the 12 epochs took 102.6 s against 115.9 s.

Why a process and not a thread: inductor's configuration is process-global (the compile
options are patched into it while compiling), dynamo's tracing and inductor's code generation
are Python and would hold the GIL against the user's own Python, and running a graph to
compile it draws from torch's global random stream (Dropout) and updates BatchNorm's running
statistics in place: the child does both on copies, in its own process. The child runs at a
lower priority (``nice`` 10, inherited by the C++ compiler), so on a busy machine it takes
what the user's work leaves; it exits when its parent does (the parent terminates running
children at exit, and the child checks every second that its parent is alive).

A child that fails (a graph with a Python operator the child cannot load, a C++ compiler
missing) only leaves the caches cold: the parent then compiles itself, as before, and
reports what fails then. The first compilation of a key is also done in the parent, as
before, when an earlier child recorded that it warmed that key (``neogluon_warm.json`` in the
cache directory, keyed as :func:`warm_key` says), when an earlier process recorded the verdict
"plain" for it (nothing is compiled at all), for tensors not on the CPU (a GPU child would
hold a second CUDA context), and with ``NEOGLUON_COMPILE_BACKGROUND=0``. One child runs at a
time; a graph waiting for its turn keeps running the plain graph.
"""
import atexit
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import shutil
import threading
import time

import torch

from ..fileio import read_record, write_record

__all__ = ["UNPACKAGED", "Job", "enabled", "is_warm", "main", "record_path", "running", "start", "warm_key"]

_LOG = logging.getLogger(__name__)
UNPACKAGED = 5  # a package child's exit status when the graph cannot be packaged (it compiled the unfrozen function)
_RUNNING = []  # the children running now (at most one), terminated at exit
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the directory holding neogluon/


def enabled(tensors):
    """Whether a first compilation for ``tensors`` goes to a child process: unless
    ``NEOGLUON_COMPILE_BACKGROUND=0``, for tensors on the CPU, in a process run by a Python
    interpreter (not one embedded in a server binary or frozen into an application, whose
    ``sys.executable`` would not run ``-m neogluon.executor.warm``)."""
    return (os.environ.get("NEOGLUON_COMPILE_BACKGROUND", "1") != "0"
            and all(t.device.type == "cpu" for t in tensors) and _INTERPRETER)


_INTERPRETER = (not getattr(sys, "frozen", False) and bool(sys.executable)
                and os.path.basename(sys.executable).lower().startswith(("python", "pypy")))


def running():
    """Whether a child is warming the caches now (for any graph of this process)."""
    for job in list(_RUNNING):
        if job.owner != os.getpid():
            _RUNNING.remove(job)  # a forked process's copy of its parent's list
        else:
            job.poll()
    return bool(_RUNNING)


def record_path():
    """Where children record the keys they warmed: ``neogluon_warm.json`` in the cache directory."""
    from .inductor import cache_dir  # pylint: disable=import-outside-toplevel
    return os.path.join(cache_dir(), "neogluon_warm.json")


def warm_key(symbol, mode, tensors, is_param):
    """The record's key of a first compilation: the graph, which inputs are Parameters and
    which record a gradient, the mode, the inputs' shapes, strides and dtypes, torch, the CPU,
    neogluon's sources and ``NEOGLUON_*`` settings (what the caches' own keys depend on). Only
    training and recorded modes are keyed here: a frozen prediction looks for its package file
    itself (inductor.py's ``_Frozen``), so the parameters' values never enter this key."""
    from .inductor import _graph_key  # pylint: disable=import-outside-toplevel
    data = [t for t, p in zip(tensors, is_param) if not p]
    params = [t for t, p in zip(tensors, is_param) if p]
    ignored = ("NEOGLUON_COMPILE_BACKGROUND", "NEOGLUON_COMPILE_CALIBRATE")  # the child's own differ
    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("NEOGLUON_") and k not in ignored)
    parts = ["warm", repr(tuple(mode)), repr([t.requires_grad for t in tensors]), repr(settings)]
    return _graph_key(symbol, data, params, is_param, parts, values=False)


def is_warm(key):
    """Whether a child recorded that it warmed the caches for ``key``."""
    return bool(read_record(record_path()).get(key))


class Job:
    """A child process warming the caches for one graph, mode and shapes."""

    def __init__(self, proc, folder):
        self.proc, self.folder = proc, folder
        self.returncode = None
        self.owner = os.getpid()  # (a forked DataLoader worker inherits the list, not the child)

    def poll(self):
        """Whether the child still runs (once it has exited, its directory is removed)."""
        if self.returncode is None:
            code = self.proc.poll()
            if code is None:
                return True
            self._done(code)
        return False

    def wait(self, timeout=None):
        """Wait for the child to exit (at most ``timeout`` seconds); whether it has."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return not self.poll()

    @property
    def ok(self):
        """Whether the child exited having warmed the caches."""
        return self.returncode == 0

    def terminate(self):
        if self.returncode is None:
            try:
                self.proc.terminate()
                self.proc.wait(2)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
            self._done(self.proc.returncode)

    def _done(self, code):
        self.returncode = code
        if self in _RUNNING:
            _RUNNING.remove(self)
        shutil.rmtree(self.folder, ignore_errors=True)
        if code:
            _LOG.info("the background compilation exited with %s; the graph compiles in this process", code)


def start(symbol, mode, tensors, is_param, static_shape, what="first"):
    """A :class:`Job` compiling ``symbol`` for ``mode`` (``(is_train, recording)``) on tensors
    like ``tensors`` in a child process, or None when it cannot be started (the caller then
    compiles itself). ``what``: ``"first"``, the call's first compilation; ``"package"``, a
    frozen prediction's package for the parameters of ``tensors``; ``"unfrozen"``, the
    unfrozen function a prediction runs while the weights move (its code does not depend on
    their values)."""
    folder = None
    try:
        folder = tempfile.mkdtemp(prefix="neogluon-warm-")
        with open(os.path.join(folder, "graph.json"), "w") as f:
            f.write(symbol.tojson())
        spec = {"mode": list(mode), "is_param": list(is_param), "static_shape": bool(static_shape),
                "requires_grad": [bool(t.requires_grad) for t in tensors],
                "key": warm_key(symbol, mode, tensors, is_param), "record": record_path(), "parent": os.getpid(),
                "what": what}
        with open(os.path.join(folder, "spec.json"), "w") as f:
            json.dump(spec, f)
        torch.save([t.detach().clone() for t in tensors], os.path.join(folder, "inputs.pt"))
        from .inductor import cache_dir  # pylint: disable=import-outside-toplevel
        env = dict(os.environ, NEOGLUON_COMPILE_BACKGROUND="0", NEOGLUON_COMPILE_CALIBRATE="0",
                   TORCHINDUCTOR_CACHE_DIR=cache_dir(),
                   PYTHONPATH=os.pathsep.join([_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                         if p]))
        with open(os.path.join(folder, "log.txt"), "w") as log:
            proc = subprocess.Popen([sys.executable, "-m", "neogluon.executor.warm", folder], env=env,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    except Exception as e:  # pylint: disable=broad-except
        _LOG.info("the background compilation could not start (%s); the graph compiles in this process", e)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        return None
    job = Job(proc, folder)
    job.what = what
    _RUNNING.append(job)
    return job


@atexit.register
def _terminate_all():
    for job in list(_RUNNING):
        if job.owner == os.getpid():
            job.terminate()


# ---------------------------------------------------------------------- the child
def _watch_parent(parent, folder):
    """Exit when the parent process is gone (killed without running its exit handlers),
    removing the job's directory, which the parent would have removed."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            shutil.rmtree(folder, ignore_errors=True)
            os._exit(3)  # pylint: disable=protected-access


def main(folder):
    """The child: compile the graph in ``folder`` as the parent would, filling the caches;
    record the key as warm. Exit status 0 when it compiled, 2 when the backend failed,
    :data:`UNPACKAGED` when a package was asked for and the graph cannot have one."""
    with open(os.path.join(folder, "spec.json")) as f:
        spec = json.load(f)
    threading.Thread(target=_watch_parent, args=(spec["parent"], folder), daemon=True).start()
    try:
        os.nice(10)
    except OSError:
        pass
    from ..symbol import load_json  # pylint: disable=import-outside-toplevel
    from .compiler import CompiledGraph  # pylint: disable=import-outside-toplevel
    from .inductor import InductorGraph  # pylint: disable=import-outside-toplevel
    with open(os.path.join(folder, "graph.json")) as f:
        symbol = load_json(f.read())
    tensors = torch.load(os.path.join(folder, "inputs.pt"), weights_only=True)
    tensors = [t.requires_grad_(r) for t, r in zip(tensors, spec["requires_grad"])]
    graph = InductorGraph(CompiledGraph(symbol), spec["is_param"], spec["static_shape"])
    is_train, recording = spec["mode"]
    if spec["what"] in ("unfrozen", "package"):  # a frozen prediction's (inductor.py's _Frozen)
        frozen = graph._compile((False, False), tensors)  # pylint: disable=protected-access
        with torch.no_grad():
            if spec["what"] == "package":
                if frozen.package_only([tensors[k] for k in frozen.data_index]):
                    return 0
            # the unfrozen function, asked for or instead of a package the graph cannot have
            # (torch.export failed: box_nms's data-dependent sizes): torch.compile's freezing is
            # not cached on disk, so the parent will serve the unfrozen function, compiled here
            frozen.unfrozen(*tensors)
        return UNPACKAGED if spec["what"] == "package" else 0
    with torch.set_grad_enabled(recording):
        out = graph(tensors, is_train)
        if recording:
            outs = [o for o in out if o.requires_grad]
            if outs:
                torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
    if graph._failed:  # pylint: disable=protected-access
        return 2
    record = read_record(spec["record"])
    record[spec["key"]] = True
    write_record(spec["record"], record)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: os._exit(4))  # pylint: disable=protected-access
    sys.exit(main(sys.argv[1]))
