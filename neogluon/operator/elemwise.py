"""Element-wise operators: unary math, ``elemwise_*``, ``broadcast_*``, the scalar family
and the casts (``Cast``, ``amp_cast``, ``amp_multicast``).

MXNet keeps the input dtype in all of them: comparisons give 0/1 in the input dtype
(recorded with a zero gradient), an integer array truncates a float scalar to an integer.
``elemwise_*`` requires equal shapes (no broadcasting, as the hybridization tutorial
warns); ``broadcast_*`` broadcasts. On ties ``maximum``/``minimum`` give the gradient to
the left operand, as MXNet does.
"""
import functools
import math

import numpy as np
import torch

from ..base import MXNetError
from .registry import Bool, Dtype, Float, Int, implementation, into_kernel, register, require, same_shape, \
    shape_rule
from .nn import relu_with
from .shape import same_dtype

# torch's Tensor methods: called unbound on a tensor they dispatch in less Python-binding
# time than the torch.* functions (relu: ~0.15 us of ~1.5 us), and these are the hot ops
_T = torch.Tensor


class _ZeroGradFn(torch.autograd.Function):
    """Attach a precomputed result to ``x``'s graph with a zero gradient."""

    @staticmethod
    def forward(ctx, x, value):  # pylint: disable=arguments-differ
        ctx.shape, ctx.dtype = x.shape, x.dtype
        return value

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return g.new_zeros(ctx.shape, dtype=ctx.dtype), None


def zero_grad_output(x, value):
    """``value`` as a recorded result of ``x`` with zero gradient, as MXNet gives for
    comparisons and index outputs (torch would leave it outside the graph)."""
    if x.requires_grad and value.is_floating_point():
        return _ZeroGradFn.apply(x, value)
    return value


def _bool_result(x, r):
    """A boolean torch result as 0/1 in ``x``'s dtype, recorded with zero gradient."""
    return zero_grad_output(x, r.to(x.dtype))


# ----------------------------------------------------------------------------- unary
def _keep_dtype(fn):
    """Apply a float function to any dtype, returning the input dtype as MXNet does."""
    def run(data):
        if data.is_floating_point():
            return fn(data)
        return fn(data.double()).to(data.dtype)
    return run


# torch computes these on integer tensors in the input dtype, exactly as MXNet: no wrapper
_INTEGER_NATIVE = {"relu", "abs", "negative", "sign", "square"}


def _unary(name, fn, aliases=(), doc="", differentiable=True):
    impl = fn if name in _INTEGER_NATIVE else _keep_dtype(fn)
    doc = doc or "Element-wise %s, as MXNet's ``%s``." % (name, name)
    register(name, aliases=aliases, differentiable=differentiable, doc=doc)(impl)


def _softsign(x):
    return x / (1 + x.abs())


def _hard_sigmoid(x, alpha=0.2, beta=0.5):
    # where rather than clamp: MXNet's gradient is 0 on the boundaries too
    y = alpha * x + beta
    return torch.where(y <= 0, torch.zeros_like(y), torch.where(y >= 1, torch.ones_like(y), y))


def _rcbrt(x):
    return 1.0 / torch.sign(x) / x.abs().pow(1.0 / 3)


class _CbrtFn(torch.autograd.Function):
    """Cube root with MXNet's gradient ``1 / (3 cbrt(x)^2)`` (infinite at 0, not NaN)."""

    @staticmethod
    def forward(ctx, x):  # pylint: disable=arguments-differ
        y = torch.sign(x) * x.abs().pow(1.0 / 3)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        y, = ctx.saved_tensors
        return g / (3 * y * y)


def _cbrt(x):
    return _CbrtFn.apply(x)


def _rint(x):
    """MXNet's ``rint``: halves round down (``floor`` unless the fraction exceeds 0.5)."""
    f = torch.floor(x)
    return torch.where(x - f > 0.5, f + 1, f)


def _round_half_away(x):
    """MXNet's ``round``: halves round away from zero (torch rounds half to even)."""
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


