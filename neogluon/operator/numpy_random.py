"""MXNet 1.9.1's NumPy-interface samplers beyond the legacy ones: ``_npi_multinomial``
(``np.random.multinomial``). Draws come from torch's generator (``mx.random.seed`` seeds
it): the distribution, shapes and dtypes are MXNet's, the numbers are not."""
import torch

from ..base import MXNetError
from .registry import Any, Int, Shape, register

__all__ = []


@register("_npi_multinomial", inputs=lambda attrs: ("a",) if attrs["pvals"] is None else (),
          signature=("a",), params=dict(n=Int(), pvals=Any(None), size=Shape(None)))
def multinomial(a=None, *, n, pvals, size):
    """Counts of ``n`` draws over ``len(pvals)`` outcomes, ``size + (len(pvals),)`` int64
    (as NumPy, the last probability is what the others leave)."""
    p = a.to(torch.float64) if a is not None else torch.tensor(pvals, dtype=torch.float64)
    if p.dim() != 1 or p.numel() == 0:
        raise MXNetError("Operator _npi_multinomial: pvals must be a non-empty 1-d sequence, got shape %s"
                         % (tuple(p.shape),))
    if n < 0:
        raise MXNetError("Operator _npi_multinomial: n must be non-negative, got %d" % n)
    p = torch.cat([p[:-1], (1 - p[:-1].sum()).clamp_min(0).reshape(1)]).clamp_min(0)
    shape = tuple(size or ())
    draws = 1
    for d in shape:
        draws *= d
    k = p.numel()
    if n == 0:
        return torch.zeros(shape + (k,), dtype=torch.int64)
    picks = torch.multinomial(p.expand(draws, k), n, replacement=True)
    counts = torch.zeros(draws, k, dtype=torch.int64).scatter_add_(1, picks, torch.ones_like(picks))
    return counts.reshape(shape + (k,))
