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
    if not c.dynamic:
        return c.emit("Reshape", [p, c.ints([batch * heads, length, dim])]), dim
    # MXNet's (-3, 0, 0) from p's own shape: (B*H, L, D)
    shape = c.emit("Shape", [p])
    merged = c.reduce("ReduceProd", c.slice(shape, [0], [2], [0]), [0], True)
    return c.emit("Reshape", [p, c.emit("Concat", [merged, c.slice(shape, [2], [4], [0])], axis=0)]), dim


def _merge_heads(c, out, heads, length, batch, dim):
    """(B*H, L, D) -> (L, B, H*D) into the node's output."""
    if c.dynamic:   # MXNet's (-4, -1, H, 0, 0) from the product's own shape
        shape = c.emit("Shape", [out])
        split = [c.emit("Div", [c.slice(shape, [0], [1], [0]), c.ints([heads])]), c.ints([heads]),
                 c.slice(shape, [1], [3], [0])]
        x = c.emit("Reshape", [out, c.emit("Concat", split, axis=0)])
    else:
        x = c.emit("Reshape", [out, c.ints([batch, heads, length, dim])])
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
