"""``_sample_unique_zipfian``: the candidate sampler of sampled softmax (GluonNLP's
``contrib.sampled_*`` and MXNet's ``rand_zipfian``), drawing unique classes from the
approximately Zipfian (log-uniform) distribution ``P(k) = log((k+2)/(k+1)) / log(range_max+1)``.

Like every neogluon sampler it draws from torch's global generator (``mx.random.seed``);
MXNet's stream cannot be reproduced, so tests check the distribution, not the values."""
import math

import torch

from ..base import MXNetError
from .registry import Int, Shape, register, shape_rule

__all__ = []


@register("_sample_unique_zipfian", inputs=(), params=dict(range_max=Int(), shape=Shape(None)), num_outputs=2,
          differentiable=False, infer_type=lambda attrs, dtypes: ["int64", "int64"])
def sample_unique_zipfian(*, range_max, shape):
    """``(samples, num_tries)``: for each of ``shape[0]`` rows, ``shape[1]`` distinct classes
    in ``[0, range_max)`` drawn by rejection of repeats, and how many draws that took
    (int64, as MXNet)."""
    if shape is None or len(shape) != 2:
        raise MXNetError("Operator _sample_unique_zipfian: shape must be 2-d (batch, num_sampled), got %s" % (shape,))
    batch, count = shape
    if count > range_max:
        raise MXNetError("Operator _sample_unique_zipfian: cannot draw %d unique classes out of range_max=%d"
                         % (count, range_max))
    log_range = math.log(range_max + 1)
    samples = torch.empty(shape, dtype=torch.int64)
    tries = torch.empty(batch, dtype=torch.int64)
    for row in range(batch):
        seen, order, n = set(), [], 0
        while len(order) < count:
            draws = torch.rand(max(2 * (count - len(order)), 8), dtype=torch.float64)
            for v in ((draws * log_range).exp().floor().long() - 1).clamp(0, range_max - 1).tolist():
                if len(order) == count:
                    break
                n += 1
                if v not in seen:
                    seen.add(v)
                    order.append(v)
        samples[row] = torch.tensor(order)
        tries[row] = n
    return samples, tries


@shape_rule("_sample_unique_zipfian")
def _zipfian_shape(attrs, shapes):
    return [tuple(attrs["shape"]), (attrs["shape"][0],)]
