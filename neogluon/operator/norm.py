"""Normalisation layers: BatchNorm, LayerNorm, GroupNorm, InstanceNorm.

Every layer with learnable inputs or auxiliary states declares ``infer_args`` (gamma,
beta and the moving statistics take their shape from the data), which deferred
initialisation and ``Symbol.infer_shape`` rely on. Train/predict differences (batch vs
moving statistics) are decided by ``is_train``. LeakyReLU and the softmax family live in
``activation.py``, Dropout in ``dropout.py``.
"""
import functools

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .elemwise import constant_like
from .registry import Bool, Float, Int, Str, check_rule, implementation, register, same_shape, shape_rule


def _shape(t):
    return tuple(t.shape)


def _norm_axis(op, axis, ndim):
    if not -ndim <= axis < ndim:
        raise MXNetError("Operator %s: axis %d is out of range for data with %d dimensions" % (op, axis, ndim))
    return axis % ndim


def _check_param_shapes(op, data, expected, **params):
    """MXNetError unless every named parameter tensor has shape ``expected``."""
    for name, t in params.items():
        if t is not None and _shape(t) != expected:
            raise MXNetError("Operator %s: %s has shape %s, expected %s from data shape %s"
                             % (op, name, _shape(t), expected, _shape(data)))


def _fill_params(shapes, shape):
    """Fill the unknown shapes of every input after ``data`` with ``shape``."""
    return [shapes[0]] + [shape if s is None else s for s in shapes[1:]]


def _infer_from_axis(attr=None, fixed=1):
    """infer_args giving the parameters the length of the data's ``attrs[attr]`` (or ``fixed``) axis."""
    def infer(attrs, shapes):
        data = shapes[0]
        if data is None:
            return shapes
        axis = attrs[attr] if attr else fixed
        if not -len(data) <= axis < len(data):
            return shapes
        return _fill_params(shapes, (data[axis],))
    return infer


class _StatisticFn(torch.autograd.Function):
    """A statistic output (mean, var, std) that MXNet's backward ignores: it stays in the
    graph, so that a head gradient may be given for it, and passes no gradient back."""

    @staticmethod
    def forward(ctx, stat, data):  # pylint: disable=arguments-differ
        return stat.clone()

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return None, None


def _statistics(data, *stats):
    if not data.requires_grad:
        return tuple(s.detach().clone() for s in stats)
    return tuple(_StatisticFn.apply(s.detach(), data) for s in stats)


def _mean_var_names(third):
    def names(attrs):
        return ["output", "mean", third] if attrs["output_mean_var"] else ["output"]
    return names


def _visible(attrs):
    return 3 if attrs["output_mean_var"] else 1


# ----------------------------------------------------------------------------- BatchNorm
def _update_moving(moving_mean, moving_var, mean, invstd, momentum, eps):
    """MXNet's running averages: ``moving = moving * momentum + batch * (1 - momentum)``,
    with the biased batch variance recovered from the inverse std as MXNet does."""
    with torch.no_grad():
        var = invstd.pow(-2) - eps
        moving_mean.mul_(momentum).add_(mean.to(moving_mean.dtype), alpha=1 - momentum)
        moving_var.mul_(momentum).add_(var.to(moving_var.dtype), alpha=1 - momentum)


def _update_in_backward(out, moving_mean, moving_var, mean, invstd, momentum, eps):
    """Update the moving averages when backward reaches ``out``, as MXNet's BatchNorm does
    in its backward pass: a train-mode forward that is not recorded, or whose graph is
    never differentiated, leaves them unchanged."""
    if not out.requires_grad:
        return

    def update(grad):
        _update_moving(moving_mean, moving_var, mean, invstd, momentum, eps)
        return grad
    out.register_hook(update)


# set by export_torch while it captures a training pass: the moving averages are updated in
# the forward (as torch's BatchNorm does), so that the exported module's buffers follow MXNet's
# momentum; neogluon itself updates them when backward reaches the output, as MXNet does
UPDATE_IN_FORWARD = [False]


def _batch_norm_channels_first(x, gamma, beta, moving_mean, moving_var, *, eps, momentum, batch_stats):
    """Normalise ``x`` (channels on axis 1); returns the output, the mean and the inverse std."""
    compute = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc, g, b = x.to(compute), gamma.to(compute), beta.to(compute)
    if batch_stats:
        out, mean, invstd = torch.native_batch_norm(xc, g, b, None, None, True, 0.0, eps)
        if UPDATE_IN_FORWARD[0]:  # captured by export_torch: the module updates its buffers as it runs
            var = invstd.detach().pow(-2) - eps
            moving_mean.mul_(momentum).add_(mean.detach().to(moving_mean.dtype), alpha=1 - momentum)
            moving_var.mul_(momentum).add_(var.to(moving_var.dtype), alpha=1 - momentum)
        else:
            _update_in_backward(out, moving_mean, moving_var, mean.detach(), invstd.detach(), momentum, eps)
    else:
        mm, mv = moving_mean.to(compute), moving_var.to(compute)
        out = F.batch_norm(xc, mm, mv, g, b, False, 0.0, eps)
        mean, invstd = mm, torch.rsqrt(mv + eps)
    return out.to(x.dtype), mean, invstd


