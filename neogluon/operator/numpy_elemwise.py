"""MXNet 1.9.1's NumPy-interface element-wise operators (``_npi_add``, ``_npi_add_scalar``,
``_npi_exp``, ...), behind ``mx.np``'s arithmetic.

They differ from the legacy ``broadcast_*``/``_*_scalar`` operators as MXNet's do:

* two arrays of different dtypes are promoted (bool < integers < floats, the wider one
  wins: ``int32 + float16 -> float16``, ``int32 + int64 -> int64``) by the arithmetic
  (``add``, ``subtract``, ``multiply``, ``mod``, ``power``, ``true_divide``), as MXNet's
  do; the comparisons, ``maximum``/``minimum``, ``arctan2`` and ``hypot`` need one dtype
  (``int32 == float32`` is an MXNetError in MXNet 1.9.1), as the legacy operators do;
* an array with a scalar keeps the array's dtype (``int32 + 1.5`` is ``int32 + 1``), except
  that true division of integers gives float32 and a boolean array becomes int64 (an
  integer scalar) or float32;
* comparisons give boolean arrays, not 0/1 in the input dtype; an integer array is compared
  with the scalar cast to its dtype (``int32 == 1.5`` compares with 1, as MXNet 1.9.1 does);
* functions of an integer array are computed in float32 and cast back (``np.exp`` of
  int32 is int32, as MXNet 1.9.1 gives).
"""
import torch

from .registry import Bool, Float, implementation, register
from .elemwise import _mxnet_mod, _rmod
from .shape import same_dtype

__all__ = []

_FLOAT = torch.float32  # MXNet's default float dtype of the NumPy interface (npx.set_np(dtype=False))


_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64)
# MXNet's promotion of two array dtypes (bool < integers < floats, the wider one wins), one table
_PROMOTED = {(x, y): torch.promote_types(x, y) for x in _DTYPES for y in _DTYPES}


def _promote(a, b):
    if a.dtype is not b.dtype:
        dt = _PROMOTED.get((a.dtype, b.dtype)) or torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(dt), b.to(dt)
    return a, b


def _to_float(a):
    return a if a.is_floating_point() else a.to(_FLOAT)


def _true_divide(a, b):
    return torch.true_divide(_to_float(a), b) if not (a.is_floating_point() or b.is_floating_point()) \
        else torch.true_divide(a, b)


_BINARY = {
    "_npi_add": torch.add, "_npi_subtract": torch.sub, "_npi_multiply": torch.mul,
    "_npi_mod": _mxnet_mod, "_npi_power": torch.pow, "_npi_maximum": torch.maximum, "_npi_minimum": torch.minimum,
    "_npi_equal": torch.eq, "_npi_not_equal": torch.ne, "_npi_greater": torch.gt,
    "_npi_greater_equal": torch.ge, "_npi_less": torch.lt, "_npi_less_equal": torch.le,
    "_npi_arctan2": torch.atan2, "_npi_hypot": torch.hypot,
    "_npi_logical_and": torch.logical_and, "_npi_logical_or": torch.logical_or,
    "_npi_logical_xor": torch.logical_xor,
}


# MXNet 1.9.1 infers one dtype for both inputs of these (ElemwiseType): mixed dtypes are its MXNetError
_ONE_DTYPE = {"_npi_maximum", "_npi_minimum", "_npi_equal", "_npi_not_equal", "_npi_greater", "_npi_greater_equal",
              "_npi_less", "_npi_less_equal", "_npi_arctan2", "_npi_hypot"}


def _binary(fn, name):
    one_dtype = name in _ONE_DTYPE

    def impl(lhs, rhs):
        if lhs.dtype is rhs.dtype:
            return fn(lhs, rhs)
        if one_dtype:
            same_dtype(name, (lhs, rhs))
        return fn(*_promote(lhs, rhs))
    impl.__doc__ = ("NumPy-style broadcasting binary operation on inputs of one dtype." if one_dtype else
                    "NumPy-style broadcasting binary operation with MXNet's dtype promotion.")
    impl.same_dtype_kernel = fn  # two arrays of one dtype: the torch function itself (Operator.same_dtype_kernel)
    return impl


for _name, _fn in _BINARY.items():
    register(_name, inputs=("lhs", "rhs"))(_binary(_fn, _name))


@register("_npi_true_divide", inputs=("lhs", "rhs"))
def true_divide(lhs, rhs):
    """``a / b``: integers divide into float32, mixed dtypes are promoted."""
    lhs, rhs = _promote(lhs, rhs)
    return torch.true_divide(_to_float(lhs), rhs)


# ----------------------------------------------------------------------------- with a scalar
def _scalar_value(data, scalar):
    """An integer array meets the scalar truncated to an integer (``int32 * 1.5`` is ``int32 * 1``)."""
    return scalar if data.is_floating_point() else int(scalar)


def _keep(data, r):
    return r if r.dtype == data.dtype else r.to(data.dtype)


