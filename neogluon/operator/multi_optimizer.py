"""MXNet's aggregated optimizer operators: one call updates several weights.

``multi_sgd_update``, ``multi_sgd_mom_update``, ``multi_mp_sgd_update``,
``multi_mp_sgd_mom_update`` and their ``preloaded_`` forms (learning rates and weight
decays as the last two input arrays instead of attributes), ``_multi_adamw_update``,
``_multi_mp_adamw_update``, ``_multi_lamb_update``, ``_multi_mp_lamb_update``, and the
helpers MXNet's optimizers and AMP use with them: ``multi_sum_sq``, ``multi_lars``,
``all_finite``, ``multi_all_finite``, ``reset_arrays``.

Inputs come weight by weight (``weight_0, grad_0[, mom_0][, weight32_0], weight_1, ...``).
Each update is the single-weight operator's (``optimizer_ops.py``) applied per weight:
the outputs are the new weights, states (momentum, mean/var, float32 master weights) are
updated in place. MXNet runs these only with ``out=`` (``mx.optimizer`` passes the
weights); neogluon also returns fresh outputs without it.
"""
import ast

import torch

from ..base import MXNetError
from .optimizer_ops import _lamb_direction, _lamb_step, _rescaled, _sgd_mom_step, _sgd_step, _skip_update
from .registry import Attr, Bool, Float, Int, Shape, register, shape_rule

__all__ = []


