"""``mx.np``: MXNet 1.9.1's NumPy interface (``mxnet/numpy``).

The functions keep MXNet's names and arguments (``dtype=``, ``ctx=``/``device=``,
``out=``) and are thin layers over registered operators: the ``_npi_*``/``_np_*``
operators of ``neogluon/operator/numpy_*.py`` where MXNet's NumPy semantics differ from
the legacy operators' (dtype promotion, 0-d reductions), the legacy operators where they
agree. Results are :class:`ndarray`; float32 is the default dtype, as in MXNet without
``npx.set_np(dtype=True)``.
"""
import builtins as _builtins

import numpy as _onp

from ..base import MXNetError as _MXNetError, integer_types as _integer_types
from ..context import as_context as _as_context, current_context as _current
from ..ndarray import NDArray as _NDArray
from ..operator import registry as _registry
from ..symbol import Symbol as _Symbol
from ..util import check_np_ufunc_kwargs as _check_ufunc_kwargs
from .multiarray import ndarray, array, as_np as _np, call as _call, binary as _binary
from . import random
from . import linalg

# NumPy's scalar types and constants, as mx.np exposes them
from numpy import (float16, float32, float64, int8, int32, int64, uint8, bool_,  # noqa: F401
                   pi, e, inf, nan, newaxis, finfo)
PZERO, NZERO = 0.0, -0.0
bool = _onp.bool_  # pylint: disable=redefined-builtin


def _ctx(ctx, device):
    return str(_as_context(device or ctx or _current()))


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, _onp.integer)) else tuple(shape)


def _dt(dtype, default="float32"):
    return default if dtype is None else _onp.dtype(dtype).name


def _arr(x, like=None):
    if isinstance(x, (_NDArray, _Symbol)):
        return x
    return array(x, ctx=like.context if like is not None else None)


# ---------------------------------------------------------------------- creation
def zeros(shape, dtype=None, order="C", ctx=None, device=None):
    """An array of zeros, float32 by default."""
    return _call("_npi_zeros", (), dict(shape=_shape(shape), ctx=_ctx(ctx, device), dtype=_dt(dtype)))


def ones(shape, dtype=None, order="C", ctx=None, device=None):
    """An array of ones, float32 by default."""
    return _call("_npi_ones", (), dict(shape=_shape(shape), ctx=_ctx(ctx, device), dtype=_dt(dtype)))


def empty(shape, dtype=None, order="C", ctx=None, device=None):
    """An uninitialised array (zeros in neogluon)."""
    return zeros(shape, dtype, order, ctx, device)


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    """An array filled with ``fill_value`` (float32 unless ``dtype``; an array value is broadcast)."""
    if isinstance(fill_value, _NDArray):
        return broadcast_to(fill_value.astype(dtype or fill_value.dtype), _shape(shape))
    value = fill_value if type(fill_value) in (int, float) else float(fill_value)  # as given: MXNet's attribute
    return _call("_full", (), dict(shape=_shape(shape), ctx=_ctx(ctx, device), dtype=_dt(dtype), value=value), out)


def zeros_like(a, dtype=None, order="C", ctx=None, device=None, out=None):
    """Zeros of ``a``'s shape and dtype (operator ``_npi_full_like``)."""
    return full_like(a, 0, dtype, order, ctx, device, out)


