"""Multi-tensor updates: the SGD and Adam steps of every parameter of a group at once.

Each function applies, with ``torch._foreach_*`` kernels, the same elementwise arithmetic,
in the same order and with the same roundings, as the per-parameter update operator it stands for (``sgd_update``,
``sgd_mom_update``, ``adam_update`` in :mod:`neogluon.operator.optimizer_ops`), so the
results are bit-identical; only the per-parameter Python and dispatch overhead goes.
Learning rates and weight decays are per tensor (they carry ``lr_mult``/``wd_mult``);
``clip_gradient`` follows the operators' convention (negative: no clipping). Weights and
states are updated in place.

Intermediate results go to **scratch buffers** kept between steps (:class:`Scratch`: one or
two tensors per weight, made once for the optimizer), written by per-tensor ``out=`` kernels,
never by allocating ``_foreach_*`` calls: a model-sized temporary allocated per step is
fresh memory the kernel faults in page by page, which made a momentum SGD step of ResNet-18
(11.7M weights, one thread) 4x slower than torch.optim.SGD's, and Adam allocated six. The
arithmetic is unchanged (each temporary is the same product, rounded once).
"""
import weakref

import torch

from ..operator.optimizer_ops import complement, sgd_coefficient

_set_grad_enabled = torch._C._set_grad_enabled  # pylint: disable=protected-access

__all__ = ["groupable", "sgd", "adam", "Scratch", "scratch"]


class Scratch:
    """Buffers shaped like a group's weights, kept between steps: ``get(k, like)`` is the
    ``k``-th list, remade only when the weights' shapes, dtypes or devices change."""

    def __init__(self):
        self._lists = {}

    def get(self, k, like):
        key = tuple((t.shape, t.dtype, t.device) for t in like)
        held = self._lists.get(k)
        if held is None or held[0] != key:
            held = (key, [torch.empty_like(t, memory_format=torch.contiguous_format) for t in like])
            self._lists[k] = held
        return held[1]


_SCRATCH = weakref.WeakKeyDictionary()


def scratch(owner):
    """The :class:`Scratch` of ``owner`` (an optimizer), released with it (never pickled
    with its states)."""
    held = _SCRATCH.get(owner)
    if held is None:
        held = _SCRATCH[owner] = Scratch()
    return held


def _mul_into(out, tensors, scalars):
    """``out[i] = tensors[i] * scalars[i]`` (a scalar for all when not a list), one kernel
    each, into existing buffers."""
    if not isinstance(scalars, (list, tuple)):
        scalars = [scalars] * len(tensors)
    for o, t, c in zip(out, tensors, scalars):
        torch.mul(t, c, out=o)
    return out


def groupable(*tensor_lists):
    """Whether the tensors (of any of the lists) can be updated as one group: dense, and
    all of one dtype on one device."""
    tensors = [t for tensors in tensor_lists for t in tensors]
    return (len({t.dtype for t in tensors}) == 1 and len({t.device for t in tensors}) == 1
            and {t.layout for t in tensors} == {torch.strided})


def _scaled(grads, rescale_grad, clip_gradient, lrs, out):
    """``lr * clip(rescale_grad * grad)`` of every gradient, into ``out``. Without
    clipping, a ``rescale_grad`` of 1 is skipped: ``1.0 * grad`` is ``grad`` exactly."""
    if rescale_grad == 1.0 and clip_gradient < 0:
        return _mul_into(out, grads, lrs)
    g = _mul_into(out, grads, rescale_grad)
    if clip_gradient >= 0:
        torch._foreach_clamp_min_(g, -clip_gradient)
        torch._foreach_clamp_max_(g, clip_gradient)
    torch._foreach_mul_(g, lrs)
    return g


