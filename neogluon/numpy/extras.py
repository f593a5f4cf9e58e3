"""More of ``mx.np``'s functions, each a composition of the ``mx.np`` functions (so of
registered operators): comparisons of whole arrays, stacking and splitting helpers,
triangles and diagonals, differences, rolling, nan handling, statistics, and MXNet's
NumPy constants."""
import numpy as _onp

from . import multiarray as _ma

__all__ = ["allclose", "isclose", "array_equal", "atleast_1d", "atleast_2d", "atleast_3d", "diff", "diagonal",
           "trace", "tril", "roll", "rot90", "fliplr", "flipud", "meshgrid", "logspace", "append",
           "column_stack", "row_stack", "dstack", "array_split", "hsplit", "vsplit", "dsplit", "fabs",
           "positive", "copysign", "signbit", "nan_to_num", "average", "ptp", "product", "alltrue", "sometrue",
           "result_type", "promote_types", "take_along_axis", "vdot", "trapz", "polyval", "count_nonzero",
           "flatnonzero", "argwhere", "NAN", "NaN", "NINF", "PINF", "nanmax", "nanmin", "nanprod",
           "interp", "ldexp", "heaviside", "float_power", "rollaxis", "resize", "cov", "corrcoef"]

NAN = NaN = _onp.nan
NINF, PINF = -_onp.inf, _onp.inf
result_type, promote_types = _onp.result_type, _onp.promote_types


def _np():
    from .. import numpy
    return numpy


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    np = _np()
    close = np.less_equal(np.absolute(np.subtract(a, b)), np.add(np.multiply(np.absolute(b), rtol), atol))
    if equal_nan:
        close = np._logical_or(close, np._logical_and(np.isnan(a), np.isnan(b)))  # pylint: disable=protected-access
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether all elements are close: a Python bool, as MXNet 1.9.1 returns."""
    return bool(_np().all(isclose(a, b, rtol, atol, equal_nan)).item())


def array_equal(a1, a2, equal_nan=False):
    if a1.shape != a2.shape:
        return False
    return bool(_np().all(_np().equal(a1, a2)).item())


def _atleast(n, arys):
    """Operator ``_np_atleast_<n>d``: one new array per input (the array itself for one input)."""
    res = _ma.call("_np_atleast_%dd" % n, list(arys), dict(num_args=len(arys)))
    if len(arys) == 1:
        return res[0] if isinstance(res, list) else res
    return list(res)


def atleast_1d(*arys):
    return _atleast(1, arys)


def atleast_2d(*arys):
    return _atleast(2, arys)


def atleast_3d(*arys):
    return _atleast(3, arys)


def _slice(ndim, axis, s):
    key = [slice(None)] * ndim
    key[axis] = s
    return tuple(key)


def diff(a, n=1, axis=-1, prepend=None, append=None):  # pylint: disable=redefined-outer-name
    """``np.diff`` (operator ``_npi_diff``; with ``prepend``/``append``, slices and subtractions)."""
    np = _np()
    if prepend is None and append is None:
        return _ma.call("_npi_diff", (a,), dict(n=n, axis=axis))
    axis %= a.ndim
    for _ in range(n):
        a = np.subtract(a[_slice(a.ndim, axis, slice(1, None))], a[_slice(a.ndim, axis, slice(None, -1))])
    return a


def _non_default(**attrs):
    return {k: v for k, v in attrs.items() if v != {"offset": 0, "axis1": 0, "axis2": 1}[k]}


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``np.diagonal`` (operator ``_np_diagonal``)."""
    return _ma.call("_np_diagonal", (a,), _non_default(offset=offset, axis1=axis1, axis2=axis2))


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """``np.trace`` (operator ``_np_trace``)."""
    return _ma.call("_np_trace", (a,), _non_default(offset=offset, axis1=axis1, axis2=axis2), out)


def _tri_mask(shape, k, lower, ctx):
    np = _np()
    rows = np.arange(shape[-2], dtype="int64", ctx=ctx).reshape(-1, 1)
    cols = np.arange(shape[-1], dtype="int64", ctx=ctx).reshape(1, -1)
    diff_ = np.subtract(cols, rows)
    return np.less_equal(diff_, k) if lower else np.greater_equal(diff_, k)


def tril(m, k=0):
    """``np.tril`` (operator ``_npi_tril``)."""
    return _ma.call("_npi_tril", (m,), dict(k=k))


def _triu(m, k=0):  # MXNet 1.9.1's mx.np has no triu
    np = _np()
    return np.where(_tri_mask(m.shape, k, False, m.context), m, np.zeros((), dtype=m.dtype, ctx=m.context))


def roll(a, shift, axis=None):
    """``np.roll`` (operator ``_np_roll``): the flattened array rolled when ``axis`` is None."""
    return _ma.call("_np_roll", (a,), dict(shift=shift) if axis is None else dict(shift=shift, axis=axis))


def rot90(m, k=1, axes=(0, 1)):
    """``np.rot90`` (operator ``_npi_rot90``)."""
    return _ma.call("_npi_rot90", (m,), dict(k=k, axes=tuple(axes)))



