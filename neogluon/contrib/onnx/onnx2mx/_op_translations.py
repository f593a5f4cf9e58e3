"""One translator per ONNX operator, to ``mx.sym`` (opsets 11 to 18).

A translator ``fn(g, node, attrs, name)`` gets the import state ``g`` (``g.sym(tensor)``,
``g.value(tensor)`` for constants, ``g.shape(tensor)``), the ONNX node, its attributes and
the MXNet name to give the result; it returns the Symbol (or the Symbols of the node's
outputs). ONNX's numpy broadcasting maps to MXNet's ``broadcast_*`` operators; ONNX's
booleans are MXNet's 1.0/0.0 of the input's dtype.
"""
import numpy as np

from .... import symbol as S
from ....base import MXNetError
from ....operator.rnn import GATES, param_layout
from ._shape_values import reshape_codes

__all__ = ["TRANSLATORS", "translator"]

TRANSLATORS = {}
_INT_MAX = 2 ** 62


def translator(*op_types):
    def deco(fn):
        for t in op_types:
            TRANSLATORS[t] = fn
        return fn
    return deco


def _fail(node, why):
    return MXNetError("ONNX import: %s node %s: %s" % (node.op_type, node.name or node.output[0], why))


def _ins(g, node):
    return [g.sym(i) for i in node.input if i]


def _const_input(g, node, i, attr=None, attrs=None):
    """An attribute that later opsets moved to input ``i`` (axes, pads, ...): a constant."""
    if attrs is not None and attr in attrs:
        return attrs[attr]
    if i >= len(node.input) or not node.input[i]:
        return None
    value = g.value(node.input[i])
    if value is None:
        raise _fail(node, "input %d (%s) must be a constant" % (i, node.input[i]))
    return value


def _ints(v):
    return tuple(int(x) for x in np.asarray(v).reshape(-1))


def _scalar(g, name):
    """The Python number of a one-element constant, else None."""
    v = g.value(name)
    if v is None or v.size != 1:
        return None
    return v.reshape(-1)[0].item()


# ----------------------------------------------------------------------------- element-wise
_BINARY = {"Add": ("broadcast_add", "_plus_scalar", "_plus_scalar"),
           "Sub": ("broadcast_sub", "_minus_scalar", "_rminus_scalar"),
           "Mul": ("broadcast_mul", "_mul_scalar", "_mul_scalar"),
           "Div": ("broadcast_div", "_div_scalar", "_rdiv_scalar"),
           "Pow": ("broadcast_power", "_power_scalar", "_rpower_scalar")}


@translator(*_BINARY)
def binary(g, node, attrs, name):
    full, right, left = _BINARY[node.op_type]
    a, b = node.input[0], node.input[1]
    sb, sa = _scalar(g, b), _scalar(g, a)
    if sb is not None and g.value(a) is None and np.ndim(g.value(b)) <= len(g.partial_shape(a)):
        return getattr(S, right)(g.sym(a), scalar=sb, name=name)
    if sa is not None and g.value(b) is None and np.ndim(g.value(a)) <= len(g.partial_shape(b)):
        return getattr(S, left)(g.sym(b), scalar=sa, name=name)
    return getattr(S, full)(g.sym(a), g.sym(b), name=name)


_VARIADIC = {"Sum": "broadcast_add", "Max": "broadcast_maximum", "Min": "broadcast_minimum"}


@translator(*_VARIADIC)
def variadic(g, node, attrs, name):
    ins = _ins(g, node)
    out = ins[0]
    for k, x in enumerate(ins[1:]):
        out = getattr(S, _VARIADIC[node.op_type])(out, x, name=name if k == len(ins) - 2 else None)
    return out if len(ins) > 1 else S.identity(out, name=name)


@translator("Mean")
def mean(g, node, attrs, name):
    ins = _ins(g, node)
    total = ins[0]
    for x in ins[1:]:
        total = S.broadcast_add(total, x)
    return S._div_scalar(total, scalar=float(len(ins)), name=name)  # pylint: disable=protected-access


_COMPARE = {"Equal": "broadcast_equal", "Less": "broadcast_lesser", "Greater": "broadcast_greater",
            "LessOrEqual": "broadcast_lesser_equal", "GreaterOrEqual": "broadcast_greater_equal",
            "And": "broadcast_logical_and", "Or": "broadcast_logical_or", "Xor": "broadcast_logical_xor"}


@translator(*_COMPARE)
def compare(g, node, attrs, name):
    return getattr(S, _COMPARE[node.op_type])(*_ins(g, node), name=name)