def ones_like(a, dtype=None, order="C", ctx=None, device=None, out=None):
    """Ones of ``a``'s shape and dtype (operator ``_npi_full_like``)."""
    return full_like(a, 1, dtype, order, ctx, device, out)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    """``fill_value`` in ``a``'s shape and dtype (an array value is broadcast)."""
    if isinstance(fill_value, _NDArray):
        return full(a.shape, fill_value, dtype or a.dtype, ctx=ctx or a.context, device=device)
    attrs = dict(fill_value=fill_value if type(fill_value) in (int, float) else float(fill_value),
                 ctx=_ctx(ctx, device) if ctx or device or isinstance(a, _Symbol) else str(a.context))
    if dtype is not None:
        attrs["dtype"] = _onp.dtype(dtype).name
    return _call("_npi_full_like", (a,), attrs, out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):
    return zeros(shape or prototype.shape, dtype or prototype.dtype, ctx=prototype.context)


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    """``np.arange``: float32 by default (MXNet's, not NumPy's int64)."""
    if stop is None:
        start, stop = 0, start
    return _call("_npi_arange", (), dict(start=start, stop=stop, step=step, ctx=_ctx(ctx, device), dtype=_dt(dtype)))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None, device=None):
    """``np.linspace``; with ``retstep`` also the step."""
    attrs = dict(start=start, stop=stop, num=num, endpoint=endpoint, ctx=_ctx(ctx, device))
    if dtype is not None:  # (float32 by default; MXNet writes no dtype then)
        attrs["dtype"] = _dt(dtype)
    r = _call("_linspace", (), attrs)
    if retstep:
        return r, (stop - start) / ((num - 1) if endpoint else num)
    return r


def eye(N, M=None, k=0, dtype=None, ctx=None, device=None):
    return _call("_npi_eye", (), dict(N=N, M=M, k=k, ctx=_ctx(ctx, device), dtype=_dt(dtype)))


def identity(n, dtype=None, ctx=None, device=None):
    return eye(n, dtype=dtype, ctx=ctx, device=device)


def copy(a):
    """A copy in new memory (operator ``_np_copy``)."""
    return _call("_np_copy", (_arr(a),))


def _asarray(a, dtype=None, ctx=None, device=None):
    if isinstance(a, ndarray) and (dtype is None or _onp.dtype(dtype) == a.dtype):
        return a
    return array(a, dtype=dtype, ctx=ctx, device=device)


# ---------------------------------------------------------------------- arithmetic
def _binary_fn(name, op, op_scalar, rop_scalar=None, ufunc=True):
    def fn(x1, x2, out=None, **kwargs):
        if kwargs:  # NumPy's ufunc keywords, with MXNet's errors (comparisons take none)
            if not ufunc:
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (name, next(iter(kwargs))))
            _check_ufunc_kwargs(name, kwargs, unary=False)
        if out is not None:
            r = _binary(x1, x2, op, op_scalar, rop_scalar)
            out[...] = r
            return out
        return _binary(x1, x2, op, op_scalar, rop_scalar)
    fn.__name__ = name
    fn.__doc__ = "``np.%s`` with broadcasting and MXNet's dtype promotion (operator %s)." % (name, op)
    return fn


add = _binary_fn("add", "_npi_add", "_npi_add_scalar")
subtract = _binary_fn("subtract", "_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar")
multiply = _binary_fn("multiply", "_npi_multiply", "_npi_multiply_scalar")
true_divide = divide = _binary_fn("true_divide", "_npi_true_divide", "_npi_true_divide_scalar",
                                  "_npi_rtrue_divide_scalar")
mod = remainder = _binary_fn("mod", "_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar")
power = _binary_fn("power", "_npi_power", "_npi_power_scalar", "_npi_rpower_scalar")
maximum = _binary_fn("maximum", "_npi_maximum", "_npi_maximum_scalar")
minimum = _binary_fn("minimum", "_npi_minimum", "_npi_minimum_scalar")
equal = _binary_fn("equal", "_npi_equal", "_npi_equal_scalar", ufunc=False)
not_equal = _binary_fn("not_equal", "_npi_not_equal", "_npi_not_equal_scalar", ufunc=False)
greater = _binary_fn("greater", "_npi_greater", "_npi_greater_scalar", "_npi_less_scalar", ufunc=False)
greater_equal = _binary_fn("greater_equal", "_npi_greater_equal", "_npi_greater_equal_scalar",
                           "_npi_less_equal_scalar", ufunc=False)
less = _binary_fn("less", "_npi_less", "_npi_less_scalar", "_npi_greater_scalar", ufunc=False)
less_equal = _binary_fn("less_equal", "_npi_less_equal", "_npi_less_equal_scalar", "_npi_greater_equal_scalar",
                        ufunc=False)