def _batch_norm_axis(op, data, gamma, beta, moving_mean, moving_var, axis):
    """The channel axis, once MXNet's checks of the inputs' shapes passed (shapes only)."""
    if data.dim() < 2:
        raise MXNetError("Operator %s: data must have at least 2 dimensions, got shape %s" % (op, _shape(data)))
    ax = _norm_axis(op, axis, data.dim())
    _check_param_shapes(op, data, (data.shape[ax],), gamma=gamma, beta=beta,
                        moving_mean=moving_mean, moving_var=moving_var)
    return ax


def _batch_norm(op, data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma,
                use_global_stats, output_mean_var, axis, is_train, invstd_output=True):
    ax = _batch_norm_axis(op, data, gamma, beta, moving_mean, moving_var, axis)
    g = constant_like(gamma, 1) if fix_gamma else gamma
    if fix_gamma and is_train and not use_global_stats:
        # MXNet's training forward (cuDNN's and MKL-DNN's kernels) writes the fixed gamma = 1 into the
        # gamma array itself, so a trained model's gamma reads 1 whatever weight decay did to it
        with torch.no_grad():
            gamma.fill_(1)
    x = data.movedim(ax, 1)
    out, mean, invstd = _batch_norm_channels_first(
        x, g, beta, moving_mean, moving_var, eps=eps, momentum=momentum,
        batch_stats=is_train and not use_global_stats)
    out = out.movedim(1, ax)
    if not output_mean_var:
        return out
    return (out,) + _statistics(data, mean, invstd if invstd_output else invstd.pow(-2) - eps)


_BN_COMMON = dict(eps=Float(1e-3), momentum=Float(0.9), fix_gamma=Bool(True), use_global_stats=Bool(False),
                  output_mean_var=Bool(False))


# BatchNorm's schema, which MXNet's fused BatchNormWithReLU shares
_BATCH_NORM = dict(inputs=("data", "gamma", "beta"), aux=("moving_mean", "moving_var"),
                   params=dict(_BN_COMMON, axis=Int(1), cudnn_off=Bool(False), min_calib_range=Float(None),
                               max_calib_range=Float(None)),
                   num_outputs=3, num_visible_outputs=_visible, output_names=_mean_var_names("var"),
                   infer_args=_infer_from_axis("axis"), mode_dependent=True)


@implementation("BatchNorm", **_BATCH_NORM)
def batch_norm(*, eps, momentum, fix_gamma, use_global_stats, output_mean_var, axis, is_train, **_):
    """MXNet's BatchNorm along ``axis``: batch statistics in train mode (the moving averages
    are updated in place when backward passes through), moving statistics in predict mode or
    with ``use_global_stats``.
    ``fix_gamma`` uses gamma = 1 with a zero gradient. The optional ``mean``/``var`` outputs
    are the statistics used, the second as MXNet's inverse standard deviation. Inference on
    channel axis 1 with a learned gamma is one fused torch call."""
    if (is_train and not use_global_stats) or fix_gamma or output_mean_var or axis != 1:
        return functools.partial(_batch_norm, "BatchNorm", eps=eps, momentum=momentum, fix_gamma=fix_gamma,
                                 use_global_stats=use_global_stats, output_mean_var=output_mean_var, axis=axis,
                                 is_train=is_train)

    def run(data, gamma, beta, moving_mean, moving_var):
        return F.batch_norm(data, moving_mean, moving_var, gamma, beta, False, 0.0, eps)
    return run


@check_rule("BatchNorm")
def _check_batch_norm(attrs, tensors):
    _batch_norm_axis("BatchNorm", *tensors[:5], attrs["axis"])


@register("_contrib_BatchNormWithReLU", **dict(_BATCH_NORM, num_outputs=4))  # + MXNet's hidden ReLU mask
def batch_norm_with_relu(data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma,
                         use_global_stats, output_mean_var, axis, cudnn_off, min_calib_range, max_calib_range,
                         is_train):
    """MXNet's fused ``BatchNormWithReLU`` (Gluon's ``BatchNormReLU``): ``relu(BatchNorm(...))``,
    with BatchNorm's mean/var outputs and moving-average updates."""
    res = _batch_norm("_contrib_BatchNormWithReLU", data, gamma, beta, moving_mean, moving_var, eps=eps,
                      momentum=momentum, fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                      output_mean_var=output_mean_var, axis=axis, is_train=is_train)
    if not output_mean_var:
        return torch.relu(res)
    return (torch.relu(res[0]),) + tuple(res[1:])


