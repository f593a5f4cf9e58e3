"""The ``_npi_*``/``_np_*``/``_npx_*`` operators that MXNet 1.9.1's NumPy interface writes
into its graphs where neogluon's ``mx.np`` had used a legacy operator: ``_npi_concatenate``,
``_npi_stack``, ``_npi_broadcast_to``, ``_npi_where``, ``_np_dot``, ``_npi_matmul``,
``_npx_relu``, ``_npx_sigmoid``, ``_npi_uniform``, ``_npi_normal``, ``_npi_around``, ``_npi_std``
and ``_npi_var``. With them ``mx.np``,
``F.np`` and ``mx.sym.np`` build the graph MXNet's do (``export`` writes MXNet's JSON, and
MXNet's JSON of an np model loads here).

Their schemas are MXNet's (``MXSymbolGetAtomicSymbolInfo`` of the reference); the semantics
are NumPy's as MXNet implements them: NumPy's ``dot`` and ``matmul``, broadcasting
``where`` with dtype promotion, mixed-dtype concatenation promoted.
"""
import torch

from ..base import torch_dtype
from .registry import Bool, Float, Int, Shape, Str, Dtype, register
from .random import _out_dtype, _check
from .creation import device_of
from .shape import IntOrNone, same_dtype

__all__ = []


def _promoted(data):
    dt = data[0].dtype
    for x in data[1:]:
        if x.dtype is not dt:
            dt = torch.promote_types(dt, x.dtype)
    return [x if x.dtype is dt else x.to(dt) for x in data]


@register("_npi_concatenate", variadic="num_args", params=dict(num_args=Int(), axis=IntOrNone(0), dim=Int(1)))
def npi_concatenate(*data, num_args, axis, dim):
    """``np.concatenate``: joined along an existing ``axis``, of the flattened arrays when
    ``axis`` is None (dtypes promoted)."""
    data = _promoted(list(data))
    if axis is None:
        return torch.cat([x.reshape(-1) for x in data])
    return torch.cat(data, dim=axis)


@register("_npi_stack", variadic="num_args", params=dict(axis=Int(0), num_args=Int()))
def npi_stack(*data, axis, num_args):
    """``np.stack``: joined along a new ``axis``."""
    return torch.stack(_promoted(list(data)), dim=axis)


@register("_npi_broadcast_to", inputs=("array",), params=dict(shape=Shape(())), aliasing=True)
def npi_broadcast_to(array, *, shape):
    """``np.broadcast_to`` with NumPy's rule (missing leading axes are 1)."""
    return array.expand(shape)


@register("_npi_where", inputs=("condition", "x", "y"))
def npi_where(condition, x, y):
    """``np.where(condition, x, y)``: broadcast, ``x`` and ``y`` promoted."""
    x, y = _promoted([x, y])
    return torch.where(condition.bool() if condition.dtype is not torch.bool else condition, x, y)


@register("_np_dot", inputs=("a", "b"))
def np_dot(a, b):
    """``np.dot``: a product with a 0-d array multiplies; 1-d by 1-d is the inner product;
    else a sum over ``a``'s last axis and ``b``'s second-to-last (its only for 1-d ``b``)."""
    if a.dim() == 0 or b.dim() == 0:
        return a * b
    if a.dtype is not b.dtype:
        a, b = _promoted([a, b])
    return torch.tensordot(a, b, dims=([a.dim() - 1], [max(b.dim() - 2, 0)]))


@register("_npi_matmul", inputs=("a", "b"))
def npi_matmul(a, b):
    """``np.matmul``: batched over broadcast leading axes; 1-d operands promoted and squeezed."""
    if a.dtype is not b.dtype:
        a, b = _promoted([a, b])
    return torch.matmul(a, b)


@register("_npx_relu")
def npx_relu(data):
    """``npx.relu``: ``max(x, 0)``."""
    return torch.relu(data)


@register("_npx_sigmoid")
def npx_sigmoid(data):
    """``npx.sigmoid``: ``1 / (1 + exp(-x))``."""
    return torch.sigmoid(data)


