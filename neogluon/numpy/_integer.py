"""``mx.np``'s integer functions and infinity tests over the operators of
``neogluon/operator/numpy_bitwise.py`` (scalars as MXNet takes them: one array and a
scalar use the ``_scalar`` operator, two scalars are NumPy's)."""
import numpy as _onp

from ..ndarray import NDArray as _NDArray
from ..symbol import Symbol as _Symbol
from .multiarray import binary as _binary, call as _call

_ARRAY = (_NDArray, _Symbol)  # an mx.np array, or a Symbol in hybrid_forward(F, ...)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "lcm", "isposinf", "isneginf"]


def _binary_fn(name):
    def fn(x1, x2, out=None, **kwargs):
        if not isinstance(x1, _ARRAY) and not isinstance(x2, _ARRAY):
            return getattr(_onp, name)(x1, x2, **kwargs)
        r = _binary(x1, x2, "_npi_" + name, "_npi_%s_scalar" % name)
        if out is not None:
            out[...] = r
            return out
        return r
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "``np.%s`` of integer or boolean arrays of one dtype (operator ``_npi_%s``)." % (name, name)
    return fn


bitwise_and = _binary_fn("bitwise_and")
bitwise_or = _binary_fn("bitwise_or")
bitwise_xor = _binary_fn("bitwise_xor")
lcm = _binary_fn("lcm")


def _unary_fn(name, op):
    def fn(x, out=None, **kwargs):
        if not isinstance(x, _ARRAY):
            return getattr(_onp, name)(x, **kwargs)
        return _call(op, (x,), None, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "``np.%s`` (operator ``%s``)." % (name, op)
    return fn


bitwise_not = _unary_fn("bitwise_not", "_npi_bitwise_not")
invert = _unary_fn("invert", "_npi_bitwise_not")
isposinf = _unary_fn("isposinf", "_npi_isposinf")
isneginf = _unary_fn("isneginf", "_npi_isneginf")
