"""``mx.np.fallback``: the functions MXNet 1.9.1 takes from NumPy itself (``mxnet/numpy/fallback.py``).

MXNet binds these names to NumPy's functions; called with ``mx.np`` arrays, NumPy's
``__array_function__`` protocol sends them back to MXNet, which runs NumPy on copies of the
arrays and gives the results as ``mx.np`` arrays on the first array's context (scalars stay
scalars), and refuses to run while ``autograd.record()`` is active. Each name here is that
behaviour in one wrapper (no operator: MXNet has none for them, and they have no
gradient); called without any ``mx.np`` array they return NumPy's own results, as MXNet's do.

The names the installed NumPy no longer has keep the answers MXNet 1.9.1 gives with its
NumPy 1.23: ``in1d`` and ``msort`` (removed in NumPy 2) as NumPy 1.23 defines them, the
financial functions (removed in NumPy 1.20) with NumPy 1.23's ``RuntimeError``.
The names ``mx.np`` implements on its own operators (``isclose``, ``cov``, ``trapz``, ...)
are not repeated here.
"""
import functools

import numpy as _onp

from ..core import STATE as _STATE
from ..ndarray import NDArray as _NDArray
from .multiarray import array as _array

OWN = ["apply_along_axis", "apply_over_axes", "argpartition", "array_equiv", "choose", "compress",
           "correlate", "digitize", "divmod", "extract", "frexp", "histogram2d", "histogram_bin_edges",
           "histogramdd", "i0", "in1d", "intersect1d", "isin", "ix_", "lexsort", "min_scalar_type", "mirr",
           "modf", "msort", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmedian", "nanpercentile",
           "nanquantile", "npv", "partition", "piecewise", "packbits", "poly", "polyadd", "polydiv", "polyfit",
           "polyint", "polymul", "polysub", "ppmt", "pv", "rate", "real", "roots", "searchsorted", "select",
           "setdiff1d", "setxor1d", "spacing", "tril_indices_from", "trim_zeros", "triu_indices_from",
           "union1d", "unpackbits", "unwrap", "vander"]
# MXNet's other fallback names are ``mx.np``'s own functions; ``mx.np`` puts them here too
# (MXNet's whole list is this module's ``__all__``, see ``neogluon/_names.py``)
OTHERS = ["allclose", "alltrue", "argwhere", "array_equal", "corrcoef", "count_nonzero", "cov", "flatnonzero",
          "float_power", "heaviside", "interp", "isclose", "nanmax", "nanmin", "nanprod", "ndim", "positive",
          "promote_types", "ptp", "result_type", "rollaxis", "signbit", "size", "take_along_axis", "trapz"]
__all__ = OWN + OTHERS

_RECORDING = ("Falling back to NumPy operator {} with autograd active is not supported."
              "Please consider moving the operator to the outside of the autograd scope.")


def _to_numpy(obj, found):
    """``obj`` with its arrays as NumPy arrays; ``found`` collects their contexts."""
    if isinstance(obj, _NDArray):
        found.append(obj.context)
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)):
        return obj.__class__(_to_numpy(o, found) for o in obj)
    return obj


def _to_mx(obj, ctx):
    """NumPy's result as ``mx.np`` arrays (MXNet's ``_as_mx_np_array``): arrays converted,
    scalars kept, lists and tuples element-wise."""
    if isinstance(obj, _onp.ndarray):
        return _array(_onp.ascontiguousarray(obj), dtype=obj.dtype, ctx=ctx)
    if isinstance(obj, (list, tuple)):
        return obj.__class__(_to_mx(o, ctx) for o in obj)
    if isinstance(obj, (int, float, complex, _onp.generic)):
        return obj
    raise TypeError("Does not support converting {} to mx.np.ndarray.".format(type(obj)))


def wrap(fn, name=None):
    """``fn`` (a NumPy function) as MXNet runs it on ``mx.np`` arrays."""
    @functools.wraps(fn)
    def fallback(*args, **kwargs):
        found = []
        args = _to_numpy(args, found)
        kwargs = {k: _to_numpy(v, found) for k, v in kwargs.items()}
        if not found:
            return fn(*args, **kwargs)
        if _STATE.recording:
            raise ValueError(_RECORDING.format(getattr(fn, "__name__", name)))
        return _to_mx(fn(*args, **kwargs), found[0])
    if name:
        fallback.__name__ = fallback.__qualname__ = name
    fallback.__module__ = __name__
    return fallback


def _in1d(ar1, ar2, assume_unique=False, invert=False):
    """NumPy 1.23's ``in1d``: ``isin`` of the flattened ``ar1``."""
    return _onp.isin(_onp.asarray(ar1).ravel(), ar2, assume_unique=assume_unique, invert=invert)


def _msort(a):
    """NumPy 1.23's ``msort``: a copy sorted along the first axis."""
    b = _onp.array(a, subok=True, copy=True)
    b.sort(0)
    return b


def _removed(name):
    """A financial function NumPy 1.20 removed: NumPy 1.23 (MXNet 1.9.1's) raises when it is called."""
    def expired(*args, **kwargs):
        raise RuntimeError("In accordance with NEP 32, the function {} was removed from NumPy version 1.20.  "
                           "A replacement for this function is available in the numpy_financial library: "
                           "https://pypi.org/project/numpy-financial".format(name))
    expired.__name__ = expired.__qualname__ = name
    return expired


_OWN = {"in1d": _in1d, "msort": _msort}
pmt = _removed("pmt")  # (in MXNet's module, not its __all__)
for _name in OWN:
    if _name in ("mirr", "npv", "ppmt", "pv", "rate"):
        globals()[_name] = _removed(_name)
    else:
        globals()[_name] = wrap(_OWN.get(_name) or getattr(_onp, _name), _name)