def fliplr(m):
    return _np().flip(m, 1)


def flipud(m):
    return _np().flip(m, 0)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    np = _np()
    ndim = len(xi)
    shapes = [x.size for x in xi]
    out = []
    for i, x in enumerate(xi):
        shape = [1] * ndim
        shape[i] = -1
        r = x.reshape(shape)
        if indexing == "xy" and ndim > 1 and i < 2:
            shape = [1] * ndim
            shape[1 - i] = -1
            r = x.reshape(shape)
        out.append(r)
    full = list(shapes)
    if indexing == "xy" and ndim > 1:
        full[0], full[1] = full[1], full[0]
    return out if sparse else [np.broadcast_to(r, tuple(full)) for r in out]


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None, device=None):
    np = _np()
    r = np.power(base, np.linspace(start, stop, num, endpoint, ctx=ctx, device=device))
    return r if dtype is None else r.astype(dtype)


def append(arr, values, axis=None):
    """``np.append``: one ``_npi_concatenate`` (of the flattened arrays when ``axis`` is None)."""
    return _np().concatenate([arr, values], axis=axis)


def column_stack(tup):
    np = _np()
    return np.concatenate([a.reshape(-1, 1) if a.ndim == 1 else a for a in tup], axis=1)


def row_stack(arrays):
    return _np().vstack(arrays)


def dstack(arrays):
    return _np().concatenate(atleast_3d(*arrays) if len(arrays) > 1 else [atleast_3d(*arrays)], axis=2)


def _split_args(indices_or_sections):
    """(indices, sections) of ``_split_v2`` for array_split and hsplit: an int gives that many
    parts, the first ones longer when they do not divide (also for hsplit, as MXNet)."""
    if isinstance(indices_or_sections, (int, _onp.integer)):
        return [], int(indices_or_sections)
    if isinstance(indices_or_sections, (list, set, tuple)):
        return [0] + list(indices_or_sections), 0
    raise ValueError("indices_or_sections must be either int, or tuple / list / set of ints")


def array_split(ary, indices_or_sections, axis=0):
    """Like ``split``, but sections need not divide the axis (the first ones are longer);
    MXNet's ``_npi_split`` with ``sections``: new memory."""
    indices, sections = _split_args(indices_or_sections)
    return _np()._split(ary, indices, axis, sections)


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 of a 1-d array); as MXNet's ``_npi_hsplit``, an int gives
    that many parts also when they do not divide (the first ones longer)."""
    if ary.ndim < 1:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    indices, sections = _split_args(indices_or_sections)
    return _np()._split(ary, indices, 1 if ary.ndim > 1 else 0, sections)


def vsplit(ary, indices_or_sections):
    if not _np()._symbolic(ary) and ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return _np().split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    if not _np()._symbolic(ary) and ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _np().split(ary, indices_or_sections, 2)


def fabs(x, out=None):
    return _np().absolute(x)


def positive(x, out=None):
    return x.copy()


def copysign(x1, x2, out=None):
    """``np.copysign``: operator ``_npi_copysign`` for two arrays."""
    np = _np()
    if isinstance(x1, (_ma.NDArray, _ma._Symbol)) and isinstance(x2, (_ma.NDArray, _ma._Symbol)):
        return _ma.call("_npi_copysign", (x1, x2), None, out)
    return np.where(signbit(x2), np.negative(np.absolute(x1)), np.absolute(x1))


def signbit(x, out=None):
    return _np().less(x, 0)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num`` (operator ``_npi_nan_to_num``)."""
    return _ma.call("_npi_nan_to_num", (x,), dict(copy=copy, nan=nan, posinf=posinf, neginf=neginf))


def average(a, axis=None, weights=None, returned=False, out=None):
    """``np.average`` (operator ``_npi_average``); with ``returned``, also the weights' sum."""
    if weights is None:
        res = _ma.call("_npi_average", (a,), dict(axis=axis, returned=returned, weighted=False))
    else:
        res = _ma.call("_npi_average", (a, weights), dict(axis=axis, returned=returned))
    return tuple(res) if returned else res  # (avg, sum of weights), as NumPy gives


def ptp(a, axis=None, keepdims=False):
    np = _np()
    return np.subtract(np.max(a, axis, keepdims=keepdims), np.min(a, axis, keepdims=keepdims))


def product(a, axis=None, dtype=None, out=None, keepdims=False):
    return _np().prod(a, axis, dtype, keepdims=keepdims)


def alltrue(a, axis=None, out=None, keepdims=False):
    return _np().all(a, axis, keepdims=keepdims)


def sometrue(a, axis=None, out=None, keepdims=False):
    return _np().any(a, axis, keepdims=keepdims)


def take_along_axis(arr, indices, axis):
    """``a[..., indices, ...]`` element-wise along ``axis`` (``pick`` per position)."""
    np = _np()
    axis %= arr.ndim
    shape = list(arr.shape)
    shape[axis] = indices.shape[axis]
    grids = []
    for d in range(arr.ndim):
        if d == axis:
            grids.append(np.broadcast_to(indices, tuple(shape)).astype("int64"))
        else:
            s = [1] * arr.ndim
            s[d] = -1
            grids.append(np.broadcast_to(np.arange(arr.shape[d], dtype="int64").reshape(s), tuple(shape)))
    return arr[tuple(grids)]


