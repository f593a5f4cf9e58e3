"""MXNet 1.9.1's NumPy-interface array makers ``_npi_zeros``, ``_npi_ones``, ``_npi_arange``,
``_npi_eye`` and ``_npi_full_like``: the legacy makers' kernels (``creation.py``) under the names ``mx.np``'s
functions run, so that a hybridized np-style block exports MXNet's graph. (MXNet's
``np.full`` and ``np.linspace`` run the legacy ``_full`` and ``_linspace``.)"""
import torch

from ..base import torch_dtype
from . import creation
from .registry import Any, Bool, Dtype, Float, Int, Shape, Str, register

__all__ = []

_CREATE = dict(shape=Shape(()), ctx=Str(""), dtype=Dtype("float32"))

register("_npi_zeros", inputs=(), params=_CREATE)(creation.zeros)
register("_npi_ones", inputs=(), params=_CREATE)(creation.ones)
register("_npi_arange", inputs=(), params=dict(start=Float(), stop=Float(None), step=Float(1.0), repeat=Int(1),
                                               infer_range=Bool(False), ctx=Str(""), dtype=Dtype("float32")))(
    creation.arange)


@register("_npi_eye", inputs=(), params=dict(N=Int(), M=Any(None), k=Int(0), ctx=Str(""), dtype=Dtype("float32")))
def eye(*, N, M, k, ctx, dtype):
    """A 2-d array with ones on the k-th diagonal (``M`` columns, ``N`` when None)."""
    return creation.eye(N=N, M=int(M) if M is not None else 0, k=k, ctx=ctx, dtype=dtype)


@register("_npi_full_like", inputs=("a",), params=dict(fill_value=Float(), ctx=Str(""), dtype=Dtype(None)))
def full_like(a, *, fill_value, ctx, dtype):
    """An array of ``a``'s shape filled with ``fill_value``, in ``dtype`` or ``a``'s dtype
    (``np.zeros_like``/``ones_like``/``full_like``); an integer array takes the value truncated."""
    dt = torch_dtype(dtype) if dtype is not None else a.dtype
    value = fill_value if dt.is_floating_point else (bool(fill_value) if dt == torch.bool else int(fill_value))
    return torch.full(tuple(a.shape), value, dtype=dt, device=creation.device_of(ctx) if ctx else a.device)