_SCALAR = {  # name: (function of (array, scalar), reflected)
    "_npi_add_scalar": (torch.add, False), "_npi_subtract_scalar": (torch.sub, False),
    "_npi_rsubtract_scalar": (lambda x, s: torch.sub(s, x), True), "_npi_multiply_scalar": (torch.mul, False),
    "_npi_mod_scalar": (_mxnet_mod, False),
    "_npi_rmod_scalar": (lambda x, s: _rmod(s, x), True),
    "_npi_power_scalar": (torch.pow, False), "_npi_rpower_scalar": (lambda x, s: torch.pow(s, x), True),
    "_npi_maximum_scalar": (torch.clamp_min, False), "_npi_minimum_scalar": (torch.clamp_max, False),
}
_COMPARE_SCALAR = {
    "_npi_equal_scalar": torch.eq, "_npi_not_equal_scalar": torch.ne, "_npi_greater_scalar": torch.gt,
    "_npi_greater_equal_scalar": torch.ge, "_npi_less_scalar": torch.lt, "_npi_less_equal_scalar": torch.le,
}
_SCALAR_PARAMS = dict(scalar=Float(1.0), is_int=Bool(True))


def _scalar_op(fn):
    def factory(*, scalar, is_int=True):
        def run(data):
            if data.is_floating_point():  # the common case: the dtype is kept by torch
                return fn(data, scalar)
            if data.dtype is torch.bool:
                data = data.to(torch.int64 if is_int else _FLOAT)
            return _keep(data, fn(data, _scalar_value(data, scalar)))
        return run
    factory.__doc__ = ("An array with a scalar, keeping the array's dtype (a boolean array becomes int64 with an "
                       "integer scalar, float32 with a float).")
    return factory


_INT64 = (-2 ** 63, 2 ** 63)


def _compare_scalar(fn):
    def impl(data, *, scalar, is_int=True):
        if data.is_floating_point() or data.dtype is torch.bool:
            return fn(data, scalar)
        # an integer array meets the scalar cast to its dtype, as MXNet's kernel (C++'s cast: truncated toward
        # zero, then wrapped): int32 == 1.5 compares with 1, uint8 == -1.5 with 255
        value = int(scalar)
        if _INT64[0] <= value < _INT64[1]:
            return fn(data, torch.tensor(value).to(data.dtype))
        return fn(data, scalar)
    impl.__doc__ = ("Comparison of an array with a scalar (cast to an integer array's dtype, as MXNet's): a boolean "
                    "array.")
    return impl


for _name, (_fn, _refl) in _SCALAR.items():
    implementation(_name, params=_SCALAR_PARAMS)(_scalar_op(_fn))
for _name, _fn in _COMPARE_SCALAR.items():
    register(_name, params=_SCALAR_PARAMS)(_compare_scalar(_fn))


@register("_npi_true_divide_scalar", params=_SCALAR_PARAMS)
def true_divide_scalar(data, *, scalar, is_int=True):
    """``a / s``: float32 for an integer or boolean array."""
    return torch.true_divide(_to_float(data), scalar)


@register("_npi_rtrue_divide_scalar", params=_SCALAR_PARAMS)
def rtrue_divide_scalar(data, *, scalar, is_int=True):
    """``s / a``: float32 for an integer or boolean array."""
    data = _to_float(data)
    return torch.true_divide(torch.full_like(data, scalar), data)


# ----------------------------------------------------------------------------- unary
_FLOAT_UNARY = {  # computed in float32 for integer inputs, cast back
    "exp": torch.exp, "expm1": torch.expm1, "log": torch.log, "log2": torch.log2, "log10": torch.log10,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "cbrt": lambda x: torch.sign(x) * torch.abs(x) ** (1.0 / 3),
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "arcsin": torch.asin, "arccos": torch.acos,
    "arctan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh,
    "arcsinh": torch.asinh, "arccosh": torch.acosh, "arctanh": torch.atanh, "degrees": torch.rad2deg,
    "radians": torch.deg2rad, "reciprocal": torch.reciprocal,
}
_SAME_UNARY = {  # the input's dtype is kept
    "absolute": torch.abs, "negative": torch.neg, "sign": torch.sign, "square": torch.square,
    "ceil": torch.ceil, "floor": torch.floor, "trunc": torch.trunc, "rint": torch.round, "fix": torch.trunc,
}


def _float_unary(fn):
    def impl(x):
        return fn(x) if x.is_floating_point() else fn(x.to(_FLOAT)).to(x.dtype)
    impl.float_kernel = fn  # a floating-point input: the torch function itself (mx.np's generated sites)
    return impl


def _same_unary(fn):
    def impl(x):
        return fn(x) if x.is_floating_point() or fn not in (torch.ceil, torch.floor, torch.trunc, torch.round) else x
    impl.float_kernel = fn
    return impl


for _name, _fn in _FLOAT_UNARY.items():
    register("_npi_" + _name)(_float_unary(_fn))
for _name, _fn in _SAME_UNARY.items():
    register("_npi_" + _name)(_same_unary(_fn))


@register("_npi_logical_not")
def logical_not(x):
    """``np.logical_not``: a boolean array."""
    return torch.logical_not(x)