def _scalar_inputs(*names):
    """One ``input<k>`` per parameter given as an array (its attribute None)."""
    def inputs(attrs):
        return tuple("input%d" % (i + 1) for i in range(sum(attrs[n] is None for n in names)))
    return inputs


def _sampler(name, names, draw):
    def impl(*inputs, size, ctx, dtype, **attrs):
        params = list(inputs)
        values = [params.pop(0) if attrs[n] is None else attrs[n] for n in names]
        shape = tuple(size or ())  # no size: one draw, a 0-d array
        if all(not isinstance(v, torch.Tensor) for v in values):
            return draw(torch.empty(shape, dtype=_out_dtype(dtype), device=device_of(ctx)), *values)
        device = next(v.device for v in values if isinstance(v, torch.Tensor))
        if not size:
            shape = tuple(torch.broadcast_shapes(*[v.shape for v in values if isinstance(v, torch.Tensor)]))
        unit = draw(torch.empty(shape, dtype=_out_dtype(dtype), device=device), 0.0, 1.0)
        return _affine(name, unit, *values)
    impl.__doc__ = "``np.random.%s``: ``size`` draws (array parameters broadcast)." % name[5:]
    return impl


def _affine(name, unit, p, q):
    """Draws of the standard distribution moved to parameters of which one or both are arrays."""
    if name == "_npi_uniform":
        return unit * (q - p) + p
    return unit * q + p


def _uniform(out, low, high):
    _check(high >= low, "_npi_uniform", "low must be less or equal to high (low=%s, high=%s)" % (low, high))
    return out.uniform_(low, high)


def _normal(out, loc, scale):
    return out.normal_(loc, scale)


_SAMPLE = dict(size=Shape(None), ctx=Str("cpu"), dtype=Dtype("float32"))
register("_npi_uniform", inputs=_scalar_inputs("low", "high"), signature=("input1", "input2"),
         params=dict(low=Float(None), high=Float(None), **_SAMPLE))(_sampler("_npi_uniform", ("low", "high"), _uniform))
register("_npi_normal", inputs=_scalar_inputs("loc", "scale"), signature=("input1", "input2"),
         params=dict(loc=Float(None), scale=Float(None), **_SAMPLE))(_sampler("_npi_normal", ("loc", "scale"), _normal))


@register("_npi_around", inputs=("x",), params=dict(decimals=Int(0)))
def npi_around(x, *, decimals):
    """``np.around``: half to even at ``decimals`` places; an integer array is kept for
    ``decimals >= 0`` and truncated to multiples of ``10**-decimals`` otherwise (MXNet 1.9.1
    gives 10 and 20 for 15 and 25 at ``decimals=-1``)."""
    if x.is_floating_point():
        return torch.round(x, decimals=decimals)
    if decimals >= 0 or x.dtype is torch.bool:
        return x.clone()
    f = 10 ** (-decimals)
    return torch.div(x, f, rounding_mode="trunc") * f


def _moment(name, fn):
    def impl(a, *, axis, dtype, ddof, keepdims):
        out = torch_dtype(dtype) if dtype is not None else a.dtype
        work = a if a.is_floating_point() else a.to(torch.float32)
        dims = tuple(range(a.dim())) if axis is None else tuple(axis)
        return fn(work, dim=dims, correction=ddof, keepdim=keepdims).to(out)
    impl.__doc__ = ("``np.%s`` with ``ddof``: computed in float32 for an integer array and cast back to its "
                    "dtype (MXNet 1.9.1 truncates), or to ``dtype``." % name[5:])
    return impl


_MOMENT = dict(axis=Shape(None), dtype=Dtype(None), ddof=Int(0), keepdims=Bool(False))
register("_npi_std", inputs=("a",), params=_MOMENT)(_moment("_npi_std", torch.std))
register("_npi_var", inputs=("a",), params=_MOMENT)(_moment("_npi_var", torch.var))


