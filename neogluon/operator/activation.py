"""Activation layers with attributes: LeakyReLU (leaky, prelu, rrelu, elu, selu, gelu) and the
softmax family (softmax with lengths, log_softmax, softmin, SoftmaxActivation).

PReLU's gamma takes its shape from the data's channel axis (``infer_args``); rrelu's random
slopes depend on ``is_train``.
"""
import torch
import torch.nn.functional as F

from ..base import MXNetError, torch_dtype
from .nn import output_gradient_function
from .norm import _fill_params, _norm_axis, _shape
from .registry import Bool, Dtype, Float, Int, Str, register, same_shape, shape_rule


# ----------------------------------------------------------------------------- LeakyReLU
def _prelu(data, gamma):
    if gamma.numel() not in (1, data.shape[1] if data.dim() > 1 else 1):
        raise MXNetError("Operator LeakyReLU: gamma has shape %s, expected (%d,) or (1,) for data shape %s"
                         % (_shape(gamma), data.shape[1], _shape(data)))
    return F.prelu(data, gamma.reshape(-1))


_SELU_ALPHA, _SELU_LAMBDA = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


_SeluFn = output_gradient_function(
    "_SeluFn", F.selu,
    lambda y: torch.where(y > 0, torch.full_like(y, _SELU_LAMBDA), _SELU_LAMBDA * (y + _SELU_ALPHA)),
    "SELU with MXNet 1.9.1's gradient, computed from the output ``y`` as ``lambda * (y + alpha)`` for ``y <= 0`` "
    "(the exact one is ``y + lambda * alpha``).")


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

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
for _name in ("LeakyReLU", "softmax", "log_softmax", "softmin"):
    shape_rule(_name)(same_shape)
