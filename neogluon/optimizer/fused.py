"""Multi-tensor updates: the SGD and Adam steps of every parameter of a group at once.

Each function applies, with ``torch._foreach_*`` kernels, the same elementwise arithmetic,
in the same order and with the same roundings, as the per-parameter update operator it stands for (``sgd_update``,
``sgd_mom_update``, ``adam_update`` in :mod:`neogluon.operator.optimizer_ops`), so the
results are bit-identical; only the per-parameter Python and dispatch overhead goes.
Learning rates and weight decays are per tensor (they carry ``lr_mult``/``wd_mult``);
``clip_gradient`` follows the operators' convention (negative: no clipping). Weights and
states are updated in place.
"""
import torch

from ..operator.optimizer_ops import sgd_coefficient

__all__ = ["groupable", "sgd", "adam"]


def groupable(*tensor_lists):
    """Whether the tensors (of any of the lists) can be updated as one group: dense, and
    all of one dtype on one device."""
    tensors = [t for tensors in tensor_lists for t in tensors]
    return (len({t.dtype for t in tensors}) == 1 and len({t.device for t in tensors}) == 1
            and {t.layout for t in tensors} == {torch.strided})


def _scaled(grads, rescale_grad, clip_gradient, lrs):
    """``lr * clip(rescale_grad * grad)`` of every gradient (new tensors). Without
    clipping, a ``rescale_grad`` of 1 is skipped: ``1.0 * grad`` is ``grad`` exactly."""
    if rescale_grad == 1.0 and clip_gradient < 0:
        return torch._foreach_mul(grads, lrs)
    g = torch._foreach_mul(grads, rescale_grad)
    if clip_gradient >= 0:
        torch._foreach_clamp_min_(g, -clip_gradient)
        torch._foreach_clamp_max_(g, clip_gradient)
    torch._foreach_mul_(g, lrs)
    return g


@torch.no_grad()
def sgd(weights, grads, moms, lrs, wds, momentum, rescale_grad, clip_gradient):
    """``sgd_update`` (``moms`` None) or ``sgd_mom_update`` of every weight, in place."""
    if moms is None:
        _plain_sgd(weights, grads, lrs, wds, rescale_grad, clip_gradient)
        return
    g = _scaled(grads, rescale_grad, clip_gradient, lrs)
    torch._foreach_mul_(moms, momentum)
    torch._foreach_sub_(moms, torch._foreach_mul(weights, [lr * wd for lr, wd in zip(lrs, wds)]))
    torch._foreach_sub_(moms, g)
    torch._foreach_add_(weights, moms)


def _plain_sgd(weights, grads, lrs, wds, rescale_grad, clip_gradient):
    """``sgd_update``'s ``(1 - lr*wd)*w - c*g`` with its fused final step: one
    ``_foreach_add_(weights, grads, alpha=-c)`` per distinct coefficient ``c`` (usually
    one), reading each gradient once and allocating nothing without clipping."""
    decay = [1.0 - lr * wd for lr, wd in zip(lrs, wds)]
    if any(d != 1.0 for d in decay):  # 1.0 * weight is the weight itself
        torch._foreach_mul_(weights, decay)
    if clip_gradient >= 0:  # clip(rescale_grad * g) first, then the step with lr
        grads = torch._foreach_mul(grads, rescale_grad)
        torch._foreach_clamp_min_(grads, -clip_gradient)
        torch._foreach_clamp_max_(grads, clip_gradient)
    groups = {}
    for w, g, lr in zip(weights, grads, lrs):
        ws, gs = groups.setdefault(sgd_coefficient(lr, rescale_grad, clip_gradient)[0], ([], []))
        ws.append(w)
        gs.append(g)
    for coef, (ws, gs) in groups.items():
        torch._foreach_add_(ws, gs, alpha=-coef)


@torch.no_grad()
def adam(weights, grads, means, variances, lrs, wds, beta1, beta2, epsilon, rescale_grad, clip_gradient):
    """``adam_update`` of every weight (moments and weights in place)."""
    g = torch._foreach_mul(grads, rescale_grad)
    torch._foreach_add_(g, torch._foreach_mul(weights, wds))
    if clip_gradient >= 0:
        torch._foreach_clamp_min_(g, -clip_gradient)
        torch._foreach_clamp_max_(g, clip_gradient)
    torch._foreach_mul_(means, beta1)
    torch._foreach_add_(means, torch._foreach_mul(g, 1.0 - beta1))
    g2 = torch._foreach_mul(g, 1.0 - beta2)
    torch._foreach_mul_(g2, g)
    torch._foreach_mul_(variances, beta2)
    torch._foreach_add_(variances, g2)
    denom = torch._foreach_sqrt(variances)
    torch._foreach_add_(denom, epsilon)
    step = torch._foreach_mul(means, lrs)
    torch._foreach_div_(step, denom)
    torch._foreach_sub_(weights, step)
