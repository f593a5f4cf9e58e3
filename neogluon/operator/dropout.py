"""Dropout: MXNet's inverted dropout, in train mode or always (``mode='always'``), with
masks shared along ``axes``; predict mode is the identity (its kernel returns the input)."""
import functools

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import Bool, Float, Shape, Str, implementation, same_shape, shape_rule


# ----------------------------------------------------------------------------- Dropout
def _dropout_mask_shape(data, axes):
    axes = {a % data.dim() for a in axes}
    return [1 if i in axes else s for i, s in enumerate(data.shape)]


def _dropout(data, *, p, axes):
    if not axes:
        return F.dropout(data, p, training=True)
    keep = torch.empty(_dropout_mask_shape(data, axes), dtype=data.dtype, device=data.device)
    return data * keep.bernoulli_(1 - p).div_(1 - p)


@implementation("Dropout", aliasing=True,
                params=dict(p=Float(0.5), mode=Str("training", choices=("always", "training")), axes=Shape(()),
                            cudnn_off=Bool(False)),
                num_outputs=2, num_visible_outputs=1, mode_dependent=True, output_names=lambda a: ("output",))
def dropout(*, p, mode, axes, is_train, **_):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``, in
    train mode or always with ``mode='always'``; identity otherwise (the input itself: an
    imperative call copies it, see ``aliasing``). Along ``axes`` the mask is shared
    (broadcast), as for variational dropout."""
    if not 0 <= p <= 1:
        raise MXNetError("Operator Dropout: p must be in [0, 1], got %s" % p)
    if p == 0 or not (is_train or mode == "always"):
        return lambda data: data
    return functools.partial(_dropout, p=p, axes=axes)

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
shape_rule("Dropout")(same_shape)
