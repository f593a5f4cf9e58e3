"""``mx.np``'s counting and order statistics (``unique``, ``bincount``, ``histogram``,
``percentile``, ``quantile``) over the operators of ``neogluon/operator/numpy_counting.py``,
with MXNet 1.9.1's front-end checks (what it does not support raises as it does)."""
from ..base import numeric_types as _numeric
from ..ndarray import NDArray as _NDArray
from ..symbol import Symbol as _Symbol
from .multiarray import call as _call

_ARRAY = (_NDArray, _Symbol)  # an mx.np array, or a Symbol in hybrid_forward(F, ...)

__all__ = ["unique", "bincount", "histogram", "percentile", "quantile"]


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique elements (a tuple with the indices, inverse and counts asked for)."""
    ret = _call("_npi_unique", (ar,), dict(return_index=return_index, return_inverse=return_inverse,
                                           return_counts=return_counts, axis=axis))
    return tuple(ret) if isinstance(ret, list) else ret


def bincount(x, weights=None, minlength=0):
    """Occurrences of each non-negative integer (sums of ``weights``)."""
    if not isinstance(x, _ARRAY):
        raise TypeError("Input data should be NDarray")
    if minlength < 0:
        raise ValueError("Minlength value should greater than 0")
    if weights is None:
        return _call("_npi_bincount", (x,), dict(minlength=minlength, has_weights=False))
    return _call("_npi_bincount", (x, weights), dict(minlength=minlength, has_weights=True))


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # pylint: disable=redefined-builtin
    """``(counts, bin_edges)``: ``bins`` equal bins over ``range`` (required, as in MXNet) or an
    array of edges."""
    if normed is True:
        raise NotImplementedError("normed is not supported yet...")
    if weights is not None:
        raise NotImplementedError("weights is not supported yet...")
    if density is True:
        raise NotImplementedError("density is not supported yet...")
    if isinstance(bins, _numeric):
        if range is None:
            raise NotImplementedError("automatic range is not supported yet...")
        return tuple(_call("_npi_histogram", (a,), dict(bin_cnt=bins, range=tuple(range))))
    if isinstance(bins, (list, tuple)):
        raise NotImplementedError("array_like bins is not supported yet...")
    if isinstance(bins, str):
        raise NotImplementedError("string bins is not supported yet...")
    if isinstance(bins, _ARRAY):
        return tuple(_call("_npi_histogram", (a, bins)))
    raise ValueError("np.histogram fails with", locals())


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """The ``q``-th percentiles (``q`` a number or an array) along ``axis``."""
    if overwrite_input is not None:
        raise NotImplementedError("overwrite_input is not supported yet")
    attrs = dict(axis=axis, interpolation=interpolation, keepdims=keepdims)
    if isinstance(q, _numeric):
        return _call("_npi_percentile", (a,), dict(attrs, q_scalar=q), out)
    return _call("_npi_percentile", (a, q), dict(attrs, q_scalar=None), out)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """The ``q``-th quantiles (``q`` in [0, 1]): ``percentile`` of ``q * 100``."""
    if overwrite_input is not None:
        raise NotImplementedError("overwrite_input is not supported yet")
    return percentile(a, q * 100, axis, out, None, interpolation, keepdims)
