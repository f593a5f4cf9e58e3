"""MXNet 1.9.1's ``_npx_constraint_check`` (``npx.constraint_check``). (The other ``_npx_*``
operators are aliases registered beside their legacy operators.)"""
import torch

from ..base import MXNetError
from .registry import Str, check_rule, register

__all__ = []


@register("_npx_constraint_check", inputs=("input",), params=dict(msg=Str("Constraint violated.")))
def constraint_check(data, *, msg):
    """A 0-d ``True`` when every element of the boolean input is true; else ``ValueError(msg)``
    (MXNet raises ValueError here, not MXNetError)."""
    _check_boolean(None, (data,))
    if not bool(data.all()):
        raise ValueError(msg)
    return torch.ones((), dtype=torch.bool, device=data.device)


@check_rule("_npx_constraint_check")
def _check_boolean(attrs, tensors):
    """Only a boolean input is checked (MXNet's type check); a false element's ValueError stands."""
    data = tensors[0]
    if data.dtype != torch.bool:
        raise MXNetError("Operator _npx_constraint_check: the input must be boolean, got %s of shape %s"
                         % (str(data.dtype).replace("torch.", ""), tuple(data.shape)))
