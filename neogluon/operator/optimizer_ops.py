"""Optimizer update operators: ``sgd_update``, ``adam_update``, ``lamb_update_phase1``, ...

As in MXNet, an update operator returns the new weight (``mx.optimizer`` writes it back
with ``out=weight``) and updates its state inputs (momentum, mean/var, the float32 master
weight of the ``mp_`` variants) in place. The gradient is first multiplied by
``rescale_grad`` and, when ``clip_gradient`` is not negative, clipped to
``[-clip_gradient, clip_gradient]``; the order of weight decay and clipping follows each
MXNet kernel. The ``mp_`` variants do their arithmetic on the float32 master weight and
return it cast to the (float16) weight's dtype.
"""
import numpy as np
import torch

from ..base import MXNetError
from .registry import Bool, Float, Int, register

__all__ = []

_COMMON = dict(wd=Float(0.0), rescale_grad=Float(1.0), clip_gradient=Float(-1.0))
_LAZY = dict(lazy_update=Bool(True))


def _params(*groups, **extra):
    out = {}
    for g in groups:
        out.update(g)
    out.update(extra)
    return out


def _clip(x, clip):
    return x.clamp(-clip, clip) if clip >= 0 else x


def _rescaled(grad, rescale_grad, clip_gradient, dtype=None):
    """``clip(rescale_grad * grad)`` in ``dtype`` (the weight's, by default)."""
    g = grad if dtype is None else grad.to(dtype)
    return _clip(g * rescale_grad, clip_gradient)


def _check_like(op, weight, **others):
    for name, t in others.items():
        if tuple(t.shape) != tuple(weight.shape):
            raise MXNetError("Operator %s: %s has shape %s but weight has shape %s"
                             % (op, name, tuple(t.shape), tuple(weight.shape)))


def _mp_result(weight, weight32):
    return weight32.to(weight.dtype)


# ----------------------------------------------------------------------------- SGD, NAG
def sgd_coefficient(lr, rescale_grad, clip_gradient):
    """``(c, rescale)``: the SGD step is ``weight - c * rescale(grad)``. Without clipping
    ``c`` is ``lr * rescale_grad`` applied to the raw gradient, as MXNet's kernel does."""
    if clip_gradient < 0:
        return lr * rescale_grad, None
    return lr, (rescale_grad, clip_gradient)


def _sgd_step(weight, grad, lr, wd, rescale_grad, clip_gradient):
    """MXNet's SGD kernel, ``(1 - lr*wd)*weight - (lr*rescale_grad)*grad`` (or with
    ``lr*clip(rescale_grad*grad)``). The final multiply-subtract rounds once, as
    torch.optim.SGD does (one memory pass); MXNet 1.9.1's CPU kernel rounds the product
    first, so the two may differ in the last bit."""
    coef, scaling = sgd_coefficient(lr, rescale_grad, clip_gradient)
    g = grad.to(weight.dtype) if scaling is None else _rescaled(grad, *scaling, weight.dtype)
    decayed = weight * (1.0 - lr * wd) if wd else weight
    return torch.add(decayed, g, alpha=-coef)


