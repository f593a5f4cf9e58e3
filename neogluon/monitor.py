"""``mx.monitor.Monitor`` (``mx.mon``): statistics of every intermediate output, MXNet 1.9.1's way.

Between ``tic()`` and ``toc()`` of every ``interval``-th batch, each installed executor's
forward also reports its node outputs (``fc1_output``, ...), and ``toc`` adds its arguments and
auxiliary states; ``stat_func`` (default ``norm(x)/sqrt(x.size)``) is applied to each array whose
name matches ``pattern``, and ``toc`` returns ``(step, name, "<values>\\t")`` rows (sorted by name
with ``sort``), which ``toc_print`` logs as MXNet does.

neogluon's executor runs its graph as one compiled function, so the node outputs are computed
by a second executor of ``symbol.get_internals()`` bound to the same arguments (and to copies of
the auxiliary states, so BatchNorm's statistics are updated once), right after the monitored
forward. Random operators (Dropout) therefore draw a different mask for the monitor than for
the real forward, and ``monitor_all`` reports the outputs only (not each node's inputs).
"""
import logging
import re
from math import sqrt

from . import ndarray
from . import symbol as _sym
from .ndarray import NDArray

__all__ = ["Monitor"]


def _default_stat(x):
    return ndarray.norm(x) / sqrt(x.size)


class _InternalsProbe:
    """An executor of the op nodes' outputs of ``exe``'s symbol, sharing ``exe``'s arguments."""

    def __init__(self, exe):
        internals = exe._symbol.get_internals()  # pylint: disable=protected-access
        inputs = set(exe._symbol.list_inputs())  # pylint: disable=protected-access
        self.names = [n for n in internals.list_outputs() if n not in inputs]
        group = _sym.Group([internals[n] for n in self.names])
        self.aux = {n: a.copy() for n, a in exe.aux_dict.items()}
        self.exe = group.bind(exe._ctx, dict(exe.arg_dict), grad_req="null",  # pylint: disable=protected-access
                              aux_states={n: self.aux[n] for n in group.list_auxiliary_states()})
        self.source = exe

    def run(self, is_train):
        for name, arr in self.aux.items():
            self.source.aux_dict[name].copyto(arr)
        return zip(self.names, self.exe.forward(is_train=is_train))


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
        """Record ``stat_func(array)`` under ``name`` while active and when ``name`` matches."""
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Monitor executor ``exe`` (Module.install_monitor installs on each of its executors)."""
        forward = exe.forward
        probe = []

        def monitored_forward(is_train=False, **kwargs):
            outputs = forward(is_train=is_train, **kwargs)
            if self.activated:
                if not probe:
                    probe.append(_InternalsProbe(exe))
                for name, arr in probe[0].run(is_train):
                    self.stat_helper(name, arr)
            return outputs
        exe.forward = monitored_forward
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
