"""MXNet 1.9.1's NumPy-interface integer functions: ``_npi_bitwise_and``/``or``/``xor`` (and
their ``_scalar`` forms), ``_npi_bitwise_not`` (``np.invert``), ``_npi_lcm``, and the
infinity tests ``_npi_isposinf``/``_npi_isneginf``.

As MXNet's: both arrays must have one dtype (an int32 with an int64 array is MXNet's
"Incompatible attr" error, no promotion), a scalar takes the array's dtype, a boolean
array gives booleans; the functions have no gradient (integer outputs)."""
import torch

from ..base import MXNetError
from .registry import Bool, Float, register

__all__ = []

_SCALAR_PARAMS = dict(scalar=Float(1.0), is_int=Bool(True))


def _same_dtype(name, lhs, rhs):
    if lhs.dtype != rhs.dtype:
        raise MXNetError("Operator %s: Incompatible attr in node at 1-th input: expected %s, got %s (shapes %s, %s)"
                         % (name, str(lhs.dtype).replace("torch.", ""), str(rhs.dtype).replace("torch.", ""),
                            tuple(lhs.shape), tuple(rhs.shape)))


def _integer(name, t):
    if t.is_floating_point():
        raise MXNetError("Operator %s: only integer and boolean arrays are supported, got %s of shape %s"
                         % (name, str(t.dtype).replace("torch.", ""), tuple(t.shape)))


def _binary(name, fn):
    def impl(lhs, rhs):
        _same_dtype(name, lhs, rhs)
        _integer(name, lhs)
        return fn(lhs, rhs)
    impl.__doc__ = "``np.%s`` of two integer (or boolean) arrays of one dtype, broadcast." % name[5:]
    return impl


def _scalar(name, fn):
    def impl(data, *, scalar, is_int=True):
        _integer(name, data)
        value = bool(scalar) if data.dtype == torch.bool else int(scalar)
        return fn(data, torch.tensor(value, dtype=data.dtype, device=data.device))
    impl.__doc__ = "``np.%s`` of an integer array and a scalar (taken in the array's dtype)." % name[5:-7]
    return impl


_OPS = {"bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
        "lcm": torch.lcm}
for _op, _fn in _OPS.items():
    register("_npi_" + _op, inputs=("lhs", "rhs"))(_binary("_npi_" + _op, _fn))
    register("_npi_%s_scalar" % _op, params=_SCALAR_PARAMS)(_scalar("_npi_%s_scalar" % _op, _fn))


@register("_npi_bitwise_not", inputs=("x",))
def bitwise_not(x):
    """``np.invert``/``np.bitwise_not``: two's complement of integers, ``not`` of booleans."""
    _integer("_npi_bitwise_not", x)
    return torch.bitwise_not(x)


@register("_npi_isposinf", inputs=("x",))
def isposinf(x):
    """Whether each element is +inf (a boolean array)."""
    return torch.isposinf(x)


@register("_npi_isneginf", inputs=("x",))
def isneginf(x):
    """Whether each element is -inf (a boolean array)."""
    return torch.isneginf(x)