_UNARY = {
    "relu": relu_with(_T.relu), "sigmoid": _T.sigmoid, "tanh": _T.tanh, "exp": _T.exp,
    "abs": _T.abs, "square": _T.square, "negative": _T.neg, "sign": _T.sign,
    "floor": _T.floor, "ceil": _T.ceil, "round": _round_half_away, "rint": _rint,
    "fix": _T.trunc, "trunc": _T.trunc, "softsign": _softsign, "erf": _T.erf,
    "erfinv": _T.erfinv, "sin": _T.sin, "cos": _T.cos, "tan": _T.tan,
    "arcsin": _T.asin, "arccos": _T.acos, "arctan": _T.atan, "sinh": _T.sinh,
    "cosh": _T.cosh, "arcsinh": _T.asinh, "arccosh": _T.acosh, "arctanh": _T.atanh,
    "expm1": _T.expm1, "log": _T.log, "log2": _T.log2, "log10": _T.log10,
    "log1p": _T.log1p, "sqrt": _T.sqrt, "rsqrt": _T.rsqrt, "cbrt": _cbrt, "rcbrt": _rcbrt,
    "reciprocal": _T.reciprocal, "gamma": lambda x: torch.exp(torch.lgamma(x)) * _gamma_sign(x),
    "gammaln": _T.lgamma, "degrees": _T.rad2deg, "radians": _T.deg2rad,
    "logical_not": lambda x: _bool_result(x, x == 0),
}


def _gamma_sign(x):
    # Gamma is negative on (-1, 0), (-3, -2), ...: sign flips with floor(x) for x < 0
    neg = (x < 0) & (torch.remainder(torch.floor(x), 2) != 0)
    return torch.where(neg, -torch.ones_like(x), torch.ones_like(x))


for _name, _fn in _UNARY.items():
    _unary(_name, _fn)


@register("hard_sigmoid", params=dict(alpha=Float(0.2), beta=Float(0.5)))
def hard_sigmoid(data, *, alpha, beta):
    """``max(0, min(1, alpha * x + beta))``."""
    return _keep_dtype(lambda x: _hard_sigmoid(x, alpha, beta))(data)


@register("_copy", aliases=["identity"])
def copy(data):
    """A copy of the input (``identity``)."""
    return data.clone()


class _BlockGradFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # pylint: disable=arguments-differ
        return x.clone()

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return torch.zeros_like(g)


@register("BlockGrad", aliases=["stop_gradient"])
def block_grad(data):
    """Identity forward; zero gradient backward."""
    return _BlockGradFn.apply(data) if data.requires_grad else data.clone()


class _ConstantLikeFn(torch.autograd.Function):
    """A constant of the input's shape that stays in the graph with a zero gradient,
    so that backward through it gives zeros (as MXNet) rather than an error."""

    @staticmethod
    def forward(ctx, x, value):  # pylint: disable=arguments-differ
        return torch.full_like(x, value)

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return torch.zeros_like(g), None


def constant_like(data, value):
    return _ConstantLikeFn.apply(data, value) if data.requires_grad else torch.full_like(data, value)


@register("zeros_like")
def zeros_like(data):
    """Zeros of the input's shape and dtype."""
    return constant_like(data, 0)


@register("ones_like")
def ones_like(data):
    """Ones of the input's shape and dtype."""
    return constant_like(data, 1)


# ----------------------------------------------------------------------------- binary
def _check_dtypes(name, lhs, rhs):
    if lhs.dtype != rhs.dtype:
        raise MXNetError("Operator %s: incompatible input dtypes, lhs is %s and rhs is %s"
                         % (name, str(lhs.dtype).replace("torch.", ""), str(rhs.dtype).replace("torch.", "")))


def _mxnet_mod(a, b):
    """MXNet's ``mod`` (``b`` an array or a number): the result has the sign of the divisor, like numpy's ``%``;
    a zero divisor gives 0, as MXNet's kernel checks for it (no nan, no integer division error), and a zero
    result is +0."""
    if not isinstance(b, torch.Tensor):
        if b == 0:
            return torch.zeros_like(a)
        r = torch.remainder(a, b)
        return r + 0.0 if r.is_floating_point() else r
    zero = b == 0
    if a.is_floating_point() or b.is_floating_point():
        r = torch.remainder(a, b)
        return torch.where(zero, torch.zeros((), dtype=r.dtype), r) + 0.0
    r = torch.remainder(a, torch.where(zero, torch.ones((), dtype=b.dtype), b))
    return torch.where(zero, torch.zeros((), dtype=r.dtype), r)