class Floats(Attr):
    """MXNet's ``tuple of <float>`` (``lrs=(0.1, 0.01)``)."""
    type_name = "tuple of <float>"

    def from_str(self, s):
        if s in ("", "()", "[]"):
            return ()
        return self.convert(ast.literal_eval(s))

    def convert(self, v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return (float(v),)
        if isinstance(v, (tuple, list)):
            return tuple(float(x) for x in v)
        raise ValueError("expected a tuple of floats")


def _names(kinds, count_attr, tail=()):
    """Input names weight by weight, as MXNet's FListInputNames (``weight_0, grad_0, ...``)."""
    return lambda a: tuple("%s_%d" % (k, i) for i in range(a[count_attr]) for k in kinds) + tuple(tail)


def _groups(op, tensors, kinds, count):
    """The inputs split weight by weight into dicts by kind, checked against the weight's shape."""
    k = len(kinds)
    if len(tensors) < count * k:
        raise MXNetError("Operator %s expects %d inputs for %d weights, got %d" % (op, count * k, count, len(tensors)))
    out = []
    for i in range(count):
        g = dict(zip(kinds, tensors[i * k:(i + 1) * k]))
        for kind, t in g.items():
            if tuple(t.shape) != tuple(g["weight"].shape):
                raise MXNetError("Operator %s: %s_%d has shape %s but weight_%d has shape %s"
                                 % (op, kind, i, tuple(t.shape), i, tuple(g["weight"].shape)))
        out.append(g)
    return out


def _per_weight(op, values, count, what):
    if len(values) != count:
        raise MXNetError("Operator %s: %s has %d values for %d weights" % (op, what, len(values), count))
    return values


def _weights_shape(kinds, count_attr):
    def rule(attrs, shapes):
        return [tuple(shapes[i * len(kinds)]) for i in range(attrs[count_attr])]
    return rule


# ----------------------------------------------------------------------------- SGD family
_SGD = dict(rescale_grad=Float(1.0), clip_gradient=Float(-1.0), num_weights=Int(1))
_SGD_KINDS = {
    "multi_sgd_update": ("weight", "grad"),
    "multi_sgd_mom_update": ("weight", "grad", "mom"),
    "multi_mp_sgd_update": ("weight", "grad", "weight32"),
    "multi_mp_sgd_mom_update": ("weight", "grad", "mom", "weight32"),
}


@torch.no_grad()
def _sgd_all(op, groups, lrs, wds, momentum, rescale_grad, clip_gradient):
    out = []
    for g, lr, wd in zip(groups, lrs, wds):
        master = g.get("weight32", g["weight"])
        if "mom" in g:
            new = _sgd_mom_step(master, g["grad"], g["mom"], lr, momentum, wd, rescale_grad, clip_gradient)
        else:
            new = _sgd_step(master, g["grad"], lr, wd, rescale_grad, clip_gradient)
        if "weight32" in g:
            g["weight32"].copy_(new)
            new = new.to(g["weight"].dtype)
        out.append(new)
    return out


def _register_sgd(name, kinds):
    momentum = dict(momentum=Float(0.0)) if "mom" in kinds else {}
    doc_mp = " on the float32 master weights (updated in place), returned in the weights' dtype" \
        if "weight32" in kinds else ""

    @register(name, inputs=_names(kinds, "num_weights"), variadic="num_weights",
              num_outputs=lambda a: a["num_weights"], differentiable=False,
              params=dict(lrs=Floats(), wds=Floats(), **momentum, **_SGD))
    def multi_sgd(*tensors, lrs, wds, rescale_grad, clip_gradient, num_weights, momentum=0.0):
        count = num_weights
        groups = _groups(name, tensors, kinds, count)
        return _sgd_all(name, groups, _per_weight(name, lrs, count, "lrs"), _per_weight(name, wds, count, "wds"),
                        momentum, rescale_grad, clip_gradient)

    multi_sgd.__doc__ = ("MXNet's ``%s``: ``sgd%s_update`` for each weight with its own ``lrs[i]`` and "
                         "``wds[i]``%s." % (name, "_mom" if "mom" in kinds else "", doc_mp))
    shape_rule(name)(_weights_shape(kinds, "num_weights"))

    pre = "preloaded_" + name

    @register(pre, inputs=_names(kinds, "num_weights", ("lrs", "wds")), variadic="num_weights",
              num_outputs=lambda a: a["num_weights"], differentiable=False, params=dict(**momentum, **_SGD))
    def preloaded(*tensors, rescale_grad, clip_gradient, num_weights, momentum=0.0):
        count = num_weights
        groups = _groups(pre, tensors[:-2], kinds, count)
        lrs, wds = (t.reshape(-1).tolist() for t in tensors[-2:])
        return _sgd_all(pre, groups, _per_weight(pre, lrs, count, "lrs"), _per_weight(pre, wds, count, "wds"),
                        momentum, rescale_grad, clip_gradient)

    preloaded.__doc__ = "``%s`` with the learning rates and weight decays as the last two input arrays." % name
    shape_rule(pre)(_weights_shape(kinds, "num_weights"))


for _name, _kinds in _SGD_KINDS.items():
    _register_sgd(_name, _kinds)


# ----------------------------------------------------------------------------- AdamW
_ADAMW = dict(lrs=Floats(), beta1=Float(0.9), beta2=Float(0.999), epsilon=Float(1e-8), wds=Floats(), etas=Floats(),
              clip_gradient=Float(-1.0), num_weights=Int(1))


def _multi_adamw_step(weight, grad, mean, var, scale, lr, beta1, beta2, epsilon, wd, eta, clip_gradient):
    """MXNet's MultiAdamWKernel: unlike the single ``_adamw_update`` it leaves ``grad`` as it is
    and writes the moments as ``beta1*(mean - g) + g`` and ``beta2*(var - g*g) + g*g`` (so the
    float32 rounding differs from ``beta1*mean + (1 - beta1)*g``)."""
    g = _rescaled(grad, scale, clip_gradient, weight.dtype)
    mean.sub_(g).mul_(beta1).add_(g)
    g2 = g * g
    var.sub_(g2).mul_(beta2).add_(g2)
    return weight - eta * (lr * mean / (var.sqrt() + epsilon) + wd * weight)


def _register_adamw(name, kinds):
    @register(name, inputs=_names(kinds, "num_weights", ("rescale_grad",)), variadic="num_weights",
              num_outputs=lambda a: a["num_weights"], differentiable=False, params=dict(_ADAMW))
    @torch.no_grad()
    def multi_adamw(*tensors, lrs, beta1, beta2, epsilon, wds, etas, clip_gradient, num_weights):
        count = num_weights
        groups = _groups(name, tensors[:-1], kinds, count)
        scale, skip = _skip_update(tensors[-1])
        out = []
        for g, lr, wd, eta in zip(groups, _per_weight(name, lrs, count, "lrs"), _per_weight(name, wds, count, "wds"),
                                  _per_weight(name, etas, count, "etas")):
            if skip:
                out.append(g["weight"].clone())
                continue
            mp = "weight32" in g
            new = _multi_adamw_step(g.get("weight32", g["weight"]), g["grad"], g["mean"], g["var"], scale, lr,
                                    beta1, beta2, epsilon, wd, eta, clip_gradient)
            if mp:
                g["weight32"].copy_(new)
                new = new.to(g["weight"].dtype)
            out.append(new)
        return out

    multi_adamw.__doc__ = ("MXNet's ``%s``: ``%s`` for each weight with its own ``lrs``, ``wds`` and ``etas``; "
                           "the whole step is skipped when the ``rescale_grad`` array is 0, NaN or infinite."
                           % (name, name.replace("_multi", "")))
    shape_rule(name)(_weights_shape(kinds, "num_weights"))


_register_adamw("_multi_adamw_update", ("weight", "grad", "mean", "var"))
_register_adamw("_multi_mp_adamw_update", ("weight", "grad", "mean", "var", "weight32"))


# ----------------------------------------------------------------------------- LAMB
_LAMB = dict(learning_rates=Floats(), beta1=Float(0.9), beta2=Float(0.999), epsilon=Float(1e-6), wds=Floats(),
             rescale_grad=Float(1.0), lower_bound=Float(-1.0), upper_bound=Float(-1.0), clip_gradient=Float(-1.0),
             bias_correction=Bool(True), step_count=Shape(), num_tensors=Int(1))


def _register_lamb(name, kinds):
    @register(name, inputs=_names(kinds, "num_tensors"), variadic="num_tensors",
              num_outputs=lambda a: a["num_tensors"], differentiable=False, params=dict(_LAMB))
    @torch.no_grad()
    def multi_lamb(*tensors, learning_rates, beta1, beta2, epsilon, wds, rescale_grad, lower_bound, upper_bound,
                   clip_gradient, bias_correction, step_count, num_tensors):
        count = num_tensors
        groups = _groups(name, tensors, kinds, count)
        out = []
        for g, lr, wd, t in zip(groups, _per_weight(name, learning_rates, count, "learning_rates"),
                                _per_weight(name, wds, count, "wds"), _per_weight(name, step_count, count,
                                                                                  "step_count")):
            master = g.get("weight32", g["weight"])
            direction = _lamb_direction(master, g["grad"], g["mean"], g["var"], beta1, beta2, epsilon, t,
                                        bias_correction, wd, rescale_grad, clip_gradient)
            # r1 from the weights MXNet hands MultiSumSq, the low-precision ones under mp (each
            # square rounded to their dtype, the sum in float32), not from the float32 master copy
            r1 = g["weight"].square().float().sum().sqrt().reshape(1)
            r2 = torch.linalg.vector_norm(direction).reshape(1)
            new = _lamb_step(master, direction, r1, r2, lr, lower_bound, upper_bound)
            if "weight32" in g:
                g["weight32"].copy_(new)
                new = new.to(g["weight"].dtype)
            out.append(new)
        return out

    multi_lamb.__doc__ = ("MXNet's ``%s``: both LAMB phases (``lamb_update_phase1/2``) for each tensor, the "
                          "trust ratio from the norms of the weight and of the update direction, step ``t`` "
                          "from ``step_count``." % name)
    shape_rule(name)(_weights_shape(kinds, "num_tensors"))


_register_lamb("_multi_lamb_update", ("weight", "grad", "mean", "var"))
_register_lamb("_multi_mp_lamb_update", ("weight", "grad", "mean", "var", "weight32"))


# ----------------------------------------------------------------------------- helpers
@register("multi_sum_sq", inputs=lambda a: tuple("array_%d" % i for i in range(a["num_arrays"])),
          variadic="num_arrays", params=dict(num_arrays=Int()), differentiable=False,
          infer_type=lambda attrs, dtypes: ["float32"])
@torch.no_grad()
def multi_sum_sq(*arrays, num_arrays):
    """MXNet's ``multi_sum_sq``: the sum of squares of each array, in a float32 array of
    ``num_arrays`` values (what LARS's norms are computed from). As MXNet, each square is
    rounded to the array's dtype and the sum is accumulated in float32."""
    if not arrays:
        return torch.zeros(0, dtype=torch.float32)
    return torch.stack([a.square().float().sum() for a in arrays])


@shape_rule("multi_sum_sq")
def _multi_sum_sq_shape(attrs, shapes):
    return [(attrs["num_arrays"],)]


@register("multi_lars", inputs=("lrs", "weights_sum_sq", "grads_sum_sq", "wds"), differentiable=False,
          params=dict(eta=Float(), eps=Float(), rescale_grad=Float(1.0)))
@torch.no_grad()
def multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, *, eta, eps, rescale_grad):
    """MXNet's ``multi_lars``: each learning rate scaled by its LARS coefficient
    ``eta*|w| / (rescale_grad*|g| + wd*|w| + eps)``, or kept where either norm is 0."""
    for name, t in (("weights_sum_sq", weights_sum_sq), ("grads_sum_sq", grads_sum_sq), ("wds", wds)):
        if tuple(t.shape) != tuple(lrs.shape):
            raise MXNetError("Operator multi_lars: %s has shape %s but lrs has shape %s"
                             % (name, tuple(t.shape), tuple(lrs.shape)))
    w = weights_sum_sq.sqrt()
    g = (grads_sum_sq * (rescale_grad * rescale_grad)).sqrt()
    lars = eta * w / (g + wds * w + eps)
    valid = (weights_sum_sq > 0) & (grads_sum_sq > 0)
    return torch.where(valid, lars, torch.ones_like(lars)) * lrs


