"""MXNet 1.9.1's CPU quantization operators: ``_contrib_quantize``, ``_contrib_quantize_v2``,
``_contrib_dequantize`` and ``_contrib_requantize`` (``mx.nd.contrib.quantize``, ...).

Each maps floats to 8-bit integers (or back) through one scale per call, its kernel
beside its schema, shape rule and dtype rule. The arithmetic is what MXNet 1.9.1's CPU
build computes (its oneDNN kernels), recorded from it: float32 products rounded to the
nearest integer (ties to even) and saturated to the type's range:

* ``quantize`` (v1): ``x * 255 / MaxAbs(min, max)`` for uint8 (no offset: negative values
  become 0), ``x * 127 / MaxAbs(min, max)`` for int8; ranges out: uint8 the given ones,
  int8 ``+-MaxAbs``;
* ``quantize_v2``: the calibrated range, else the data's own; scales ``255.5`` / ``127.5``
  over ``MaxAbs``; ``out_type='auto'`` is uint8 when ``min_calib_range >= 0``, else int8;
* ``dequantize``: ``q * (MaxAbs(min, max) / 127.5)`` for int8, ``/ 255.5`` for uint8;
* ``requantize``: int32 ``q`` means ``q * MaxAbs(min, max) / (2**31 - 1)``, requantized
  with ``127`` / ``255`` over the calibrated range's (else the data's) ``MaxAbs`` (MXNet's
  overflow kept: uncalibrated data reaching ``+-(2**31 - 1)`` gets a negative range).

``calibrate_entropy`` picks the quantization threshold of a histogram that minimises the KL
divergence between it and its quantized version (TensorRT's entropy calibration), with
MXNet's float32 arithmetic.

The quantized layers (``_contrib_quantized_fully_connected``, ``_conv``, ``_pooling``,
``_act``, ``_flatten``, ``_concat``, ``_elemwise_add``, ``_elemwise_mul``, ``_embedding``,
``_batch_norm``) take int8/uint8 data with its ``min``/``max`` inputs and give three
outputs (``output``, ``min_output``, ``max_output``) as MXNet 1.9.1's CPU (oneDNN)
kernels: products as exact int32 sums with the int32 range they stand for, pooling, ReLU
and lookups in the data's own type and range, concatenations, sums and BatchNorm rescaled
to their output's range; each refuses what MXNet's CPU build refuses, with its message.

They have no gradient (MXNet: "DO NOT use it in training").
"""
import functools

import numpy as np
import torch

from ..base import MXNetError
from . import conv, nn
from .registry import Bool, Float, Int, Str, register

__all__ = []

_INT32_MAX = 2147483647.0
_RANGES = {"int8": (-128, 127, torch.int8), "uint8": (0, 255, torch.uint8)}


def _scalar_shape(attrs, shapes):
    return [tuple(shapes[0]) if shapes[0] is not None else None, (1,), (1,)]


def _max_abs(lo, hi):
    """MXNet's MaxAbs of two float32 scalars (tensors of one element), as a float32 tensor."""
    return torch.maximum(lo.reshape(()).float().abs(), hi.reshape(()).float().abs())


def _saturate(values, out_type):
    """Round to the nearest integer (ties to even) and saturate to ``out_type``'s range."""
    lo, hi, dtype = _RANGES[out_type]
    return torch.round(values).clamp_(lo, hi).to(dtype)


def _range(*values):
    return [v.reshape(1).float() for v in values]


def _dtype_name(t):
    return np.dtype(str(t.dtype).replace("torch.", "")).name


def _check_dtype(data, expected):
    """MXNet's type inference error for a data input of another dtype than the operator takes."""
    if data.dtype != expected:
        raise MXNetError("Type inconsistent, Provided = %s, inferred type = %s"
                         % (_dtype_name(data), str(expected).replace("torch.", "")))


# ----------------------------------------------------------------------------- quantize
@register("_contrib_quantize", inputs=("data", "min_range", "max_range"), num_outputs=3, differentiable=False,
          params=dict(out_type=Str("uint8", choices=("int8", "uint8"))),
          infer_shape=_scalar_shape, infer_type=lambda attrs, dtypes: [attrs["out_type"], "float32", "float32"])
def quantize(data, min_range, max_range, *, out_type):
    """``data`` (float32) in ``out_type`` over ``[min_range, max_range]``, with the output's range."""
    _check_dtype(data, torch.float32)
    real = _max_abs(min_range, max_range)
    if out_type == "uint8":
        out = _saturate(data * (torch.tensor(255.0) / real), "uint8")
        return [out] + _range(min_range, max_range)
    return [_saturate(data * (torch.tensor(127.0) / real), "int8")] + _range(-real, real)


# ----------------------------------------------------------------------------- quantize_v2
_V2_PARAMS = dict(out_type=Str("int8", choices=("auto", "int8", "uint8")), min_calib_range=Float(None),
                  max_calib_range=Float(None))