@translator("Mod")
def mod(g, node, attrs, name):
    a, b = _ins(g, node)
    if not attrs.get("fmod", 0):
        return S.broadcast_mod(a, b, name=name)
    quotient = S.fix(S.broadcast_div(a, b))  # C's fmod: a - b * trunc(a / b)
    return S.broadcast_sub(a, S.broadcast_mul(b, quotient), name=name)


@translator("Not")
def logical_not(g, node, attrs, name):
    return S.logical_not(g.sym(node.input[0]), name=name)


@translator("Where")
def where(g, node, attrs, name):
    """MXNet's ``where`` needs one shape: the three inputs (as float32) are broadcast by
    adding zeros of the broadcast shape."""
    parts = [S.Cast(g.sym(t), dtype="float32") for t in node.input]
    zero = S.zeros_like(parts[0])
    for p in parts[1:]:
        zero = S.broadcast_add(zero, S.zeros_like(p))
    return S.where(*[S.broadcast_add(p, zero) for p in parts], name=name)


_UNARY = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
          "Abs": "abs", "Neg": "negative", "Floor": "floor", "Ceil": "ceil", "Sign": "sign", "Erf": "erf",
          "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "arcsin", "Acos": "arccos", "Atan": "arctan",
          "Sinh": "sinh", "Cosh": "cosh", "Asinh": "arcsinh", "Acosh": "arccosh", "Atanh": "arctanh",
          "Reciprocal": "reciprocal", "Softsign": "softsign", "Identity": "identity"}


@translator(*_UNARY)
def unary(g, node, attrs, name):
    return getattr(S, _UNARY[node.op_type])(g.sym(node.input[0]), name=name)


@translator("Round")
def round_half_even(g, node, attrs, name):
    """ONNX rounds halves to even: floor(x) + (frac > 0.5) + (frac == 0.5) * (floor(x) mod 2)."""
    x = g.sym(node.input[0])
    low = S.floor(x)
    frac = x - low
    # pylint: disable=protected-access
    up = S._greater_scalar(frac, scalar=0.5) + S._equal_scalar(frac, scalar=0.5) * S._mod_scalar(low, scalar=2)
    return S.elemwise_add(low, up, name=name)


@translator("Dropout")
def dropout(g, node, attrs, name):
    return S.identity(g.sym(node.input[0]), name=name)


@translator("Softplus")
def softplus(g, node, attrs, name):
    return S.Activation(g.sym(node.input[0]), act_type="softrelu", name=name)


@translator("LeakyRelu")
def leaky_relu(g, node, attrs, name):
    return S.LeakyReLU(g.sym(node.input[0]), act_type="leaky", slope=attrs.get("alpha", 0.01), name=name)


@translator("Elu")
def elu(g, node, attrs, name):
    return S.LeakyReLU(g.sym(node.input[0]), act_type="elu", slope=attrs.get("alpha", 1.0), name=name)


@translator("Selu")
def selu(g, node, attrs, name):
    if abs(attrs.get("alpha", 1.67326) - 1.6732632) > 1e-5 or abs(attrs.get("gamma", 1.0507) - 1.0507010) > 1e-5:
        raise _fail(node, "MXNet's selu has the standard alpha and gamma only")
    return S.LeakyReLU(g.sym(node.input[0]), act_type="selu", name=name)


@translator("PRelu")
def prelu(g, node, attrs, name):
    slope = g.value(node.input[1])
    if slope is None:
        raise _fail(node, "the slope must be a constant")
    gamma = g.param(node.input[1] + "_gamma", slope.reshape(-1))
    return S.LeakyReLU(g.sym(node.input[0]), gamma, act_type="prelu", name=name)


@translator("HardSigmoid")
def hard_sigmoid(g, node, attrs, name):
    return S.hard_sigmoid(g.sym(node.input[0]), alpha=attrs.get("alpha", 0.2), beta=attrs.get("beta", 0.5),
                          name=name)


@translator("Clip")
def clip(g, node, attrs, name):
    lo = attrs.get("min", _scalar(g, node.input[1]) if len(node.input) > 1 and node.input[1] else None)
    hi = attrs.get("max", _scalar(g, node.input[2]) if len(node.input) > 2 and node.input[2] else None)
    lo = -np.inf if lo is None else lo
    hi = np.inf if hi is None else hi
    return S.clip(g.sym(node.input[0]), a_min=float(lo), a_max=float(hi), name=name)


@translator("Cast")
def cast(g, node, attrs, name):
    from onnx import helper  # pylint: disable=import-outside-toplevel
    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(attrs["to"]))
    if dtype == np.bool_:  # MXNet has no bool arrays: 1.0/0.0 of the input's dtype
        return S._not_equal_scalar(g.sym(node.input[0]), scalar=0, name=name)  # pylint: disable=protected-access
    return S.Cast(g.sym(node.input[0]), dtype=str(dtype), name=name)


