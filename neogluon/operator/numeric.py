"""Numeric utilities of MXNet's operator set: ``_contrib_quadratic``, ``_contrib_allclose``
and ``_histogram`` (behind ``mx.nd.histogram``)."""
import torch

from ..base import MXNetError
from .multi_optimizer import Floats
from .reduce import OptionalInt
from .registry import Bool, Float, register, shape_rule

__all__ = []


@register("_contrib_quadratic", params=dict(a=Float(0.0), b=Float(0.0), c=Float(0.0)))
def quadratic(data, *, a, b, c):
    """``a*data**2 + b*data + c`` (MXNet's example contrib operator); gradient ``2*a*data + b``."""
    return a * data * data + b * data + c


@shape_rule("_contrib_quadratic")
def _quadratic_shape(attrs, shapes):
    return [tuple(shapes[0])]


@register("_contrib_allclose", inputs=("a", "b"), differentiable=False,
          params=dict(rtol=Float(1e-5), atol=Float(1e-8), equal_nan=Bool(True)),
          infer_type=lambda attrs, dtypes: ["uint8"])
def allclose(a, b, *, rtol, atol, equal_nan):
    """MXNet's ``contrib.allclose``: 1 when ``|a - b| <= atol + rtol*|b|`` everywhere (NaNs
    equal each other when ``equal_nan``), else 0, as a 0-d uint8 array."""
    if a.shape != b.shape:
        raise MXNetError("Operator _contrib_allclose: a %s and b %s must have the same shape"
                         % (tuple(a.shape), tuple(b.shape)))
    close = (a - b).abs() <= atol + rtol * b.abs()
    if equal_nan:
        close = close | (torch.isnan(a) & torch.isnan(b))
    return close.all().to(torch.uint8)


@shape_rule("_contrib_allclose")
def _allclose_shape(attrs, shapes):
    return [()]


def _histogram_inputs(attrs):
    return ("data",) if attrs["bin_cnt"] is not None else ("data", "bins")


@register("_histogram", inputs=_histogram_inputs, signature=("data", "bins"), num_outputs=2, differentiable=False,
          params=dict(bin_cnt=OptionalInt(None), range=Floats(None)),
          infer_type=lambda attrs, dtypes: ["int64", dtypes[0] if len(dtypes) == 1 else dtypes[1]])
def histogram(data, bins=None, *, bin_cnt, range):  # pylint: disable=redefined-builtin
    """MXNet's ``histogram``: ``(counts, bin_edges)``. With ``bin_cnt``, equal bins over
    ``range`` (the data's min and max when not given) and edges in the data's dtype; else
    the edges are the ``bins`` input. Values outside the edges are not counted; a value
    equal to the last edge falls in the last bin. Counts are int64."""
    x = data.reshape(-1)
    if bin_cnt is not None:
        if bin_cnt <= 0:
            raise MXNetError("Operator _histogram: bin_cnt must be positive, got %d" % bin_cnt)
        if range is not None and len(range) != 2:
            raise MXNetError("Operator _histogram: range must be (min, max), got %s" % (range,))
        lo, hi = range if range is not None else (x.min().item(), x.max().item())
        if lo > hi:
            raise MXNetError("Operator _histogram: range %s has min > max" % (range,))
        edges = torch.linspace(lo, hi, bin_cnt + 1, dtype=torch.float64).to(data.dtype)
        width = (hi - lo) / bin_cnt
        inside = (x >= lo) & (x <= hi)
        index = ((x.double() - lo) / width).floor().long().clamp(0, bin_cnt - 1) if width > 0 else \
            torch.zeros_like(x, dtype=torch.long)
    else:
        if bins.dim() != 1 or bins.shape[0] < 2:
            raise MXNetError("Operator _histogram: bins must be a 1-d array of at least 2 edges, got shape %s"
                             % (tuple(bins.shape),))
        edges = bins.clone()
        bin_cnt = bins.shape[0] - 1
        b = bins.to(x.dtype)
        inside = (x >= b[0]) & (x <= b[-1])
        index = (torch.searchsorted(b, x.contiguous(), right=True) - 1).clamp(0, bin_cnt - 1)
    counts = torch.zeros(bin_cnt, dtype=torch.int64, device=data.device)
    counts.index_add_(0, index[inside], torch.ones_like(index[inside]))
    return counts, edges


@shape_rule("_histogram")
def _histogram_shape(attrs, shapes):
    if attrs["bin_cnt"] is not None:
        return [(attrs["bin_cnt"],), (attrs["bin_cnt"] + 1,)]
    return [(shapes[1][0] - 1,), tuple(shapes[1])]