def _div(a, b):
    if a.is_floating_point():
        return a / b
    return torch.div(a, b, rounding_mode="trunc")


def _as_dtype(fn):
    def run(a, b):
        r = fn(a, b)
        if r.dtype == torch.bool:
            return _bool_result(a, r)
        return r if r.dtype == a.dtype else r.to(a.dtype)
    return run


_BINARY = {
    "add": _T.add, "sub": _T.sub, "mul": _T.mul, "div": _div, "mod": _mxnet_mod,
    # maximum/minimum: on ties the whole gradient goes to lhs, as in MXNet
    "power": _T.pow, "maximum": lambda a, b: torch.where(a >= b, a, b),
    "minimum": lambda a, b: torch.where(a <= b, a, b), "hypot": _T.hypot,
    "equal": _T.eq, "not_equal": _T.ne, "greater": _T.gt, "greater_equal": _T.ge,
    "lesser": _T.lt, "lesser_equal": _T.le,
    "logical_and": lambda a, b: (a != 0) & (b != 0), "logical_or": lambda a, b: (a != 0) | (b != 0),
    "logical_xor": lambda a, b: (a != 0) ^ (b != 0),
}
# MXNet's non-broadcasting registrations: elemwise_add and the old _plus/_Plus names
_ELEMWISE_NAMES = {
    "add": ("elemwise_add", ["_add", "_plus", "_Plus"]), "sub": ("elemwise_sub", ["_sub", "_minus", "_Minus"]),
    "mul": ("elemwise_mul", ["_mul", "_Mul"]), "div": ("elemwise_div", ["_div", "_Div"]),
    "mod": ("_mod", ["_Mod"]), "power": ("_power", ["_Power"]), "maximum": ("_maximum", ["_Maximum"]),
    "minimum": ("_minimum", ["_Minimum"]), "hypot": ("_hypot", ["_Hypot"]), "equal": ("_equal", ["_Equal"]),
    "not_equal": ("_not_equal", ["_Not_Equal"]), "greater": ("_greater", ["_Greater"]),
    "greater_equal": ("_greater_equal", ["_Greater_Equal"]), "lesser": ("_lesser", ["_Lesser"]),
    "lesser_equal": ("_lesser_equal", ["_Lesser_Equal"]), "logical_and": ("_logical_and", ["_Logical_And"]),
    "logical_or": ("_logical_or", ["_Logical_Or"]), "logical_xor": ("_logical_xor", ["_Logical_Xor"]),
}


# torch keeps the dtype of two same-dtype inputs for these, so no cast is needed after them
_DTYPE_KEEPING = {"add", "sub", "mul", "mod", "maximum", "minimum"}


def _make_broadcast(name, key, fn):
    if key in _DTYPE_KEEPING:
        def impl(lhs, rhs):
            if lhs.dtype is not rhs.dtype:
                _check_dtypes(name, lhs, rhs)
            return fn(lhs, rhs)
        impl.same_dtype_kernel = fn  # see Operator.same_dtype_kernel
    else:
        fn = _as_dtype(fn)

        def impl(lhs, rhs):
            _check_dtypes(name, lhs, rhs)
            return fn(lhs, rhs)
    impl.__doc__ = "Element-wise %s of two arrays with numpy broadcasting." % name
    return impl


def _make_elemwise(name, fn):
    fn = _as_dtype(fn)

    def impl(lhs, rhs):
        if lhs.shape != rhs.shape:
            raise MXNetError("Operator %s: shapes must be equal (no broadcasting), got lhs %s and rhs %s"
                             % (name, tuple(lhs.shape), tuple(rhs.shape)))
        _check_dtypes(name, lhs, rhs)
        return fn(lhs, rhs)
    impl.__doc__ = "Element-wise %s of two arrays of the same shape." % name
    return impl