def _sgd_mom_step(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    mom.mul_(momentum).sub_(lr * wd * weight).sub_(lr * g)
    return weight + mom


def _nag_step(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, aliased=False):
    """MXNet's NAG kernel. It writes the weight before the momentum, so when the weight is
    updated in place (``out=weight``, or the master weight of ``mp_nag_mom_update``) the
    momentum's weight-decay term reads the *new* weight; ``aliased`` reproduces that."""
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    step = lr * (g + wd * weight)
    new_weight = weight + momentum * (momentum * mom - step) - step
    mom.mul_(momentum).sub_(lr * (g + wd * (new_weight if aliased else weight)))
    return new_weight


@torch.no_grad()
def nag_mom_update_inplace(weight, grad, mom, *, lr, momentum=0.0, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0):
    """``nag_mom_update(weight, grad, mom, out=weight)`` on torch tensors, with MXNet's
    in-place behaviour (see ``_nag_step``); ``mx.optimizer.NAG`` uses it."""
    weight.copy_(_nag_step(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, aliased=True))
    return weight


@register("sgd_update", inputs=("weight", "grad"), aliases=["_sparse_sgd_update"],
          params=_params(dict(lr=Float()), _COMMON, _LAZY))
@torch.no_grad()
def sgd_update(weight, grad, *, lr, wd, rescale_grad, clip_gradient, lazy_update):
    """MXNet's SGD step ``(1 - lr*wd)*weight - lr*clip(rescale_grad*grad)`` (see ``_sgd_step``)."""
    _check_like("sgd_update", weight, grad=grad)
    return _sgd_step(weight, grad, lr, wd, rescale_grad, clip_gradient)


@register("sgd_mom_update", inputs=("weight", "grad", "mom"), aliases=["_sparse_sgd_mom_update"],
          params=_params(dict(lr=Float(), momentum=Float(0.0)), _COMMON, _LAZY))
@torch.no_grad()
def sgd_mom_update(weight, grad, mom, *, lr, momentum, wd, rescale_grad, clip_gradient, lazy_update):
    """MXNet's momentum SGD: ``mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad)``
    (in place), then ``weight + mom``."""
    _check_like("sgd_mom_update", weight, grad=grad, mom=mom)
    return _sgd_mom_step(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient)


@register("mp_sgd_update", inputs=("weight", "grad", "weight32"),
          params=_params(dict(lr=Float()), _COMMON, _LAZY))
@torch.no_grad()
def mp_sgd_update(weight, grad, weight32, *, lr, wd, rescale_grad, clip_gradient, lazy_update):
    """``sgd_update`` on the float32 master weight (updated in place), returned in the
    weight's dtype."""
    _check_like("mp_sgd_update", weight, grad=grad, weight32=weight32)
    weight32.copy_(_sgd_step(weight32, grad, lr, wd, rescale_grad, clip_gradient))
    return _mp_result(weight, weight32)


@register("mp_sgd_mom_update", inputs=("weight", "grad", "mom", "weight32"),
          params=_params(dict(lr=Float(), momentum=Float(0.0)), _COMMON, _LAZY))
@torch.no_grad()
def mp_sgd_mom_update(weight, grad, mom, weight32, *, lr, momentum, wd, rescale_grad, clip_gradient,
                      lazy_update):
    """``sgd_mom_update`` on the float32 master weight and momentum (both in place)."""
    _check_like("mp_sgd_mom_update", weight, grad=grad, mom=mom, weight32=weight32)
    weight32.copy_(_sgd_mom_step(weight32, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient))
    return _mp_result(weight, weight32)


@register("nag_mom_update", inputs=("weight", "grad", "mom"),
          params=_params(dict(lr=Float(), momentum=Float(0.0)), _COMMON))
@torch.no_grad()
def nag_mom_update(weight, grad, mom, *, lr, momentum, wd, rescale_grad, clip_gradient):
    """MXNet's Nesterov step: ``step = lr*(clip(rescale_grad*grad) + wd*weight)``,
    ``mom = momentum*mom - step`` (in place), ``weight + momentum*mom - step``. (With
    ``out=weight`` MXNet's momentum then reads the new weight: see ``nag_mom_update_inplace``.)"""
    _check_like("nag_mom_update", weight, grad=grad, mom=mom)
    return _nag_step(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient)


@register("mp_nag_mom_update", inputs=("weight", "grad", "mom", "weight32"),
          params=_params(dict(lr=Float(), momentum=Float(0.0)), _COMMON))
@torch.no_grad()
def mp_nag_mom_update(weight, grad, mom, weight32, *, lr, momentum, wd, rescale_grad, clip_gradient):
    """``nag_mom_update`` on the float32 master weight and momentum (both in place; the
    momentum's weight decay reads the updated master weight, as in MXNet)."""
    _check_like("mp_nag_mom_update", weight, grad=grad, mom=mom, weight32=weight32)
    weight32.copy_(_nag_step(weight32, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, aliased=True))
    return _mp_result(weight, weight32)


# ----------------------------------------------------------------------------- sign methods
@register("signsgd_update", inputs=("weight", "grad"), params=_params(dict(lr=Float()), _COMMON))
@torch.no_grad()
def signsgd_update(weight, grad, *, lr, wd, rescale_grad, clip_gradient):
    """MXNet's signSGD: ``(1 - lr*wd)*weight - lr*sign(clip(rescale_grad*grad))``."""
    _check_like("signsgd_update", weight, grad=grad)
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    return (1.0 - lr * wd) * weight - lr * torch.sign(g)


@register("signum_update", inputs=("weight", "grad", "mom"),
          params=_params(dict(lr=Float(), momentum=Float(0.0)), _COMMON, dict(wd_lh=Float(0.0))))
@torch.no_grad()
def signum_update(weight, grad, mom, *, lr, momentum, wd, rescale_grad, clip_gradient, wd_lh):
    """MXNet's Signum: ``mom = momentum*mom - (1-momentum)*(wd*weight + clip(rescale_grad*grad))``
    (in place), then ``(1 - lr*wd_lh)*weight + lr*sign(mom)``."""
    _check_like("signum_update", weight, grad=grad, mom=mom)
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    mom.mul_(momentum).sub_((1.0 - momentum) * wd * weight).sub_((1.0 - momentum) * g)
    return (1.0 - lr * wd_lh) * weight + lr * torch.sign(mom)


# ----------------------------------------------------------------------------- Adam family
def complement(beta, t):
    """``1 - beta`` computed in ``t``'s dtype, as MXNet's kernels do (``1.f - beta2`` on the
    float32 parameter is 0.00099998713 for 0.999, not 0.001)."""
    return float(torch.ones((), dtype=t.dtype) - beta)


def _moments(g, mean, var, beta1, beta2):
    mean.mul_(beta1).add_(complement(beta1, mean) * g)
    var.mul_(beta2).add_(complement(beta2, var) * g * g)


@register("adam_update", inputs=("weight", "grad", "mean", "var"), aliases=["_sparse_adam_update"],
          params=_params(dict(lr=Float(), beta1=Float(0.9), beta2=Float(0.999), epsilon=Float(1e-8)),
                         _COMMON, _LAZY))
@torch.no_grad()
def adam_update(weight, grad, mean, var, *, lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient,
                lazy_update):
    """MXNet's Adam step (no bias correction: ``mx.optimizer.Adam`` folds it into ``lr``):
    ``g = clip(rescale_grad*grad + wd*weight)``, moments updated in place,
    ``weight - lr*mean/(sqrt(var) + epsilon)``."""
    _check_like("adam_update", weight, grad=grad, mean=mean, var=var)
    g = _clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    _moments(g, mean, var, beta1, beta2)
    return weight - lr * mean / (var.sqrt() + epsilon)


def _adamw_step(weight, grad, mean, var, scale, lr, beta1, beta2, epsilon, wd, eta, clip_gradient, keep_grad):
    g = _rescaled(grad, scale, clip_gradient, weight.dtype)
    if not keep_grad:
        grad.copy_(g)  # MXNet's (non-mp) AdamW kernel rescales and clips the gradient in place
    _moments(g, mean, var, beta1, beta2)
    return weight - eta * (lr * mean / (var.sqrt() + epsilon) + wd * weight)


def _skip_update(rescale_grad):
    """MXNet's AdamW skips the step when ``rescale_grad`` is 0, NaN or infinite."""
    scale = float(rescale_grad.reshape(-1)[0])
    return scale, scale == 0 or scale != scale or abs(scale) == float("inf")


_ADAMW = dict(lr=Float(), beta1=Float(0.9), beta2=Float(0.999), epsilon=Float(1e-8), wd=Float(0.0),
              eta=Float(), clip_gradient=Float(-1.0))


@register("_adamw_update", inputs=("weight", "grad", "mean", "var", "rescale_grad"), params=dict(_ADAMW))
@torch.no_grad()
def adamw_update(weight, grad, mean, var, rescale_grad, *, lr, beta1, beta2, epsilon, wd, eta, clip_gradient):
    """MXNet's AdamW (decoupled weight decay): ``g = clip(rescale_grad*grad)``, moments in
    place, ``weight - eta*(lr*mean/(sqrt(var) + epsilon) + wd*weight)``. ``rescale_grad``
    is an array; a step with a zero, NaN or infinite scale is skipped (the weight is
    returned unchanged). As in MXNet, ``grad`` is overwritten with the clipped, rescaled
    gradient."""
    _check_like("_adamw_update", weight, grad=grad, mean=mean, var=var)
    scale, skip = _skip_update(rescale_grad)
    if skip:
        return weight.clone()
    return _adamw_step(weight, grad, mean, var, scale, lr, beta1, beta2, epsilon, wd, eta, clip_gradient, False)


@register("_mp_adamw_update", inputs=("weight", "grad", "mean", "var", "weight32", "rescale_grad"),
          params=dict(_ADAMW))
@torch.no_grad()
def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, *, lr, beta1, beta2, epsilon, wd, eta,
                    clip_gradient):
    """``_adamw_update`` on the float32 master weight (in place), returned in the weight's dtype."""
    _check_like("_mp_adamw_update", weight, grad=grad, mean=mean, var=var, weight32=weight32)
    scale, skip = _skip_update(rescale_grad)
    if not skip:
        weight32.copy_(_adamw_step(weight32, grad, mean, var, scale, lr, beta1, beta2, epsilon, wd, eta,
                                   clip_gradient, True))
    return _mp_result(weight, weight32)