def _v2_type(attrs):
    """MXNet's output type: 'auto' is uint8 when the calibrated minimum is >= 0, else int8."""
    if attrs["out_type"] != "auto":
        return attrs["out_type"]
    low = attrs["min_calib_range"]
    return "uint8" if low is not None and low >= 0 else "int8"


def _calibrated(attrs):
    return attrs["min_calib_range"] is not None and attrs["max_calib_range"] is not None


@register("_contrib_quantize_v2", num_outputs=3, differentiable=False, params=dict(_V2_PARAMS),
          infer_shape=_scalar_shape, infer_type=lambda attrs, dtypes: [_v2_type(attrs), "float32", "float32"])
def quantize_v2(data, *, out_type, min_calib_range, max_calib_range):
    """``data`` (float32) in int8/uint8 over the calibrated range, else the data's own."""
    attrs = dict(out_type=out_type, min_calib_range=min_calib_range, max_calib_range=max_calib_range)
    kind = _v2_type(attrs)
    if data.dtype in (torch.int8, torch.uint8):  # quantized already: passed through, as MXNet does
        if _calibrated(attrs):
            lo, hi = torch.tensor(min_calib_range), torch.tensor(max_calib_range)
        else:  # MXNet's range for such data: the type's, in its quantization levels
            lo, hi = (torch.tensor(-127.5), torch.tensor(127.5)) if data.dtype == torch.int8 else \
                (torch.tensor(0.0), torch.tensor(255.5))
        return [data.to(_RANGES[kind][2])] + _range(lo, hi)
    _check_dtype(data, torch.float32)
    if _calibrated(attrs):
        lo, hi = torch.tensor(min_calib_range, dtype=torch.float32), torch.tensor(max_calib_range,
                                                                                   dtype=torch.float32)
    else:
        lo, hi = data.min(), data.max()
    real = _max_abs(lo, hi)
    if kind == "uint8":
        return [_saturate(data * (torch.tensor(255.5) / real), "uint8")] + _range(lo, hi)
    return [_saturate(data * (torch.tensor(127.5) / real), "int8")] + _range(-real, real)


# ----------------------------------------------------------------------------- dequantize
@register("_contrib_dequantize", inputs=("data", "min_range", "max_range"), differentiable=False,
          params=dict(out_type=Str("float32", choices=("float32",))),
          infer_shape=lambda attrs, shapes: [tuple(shapes[0]) if shapes[0] is not None else None],
          infer_type=lambda attrs, dtypes: ["float32"])
def dequantize(data, min_range, max_range, *, out_type):
    """int8/uint8 ``data`` back to float32 over ``[min_range, max_range]``."""
    if data.dtype not in (torch.int8, torch.uint8):
        raise MXNetError("Check failed: in_attrs->at(0) == mshadow::kUint8 || in_attrs->at(0) == mshadow::kInt8: "
                         "dequantize only supports int8/uint8 input for now")
    level = 127.5 if data.dtype == torch.int8 else 255.5
    return data.float() * (_max_abs(min_range, max_range) / torch.tensor(level))


# ----------------------------------------------------------------------------- requantize
@register("_contrib_requantize", inputs=("data", "min_range", "max_range"), num_outputs=3, differentiable=False,
          params=dict(_V2_PARAMS),
          infer_shape=_scalar_shape, infer_type=lambda attrs, dtypes: [_v2_type(attrs), "float32", "float32"])
def requantize(data, min_range, max_range, *, out_type, min_calib_range, max_calib_range):
    """int32 ``data`` (meaning ``q * MaxAbs(min_range, max_range) / (2**31 - 1)``) in
    int8/uint8 over the calibrated range, else the data's own."""
    _check_dtype(data, torch.int32)
    attrs = dict(out_type=out_type, min_calib_range=min_calib_range, max_calib_range=max_calib_range)
    real = data.float() * (_max_abs(min_range, max_range) / torch.tensor(_INT32_MAX))
    if _calibrated(attrs):
        scale_range = _max_abs(torch.tensor(min_calib_range), torch.tensor(max_calib_range))
    else:
        scale_range = _max_abs(real.min(), real.max())
        if data.numel() and float(np.float32(data.long().abs().max().item())) >= 2.0 ** 31:
            # MXNet takes the data's largest magnitude through float32 back to int32, which
            # overflows to INT_MIN for |q| near 2**31 - 1: its range, and so every output, flips sign
            scale_range = -scale_range
    kind = _v2_type(attrs)
    if kind == "uint8":
        return [_saturate(real * (torch.tensor(255.0) / scale_range), "uint8")] + _range(
            torch.tensor(0.0), scale_range)
    return [_saturate(real * (torch.tensor(127.0) / scale_range), "int8")] + _range(-scale_range, scale_range)


# ----------------------------------------------------------------------------- calibrate_entropy
def _f32_sum(values):
    """A float32 sum accumulated in order (as C++'s ``std::accumulate``), not pairwise."""
    return np.cumsum(values, dtype=np.float32)[-1] if len(values) else np.float32(0)