for _key, _fn in _BINARY.items():
    register("broadcast_" + _key, inputs=("lhs", "rhs"),
             aliases=["broadcast_plus"] if _key == "add" else ["broadcast_minus"] if _key == "sub" else [])(
        _make_broadcast("broadcast_" + _key, _key, _fn))
    _ename, _aliases = _ELEMWISE_NAMES[_key]
    register(_ename, inputs=("lhs", "rhs"), aliases=_aliases)(_make_elemwise(_ename, _fn))


# the arithmetic whose kernels write into an out= array (x += y, x -= mean, x /= std): on
# floating-point arrays each is the torch function of its kernel (_div: true division there)
_INTO = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}


def _broadcast_into(fn):
    """``broadcast_<op>``'s kernel writing into ``out``: floating-point arrays of one dtype
    whose broadcast shape is ``out``'s (anything else, and inputs overlapping ``out`` other
    than as ``out`` itself, computed and copied)."""
    def into(out, lhs, rhs):
        dt = out.dtype
        if not (dt.is_floating_point and lhs.dtype is dt and rhs.dtype is dt):
            return False
        shape = out.shape
        if not (lhs.shape == shape and rhs.shape == shape):
            try:
                if torch.broadcast_shapes(lhs.shape, rhs.shape) != shape:
                    return False
            except RuntimeError:  # not broadcastable: the kernel raises MXNet's error
                return False
        return _write(fn, out, lhs, rhs)
    return lambda: into


def _write(fn, out, *args):
    """``fn(*args, out=out)``; False when torch refuses the memory (partial overlap), which it
    checks before writing."""
    try:
        fn(*args, out=out)
    except RuntimeError:
        return False
    return True


for _key, _fn in _INTO.items():
    into_kernel("broadcast_" + _key)(_broadcast_into(_fn))


# ----------------------------------------------------------------------------- with a scalar
_TENSOR = torch.Tensor


def _scalar_kernel(fn, reflected, scalar, is_int):
    """MXNet's scalar ops: an integer array truncates the scalar to an integer; with
    ``is_int=False`` (numpy semantics) it is promoted to float64 instead. The kernel for
    one scalar (the operator's implementation)."""
    def run(data):
        if data.is_floating_point():
            s = scalar
        elif is_int:
            s = int(scalar)
        else:
            data, s = data.double(), scalar
        r = fn(s, data) if reflected else fn(data, s)
        if type(r) is _TENSOR and r.dtype is data.dtype:  # pylint: disable=unidiomatic-typecheck
            return r  # the usual case, at once
        if not isinstance(r, torch.Tensor):
            r = torch.as_tensor(r)
        if r.dtype == torch.bool:
            return _bool_result(data, r)
        return r if r.dtype == data.dtype else r.to(data.dtype)
    return run


def _rpow(s, x):
    return torch.pow(s, x)


def _rmod(s, x):
    return _mxnet_mod(torch.full_like(x, s), x)


_SCALAR = {
    "_plus_scalar": (torch.add, False, ["_PlusScalar"]), "_minus_scalar": (torch.sub, False, ["_MinusScalar"]),
    "_rminus_scalar": (lambda s, x: torch.sub(s, x) if isinstance(s, torch.Tensor) else s - x, True, ["_RMinusScalar"]),
    "_mul_scalar": (torch.mul, False, ["_MulScalar"]), "_div_scalar": (_div, False, ["_DivScalar"]),
    "_rdiv_scalar": (lambda s, x: _div(torch.full_like(x, s), x), True, ["_RDivScalar"]),
    "_mod_scalar": (_mxnet_mod, False, ["_ModScalar"]), "_rmod_scalar": (_rmod, True, ["_RModScalar"]),
    "_power_scalar": (torch.pow, False, ["_PowerScalar"]), "_rpower_scalar": (_rpow, True, ["_RPowerScalar"]),
    "_maximum_scalar": (torch.clamp_min, False, ["_MaximumScalar"]),
    "_minimum_scalar": (torch.clamp_max, False, ["_MinimumScalar"]),
    "_hypot_scalar": (lambda x, s: torch.hypot(x, torch.full_like(x, s)), False, ["_HypotScalar"]),
    "_equal_scalar": (torch.eq, False, ["_EqualScalar"]), "_not_equal_scalar": (torch.ne, False, ["_NotEqualScalar"]),
    "_greater_scalar": (torch.gt, False, ["_GreaterScalar"]),
    "_greater_equal_scalar": (torch.ge, False, ["_GreaterEqualScalar"]),
    "_lesser_scalar": (torch.lt, False, ["_LesserScalar"]),
    "_lesser_equal_scalar": (torch.le, False, ["_LesserEqualScalar"]),
    "_logical_and_scalar": (lambda x, s: (x != 0) & bool(s), False, ["_LogicalAndScalar"]),
    "_logical_or_scalar": (lambda x, s: (x != 0) | bool(s), False, ["_LogicalOrScalar"]),
    "_logical_xor_scalar": (lambda x, s: (x != 0) ^ bool(s), False, ["_LogicalXorScalar"]),
}