# ----------------------------------------------------------------------------- RMSProp, AdaGrad, Ftrl, FTML
_CLIP_W = dict(clip_weights=Float(-1.0))


@register("rmsprop_update", inputs=("weight", "grad", "n"),
          params=_params(dict(lr=Float(), gamma1=Float(0.95), epsilon=Float(1e-8)), _COMMON, _CLIP_W))
@torch.no_grad()
def rmsprop_update(weight, grad, n, *, lr, gamma1, epsilon, wd, rescale_grad, clip_gradient, clip_weights):
    """MXNet's RMSProp (Tieleman & Hinton): ``g = clip(rescale_grad*grad + wd*weight)``,
    ``n = gamma1*n + (1-gamma1)*g^2`` (in place), ``weight - lr*g/sqrt(n + epsilon)``,
    clipped to ``clip_weights`` when that is not negative."""
    _check_like("rmsprop_update", weight, grad=grad, n=n)
    g = _clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    n.mul_(gamma1).add_((1.0 - gamma1) * g * g)
    return _clip(weight - lr * g / (n + epsilon).sqrt(), clip_weights)


@register("rmspropalex_update", inputs=("weight", "grad", "n", "g", "delta"),
          params=_params(dict(lr=Float(), gamma1=Float(0.95), gamma2=Float(0.9), epsilon=Float(1e-8)),
                         _COMMON, _CLIP_W))