def _with_scalar(arr, scalar):
    """An array and a Python number for an operator of two arrays of one dtype: the array in a float dtype (its
    own, or float32) and the number as an array of that dtype (MXNet runs its ``_scalar`` operators there)."""
    if arr.dtype.kind != "f":
        arr = arr.astype("float32")
    return arr, array(scalar, dtype=arr.dtype, ctx=arr.context)


def _array_binary(name, op):
    def fn(x1, x2, out=None, **kwargs):
        if kwargs:
            _check_ufunc_kwargs(name, kwargs, unary=False)
        if isinstance(x1, _NDArray) and isinstance(x2, (int, float, _onp.number)):
            return _call(op, _with_scalar(x1, x2), None, out)
        if isinstance(x2, _NDArray) and isinstance(x1, (int, float, _onp.number)):
            return _call(op, _with_scalar(x2, x1)[::-1], None, out)
        a = _arr(x1, x2 if isinstance(x2, _NDArray) else None)
        return _call(op, (a, _arr(x2, a)), None, out)
    fn.__name__ = name
    fn.__doc__ = "``np.%s`` with broadcasting (operator %s)." % (name, op)
    return fn


arctan2 = _array_binary("arctan2", "_npi_arctan2")
hypot = _array_binary("hypot", "_npi_hypot")
# MXNet 1.9.1's mx.np has no logical_and/or/xor; their _npi_ operators serve isfinite, isclose
_logical_and = _array_binary("logical_and", "_npi_logical_and")
_logical_or = _array_binary("logical_or", "_npi_logical_or")


def _unary(name, op):
    operator = _registry.get(op)
    plain = operator.entry({})

    def fn(x, out=None, **kwargs):
        if kwargs:  # NumPy's ufunc keywords, with MXNet's errors
            _check_ufunc_kwargs(name, kwargs, unary=True)
        if x.__class__ is ndarray and out is None:  # the common call: Operator.call's steps for the entry
            res = plain.run(x)
            if res.__class__ is _NDArray:
                res.__class__ = ndarray
            return res
        return _call(op, (_arr(x),), None, out)
    fn.__name__ = name
    fn.__doc__ = "``np.%s`` element-wise (operator %s)." % (name, op)
    return fn


for _name in ("exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "arcsin",
              "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "degrees", "radians",
              "reciprocal", "absolute", "negative", "sign", "square", "ceil", "floor", "trunc", "rint", "fix",
              "logical_not"):
    globals()[_name] = _unary(_name, "_npi_" + _name)
abs = _unary("abs", "_npi_absolute")  # pylint: disable=redefined-builtin  (its own name in errors, as MXNet)
deg2rad, rad2deg = radians, degrees  # noqa: F821


def _sigmoid(x):
    return _call("sigmoid", (x,))


def clip(a, a_min, a_max, out=None):
    """``np.clip`` (None for an open bound)."""
    lo = -_onp.inf if a_min is None else a_min if type(a_min) in (int, float) else float(a_min)  # as given:
    hi = _onp.inf if a_max is None else a_max if type(a_max) in (int, float) else float(a_max)  # MXNet's attribute
    return _call("clip", (a,), dict(a_min=lo, a_max=hi), out)


def where(condition, x=None, y=None):
    """``np.where(cond, x, y)`` with broadcasting and promotion (x, y may be scalars)."""
    if x is None and y is None:
        return nonzero(condition)
    if isinstance(x, (_NDArray, _Symbol)) and isinstance(y, (_NDArray, _Symbol)) \
            and isinstance(condition, (_NDArray, _Symbol)):
        return _call("_npi_where", (condition, x, y))  # broadcast and promoted by the operator
    ref = next((v for v in (condition, x, y) if isinstance(v, _NDArray)), None)
    c, a, b = (_arr(v, ref) for v in (condition, x, y))
    # one Python number beside an array takes the array's dtype (MXNet's _npi_where_lscalar/_rscalar: int32 with
    # 0.5 gives int32 0); beside a boolean array it stays float32
    if isinstance(x, (int, float, _onp.number)) and isinstance(y, _NDArray) and y.dtype != _onp.bool_:
        a = array(x, dtype=y.dtype, ctx=y.context)
    elif isinstance(y, (int, float, _onp.number)) and isinstance(x, _NDArray) and x.dtype != _onp.bool_:
        b = array(y, dtype=x.dtype, ctx=x.context)
    shape = _onp.broadcast_shapes(c.shape, a.shape, b.shape)
    a, b = add(a, zeros(shape, a.dtype, ctx=a.context)), add(b, zeros(shape, b.dtype, ctx=b.context))
    if a.dtype != b.dtype:
        dt = _onp.promote_types(a.dtype, b.dtype)
        a, b = a.astype(dt), b.astype(dt)
    c = broadcast_to(c, shape)
    return _call("where", (c, a, b))


