"""An executor's forward and backward with a monitor callback (``Executor.set_monitor_callback``).

MXNet 1.9.1's executor calls the callback after every node it runs: in the forward each
operator's outputs (``fc1_output``, BatchNorm's hidden ``bn1_mean``/``bn1_var`` too), with
``monitor_all`` each operator's inputs before it (``fc1_data``, ``fc1_weight``, ...), and in the
backward each gradient node's outputs: the gradients an operator hands its arguments,
``<node>_backward_output`` for one argument, ``<node>_backward_output0``, ``1``, ... for several
(the data's gradient included, though no argument asked for it). The callback receives the
name as bytes and the array as a handle, ``callback(b"fc1_output", handle)``, which
``NDArray(ctypes.cast(handle, NDArrayHandle))`` turns into the array while the callback runs
(``mx.monitor.Monitor.stat_helper`` does so), as with MXNet's C callback.

neogluon runs a monitored forward node by node (:meth:`CompiledGraph.run_nodes`) instead of
the generated function, with each operator's arguments passed through an alias of their own
(a view, or for an input that records nothing a new leaf): the backward then asks torch
autograd for the gradient of each alias besides the variables', which is exactly what that
operator handed that argument (a value used twice gets one gradient per use; their sum is
reported as ``sum_grad_output`` before the gradients of the operator that made the value, where
MXNet's graph adds them in a node of that name). Not reported: MXNet's other graph-internal
nodes (the ``zeros_without_dtype`` gradients of unused hidden outputs, oneDNN's
``pool1_workspace``), BatchNorm's hidden outputs (``bn1_mean``, ``bn1_var``), and a gradient
no argument asked for (the data's) is the true one where MXNet reports the memory its
planner gave that unwritten output;
operators whose gradient MXNet passes through without a node (``elemwise_add``,
``add_n``/``ElementWiseSum``) report none, as there. With ``monitor_all`` the backward reports
its outputs only (MXNet also each gradient node's inputs, which depend on its kernels).
"""
import torch

from ..ndarray.ndarray import NDArray, lend_handle

__all__ = ["MonitoredRun"]

# operators whose gradient MXNet's graph passes to the inputs without a node (CloneGradient)
_NO_BACKWARD_NODE = frozenset(("elemwise_add", "_add", "_plus", "_Plus", "add_n", "ElementWiseSum", "_grad_add"))


def _alias(t):
    """``t`` under a name of its own in the autograd graph (its gradient is this use's alone)."""
    if t.requires_grad:
        return t.view_as(t)
    if t.is_floating_point():
        return t.detach().requires_grad_(True)
    return t


class MonitoredRun:
    """One monitored forward of a compiled graph and, when it recorded, its backward."""

    def __init__(self, compiled, callback, monitor_all):
        self.compiled = compiled
        self.callback = callback
        self.monitor_all = monitor_all
        self.uses = []  # (node, aliases of its arguments) in the order the nodes ran
        self.readers = {}  # (id(node), output index) -> the aliases its uses read it through

    def _report(self, name, tensor):
        with lend_handle(NDArray(tensor.detach())) as handle:
            self.callback(name.encode(), handle)

    def forward(self, tensors, is_train, record):
        """The graph's outputs, the callback called after each node; ``record``: grad mode on,
        each operator's arguments aliased for :meth:`backward`."""
        self.uses, self.readers = [], {}

        def before(node, ins):
            if self.monitor_all:
                for name, t in zip(node.op.input_names(node.parsed), ins):
                    self._report("%s_%s" % (node.name, name), t)
            if record:
                n = node.num_args()
                ins = [_alias(t) for t in ins[:n]] + ins[n:]
                self.uses.append((node, ins[:n]))
                for (src, i, _), a in zip(node.inputs, ins[:n]):
                    self.readers.setdefault((id(src), i), []).append(a)
            return ins

        def after(node, outs):
            for i, r in enumerate(outs):
                self._report(node.output_name(i), r)
        with torch.enable_grad() if record else torch.no_grad():
            return self.compiled.run_nodes(tensors, is_train, before, after)

    def backward(self, heads, head_grads, leaves):
        """The gradients of ``leaves`` (as ``torch.autograd.grad`` gives them), the callback
        called with each operator's argument gradients, last operator first."""
        wanted = [a for _, args in self.uses for a in args
                  if isinstance(a, torch.Tensor) and a.requires_grad]
        res = torch.autograd.grad(heads, list(leaves) + wanted, head_grads, retain_graph=True, allow_unused=True)
        per_use = {id(a): g for a, g in zip(wanted, res[len(leaves):])}
        for node, args in reversed(self.uses):
            for i in range(node.num_outputs()):  # a value used more than once: its gradients added
                grads = [per_use.get(id(a)) for a in self.readers.get((id(node), i), ())]
                grads = [g for g in grads if g is not None]
                if len(grads) > 1:
                    self._report("sum_grad_output", sum(grads[1:], grads[0]))
            if node.op.name in _NO_BACKWARD_NODE:
                continue
            for i, a in enumerate(args):
                g = per_use.get(id(a))
                self._report("%s_backward_output%s" % (node.name, "" if len(args) == 1 else i),
                             torch.zeros_like(a) if g is None else g)
        return res[:len(leaves)]