# ----------------------------------------------------------------------------- tests and reductions
register("_npi_isnan", inputs=("x",))(lambda x: torch.isnan(x))
register("_npi_isinf", inputs=("x",))(lambda x: torch.isinf(x))
register("_npi_isfinite", inputs=("x",))(lambda x: torch.isfinite(x))


def _logical_reduce(fn):
    def impl(data, *, axis, keepdims):
        dims = tuple(range(data.dim())) if axis is None else tuple(a % max(data.dim(), 1) for a in axis)
        r = data.bool()
        for d in sorted(dims, reverse=True):
            r = fn(r, dim=d, keepdim=keepdims)
        return r
    impl.__doc__ = "``np.all``/``np.any`` over ``axis`` (all axes by default): a boolean array."
    return impl


register("_np_all", params=dict(axis=Shape(None), keepdims=Bool(False)))(_logical_reduce(torch.all))
register("_np_any", params=dict(axis=Shape(None), keepdims=Bool(False)))(_logical_reduce(torch.any))


# ----------------------------------------------------------------------------- rearranging
@register("_npi_flip", params=dict(axis=Shape(None)))
def npi_flip(data, *, axis):
    """``np.flip`` along ``axis`` (every axis when None): a new array."""
    return torch.flip(data, tuple(range(data.dim())) if axis is None else axis)


@register("_np_roll", params=dict(shift=Shape(None), axis=Shape(None)))
def np_roll(data, *, shift, axis):
    """``np.roll``: the flattened array rolled when ``axis`` is None."""
    return torch.roll(data, shift, axis) if axis is not None else torch.roll(data, shift)


@register("_npi_tril", params=dict(k=Int(0)))
def npi_tril(data, *, k):
    """``np.tril``: zeros above the ``k``-th diagonal of the last two axes."""
    return torch.tril(data, k)


@register("_np_diag", params=dict(k=Int(0)))
def np_diag(data, *, k):
    """``np.diag``: the ``k``-th diagonal of a 2-d array, or the square matrix of a 1-d one."""
    return torch.diag(data, k)


@register("_np_diagonal", params=dict(offset=Int(0), axis1=Int(0), axis2=Int(1)))
def np_diagonal(data, *, offset, axis1, axis2):
    """``np.diagonal``: the diagonal of the ``axis1``/``axis2`` planes, as the last axis."""
    return torch.diagonal(data, offset, axis1, axis2).clone()


@register("_np_trace", params=dict(offset=Int(0), axis1=Int(0), axis2=Int(1)))
def np_trace(data, *, offset, axis1, axis2):
    """``np.trace``: sums of the diagonals, in the input's dtype."""
    return torch.diagonal(data, offset, axis1, axis2).sum(-1, dtype=data.dtype)


# ----------------------------------------------------------------------------- sign and exponent
@register("_npi_copysign", inputs=("lhs", "rhs"))
def npi_copysign(lhs, rhs):
    """``np.copysign``: ``|lhs|`` with the sign of ``rhs`` (negative where ``rhs < 0``); both of one dtype."""
    same_dtype("_npi_copysign", (lhs, rhs))
    mag = lhs.abs()
    return torch.where(rhs < 0, -mag, mag)


@register("_npi_ldexp", inputs=("lhs", "rhs"))
def npi_ldexp(lhs, rhs):
    """``np.ldexp``: ``lhs * 2**rhs``, both of one dtype (``2**rhs`` in ``rhs``'s dtype, then MXNet's promotion)."""
    from .numpy_elemwise import _promote
    same_dtype("_npi_ldexp", (lhs, rhs))
    power = torch.pow(2.0, rhs) if rhs.is_floating_point() else torch.pow(2, rhs)
    return torch.mul(*_promote(lhs, power))


# ----------------------------------------------------------------------------- products, differences
@register("_npi_tensordot_int_axes", inputs=("a", "b"), params=dict(axes=Int()))
def npi_tensordot_int_axes(a, b, *, axes):
    """``np.tensordot(a, b, axes)``: a sum over the last ``axes`` axes of ``a`` and first of ``b``."""
    return torch.tensordot(*_promoted([a, b]), dims=axes)


