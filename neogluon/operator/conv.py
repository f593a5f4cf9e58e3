"""Convolution, deconvolution, pooling, up-sampling and resizing operators.

Everything runs on torch's fused kernels (``conv*d``, ``conv_transpose*d``,
``max/avg_pool*d``, ``interpolate``); this module adds MXNet's parameter schema, its
layouts (channel-last data is permuted to channel-first and back), its output-size
rules where they differ from torch's (Pooling's ``'full'`` convention, Deconvolution's
``target_shape``), its checks and error messages, and ``infer_args`` for the learnable
inputs (weight and bias shapes from the data's).
"""
import functools

import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError
from . import conv_choice, winograd
from .registry import (Bool, Float, Int, Shape, Str, check_rule, compiling, implementation, register, require,
                       same_shape, shape_rule)
from .shape import SYMBOLIC_SIZES as EXPORT_CAPTURE  # the flag: set while export_torch captures

_CONV_LAYOUTS = ("NCDHW", "NCHW", "NCW", "NDHWC", "NHWC")
_POOL_LAYOUTS = _CONV_LAYOUTS + ("NWC",)
_CUDNN_TUNE = ("fastest", "limited_workspace", "off")
_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_DECONV = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}
_MAX_POOL = {2: F.max_pool2d, 3: F.max_pool3d}
_AVG_POOL = {2: F.avg_pool2d, 3: F.avg_pool3d}


# ----------------------------------------------------------------------------- shared helpers
def _shape(t):
    return tuple(t.shape)


def _geometry(op, kernel, stride, dilate, pad, what="kernel"):
    """Kernel, stride, dilate and pad as full tuples, checked as MXNet checks them."""
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise MXNetError("%s: %dD %s is not supported: kernel=%s must have 1, 2 or 3 dimensions"
                         % (op, nd, what, kernel))
    if any(k <= 0 for k in kernel):
        raise MXNetError("%s: kernel=%s must be positive" % (op, kernel))
    stride = _per_dim(op, "stride", stride, kernel, 1, minimum=1)
    dilate = _per_dim(op, "dilate", dilate, kernel, 1, minimum=1)
    pad = _per_dim(op, "pad", pad, kernel, 0, minimum=0)
    return stride, dilate, pad


def _per_dim(op, name, value, kernel, default, minimum):
    """A per-dimension attribute: empty means ``default`` everywhere; else one per kernel dim."""
    if not value:
        return (default,) * len(kernel)
    if len(value) != len(kernel):
        raise MXNetError("%s: %s must have the same number of dimensions as kernel, but kernel is %s "
                         "while %s is %s" % (op, name, kernel, name, value))
    if any(v < minimum for v in value):
        raise MXNetError("%s: %s=%s must be %s" % (op, name, value, "positive" if minimum else "non-negative"))
    return tuple(value)


def _channel_last(layout):
    return layout is not None and layout.endswith("C")


def _to_channel_first(t):
    return t.permute(0, t.dim() - 1, *range(1, t.dim() - 1))


def _to_channel_last(t):
    return t.permute(0, *range(2, t.dim()), 1).contiguous()


def _channel_first_data(op, data, nd, layout):
    """Check that data is (N, C, *spatial) with ``nd`` spatial dims in ``layout``; NC... view."""
    if data.dim() != nd + 2:
        names = {1: "(batch, channel, width)", 2: "(batch, channel, height, width)",
                 3: "(batch, channel, depth, height, width)"}
        raise MXNetError("%s: data should be %dD %s for a %d-d kernel, got shape %s"
                         % (op, nd + 2, names.get(nd, ""), nd, _shape(data)))
    if layout is not None and len(layout) != data.dim():
        raise MXNetError("%s: layout %s does not fit %dD data of shape %s" % (op, layout, data.dim(), _shape(data)))
    return _to_channel_first(data) if _channel_last(layout) else data


def _weight_shape(lead, second, kernel, layout):
    """A weight's shape in ``layout``: (lead, second, *kernel), or (lead, *kernel, second)."""
    if _channel_last(layout):
        return (lead,) + tuple(kernel) + (second,)
    return (lead, second) + tuple(kernel)


def _check_input(op, name, tensor, expected, data):
    if _shape(tensor) != tuple(expected):
        raise MXNetError("%s: Shape inconsistent, provided %s=%s, inferred shape=%s from data %s"
                         % (op, name, _shape(tensor), tuple(expected), _shape(data)))


def _check_groups(op, data, channels, num_filter, num_group):
    if num_group < 1 or num_filter < 1:
        raise MXNetError("%s: num_filter=%d and num_group=%d must be positive" % (op, num_filter, num_group))
    if channels % num_group or num_filter % num_group:
        raise MXNetError("%s: num_group=%d must divide both the input channels (data %s) and num_filter=%d"
                         % (op, num_group, _shape(data), num_filter))


def _check_window(op, data, spatial, kernel, dilate, pad):
    for size, k, d, p in zip(spatial, kernel, dilate, pad):
        if d * (k - 1) + 1 > size + 2 * p:
            raise MXNetError("%s: kernel size exceeds input: kernel=%s, dilate=%s, pad=%s, data %s"
                             % (op, kernel, dilate, pad, _shape(data)))


def _conv_infer_args(attrs, shapes, weight_of):
    """Fill weight and bias shapes from the data's (MXNet's backward shape inference)."""
    data = shapes[0]
    layout = attrs["layout"]
    if data is None or len(data) < 3:
        return shapes
    channels = data[-1] if _channel_last(layout) else data[1]
    if channels <= 0:
        return shapes
    shapes = list(shapes)
    if shapes[1] is None:
        shapes[1] = weight_of(attrs, channels)
    if not attrs["no_bias"] and len(shapes) > 2 and shapes[2] is None:
        shapes[2] = (attrs["num_filter"],)
    return shapes


