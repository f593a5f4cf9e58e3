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