# ----------------------------------------------------------------------------- layers
def _pads(node, attrs, nd):
    if attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise _fail(node, "auto_pad %s is not imported" % attrs["auto_pad"])
    pads = list(attrs.get("pads", [0] * 2 * nd))
    if pads[:nd] != pads[nd:]:
        raise _fail(node, "asymmetric pads %s are not imported" % pads)
    return tuple(pads[:nd])


@translator("Conv")
def conv(g, node, attrs, name):
    wshape = g.shape(node.input[1])
    nd = len(wshape) - 2
    kernel = tuple(attrs.get("kernel_shape", wshape[2:]))
    ins = _ins(g, node)
    return S.Convolution(*ins, kernel=kernel, stride=tuple(attrs.get("strides", (1,) * nd)),
                         dilate=tuple(attrs.get("dilations", (1,) * nd)), pad=_pads(node, attrs, nd),
                         num_filter=wshape[0], num_group=attrs.get("group", 1), no_bias=len(ins) < 3, name=name)


@translator("ConvTranspose")
def conv_transpose(g, node, attrs, name):
    wshape = g.shape(node.input[1])
    nd = len(wshape) - 2
    group = attrs.get("group", 1)
    extra = {}
    if "output_shape" in attrs:
        extra["target_shape"] = tuple(attrs["output_shape"][-nd:])
    ins = _ins(g, node)
    return S.Deconvolution(*ins, kernel=tuple(attrs.get("kernel_shape", wshape[2:])),
                           stride=tuple(attrs.get("strides", (1,) * nd)),
                           dilate=tuple(attrs.get("dilations", (1,) * nd)), pad=_pads(node, attrs, nd),
                           adj=tuple(attrs.get("output_padding", (0,) * nd)), num_filter=wshape[1] * group,
                           num_group=group, no_bias=len(ins) < 3, name=name, **extra)


def _pool(g, node, attrs, name, pool_type, **extra):
    kernel = tuple(attrs["kernel_shape"])
    nd = len(kernel)
    if any(d != 1 for d in attrs.get("dilations", ())):
        raise _fail(node, "dilated pooling is not imported")
    return S.Pooling(g.sym(node.input[0]), kernel=kernel, stride=tuple(attrs.get("strides", (1,) * nd)),
                     pad=_pads(node, attrs, nd), pool_type=pool_type,
                     pooling_convention="full" if attrs.get("ceil_mode", 0) else "valid", name=name, **extra)


@translator("MaxPool")
def max_pool(g, node, attrs, name):
    return _pool(g, node, attrs, name, "max")


@translator("AveragePool")
def avg_pool(g, node, attrs, name):
    return _pool(g, node, attrs, name, "avg", count_include_pad=bool(attrs.get("count_include_pad", 0)))


@translator("LpPool")
def lp_pool(g, node, attrs, name):
    return _pool(g, node, attrs, name, "lp", p_value=attrs.get("p", 2))


@translator("GlobalAveragePool", "GlobalMaxPool")
def global_pool(g, node, attrs, name):
    kind = "avg" if node.op_type == "GlobalAveragePool" else "max"
    return S.Pooling(g.sym(node.input[0]), kernel=(1, 1), global_pool=True, pool_type=kind, name=name)


@translator("BatchNormalization")
def batch_norm(g, node, attrs, name):
    return S.BatchNorm(*_ins(g, node)[:5], eps=attrs.get("epsilon", 1e-5), momentum=attrs.get("momentum", 0.9),
                       fix_gamma=False, use_global_stats=True, name=name)


@translator("InstanceNormalization")
def instance_norm(g, node, attrs, name):
    return S.InstanceNorm(*_ins(g, node), eps=attrs.get("epsilon", 1e-5), name=name)


@translator("LayerNormalization")
def layer_norm(g, node, attrs, name):
    ndim = len(g.partial_shape(node.input[0]))
    axis = attrs.get("axis", -1) % ndim
    if axis != ndim - 1:
        raise _fail(node, "normalisation over several axes (axis=%d) is not imported" % attrs.get("axis", -1))
    ins = _ins(g, node)
    if len(ins) < 3:
        ins.append(g.param(name + "_beta", np.zeros(g.shape(node.input[1]), dtype=np.float32)))
    return S.LayerNorm(*ins, axis=-1, eps=attrs.get("epsilon", 1e-5), name=name)