@shape_rule("multi_lars")
def _multi_lars_shape(attrs, shapes):
    return [tuple(shapes[0])]


def _finite(arrays):
    ok = torch.ones((), dtype=torch.bool, device=arrays[0].device if arrays else None)
    for a in arrays:
        ok = ok & torch.isfinite(a).all()
    return ok.to(torch.float32).reshape(1)


@register("all_finite", params=dict(init_output=Bool(True)), differentiable=False,
          infer_type=lambda attrs, dtypes: ["float32"])
@torch.no_grad()
def all_finite(data, *, init_output):
    """MXNet's ``all_finite`` (AMP's overflow check): ``[1.]`` when every element is finite,
    else ``[0.]``, as float32. (``init_output=False`` leaves MXNet's output as it was when
    all are finite, which for a fresh output is 1 too.)"""
    return _finite([data])


@register("multi_all_finite", inputs=lambda a: tuple("array_%d" % i for i in range(a["num_arrays"])),
          variadic="num_arrays", params=dict(num_arrays=Int(1), init_output=Bool(True)), differentiable=False,
          infer_type=lambda attrs, dtypes: ["float32"])
@torch.no_grad()
def multi_all_finite(*arrays, num_arrays, init_output):
    """``all_finite`` over all the arrays: ``[1.]`` when every element of each is finite."""
    return _finite(arrays)


@shape_rule("all_finite")
def _all_finite_shape(attrs, shapes):
    return [(1,)]


shape_rule("multi_all_finite")(_all_finite_shape)


@register("reset_arrays", inputs=lambda a: tuple("array_%d" % i for i in range(a["num_arrays"])),
          variadic="num_arrays", params=dict(num_arrays=Int()), num_outputs=0, differentiable=False)
@torch.no_grad()
def reset_arrays(*arrays, num_arrays):
    """MXNet's ``reset_arrays`` (what ``Parameter.zero_grad`` calls): sets every array to zero
    in place; it has no outputs."""
    for a in arrays:
        a.zero_()
    return []
