"""ONNX converters of the interleaved attention operators GluonNLP's BERT and Transformer use
(``_contrib_interleaved_matmul_*``): projections cut out of the interleaved (L, B, H*parts*D)
tensor with Reshape/Gather/Transpose, products with MatMul (see ``operator/attention.py``)."""
import numpy as np

from .graph import converter

__all__ = []


def _projection(c, i, heads, parts, index):
    """Projection ``index`` of input ``i`` (L, B, H*parts*D) as (B*H, L, D)."""
    length, batch, width = c.shape(i)
    dim = width // (heads * parts)
    x = c.emit("Reshape", [c.input(i), c.ints([0, 0, heads, parts, dim])])
    p = c.emit("Gather", [x, c.const(np.int64(index), "index")], axis=3)       # (L, B, H, D)
    p = c.emit("Transpose", [p], perm=[1, 2, 0, 3])                            # (B, H, L, D)
    return c.emit("Reshape", [p, _shape(c, [-1, length, dim], {1: (c.input(i), 0)})]), dim


def _shape(c, dims, free):
    """A Reshape's shape ``dims``; with ``dynamic``, the entries ``free`` names (position ->
    (tensor, axis)) are read from those tensors' shapes at run time."""
    if not c.dynamic:
        return c.ints(dims)
    parts = []
    for k, d in enumerate(dims):
        if k in free:
            name, axis = free[k]
            parts.append(c.slice(c.emit("Shape", [name]), [axis], [axis + 1], [0]))
        else:
            parts.append(c.ints([d]))
    return c.emit("Concat", parts, axis=0)


def _merge_heads(c, out, heads, length, batch, dim):
    """(B*H, L, D) -> (L, B, H*D) into the node's output."""
    x = c.emit("Reshape", [out, _shape(c, [-1, heads, length, dim], {2: (out, 1)})])
    x = c.emit("Transpose", [x], perm=[2, 0, 1, 3])
    c.emit("Reshape", [x, c.ints([0, 0, heads * dim])], out=c.out())


def _scaled_qk(c, q, k, dim):
    q = c.emit("Div", [q, c.scalar(np.sqrt(dim))])
    c.emit("MatMul", [q, c.emit("Transpose", [k], perm=[0, 2, 1])], out=c.out())


@converter("_contrib_interleaved_matmul_selfatt_qk")
def convert_selfatt_qk(c):
    heads = c.attrs["heads"]
    q, dim = _projection(c, 0, heads, 3, 0)
    k, _ = _projection(c, 0, heads, 3, 1)
    _scaled_qk(c, q, k, dim)


@converter("_contrib_interleaved_matmul_selfatt_valatt")
def convert_selfatt_valatt(c):
    heads = c.attrs["heads"]
    length, batch, _ = c.shape(0)
    v, dim = _projection(c, 0, heads, 3, 2)
    _merge_heads(c, c.emit("MatMul", [c.input(1), v]), heads, length, batch, dim)


@converter("_contrib_interleaved_matmul_encdec_qk")
def convert_encdec_qk(c):
    heads = c.attrs["heads"]
    q, dim = _projection(c, 0, heads, 1, 0)
    k, _ = _projection(c, 1, heads, 2, 0)
    _scaled_qk(c, q, k, dim)


@converter("_contrib_interleaved_matmul_encdec_valatt")
def convert_encdec_valatt(c):
    heads = c.attrs["heads"]
    length = c.shape(1)[1]
    _, batch, _ = c.shape(0)
    v, dim = _projection(c, 0, heads, 2, 1)
    _merge_heads(c, c.emit("MatMul", [c.input(1), v]), heads, length, batch, dim)
