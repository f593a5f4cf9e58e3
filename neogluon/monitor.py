"""``mx.monitor.Monitor`` (``mx.mon``): statistics of every intermediate output, MXNet 1.9.1's way.

Between ``tic()`` and ``toc()`` of every ``interval``-th batch, each installed executor reports
through its monitor callback (``Executor.set_monitor_callback``, executor/monitored.py) every
node's outputs in the forward (``fc1_output``, ...) and the gradients each operator hands its
arguments in the backward (``fc1_backward_output0``, ...); ``toc`` adds the executors' arguments
and auxiliary states. ``stat_func`` (default ``norm(x)/sqrt(x.size)``) is applied to each array
whose name matches ``pattern``, and ``toc`` returns ``(step, name, "<values>\\t")`` rows (sorted by
name with ``sort``), which ``toc_print`` logs as MXNet does.
"""
import ctypes
import logging
import re
from math import sqrt

from . import ndarray
from .base import py_str
from .ndarray import NDArray

__all__ = ["Monitor"]


def _default_stat(x):
    return ndarray.norm(x) / sqrt(x.size)


class Monitor:
    """Collects ``stat_func`` of outputs, arguments and auxiliary states every ``interval`` batches."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = stat_func or _default_stat
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """The executors' callback: record ``stat_func`` of the array behind the handle under
        ``name`` (bytes) while active and when ``name`` matches."""
        name = py_str(name)
        if not self.activated or not self.re_prog.match(name):
            return
        array = NDArray(ctypes.cast(array, ctypes.c_void_p), writable=False)  # MXNet: NDArrayHandle
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Monitor executor ``exe`` (Module.install_monitor installs on each of its executors)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting if this step is a multiple of ``interval``."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; ``[(step, name, "<stat values>\\t")]`` including arguments and aux states."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):  # pylint: disable=protected-access
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):  # pylint: disable=protected-access
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        res = []
        for n, k, v_list in self.queue:
            if isinstance(v_list, NDArray):
                v_list = [v_list]
            if not isinstance(v_list, list):
                raise AssertionError("Monitor: stat_func must return an NDArray or a list of them")
            s = ""
            for v in v_list:
                s += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            res.append((n, k, s))
        self.queue = []
        return res

    def toc_print(self):
        """``toc`` and log each row as ``Batch: <step> <name> <values>``."""
        for n, k, v in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(n, k, v))