@register("_contrib_SyncBatchNorm", inputs=("data", "gamma", "beta"), aux=("moving_mean", "moving_var"),
          params=dict(_BN_COMMON, ndev=Int(1), key=Str()),
          num_outputs=3, num_visible_outputs=_visible, output_names=_mean_var_names("var"),
          infer_args=_infer_from_axis(), mode_dependent=True)
def sync_batch_norm(data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma, use_global_stats,
                    output_mean_var, ndev, key, is_train):
    """Cross-device BatchNorm (channels on axis 1); on one device it is BatchNorm, except
    that the optional ``var`` output is the variance (not its inverse square root)."""
    return _batch_norm("_contrib_SyncBatchNorm", data, gamma, beta, moving_mean, moving_var, eps=eps,
                       momentum=momentum, fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                       output_mean_var=output_mean_var, axis=1, is_train=is_train, invstd_output=False)


# ----------------------------------------------------------------------------- LayerNorm, GroupNorm, InstanceNorm
def _normalize_last(x, eps):
    """Normalise over the last axis; returns the normalised tensor, the mean and the std (kept dims)."""
    out, mean, rstd = torch.native_layer_norm(x, (x.shape[-1],), None, None, eps)
    return out, mean, rstd.reciprocal()


@register("LayerNorm", inputs=("data", "gamma", "beta"),
          params=dict(axis=Int(-1), eps=Float(1e-5), output_mean_var=Bool(False)),
          num_outputs=3, num_visible_outputs=_visible, output_names=_mean_var_names("std"),
          infer_args=_infer_from_axis("axis"))
def layer_norm(data, gamma, beta, *, axis, eps, output_mean_var):
    """Normalise over ``axis`` and scale/shift by gamma/beta of that axis' length; the
    optional outputs are the mean and the std (``sqrt(var + eps)``), the axis kept as 1."""
    ax = _norm_axis("LayerNorm", axis, data.dim())
    _check_param_shapes("LayerNorm", data, (data.shape[ax],), gamma=gamma, beta=beta)
    x = data.movedim(ax, -1)
    if not output_mean_var:
        return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps).movedim(-1, ax)
    out, mean, std = _normalize_last(x, eps)
    out = (out * gamma + beta).movedim(-1, ax)
    return (out,) + _statistics(data, mean.movedim(-1, ax), std.movedim(-1, ax))


@register("GroupNorm", inputs=("data", "gamma", "beta"),
          params=dict(num_groups=Int(1), eps=Float(1e-5), output_mean_var=Bool(False)),
          num_outputs=3, num_visible_outputs=_visible, output_names=_mean_var_names("std"),
          infer_args=lambda attrs, shapes: (shapes if shapes[0] is None
                                            else _fill_params(shapes, (attrs["num_groups"],))))
def group_norm(data, gamma, beta, *, num_groups, eps, output_mean_var):
    """MXNet 1.9.1's GroupNorm: channels (axis 1) split into ``num_groups`` groups, each
    normalised over its channels and spatial positions; gamma and beta have one value per
    *group* (shape ``(num_groups,)``). Optional outputs: mean and std of shape (N, groups)."""
    if data.dim() < 2 or data.shape[1] % num_groups:
        raise MXNetError("Operator GroupNorm: the channels of data %s must be divisible by num_groups=%d"
                         % (_shape(data), num_groups))
    _check_param_shapes("GroupNorm", data, (num_groups,), gamma=gamma, beta=beta)
    x = data.reshape(data.shape[0], num_groups, -1)
    out, mean, std = _normalize_last(x, eps)
    out = (out * gamma[:, None] + beta[:, None]).reshape(data.shape)
    return (out,) + _statistics(data, mean[..., 0], std[..., 0]) if output_mean_var else out


@register("InstanceNorm", inputs=("data", "gamma", "beta"), params=dict(eps=Float(1e-3)),
          num_outputs=3, num_visible_outputs=1, infer_args=_infer_from_axis(),
          output_names=lambda a: ("output",))
def instance_norm(data, gamma, beta, *, eps):
    """Normalise each (sample, channel) over its spatial positions, then scale/shift per channel."""
    if data.dim() < 3:
        raise MXNetError("Operator InstanceNorm: data must have at least 3 dimensions, got shape %s"
                         % (_shape(data),))
    _check_param_shapes("InstanceNorm", data, (data.shape[1],), gamma=gamma, beta=beta)
    return F.instance_norm(data, weight=gamma, bias=beta, eps=eps)


# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
for _name in ("BatchNorm", "_contrib_BatchNormWithReLU", "LayerNorm", "InstanceNorm", "GroupNorm"):
    shape_rule(_name)(same_shape)