@register("_npi_tensordot", inputs=("a", "b"), params=dict(a_axes_summed=Shape(), b_axes_summed=Shape()))
def npi_tensordot(a, b, *, a_axes_summed, b_axes_summed):
    """``np.tensordot`` over the given pairs of axes."""
    return torch.tensordot(*_promoted([a, b]), dims=(list(a_axes_summed), list(b_axes_summed)))


@register("_np_copy")
def np_copy(data):
    """``np.copy``: new memory."""
    return data.clone()


@register("_npi_diff", inputs=("a",), params=dict(n=Int(1), axis=Int(-1)))
def npi_diff(a, *, n, axis):
    """``np.diff``: the ``n``-th differences along ``axis``."""
    return torch.diff(a, n=n, dim=axis) if n else a.clone()


@register("_npi_rot90", params=dict(k=Int(1), axes=Shape((0, 1))))
def npi_rot90(data, *, k, axes):
    """``np.rot90``: ``k`` quarter turns in the plane of ``axes``."""
    return torch.rot90(data, k, list(axes)).clone()


@register("_npi_nan_to_num", params=dict(copy=Bool(True), nan=Float(0.0), posinf=Float(None), neginf=Float(None)))
def npi_nan_to_num(data, *, copy, nan, posinf, neginf):
    """``np.nan_to_num``: NaN to ``nan``, infinities to ``posinf``/``neginf`` (the dtype's extremes by default)."""
    if not data.is_floating_point():
        return data.clone()
    return torch.nan_to_num(data, nan=nan, posinf=posinf, neginf=neginf)


# ----------------------------------------------------------------------------- at least n dimensions
def _atleast(fn):
    def impl(*arys, num_args):
        res = tuple(fn(a) for a in arys)
        return res[0] if len(res) == 1 else res
    impl.__doc__ = "One output per input, with at least the dimensions (NumPy's rule for where they go)."
    return impl


def _at_least_3d(a):
    if a.dim() == 0:
        return a.reshape(1, 1, 1)
    if a.dim() == 1:
        return a.reshape(1, -1, 1)
    return a.unsqueeze(-1) if a.dim() == 2 else a


for _n, _fn in (("1d", lambda a: a.reshape(1) if a.dim() == 0 else a),
                ("2d", lambda a: a.reshape(1, -1) if a.dim() < 2 else a), ("3d", _at_least_3d)):
    register("_np_atleast_" + _n, variadic="num_args", params=dict(num_args=Int()), aliasing=True,
             num_outputs=lambda attrs: attrs["num_args"])(_atleast(_fn))


# ----------------------------------------------------------------------------- average
@register("_npi_average", inputs=lambda attrs: ("a", "weights") if attrs["weighted"] else ("a",),
          params=dict(axis=Shape(None), returned=Bool(False), weighted=Bool(True)),
          num_outputs=lambda attrs: 2 if attrs["returned"] else 1)
def npi_average(a, weights=None, *, axis, returned, weighted):
    """``np.average``: the mean (integers average into float32), or with ``weights`` (1-d
    weights lie along ``axis``) the weighted mean; with ``returned`` also the sum of the weights
    (the count without weights)."""
    dims = tuple(range(a.dim())) if axis is None else tuple(x % max(a.dim(), 1) for x in axis)
    if not weighted:
        work = a if a.is_floating_point() else a.to(torch.float32)
        avg = torch.mean(work, dim=dims) if dims else work.clone()
        count = 1
        for d in dims:
            count *= a.shape[d]
        return (avg, torch.full(avg.shape, count, dtype=avg.dtype, device=avg.device)) if returned else avg
    w = weights
    if axis is not None and w.dim() == 1 and a.dim() > 1:
        shape = [1] * a.dim()
        shape[dims[0]] = -1
        w = w.reshape(shape)
    a, w = _promoted([a, w])
    wsum = torch.broadcast_to(w, a.shape).sum(dims)
    avg = torch.true_divide((a * w).sum(dims), wsum)
    return (avg, wsum) if returned else avg
