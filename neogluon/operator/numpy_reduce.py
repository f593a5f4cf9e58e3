"""MXNet 1.9.1's NumPy-interface reductions (``_np_sum``, ``_npi_mean``, ``_np_max``,
``_np_min``, ``_np_prod``, ``_npi_argmax``, ``_npi_argmin``, ``_npi_cumsum``).

Unlike the legacy ``sum``/``max``..., a reduction over all axes gives a 0-d array, not
shape ``(1,)``; ``axis`` is None (all), an int or a tuple; ``mean`` of integers is
float32; ``argmax``/``argmin`` give int64, as MXNet's NumPy interface does.
"""
import functools

import torch

from ..base import MXNetError, torch_dtype
from .registry import Bool, Dtype, Float, Int, Shape, implementation, register

__all__ = []


def _axes(data, axis, name):
    if axis is None:
        return tuple(range(data.dim()))
    out = []
    for a in axis:
        if not -data.dim() <= a < max(data.dim(), 1):
            raise MXNetError("Operator %s: axis %d is out of bounds for array of dimension %d"
                             % (name, a, data.dim()))
        out.append(a % max(data.dim(), 1))
    return tuple(out)


_AXIS = dict(axis=Shape(None), keepdims=Bool(False))


def _sum_dtype(data, dtype):
    if dtype is not None:
        return torch_dtype(dtype)
    return torch.int64 if data.dtype == torch.bool else data.dtype


def _np_sum(a, *, axis, keepdims, dtype, initial):
    axes = _axes(a, axis, "_np_sum")
    dt = _sum_dtype(a, dtype)
    r = torch.sum(a.to(dt), dim=axes, keepdim=keepdims).to(dt) if axes else a.to(dt).clone()
    return r + initial if initial is not None else r


def _total(a):
    """``x.sum()`` of a float array: one torch call."""
    if a.is_floating_point():
        return torch.sum(a)
    return _np_sum(a, axis=None, keepdims=False, dtype=None, initial=None)


_total.float_kernel = torch.sum  # a floating-point input: the torch function itself (mx.np's generated sites)


@implementation("_np_sum", inputs=("a",), params=dict(_AXIS, dtype=Dtype(None), initial=Float(None)))
def np_sum(*, axis, keepdims, dtype, initial):
    """``np.sum``: the input's dtype unless ``dtype`` is given (booleans sum as int64)."""
    if axis is None and dtype is None and initial is None and not keepdims:
        return _total
    return functools.partial(_np_sum, axis=axis, keepdims=keepdims, dtype=dtype, initial=initial)


@register("_np_prod", inputs=("a",), params=dict(_AXIS, dtype=Dtype(None), initial=Float(None)))
def np_prod(a, *, axis, keepdims, dtype, initial):
    """``np.prod`` over one or several axes."""
    axes = _axes(a, axis, "_np_prod")
    r = a.to(_sum_dtype(a, dtype))
    for ax in sorted(axes, reverse=True):
        r = torch.prod(r, dim=ax, keepdim=keepdims).to(r.dtype)
    return r * initial if initial is not None else r


@register("_npi_mean", inputs=("a",), params=dict(_AXIS, dtype=Dtype(None), initial=Float(None)))
def np_mean(a, *, axis, keepdims, dtype, initial):
    """``np.mean``: integers average into float32."""
    axes = _axes(a, axis, "_npi_mean")
    dt = torch_dtype(dtype) if dtype is not None else (a.dtype if a.is_floating_point() else torch.float32)
    return torch.mean(a.to(dt), dim=axes, keepdim=keepdims) if axes else a.to(dt).clone()


def _extreme(fn, name):
    def impl(a, *, axis, keepdims, initial):
        if a.numel() == 0:
            raise MXNetError("Operator %s: zero-size array to reduction operation %s which has no identity"
                             % (name, name.rsplit("_", 1)[1]))
        axes = _axes(a, axis, name)
        r = fn(a, dim=axes, keepdim=keepdims) if axes else a.clone()
        return r
    impl.__doc__ = "``np.%s`` over one or several axes (0-d over all)." % name.rsplit("_", 1)[1]
    return impl


register("_np_max", inputs=("a",), params=dict(_AXIS, initial=Float(None)))(_extreme(torch.amax, "_np_max"))
register("_np_min", inputs=("a",), params=dict(_AXIS, initial=Float(None)))(_extreme(torch.amin, "_np_min"))


def _arg(fn, name):
    def impl(data, *, axis, keepdims):
        if axis is None:
            r = fn(data.reshape(-1))
            return r.reshape((1,) * data.dim()) if keepdims else r
        if not -data.dim() <= axis < data.dim():
            raise MXNetError("Operator %s: axis %d is out of bounds for array of dimension %d"
                             % (name, axis, data.dim()))
        return fn(data, dim=axis, keepdim=keepdims)
    impl.__doc__ = "``np.%s``: int64 indices." % name.rsplit("_", 1)[1]
    return impl


register("_npi_argmax", params=dict(axis=Int(None), keepdims=Bool(False)),
         differentiable=False)(_arg(torch.argmax, "_npi_argmax"))
register("_npi_argmin", params=dict(axis=Int(None), keepdims=Bool(False)),
         differentiable=False)(_arg(torch.argmin, "_npi_argmin"))