@torch.no_grad()
def rmspropalex_update(weight, grad, n, g, delta, *, lr, gamma1, gamma2, epsilon, wd, rescale_grad,
                       clip_gradient, clip_weights):
    """MXNet's centered RMSProp (Graves 2013): ``n``, ``g`` and ``delta`` updated in place,
    ``delta = gamma2*delta - lr*grad/sqrt(n - g^2 + epsilon)``, ``weight + delta``."""
    _check_like("rmspropalex_update", weight, grad=grad, n=n, g=g, delta=delta)
    r = _clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_gradient)
    n.mul_(gamma1).add_((1.0 - gamma1) * r * r)
    g.mul_(gamma1).add_((1.0 - gamma1) * r)
    delta.mul_(gamma2).sub_(lr * r / (n - g * g + epsilon).sqrt())
    return _clip(weight + delta, clip_weights)


@register("_sparse_adagrad_update", inputs=("weight", "grad", "history"),
          params=_params(dict(lr=Float(), epsilon=Float(1e-7)), _COMMON))
@torch.no_grad()
def sparse_adagrad_update(weight, grad, history, *, lr, epsilon, wd, rescale_grad, clip_gradient):
    """MXNet's AdaGrad kernel (``mx.nd.sparse.adagrad_update``; every row counts as present
    in a dense gradient): ``history += clip(rescale_grad*grad)^2`` (in place),
    ``weight - lr*(g/sqrt(history + epsilon) + wd*weight)``."""
    _check_like("_sparse_adagrad_update", weight, grad=grad, history=history)
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    history.add_(g * g)
    return weight - lr * (g / (history + epsilon).sqrt() + wd * weight)