def nonzero(a):
    """A tuple of int64 index arrays, one per dimension."""
    idx = _onp.nonzero(a.asnumpy())
    return tuple(array(i, dtype="int64", ctx=a.context) for i in idx)


# ---------------------------------------------------------------------- reductions
def _reduce(name, op, has_dtype=True, always=False):
    operator = _registry.get(op)

    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        if axis is None and dtype is None and out is None and not keepdims and initial is None:
            if isinstance(a, _Symbol):
                return _call(op, (a,))  # a graph node without attributes, as MXNet writes it
            return _np(operator.call((a,)))  # a.sum(): the operator's plain entry
        attrs = dict(axis=axis, keepdims=keepdims) if always else {}  # (else only what is given, as MXNet writes)
        if not always:
            if axis is not None:
                attrs["axis"] = axis
            if keepdims:
                attrs["keepdims"] = True
        if has_dtype:
            if dtype is not None:
                attrs["dtype"] = _onp.dtype(dtype).name
            if initial is not None:
                attrs["initial"] = initial
        elif initial is not None:
            raise _MXNetError("np.%s: initial= is not supported" % name)
        return _call(op, (a,), attrs, out)
    fn.__name__ = name
    fn.__doc__ = "``np.%s``: a 0-d array over all axes (operator %s)." % (name, op)
    return fn


sum = _reduce("sum", "_np_sum")  # pylint: disable=redefined-builtin
prod = _reduce("prod", "_np_prod")
mean = _reduce("mean", "_npi_mean", always=True)  # (MXNet's mean writes axis and keepdims)
_max, _min = _reduce("max", "_np_max", False), _reduce("min", "_np_min", False)


