"""``mx.nd``: NDArray, its creation functions and every registry operator as a function.

``mx.nd.<op>`` is generated from the operator registry; operators named ``_contrib_X``,
``_linalg_X``, ``_random_X`` also appear as ``mx.nd.contrib.X`` and so on.
"""
import types

import numpy as np
import torch

from .. import operator as _operator  # noqa: F401  (registers the operators)
from ..base import MXNetError, numeric_types, torch_dtype
from ..context import as_context, current_context
from .ndarray import NDArray, invoke, apply_op, wrap_outputs
from . import register as _register


def _submodule(name, doc):
    mod = types.ModuleType(__name__ + "." + name, doc)
    return mod


contrib = _submodule("contrib", "mx.nd.contrib: operators registered as _contrib_*")
linalg = _submodule("linalg", "mx.nd.linalg: operators registered as _linalg_*")
image = _submodule("image", "mx.nd.image: operators registered as _image_*")
sparse = _submodule("sparse", "mx.nd.sparse: dense stand-ins for operators registered as _sparse_*")
op = _submodule("op", "mx.nd.op: every registry operator")
_internal = _submodule("_internal", "mx.nd._internal: every registry operator, by its full name")
from . import random  # noqa: E402  (needs invoke)

_generated = _register.populate(globals(), {"contrib": contrib, "linalg": linalg, "image": image,
                                             "sparse": sparse, "random": random}, invoke)
op.__dict__.update(_generated)
_internal.__dict__.update(_generated)


# ------------------------------------------------------------------------- creation
def _ctx_str(ctx):
    return str(as_context(ctx))


def array(source_array, ctx=None, dtype=None):
    """An NDArray from any array-like; float32 unless ``dtype`` is given or the source is an NDArray."""
    if isinstance(source_array, NDArray):
        dt = source_array._t.dtype if dtype is None else torch_dtype(dtype)
        return NDArray(source_array._t.detach().to(device=as_context(ctx).torch_device, dtype=dt, copy=True))
    if isinstance(source_array, torch.Tensor):
        src = source_array.detach()
    else:
        try:
            src = np.asarray(source_array)
        except (ValueError, TypeError):
            raise TypeError("source_array must be array like object, got %s" % type(source_array).__name__) from None
        if src.dtype == object:
            raise TypeError("source_array must be array like object of numbers, got %r" % (source_array,))
        src = torch.from_numpy(np.ascontiguousarray(src))
    if src.dim() == 0:
        src = src.reshape(1)
    t = src.to(device=as_context(ctx).torch_device, dtype=torch_dtype(dtype), copy=True)
    return NDArray(t)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros (float32 by default)."""
    return invoke("_zeros", (), dict(kwargs, shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32"))


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones (float32 by default)."""
    return invoke("_ones", (), dict(kwargs, shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32"))


def full(shape, val, ctx=None, dtype=np.float32, out=None):
    """An array filled with ``val``."""
    return invoke("_full", (), dict(shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32",
                                    value=float(val)), out)


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array (zeros here: torch memory is cheap to clear and never random)."""
    return zeros(shape, ctx, dtype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=np.float32):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    return invoke("_arange", (), dict(start=start, stop=stop, step=step, repeat=repeat,
                                      ctx=_ctx_str(ctx), dtype=dtype))


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """``num`` evenly spaced values over ``[start, stop]``."""
    return invoke("_linspace", (), dict(start=start, stop=stop, num=num, endpoint=endpoint,
                                        ctx=_ctx_str(ctx), dtype=dtype))


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-d array with ones on the k-th diagonal."""
    return invoke("_eye", (), dict(kwargs, N=N, M=M, k=k, ctx=_ctx_str(ctx), dtype=dtype or "float32"))


def waitall():
    """Wait for all pending computation (torch CUDA streams) to finish."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _binary_helper(lhs, rhs, op_nd, op_scalar, op_rscalar, fn):
    """``mx.nd.add(lhs, rhs)`` and friends: arrays or scalars on either side."""
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return invoke(op_nd, (lhs, rhs), {})
    if isinstance(lhs, NDArray) and isinstance(rhs, numeric_types):
        return invoke(op_scalar, (lhs,), {"scalar": float(rhs)})
    if isinstance(rhs, NDArray) and isinstance(lhs, numeric_types):
        return invoke(op_rscalar, (rhs,), {"scalar": float(lhs)})
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return fn(lhs, rhs)
    raise TypeError("type %s and %s not supported" % (type(lhs).__name__, type(rhs).__name__))


def _helper(name, op_nd, op_scalar, op_rscalar, fn):
    def f(lhs, rhs):
        return _binary_helper(lhs, rhs, op_nd, op_scalar, op_rscalar, fn)
    f.__name__ = name
    f.__doc__ = "Element-wise %s of arrays and/or scalars, with broadcasting." % name
    return f


import operator as _pyop  # noqa: E402

add = _helper("add", "broadcast_add", "_plus_scalar", "_plus_scalar", _pyop.add)
subtract = _helper("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar", _pyop.sub)
multiply = _helper("multiply", "broadcast_mul", "_mul_scalar", "_mul_scalar", _pyop.mul)
divide = _helper("divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", _pyop.truediv)
true_divide = divide
modulo = _helper("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar", _pyop.mod)
power = _helper("power", "broadcast_power", "_power_scalar", "_rpower_scalar", _pyop.pow)
maximum = _helper("maximum", "broadcast_maximum", "_maximum_scalar", "_maximum_scalar", max)
minimum = _helper("minimum", "broadcast_minimum", "_minimum_scalar", "_minimum_scalar", min)
hypot = _helper("hypot", "broadcast_hypot", "_hypot_scalar", "_hypot_scalar", lambda a, b: (a * a + b * b) ** 0.5)
equal = _helper("equal", "broadcast_equal", "_equal_scalar", "_equal_scalar", lambda a, b: float(a == b))
not_equal = _helper("not_equal", "broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar", lambda a, b: float(a != b))
greater = _helper("greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar", lambda a, b: float(a > b))
greater_equal = _helper("greater_equal", "broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar",
                        lambda a, b: float(a >= b))
lesser = _helper("lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar", lambda a, b: float(a < b))
lesser_equal = _helper("lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                       lambda a, b: float(a <= b))
logical_and = _helper("logical_and", "broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar",
                      lambda a, b: float(bool(a) and bool(b)))
logical_or = _helper("logical_or", "broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar",
                     lambda a, b: float(bool(a) or bool(b)))
logical_xor = _helper("logical_xor", "broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar",
                      lambda a, b: float(bool(a) != bool(b)))

from .serialization import save, load, load_frombuffer  # noqa: E402
from . import methods as _methods  # noqa: E402,F401  (NDArray.sum(), .relu(), ... )

__all__ = [n for n in dir() if not n.startswith("_")] + ["_internal"]