@translator("Gemm")
def gemm(g, node, attrs, name):
    a, b = g.sym(node.input[0]), g.sym(node.input[1])
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    has_c = len(node.input) > 2 and node.input[2]
    if attrs.get("transB", 0) and not attrs.get("transA", 0) and alpha == 1.0 and beta == 1.0 and (
            not has_c or len(g.partial_shape(node.input[2])) == 1):
        ins = [a, b] + ([g.sym(node.input[2])] if has_c else [])
        return S.FullyConnected(*ins, num_hidden=g.shape(node.input[1])[0], no_bias=not has_c, name=name)
    prod = S.dot(a, b, transpose_a=bool(attrs.get("transA", 0)), transpose_b=bool(attrs.get("transB", 0)))
    if alpha != 1.0:
        prod = S._mul_scalar(prod, scalar=alpha)  # pylint: disable=protected-access
    if not has_c:
        return S.identity(prod, name=name)
    c = g.sym(node.input[2])
    if beta != 1.0:
        c = S._mul_scalar(c, scalar=beta)  # pylint: disable=protected-access
    return S.broadcast_add(prod, c, name=name)


@translator("MatMul")
def matmul(g, node, attrs, name):
    sa, sb = g.partial_shape(node.input[0]), g.partial_shape(node.input[1])
    a, b = g.sym(node.input[0]), g.sym(node.input[1])
    if len(sb) == 2 and len(sa) >= 2 or len(sa) == len(sb) == 1:
        return S.dot(a, b, name=name)
    if len(sa) == len(sb) == 3:   # batch_dot checks the batch sizes at run time
        return S.batch_dot(a, b, name=name)
    sa, sb = g.shape(node.input[0]), g.shape(node.input[1])
    if len(sa) == len(sb) and len(sa) >= 3 and sa[:-2] == sb[:-2]:
        lead = sa[:-2]
        flat = S.batch_dot(S.reshape(a, shape=(-1,) + sa[-2:]), S.reshape(b, shape=(-1,) + sb[-2:]))
        return S.reshape(flat, shape=lead + (sa[-2], sb[-1]), name=name)
    raise _fail(node, "MatMul of shapes %s and %s is not imported" % (sa, sb))


def _softmax(g, node, attrs, name, fn):
    ndim = len(g.partial_shape(node.input[0]))
    x = g.sym(node.input[0])
    if g.opset_version >= 13:
        return fn(x, axis=attrs.get("axis", -1), name=name)
    axis = attrs.get("axis", 1) % ndim
    if axis == ndim - 1:
        return fn(x, axis=-1, name=name)
    flat = S.reshape(x, shape=(int(np.prod(g.shape(node.input[0])[:axis])), -1))
    return S.reshape_like(fn(flat, axis=-1), x, name=name)


@translator("Softmax")
def softmax(g, node, attrs, name):
    return _softmax(g, node, attrs, name, S.softmax)


@translator("LogSoftmax")
def log_softmax(g, node, attrs, name):
    return _softmax(g, node, attrs, name, S.log_softmax)


# ----------------------------------------------------------------------------- shapes
@translator("Flatten")
def flatten(g, node, attrs, name):
    axis = attrs.get("axis", 1)
    if axis == 1:
        return S.Flatten(g.sym(node.input[0]), name=name)
    shape = g.shape(node.input[0])
    axis %= len(shape) if axis else 1
    return S.reshape(g.sym(node.input[0]), shape=(int(np.prod(shape[:axis])), -1), name=name)


@translator("Reshape")
def reshape(g, node, attrs, name):
    dims = g.dims(node.input[1]) if len(node.input) > 1 else None
    if dims is not None:  # a shape computed from run-time dimensions: MXNet's special codes
        codes = reshape_codes(node.input[0], g.partial_shape(node.input[0]), dims)
        if codes is None:
            raise _fail(node, "the shape %s (of run-time dimensions) has no MXNet Reshape codes" % dims.items)
        return S.reshape(g.sym(node.input[0]), shape=codes, name=name)
    shape = _ints(_const_input(g, node, 1, "shape", attrs))
    if not shape:   # a 0-d tensor: MXNet's arrays have at least one dimension
        shape = (1,)
    if attrs.get("allowzero", 0) and 0 in shape:
        raise _fail(node, "allowzero with a 0 in the shape is not imported")
    return S.reshape(g.sym(node.input[0]), shape=shape, name=name)


@translator("Transpose")
def transpose(g, node, attrs, name):
    perm = attrs.get("perm")
    return S.transpose(g.sym(node.input[0]), axes=tuple(perm) if perm is not None else (), name=name)


@translator("Unsqueeze")
def unsqueeze(g, node, attrs, name):
    axes = _ints(_const_input(g, node, 1, "axes", attrs))
    ndim = len(g.partial_shape(node.input[0])) + len(axes)
    x = g.sym(node.input[0])
    axes = sorted(a % ndim for a in axes)
    for k, a in enumerate(axes):
        x = S.expand_dims(x, axis=a, name=name if k == len(axes) - 1 else None)
    return x


