"""``mx.nd``: NDArray, its creation functions and every registry operator as a function.

``mx.nd.<op>`` is generated from the operator registry; operators named ``_contrib_X``,
``_linalg_X``, ``_random_X`` also appear as ``mx.nd.contrib.X`` and so on.
"""
import types

import numpy as _np
try:  # numpy 2
    from numpy.lib.array_utils import normalize_axis_tuple
except ImportError:  # numpy 1.23-1.26
    from numpy.core.numeric import normalize_axis_tuple
import torch
import torch.utils.dlpack

from .. import operator as _operator  # noqa: F401  (registers the operators)
from ..base import MXNetError, numeric_types, torch_dtype
from ..context import as_context, current_context
from .ndarray import NDArray, invoke, placed, wrap_outputs
from . import register as _register


def _submodule(name, doc):
    mod = types.ModuleType(__name__ + "." + name, doc)
    return mod


contrib = _submodule("contrib", "mx.nd.contrib: operators registered as _contrib_*")
linalg = _submodule("linalg", "mx.nd.linalg: operators registered as _linalg_*")
image = _submodule("image", "mx.nd.image: operators registered as _image_*")
op = _submodule("op", "mx.nd.op: every registry operator")
_internal = _submodule("_internal", "mx.nd._internal: every registry operator, by its full name")
from . import random  # noqa: E402  (needs invoke)
from . import sparse  # noqa: E402  (CSRNDArray, RowSparseNDArray; the _sparse_* operators go in it)
from .sparse import CSRNDArray, RowSparseNDArray, BaseSparseNDArray  # noqa: E402,F401

_generated = _register.populate(globals(), {"contrib": contrib, "linalg": linalg, "image": image,
                                             "sparse": sparse, "random": random})
op.__dict__.update(_generated)
sparse.gs_retain = sparse.retain  # MXNet's name for gen_sparse.retain in mx.nd.sparse
_internal.__dict__.update(_generated)
Custom = op.Custom = _internal.Custom = _operator.custom.ndarray_custom(invoke)  # inputs named by the prop


def _late(name, operator):  # pylint: disable=unused-argument
    """An operator registered after import appears in mx.nd.op and mx.nd._internal too."""
    op.__dict__[name] = _internal.__dict__[name] = _generated[name]


_operator.registry.on_register(_late)


# ------------------------------------------------------------------------- creation
def _ctx_str(ctx):
    return str(as_context(ctx))


def array(source_array, ctx=None, dtype=None):
    """An NDArray from any array-like; float32 unless ``dtype`` is given or the source is an
    NDArray. A sparse array or a scipy.sparse csr_matrix gives a sparse copy (as MXNet)."""
    if isinstance(source_array, BaseSparseNDArray) or sparse._is_scipy_csr(source_array):  # pylint: disable=protected-access
        return sparse.array(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, NDArray):
        dt = source_array._t.dtype if dtype is None else torch_dtype(dtype)
        ctx = as_context(ctx)
        return placed(NDArray(source_array._t.detach().to(device=ctx.torch_device, dtype=dt, copy=True)), ctx)
    if isinstance(source_array, torch.Tensor):
        src = source_array.detach()
    else:
        try:
            src = _np.asarray(source_array)
        except (ValueError, TypeError):
            raise TypeError("source_array must be array like object, got %s" % type(source_array).__name__) from None
        if src.dtype == object:
            raise TypeError("source_array must be array like object of numbers, got %r" % (source_array,))
        src = torch.from_numpy(_np.ascontiguousarray(src).reshape(src.shape))  # keeps 0-d arrays 0-d
    ctx = as_context(ctx)
    return placed(NDArray(src.to(device=ctx.torch_device, dtype=torch_dtype(dtype), copy=True)), ctx)


