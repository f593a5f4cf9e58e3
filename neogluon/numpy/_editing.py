"""``mx.np``'s functions that build a new array around an old one (``pad``, ``insert``,
``delete``, ``ediff1d``, ``diagflat``, ``diag_indices_from``, ``unravel_index``) and the
memory tests (``may_share_memory``, ``shares_memory``), over the operators of
``neogluon/operator/numpy_edit.py``, with MXNet 1.9.1's front-end checks.

Two deliberate differences from MXNet 1.9.1, whose answers are bugs: ``pad`` honours
``constant_values`` (MXNet's front end drops it and pads with 0), and pads 1-d arrays
(MXNet's operator fails on them with "index = 1 must be in range [0, 1)")."""
import numpy as _onp

from ..base import integer_types as _integer, numeric_types as _numeric
from ..ndarray import NDArray as _NDArray
from ..symbol import Symbol as _Symbol
from .multiarray import call as _call

_ARRAY = (_NDArray, _Symbol)  # an mx.np array, or a Symbol in hybrid_forward(F, ...)

__all__ = ["pad", "insert", "delete", "ediff1d", "diagflat", "diag_indices_from", "unravel_index",
           "may_share_memory", "shares_memory"]

_ALLOWED = {"constant": ["constant_values"], "edge": [], "linear_ramp": ["end_values"], "maximum": ["stat_length"],
            "mean": ["stat_length"], "median": ["stat_length"], "minimum": ["stat_length"],
            "reflect": ["reflect_type"], "symmetric": ["reflect_type"], "wrap": []}


def pad(x, pad_width, mode="constant", **kwargs):
    """``np.pad`` in the modes constant, edge, reflect, symmetric, maximum and minimum;
    ``pad_width`` a tuple of ``(before, after)`` per axis, as MXNet requires."""
    if _onp.asarray(pad_width).dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    if not isinstance(pad_width, tuple):
        raise TypeError("`pad_width` must be tuple.")
    if callable(mode):
        raise ValueError("mode {'<function>'} is not supported.")
    if mode in ("linear_ramp", "wrap", "median", "mean", "empty"):
        raise ValueError("mode {'%s'} is not supported." % mode)
    for key in kwargs:
        if key not in _ALLOWED.get(mode, ()):
            raise ValueError("%s keyword not in allowed keywords %s" % (key, _ALLOWED.get(mode)))
    if mode in ("reflect", "symmetric") and kwargs.get("reflect_type", "even") not in ("even", None):
        raise ValueError("unsupported reflect_type '{}'".format(kwargs["reflect_type"]))
    if mode in ("maximum", "minimum") and kwargs.get("stat_length") is not None:
        raise ValueError("unsupported stat_length '{}'".format(kwargs["stat_length"]))
    attrs = dict(pad_width=tuple(tuple(int(v) for v in w) for w in pad_width), mode=mode)
    if mode == "constant":
        value = kwargs.get("constant_values", 0)
        if isinstance(value, tuple):
            raise TypeError("unsupported constant_values type: {'tuple'}.")
        attrs["constant_value"] = float(value)
    return _call("_npi_pad", (x,), attrs)


def _where(obj):
    """The operator attributes naming ``obj`` (a slice or an int)."""
    if isinstance(obj, slice):
        return dict(start=obj.start, stop=obj.stop, step=1 if obj.step is None else obj.step)
    return dict(int_ind=int(obj))


def insert(arr, obj, values, axis=None):
    """``values`` inserted before ``obj`` (an int, a slice or an integer array) along ``axis``."""
    if isinstance(values, _numeric):
        attrs = dict(val=float(values), axis=axis)
        if isinstance(obj, _ARRAY):
            return _call("_npi_insert_tensor", (arr, obj), attrs)
        name = "_npi_insert_slice" if isinstance(obj, slice) else "_npi_insert_scalar"
        return _call(name, (arr,), dict(attrs, **_where(obj)))
    if not isinstance(arr, _ARRAY):
        raise TypeError("'arr' can not support type {}".format(str(type(arr))))
    if not isinstance(values, _ARRAY):
        raise TypeError("'values' can not support type {}".format(str(type(values))))
    if isinstance(obj, slice):
        return _call("_npi_insert_slice", (arr, values), dict(_where(obj), axis=axis))
    if isinstance(obj, _integer):
        return _call("_npi_insert_scalar", (arr, values), dict(_where(obj), axis=axis))
    if isinstance(obj, _ARRAY):
        return _call("_npi_insert_tensor", (arr, values, obj), dict(axis=axis))
    raise TypeError("'obj' can not support type {}".format(str(type(obj))))


def delete(arr, obj, axis=None):
    """The array without the sub-arrays ``obj`` (an int, a slice or an integer array) names."""
    if not isinstance(arr, _ARRAY):
        raise TypeError("'arr' can not support type {}".format(str(type(arr))))
    if isinstance(obj, (slice,) + tuple(_integer)):
        return _call("_npi_delete", (arr,), dict(_where(obj), axis=axis))
    if isinstance(obj, _ARRAY):
        return _call("_npi_delete", (arr, obj), dict(axis=axis))
    raise TypeError("'obj' can not support type {}".format(str(type(obj))))


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened array, with ``to_begin`` and
    ``to_end`` (arrays or scalars) around them."""
    begin_arr, end_arr = isinstance(to_begin, _ARRAY), isinstance(to_end, _ARRAY)
    inputs = (ary,) + ((to_begin,) if begin_arr else ()) + ((to_end,) if end_arr else ())
    return _call("_npi_ediff1d", inputs, dict(to_begin_arr_given=begin_arr, to_end_arr_given=end_arr,
                                              to_begin_scalar=None if begin_arr else to_begin,
                                              to_end_scalar=None if end_arr else to_end))


def diagflat(v, k=0):
    """A 2-d array with the flattened ``v`` on the ``k``-th diagonal."""
    return _call("_np_diagflat", (v,), dict(k=k))


def diag_indices_from(arr):
    """The indices of the main diagonal, one array per axis."""
    return tuple(_call("_npi_diag_indices_from", (arr,)))


def unravel_index(indices, shape, order="C"):
    """The coordinates of flat ``indices`` in an array of ``shape`` (NumPy's own for a number)."""
    if order != "C":
        raise NotImplementedError("Do not support column-major (Fortran-style) order at this moment")
    if isinstance(indices, _numeric):
        return _onp.unravel_index(indices, shape)
    return tuple(_call("_npi_unravel_index_fallback", (indices,), dict(shape=tuple(shape))))


def may_share_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` may share memory (their memory ranges overlap)."""
    return _call("_npi_share_memory", (a, b)).item()


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` share memory (as MXNet: their memory ranges overlap)."""
    return _call("_npi_share_memory", (a, b)).item()