def max(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """``np.max``: a 0-d array over all axes."""
    return _max(a, axis, out=out, keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """``np.min``: a 0-d array over all axes."""
    return _min(a, axis, out=out, keepdims=keepdims)


amax, amin = max, min


def argmax(a, axis=None, out=None):
    return _call("_npi_argmax", (a,), dict(axis=axis, keepdims=False), out)


def argmin(a, axis=None, out=None):
    return _call("_npi_argmin", (a,), dict(axis=axis, keepdims=False), out)


def cumsum(a, axis=None, dtype=None, out=None):
    """The one ``_np_cumsum`` operator (legacy ``mx.nd.cumsum`` too), with NumPy's axis and
    dtype rules applied here: a negative axis counts from the end, booleans sum as int64."""
    if isinstance(a, _Symbol):  # a graph node: the attributes as given, as MXNet writes them
        return _call("_np_cumsum", (a,), dict(axis=axis) if dtype is None else dict(axis=axis, dtype=dtype))
    if axis is not None and axis < 0:
        axis += a.ndim
    if dtype is None and a.dtype == _onp.bool_:
        dtype = "int64"
    return _call("_np_cumsum", (a,), dict(axis=axis, dtype=None if dtype is None else _onp.dtype(dtype).name), out)


def _moment(op, a, axis, dtype, out, ddof, keepdims):
    attrs = dict(axis=axis, ddof=ddof, keepdims=keepdims)  # (dtype only when given, as MXNet writes it)
    if dtype is not None:
        attrs["dtype"] = _onp.dtype(dtype).name
    return _call(op, (a,), attrs, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``np.var`` (operator ``_npi_var``): an integer array's variance is truncated to its dtype."""
    return _moment("_npi_var", a, axis, dtype, out, ddof, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``np.std`` (operator ``_npi_std``): an integer array's deviation is truncated to its dtype."""
    return _moment("_npi_std", a, axis, dtype, out, ddof, keepdims)


def _count(a, axis):
    if axis is None:
        return a.size
    axes = (axis,) if isinstance(axis, int) else axis
    n = 1
    for ax in axes:
        n *= a.shape[ax]
    return n


def _given(**attrs):
    """The attributes a call was given (not None, not False), as MXNet's generated functions write them."""
    return {k: v for k, v in attrs.items() if v is not None and v is not False}


def any(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """``np.any`` (operator ``_np_any``): a boolean array."""
    return _call("_np_any", (a,), _given(axis=axis, keepdims=keepdims), out)


def all(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """``np.all`` (operator ``_np_all``): a boolean array."""
    return _call("_np_all", (a,), _given(axis=axis, keepdims=keepdims), out)


# ---------------------------------------------------------------------- shapes
def reshape(a, newshape, order="C"):
    """NumPy's reshape: one ``-1`` is inferred; MXNet's special codes are not read."""
    if order != "C":
        raise NotImplementedError("np.reshape: only order='C' is supported (as in MXNet)")
    shape = _shape(newshape)
    if isinstance(a, _Symbol):  # a graph node: its size is known when the graph runs
        return _call("_np_reshape", (a,), dict(newshape=shape))
    if _builtins.any(d < -1 for d in shape) or _builtins.sum(1 for d in shape if d == -1) > 1:
        raise _MXNetError("np.reshape: invalid shape %s for an array of shape %s" % (shape, a.shape))
    if isinstance(a, ndarray) and 0 in shape and a.size:
        raise _MXNetError("np.reshape: cannot reshape array of size %d into shape %s" % (a.size, shape))
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    if -1 not in shape and known != a.size or -1 in shape and (known == 0 or a.size % known):
        raise _MXNetError("np.reshape: cannot reshape array of size %d into shape %s" % (a.size, shape))
    return _call("_np_reshape", (a,), dict(newshape=shape))  # (order='C' is not written, as in MXNet)


def transpose(a, axes=None):
    return _call("_np_transpose", (a,), dict(axes=None if axes is None else tuple(axes)))


def swapaxes(a, axis1, axis2):
    return _call("SwapAxis", (a,), dict(dim1=axis1, dim2=axis2))


def moveaxis(a, source, destination):
    order = [n for n in range(a.ndim) if n != source % a.ndim]
    order.insert(destination % a.ndim, source % a.ndim)
    return transpose(a, order)


def expand_dims(a, axis):
    return _call("expand_dims", (a,), dict(axis=axis))


def squeeze(a, axis=None):
    """The size-1 axes removed (operator ``_np_squeeze``; a 0-d array when none is left)."""
    return _call("_np_squeeze", (a,), dict(axis=axis))


def ravel(x, order="C"):
    """The flattened array (``_npx_reshape`` to -1, as MXNet's graph has it)."""
    return _call("_npx_reshape", (x,), dict(newshape=-1))


def broadcast_to(array, shape):  # pylint: disable=redefined-outer-name
    """``np.broadcast_to`` (operator ``_npi_broadcast_to``: missing leading axes are 1)."""
    if not shape and not isinstance(array, _Symbol):
        return array.reshape(()) if array.size == 1 else broadcast_to(array, (1,))
    return _call("_npi_broadcast_to", (array,), dict(shape=_shape(shape)))


def stack(arrays, axis=0, out=None):
    """``np.stack`` of a list of arrays (a new axis)."""
    arrays = list(arrays)
    return _call("_npi_stack", arrays, dict(axis=axis, num_args=len(arrays)), out)


def concatenate(seq, axis=0, out=None):
    """``np.concatenate`` along an existing axis (``axis=None``: of the flattened arrays)."""
    seq = list(seq)
    return _call("_npi_concatenate", seq, dict(axis=axis, num_args=len(seq)), out)


def vstack(arrays, out=None):
    return concatenate([a.reshape(1, -1) if a.ndim == 1 else a for a in arrays], 0, out)


def hstack(arrays):
    arrays = list(arrays)
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1)


def split(ary, indices_or_sections, axis=0):
    """``np.split``: equal sections (an error when they do not divide) or at indices; MXNet's
    ``_npi_split`` (``_split_v2``): the parts are new memory, not views (numpy gives views).
    On a Symbol or a traced array (no shape) the sections are not checked, as in MXNet's
    symbolic ``split``."""
    indices, sections = [], 0
    if isinstance(indices_or_sections, _integer_types):
        sections = int(indices_or_sections)
        if not _symbolic(ary) and ary.shape[axis] % sections:
            raise ValueError("array split does not result in an equal division")
    elif isinstance(indices_or_sections, (list, set, tuple)):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must be either int, or tuple / list / set of ints")
    return _split(ary, indices, axis, sections)


def _symbolic(x):
    """Whether ``x`` stands for a graph node (a Symbol, or a traced array): no shape."""
    return isinstance(x, _Symbol) or hasattr(x, "_sym")


def _split(ary, indices, axis, sections):
    """The parts of ``_split_v2`` as a list (one part too; on Symbols, the Symbols of its
    outputs, as MXNet's symbolic split gives)."""
    # MXNet writes the indices of a graph node as a list ('[]', '[0, 2]')
    indices = list(indices) if _symbolic(ary) else tuple(indices)
    res = _call("_split_v2", (ary,), dict(indices=indices, axis=axis, squeeze_axis=False, sections=sections))
    if isinstance(res, _Symbol):
        n = len(res.list_outputs())
        return [res[i] for i in range(n)] if n > 1 else [res]
    return list(res) if isinstance(res, (list, tuple)) else [res]


def tile(A, reps):
    return _call("tile", (A,), dict(reps=_shape(reps)))


def repeat(a, repeats, axis=None):
    return _call("repeat", (a,), dict(repeats=repeats, axis=axis))


def flip(m, axis=None):
    """``np.flip`` along ``axis`` (all axes by default; operator ``_npi_flip``)."""
    return _call("_npi_flip", (m,), dict(axis=axis))


def take(a, indices, axis=None, mode="raise", out=None):
    indices = _arr(indices, a)
    if axis is None:  # the flattened array (MXNet's graph: _npx_reshape to -1)
        a, axis = _call("_npx_reshape", (a,), dict(newshape=-1)), 0
    return _call("take", (a, indices), dict(axis=axis, mode=mode), out)  # (raise: an error out of range, as MXNet)


def diag(v, k=0):
    """``np.diag`` (operator ``_np_diag``)."""
    return _call("_np_diag", (v,), _given(k=k or None))


def sort(a, axis=-1, kind=None, order=None):
    return _call("sort", (a,), dict(axis=axis))


def argsort(a, axis=-1, kind=None, order=None):
    return _call("argsort", (a,), dict(axis=axis, dtype="int64"))


# ---------------------------------------------------------------------- products
def dot(a, b, out=None):
    """``np.dot`` (operator ``_np_dot``): scalars multiply, 1-d by 1-d is a 0-d inner product,
    else a sum over the last axis of ``a`` and the second-to-last of ``b``."""
    return _call("_np_dot", (_arr(a, b if isinstance(b, _NDArray) else None), _arr(b, a)), None, out)


def tensordot(a, b, axes=2):
    """``np.tensordot`` (operators ``_npi_tensordot_int_axes`` and ``_npi_tensordot``)."""
    if isinstance(axes, int):
        return _call("_npi_tensordot_int_axes", (a, b), dict(axes=axes))
    summed = [(x,) if isinstance(x, int) else tuple(x) for x in axes]
    return _call("_npi_tensordot", (a, b), dict(a_axes_summed=summed[0], b_axes_summed=summed[1]))


def matmul(a, b, out=None):
    """``np.matmul`` (operator ``_npi_matmul``): batched over leading axes (broadcast), 1-d
    operands promoted and squeezed."""
    return _call("_npi_matmul", (a, b), None, out)


def inner(a, b):
    """``np.inner``: a sum over the last axes (``_npi_tensordot``)."""
    return tensordot(a, b, ((-1,), (-1,)))


def _flat(a):
    return _call("_np_reshape", (a,), dict(newshape=(-1,), order="C"))


def outer(a, b):
    """``np.outer`` of the flattened arrays (``_npi_tensordot_int_axes`` with 0 axes)."""
    return tensordot(_flat(a), _flat(b), 0)


def einsum(subscripts, *operands, **kwargs):
    """``np.einsum``: the registered ``_npi_einsum`` operator."""
    operands = list(operands)
    return _call("_npi_einsum", operands, dict(subscripts=subscripts, num_args=len(operands)))


# ---------------------------------------------------------------------- misc
def shape(a):
    return a.shape


def ndim(a):
    return a.ndim


def size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def around(x, decimals=0, out=None):
    """``np.around`` (operator ``_npi_around``): half to even at ``decimals`` places."""
    return _call("_npi_around", (x,), dict(decimals=decimals), out)


round = round_ = around  # pylint: disable=redefined-builtin


def isnan(x, out=None, **kwargs):
    return _call("_npi_isnan", (_arr(x),), None, out)


def isinf(x, out=None, **kwargs):
    return _call("_npi_isinf", (_arr(x),), None, out)


def isfinite(x, out=None, **kwargs):
    return _call("_npi_isfinite", (_arr(x),), None, out)


from .extras import *  # noqa: E402,F401,F403  (more functions, compositions of the above)
from ._integer import *  # noqa: E402,F401,F403  (bitwise functions, lcm, isposinf/isneginf)
from ._counting import *  # noqa: E402,F401,F403  (unique, bincount, histogram, percentile)
from ._editing import *  # noqa: E402,F401,F403  (pad, insert, delete, ediff1d, diagflat, ...)
from ._windows import *  # noqa: E402,F401,F403  (blackman, hamming, hanning, indices)
from . import arrayprint, io, stride_tricks, function_base, utils  # noqa: E402
from .arrayprint import set_printoptions  # noqa: E402,F401
from .io import genfromtxt  # noqa: E402,F401
from .stride_tricks import broadcast_arrays  # noqa: E402,F401
from . import _sites  # noqa: E402
from . import _symbol_methods  # noqa: E402,F401  (x.reshape(), x.T, x.sum(), ... of symbols under set_np())
from . import multiarray as _multiarray  # noqa: E402
from . import fallback  # noqa: E402  (NumPy's own functions, run as MXNet runs them)
for _name in fallback.OWN:
    globals()[_name] = getattr(fallback, _name)
for _name in fallback.OTHERS:  # MXNet's fallback module also names these, which mx.np implements itself
    setattr(fallback, _name, globals()[_name])
for _name in fallback.__all__:  # MXNet's multiarray star-imports its fallback module: the same functions
    if _name not in _multiarray.__dict__:
        setattr(_multiarray, _name, globals()[_name])

# methods of ndarray that are these functions (the array binds as the first argument)
for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "cumsum", "squeeze", "expand_dims",
              "swapaxes", "clip", "split", "take", "sort", "argsort", "exp", "log", "sqrt", "abs", "tanh",
              "dot", "round", "zeros_like", "ones_like", "std", "var", "any", "all", "nonzero",
              "diag", "flip", "sign", "square"):
    setattr(ndarray, _name, globals()[_name])
ndarray.sigmoid = _sigmoid


def _clip_method(self, min=None, max=None, out=None):  # pylint: disable=redefined-builtin
    """``x.clip(min=None, max=None, out=None)``: MXNet's method names its bounds min/max
    (d2l's box_iou calls ``.clip(min=0)``)."""
    return clip(self, min, max, out=out)


ndarray.clip = _clip_method
_sites.install(globals())  # the hot call sites, generated from the registry's template (see _sites)
for _name in ("relu", "softmax", "log_softmax", "topk", "pick", "slice"):
    delattr(ndarray, _name)