@register("ftrl_update", inputs=("weight", "grad", "z", "n"), aliases=["_sparse_ftrl_update"],
          params=_params(dict(lr=Float(), lamda1=Float(0.01), beta=Float(1.0)), _COMMON))
@torch.no_grad()
def ftrl_update(weight, grad, z, n, *, lr, lamda1, beta, wd, rescale_grad, clip_gradient):
    """MXNet's FTRL-proximal step; ``z`` and ``n`` are updated in place and the weight is
    ``(sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd)`` where ``|z| > lamda1``, else 0."""
    _check_like("ftrl_update", weight, grad=grad, z=z, n=n)
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    z.add_(g - ((n + g * g).sqrt() - n.sqrt()) * weight / lr)
    n.add_(g * g)
    w = (torch.sign(z) * lamda1 - z) / ((beta + n.sqrt()) / lr + wd)
    return w * (z.abs() > lamda1)  # MXNet's kernel multiplies by the mask: a nan (lr = 0) stays nan


@register("ftml_update", inputs=("weight", "grad", "d", "v", "z"),
          params=dict(lr=Float(), beta1=Float(0.6), beta2=Float(0.999), epsilon=Float(1e-8), t=Int(),
                      wd=Float(0.0), rescale_grad=Float(1.0), clip_grad=Float(-1.0)))
@torch.no_grad()
def ftml_update(weight, grad, d, v, z, *, lr, beta1, beta2, epsilon, t, wd, rescale_grad, clip_grad):
    """MXNet's FTML (Follow the Moving Leader) step at iteration ``t``; ``d``, ``v`` and
    ``z`` are updated in place and the new weight is ``-z/d``."""
    _check_like("ftml_update", weight, grad=grad, d=d, v=v, z=z)
    g = _clip(grad.to(weight.dtype) * rescale_grad + wd * weight, clip_grad)
    v.mul_(beta2).add_((1.0 - beta2) * g * g)
    # a tensor divided by lr: lr = 0 (a scheduler's final_lr) gives inf and a nan weight, as MXNet's kernel
    d_t = torch.tensor(1.0 - beta1 ** t, dtype=v.dtype, device=v.device) / lr * ((v / (1.0 - beta2 ** t)).sqrt()
                                                                                 + epsilon)
    z.mul_(beta1).add_((1.0 - beta1) * g - (d_t - beta1 * d) * weight)
    d.copy_(d_t)
    return -z / d_t


# ----------------------------------------------------------------------------- LAMB
_LAMB1 = dict(beta1=Float(0.9), beta2=Float(0.999), epsilon=Float(1e-6), t=Int(), bias_correction=Bool(True),
              wd=Float(), rescale_grad=Float(1.0), clip_gradient=Float(-1.0))