def _shape(shape):
    return (shape,) if isinstance(shape, (int, _np.integer)) else tuple(shape)


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros (float32 by default), on storage ``stype`` when given ('csr',
    'row_sparse'); a ``name`` keyword is accepted and ignored, as in MXNet."""
    if stype not in (None, "default"):
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, **kwargs)
    kwargs.pop("name", None)
    return placed(invoke("_zeros", (), dict(kwargs, shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32")),
                  as_context(ctx))


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones (float32 by default); a ``name`` keyword is accepted and ignored, as in MXNet."""
    kwargs.pop("name", None)
    return placed(invoke("_ones", (), dict(kwargs, shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32")),
                  as_context(ctx))


def full(shape, val, ctx=None, dtype=_np.float32, out=None):
    """An array filled with ``val``."""
    res = invoke("_full", (), dict(shape=_shape(shape), ctx=_ctx_str(ctx), dtype=dtype or "float32",
                                   value=float(val)), out)
    return res if out is not None else placed(res, as_context(ctx))


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array (zeros here: torch memory is cheap to clear and never random)."""
    if stype not in (None, "default"):
        return sparse.empty(stype, shape, ctx=ctx, dtype=dtype)
    return zeros(shape, ctx, dtype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=_np.float32):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    return placed(invoke("_arange", (), dict(start=start, stop=stop, step=step, repeat=repeat,
                                             ctx=_ctx_str(ctx), dtype=dtype)), as_context(ctx))


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=_np.float32):
    """``num`` evenly spaced values over ``[start, stop]``."""
    return placed(invoke("_linspace", (), dict(start=start, stop=stop, num=num, endpoint=endpoint,
                                               ctx=_ctx_str(ctx), dtype=dtype)), as_context(ctx))


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-d array with ones on the k-th diagonal."""
    return placed(invoke("_eye", (), dict(kwargs, N=N, M=M, k=k, ctx=_ctx_str(ctx), dtype=dtype or "float32")),
                  as_context(ctx))


def waitall():
    """Wait for all pending computation (torch CUDA streams) to finish."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def from_numpy(ndarray, zero_copy=True):
    """An NDArray sharing the memory of a C-contiguous numpy array (which becomes read-only
    on the numpy side, as in MXNet); with ``zero_copy=False`` a copy keeping its dtype."""
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise ValueError("Only c-contiguous arrays are supported for zero-copy")
    t = torch.from_numpy(ndarray)
    ndarray.flags["WRITEABLE"] = False
    return NDArray(t)


def to_dlpack_for_read(data):
    """A DLPack capsule viewing ``data`` (computation finished first)."""
    return data.to_dlpack_for_read()


def to_dlpack_for_write(data):
    """A DLPack capsule through which ``data`` may be written."""
    return data.to_dlpack_for_write()


def from_dlpack(dlpack):
    """An NDArray sharing the memory of a DLPack capsule (consumed once)."""
    return NDArray(torch.utils.dlpack.from_dlpack(dlpack))


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along ``axis`` (same dtype, same other dimensions)."""
    if not isinstance(arrays, list) or not arrays or not all(isinstance(a, NDArray) for a in arrays):
        raise TypeError("concatenate expects a non-empty list of NDArrays")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    first = arrays[0]
    for a in arrays[1:]:
        if a.dtype != first.dtype or a.ndim != first.ndim or \
                a.shape[:axis] + a.shape[axis + 1:] != first.shape[:axis] + first.shape[axis + 1:]:
            raise ValueError("concatenate along axis %d: arrays of shape %s (%s) and %s (%s) do not match"
                             % (axis, first.shape, _np.dtype(first.dtype).name, a.shape, _np.dtype(a.dtype).name))
    return invoke("Concat", arrays, {"dim": axis, "num_args": len(arrays)})


def moveaxis(tensor, source, destination):
    """Move axes of an array to new positions (numpy's ``moveaxis``); the others keep their order."""
    try:
        source = normalize_axis_tuple(source, tensor.ndim)
        destination = normalize_axis_tuple(destination, tensor.ndim)
    except getattr(_np, "exceptions", _np).AxisError as e:  # np.AxisError before numpy 1.25
        raise ValueError("moveaxis: %s" % e) from None
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(tensor.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return invoke("transpose", (tensor,), {"axes": tuple(order)})


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split into equal sections (an int) or at the given indices (a tuple), as numpy's ``split``."""
    if isinstance(indices_or_sections, int):
        if ary.shape[axis] % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        size = ary.shape[axis] // indices_or_sections
        indices = [i * size for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return invoke("_split_v2", (ary,), {"indices": tuple(indices), "axis": axis, "squeeze_axis": squeeze_axis})


def onehot_encode(indices, out):
    """Write the one-hot encoding of ``indices`` (depth ``out.shape[1]``) into ``out``."""
    return invoke("one_hot", (indices,), {"depth": out.shape[1], "dtype": _np.dtype(out.dtype).name}, out=out)


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



def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """MXNet's deprecated ``mx.nd.imdecode`` (``mx.image.imdecode`` is the one to use): the
    legacy ``_imdecode`` operator on an encoded image (bytes), cropped to ``clip_rect``
    (x0, y0, x1, y1; all zeros: the whole image), CHW in the decoder's channel order (BGR),
    minus ``mean`` when given (float32 otherwise). With a 4-d ``out``, the image goes to
    ``out[index]``, as MXNet writes it."""
    mean = empty((0,)) if mean is None else mean
    res = _internal._imdecode(mean, index=index, x0=clip_rect[0], y0=clip_rect[1], x1=clip_rect[2], y1=clip_rect[3],
                              c=channels, size=len(str_img), str_img=str_img)
    if out is None:
        return res
    if out.ndim == 4:
        out[index] = res
    else:
        out[:] = res
    return out


from .serialization import save, load, load_frombuffer  # noqa: E402
from . import methods as _methods  # noqa: E402,F401  (NDArray.sum(), .relu(), ... )

__all__ = [n for n in dir() if not n.startswith("_")] + ["_internal"]


from . import contrib_functions as _contrib_functions  # noqa: E402  (mx.nd.contrib's Python functions)
contrib.__dict__.update({_n: getattr(_contrib_functions, _n) for _n in _contrib_functions.__all__})
histogram = _contrib_functions.histogram