def _with_bias(attrs):
    return ("data", "weight") if attrs["no_bias"] else ("data", "weight", "bias")


# ----------------------------------------------------------------------------- Convolution
def _conv_weight(attrs, channels):
    g = max(attrs["num_group"], 1)
    return _weight_shape(attrs["num_filter"], channels // g, attrs["kernel"], attrs["layout"])


_CONV_PARAMS = dict(
    kernel=Shape(), stride=Shape(()), dilate=Shape(()), pad=Shape(()), num_filter=Int(),
    num_group=Int(1), workspace=Int(1024), no_bias=Bool(False),
    cudnn_tune=Str(None, choices=_CUDNN_TUNE), cudnn_off=Bool(False), layout=Str(None, choices=_CONV_LAYOUTS))


@implementation("Convolution", inputs=_with_bias, signature=("data", "weight", "bias"), params=_CONV_PARAMS,
                infer_args=lambda attrs, shapes: _conv_infer_args(attrs, shapes, _conv_weight),
                aliases=["_npx_convolution"])
def convolution(*, kernel, stride, dilate, pad, num_filter, num_group, layout, **_):
    """MXNet's Convolution: 1/2/3-d, strided, dilated, padded, grouped, NC* or N*C layouts.

    The weight is (num_filter, C/num_group, *kernel), or (num_filter, *kernel, C/num_group)
    for a channel-last layout; cudnn_* and workspace are accepted and ignored. The
    geometry is resolved once; the check rule words the errors."""
    stride, dilate, pad = _geometry("Convolution", kernel, stride, dilate, pad, "convolution")
    nd, last = len(kernel), _channel_last(layout)
    # a plain 2-d convolution runs the faster kernel for its shapes, recorded or not (conv_choice);
    # compiled for prediction, a tiny one runs as im2col (below)
    small = nd == 2 and num_group == 1 and dilate == (1, 1)
    conv = conv_choice.conv2d if small else _CONV[nd]
    wshape = (num_filter,) + tuple(kernel)
    fits = layout is None or len(layout) == nd + 2

    def run(data, weight, bias=None):
        if last:
            data, weight = _to_channel_first(data), _to_channel_first(weight)
        # what torch would not catch itself (it takes unbatched data and the weight's own
        # kernel size, and knows no layout): the check rule words the mismatch
        if not fits or data.dim() != nd + 2 or (weight.size(0),) + weight.shape[2:] != wshape:
            raise MXNetError("Convolution: data %s or weight %s does not fit kernel=%s, num_filter=%d"
                             % (_shape(data), _shape(weight), kernel, num_filter))
        if small and not torch.is_grad_enabled():
            y = _predict_conv2d(data, weight, bias, stride, pad)
        elif small and compiling() and not EXPORT_CAPTURE[0] and _im2col_pays(data, weight):
            # compiled for training, a tiny one keeps torch's im2col + GEMM kernel (conv_choice.py):
            # traced as conv2d it would run oneDNN's, whose fixed cost per call (forward and
            # backward) was most of LeNet's compiled step at batch 1 (not while export_torch
            # captures: the size test would fix the batch dimension)
            y = conv_choice.gemm(data, weight, bias, stride, pad)
        else:
            y = conv(data, weight, bias, stride, pad, dilate, num_group)
        return _to_channel_last(y) if last else y
    return run


# A compiled prediction graph (executor/inductor.py, traced with gradients off) runs a tiny
# 2-d convolution as im2col + matrix product, which inductor compiles into one copy loop and
# its own C++ GEMM (max_autotune): a oneDNN convolution costs about 50 us a call whatever its
# size (primitive set-up), which is most of LeNet's time at batch 1 (the tutorial LeNet's
# package, one thread: 124 us -> 53 us with both). Up to this many multiply-adds: at batch 16
# (2.5M for LeNet's second convolution) oneDNN's convolution is faster again.
IM2COL_MACS = 1 << 19


def _im2col_pays(data, weight):
    return conv_choice.macs(data, weight) <= IM2COL_MACS


def _predict_conv2d(data, weight, bias, stride, pad):
    """A plain 2-d convolution without gradients: traced for compiled prediction, a tiny one
    as im2col and, in a frozen graph, one that measured faster so as Winograd's
    (operator/winograd.py); run eagerly, the kernel chosen for its shapes (conv_choice.py;
    noted when a frozen graph's kernel choice is being prepared)."""
    tiny = _im2col_pays(data, weight)
    if not torch.compiler.is_compiling():
        if not tiny:
            winograd.collect(data, weight, bias, stride, pad)
        return conv_choice.conv2d(data, weight, bias, stride, pad)
    if tiny:
        return _im2col_conv2d(data, weight, bias, stride, pad)
    m = winograd.tile(data, weight, bias, stride, pad)
    if m:
        return winograd.conv2d(data, weight, bias, pad, m)
    return F.conv2d(data, weight, bias, stride, pad)


def _im2col_conv2d(data, weight, bias, stride, pad):
    """``conv2d`` (no groups, no dilation) as a matrix product of the unfolded windows."""
    n, c = data.shape[:2]
    out_c, _, kh, kw = weight.shape
    if any(pad):
        data = F.pad(data, (pad[1], pad[1], pad[0], pad[0]))
    cols = data.unfold(2, kh, stride[0]).unfold(3, kw, stride[1])  # N, C, OH, OW, kh, kw
    oh, ow = cols.shape[2], cols.shape[3]
    cols = cols.permute(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    y = F.linear(cols, weight.reshape(out_c, -1), bias)
    return y.reshape(n, oh, ow, out_c).permute(0, 3, 1, 2)


@check_rule("Convolution")
def _check_convolution(attrs, tensors):
    op, kernel, layout, num_filter, num_group = ("Convolution", attrs["kernel"], attrs["layout"],
                                                 attrs["num_filter"], attrs["num_group"])
    data, weight = tensors[0], tensors[1]
    bias = tensors[2] if len(tensors) > 2 else None
    _, dilate, pad = _geometry(op, kernel, attrs["stride"], attrs["dilate"], attrs["pad"], "convolution")
    x = _channel_first_data(op, data, len(kernel), layout)
    _check_groups(op, data, x.shape[1], num_filter, num_group)
    _check_input(op, "weight", weight, _weight_shape(num_filter, x.shape[1] // num_group, kernel, layout), data)
    if bias is not None:
        _check_input(op, "bias", bias, (num_filter,), data)
    _check_window(op, data, x.shape[2:], kernel, dilate, pad)


# ----------------------------------------------------------------------------- Deconvolution
def _deconv_weight(attrs, channels):
    g = max(attrs["num_group"], 1)
    return _weight_shape(channels, attrs["num_filter"] // g, attrs["kernel"], attrs["layout"])


def _deconv_padding(spatial, kernel, stride, dilate, pad, adj, target_shape):
    """MXNet's InferPad: with a non-zero target_shape, pad and adj are derived from it."""
    if not any(target_shape):
        return pad, adj
    if len(target_shape) != len(kernel):
        raise MXNetError("Deconvolution: target_shape=%s must have the same number of dimensions as kernel=%s"
                         % (target_shape, kernel))
    pads, adjs = [], []
    for size, k, s, d, target in zip(spatial, kernel, stride, dilate, target_shape):
        total = s * (size - 1) + d * (k - 1) + 1
        if total < target:
            raise MXNetError("Deconvolution: too big target shape: target_shape=%s but at most %d is reachable "
                             "from input size %d" % (target_shape, total, size))
        pads.append((total - target + 1) // 2)
        adjs.append((total - target) % 2)
    return tuple(pads), tuple(adjs)


_DECONV_PARAMS = dict(
    kernel=Shape(), stride=Shape(()), dilate=Shape(()), pad=Shape(()), adj=Shape(()), target_shape=Shape(()),
    num_filter=Int(), num_group=Int(1), workspace=Int(512), no_bias=Bool(True),
    cudnn_tune=Str(None, choices=_CUDNN_TUNE), cudnn_off=Bool(False), layout=Str(None, choices=_CONV_LAYOUTS))


@register("Deconvolution", inputs=_with_bias, signature=("data", "weight", "bias"), params=_DECONV_PARAMS,
          infer_args=lambda attrs, shapes: _conv_infer_args(attrs, shapes, _deconv_weight),
          aliases=["_npx_deconvolution"])
def deconvolution(data, weight, bias=None, *, kernel, stride, dilate, pad, adj, target_shape, num_filter,
                  num_group, workspace, no_bias, cudnn_tune, cudnn_off, layout):
    """MXNet's Deconvolution (transposed convolution); ``no_bias`` defaults to True.

    Output size ``stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj``; a non-zero
    ``target_shape`` replaces pad and adj. The weight is (C, num_filter/num_group, *kernel)
    (channel-last: (C, *kernel, num_filter/num_group))."""
    op = "Deconvolution"
    stride, dilate, pad = _geometry(op, kernel, stride, dilate, pad, "deconvolution")
    adj = _per_dim(op, "adj", adj, kernel, 0, minimum=0)
    x = _channel_first_data(op, data, len(kernel), layout)
    _check_groups(op, data, x.shape[1], num_filter, num_group)
    _check_input(op, "weight", weight, _weight_shape(x.shape[1], num_filter // num_group, kernel, layout), data)
    if bias is not None:
        _check_input(op, "bias", bias, (num_filter,), data)
    pad, adj = _deconv_padding(x.shape[2:], kernel, stride, dilate, pad, adj, target_shape)
    if any(a >= s for a, s in zip(adj, stride)):
        raise MXNetError("Deconvolution: adj=%s must be smaller than stride=%s" % (adj, stride))
    for size, k, s, d, p, a in zip(x.shape[2:], kernel, stride, dilate, pad, adj):
        if s * (size - 1) + d * (k - 1) + 1 - 2 * p + a <= 0:
            raise MXNetError("Deconvolution: pad=%s is too large for data %s with kernel=%s and stride=%s"
                             % (pad, _shape(data), kernel, stride))
    w = _to_channel_first(weight) if _channel_last(layout) else weight
    y = _DECONV[len(kernel)](x, w, bias, stride, pad, adj, num_group, dilate)
    return _to_channel_last(y) if _channel_last(layout) else y


# ----------------------------------------------------------------------------- Pooling
def _pool_outputs(attrs):
    """MXNet 1.9.1 (oneDNN build) adds a hidden workspace output to NC* max pooling."""
    return 2 if (attrs["pool_type"] == "max" and 1 <= len(attrs["kernel"]) <= 3
                 and attrs["layout"] in (None, "NCW", "NCHW", "NCDHW")) else 1


def _pool_out_size(op, data, size, k, s, p, convention):
    if k > size + 2 * p:
        raise MXNetError("%s: kernel size (%d) exceeds input (%d padded to %d), data %s"
                         % (op, k, size, size + 2 * p, _shape(data)))
    if convention == "valid":
        return (size + 2 * p - k) // s + 1
    return -(-(size + 2 * p - k) // s) + 1


def _torch_ceil_size(size, k, s, p):
    """torch's ceil-mode size: it drops a last window that starts inside the right padding."""
    out = -(-(size + 2 * p - k) // s) + 1
    return out - 1 if (out - 1) * s >= size + p else out


def _pool_native(x, pool_type, kernel, stride, pad, ceil_mode, count_include_pad):
    if pool_type == "max":
        return _MAX_POOL[len(kernel)](x, kernel, stride, pad, ceil_mode=ceil_mode)
    if pool_type == "avg":
        return _AVG_POOL[len(kernel)](x, kernel, stride, pad, ceil_mode=ceil_mode,
                                      count_include_pad=count_include_pad)
    return _AVG_POOL[len(kernel)](x, kernel, stride, pad, ceil_mode=ceil_mode, divisor_override=1)


def _pool_padded(x, pool_type, kernel, stride, pad, out_sizes, count_include_pad):
    """Pooling with explicit padding, for windows torch's kernels would not produce.

    MXNet keeps windows that lie wholly in the padding (max gives the dtype's lowest
    value, sums give 0) and accepts pads up to kernel-1; an average divides by the
    window's overlap with the (padded, when count_include_pad) input."""
    spatial = x.shape[2:]
    extra = [max((o - 1) * s + k - (n + 2 * p), 0) for o, s, k, n, p in zip(out_sizes, stride, kernel, spatial, pad)]
    spec = [v for p, e in zip(reversed(pad), reversed(extra)) for v in (p, p + e)]
    if pool_type == "max":
        xp = F.pad(x, spec, value=torch.finfo(x.dtype).min)
        return _MAX_POOL[len(kernel)](xp, kernel, stride)
    total = _AVG_POOL[len(kernel)](F.pad(x, spec), kernel, stride, divisor_override=1)
    if pool_type != "avg":
        return total
    if count_include_pad:
        ones = x.new_ones((1, 1) + tuple(n + 2 * p for n, p in zip(spatial, pad)))
        mask = F.pad(ones, [v for e in reversed(extra) for v in (0, e)])
    else:
        mask = F.pad(x.new_ones((1, 1) + tuple(spatial)), spec)
    count = _AVG_POOL[len(kernel)](mask, kernel, stride, divisor_override=1)
    return total / count.clamp(min=1)


def _lp_power(x, p):
    return x if p == 1 else x * x if p == 2 else x * x * x


def _lp_root(x, p):
    if p == 1:
        return x
    if p == 2:
        return torch.sqrt(x)
    return torch.sign(x) * x.abs().pow(1.0 / 3)


def _pool_geometry(op, x, kernel, stride, pad, global_pool):
    """Kernel, stride and pad for channel-first data; global pooling covers the whole input."""
    if global_pool:
        spatial = tuple(x.shape[2:])
        return spatial, (1,) * len(spatial), (0,) * len(spatial)
    if len(kernel) not in (1, 2, 3):
        raise MXNetError("%s: %dD pooling not supported: kernel=%s must have 1, 2 or 3 dimensions "
                         "(or set global_pool)" % (op, len(kernel), kernel))
    stride, _, pad = _geometry(op, kernel, stride, (), pad, "pooling")
    if any(p >= k for p, k in zip(pad, kernel)):
        raise MXNetError("%s: pad=%s must be smaller than kernel=%s" % (op, pad, kernel))
    return tuple(kernel), stride, pad


_POOL_PARAMS = dict(
    kernel=Shape(()), pool_type=Str("max", choices=("avg", "lp", "max", "sum")), global_pool=Bool(False),
    cudnn_off=Bool(False), pooling_convention=Str("valid", choices=("full", "same", "valid")),
    stride=Shape(()), pad=Shape(()), p_value=Int(None), count_include_pad=Bool(None),
    layout=Str(None, choices=_POOL_LAYOUTS))


def _pool_plan(data, kernel, pool_type, global_pool, pooling_convention, stride, pad, p_value, layout):
    """MXNet's checks of a Pooling call, then its channel-first data, geometry and output
    sizes: (x, nd, kernel, stride, pad, out_sizes). Shapes only: the check rule too."""
    op = "Pooling"
    if global_pool and data.dim() not in (3, 4, 5):
        raise MXNetError("%s: global pooling needs 3D, 4D or 5D data, got shape %s" % (op, _shape(data)))
    nd = data.dim() - 2 if global_pool else len(kernel)
    if pooling_convention == "same":
        raise MXNetError("%s: pooling_convention='same' is unusable in MXNet 1.9.1 (its shape check rejects "
                         "every input); use 'valid' or 'full' (data %s)" % (op, _shape(data)))
    if pool_type == "lp" and p_value not in (1, 2, 3):
        raise MXNetError("%s: pool_type='lp' needs p_value 1, 2 or 3, got p_value=%s" % (op, p_value))
    x = _channel_first_data(op, data, nd, layout)
    kernel, stride, pad = _pool_geometry(op, x, kernel, stride, pad, global_pool)
    out_sizes = [_pool_out_size(op, data, n, k, s, p, pooling_convention)
                 for n, k, s, p in zip(x.shape[2:], kernel, stride, pad)]
    return x, nd, kernel, stride, pad, out_sizes


def _pool(data, *, kernel, pool_type, global_pool, pooling_convention, stride, pad, p_value, count_include_pad,
          layout):
    """Pooling for any attributes: the plan, then torch's kernels where they pool as MXNet
    does, else explicit padding."""
    x, nd, kernel, stride, pad, out_sizes = _pool_plan(data, kernel, pool_type, global_pool, pooling_convention,
                                                       stride, pad, p_value, layout)
    if nd == 1:  # torch's fused kernels with a divisor override are 2-d/3-d: pool (1, w) windows
        x, kernel, stride, pad = x.unsqueeze(2), (1,) + kernel, (1,) + stride, (0,) + pad
        out_sizes = [1] + out_sizes
    if pool_type == "lp":
        x = _lp_power(x, p_value)
    include_pad = count_include_pad is None or count_include_pad
    ceil_mode = pooling_convention == "full"
    native = all(2 * p <= k for p, k in zip(pad, kernel)) and (not ceil_mode or all(
        _torch_ceil_size(n, k, s, p) == o for n, k, s, p, o in zip(x.shape[2:], kernel, stride, pad, out_sizes)))
    if native:
        y = _pool_native(x, pool_type, kernel, stride, pad, ceil_mode, include_pad)
    else:
        y = _pool_padded(x, pool_type, kernel, stride, pad, out_sizes, include_pad)
    if pool_type == "lp":
        y = _lp_root(y, p_value)
    if nd == 1:
        y = y.squeeze(2)
    return _to_channel_last(y) if _channel_last(layout) else y


@implementation("Pooling", params=_POOL_PARAMS, num_outputs=_pool_outputs, num_visible_outputs=1,
                output_names=lambda a: ("output",), aliases=["_npx_pooling"])
def pooling(*, kernel, pool_type, global_pool, cudnn_off, pooling_convention, stride, pad, p_value,
            count_include_pad, layout):
    """MXNet's Pooling: max/avg/sum/lp, 1/2/3-d, global, 'valid' (floor) or 'full' (ceil) sizes.

    ``lp`` computes ``root_p(sum x**p)`` for p in {1, 2, 3} (no absolute value, as MXNet);
    averages count the padding unless ``count_include_pad=False``. MXNet 1.9.1's 'same'
    convention fails its own shape check for every input, so it raises here too.
    Channel-first max/avg/sum pooling that torch's kernels compute exactly as MXNet ('valid'
    windows, pad at most half the kernel) and global pooling are resolved once; any other
    case plans each call (``_pool``)."""
    del cudnn_off
    attrs = dict(kernel=kernel, pool_type=pool_type, global_pool=global_pool, pooling_convention=pooling_convention,
                 stride=stride, pad=pad, p_value=p_value, count_include_pad=count_include_pad, layout=layout)
    general = functools.partial(_pool, **attrs)
    if _channel_last(layout) or pool_type == "lp":
        return general
    if global_pool:
        reduce = {"max": torch.amax, "avg": torch.mean, "sum": torch.sum}[pool_type]

        def run_global(data):
            if data.dim() not in (3, 4, 5):  # the check rule words it
                raise MXNetError("Pooling: global pooling needs 3D, 4D or 5D data, got %s" % (_shape(data),))
            return reduce(data, tuple(range(2, data.dim())), keepdim=True)
        return run_global
    if len(kernel) not in (2, 3) or pooling_convention != "valid":
        return general
    try:
        kernel, stride, pad = _pool_geometry("Pooling", None, kernel, stride, pad, False)
    except MXNetError:
        return general  # it raises MXNet's error on every call
    if any(2 * p > k for p, k in zip(pad, kernel)):
        return general
    include_pad = count_include_pad is None or count_include_pad
    if pool_type == "max" and len(kernel) == 2 and stride == kernel and not any(pad) and kernel != (1, 1):
        return _tiled_max_pool(kernel)
    nd = len(kernel)

    def run(data):
        if data.dim() != nd + 2:  # torch would take it as unbatched
            raise MXNetError("Pooling: data %s does not fit kernel=%s" % (_shape(data), kernel))
        return _pool_native(data, pool_type, kernel, stride, pad, False, include_pad)
    return run


@check_rule("Pooling")
def _check_pooling(attrs, tensors):
    _pool_plan(tensors[0], attrs["kernel"], attrs["pool_type"], attrs["global_pool"], attrs["pooling_convention"],
               attrs["stride"], attrs["pad"], attrs["p_value"], attrs["layout"])


_TILED_MIN_NUMEL = 8192  # below this, torch's kernel wins over kh*kw elementwise maxima


def _tiled_max_pool(kernel):
    """2-d max pooling over non-overlapping windows (stride = kernel, no pad). Where no
    gradient is needed and the windows tile the input, it is the elementwise maximum of
    the windows' ``kh*kw`` strided views: the same values (NaN propagates as in
    max_pool2d), several times faster than torch's CPU max_pool2d. Otherwise (the
    backward of max_pool2d routes each gradient to the window's first maximum, as MXNet)
    torch's kernel."""
    kh, kw = kernel

    def pool(data):
        if data.dim() != 4:  # torch would take 3-d data as unbatched
            raise MXNetError("Pooling: data %s does not fit kernel=%s" % (_shape(data), kernel))
        if (data.numel() < _TILED_MIN_NUMEL or not data.is_floating_point() or data.shape[2] % kh
                or data.shape[3] % kw or data.requires_grad and torch.is_grad_enabled()):
            return F.max_pool2d(data, kernel, kernel)
        n, c, h, w = data.shape
        tiles = data.reshape(n, c, h // kh, kh, w // kw, kw)
        out = torch.maximum(tiles[:, :, :, 0, :, 0], tiles[:, :, :, 0 if kw > 1 else 1, :, 1 if kw > 1 else 0])
        for i in range(kh):
            for j in range(kw):
                if i * kw + j > 1:
                    torch.maximum(out, tiles[:, :, :, i, :, j], out=out)
        return out
    return pool


# ----------------------------------------------------------------------------- UpSampling
def _bilinear_kernel(scale):
    """Kernel size and pad of the depthwise deconvolution behind bilinear UpSampling."""
    return 2 * scale - scale % 2, -(-(scale - 1) // 2)


def _upsampling_inputs(attrs):
    if attrs["sample_type"] == "bilinear":
        return ("data", "weight")
    return tuple("arg%d" % i for i in range(attrs["num_args"]))


def _upsampling_infer_args(attrs, shapes):
    if attrs["sample_type"] != "bilinear" or shapes[0] is None or len(shapes[0]) != 4 or shapes[1] is not None:
        return shapes
    k, _ = _bilinear_kernel(attrs["scale"])
    return [shapes[0], (shapes[0][1], 1, k, k)]


def _nearest(t, scale):
    n, c, h, w = t.shape
    return t[:, :, :, None, :, None].expand(n, c, h, scale, w, scale).reshape(n, c, h * scale, w * scale)


def _upsample_nearest(inputs, scale, multi_input_mode):
    for t in inputs:
        if t.dim() != 4:
            raise MXNetError("UpSampling: input data should be 4D (batch, channel, y, x), got shapes %s"
                             % [_shape(t) for t in inputs])
    oh, ow = inputs[0].shape[2] * scale, inputs[0].shape[3] * scale
    outs = []
    for t in inputs:
        h, w = t.shape[2:]
        if oh % h or ow % w or oh // h != ow // w:
            raise MXNetError("UpSampling: input of shape %s cannot be scaled by an integer to the output size "
                             "(%d, %d) of the first input" % (_shape(t), oh, ow))
        outs.append(_nearest(t, oh // h))
    if len(outs) == 1:
        return outs[0]
    if multi_input_mode == "sum":
        if any(t.shape[1] != inputs[0].shape[1] for t in inputs):
            raise MXNetError("UpSampling: number of channels must be the same when multi_input_mode='sum', "
                             "got shapes %s" % [_shape(t) for t in inputs])
        return torch.stack(outs).sum(0)
    return torch.cat(outs, 1)


def _upsample_bilinear(data, weight, scale, num_filter):
    if data.dim() != 4:
        raise MXNetError("UpSampling: data should be 4D (batch, channel, y, x), got shape %s" % (_shape(data),))
    k, pad = _bilinear_kernel(scale)
    if num_filter != data.shape[1]:
        raise MXNetError("UpSampling: bilinear sampling needs num_filter equal to the channels of data %s, "
                         "got num_filter=%d" % (_shape(data), num_filter))
    _check_input("UpSampling", "weight", weight, (data.shape[1], 1, k, k), data)
    return F.conv_transpose2d(data, weight, None, scale, pad, 0, num_filter)


@register("UpSampling", inputs=_upsampling_inputs, variadic="num_args", infer_args=_upsampling_infer_args,
          params=dict(scale=Int(), num_filter=Int(0), sample_type=Str(choices=("bilinear", "nearest")),
                      multi_input_mode=Str("concat", choices=("concat", "sum")), num_args=Int(),
                      workspace=Int(512)))
def upsampling(*inputs, scale, num_filter, sample_type, multi_input_mode, num_args, workspace):
    """MXNet's UpSampling of 4-d data by an integer ``scale``.

    'nearest' repeats pixels; several inputs are each scaled to the first one's output
    size and concatenated on channels (or summed). 'bilinear' is a depthwise
    deconvolution with the given weight (C, 1, 2s - s%2, 2s - s%2), stride s."""
    if scale < 1:
        raise MXNetError("UpSampling: scale=%d must be positive" % scale)
    if sample_type == "bilinear":
        return _upsample_bilinear(inputs[0], inputs[1], scale, num_filter)
    return _upsample_nearest(inputs, scale, multi_input_mode)


# ----------------------------------------------------------------------------- BilinearResize2D
def _scaled(size, scale):
    """int(size * scale) computed in float32, as MXNet's C++ does."""
    return int(np.float32(size) * np.float32(scale))


def _need_scales(mode, scale_height, scale_width):
    if scale_height is None or scale_width is None:
        raise MXNetError("_contrib_BilinearResize2D: mode='%s' with scales needs both scale_height and "
                         "scale_width, got scale_height=%s, scale_width=%s" % (mode, scale_height, scale_width))


def _resize_size(data, like, height, width, scale_height, scale_width, mode):
    """The output (height, width) for each of MXNet's resize modes."""
    h, w = data.shape[2:]
    if mode == "size":
        if scale_height is None:
            return height, width
        _need_scales(mode, scale_height, scale_width)
        return _scaled(h, scale_height), _scaled(w, scale_width)
    if mode == "odd_scale":
        _need_scales(mode, scale_height, scale_width)
        return tuple(_scaled(n, s) if n % 2 == 0 else _scaled(n - 1, s) + 1
                     for n, s in ((h, scale_height), (w, scale_width)))
    if mode == "like":
        if like is None or like.dim() != 4:
            raise MXNetError("_contrib_BilinearResize2D: mode='like' needs a 4D 'like' input, got %s"
                             % (None if like is None else _shape(like),))
        return tuple(like.shape[2:])
    step = {"to_even_down": (0, -1), "to_even_up": (0, 1), "to_odd_down": (1, -1), "to_odd_up": (1, 1)}[mode]
    return tuple(n if n % 2 == step[0] else n + step[1] for n in (h, w))


@register("_contrib_BilinearResize2D", inputs=lambda a: ("data", "like") if a["mode"] == "like" else ("data",),
          signature=("data", "like"),
          params=dict(height=Int(1), width=Int(1), scale_height=Float(None), scale_width=Float(None),
                      mode=Str("size", choices=("like", "odd_scale", "size", "to_even_down", "to_even_up",
                                                "to_odd_down", "to_odd_up")),
                      align_corners=Bool(True)))
def bilinear_resize_2d(data, like=None, *, height, width, scale_height, scale_width, mode, align_corners):
    """MXNet's contrib BilinearResize2D of (N, C, H, W) float data; corners aligned by default.

    The size comes from height/width, from scale_height/scale_width (truncated
    ``size * scale``), from ``like``'s shape, or rounds H and W to even/odd sizes."""
    op = "_contrib_BilinearResize2D"
    if data.dim() != 4:
        raise MXNetError("%s: data should be 4D (batch, channel, height, width), got shape %s" % (op, _shape(data)))
    if not data.is_floating_point():
        raise MXNetError("%s: this operation only supports floating point types, not %s"
                         % (op, str(data.dtype).replace("torch.", "")))
    size = _resize_size(data, like, height, width, scale_height, scale_width, mode)
    if min(size) < 1:
        raise MXNetError("%s: output size %s must be positive (data %s, mode='%s')" % (op, size, _shape(data), mode))
    return F.interpolate(data, size=size, mode="bilinear", align_corners=align_corners)


@register("_contrib_AdaptiveAvgPooling2D", params=dict(output_size=Shape(())))
def adaptive_avg_pooling_2d(data, *, output_size):
    """MXNet's contrib AdaptiveAvgPooling2D: bins [floor(i*H/h), ceil((i+1)*H/h)); () means 1x1."""
    if data.dim() != 4:
        raise MXNetError("_contrib_AdaptiveAvgPooling2D: data should be 4D (batch, channel, height, width), "
                         "got shape %s" % (_shape(data),))
    if len(output_size) > 2 or any(s < 1 for s in output_size):
        raise MXNetError("_contrib_AdaptiveAvgPooling2D: output_size=%s must be (), (size,) or (height, width) "
                         "with positive sizes" % (output_size,))
    size = (output_size * 2)[:2] if output_size else (1, 1)
    return F.adaptive_avg_pool2d(data, size)


# ----------------------------------------------------------------------------- normalisation
@register("LRN", num_outputs=2, num_visible_outputs=1, output_names=lambda a: ("output",),
          params=dict(alpha=Float(1e-4), beta=Float(0.75), knorm=Float(2.0), nsize=Int()))
def lrn(data, *, alpha, beta, knorm, nsize):
    """MXNet's LRN across channels: ``x / (knorm + alpha/nsize * sum(x**2))**beta``.

    The sum runs over channels c - (nsize-1)//2 .. c + (nsize-1)//2 (an even nsize still
    sums a symmetric window, as MXNet's oneDNN kernel does)."""
    if data.dim() != 4:
        raise MXNetError("LRN: data should be 4D (batch, channel, height, width), got shape %s" % (_shape(data),))
    if nsize < 1:
        raise MXNetError("LRN: nsize=%d must be positive" % nsize)
    r = (nsize - 1) // 2
    window = F.avg_pool3d((data * data).unsqueeze(1), (2 * r + 1, 1, 1), 1, (r, 0, 0), divisor_override=1)
    return data / (knorm + (alpha / nsize) * window.squeeze(1)).pow(beta)


@register("L2Normalization", num_outputs=2, num_visible_outputs=1, output_names=lambda a: ("output",),
          params=dict(eps=Float(1e-10), mode=Str("instance", choices=("channel", "instance", "spatial"))))
def l2_normalization(data, *, eps, mode):
    """MXNet's L2Normalization: ``x / sqrt(sum(x**2) + eps)`` per instance (all axes but the
    first), per channel (axis 1) or per spatial map (axes 2...)."""
    if mode == "instance":
        flat = data.reshape(data.shape[0], -1)
        norm = torch.sqrt((flat * flat).sum(1, keepdim=True) + eps)
        return (flat / norm).reshape(data.shape)
    if data.dim() < 3:
        raise MXNetError("L2Normalization: at least 3 dimensions required in %s mode, got data %s"
                         % (mode, _shape(data)))
    axes = 1 if mode == "channel" else tuple(range(2, data.dim()))
    return data / torch.sqrt((data * data).sum(axes, keepdim=True) + eps)


# ----------------------------------------------------------------------------- ROIPooling
def _round_half_away(x):
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


def _roi_bin_masks(start, end, pooled, size):
    """(R, pooled, size) masks of the input positions inside each ROI bin (MXNet's bin rule)."""
    length = (end - start + 1).clamp(min=1)
    bins = length[:, None] / pooled
    p = torch.arange(pooled, device=start.device, dtype=bins.dtype)
    lo = (torch.floor(p * bins) + start[:, None]).clamp(0, size)
    hi = (torch.ceil((p + 1) * bins) + start[:, None]).clamp(0, size)
    pos = torch.arange(size, device=start.device, dtype=bins.dtype)
    return (pos >= lo[..., None]) & (pos < hi[..., None])


@register("ROIPooling", inputs=("data", "rois"), num_outputs=2, num_visible_outputs=1,
          output_names=lambda a: ("output",),
          params=dict(pooled_size=Shape(), spatial_scale=Float()), aliases=["_npx_roi_pooling"])
def roi_pooling(data, rois, *, pooled_size, spatial_scale):
    """MXNet's ROIPooling: max over each bin of each ROI (batch_index, x1, y1, x2, y2).

    ROI corners are scaled by spatial_scale and rounded; a malformed ROI counts as 1x1
    and an empty bin gives 0."""
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5 or len(pooled_size) != 2:
        raise MXNetError("ROIPooling: expects data (N, C, H, W), rois (R, 5) and pooled_size (h, w), got "
                         "data %s, rois %s, pooled_size=%s" % (_shape(data), _shape(rois), pooled_size))
    ph, pw = pooled_size
    h, w = data.shape[2:]
    box = _round_half_away(rois[:, 1:].double() * spatial_scale)
    mask_h = _roi_bin_masks(box[:, 1], box[:, 3], ph, h)   # (R, ph, H)
    mask_w = _roi_bin_masks(box[:, 0], box[:, 2], pw, w)   # (R, pw, W)
    feats = data[rois[:, 0].long()]                          # (R, C, H, W)
    low = torch.finfo(data.dtype).min
    cols = feats[:, :, :, None, :].masked_fill(~mask_w[:, None, None], low).max(-1).values   # (R, C, H, pw)
    out = cols[:, :, None].masked_fill(~mask_h[:, None, :, :, None], low).max(3).values      # (R, C, ph, pw)
    empty = ~(mask_h.any(-1)[:, :, None] & mask_w.any(-1)[:, None, :])
    return out.masked_fill(empty[:, None], 0)


# ----------------------------------------------------------------------------- im2col / col2im
def _identity_kernel(kernel, like):
    """(K, 1, *kernel) one-hot filters: convolving with them extracts each kernel offset."""
    count = int(np.prod(kernel))
    return torch.eye(count, dtype=like.dtype, device=like.device).reshape((count, 1) + tuple(kernel))


@register("im2col", params=dict(kernel=Shape(), stride=Shape(()), dilate=Shape(()), pad=Shape(())))
def im2col(data, *, kernel, stride, dilate, pad):
    """MXNet's im2col: (N, C, *spatial) -> (N, C * prod(kernel), number of windows)."""
    stride, dilate, pad = _geometry("im2col", kernel, stride, dilate, pad)
    x = _channel_first_data("im2col", data, len(kernel), None)
    _check_window("im2col", data, x.shape[2:], kernel, dilate, pad)
    n, c = x.shape[:2]
    cols = _CONV[len(kernel)](x.reshape((n * c, 1) + tuple(x.shape[2:])), _identity_kernel(kernel, x),
                              None, stride, pad, dilate)
    return cols.reshape(n, c * cols.shape[1], -1)


@register("col2im", params=dict(output_size=Shape(), kernel=Shape(), stride=Shape(()), dilate=Shape(()),
                                pad=Shape(())))
def col2im(data, *, output_size, kernel, stride, dilate, pad):
    """MXNet's col2im, the adjoint of im2col: overlapping window values are summed."""
    op = "col2im"
    stride, dilate, pad = _geometry(op, kernel, stride, dilate, pad)
    if len(output_size) != len(kernel):
        raise MXNetError("%s: output_size=%s must have as many dimensions as kernel=%s" % (op, output_size, kernel))
    count = int(np.prod(kernel))
    blocks = [(n + 2 * p - (d * (k - 1) + 1)) // s + 1
              for n, k, s, d, p in zip(output_size, kernel, stride, dilate, pad)]
    if data.dim() != 3 or data.shape[1] % count or min(blocks) < 1 or data.shape[2] != int(np.prod(blocks)):
        raise MXNetError("%s: data should be (N, C * %d, %d) for output_size=%s, kernel=%s, got shape %s"
                         % (op, count, int(np.prod(blocks)), output_size, kernel, _shape(data)))
    n, c = data.shape[0], data.shape[1] // count
    cols = data.reshape((n * c, count) + tuple(blocks))
    natural = [(b - 1) * s + d * (k - 1) + 1 - 2 * p for b, s, d, k, p in zip(blocks, stride, dilate, kernel, pad)]
    adj = tuple(o - m for o, m in zip(output_size, natural))
    img = _DECONV[len(kernel)](cols, _identity_kernel(kernel, data), None, stride, pad, adj, 1, dilate)
    return img.reshape((n, c) + tuple(output_size))

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _convolution(attrs, shapes):
    data, kernel = shapes[0], attrs["kernel"]
    require(not _channel_last(attrs["layout"]) and len(data) == len(kernel) + 2)
    stride, dilate, pad = _geometry("Convolution", kernel, attrs["stride"], attrs["dilate"], attrs["pad"])
    spatial = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                    for n, k, s, d, p in zip(data[2:], kernel, stride, dilate, pad))
    require(all(o > 0 for o in spatial))
    return [(data[0], attrs["num_filter"]) + spatial]


def _pooling(attrs, shapes):
    data = shapes[0]
    require(not _channel_last(attrs["layout"]) and attrs["pool_type"] != "lp")
    if attrs["global_pool"]:
        require(len(data) in (3, 4, 5))
        return [tuple(data[:2]) + (1,) * (len(data) - 2)]
    kernel = attrs["kernel"]
    require(len(data) == len(kernel) + 2 and attrs["pooling_convention"] in ("valid", "full"))
    stride, _, pad = _geometry("Pooling", kernel, attrs["stride"], (), attrs["pad"], "pooling")
    require(all(p < k <= n + 2 * p for n, k, p in zip(data[2:], kernel, pad)))  # else the meta run words it
    return [tuple(data[:2]) + tuple(_pool_out_size("Pooling", None, n, k, s, p, attrs["pooling_convention"])
                                    for n, k, s, p in zip(data[2:], kernel, stride, pad))]


shape_rule("Convolution")(_convolution)
shape_rule("Pooling")(_pooling)
shape_rule("L2Normalization")(same_shape)