for _name, (_fn, _refl, _aliases) in _SCALAR.items():
    implementation(_name, params=dict(scalar=Float(1.0), is_int=Bool(True)), aliases=_aliases,
                   doc="Element-wise operation of an array with a scalar (``%s``)." % _name)(
        functools.partial(_scalar_kernel, _fn, _refl))


def _scalar_into(fn, scalar, is_int):  # pylint: disable=unused-argument
    """The scalar kernel writing into ``out``: a floating-point array of ``out``'s dtype and
    shape (others computed and copied)."""
    def into(out, data):
        if data.dtype is not out.dtype or not out.dtype.is_floating_point or data.shape != out.shape:
            return False
        return _write(fn, out, data, scalar)
    return into


for _key in _INTO:
    into_kernel("_%s_scalar" % {"add": "plus", "sub": "minus"}.get(_key, _key))(
        functools.partial(_scalar_into, _INTO[_key]))


@register("smooth_l1", params=dict(scalar=Float()))
def smooth_l1(data, *, scalar):
    """MXNet's smooth L1: ``0.5*(sigma*x)^2`` if ``|x| < 1/sigma^2`` else ``|x| - 0.5/sigma^2``."""
    s2 = scalar * scalar
    ax = data.abs()
    return torch.where(ax < 1.0 / s2, 0.5 * s2 * data * data, ax - 0.5 / s2)


@register("add_n", variadic="num_args", params=dict(num_args=Int()),
          aliases=["ElementWiseSum", "_internal_add_n"])
def add_n(*args, num_args):
    """The sum of all inputs (same shapes and dtypes)."""
    same_dtype("add_n", args)
    out = args[0]
    for a in args[1:]:
        out = out + a
    return out if len(args) > 1 else out.clone()


def _where_infer_args(attrs, shapes):
    """MXNet's WhereOpShape backward: once the condition's shape is known, ``x`` and ``y``
    share one shape, known from either of them (the condition never gives it), so that
    GluonTS DeepAR's ``F.where(cond, F.zeros((0, 8)), state)`` gives the zeros the state's
    batch size."""
    cond, x, y = shapes
    ref = x or y
    if cond is None or ref is None:
        return shapes
    return [cond, tuple(ref), tuple(ref)]


@register("where", inputs=("condition", "x", "y"), infer_args=_where_infer_args)
def where(condition, x, y):
    """``x`` where ``condition`` is non-zero, else ``y``; a 1-d condition selects rows."""
    if condition.dim() == 1 and x.dim() > 1:
        condition = condition.reshape((-1,) + (1,) * (x.dim() - 1))
    elif condition.shape != x.shape:
        raise MXNetError("Operator where: condition shape %s must equal x shape %s or be 1-d of length %d"
                         % (tuple(condition.shape), tuple(x.shape), x.shape[0]))
    return torch.where(condition != 0, x, y)


@register("clip", params=dict(a_min=Float(), a_max=Float()))
def clip(data, *, a_min, a_max):
    """Clip values into ``[a_min, a_max]`` (gradient passes inside the interval). An integer array keeps its
    dtype, as MXNet's: a value below ``a_min`` (compared as a float) becomes ``a_min`` cast to the dtype
    (truncated: int32 clipped to [0.5, 2.5] gives 0 and 2), likewise above ``a_max``."""
    if data.is_floating_point():
        return torch.clamp(data, a_min, a_max)
    out = data
    for bound, beyond in ((a_min, torch.lt), (a_max, torch.gt)):
        if math.isfinite(bound):
            out = torch.where(beyond(data, bound), torch.tensor(int(bound)).to(data.dtype), out)
    return out


