"""MXNet 1.9.1's NumPy-interface array makers without inputs: the window functions
``_npi_blackman``, ``_npi_hamming``, ``_npi_hanning`` (``np.blackman(M)``, ...) and
``_npi_indices`` (``np.indices(dimensions)``, int32 by default as MXNet's)."""
import math

import torch

from ..base import MXNetError, torch_dtype
from .creation import device_of
from .registry import Any, Dtype, Shape, Str, register

__all__ = []

_WINDOW = dict(M=Any(None), ctx=Str(""), dtype=Dtype("float32"))


def _window(name, coefficients):
    """A cosine-sum window ``sum_k a_k cos(2 pi k n / (M - 1))`` with alternating signs."""
    def impl(*, M, ctx, dtype):
        if M is None:
            raise MXNetError("Operator %s: M (the number of points) is required" % name)
        m = int(M)
        device = device_of(ctx)
        if m <= 1:
            return torch.ones(max(m, 0), dtype=torch_dtype(dtype), device=device)
        n = torch.arange(m, dtype=torch.float64, device=device)
        out = torch.zeros(m, dtype=torch.float64, device=device)
        for k, a in enumerate(coefficients):
            out += (-1) ** k * a * torch.cos(2 * math.pi * k * n / (m - 1))
        return out.to(torch_dtype(dtype))
    impl.__doc__ = "``np.%s(M)``: the window of M points (``[1]`` for M = 1, empty below)." % name[5:]
    return impl


for _name, _coef in {"blackman": (0.42, 0.5, 0.08), "hamming": (0.54, 0.46), "hanning": (0.5, 0.5)}.items():
    register("_npi_" + _name, inputs=(), params=_WINDOW)(_window("_npi_" + _name, _coef))


@register("_npi_indices", inputs=(), params=dict(dimensions=Shape(), dtype=Dtype("int32"), ctx=Str("")))
def indices(*, dimensions, dtype, ctx):
    """``np.indices(dimensions)``: a ``(len(dimensions),) + dimensions`` grid of indices."""
    device = device_of(ctx)
    grids = torch.meshgrid(*[torch.arange(d, device=device) for d in dimensions], indexing="ij")
    if not grids:
        return torch.zeros((0,), dtype=torch_dtype(dtype), device=device)
    return torch.stack(grids).to(torch_dtype(dtype))