def _smooth(p, eps=np.float32(0.0001)):
    """Zeros become ``eps``, the nonzero entries give up as much between them."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return p
    eps1 = np.float32(eps * np.float32(n_zeros) / np.float32(n_nonzeros))
    if eps1 >= 1.0:
        return p
    return (p + np.where(zeros, eps, np.float32(0)) - np.where(zeros, np.float32(0), eps1)).astype(np.float32)


def _kl_divergence(p, q):
    p = (p / _f32_sum(p)).astype(np.float32)
    q = (q / _f32_sum(q)).astype(np.float32)
    both = (p != 0) & (q != 0)
    terms = p[both] * np.log((p[both] / q[both]).astype(np.float32)).astype(np.float32)
    return _f32_sum(terms.astype(np.float32))


def _divergence_at(hist, zero, i, num_quantized_bins):
    """The KL divergence of the histogram clipped to the ``2 i + 1`` bins around the zero
    bin (outliers added to its ends) and its ``num_quantized_bins``-bin quantization."""
    start, stop = zero - i, zero + i + 1
    p = hist[start:stop].copy()
    if stop - start == 1:  # one bin: every count in it
        p[0] = _f32_sum(hist)
    else:  # the outliers on each side added to the end bins, in MXNet's order
        p[0] = _f32_sum(hist[:start + 1])
        p[-1] = _f32_sum(hist[stop - 1:])
    sliced = hist[start:stop].astype(np.int64)
    sliced[0] = 0
    merged = sliced.size // num_quantized_bins
    edges = np.arange(num_quantized_bins + 1) * merged
    edges[-1] = sliced.size
    q = np.zeros(sliced.size, dtype=np.float32)
    for j in range(num_quantized_bins):
        a, b = edges[j], edges[j + 1]
        norm = int(np.count_nonzero(sliced[a:b]))
        if norm:
            block = q[a:b]
            block[p[a:b] != 0] = np.float32(np.float32(sliced[a:b].sum()) / np.float32(norm))
    return _kl_divergence(_smooth(p), _smooth(q))


@register("_contrib_calibrate_entropy", inputs=("hist", "hist_edges"), num_outputs=2, differentiable=False,
          params=dict(num_quantized_bins=Int(255)),
          infer_shape=lambda attrs, shapes: [(1,), (1,)], infer_type=lambda attrs, dtypes: ["float32", "float32"])
def calibrate_entropy(hist, hist_edges, *, num_quantized_bins):
    """``(threshold, divergence)``: of the symmetric thresholds ``hist_edges[zero + i + 1]``
    (``i`` from ``num_quantized_bins // 2`` to the last bin), the one whose clipped
    histogram is closest (KL divergence) to its quantization to ``num_quantized_bins`` bins."""
    counts = hist.detach().cpu().numpy().astype(np.float32)
    edges = hist_edges.detach().cpu().numpy().astype(np.float32)
    zero = counts.size // 2
    first = num_quantized_bins // 2
    divergences = [_divergence_at(counts, zero, i, num_quantized_bins) for i in range(first, zero + 1)]
    best = int(np.argmin(divergences))
    return [torch.tensor([edges[zero + first + best + 1]]), torch.tensor([divergences[best]])]


# ----------------------------------------------------------------------------- quantized layers
# MXNet's type codes (mshadow), which its quantized layers' dtype errors print
_TYPE_CODES = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.uint8: 3, torch.int32: 4,
               torch.int8: 5, torch.int64: 6}
_RANGE_NAMES = ("min_data", "max_data", "min_weight", "max_weight", "min_bias", "max_bias")


def _outputs(attrs):
    return ("output", "min_output", "max_output")


def _layer_inputs(attrs):
    """data, weight, bias (unless ``no_bias``), then each one's min and max, as MXNet lists them."""
    n = 2 if attrs["no_bias"] else 3
    return ("data", "weight", "bias")[:n] + _RANGE_NAMES[:2 * n]


def _with_ranges(shapes, n, fill=None):
    """``shapes`` with the ``n`` scalar range inputs (the last ones) as ``(1,)``, the others
    filled by ``fill`` (a layer's ``infer_args``) if given."""
    head = list(shapes[:len(shapes) - n])
    return list(fill(head) if fill else head) + [(1,)] * n


def _product_range(lo_a, hi_a, lo_b, hi_b, uint8_a=False):
    """The int32 result's range of a product of ``a`` and int8 ``b``: one level of each
    (``MaxAbs / 127``, ``/ 255`` for uint8 ``a``) multiplied, times INT32_MAX, in the
    float32 steps MXNet's results show (recorded: other orders differ in the last bit):
    ``(MaxAbs(a) / 127) * (MaxAbs(b) / 127)``, for uint8 ``a`` ``MaxAbs(a) * MaxAbs(b) / 127 * (1 / 255)``."""
    a, b = _max_abs(lo_a, hi_a), _max_abs(lo_b, hi_b)
    if uint8_a:
        level = a * b / torch.tensor(127.0) * (torch.tensor(1.0) / torch.tensor(255.0))
    else:
        level = (a / torch.tensor(127.0)) * (b / torch.tensor(127.0))
    top = level * torch.tensor(_INT32_MAX)
    return _range(-top, top)


def _int_result(values):
    """A float64 tensor of exact integer sums as int32."""
    return values.to(torch.int32)


# ----------------------------------------------------------------------------- quantized_fully_connected
def _qfc_infer_args(attrs, shapes):
    n = 4 if attrs["no_bias"] else 6
    return _with_ranges(shapes, n, lambda head: nn._fc_infer_args(attrs, head))


def _qfc_shape(attrs, shapes):
    data = shapes[0]
    if data is None:
        return [None, (1,), (1,)]
    head = (data[0],) if attrs["flatten"] else tuple(data[:-1])
    return [head + (attrs["num_hidden"],), (1,), (1,)]


@register("_contrib_quantized_fully_connected", inputs=_layer_inputs, num_outputs=3,
          output_names=_outputs, differentiable=False,
          params=dict(num_hidden=Int(), no_bias=Bool(False), flatten=Bool(True)),
          infer_args=_qfc_infer_args, infer_shape=_qfc_shape,
          infer_type=lambda attrs, dtypes: ["int32", "float32", "float32"])
def quantized_fully_connected(data, weight, *rest, num_hidden, no_bias, flatten):
    """int8/uint8 ``data`` times int8 ``weight`` (transposed): the exact int32 sums, the int8
    bias added as MXNet's oneDNN kernel scales it (``bias * (data_scale * weight_scale *
    MaxAbs(bias range) / 127.5)`` in float32, truncated to int32; scales ``127.5`` (``255.5``
    for uint8 data) over each range's MaxAbs), and the int32 range of the product
    (one level ``MaxAbs / 127`` of each, ``/ 255`` for uint8 data: ``_product_range``)."""
    if data.dtype not in (torch.int8, torch.uint8):
        raise MXNetError("Check failed: in_type->at(0) == mshadow::kInt8 || in_type->at(0) == mshadow::kUint8: "
                         "QuantizedFullyConnected only supports int8/uint8 input, while %d is given."
                         % _TYPE_CODES.get(data.dtype, -1))
    _check_dtype(weight, torch.int8)
    bias, ranges = (None, rest) if no_bias else (rest[0], rest[1:])
    min_data, max_data, min_weight, max_weight = ranges[:4]
    if weight.shape[0] != num_hidden:
        raise MXNetError("QuantizedFullyConnected: weight %s does not have num_hidden=%d rows"
                         % (tuple(weight.shape), num_hidden))
    x = data.reshape(data.shape[0], -1) if flatten else data
    out = _int_result(x.double() @ weight.double().t())
    if bias is not None:
        _check_dtype(bias, torch.int8)
        out = out + _quantized_bias(bias, data.dtype, min_data, max_data, min_weight, max_weight, *ranges[4:6])
    return [out] + _product_range(min_data, max_data, min_weight, max_weight, data.dtype == torch.uint8)


def _quantized_bias(bias, data_dtype, min_data, max_data, min_weight, max_weight, min_bias, max_bias):
    """The int8 bias in the int32 product's levels, as MXNet's quantized FullyConnected computes it."""
    data_scale = torch.tensor(255.5 if data_dtype == torch.uint8 else 127.5) / _max_abs(min_data, max_data)
    weight_scale = torch.tensor(127.5) / _max_abs(min_weight, max_weight)
    rescale = data_scale * weight_scale * _max_abs(min_bias, max_bias) / torch.tensor(127.5)
    return torch.trunc(bias.float() * rescale).to(torch.int32)


# ----------------------------------------------------------------------------- quantized_conv
def _qconv_infer_args(attrs, shapes):
    n = 4 if attrs["no_bias"] else 6
    return _with_ranges(shapes, n, lambda head: conv._conv_infer_args(attrs, head, conv._conv_weight))


def _qconv_shape(attrs, shapes):
    if shapes[0] is None:
        return [None, (1,), (1,)]
    return conv._convolution(attrs, shapes) + [(1,), (1,)]


@register("_contrib_quantized_conv", inputs=_layer_inputs, num_outputs=3,
          output_names=_outputs, differentiable=False,
          params=dict(conv._CONV_PARAMS), infer_args=_qconv_infer_args, infer_shape=_qconv_shape,
          infer_type=lambda attrs, dtypes: ["int32", "float32", "float32"])
def quantized_conv(data, weight, *rest, kernel, stride, dilate, pad, num_filter, num_group, workspace, no_bias,
                   cudnn_tune, cudnn_off, layout):
    """uint8 ``data`` (MXNet's CPU kernel takes no other) convolved with int8 ``weight``:
    the exact int32 sums, the int8 bias added as it is, and the int32 range of the product
    (``_product_range`` with 127 levels for the uint8 data too, as MXNet's).
    Groups are refused, as MXNet's CPU kernel refuses them."""
    del workspace, cudnn_tune, cudnn_off
    if data.dtype != torch.uint8:
        raise MXNetError("Check failed: (in_data[0].dtype()) == (mshadow::kUint8) mkldnn_quantized_conv op "
                         "only supports uint8 as input type")
    if num_group != 1:
        raise MXNetError("Check failed: param.num_group == 1U (%d vs. 1) : quantized_conv only supports "
                         "num_group=1 for now" % num_group)
    _check_dtype(weight, torch.int8)
    bias, ranges = (None, rest) if no_bias else (rest[0], rest[1:])
    if bias is not None:
        _check_dtype(bias, torch.int8)
    stride, dilate, pad = conv._geometry("Convolution", kernel, stride, dilate, pad, "convolution")
    x, w = data.double(), weight.double()
    if conv._channel_last(layout):
        x, w = conv._to_channel_first(x), conv._to_channel_first(w)
    if x.dim() != len(kernel) + 2 or (w.size(0),) + tuple(w.shape[2:]) != (num_filter,) + tuple(kernel):
        raise MXNetError("QuantizedConvolution: data %s or weight %s does not fit kernel=%s, num_filter=%d"
                         % (tuple(data.shape), tuple(weight.shape), kernel, num_filter))
    y = conv._CONV[len(kernel)](x, w, None if bias is None else bias.double(), stride, pad, dilate)
    if conv._channel_last(layout):
        y = conv._to_channel_last(y)
    return [_int_result(y)] + _product_range(*ranges[:4])


# ----------------------------------------------------------------------------- quantized_pooling
def _data_ranges(attrs):
    return ("data", "min_data", "max_data")


def _qpool_shape(attrs, shapes):
    if shapes[0] is None:
        return [None, (1,), (1,)]
    return conv._pooling(attrs, shapes[:1]) + [(1,), (1,)]


def _same_type(attrs, dtypes):
    return [dtypes[0], "float32", "float32"]


@register("_contrib_quantized_pooling", inputs=_data_ranges, num_outputs=3,
          output_names=_outputs, differentiable=False,
          params=dict(conv._POOL_PARAMS), infer_shape=_qpool_shape, infer_type=_same_type,
          infer_args=lambda attrs, shapes: _with_ranges(shapes, 2))
def quantized_pooling(data, min_data, max_data, *, kernel, pool_type, global_pool, cudnn_off, pooling_convention,
                      stride, pad, p_value, count_include_pad, layout):
    """Max or average pooling of int8/uint8 NCHW/NCDHW data, in its own type and range. An
    average is the window's sum over its size (the whole kernel, windows past the data's
    end under ``'full'`` too, as oneDNN; the valid elements with ``count_include_pad=False``)
    rounded to the nearest integer, ties to even."""
    del cudnn_off
    if pool_type not in ("max", "avg"):
        raise MXNetError("QuantizedPoolingOp only supports pool_type=max/avg for now")
    if data.dim() not in (4, 5):
        raise MXNetError("Check failed: data_ndims == 4U || data_ndims == 5U MKL-DNN QuantizedPoolingOp only "
                         "supports 4D/5D layout yet, input should be 4D in(batch, channel, y, x) or 5D in "
                         "(batch, channel, d, y, x)")
    if layout not in (None, "NCHW", "NCDHW"):
        raise MXNetError("Check failed: layout == mshadow::kNCHW || layout == mshadow::kNCDHW MKL-DNN "
                         "QuantizedPoolingOp only supports NCHW/NCDHW layout for now")
    pool = functools.partial(conv._pool, kernel=kernel, global_pool=global_pool,
                             pooling_convention=pooling_convention, stride=stride, pad=pad, p_value=p_value,
                             count_include_pad=count_include_pad, layout=layout)
    ranges = _range(min_data, max_data)
    if data.dtype not in (torch.int8, torch.uint8):  # float data: MXNet's float pooling
        return [pool(data, pool_type=pool_type)] + ranges
    x = data.double()
    if pool_type == "max":
        return [pool(x, pool_type="max").to(data.dtype)] + ranges
    sums = pool(x, pool_type="sum")
    if count_include_pad is None or count_include_pad:
        size = x[0, 0].numel() if global_pool else int(np.prod(kernel))
        counts = torch.tensor(float(size), dtype=torch.float64)
    else:
        counts = pool(torch.ones_like(x[:1, :1]), pool_type="sum")
    return [torch.round(sums / counts).to(data.dtype)] + ranges


# ----------------------------------------------------------------------------- quantized_act, quantized_flatten
@register("_contrib_quantized_act", inputs=_data_ranges, num_outputs=3,
          output_names=_outputs, differentiable=False,
          params=dict(act_type=Str(choices=("relu", "sigmoid", "softrelu", "softsign", "tanh"))),
          infer_shape=_scalar_shape, infer_type=lambda attrs, dtypes: ["int8", "float32", "float32"],
          infer_args=lambda attrs, shapes: _with_ranges(shapes, 2))
def quantized_act(data, min_data, max_data, *, act_type):
    """ReLU of int8 data, its range kept. The output is int8 whatever the input: uint8 data
    (which ReLU keeps) comes out as its bytes read as int8, as MXNet's (200 is -56)."""
    if act_type != "relu":
        raise MXNetError("_contrib_quantized_act only supports act_type=relu for now")
    if data.dtype not in (torch.int8, torch.uint8):
        raise MXNetError("Check failed: in_data[0].dtype() == mshadow::kUint8 || in_data[0].dtype() == "
                         "mshadow::kInt8: _contrib_quantized_act op only supports uint8 and int8 as input type")
    out = data.view(torch.int8) if data.dtype == torch.uint8 else data.clamp_min(0)
    return [out.clone()] + _range(min_data, max_data)


def _flat_shape(attrs, shapes):
    data = shapes[0]
    return [None if data is None else (data[0], int(np.prod(data[1:]))), (1,), (1,)]


@register("_contrib_quantized_flatten", inputs=_data_ranges, num_outputs=3,
          output_names=_outputs, differentiable=False,
          infer_shape=_flat_shape, infer_type=_same_type, infer_args=lambda attrs, shapes: _with_ranges(shapes, 2))
def quantized_flatten(data, min_data, max_data):
    """``data`` collapsed to ``(d0, d1*...*dk)``, its dtype (any) and range kept."""
    return [data.reshape(data.shape[0], -1).clone()] + _range(min_data, max_data)


# ----------------------------------------------------------------------------- quantized_concat, _elemwise_add
# the levels MXNet's oneDNN kernels give a range: int8 127.5, uint8 255.5 (scale = levels / MaxAbs)
_LEVELS = {torch.int8: 127.5, torch.uint8: 255.5}
_SATURATE = {torch.int8: (-128, 127), torch.uint8: (0, 255), torch.int32: (-2147483648, 2147483647)}


def _scale(dtype, lo, hi):
    return torch.tensor(_LEVELS[dtype]) / _max_abs(lo, hi)


def _rescaled(values, dtype):
    """float32 ``values`` rounded to the nearest integer (ties to even), saturated to ``dtype``."""
    lo, hi = _SATURATE[dtype]
    return torch.round(values.double()).clamp_(lo, hi).to(dtype)


def _check_quantized(data):
    """MXNet's error for data that is neither int8 nor uint8 (its type rule assigns uint8)."""
    if data.dtype not in (torch.int8, torch.uint8):
        raise MXNetError("Type inconsistent, Provided = %s, inferred type = uint8" % _dtype_name(data))


def _concat_inputs(attrs):
    n = attrs["num_args"]
    return tuple("arg%d" % i for i in range(n)) + tuple(
        "arg%d_%s" % (i, m) for i in range(n) for m in ("min", "max"))


def _concat_shape(attrs, shapes):
    n, dim = attrs["num_args"], attrs["dim"]
    data = shapes[:n]
    if any(s is None for s in data):
        return [None, (1,), (1,)]
    axis = dim % len(data[0])
    return [tuple(data[0][:axis]) + (sum(s[axis] for s in data),) + tuple(data[0][axis + 1:]), (1,), (1,)]


def _concat_type(attrs, dtypes):
    return ["int8" if any(str(d) == "int8" for d in dtypes[:attrs["num_args"]]) else "uint8", "float32", "float32"]


@register("_contrib_quantized_concat", inputs=_concat_inputs, variadic="num_args", num_outputs=3,
          output_names=_outputs, differentiable=False, params=dict(num_args=Int(), dim=Int(1)),
          infer_shape=_concat_shape, infer_type=_concat_type,
          infer_args=lambda attrs, shapes: _with_ranges(shapes, 2 * attrs["num_args"]))
def quantized_concat(*inputs, num_args, dim):
    """Concatenation of int8/uint8 arrays over ``[min of the minima, max of the maxima]``: int8
    if any input is, else uint8. An input whose scale (``127.5`` or ``255.5`` over its range's
    MaxAbs) differs from the output's is rescaled, rounded to even and saturated, as oneDNN's
    reorder. A negative ``dim`` is refused as MXNet's oneDNN kernel refuses it."""
    data, ranges = inputs[:num_args], inputs[num_args:]
    for x in data:
        _check_quantized(x)
    if dim < 0:
        raise MXNetError("could not create a primitive descriptor for a concat primitive")
    lo = torch.stack([r.reshape(()).float() for r in ranges[0::2]]).min()
    hi = torch.stack([r.reshape(()).float() for r in ranges[1::2]]).max()
    out_type = torch.int8 if any(x.dtype == torch.int8 for x in data) else torch.uint8
    out_scale = _scale(out_type, lo, hi)
    parts = []
    for x, x_lo, x_hi in zip(data, ranges[0::2], ranges[1::2]):
        scale = _scale(x.dtype, x_lo, x_hi)
        parts.append(x.to(out_type) if torch.equal(scale, out_scale) else
                     _rescaled(x.float() * (out_scale / scale), out_type))
    return [torch.cat(parts, dim)] + _range(lo, hi)


@register("_contrib_quantized_elemwise_add", inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
          num_outputs=3, output_names=_outputs, differentiable=False,
          params=dict(min_calib_range=Float(None), max_calib_range=Float(None)),
          infer_shape=_scalar_shape, infer_args=lambda attrs, shapes: _with_ranges(shapes, 4),
          infer_type=lambda attrs, dtypes: [
              "int32" if not _calibrated(attrs) else "uint8" if [str(d) for d in dtypes[:2]] == ["uint8", "uint8"]
              else "int8", "float32", "float32"])
def quantized_elemwise_add(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, *, min_calib_range, max_calib_range):
    """``lhs + rhs`` of int8/uint8 arrays as MXNet's oneDNN sum: each scaled in float32 to the
    output's levels and rounded to even. Uncalibrated, the output is int32 over
    ``+-(MaxAbs(lhs) + MaxAbs(rhs))`` (INT32_MAX levels); calibrated, int8 (uint8 when both
    inputs are) over the calibrated range. A uint8 input added to an int8 one is first
    reordered to int8 (rounded, saturated) with its own scale."""
    _check_quantized(lhs)
    _check_quantized(rhs)
    calibrated = _calibrated(dict(min_calib_range=min_calib_range, max_calib_range=max_calib_range))
    a_abs, b_abs = _max_abs(lhs_min, lhs_max), _max_abs(rhs_min, rhs_max)
    if calibrated:
        out_type = torch.uint8 if lhs.dtype == rhs.dtype == torch.uint8 else torch.int8
        lo, hi = torch.tensor(min_calib_range), torch.tensor(max_calib_range)
        out_scale = _scale(out_type, lo, hi)
        scales = [out_scale / _scale(lhs.dtype, lhs_min, lhs_max), out_scale / _scale(rhs.dtype, rhs_min, rhs_max)]
    else:
        out_type, levels = torch.int32, torch.tensor(_INT32_MAX)
        hi = a_abs + b_abs
        lo = -hi
        scales = [a_abs * levels / (hi * torch.tensor(_LEVELS[lhs.dtype])),
                  b_abs * levels / (hi * torch.tensor(_LEVELS[rhs.dtype]))]
    a, b = lhs.float(), rhs.float()
    if lhs.dtype != rhs.dtype:  # the uint8 one reordered to int8 first; its scale then folded in
        u = 0 if lhs.dtype == torch.uint8 else 1
        if not calibrated:
            scales[u] = (a_abs, b_abs)[u] * levels / (hi * torch.tensor(_LEVELS[torch.uint8]))
        if u == 0:
            a = _rescaled(a * scales[0], torch.int8).float()
        else:
            b = _rescaled(b * scales[1], torch.int8).float()
        scales[u] = torch.tensor(1.0)
    return [_rescaled(scales[0] * a + scales[1] * b, out_type)] + _range(lo, hi)


# ----------------------------------------------------------------------------- quantized_elemwise_mul
def _mul_outputs(attrs):
    return 1 if attrs["enable_float_output"] else 3


def _mul_type(attrs, dtypes):
    if attrs["enable_float_output"]:
        return ["float32"]
    return ["int8" if _calibrated(attrs) else "int32", "float32", "float32"]


@register("_contrib_quantized_elemwise_mul", inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
          num_outputs=_mul_outputs, differentiable=False,
          output_names=lambda attrs: ("output",) if attrs["enable_float_output"] else _outputs(attrs),
          params=dict(min_calib_range=Float(None), max_calib_range=Float(None), enable_float_output=Bool(False)),
          infer_shape=lambda attrs, shapes: _scalar_shape(attrs, shapes)[:_mul_outputs(attrs)],
          infer_args=lambda attrs, shapes: _with_ranges(shapes, 4), infer_type=_mul_type)
def quantized_elemwise_mul(lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max, *, min_calib_range, max_calib_range,
                           enable_float_output):
    """``lhs * rhs`` of int8 arrays (MXNet's CPU kernel takes no other) as MXNet 1.9.1's:
    the exact int32 products over the product's int32 range; with ``enable_float_output``
    one float32 output, ``q * (1 / ((127.5 / MaxAbs(lhs)) * (127.5 / MaxAbs(rhs))))``;
    calibrated, that float times ``127.5 / MaxAbs(calibrated range)`` truncated and cast to
    int8 without saturating (MXNet's plain C cast: -172 comes out as 84)."""
    if lhs.dtype != torch.int8 or rhs.dtype != torch.int8:
        raise MXNetError("currently, quantized elemwise mul only support int8 inputs. Check failed: "
                         "mshadow::DataType<DType>::kFlag == type_flag_: TBlob.get_with_shape: data type do not "
                         "match specified type.Expected: unsigned char v.s. given char")
    product = lhs.int() * rhs.int()
    if not enable_float_output and not _calibrated(dict(min_calib_range=min_calib_range,
                                                        max_calib_range=max_calib_range)):
        return [product] + _product_range(lhs_min, lhs_max, rhs_min, rhs_max)
    scale = torch.tensor(1.0) / (_scale(torch.int8, lhs_min, lhs_max) * _scale(torch.int8, rhs_min, rhs_max))
    real = product.float() * scale
    if enable_float_output:
        return [real]
    lo, hi = torch.tensor(min_calib_range), torch.tensor(max_calib_range)
    return [torch.trunc(real * _scale(torch.int8, lo, hi)).to(torch.int32).to(torch.int8)] + _range(lo, hi)


# ----------------------------------------------------------------------------- quantized_embedding
def _embedding_shape(attrs, shapes):
    data = shapes[0]
    return [None if data is None else tuple(data) + (attrs["output_dim"],), (1,), (1,)]


def _embedding_args(attrs, shapes):
    return _with_ranges(shapes, 2, lambda head: [head[0], (attrs["input_dim"], attrs["output_dim"])])


@register("_contrib_quantized_embedding", inputs=("data", "weight", "min_weight", "max_weight"), num_outputs=3,
          output_names=_outputs, differentiable=False,
          params=dict(input_dim=Int(), output_dim=Int(), dtype=Str("float32"), sparse_grad=Bool(False)),
          infer_shape=_embedding_shape, infer_args=_embedding_args,
          infer_type=lambda attrs, dtypes: ["int8", "float32", "float32"])
def quantized_embedding(data, weight, min_weight, max_weight, *, input_dim, output_dim, dtype, sparse_grad):
    """The int8 ``weight``'s rows at the indices ``data`` (clipped to ``[0, input_dim)`` as
    Embedding's), with the weight's range."""
    del dtype, sparse_grad
    _check_dtype(weight, torch.int8)
    if tuple(weight.shape) != (input_dim, output_dim):
        raise MXNetError("quantized_embedding: weight %s is not (input_dim, output_dim) = (%d, %d)"
                         % (tuple(weight.shape), input_dim, output_dim))
    index = data.long().clamp(0, input_dim - 1)
    return [weight[index]] + _range(min_weight, max_weight)


# ----------------------------------------------------------------------------- quantized_batch_norm
def _bn_args(attrs, shapes):
    data = shapes[0]
    channels = None if data is None else (data[attrs["axis"] % len(data)],)
    return [data] + [channels] * 4 + [(1,), (1,)]


@register("_contrib_quantized_batch_norm",
          inputs=("data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"),
          num_outputs=3, output_names=_outputs, differentiable=False,
          params=dict(eps=Float(1e-3), momentum=Float(0.9), fix_gamma=Bool(True), use_global_stats=Bool(False),
                      output_mean_var=Bool(False), axis=Int(1), cudnn_off=Bool(False),
                      min_calib_range=Float(None), max_calib_range=Float(None)),
          infer_shape=_scalar_shape, infer_args=_bn_args,
          infer_type=lambda attrs, dtypes: ["int8", "float32", "float32"])
def quantized_batch_norm(data, gamma, beta, moving_mean, moving_var, min_data, max_data, *, eps, momentum, fix_gamma,
                         use_global_stats, output_mean_var, axis, cudnn_off, min_calib_range, max_calib_range):
    """Inference BatchNorm of int8/uint8 data into int8 over the calibrated range (required),
    as MXNet 1.9.1's oneDNN kernel: uint8 data first reordered to int8 (``* 127.5 / 255.5``,
    rounded), then per channel ``w = gamma * invstd * MaxAbs(data) / MaxAbs(out)`` and
    ``b = (beta - mean * gamma * invstd) * 127.5 / MaxAbs(out)`` (``invstd`` in double),
    run by a BatchNorm of mean 0 and variance 1 that still divides by ``sqrt(1 + eps)``:
    ``round(w / sqrt(1 + eps) * x + b)``, saturated. ``gamma`` is used even under
    ``fix_gamma`` (MXNet's kernel ignores it). The moving statistics are ordinary inputs
    here (MXNet lists them as auxiliary states between beta and min_data)."""
    del momentum, fix_gamma, use_global_stats, output_mean_var, cudnn_off
    if data.dtype not in (torch.int8, torch.uint8):
        raise MXNetError("Check failed: in_type->at(0) == mshadow::kInt8 || in_type->at(0) == mshadow::kUint8 "
                         "QuantizedBatchNorm with MKLDNN backend only supports int8/uint8 input, while %d is given."
                         % _TYPE_CODES.get(data.dtype, -1))
    if min_calib_range is None or max_calib_range is None:
        raise MXNetError("min_calib_range or max_calib_range is not available. Quantized BN currently don't "
                         "support calib_mode=None")
    x = data.float()
    if data.dtype == torch.uint8:
        x = _rescaled(x * (torch.tensor(127.5) / torch.tensor(255.5)), torch.int8).float()
    lo, hi = torch.tensor(min_calib_range), torch.tensor(max_calib_range)
    out_abs = _max_abs(lo, hi)
    invstd = (1.0 / torch.sqrt(moving_var.double() + eps)).float()
    g = gamma.float()
    weight = g * invstd * _max_abs(min_data, max_data) / out_abs
    shift = (beta.float() - moving_mean.float() * g * invstd) * torch.tensor(127.5) / out_abs
    weight = weight / torch.sqrt(torch.tensor(1.0) + torch.tensor(eps, dtype=torch.float32))
    view = [1] * x.dim()
    view[axis % x.dim()] = -1
    return [_rescaled(weight.reshape(view) * x + shift.reshape(view), torch.int8)] + _range(lo, hi)
