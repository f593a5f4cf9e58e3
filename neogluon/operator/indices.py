"""Operators that compute positions and index arithmetic from an input's shape or values:
``_contrib_arange_like``, ``_contrib_index_array``, ``ravel_multi_index``/``unravel_index``.

Their outputs carry no gradient: MXNet gives zeros for the input (or no gradient at all).
"""
import torch

from ..base import MXNetError
from .reduce import OptionalInt
from .registry import Float, Int, Shape, Str, register, shape_rule

__all__ = []


def _axis(op, shape, axis):
    if not -len(shape) <= axis < len(shape):
        raise MXNetError("Operator %s: axis %d out of range for an input of shape %s" % (op, axis, tuple(shape)))
    return axis % len(shape)


# ----------------------------------------------------------------------------- arange_like
@register("_contrib_arange_like", params=dict(start=Float(0.0), step=Float(1.0), repeat=Int(1), ctx=Str(""),
                                              axis=OptionalInt(None)))
def arange_like(data, *, start, step, repeat, ctx, axis):
    """MXNet's ``contrib.arange_like``: ``start + (i // repeat) * step`` over the elements of
    ``data`` (its shape) or, with ``axis``, over that axis (a 1-d result). As MXNet, the
    output has the input's dtype and ``start``/``step`` are first cast to it (an integer
    input truncates them)."""
    shape = arange_like_shape(dict(axis=axis), [tuple(data.shape)])[0]
    n = 1
    for d in shape:
        n *= d
    if data.is_floating_point():
        out = torch.arange(n, device=data.device, dtype=torch.float64).div_(repeat).floor_().mul_(step).add_(start)
        return out.to(data.dtype).reshape(shape)
    first = torch.tensor(start, dtype=torch.float64).to(data.dtype)
    stride = torch.tensor(step, dtype=torch.float64).to(data.dtype)
    pos = torch.div(torch.arange(n, device=data.device, dtype=data.dtype), repeat, rounding_mode="floor")
    return (first.to(data.device) + pos * stride.to(data.device)).to(data.dtype).reshape(shape)


@shape_rule("_contrib_arange_like")
def arange_like_shape(attrs, shapes):
    data = shapes[0]
    if attrs["axis"] is None:
        return [tuple(data)]
    return [(data[_axis("_contrib_arange_like", data, attrs["axis"])],)]


# ----------------------------------------------------------------------------- index_array
@register("_contrib_index_array", params=dict(axes=Shape(None)), differentiable=False,
          infer_type=lambda attrs, dtypes: ["int64"])
def index_array(data, *, axes):
    """MXNet's ``contrib.index_array``: for every element of ``data`` its index along
    ``axes`` (all axes when None), an int64 array of shape ``data.shape + (len(axes),)``."""
    ndim = data.dim()
    axes = range(ndim) if axes is None else [_axis("_contrib_index_array", data.shape, a) for a in axes]
    grids = torch.meshgrid(*[torch.arange(n, device=data.device) for n in data.shape], indexing="ij") \
        if ndim else ()
    return torch.stack([grids[a] for a in axes], -1) if axes else \
        torch.zeros(tuple(data.shape) + (0,), dtype=torch.int64, device=data.device)


@shape_rule("_contrib_index_array")
def _index_array_shape(attrs, shapes):
    axes = attrs["axes"]
    return [tuple(shapes[0]) + (len(shapes[0]) if axes is None else len(axes),)]


# ----------------------------------------------------------------------------- ravel / unravel
def _strides(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return out[::-1]


@register("_ravel_multi_index", aliases=["ravel_multi_index"], params=dict(shape=Shape(None)), differentiable=False)
def ravel_multi_index(data, *, shape):
    """MXNet's ``ravel_multi_index``: the flat indices into ``shape`` of the coordinates in
    the rows of ``data`` (one row per dimension), in ``data``'s dtype."""
    if shape is None or data.dim() < 1 or data.shape[0] != len(shape):
        raise MXNetError("Operator _ravel_multi_index: data of shape %s needs %s rows (one per dimension of shape)"
                         % (tuple(data.shape), len(shape or ())))
    strides = torch.tensor(_strides(shape), dtype=torch.float64, device=data.device)
    flat = (data.double() * strides.reshape((-1,) + (1,) * (data.dim() - 1))).sum(0)
    return flat.to(data.dtype)


@register("_unravel_index", aliases=["unravel_index"], params=dict(shape=Shape(None)), differentiable=False)
def unravel_index(data, *, shape):
    """MXNet's ``unravel_index``: the coordinates in ``shape`` of the flat indices in
    ``data``, one row per dimension, in ``data``'s dtype."""
    if not shape:
        raise MXNetError("Operator _unravel_index: shape is required")
    flat = data.double() if data.is_floating_point() else data.long()
    rows = []
    for n, step in zip(shape, _strides(shape)):
        rows.append(torch.div(flat, step, rounding_mode="floor") % n)
    return torch.stack(rows).to(data.dtype)


@shape_rule("_ravel_multi_index")
def _ravel_shape(attrs, shapes):
    return [tuple(shapes[0][1:])]


@shape_rule("_unravel_index")
def _unravel_shape(attrs, shapes):
    return [(len(attrs["shape"]),) + tuple(shapes[0])]