def sgd(weights, grads, moms, lrs, wds, momentum, rescale_grad, clip_gradient, buffers=None):
    """``sgd_update`` (``moms`` None) or ``sgd_mom_update`` of every weight, in place;
    ``buffers`` a :class:`Scratch` (a new one when None)."""
    if moms is None:  # grad mode off without no_grad()'s context object (a small step's few microseconds)
        previous = torch.is_grad_enabled()
        _set_grad_enabled(False)
        try:
            _plain_sgd(weights, grads, lrs, wds, rescale_grad, clip_gradient, buffers)
        finally:
            _set_grad_enabled(previous)
        return
    with torch.no_grad():
        _momentum_sgd(weights, grads, moms, lrs, wds, momentum, rescale_grad, clip_gradient, buffers)


def _momentum_sgd(weights, grads, moms, lrs, wds, momentum, rescale_grad, clip_gradient, buffers):
    tmp = (buffers or Scratch()).get(0, weights)
    torch._foreach_mul_(moms, momentum)
    torch._foreach_sub_(moms, _mul_into(tmp, weights, [lr * wd for lr, wd in zip(lrs, wds)]))
    torch._foreach_sub_(moms, _scaled(grads, rescale_grad, clip_gradient, lrs, tmp))
    torch._foreach_add_(weights, moms)


def _plain_sgd(weights, grads, lrs, wds, rescale_grad, clip_gradient, buffers):
    """``sgd_update``'s ``(1 - lr*wd)*w - c*g`` with its fused final step: one
    ``_foreach_add_(weights, grads, alpha=-c)`` per distinct coefficient ``c`` (usually
    one), reading each gradient once and allocating nothing without clipping."""
    decay = [1.0 - lr * wd for lr, wd in zip(lrs, wds)]
    if any(d != 1.0 for d in decay):  # 1.0 * weight is the weight itself
        torch._foreach_mul_(weights, decay)
    if clip_gradient >= 0:  # clip(rescale_grad * g) first, then the step with lr
        grads = _mul_into((buffers or Scratch()).get(0, weights), grads, rescale_grad)
        torch._foreach_clamp_min_(grads, -clip_gradient)
        torch._foreach_clamp_max_(grads, clip_gradient)
    if len(set(lrs)) == 1:  # one learning rate (usually): one coefficient
        groups = {sgd_coefficient(lrs[0], rescale_grad, clip_gradient)[0]: (weights, grads)}
    else:
        groups = {}
        for w, g, lr in zip(weights, grads, lrs):
            ws, gs = groups.setdefault(sgd_coefficient(lr, rescale_grad, clip_gradient)[0], ([], []))
            ws.append(w)
            gs.append(g)
    for coef, (ws, gs) in groups.items():
        torch._foreach_add_(ws, gs, alpha=-coef)


@torch.no_grad()
def adam(weights, grads, means, variances, lrs, wds, beta1, beta2, epsilon, rescale_grad, clip_gradient,
         buffers=None):
    """``adam_update`` of every weight (moments and weights in place); ``buffers`` a
    :class:`Scratch` (two lists; a new one when None)."""
    buffers = buffers or Scratch()
    g, tmp = buffers.get(0, weights), buffers.get(1, weights)
    _mul_into(g, grads, rescale_grad)
    torch._foreach_add_(g, _mul_into(tmp, weights, wds))
    if clip_gradient >= 0:
        torch._foreach_clamp_min_(g, -clip_gradient)
        torch._foreach_clamp_max_(g, clip_gradient)
    torch._foreach_mul_(means, beta1)
    torch._foreach_add_(means, _mul_into(tmp, g, complement(beta1, means[0])))
    g2 = _mul_into(tmp, g, complement(beta2, variances[0]))
    torch._foreach_mul_(g2, g)
    torch._foreach_mul_(variances, beta2)
    torch._foreach_add_(variances, g2)
    denom = tmp
    for d, v in zip(denom, variances):
        torch.sqrt(v, out=d)
    torch._foreach_add_(denom, epsilon)
    step = _mul_into(g, means, lrs)  # g is no longer needed
    torch._foreach_div_(step, denom)
    torch._foreach_sub_(weights, step)