@translator("Squeeze")
def squeeze(g, node, attrs, name):
    axes = _const_input(g, node, 1, "axes", attrs)
    return S.squeeze(g.sym(node.input[0]), axis=None if axes is None else _ints(axes), name=name)


@translator("Concat")
def concat(g, node, attrs, name):
    ins = _ins(g, node)
    axis = attrs["axis"]
    if axis < 0:
        axis %= len(g.partial_shape(node.input[0]))
    return S.Concat(*ins, dim=axis, num_args=len(ins), name=name)


@translator("Split")
def split(g, node, attrs, name):
    shape = g.partial_shape(node.input[0])
    axis = attrs.get("axis", 0) % len(shape)
    sizes = _const_input(g, node, 1, "split", attrs)
    n = len(node.output)
    if sizes is None and not shape[axis]:   # equal parts of a run-time dimension
        return S.split(g.sym(node.input[0]), num_outputs=n, axis=axis, name=name)
    if sizes is None:
        sizes = [-(-shape[axis] // n)] * n
        sizes[-1] = shape[axis] - sum(sizes[:-1])
    sizes = _ints(sizes)
    if len(set(sizes)) == 1:
        return S.split(g.sym(node.input[0]), num_outputs=n, axis=axis, name=name)
    starts = np.cumsum((0,) + sizes[:-1])
    return [S.slice_axis(g.sym(node.input[0]), axis=axis, begin=int(b), end=int(b + s), name="%s%d" % (name, k))
            for k, (b, s) in enumerate(zip(starts, sizes))]


@translator("Slice")
def slice_(g, node, attrs, name):
    if len(node.input) > 2 and g.dims(node.input[2]) is not None:
        return _slice_like(g, node, attrs, name)
    shape = g.partial_shape(node.input[0])   # 0: a run-time dimension (the slice is not clamped)
    starts = _ints(_const_input(g, node, 1, "starts", attrs))
    ends = _ints(_const_input(g, node, 2, "ends", attrs))
    axes = _const_input(g, node, 3, "axes", attrs)
    axes = tuple(range(len(starts))) if axes is None else _ints(axes)
    steps = _const_input(g, node, 4)
    steps = (1,) * len(starts) if steps is None else _ints(steps)
    begin, end, step = [None] * len(shape), [None] * len(shape), [None] * len(shape)
    for a, b, e, s in zip(axes, starts, ends, steps):
        a %= len(shape)
        dim = shape[a] or _INT_MAX
        if s > 0:
            begin[a], end[a] = max(min(b, dim), -dim), None if e >= dim else max(e, -dim)
        else:
            begin[a], end[a] = None if b >= dim else b, None if e < -dim else e
        step[a] = s
    return S.slice(g.sym(node.input[0]), begin=tuple(begin), end=tuple(end), step=tuple(step), name=name)


_INT_MAX = 2 ** 63 - 1


def _slice_like(g, node, attrs, name):
    """A Slice from 0 to the run-time dimensions of one other tensor: ``slice_like``."""
    ends = g.dims(node.input[2]).items
    starts = _ints(_const_input(g, node, 1, "starts", attrs))
    ndim = len(g.partial_shape(node.input[0]))
    axes = _const_input(g, node, 3)
    axes = tuple(range(len(starts))) if axes is None else tuple(a % ndim for a in _ints(axes))
    steps = _const_input(g, node, 4)
    like = {e[1] for e in ends if isinstance(e, tuple) and e[0] == "dim"}
    if any(starts) or (steps is not None and any(s != 1 for s in _ints(steps))) or len(like) != 1:
        raise _fail(node, "ends %s of run-time dimensions are only imported as slice_like's" % (ends,))
    other = like.pop()
    known = g.partial_shape(other)
    # each end reads the same axis of the other tensor (a static one is its known size)
    if any((e != known[a] or not e) if isinstance(e, int) else (e[0] != "dim" or e[2] != a)
           for e, a in zip(ends, axes)):
        raise _fail(node, "ends %s are not the dimensions %s of %s" % (ends, axes, other))
    return S.slice_like(g.sym(node.input[0]), g.sym(other), axes=axes, name=name)


@translator("Size")
def size(g, node, attrs, name):
    return S.size_array(g.sym(node.input[0]), name=name)


@translator("Shape")
def shape_(g, node, attrs, name):
    """The shape of a tensor computed at run time (folded when static, see _shape_values)."""
    if attrs.get("start", 0) or attrs.get("end") is not None:
        raise _fail(node, "start/end of a run-time shape are not imported")
    return S.shape_array(g.sym(node.input[0]), name=name)


@translator("Gather")
def gather(g, node, attrs, name):
    axis = attrs.get("axis", 0)
    data = g.sym(node.input[0])
    if axis < 0:
        axis %= len(g.partial_shape(node.input[0]))
    idx = g.value(node.input[1])
    if idx is not None and idx.ndim == 0:  # a scalar index drops the axis
        return S.squeeze(S.slice_axis(data, axis=axis, begin=int(idx), end=int(idx) + 1 or None), axis=axis,
                         name=name)
    return S.take(data, g.sym(node.input[1]), axis=axis, mode="wrap", name=name)


@translator("Expand")
def expand(g, node, attrs, name):
    target = _ints(_const_input(g, node, 1))
    shape = np.broadcast_shapes(g.shape(node.input[0]), target)
    x = g.sym(node.input[0])
    have = g.shape(node.input[0])
    if len(have) < len(shape):
        x = S.reshape(x, shape=(1,) * (len(shape) - len(have)) + tuple(have))
    return S.broadcast_to(x, shape=tuple(shape), name=name)


@translator("Tile")
def tile(g, node, attrs, name):
    return S.tile(g.sym(node.input[0]), reps=_ints(_const_input(g, node, 1)), name=name)


@translator("Pad")
def pad(g, node, attrs, name):
    pads = _ints(_const_input(g, node, 1, "pads", attrs))
    if not any(pads):   # (an exported while loop's padding, which MXNet's while_loop already does)
        return S.identity(g.sym(node.input[0]), name=name)
    nd = len(pads) // 2
    width = tuple(int(v) for pair in zip(pads[:nd], pads[nd:]) for v in pair)
    value = attrs.get("value", _scalar(g, node.input[2]) if len(node.input) > 2 and node.input[2] else 0.0)
    return S.Pad(g.sym(node.input[0]), mode=attrs.get("mode", "constant"), pad_width=width,
                 constant_value=float(value or 0.0), name=name)


_REDUCE = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min", "ReduceProd": "prod"}


def _reduce_axes(g, node, attrs):
    if "axes" in attrs:
        return _ints(attrs["axes"])
    if len(node.input) > 1 and node.input[1]:
        return _ints(_const_input(g, node, 1))
    return None


@translator(*_REDUCE, "ReduceL2", "ReduceL1")
def reduce_(g, node, attrs, name):
    axes = _reduce_axes(g, node, attrs)
    keep = bool(attrs.get("keepdims", 1))
    x = g.sym(node.input[0])
    if axes is None and attrs.get("noop_with_empty_axes", 0):
        return S.identity(x, name=name)
    if node.op_type in ("ReduceL2", "ReduceL1"):
        return S.norm(x, ord=2 if node.op_type == "ReduceL2" else 1, axis=axes, keepdims=keep, name=name)
    return getattr(S, _REDUCE[node.op_type])(x, axis=axes, keepdims=keep, name=name)


def _body_outputs(g, body):
    """Translate a control flow body's nodes; the Symbols of its outputs."""
    g.translate_nodes(body.node)
    return [g.sym(o.name) for o in body.output]


@translator("If")
def if_(g, node, attrs, name):
    """``_cond``: the branches are translated in the enclosing graph's scope (MXNet's frontend
    turns the outer values they read into the node's inputs)."""
    then_g, else_g = attrs["then_branch"], attrs["else_branch"]
    outs = S.contrib.cond(g.sym(node.input[0]), lambda: _body_outputs(g, then_g), lambda: _body_outputs(g, else_g),
                          name=name)
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


@translator("Scan")
def scan(g, node, attrs, name):
    """``_foreach`` over axis 0 (Scan's defaults): N states, then the scanned inputs."""
    body = attrs["body"]
    m = attrs["num_scan_inputs"]
    n = len(node.input) - m
    if any(attrs.get(k) and any(attrs[k]) for k in ("scan_input_axes", "scan_input_directions",
                                                      "scan_output_axes", "scan_output_directions")):
        raise _fail(node, "scans along other axes or in reverse are not imported")

    def step(data, states):
        data = data if isinstance(data, list) else [data]
        states = states if isinstance(states, list) else [states]
        _bind_formals(g, body.input, states + data)
        outs = _body_outputs(g, body)
        return outs[n:], outs[:n]

    data = [g.sym(i) for i in node.input[n:]]
    outs, states = S.contrib.foreach(step, data, [g.sym(i) for i in node.input[:n]], name=name)
    outs = outs if isinstance(outs, list) else [outs]
    states = states if isinstance(states, list) else [states]
    return states + outs


def _bind_formals(g, formals, values):
    """A body's input names bound to Symbols, with the shapes the exporter wrote for them."""
    for formal, value in zip(formals, values):
        g._nodes[formal.name] = value  # pylint: disable=protected-access
        dims = tuple(d.dim_value for d in formal.type.tensor_type.shape.dim)
        g._partial[value.name] = dims  # pylint: disable=protected-access
        if all(d > 0 for d in dims):
            g._shapes[value.name] = dims  # pylint: disable=protected-access


@translator("Loop")
def loop(g, node, attrs, name):
    """``_while_loop`` with two more loop variables: the step count (the body's first input)
    and the condition the body computes last (the loop's condition). MXNet stacks the step
    outputs to ``max_iterations`` rows, zeros past the last step."""
    body = attrs["body"]
    trips = g.value(node.input[0]) if node.input[0] else None
    if trips is None:
        raise _fail(node, "a loop without a constant trip count is not imported (MXNet's while_loop needs "
                          "max_iterations)")
    n = len(node.input) - 2
    first = S.Cast(g.sym(node.input[1]), dtype="float32") if node.input[1] else \
        g.param(name + "_true", np.ones(1, np.float32))

    def func(step, flag, *carried):  # pylint: disable=unused-argument
        _bind_formals(g, body.input, [step, flag] + list(carried))
        outs = _body_outputs(g, body)
        # the new condition times the current one (1 inside the loop): MXNet wants every
        # loop variable used
        keep = S.broadcast_mul(S.Cast(outs[0], dtype="float32"), S.Cast(flag, dtype="float32"))
        return outs[1 + n:], [step + 1, keep] + outs[1:1 + n]

    start = g.param(name + "_start", np.zeros(1, np.float32))
    outs, finals = S.contrib.while_loop(lambda step, flag, *carried: flag, func,
                                        [start, first] + [g.sym(i) for i in node.input[2:]],
                                        max_iterations=int(np.asarray(trips).reshape(-1)[0]), name=name)
    outs = outs if isinstance(outs, list) else [outs]
    return list(finals[2:]) + outs


@translator("TopK")
def topk(g, node, attrs, name):
    """Values and int64 indices along ``axis``; ties in index order, as MXNet's topk."""
    k = _ints(_const_input(g, node, 1, "k", attrs))[0]
    if not attrs.get("sorted", 1):
        raise _fail(node, "sorted=0 is not imported")
    return list(S.topk(g.sym(node.input[0]), axis=attrs.get("axis", -1), k=k, ret_typ="both",
                       is_ascend=not attrs.get("largest", 1), dtype="int64", name=name))


@translator("RoiAlign")
def roi_align(g, node, attrs, name):
    """MXNet's ROIAlign on (batch index, x1, y1, x2, y2) rows; ONNX's half_pixel (the default
    from opset 16) is MXNet's ``aligned``."""
    if attrs.get("mode", "avg") != "avg":
        raise _fail(node, "mode %r is not imported (MXNet's ROIAlign averages)" % attrs["mode"])
    aligned = attrs.get("coordinate_transformation_mode", "half_pixel" if g.opset_version >= 16 else
                        "output_half_pixel") == "half_pixel"
    batch = S.reshape(S.Cast(g.sym(node.input[2]), dtype="float32"), shape=(-1, 1))
    rois = S.Concat(batch, g.sym(node.input[1]), dim=1, num_args=2)
    ratio = int(attrs.get("sampling_ratio", 0))
    return S.contrib.ROIAlign(g.sym(node.input[0]), rois, pooled_size=(attrs.get("output_height", 1),
                                                                       attrs.get("output_width", 1)),
                              spatial_scale=float(attrs.get("spatial_scale", 1.0)),
                              sample_ratio=ratio if ratio > 0 else -1, aligned=aligned, name=name)


@translator("ArgMax", "ArgMin")
def argmax(g, node, attrs, name):
    fn = S.argmax if node.op_type == "ArgMax" else S.argmin
    res = fn(g.sym(node.input[0]), axis=attrs.get("axis", 0), keepdims=bool(attrs.get("keepdims", 1)))
    return S.Cast(res, dtype="int64", name=name)


def _bilinear(g, node, attrs, name):
    """Resize in linear mode: BilinearResize2D to the output size (corners aligned, or
    torch's half-pixel centres)."""
    shape = g.shape(node.input[0])
    sizes = _const_input(g, node, 3)
    if sizes is None:
        scales = _const_input(g, node, 2)
        sizes = [int(np.floor(d * s)) for d, s in zip(shape, scales)]
    sizes = _ints(sizes)
    mode = attrs.get("coordinate_transformation_mode", "half_pixel")
    if len(shape) != 4 or tuple(sizes[:2]) != tuple(shape[:2]) or mode not in (
            "align_corners", "pytorch_half_pixel", "half_pixel") or (mode == "half_pixel" and min(sizes[2:]) < 2):
        raise _fail(node, "linear resizing of the last two axes of 4-D data (align_corners or half-pixel) only")
    return S.contrib.BilinearResize2D(g.sym(node.input[0]), height=sizes[2], width=sizes[3],
                                      align_corners=mode == "align_corners", name=name)


@translator("Resize", "Upsample")
def resize(g, node, attrs, name):
    if attrs.get("mode", "nearest") == "linear" and node.op_type == "Resize":
        return _bilinear(g, node, attrs, name)
    if attrs.get("mode", "nearest") != "nearest":
        raise _fail(node, "mode %s is not imported (nearest, and linear for Resize)" % attrs.get("mode"))
    scales = _const_input(g, node, 2 if node.op_type == "Resize" else 1, "scales", attrs)
    if scales is None or len(scales) != 4 or scales[0] != 1 or scales[1] != 1 or scales[2] != scales[3] \
            or scales[2] != int(scales[2]):
        raise _fail(node, "only an equal integer scale of the last two axes is imported")
    return S.UpSampling(g.sym(node.input[0]), scale=int(scales[2]), sample_type="nearest", num_args=1, name=name)


# ----------------------------------------------------------------------------- recurrent layers
_MX_GATES = {"LSTM": [0, 2, 3, 1], "GRU": [1, 0, 2], "RNN": [0]}  # ONNX gate order -> MXNet's
_MODE = {"LSTM": "lstm", "GRU": "gru"}


def _mx_order(mat, op_type, hidden):
    blocks = [mat[k * hidden:(k + 1) * hidden] for k in range(len(_MX_GATES[op_type]))]
    return np.concatenate([blocks[k] for k in _MX_GATES[op_type]], axis=0)


@translator("LSTM", "GRU", "RNN")
def recurrent(g, node, attrs, name):
    """One ONNX recurrent node as MXNet's fused RNN (one layer, 'TNC'), its weights packed
    into the flat cuDNN-layout vector."""
    op = node.op_type
    hidden = attrs["hidden_size"]
    dirs = 2 if attrs.get("direction", "forward") == "bidirectional" else 1
    if attrs.get("direction", "forward") == "reverse" or attrs.get("layout", 0) or attrs.get("clip") \
            or attrs.get("input_forget", 0):
        raise _fail(node, "reverse direction, batch-first layout, clip and input_forget are not imported")
    if op == "GRU" and not attrs.get("linear_before_reset", 0):
        raise _fail(node, "linear_before_reset=0 has no MXNet equivalent")
    if op == "RNN":
        acts = attrs.get("activations", ["Tanh"] * dirs)
        mode = "rnn_tanh" if acts[0] == "Tanh" else "rnn_relu"
    else:
        mode = _MODE[op]
    w, r = g.value(node.input[1]), g.value(node.input[2])
    b = g.value(node.input[3]) if len(node.input) > 3 and node.input[3] else np.zeros((dirs, 2 * GATES[mode] * hidden),
                                                                                      dtype=w.dtype)
    if w is None or r is None or b is None:
        raise _fail(node, "W, R and B must be constants")
    seq, batch, width = g.shape(node.input[0])
    lens = g.value(node.input[4]) if len(node.input) > 4 and node.input[4] else None
    if len(node.input) > 4 and node.input[4] and (lens is None or (lens != seq).any()):
        raise _fail(node, "sequence_lens other than the full length (a constant) is not imported")
    tensors = {}
    gh = GATES[mode] * hidden
    for d in range(dirs):
        tensors[(0, d, "i2h_weight")] = _mx_order(w[d], op, hidden)
        tensors[(0, d, "h2h_weight")] = _mx_order(r[d], op, hidden)
        tensors[(0, d, "i2h_bias")] = _mx_order(b[d][:gh], op, hidden)
        tensors[(0, d, "h2h_bias")] = _mx_order(b[d][gh:], op, hidden)
    layout = param_layout(mode, 1, hidden, width, dirs == 2)
    flat = np.concatenate([tensors[(s.layer, s.direction, s.kind)].reshape(-1) for s in layout])
    params = g.param(name + "_parameters", flat.astype(w.dtype))

    def state(i):
        if len(node.input) > i and node.input[i]:
            return g.sym(node.input[i])
        return S.zeros(shape=(dirs, batch, hidden), dtype=str(w.dtype))
    ins = [g.sym(node.input[0]), params, state(5)] + ([state(6)] if mode == "lstm" else [])
    out = S.RNN(*ins, state_size=hidden, num_layers=1, bidirectional=dirs == 2, mode=mode, state_outputs=True,
                name=name)
    y = S.transpose(S.reshape(out[0], shape=(0, 0, dirs, hidden)), axes=(0, 2, 1, 3))
    return [y] + [out[k] for k in range(1, 3 if mode == "lstm" else 2)]