_LAMB2 = dict(lr=Float(), lower_bound=Float(-1.0), upper_bound=Float(-1.0))


def _power_f32(beta, t):
    """MXNet's ``beta_t``: the float32 parameter raised to the step count, rounded to float32."""
    return float(np.float32(float(np.float32(beta)) ** t))


def _lamb_direction(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd, rescale_grad,
                    clip_gradient):
    g = _rescaled(grad, rescale_grad, clip_gradient, weight.dtype)
    _moments(g, mean, var, beta1, beta2)
    if bias_correction:  # beta**t rounded to float32 first, then 1 - it in float32, as MXNet's kernels
        m, v = mean / complement(_power_f32(beta1, t), mean), var / complement(_power_f32(beta2, t), var)
    else:
        m, v = mean, var
    return m / (v.sqrt() + epsilon) + wd * weight


def _lamb_step(weight, g, r1, r2, lr, lower_bound, upper_bound):
    r1 = r1.reshape(-1)[0]
    r2 = r2.reshape(-1)[0]
    if lower_bound >= 0:
        r1 = r1.clamp(min=lower_bound)
    if upper_bound >= 0:
        r1 = r1.clamp(max=upper_bound)
    ratio = torch.where((r1 == 0) | (r2 == 0), torch.ones_like(r1), r1 / r2)
    return weight - lr * ratio * g


@register("lamb_update_phase1", inputs=("weight", "grad", "mean", "var"), params=dict(_LAMB1))
@torch.no_grad()
def lamb_update_phase1(weight, grad, mean, var, *, beta1, beta2, epsilon, t, bias_correction, wd,
                       rescale_grad, clip_gradient):
    """LAMB's first phase: moments updated in place; returns the Adam direction
    ``mean_hat/(sqrt(var_hat) + epsilon) + wd*weight`` (bias-corrected when asked)."""
    _check_like("lamb_update_phase1", weight, grad=grad, mean=mean, var=var)
    return _lamb_direction(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                           rescale_grad, clip_gradient)


@register("lamb_update_phase2", inputs=("weight", "g", "r1", "r2"), params=dict(_LAMB2))
@torch.no_grad()
def lamb_update_phase2(weight, g, r1, r2, *, lr, lower_bound, upper_bound):
    """LAMB's second phase: ``weight - lr*(r1/r2)*g`` with the trust ratio from the norms
    ``r1`` (of the weight, bounded by lower/upper_bound) and ``r2`` (of ``g``); 1 when
    either is 0."""
    _check_like("lamb_update_phase2", weight, g=g)
    return _lamb_step(weight, g, r1, r2, lr, lower_bound, upper_bound)


@register("mp_lamb_update_phase1", inputs=("weight", "grad", "mean", "var", "weight32"), params=dict(_LAMB1))
@torch.no_grad()
def mp_lamb_update_phase1(weight, grad, mean, var, weight32, *, beta1, beta2, epsilon, t, bias_correction, wd,
                          rescale_grad, clip_gradient):
    """``lamb_update_phase1`` on the float32 master weight; the direction is float32."""
    _check_like("mp_lamb_update_phase1", weight, grad=grad, mean=mean, var=var, weight32=weight32)
    return _lamb_direction(weight32, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                           rescale_grad, clip_gradient)


@register("mp_lamb_update_phase2", inputs=("weight", "g", "r1", "r2", "weight32"), params=dict(_LAMB2))
@torch.no_grad()
def mp_lamb_update_phase2(weight, g, r1, r2, weight32, *, lr, lower_bound, upper_bound):
    """``lamb_update_phase2`` computed from the float32 master weight and returned in the
    weight's dtype. As in MXNet 1.9.1, ``weight32`` itself is left unchanged."""
    _check_like("mp_lamb_update_phase2", weight, g=g, weight32=weight32)
    return _mp_result(weight, _lamb_step(weight32, g, r1, r2, lr, lower_bound, upper_bound))
