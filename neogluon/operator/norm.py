"""Normalisation, activation-like layers and softmax: BatchNorm, LayerNorm, Dropout, LeakyReLU, softmax, ...

Every layer with learnable inputs or auxiliary states declares ``infer_args`` (gamma,
beta and the moving statistics take their shape from the data), which deferred
initialisation and ``Symbol.infer_shape`` rely on. Train/predict differences (batch vs
moving statistics, random masks) are decided by ``is_train``.
"""
import torch
import torch.nn.functional as F

from ..base import MXNetError, torch_dtype
from .elemwise import constant_like
from .registry import Bool, Dtype, Float, Int, Shape, Str, lowering, register


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


def _batch_norm_channels_first(x, gamma, beta, moving_mean, moving_var, *, eps, momentum, batch_stats):
    """Normalise ``x`` (channels on axis 1); returns the output, the mean and the inverse std."""
    compute = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc, g, b = x.to(compute), gamma.to(compute), beta.to(compute)
    if batch_stats:
        out, mean, invstd = torch.native_batch_norm(xc, g, b, None, None, True, 0.0, eps)
        _update_in_backward(out, moving_mean, moving_var, mean.detach(), invstd.detach(), momentum, eps)
    else:
        mm, mv = moving_mean.to(compute), moving_var.to(compute)
        out = F.batch_norm(xc, mm, mv, g, b, False, 0.0, eps)
        mean, invstd = mm, torch.rsqrt(mv + eps)
    return out.to(x.dtype), mean, invstd


def _batch_norm(op, data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma,
                use_global_stats, output_mean_var, axis, is_train, invstd_output=True):
    if data.dim() < 2:
        raise MXNetError("Operator %s: data must have at least 2 dimensions, got shape %s" % (op, _shape(data)))
    ax = _norm_axis(op, axis, data.dim())
    _check_param_shapes(op, data, (data.shape[ax],), gamma=gamma, beta=beta,
                        moving_mean=moving_mean, moving_var=moving_var)
    g = constant_like(gamma, 1) if fix_gamma else gamma
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


@register("BatchNorm", **_BATCH_NORM)
def batch_norm(data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma, use_global_stats,
               output_mean_var, axis, cudnn_off, min_calib_range, max_calib_range, is_train):
    """MXNet's BatchNorm along ``axis``: batch statistics in train mode (the moving averages
    are updated in place when backward passes through), moving statistics in predict mode or
    with ``use_global_stats``.
    ``fix_gamma`` uses gamma = 1 with a zero gradient. The optional ``mean``/``var`` outputs
    are the statistics used, the second as MXNet's inverse standard deviation."""
    return _batch_norm("BatchNorm", data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum,
                       fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                       output_mean_var=output_mean_var, axis=axis, is_train=is_train)


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


# ----------------------------------------------------------------------------- LeakyReLU
def _prelu(data, gamma):
    if gamma.numel() not in (1, data.shape[1] if data.dim() > 1 else 1):
        raise MXNetError("Operator LeakyReLU: gamma has shape %s, expected (%d,) or (1,) for data shape %s"
                         % (_shape(gamma), data.shape[1], _shape(data)))
    return F.prelu(data, gamma.reshape(-1))


_SELU_ALPHA, _SELU_LAMBDA = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


