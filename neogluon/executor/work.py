"""How much work a graph does, from its shapes: the estimate behind neogluon/threads.py's
one thread for tiny graphs (a hybridized block's call, an executor's forward)."""
from ..symbol.infer import infer_graph, known

__all__ = ["work"]

# Operators whose cost is a contraction: multiply-adds from their shapes (:func:`work`)
_CONVOLUTIONS = ("Convolution", "Deconvolution")
_CONTRACTIONS = frozenset(("FullyConnected", "dot", "batch_dot", "linalg_gemm", "linalg_gemm2", "_npi_matmul",
                           "_np_dot", "_npi_dot", "_npi_tensordot", "_npi_einsum", "_contrib_interleaved_matmul_selfatt_qk",
                           "_contrib_interleaved_matmul_selfatt_valatt", "_contrib_interleaved_matmul_encdec_qk",
                           "_contrib_interleaved_matmul_encdec_valatt"))


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def work(symbol, shapes, dtypes=None):
    """``(macs, largest)``: an estimate of a graph's multiply-adds (its convolutions' and
    matrix products') and the most elements any of its operators makes, for input ``shapes``
    (a dict by name); ``(inf, inf)`` when unknown (a shape not inferred, an RNN, a loop or
    branch over subgraphs, whose cost the shapes do not tell). A product's multiply-adds are
    ``sqrt(|a| |b| |out|)`` (exact for a matrix product ``m x k`` by ``k x n``; an
    overestimate for batched ones)."""
    inf = (float("inf"), float("inf"))
    try:
        g = infer_graph(symbol, shapes, dtypes)
    except Exception:  # pylint: disable=broad-except
        return inf
    macs, largest = 0, 0
    for node in g.order:
        if node.op is None:
            continue
        if node.subgraphs or node.op.name == "RNN":
            return inf
        ins = [g.entry(src, i)[0] for src, i, _ in node.inputs]
        outs = [g.entry(node, i)[0] for i in range(node.num_visible_outputs())]
        if not all(s is not None and known(s) for s in ins + outs):
            return inf
        largest = max([largest] + [_size(s) for s in outs])
        name = node.op.name
        if name in _CONVOLUTIONS and len(ins) > 1:  # weight (C_out, C_in / groups, *kernel) or transposed
            per = _size(ins[1][1:])
            macs += per * (_size(outs[0]) if name == "Convolution" else _size(ins[0]))
        elif name in _CONTRACTIONS and len(ins) > 1:
            macs += int((_size(ins[0]) * _size(ins[1]) * _size(outs[0])) ** 0.5)
    return macs, largest