_grad_add = _make_elemwise("_grad_add", torch.add)
_grad_add.__doc__ = "``lhs + rhs`` of equal shapes (the operator MXNet accumulates gradients with)."
register("_grad_add", inputs=("lhs", "rhs"))(_grad_add)


# ----------------------------------------------------------------------------- casts
_CAST_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _cast(data, dtype):
    dt = getattr(torch, dtype)
    if data.is_floating_point() and dt in (torch.uint8, torch.int8):
        return data.to(torch.int64).to(dt)  # wrap around as C casts do
    return data.to(dt, copy=True)


@register("Cast", params=dict(dtype=Dtype(choices=_CAST_DTYPES)), aliases=["cast"])
def cast(data, *, dtype):
    """The input converted to ``dtype`` (floats truncate toward zero into integers;
    the gradient is cast back to the input dtype)."""
    return _cast(data, dtype)


def _amp_cast_type(attrs, dtypes):
    if dtypes[0].kind != "f":
        return [dtypes[0]]
    # bfloat16 arrays show as float32 (numpy has no bfloat16; see NDArray.asnumpy)
    return [np.dtype("float32" if attrs["dtype"] == "bfloat16" else attrs["dtype"])]


def _amp_multicast_types(attrs, dtypes):
    floats = [d for d in dtypes if d.kind == "f"]
    target = (min if attrs["cast_narrow"] else max)(floats, key=lambda d: d.itemsize) if floats else None
    return [target if d.kind == "f" else d for d in dtypes]


def _casts_infer_inputs(attrs, shapes, outs):
    """A cast's input has its output's shape (MXNet's ElemwiseShape infers both ways): a
    parameter behind AMP's ``amp_cast`` gets the shape its reader gives it."""
    return [s if s is not None and 0 not in s else o for s, o in zip(shapes, outs)]


@register("amp_cast", params=dict(dtype=Dtype(choices=("bfloat16",) + _CAST_DTYPES[1:])), infer_type=_amp_cast_type,
          infer_inputs=_casts_infer_inputs)
def amp_cast(data, *, dtype):
    """AMP's cast: floating-point inputs are converted to ``dtype``, others pass unchanged."""
    if not data.is_floating_point() or not getattr(torch, dtype).is_floating_point:
        return data.clone()
    return data.to(getattr(torch, dtype), copy=True)  # new memory also when the dtype is the same


@register("amp_multicast", variadic="num_outputs", params=dict(num_outputs=Int(), cast_narrow=Bool(False)),
          num_outputs=lambda a: a["num_outputs"], infer_type=_amp_multicast_types, infer_inputs=_casts_infer_inputs)
def amp_multicast(*data, num_outputs, cast_narrow):
    """AMP's multicast: every floating-point input is converted to the widest (or with
    ``cast_narrow`` the narrowest) floating-point dtype among the inputs."""
    floats = [d.dtype for d in data if d.is_floating_point()]
    if not floats:
        outs = [d.clone() for d in data]
    else:
        pick = min if cast_narrow else max
        target = pick(floats, key=lambda t: torch.finfo(t).bits)
        outs = [d.to(target) if d.is_floating_point() else d.clone() for d in data]
    return outs[0] if len(outs) == 1 else tuple(outs)  # one output is an array, as MXNet's

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _broadcast(attrs, shapes):
    """numpy broadcasting of two shapes."""
    a, b = shapes
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        require(x == y or x == 1 or y == 1)
        out.append(y if x == 1 else x)
    return [tuple(out)]


def _equal_shapes(attrs, shapes):
    require(all(s == shapes[0] for s in shapes))
    return [shapes[0]]


for _name in sorted(_UNARY) + sorted(_SCALAR) + ["clip", "BlockGrad", "_copy", "smooth_l1", "hard_sigmoid"]:
    shape_rule(_name)(same_shape)
for _key in _BINARY:
    shape_rule("broadcast_" + _key)(_broadcast)
    shape_rule(_ELEMWISE_NAMES[_key][0])(_equal_shapes)
