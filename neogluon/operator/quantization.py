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

They have no gradient (MXNet: "DO NOT use it in training").
"""
import numpy as np
import torch

from ..base import MXNetError
from .registry import Float, Int, Str, register

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
