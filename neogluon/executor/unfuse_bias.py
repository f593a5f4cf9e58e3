"""An inductor graph pass of the compiled backend: a matrix product's bias added by the
pointwise code that reads the product, not by the product, on the CPU.

A ``FullyConnected`` with a bias lowers to ``aten.addmm(bias, x, w.t())``. On the CPU aten
runs it as two passes over the output: the bias broadcast into the output, then the GEMM
accumulating onto it (beta = 1). When every reader of the product is pointwise (an
activation, the sum of an LSTM's two gate products and its sigmoid/tanh, a residual add),
``mm`` followed by ``+ bias`` lets inductor fold the add into the code those readers already
run, and the extra pass goes: the LSTMCell benchmark (20 steps, two products a step) spent
about 12% of its compiled prediction on those broadcasts. inductor does this rewrite itself
only on GPUs (``should_prefer_unfused_addmm`` in ``torch/_inductor/fx_passes/post_grad.py``);
this pass is the same rewrite for the CPU graphs neogluon compiles, given to inductor as its
``post_grad_custom_post_pass``. The sum is the same (the bias is added once, in float32);
only the rounding order differs (bias last instead of first).

Imported only when the backend compiles (it imports inductor)."""
import hashlib

import torch
from torch._inductor.custom_graph_pass import CustomGraphPass
from torch._inductor.utils import is_pointwise_use

__all__ = ["UnfuseBias"]

_aten = torch.ops.aten


class UnfuseBias(CustomGraphPass):
    """``addmm(b, x, w)`` -> ``mm(x, w) + b`` where every use is pointwise, on the CPU."""

    def __call__(self, graph):
        for node in list(graph.find_nodes(op="call_function", target=_aten.addmm.default)):
            if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1 or len(node.args) != 3:
                continue
            val = node.meta.get("val")
            if val is None or val.device.type != "cpu" or not node.users:
                continue
            if not all(is_pointwise_use(use) for use in node.users):
                continue
            bias, x, w = node.args
            with graph.inserting_before(node):
                product = graph.call_function(_aten.mm.default, (x, w))
                product.meta.update(node.meta)
                total = graph.call_function(_aten.add.Tensor, (product, bias))
                total.meta.update(node.meta)
            node.replace_all_uses_with(total)
            graph.erase_node(node)

    def uuid(self):
        with open(__file__, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def __repr__(self):  # in a package's cache key (executor/inductor.py)
        return "UnfuseBias()"
