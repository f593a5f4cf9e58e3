"""MXNet 1.9.1's NumPy-interface counting and order statistics: ``_npi_unique``,
``_npi_bincount``, ``_npi_histogram`` and ``_npi_percentile`` (``np.percentile`` and
``np.quantile``, which passes ``q * 100``). Their outputs have no gradient (MXNet registers
none)."""
import torch

from ..base import MXNetError
from .registry import Any, Bool, Float, Int, Shape, Str, register

__all__ = []


def _unique_outputs(attrs):
    return 1 + attrs["return_index"] + attrs["return_inverse"] + attrs["return_counts"]


@register("_npi_unique", params=dict(return_index=Bool(False), return_inverse=Bool(False),
                                     return_counts=Bool(False), axis=Int(None)),
          num_outputs=_unique_outputs)
def unique(data, *, return_index, return_inverse, return_counts, axis):
    """The sorted unique values (of the flattened array, or the unique slices along ``axis``),
    then, as asked, the index of each one's first occurrence, the inverse (the index into the
    unique values of every element) and the counts (int64)."""
    if axis is None:
        data = data.reshape(-1)
        axis = 0
    elif not -data.dim() <= axis < data.dim():
        raise MXNetError("Operator _npi_unique: axis %d is out of bounds for an array of shape %s"
                         % (axis, tuple(data.shape)))
    values, inverse, counts = torch.unique(data, sorted=True, return_inverse=True, return_counts=True, dim=axis)
    outs = [values]
    if return_index:
        n = data.shape[axis]
        first = torch.full((counts.numel(),), n, dtype=torch.int64, device=data.device)
        first.scatter_reduce_(0, inverse, torch.arange(n, device=data.device), reduce="amin")
        outs.append(first)
    if return_inverse:
        outs.append(inverse.to(torch.int64))
    if return_counts:
        outs.append(counts.to(torch.int64))
    return outs[0] if len(outs) == 1 else tuple(outs)


@register("_npi_bincount", inputs=lambda attrs: ("data", "weights") if attrs["has_weights"] else ("data",),
          signature=("data", "weights"), params=dict(minlength=Int(0), has_weights=Bool(False)))
def bincount(data, weights=None, *, minlength, has_weights):
    """The number of occurrences of each non-negative integer (the sum of ``weights`` when
    given), at least ``minlength`` long; the data's dtype, or the weights'."""
    if data.is_floating_point():
        raise MXNetError("Operator _npi_bincount: the data must be integers, got %s of shape %s"
                         % (str(data.dtype).replace("torch.", ""), tuple(data.shape)))
    if data.numel() and int(data.min()) < 0:
        raise MXNetError("Operator _npi_bincount: the data must be non-negative (shape %s)" % (tuple(data.shape),))
    if has_weights:
        if weights.shape != data.shape:
            raise MXNetError("Operator _npi_bincount: weights of shape %s for data of shape %s"
                             % (tuple(weights.shape), tuple(data.shape)))
        return torch.bincount(data.reshape(-1), weights.reshape(-1), minlength).to(weights.dtype)
    return torch.bincount(data.reshape(-1), minlength=minlength).to(data.dtype)


@register("_npi_histogram", inputs=lambda attrs: ("data", "bins") if attrs["bin_cnt"] is None else ("data",),
          signature=("data", "bins"), params=dict(bin_cnt=Int(None), range=Any(None)), num_outputs=2)
def histogram(data, bins=None, *, bin_cnt, range):  # pylint: disable=redefined-builtin
    """NumPy's histogram: ``bin_cnt`` equal bins over ``range``, or the given bin edges; each
    bin holds its left edge, the last also its right one. The counts are int64, the edges in
    the data's dtype."""
    x = data.reshape(-1)
    if bin_cnt is not None:
        lo, hi = (float(v) for v in range)
        edges = torch.linspace(lo, hi, bin_cnt + 1, dtype=torch.float64, device=data.device).to(data.dtype)
    else:
        edges = bins.to(data.dtype)
    n = edges.numel() - 1
    idx = torch.searchsorted(edges, x.contiguous(), right=True) - 1
    idx = torch.where(x == edges[-1], torch.full_like(idx, n - 1), idx)
    inside = (idx >= 0) & (idx < n)
    counts = torch.bincount(idx[inside], minlength=n)[:n]
    return counts.to(torch.int64), edges


_INTERPOLATIONS = ("higher", "linear", "lower", "midpoint", "nearest")


@register("_npi_percentile", inputs=lambda attrs: ("a", "q") if attrs["q_scalar"] is None else ("a",),
          signature=("a", "q"), params=dict(axis=Shape(None), interpolation=Str("linear", choices=_INTERPOLATIONS),
                                            keepdims=Bool(False), q_scalar=Float(None)))
def percentile(a, q=None, *, axis, interpolation, keepdims, q_scalar):
    """The ``q``-th percentiles along ``axis`` (all axes by default): ``q``'s shape first, then
    the remaining axes (kept as 1 with ``keepdims``). Integers give float32."""
    x = a if a.is_floating_point() else a.to(torch.float32)
    qs = torch.tensor(q_scalar, dtype=torch.float64) if q_scalar is not None else q.to(torch.float64)
    if bool(((qs < 0) | (qs > 100)).any()):
        raise MXNetError("Operator _npi_percentile: percentiles must be in the range [0, 100]")
    axes = tuple(range(x.dim())) if axis is None else tuple(d % x.dim() for d in axis)
    rest = [d for d in range(x.dim()) if d not in axes]
    moved = x.permute(rest + list(axes)).reshape([x.shape[d] for d in rest] + [-1])
    out = torch.quantile(moved.to(torch.float64), (qs / 100).reshape(-1).to(x.device), dim=-1,
                         interpolation=interpolation)
    if keepdims:
        out = out.reshape([out.shape[0]] + [1 if d in axes else x.shape[d] for d in range(x.dim())])
    return out.reshape(tuple(qs.shape) + tuple(out.shape[1:])).to(x.dtype)