class _SeluFn(torch.autograd.Function):
    """SELU with MXNet 1.9.1's gradient, computed from the output ``y`` as
    ``lambda * (y + alpha)`` for ``y <= 0`` (the exact one is ``y + lambda * alpha``)."""

    @staticmethod
    def forward(ctx, x):  # pylint: disable=arguments-differ
        y = F.selu(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        y, = ctx.saved_tensors
        return g * torch.where(y > 0, torch.full_like(y, _SELU_LAMBDA), _SELU_LAMBDA * (y + _SELU_ALPHA))


_LEAKY = {
    "leaky": F.leaky_relu,
    "elu": F.elu,
    "selu": lambda x, slope: _SeluFn.apply(x),
    "gelu": lambda x, slope: F.gelu(x),
}


def _rrelu(data, lower, upper, is_train):
    """Randomised leaky ReLU: negative inputs scaled by a slope drawn from U(lower, upper)
    per element in train mode, by ``(lower + upper) / 2`` in predict mode. Returns the
    output and the slopes (MXNet's visible ``mask`` output)."""
    if is_train:
        slope = torch.empty_like(data).uniform_(lower, upper)
    else:
        slope = torch.full_like(data, (lower + upper) / 2)
    return torch.where(data > 0, data, data * slope), slope


def _leaky_infer_args(attrs, shapes):
    if attrs["act_type"] != "prelu" or shapes[0] is None or len(shapes[0]) < 2:
        return shapes
    return _fill_params(shapes, (shapes[0][1],))


@register("LeakyReLU", inputs=lambda a: ("data", "gamma") if a["act_type"] == "prelu" else ("data",),
          signature=("data", "gamma"),
          params=dict(act_type=Str("leaky", choices=("elu", "gelu", "leaky", "prelu", "rrelu", "selu")),
                      slope=Float(0.25), lower_bound=Float(0.125), upper_bound=Float(0.334)),
          num_outputs=lambda a: 2 if a["act_type"] == "rrelu" else 1,
          output_names=lambda a: ["output", "mask"] if a["act_type"] == "rrelu" else ["output"],
          infer_args=_leaky_infer_args, mode_dependent=True)
def leaky_relu(data, gamma=None, *, act_type, slope, lower_bound, upper_bound, is_train):
    """MXNet's LeakyReLU family: ``leaky`` (slope for x < 0), ``elu`` (slope * (exp(x) - 1)),
    ``selu``, ``gelu`` (erf form), ``prelu`` (learned per-channel slope ``gamma``) and
    ``rrelu`` (slope drawn from U(lower_bound, upper_bound) in train mode, their mean in
    predict mode; a second output, ``mask``, holds the slopes)."""
    if act_type == "prelu":
        return _prelu(data, gamma)
    if act_type == "rrelu":
        return _rrelu(data, lower_bound, upper_bound, is_train)
    return _LEAKY[act_type](data, slope)


# ----------------------------------------------------------------------------- softmax family
_SOFTMAX_PARAMS = dict(axis=Int(-1), temperature=Float(None),
                       dtype=Dtype(None, choices=("float16", "float32", "float64")), use_length=Bool(False))


def _length_mask(data, length, axis):
    """True where the position along ``axis`` is below the row's length."""
    if length.is_floating_point():
        raise MXNetError("Operator softmax: length must have an integer type, got %s"
                         % str(length.dtype).replace("torch.", ""))
    if _shape(length) != _shape(data)[:axis] + _shape(data)[axis + 1:]:
        raise MXNetError("Operator softmax: length has shape %s, expected %s for data shape %s and axis=%d"
                         % (_shape(length), _shape(data)[:axis] + _shape(data)[axis + 1:], _shape(data), axis))
    pos = torch.arange(data.shape[axis], device=data.device).reshape((-1,) + (1,) * (data.dim() - axis - 1))
    return pos < length.long().unsqueeze(axis)


def _softmax(op, data, length, *, axis, temperature, dtype, use_length, log=False, negate=False):
    ax = _norm_axis(op, axis, data.dim())
    x = data.to(torch_dtype(dtype)) if dtype is not None else data
    if temperature is not None and temperature != 1.0:
        x = x / temperature
    if negate:
        x = -x
    if not use_length:
        return F.log_softmax(x, ax) if log else F.softmax(x, ax)
    mask = _length_mask(data, length, ax)
    out = F.softmax(x.masked_fill(~mask, torch.finfo(x.dtype).min), ax)
    return out.masked_fill(~mask, 0)


def _no_length(op, use_length):
    if use_length:
        raise MXNetError("Operator %s: use_length=True needs a length input, which only softmax takes" % op)


def _softmax_infer_args(attrs, shapes):
    data = shapes[0]
    if not attrs["use_length"] or data is None or shapes[1] is not None:
        return shapes
    ax = attrs["axis"] % len(data)
    return [data, tuple(data[:ax]) + tuple(data[ax + 1:])]


@register("softmax", inputs=lambda a: ("data", "length") if a["use_length"] else ("data",),
          signature=("data", "length"), params=dict(_SOFTMAX_PARAMS), infer_args=_softmax_infer_args)
def softmax(data, length=None, *, axis, temperature, dtype, use_length):
    """``exp(x / T) / sum(exp(x / T))`` along ``axis``, computed and returned in ``dtype``
    when given; with ``use_length`` positions at or beyond ``length`` are 0."""
    return _softmax("softmax", data, length, axis=axis, temperature=temperature, dtype=dtype,
                    use_length=use_length)


@register("log_softmax", params=dict(_SOFTMAX_PARAMS))
def log_softmax(data, *, axis, temperature, dtype, use_length):
    """``log(softmax(x / T))`` along ``axis``, in ``dtype`` when given."""
    _no_length("log_softmax", use_length)
    return _softmax("log_softmax", data, None, axis=axis, temperature=temperature, dtype=dtype,
                    use_length=False, log=True)


@register("softmin", params=dict(_SOFTMAX_PARAMS))
def softmin(data, *, axis, temperature, dtype, use_length):
    """``softmax(-x / T)`` along ``axis``, in ``dtype`` when given."""
    _no_length("softmin", use_length)
    return _softmax("softmin", data, None, axis=axis, temperature=temperature, dtype=dtype,
                    use_length=False, negate=True)


class _InstanceSoftmaxFn(torch.autograd.Function):
    """Softmax over the last axis whose gradient, as in MXNet 1.9.1, is the softmax
    gradient along axis 1 (the two agree for 2-d data)."""

    @staticmethod
    def forward(ctx, x):  # pylint: disable=arguments-differ
        y = F.softmax(x, -1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        y, = ctx.saved_tensors
        return y * (g - (g * y).sum(1, keepdim=True))


@register("SoftmaxActivation", params=dict(mode=Str("instance", choices=("channel", "instance"))))
def softmax_activation(data, *, mode):
    """MXNet's SoftmaxActivation: ``instance`` applies softmax over the last axis (MXNet
    flattens the data to 2-d keeping the last axis; its gradient for data of more than 2
    dimensions is taken along axis 1, reproduced here), ``channel`` over axis 1 (data of
    3 or more dimensions)."""
    if mode == "channel":
        if data.dim() < 3:
            raise MXNetError("Operator SoftmaxActivation: mode='channel' needs data of at least 3 dimensions, "
                             "got shape %s" % (_shape(data),))
        return F.softmax(data, 1)
    if data.dim() > 2:
        return _InstanceSoftmaxFn.apply(data)
    return F.softmax(data, -1)


# ----------------------------------------------------------------------------- Dropout
def _dropout_mask_shape(data, axes):
    axes = {a % data.dim() for a in axes}
    return [1 if i in axes else s for i, s in enumerate(data.shape)]


@register("Dropout", params=dict(p=Float(0.5), mode=Str("training", choices=("always", "training")),
                                 axes=Shape(()), cudnn_off=Bool(False)),
          num_outputs=2, num_visible_outputs=1, mode_dependent=True, output_names=lambda a: ("output",))
def dropout(data, *, p, mode, axes, cudnn_off, is_train):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``, in
    train mode or always with ``mode='always'``; identity otherwise. Along ``axes`` the
    mask is shared (broadcast), as for variational dropout."""
    if not 0 <= p <= 1:
        raise MXNetError("Operator Dropout: p must be in [0, 1], got %s" % p)
    if p == 0 or not (is_train or mode == "always"):
        return data.clone()
    if not axes:
        return F.dropout(data, p, training=True)
    keep = torch.empty(_dropout_mask_shape(data, axes), dtype=data.dtype, device=data.device)
    return data * keep.bernoulli_(1 - p).div_(1 - p)


@lowering("BatchNorm")
def _lower_batch_norm(*, eps, fix_gamma, use_global_stats, output_mean_var, axis, is_train, **_):
    """Inference-mode BatchNorm on channel axis 1 as one fused torch call (moving statistics,
    learned gamma); training and the other variants keep the full implementation."""
    if (is_train and not use_global_stats) or fix_gamma or output_mean_var or axis != 1:
        return None

    def run(data, gamma, beta, moving_mean, moving_var):
        return F.batch_norm(data, moving_mean, moving_var, gamma, beta, False, 0.0, eps)
    return run


@lowering("Dropout")
def _lower_dropout(*, p, mode, is_train, **_):
    """Dropout where it is the identity (predict mode, or p = 0): the input itself."""
    if p == 0 or not (is_train or mode == "always"):
        return lambda data: data
    return None
