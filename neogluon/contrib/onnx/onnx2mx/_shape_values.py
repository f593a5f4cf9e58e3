"""Shape arithmetic on dimensions only known at run time, for importing ONNX models with free
input dimensions (``dynamic=True`` exports).

``Shape`` of a tensor whose shape is not static gives a :class:`Dims`: a vector whose entries
are numbers or expressions of run-time dimensions (``("dim", tensor, axis)``, products,
quotients...). Gather, Slice, Concat, Squeeze/Unsqueeze, ReduceProd, Cast and integer
arithmetic on such vectors are evaluated here, at import time, on the expressions. Their
consumers turn them back into what MXNet's operators take: ``Reshape`` into its special codes
(0 copies an input dimension, -3 merges two, -4 splits one, -1 infers one), a ``Slice`` ending
at another tensor's dimensions into ``slice_like``; anything else gets the vector computed in
the graph (``shape_array``, ``slice_axis``, ``concat``).
"""
import numpy as np

from .... import symbol as S

__all__ = ["Dims", "evaluate", "reshape_codes", "materialize"]

_INT_TYPES = (2, 3, 4, 5, 6, 7, 12, 13)   # onnx.TensorProto's integer element types


class Dims:
    """A 1-D int64 shape vector (or a scalar, ``scalar=True``) with symbolic entries."""

    def __init__(self, items, scalar=False):
        self.items, self.scalar = list(items), scalar

    def static(self):
        return all(isinstance(e, int) for e in self.items)

    def value(self):
        arr = np.array(self.items, dtype=np.int64)
        return arr.reshape(()) if self.scalar else arr

    def __repr__(self):
        return "Dims(%r%s)" % (self.items, ", scalar" if self.scalar else "")


def _as_dims(g, name):
    """The input ``name`` as Dims (a constant 0-d or 1-d integer tensor too), else None."""
    d = g.dims(name)
    if d is not None:
        return d
    v = g.value(name)
    if v is not None and v.ndim <= 1 and np.issubdtype(v.dtype, np.integer):
        return Dims([int(x) for x in v.reshape(-1)], scalar=v.ndim == 0)
    return None


def _const(g, node, i, attrs, attr):
    if attr in attrs:
        return [int(x) for x in np.asarray(attrs[attr]).reshape(-1)]
    if i < len(node.input) and node.input[i]:
        v = g.value(node.input[i])
        return None if v is None else [int(x) for x in v.reshape(-1)]
    return None


def _arith(op, a, b):
    if isinstance(a, int) and isinstance(b, int):
        return {"Mul": a * b, "Add": a + b, "Sub": a - b, "Div": a // b if b else 0}[op]
    if op == "Mul" and (a == 1 or b == 1):
        return b if a == 1 else a
    if op == "Div" and b == 1:
        return a
    return (op.lower(), a, b)


def evaluate(g, node, attrs):
    """The outputs of ``node`` as Dims when it is shape arithmetic on Dims, else None."""
    t = node.op_type
    if t == "Shape":
        shape = g.partial_shape(node.input[0])
        items = [d if d > 0 else ("dim", node.input[0], k) for k, d in enumerate(shape)]
        start, end = attrs.get("start", 0), attrs.get("end")
        return [Dims(items[start:end])]
    ins = [_as_dims(g, i) for i in node.input if i]
    if (t == "Identity" or t == "Cast" and attrs.get("to") in _INT_TYPES) and ins[0] is not None:
        return [ins[0]]
    if t == "Gather" and ins[0] is not None and attrs.get("axis", 0) == 0 and ins[1] is not None \
            and ins[1].static():
        idx = ins[1].items
        picked = [ins[0].items[k] for k in idx]
        return [Dims(picked, scalar=ins[1].scalar)]
    if t == "Slice" and ins[0] is not None:
        starts, ends = _const(g, node, 1, attrs, "starts"), _const(g, node, 2, attrs, "ends")
        axes, steps = _const(g, node, 3, attrs, "axes") or [0], _const(g, node, 4, attrs, "steps") or [1]
        if starts is None or ends is None or axes != [0]:
            return None
        return [Dims(ins[0].items[slice(starts[0], ends[0], steps[0])])]
    if t == "Concat" and all(d is not None for d in ins):
        return [Dims([e for d in ins for e in d.items])]
    if t == "Unsqueeze" and ins[0] is not None and ins[0].scalar:
        return [Dims(ins[0].items)]
    if t == "Squeeze" and ins[0] is not None and len(ins[0].items) == 1:
        return [Dims(ins[0].items, scalar=True)]
    if t == "ReduceProd" and ins[0] is not None:
        prod = 1
        for e in ins[0].items:
            prod = _arith("Mul", prod, e)
        return [Dims([prod], scalar=not attrs.get("keepdims", 1))]
    if t in ("Mul", "Div", "Add", "Sub") and len(ins) == 2 and all(d is not None for d in ins):
        a, b = ins
        n = max(len(a.items), len(b.items))
        if len(a.items) not in (1, n) or len(b.items) not in (1, n):
            return None
        pick = lambda d, k: d.items[0] if len(d.items) == 1 else d.items[k]  # noqa: E731
        return [Dims([_arith(t, pick(a, k), pick(b, k)) for k in range(n)], scalar=a.scalar and b.scalar)]
    return None


def reshape_codes(source, shape, dims):
    """MXNet Reshape codes giving the shape ``dims`` (a Dims) from the input tensor
    ``source`` of partial shape ``shape`` (0: a run-time dimension), or None when they cannot
    express it."""
    def is_dim(e, j):
        return j < len(shape) and (e == ("dim", source, j) or isinstance(e, int) and e > 0 and e == shape[j])

    items, codes, src, k, inferred = dims.items, [], 0, 0, any(e == -1 for e in dims.items)
    while k < len(items):
        e = items[k]
        if isinstance(e, tuple) and e[0] == "dim" and is_dim(e, src):
            codes.append(0)
            src += 1
        elif isinstance(e, tuple) and e[0] == "mul" and is_dim(e[1], src) and is_dim(e[2], src + 1):
            codes.append(-3)
            src += 2
        elif isinstance(e, tuple) and e[0] == "div" and is_dim(e[1], src) and isinstance(e[2], int) \
                and k + 1 < len(items) and items[k + 1] == e[2]:
            codes += [-4, -1, e[2]]
            src += 1
            k += 1
        elif isinstance(e, int) and e == 0:        # ONNX's 0: the input dimension at the same index
            if k != src:
                return None
            codes.append(0)
            src += 1
        elif isinstance(e, int):
            codes.append(e)
            src += 1
        elif not inferred:                         # the one dimension MXNet infers from the size
            codes.append(-1)
            inferred = True
            src += 1
        else:
            return None
        k += 1
    return tuple(codes)


def materialize(g, dims, name):
    """The Dims vector computed in the graph (``shape_array`` of the tensors it reads)."""
    if dims.scalar:
        raise ValueError("a scalar run-time dimension is only imported as part of a shape")
    parts = [_expr(g, e) for e in dims.items]
    return parts[0] if len(parts) == 1 else S.concat(*parts, dim=0, name=name)


def _expr(g, e):
    if isinstance(e, int):
        return g.param("dim_const", np.array([e], dtype=np.int64))
    if e[0] == "dim":
        return S.slice_axis(S.shape_array(g.sym(e[1])), axis=0, begin=e[2], end=e[2] + 1)
    op = {"mul": S.broadcast_mul, "add": S.broadcast_add, "sub": S.broadcast_sub, "div": S.broadcast_div}[e[0]]
    return op(_expr(g, e[1]), _expr(g, e[2]))