def vdot(a, b):
    """``np.vdot``: the inner product of the flattened arrays (``_npi_tensordot_int_axes``)."""
    np = _np()
    return np.tensordot(np._flat(a), np._flat(b), 1)


def trapz(y, x=None, dx=1.0, axis=-1):
    np = _np()
    axis %= y.ndim
    lo, hi = y[_slice(y.ndim, axis, slice(None, -1))], y[_slice(y.ndim, axis, slice(1, None))]
    mids = np.multiply(np.add(lo, hi), 0.5)
    if x is None:
        return np.multiply(np.sum(mids, axis=axis), dx)
    return np.sum(np.multiply(mids, diff(x, axis=-1 if x.ndim == 1 else axis)), axis=axis)


def polyval(p, x):
    np = _np()
    r = np.zeros_like(x)
    for i in range(p.shape[0]):
        r = np.add(np.multiply(r, x), p[i])
    return r


def count_nonzero(a, axis=None):
    np = _np()
    return np.sum(np.not_equal(a, 0).astype("int64"), axis=axis)


def flatnonzero(a):
    return _np().nonzero(a.reshape(-1))[0]


def argwhere(a):
    np = _np()
    idx = np.nonzero(a)
    return np.stack(idx, axis=1) if idx else idx


def _nanfill(a, value):
    np = _np()
    return np.where(np.isnan(a), value, a)


def nanmax(a, axis=None, out=None, keepdims=False):
    return _np().max(_nanfill(a, -_onp.inf), axis, keepdims=keepdims)


def nanmin(a, axis=None, out=None, keepdims=False):
    return _np().min(_nanfill(a, _onp.inf), axis, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    return _np().prod(_nanfill(a, 1.0), axis, dtype, keepdims=keepdims)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation (``xp`` increasing), via ``searchsorted`` on NumPy; float64,
    as MXNet 1.9.1's NumPy fallback gives."""
    np = _np()
    x, xp, fp = x.astype("float64"), xp.astype("float64"), fp.astype("float64")
    pos = np.array(_onp.clip(_onp.searchsorted(xp.asnumpy(), x.asnumpy(), side="right"), 1, xp.shape[0] - 1),
                   dtype="int64", ctx=x.context)
    x0, x1 = np.take(xp, pos - 1), np.take(xp, pos)
    y0, y1 = np.take(fp, pos - 1), np.take(fp, pos)
    r = np.add(y0, np.multiply(np.subtract(y1, y0), np.true_divide(np.subtract(x, x0), np.subtract(x1, x0))))
    r = np.where(np.less(x, xp[0]), fp[0] if left is None else left, r)
    return np.where(np.greater(x, xp[-1]), fp[-1] if right is None else right, r)


def ldexp(x1, x2, out=None):
    """``np.ldexp``: operator ``_npi_ldexp`` for two arrays."""
    np = _np()
    if isinstance(x1, (_ma.NDArray, _ma._Symbol)) and isinstance(x2, (_ma.NDArray, _ma._Symbol)):
        return _ma.call("_npi_ldexp", (x1, x2), None, out)
    return np.multiply(x1, np.power(2.0, x2))


def heaviside(x1, x2, out=None):
    np = _np()
    return np.where(np.less(x1, 0), 0.0, np.where(np.greater(x1, 0), 1.0, x2))


def float_power(x1, x2, out=None):
    np = _np()
    return np.power(x1.astype("float64") if hasattr(x1, "astype") else x1,
                    x2.astype("float64") if hasattr(x2, "astype") else x2)


def rollaxis(a, axis, start=0):
    axis %= a.ndim
    if start > axis:
        start -= 1
    return _np().moveaxis(a, axis, start)


def resize(a, new_shape):
    np = _np()
    new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    total = int(_onp.prod(new_shape))
    flat = a.reshape(-1)
    reps = -(-total // max(flat.size, 1))
    return np.tile(flat, reps)[:total].reshape(new_shape)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    np = _np()
    m = m.astype("float64")  # MXNet 1.9.1 computes cov in float64 (its NumPy fallback)
    y = None if y is None else y.astype("float64")
    x = m if m.ndim > 1 else m.reshape(1, -1)
    if not rowvar:
        x = x.T
    if y is not None:
        yy = y if y.ndim > 1 else y.reshape(1, -1)
        x = np.concatenate([x, yy if rowvar else yy.T], axis=0)
    n = x.shape[1]
    dof = n - (ddof if ddof is not None else (0 if bias else 1))
    xc = np.subtract(x, np.mean(x, axis=1, keepdims=True))
    c = np.true_divide(np.dot(xc, xc.T), dof)
    return c.reshape(()) if c.size == 1 else c


def corrcoef(x, y=None, rowvar=True):
    np = _np()
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return np.true_divide(c, c)
    d = np.sqrt(diagonal(c))
    return np.true_divide(np.true_divide(c, d.reshape(-1, 1)), d.reshape(1, -1))
