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

__all__ = []


def _promoted(data):
    dt = data[0].dtype
    for x in data[1:]:
        if x.dtype is not dt:
            dt = torch.promote_types(dt, x.dtype)
    return [x if x.dtype is dt else x.to(dt) for x in data]


@register("_npi_concatenate", variadic="num_args", params=dict(num_args=Int(), axis=Int(0), dim=Int(1)))
def npi_concatenate(*data, num_args, axis, dim):
    """``np.concatenate``: joined along an existing ``axis`` (dtypes promoted)."""
    return torch.cat(_promoted(list(data)), dim=axis)


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
