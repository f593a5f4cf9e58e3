"""Operators with no inputs that create arrays: ``_zeros``, ``_ones``, ``_full``, ``_arange``,
``_linspace``, ``_eye`` (behind ``mx.nd.zeros`` ... and ``mx.sym.zeros`` ...).

Their ``ctx`` attribute is a context string ('cpu(0)', 'gpu(1)'); empty means the
current default context.
"""
import math

import torch

from ..base import MXNetError, torch_dtype
from ..context import as_context
from .registry import Bool, Dtype, Float, Int, Shape, Str, register


def device_of(ctx):
    return as_context(ctx or None).torch_device


_CREATE = dict(shape=Shape(()), ctx=Str(""), dtype=Dtype("float32"))


@register("_zeros", inputs=(), params=_CREATE)
def zeros(*, shape, ctx, dtype):
    """An array of zeros."""
    return torch.zeros(shape, dtype=torch_dtype(dtype), device=device_of(ctx))


@register("_ones", inputs=(), params=_CREATE)
def ones(*, shape, ctx, dtype):
    """An array of ones."""
    return torch.ones(shape, dtype=torch_dtype(dtype), device=device_of(ctx))


@register("_full", inputs=(), params=dict(_CREATE, value=Float()))
def full(*, shape, ctx, dtype, value):
    """An array filled with ``value``."""
    return torch.full(shape, value, dtype=torch_dtype(dtype), device=device_of(ctx))


@register("_zeros_without_dtype", inputs=(), params=dict(shape=Shape(()), ctx=Str(""), dtype=Int(-1)))
def zeros_without_dtype(*, shape, ctx, dtype):
    """Zeros whose dtype is left to inference (float32 when nothing says otherwise)."""
    return torch.zeros(shape, device=device_of(ctx))


def _arange_count(start, stop, step):
    if stop is None:
        start, stop = 0.0, start
    n = int(math.ceil((stop - start) / step))
    if n < 0:
        raise MXNetError("Operator _arange: invalid range start=%s stop=%s step=%s" % (start, stop, step))
    return start, n


@register("_arange", inputs=(), params=dict(start=Float(), stop=Float(None), step=Float(1.0), repeat=Int(1),
                                            infer_range=Bool(False), ctx=Str(""), dtype=Dtype("float32")))
def arange(*, start, stop, step, repeat, infer_range, ctx, dtype):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    start, n = _arange_count(start, stop, step)
    out = torch.arange(n, dtype=torch.float64, device=device_of(ctx)) * step + start
    if repeat != 1:
        out = out.repeat_interleave(repeat)
    return out.to(torch_dtype(dtype))


@register("_linspace", inputs=(), params=dict(start=Float(), stop=Float(), num=Int(), endpoint=Bool(True),
                                              ctx=Str(""), dtype=Dtype("float32")))
def linspace(*, start, stop, num, endpoint, ctx, dtype):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``)."""
    if num < 0:
        raise MXNetError("Operator _linspace: num must be non-negative, got %d" % num)
    step = (stop - start) / max(num - 1 if endpoint else num, 1)
    out = torch.arange(num, dtype=torch.float64, device=device_of(ctx)) * step + start
    return out.to(torch_dtype(dtype))


@register("_eye", inputs=(), params=dict(N=Int(), M=Int(0), k=Int(0), ctx=Str(""), dtype=Dtype("float32")))
def eye(*, N, M, k, ctx, dtype):
    """A 2-d array with ones on the k-th diagonal."""
    M = M or N
    out = torch.zeros((N, M), dtype=torch_dtype(dtype), device=device_of(ctx))
    idx = torch.arange(max(0, -k), min(N, M - k), device=out.device)
    out[idx, idx + k] = 1
    return out
