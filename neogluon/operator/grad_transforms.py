"""Operators whose gradient is not their forward's derivative: straight-through
estimators (``_contrib_round_ste``, ``_contrib_sign_ste``), ``_contrib_gradientmultiplier``
(identity forward, scaled gradient; the gradient-reversal layer of domain adaptation)
and ``IdentityAttachKLSparseReg`` (identity forward; the backward adds a KL sparseness
penalty and updates the moving average of the activations, its auxiliary state).
"""
import torch

from ..base import MXNetError
from .registry import Bool, Float, alias, register, shape_rule

__all__ = []


class _StraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, fn):  # pylint: disable=arguments-differ
        return fn(x)

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return g, None


@register("_contrib_round_ste")
def round_ste(data):
    """``round(data)`` (halves away from zero, as MXNet) with the identity as gradient."""
    return _StraightThrough.apply(data, lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5))


@register("_contrib_sign_ste")
def sign_ste(data):
    """``sign(data)`` with the identity as gradient."""
    return _StraightThrough.apply(data, torch.sign)


alias("_sparse__contrib_round_ste", "_contrib_round_ste")
alias("_sparse__contrib_sign_ste", "_contrib_sign_ste")


class _ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scalar):  # pylint: disable=arguments-differ
        ctx.scalar = scalar
        return x.clone()

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return g * ctx.scalar, None


@register("_contrib_gradientmultiplier", params=dict(scalar=Float(1.0), is_int=Bool(True)))
def gradientmultiplier(data, *, scalar, is_int):
    """The identity, whose gradient is multiplied by ``scalar`` (``-1``: gradient reversal)."""
    return _ScaleGrad.apply(data, scalar)


class _KLSparseReg(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, moving_avg, target, penalty, momentum):  # pylint: disable=arguments-differ
        ctx.save_for_backward(x)
        ctx.moving_avg, ctx.args = moving_avg, (target, penalty, momentum)
        return x.clone()

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        (x,), avg = ctx.saved_tensors, ctx.moving_avg
        target, penalty, momentum = ctx.args
        rows = x.reshape(x.shape[0], -1)
        with torch.no_grad():
            avg.mul_(momentum).add_((1 - momentum) * rows.mean(0).to(avg.dtype))
            reg = penalty * (-target / avg + (1 - target) / (1 - avg))
        return g + reg.to(g.dtype).reshape((1,) + tuple(x.shape[1:])), None, None, None, None


@register("IdentityAttachKLSparseReg", aux=("moving_avg",),
          params=dict(sparseness_target=Float(0.1), penalty=Float(0.001), momentum=Float(0.9)),
          infer_args=lambda attrs, shapes: shapes if shapes[0] is None else
          [shapes[0], (int(torch.Size(shapes[0][1:]).numel()),)])
def identity_attach_kl_sparse_reg(data, moving_avg, *, sparseness_target, penalty, momentum):
    """MXNet's ``IdentityAttachKLSparseReg``: the identity; backward first updates
    ``moving_avg = momentum*moving_avg + (1-momentum)*mean over the batch`` of the
    activations (flattened per sample), then adds ``penalty*(-rho/avg + (1-rho)/(1-avg))``
    (rho = ``sparseness_target``) to the gradient."""
    if moving_avg.numel() != data[0].numel() if data.dim() else True:
        raise MXNetError("Operator IdentityAttachKLSparseReg: moving_avg has shape %s, data %s needs %d values"
                         % (tuple(moving_avg.shape), tuple(data.shape), data[0].numel() if data.dim() else 0))
    return _KLSparseReg.apply(data, moving_avg, sparseness_target, penalty, momentum)


for _name in ("_contrib_round_ste", "_contrib_sign_ste", "_contrib_gradientmultiplier", "IdentityAttachKLSparseReg"):
    shape_rule(_name)(lambda attrs, shapes: [tuple(shapes[0])])
