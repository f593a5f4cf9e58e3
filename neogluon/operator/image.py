"""Image operators: OpenCV's decode/resize/border (``_cvimdecode``, ``_cvimread``,
``_cvimresize``, ``_cvcopyMakeBorder``, behind ``mx.image``) and the ``_image_*`` operators
behind ``mx.nd.image`` and the hybridizable ``gluon.data.vision.transforms``.

Images are HWC (``(N, H, W, C)`` where MXNet allows a batch); ``to_tensor`` makes them CHW
float32 in [0, 1]. The colour operators follow MXNet's C++ kernels (``image_random-inl.h``):
float arithmetic per pixel, then a saturating cast (clamped to [0, 255] and truncated for
uint8). The ``random_*`` operators draw from torch's generator (``mx.random.seed``), so
their draws differ from MXNet's; with ``min_factor == max_factor`` they are deterministic
and match MXNet's pixels. OpenCV is the optional ``neogluon[vision]`` extra.
"""

import numpy as np
import torch

from ..base import MXNetError, _Null
from ..opencv import cv2_module
from .registry import Attr, Bool, Float, Int, Operator, Shape, Str, implementation, register, \
    register_operator

__all__ = []


class FloatTuple(Attr):
    """MXNet's ``tuple of <float>``: a number means a 1-tuple."""
    type_name = "tuple of <float>"

    def convert(self, v):
        if isinstance(v, (list, tuple, np.ndarray)):
            return tuple(float(x) for x in v)
        return (float(v),)


def _numpy(t):
    return t.detach().cpu().numpy()


def _tensor(a, like):
    return torch.from_numpy(np.ascontiguousarray(a)).to(like.device)


def _check(cond, op, message):
    if not cond:
        raise MXNetError("Operator %s: %s" % (op, message))


def _check_hwc(op, data):
    _check(data.dim() == 3, op, "Input image must have shape (height, width, channels), but got %s"
           % (tuple(data.shape),))


def _saturate(values, dtype):
    """MXNet's saturate_cast: float results clamped to [0, 255] and truncated for uint8."""
    if dtype == torch.uint8:
        return values.clamp(0, 255).to(torch.uint8)
    return values.to(dtype)


# ----------------------------------------------------------------------------- OpenCV operators
def _cv_output(img):
    return img[:, :, None] if img.ndim == 2 else img


@register("_cvimdecode", inputs=("buf",), differentiable=False,
          params=dict(flag=Int(1), to_rgb=Bool(True)), aliases=["_npi_cvimdecode"])
def cvimdecode(buf, *, flag, to_rgb):
    """Decode a JPEG/PNG/... buffer (uint8) with OpenCV: HWC uint8, RGB unless ``to_rgb=0``,
    one channel when ``flag=0``."""
    img = _decode(_numpy(buf).reshape(-1).astype(np.uint8, copy=False), flag, to_rgb)
    _check(img is not None, "_cvimdecode", "Decoding failed. Invalid image file.")
    return _tensor(_cv_output(img), buf)


def _decode(buf, flag, to_rgb):
    """cv2.imdecode, then BGR -> RGB; OpenCV >= 4.10 decodes straight to RGB (the same pixels,
    one pass fewer)."""
    cv2 = cv2_module()
    rgb_flag = getattr(cv2, "IMREAD_COLOR_RGB", None)
    if to_rgb and flag == 1 and rgb_flag is not None:
        return cv2.imdecode(buf, rgb_flag)
    img = cv2.imdecode(buf, flag)
    if img is not None and to_rgb and flag != 0 and img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA if img.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    return img


class ImageBytes(Attr):
    """The encoded image of ``_imdecode`` (``str_img``): bytes, or a str whose code points
    are the bytes (a file read as latin-1)."""
    type_name = "string"

    def parse(self, value):
        return self.convert(value)  # as given: no stripping of the bytes at its ends

    def convert(self, v):
        if isinstance(v, (bytes, bytearray, memoryview)):
            return bytes(v)
        if isinstance(v, str):
            return v.encode("latin-1")
        raise ValueError("expected the encoded image as bytes")


class _EachCall(Operator):
    """An operator whose attributes hold the data itself (an encoded image): its calls are
    parsed each time rather than kept in the operator's cache."""

    def entry(self, raw):
        return self.new_entry(raw)

    def lookup(self, values, raw=None):
        if raw is None:
            raw = {k: v for k, v in zip(self.param_names, values) if v is not _Null}
        return self.new_entry(raw)


def imdecode_legacy(mean, *, index, x0, y0, x1, y1, c, size, str_img):  # pylint: disable=unused-argument
    """MXNet's legacy ``_imdecode`` (``src/ndarray/ndarray.cc``): decode the first ``size``
    bytes of ``str_img`` with OpenCV (as stored: BGR or BGRA; grey when ``c`` is 1), keep
    the first ``c`` channels of the box ``[y0, y1) x [x0, x1)`` (the whole image when
    ``y1 == y0``), as CHW in ``mean``'s dtype, minus ``mean`` (``(c, y1 - y0, x1 - x0)``;
    an empty ``mean``: float32, nothing subtracted).

    MXNet 1.9.1 passes ``str_img`` to C++ as a NUL-terminated string, so from Python it
    fails on any real image (PNG and JPEG hold zero bytes); here the whole buffer is read.
    ``index`` (the slot of a 4-d ``out=`` buffer in MXNet) is accepted and not used."""
    op = "_imdecode"
    cv2 = cv2_module()
    _check(0 < size <= len(str_img), op, "size=%d but str_img holds %d bytes" % (size, len(str_img)))
    img = cv2.imdecode(np.frombuffer(str_img[:size], dtype=np.uint8), 0 if c == 1 else -1)
    _check(img is not None, op, "Check failed: res.data != nullptr: OpenCV Failed to decode image")
    img = img[:, :, None] if img.ndim == 2 else img
    rows, cols, channels = img.shape
    _check(c <= channels, op, "Check failed: n_channels <= res.channels() (%d vs. %d)" % (c, channels))
    if y1 - y0 == 0:
        x0, x1, y0, y1 = 0, cols, 0, rows
    _check(0 <= x0 <= x1 <= cols and 0 <= y0 <= y1 <= rows, op,
           "Check failed: x1 <= res.cols && y1 <= res.rows: box (%d, %d, %d, %d) outside the %dx%d image"
           % (x0, y0, x1, y1, cols, rows))
    pixels = _tensor(img[y0:y1, x0:x1, :c].transpose(2, 0, 1), mean)
    if mean.numel() == 0:  # MXNet's empty mean (mx.nd.imdecode's default): float32, nothing subtracted
        return pixels.to(torch.float32)
    _check(tuple(mean.shape) == (c, y1 - y0, x1 - x0), op, "mean must have shape (c, y1 - y0, x1 - x0) = %s, got %s"
           % ((c, y1 - y0, x1 - x0), tuple(mean.shape)))
    return pixels.to(mean.dtype) - mean.detach()


register_operator(_EachCall("_imdecode", imdecode_legacy, inputs=("mean",), differentiable=False,
                            params=dict(index=Int(), x0=Int(), y0=Int(), x1=Int(), y1=Int(), c=Int(), size=Int(),
                                        str_img=ImageBytes())))


@register("_cvimread", inputs=(), differentiable=False,
          params=dict(filename=Str(), flag=Int(1), to_rgb=Bool(True)), aliases=["_npi_cvimread"])
def cvimread(*, filename, flag, to_rgb):
    """Read and decode an image file with OpenCV (see ``_cvimdecode``)."""
    try:
        with open(filename, "rb") as f:
            buf = np.frombuffer(f.read(), dtype=np.uint8)
    except OSError as e:
        raise MXNetError("Operator _cvimread: cannot read %s: %s" % (filename, e.strerror)) from None
    img = _decode(buf, flag, to_rgb)
    _check(img is not None, "_cvimread", "Decoding failed. Invalid image file %s." % filename)
    return torch.from_numpy(np.ascontiguousarray(_cv_output(img)))


def cv_resize(img, w, h, interp):
    """cv2.resize of an HWC numpy image, keeping a trailing channel axis of size 1.

    Bicubic on uint8 (MXNet's default interpolation) is computed as MXNet's OpenCV 3.4.2
    computes it (``_resize_cubic_u8``): OpenCV 4 and later round a few pixels differently."""
    if w <= 0 or h <= 0 or interp not in (0, 1, 2, 3, 4):
        raise MXNetError("image resize: width and height must be positive and interp one of 0-4 (nearest, "
                         "bilinear, bicubic, area, Lanczos); got w=%d, h=%d, interp=%d for an image of shape %s"
                         % (w, h, interp, img.shape))
    if interp == 2 and img.dtype == np.uint8 and img.ndim == 3 and (h, w) != img.shape[:2]:
        return _resize_cubic_u8(img, w, h)
    out = cv2_module().resize(img, (w, h), interpolation=interp)
    return out[:, :, None] if out.ndim == 2 else out


_COEF_SCALE = 2048  # OpenCV's INTER_RESIZE_COEF_SCALE


def _cubic_taps(n_out, n_in):
    """Source indices (clamped: BORDER_REPLICATE) and fixed-point weights of OpenCV's
    bicubic (A = -0.75), per output position, in float32 as OpenCV computes them."""
    f = np.float32
    pos = ((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5).astype(f)
    start = np.floor(pos)
    x = (pos - start).astype(f)
    a, one = f(-0.75), f(1)
    x1, y = x + one, one - x
    c0 = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * y - (a + 3)) * y * y + one
    weights = np.stack([c0, c1, c2, one - c0 - c1 - c2], -1).astype(f)
    index = np.clip(start.astype(np.int64)[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return index, np.rint(weights * f(_COEF_SCALE)).astype(np.int64)


def _resize_cubic_u8(img, w, h):
    """OpenCV 3.4.2's bicubic resize of uint8 images (as built into MXNet 1.9.1).

    The horizontal pass is integer (weights scaled by 2048); the vertical pass runs its SSE2
    kernel on each row's first multiple of 8 values (float32 weights / 2048^2, rounded to
    nearest even) and the exact fixed-point formula ``(v + 2^21) >> 22`` on the rest."""
    xi, xw = _cubic_taps(w, img.shape[1])
    yi, yw = _cubic_taps(h, img.shape[0])
    rows = (img.astype(np.int64)[:, xi, :] * xw[None, :, :, None]).sum(2).reshape(img.shape[0], -1)
    taps = rows[yi]                                       # (h, 4, w * channels)
    fixed = ((taps * yw[:, :, None]).sum(1) + (1 << 21)) >> 22
    beta = (yw.astype(np.float32) * np.float32(1.0 / (_COEF_SCALE * _COEF_SCALE))).astype(np.float32)
    tapsf = taps.astype(np.float32)
    acc = beta[:, 0, None] * tapsf[:, 0]
    for k in range(1, 4):
        acc = acc + beta[:, k, None] * tapsf[:, k]
    simd = (rows.shape[1] // 8) * 8
    fixed[:, :simd] = np.rint(acc[:, :simd])
    return np.clip(fixed, 0, 255).astype(np.uint8).reshape(h, w, img.shape[2])


@register("_cvimresize", inputs=("src",), differentiable=False,
          params=dict(w=Int(), h=Int(), interp=Int(1)), aliases=["_npi_cvimresize"])
def cvimresize(src, *, w, h, interp):
    """Resize an HWC image to ``w`` x ``h`` with OpenCV's interpolation ``interp`` (0 nearest,
    1 bilinear, 2 bicubic, 3 area, 4 Lanczos)."""
    _check(src.dim() == 3, "_cvimresize", "the image must be HWC, got shape %s" % (tuple(src.shape),))
    return _tensor(cv_resize(_numpy(src), w, h, interp), src)


@register("_cvcopyMakeBorder", inputs=("src",), differentiable=False,
          params=dict(top=Int(), bot=Int(), left=Int(), right=Int(), type=Int(0), value=Float(0.0),
                      values=FloatTuple(())))
def cvcopymakeborder(src, *, top, bot, left, right, type, value, values):  # pylint: disable=redefined-builtin
    """Pad an HWC image with OpenCV's ``copyMakeBorder`` (``type`` is cv2's border type;
    ``values`` per channel, else ``value`` for all)."""
    fill = tuple(values) if values else (value,) * 4
    _check(min(top, bot, left, right) >= 0 and (type & ~16) in (0, 1, 2, 3, 4), "_cvcopyMakeBorder",
           "margins must be >= 0 and type an OpenCV border type (0 constant, 1 replicate, 2 reflect, 3 wrap, "
           "4 reflect_101, optionally | 16 isolated); got top=%d, bot=%d, left=%d, right=%d, type=%d"
           % (top, bot, left, right, type))
    out = cv2_module().copyMakeBorder(_numpy(src), top, bot, left, right, type, value=fill)
    return _tensor(_cv_output(out), src)


# ----------------------------------------------------------------------------- layout
def _to_tensor_shape(attrs, shapes):
    s = tuple(shapes[0])
    return [s[:-3] + (s[-1],) + s[-3:-1]]


def _same_shape(attrs, shapes):
    return [tuple(shapes[0])]


def _resize_shape(attrs, shapes):
    s = tuple(shapes[0])
    h, w = resized_hw(s[-3], s[-2], attrs["size"], attrs["keep_ratio"])
    return [s[:-3] + (h, w, s[-1])]


@register("_image_to_tensor", infer_type=lambda attrs, dtypes: [np.dtype(np.float32)], infer_shape=_to_tensor_shape)
def to_tensor(data):
    """HWC (or NHWC) in [0, 255] -> CHW (or NCHW) float32 in [0, 1]."""
    _check(data.dim() in (3, 4), "_image_to_tensor", "Input image must have shape (height, width, channels), "
           "or (N, height, width, channels) but got %s" % (tuple(data.shape),))
    # converted into a contiguous CHW tensor: the division here and a Normalize after it then
    # run over contiguous memory (about 2x faster than on the channels-last strides of movedim)
    chw = data.movedim(-1, -3)
    if data.requires_grad and torch.is_grad_enabled():
        return chw.to(torch.float32, memory_format=torch.contiguous_format) / 255.0
    out = torch.empty(chw.shape, dtype=torch.float32, device=data.device)
    out.copy_(chw)
    return out.div_(255.0)  # in the new memory: the values of ``/ 255.0``, one tensor fewer


@implementation("_image_normalize", infer_shape=_same_shape, params=dict(mean=FloatTuple((0.0, 0.0, 0.0, 0.0)),
                                                                          std=FloatTuple((1.0, 1.0, 1.0, 1.0))))
def normalize(*, mean, std):
    """(data - mean[c]) / std[c] on CHW or NCHW data; mean and std have 1 or C values. Integer
    images are computed in float32 and cast back to their type as MXNet's kernel casts
    (truncated toward zero, wrapped: uint8 -1.5 -> 255). The mean and std tensors are made
    once per dtype, device and channel count (a per-sample Normalize made two each call)."""
    constants = {}

    def run(data):
        _check(data.dim() in (3, 4), "_image_normalize", "Input tensor must have shape (channels, height, width), "
               "or (N, channels, height, width), but got %s" % (tuple(data.shape),))
        if not data.is_floating_point():
            _check(data.dtype not in (torch.bool,) and not data.is_complex(), "_image_normalize",
                   "Input must be a real number type, got %s" % data.dtype)
            return run(data.to(torch.float32)).trunc_().to(torch.int64).to(data.dtype)
        channels = data.shape[-3]
        key = (data.dtype, data.device, channels)
        found = constants.get(key)
        if found is None:
            found = constants[key] = _normalize_constants(mean, std, data, channels)
        m, s = found
        if data.requires_grad and torch.is_grad_enabled():
            return (data - m) / s
        # written into contiguous memory by the subtraction itself: a channels-last view (an NHWC
        # batch transposed) broadcasts ~5x slower, and a separate contiguous copy costs a pass
        out = torch.empty(data.shape, dtype=data.dtype, device=data.device)
        torch.sub(data, m, out=out)
        return out.div_(s)
    return run


def _normalize_constants(mean, std, data, channels):
    """``_image_normalize``'s (C, 1, 1) mean and std tensors for ``data``, checked as MXNet does."""
    _check(channels in (1, 3), "_image_normalize", "The channel of the input image must be 1 or 3, got %d"
           % channels)
    for name, v in (("mean", mean), ("std", std)):
        _check(len(v) in (1, channels) or (v in ((0.0,) * 4, (1.0,) * 4)), "_image_normalize",
               "Invalid %s for input with shape %s. %s must have either 1 or %d elements, but got %s"
               % (name, tuple(data.shape), name, channels, list(v)))
    return tuple(torch.tensor(v[:channels], dtype=data.dtype, device=data.device).reshape(-1, 1, 1)
                 for v in (mean, std))


def resized_hw(h, w, size, keep_ratio):
    """MXNet's GetHeightAndWidth: size (w, h), or one int (square, or the short side when
    ``keep_ratio``; the long side by integer division)."""
    _check(len(size) in (1, 2), "_image_resize", "Input size dimension must be 1 or 2, but got %d" % len(size))
    _check(all(s > 0 for s in size), "_image_resize", "Input size should be greater than 0, but got %s"
           % (tuple(size),))
    if len(size) == 2:
        return size[1], size[0]
    if not keep_ratio:
        return size[0], size[0]
    if h > w:
        return h * size[0] // w, size[0]
    return size[0], w * size[0] // h


@register("_image_resize", differentiable=False, infer_shape=_resize_shape,
          params=dict(size=Shape(()), keep_ratio=Bool(False), interp=Int(1)))
def resize(data, *, size, keep_ratio, interp):
    """Resize an HWC (or NHWC) image with OpenCV, as MXNet's ``image.resize``."""
    _check(data.dim() in (3, 4), "_image_resize", "Input image must have shape (height, width, channels), "
           "or (N, height, width, channels) but got %s" % (tuple(data.shape),))
    h, w = resized_hw(data.shape[-3], data.shape[-2], size, keep_ratio)
    a = _numpy(data)
    if a.ndim == 3:
        return _tensor(cv_resize(a, w, h, interp), data)
    return _tensor(np.stack([cv_resize(x, w, h, interp) for x in a]), data)


@register("_image_crop", params=dict(x=Int(), y=Int(), width=Int(), height=Int()))
def crop(data, *, x, y, width, height):
    """The ``width`` x ``height`` region at column ``x``, row ``y`` of an HWC (or NHWC) image."""
    _check(data.dim() in (3, 4), "_image_crop", "Input image must have shape (height, width, channels), "
           "or (N, height, width, channels) but got %s" % (tuple(data.shape),))
    h, w, c = data.shape[-3:]
    _check(c in (1, 3), "_image_crop", "Expect channel of the input image is 1 or 3, but got %d" % c)
    _check(0 <= x and 0 <= y and width > 0 and height > 0 and x + width <= w and y + height <= h,
           "_image_crop", "the region x=%d, y=%d, width=%d, height=%d is not inside the %dx%d image"
           % (x, y, width, height, w, h))
    return data[..., y:y + height, x:x + width, :].clone()  # a new array, as MXNet's (not a view)


@register("_image_flip_left_right")
def flip_left_right(data):
    """Mirror an HWC image left to right."""
    _check_hwc("_image_flip_left_right", data)
    return data.flip(1)


@register("_image_flip_top_bottom")
def flip_top_bottom(data):
    """Mirror an HWC image top to bottom."""
    _check_hwc("_image_flip_top_bottom", data)
    return data.flip(0)


def _coin():
    """True with probability 0.5, from torch's generator (the float32 draw compared in Python:
    the same outcome as comparing the tensor, one torch call instead of three)."""
    return torch.rand(()).item() < 0.5


@register("_image_random_flip_left_right", differentiable=False)
def random_flip_left_right(data):
    """``flip_left_right`` with probability 0.5."""
    _check_hwc("_image_random_flip_left_right", data)
    return data.flip(1) if _coin() else data.clone()


@register("_image_random_flip_top_bottom", differentiable=False)
def random_flip_top_bottom(data):
    """``flip_top_bottom`` with probability 0.5."""
    _check_hwc("_image_random_flip_top_bottom", data)
    return data.flip(0) if _coin() else data.clone()


# ----------------------------------------------------------------------------- colour
_GRAY = (0.299, 0.587, 0.114)


def _uniform(low, high):
    """A float32 draw from U(low, high), as MXNet's kernels draw their factors."""
    return float(np.float32(low + (high - low) * float(torch.rand((), dtype=torch.float64))))


def adjust_brightness(data, alpha):
    return _saturate(data.to(torch.float32) * np.float32(alpha), data.dtype)


def adjust_contrast(data, alpha):
    """Blend with the image's mean gray level (0.299 R + 0.587 G + 0.114 B over all pixels)."""
    x = data.to(torch.float32)
    if x.shape[2] > 1:
        gray = (x[:, :, :3] * torch.tensor(_GRAY, device=x.device)).sum()
    else:
        gray = x.sum()
    beta = (1 - alpha) * gray / (x.shape[0] * x.shape[1])
    return _saturate(x * alpha + beta, data.dtype)


def adjust_saturation(data, alpha):
    """Blend each pixel with a gray level that is, as in MXNet 1.9.1's kernel (a bug kept
    for the same pixels: its loop assigns instead of accumulating), 0.114 * blue only."""
    if data.shape[2] == 1:
        return data.clone()
    x = data.to(torch.float32)
    gray = x[:, :, 2:3] * np.float32(_GRAY[2])
    return _saturate(gray * np.float32(1 - np.float32(alpha)) + x * np.float32(alpha), data.dtype)


def _rgb_to_hls(x):
    r, g, b = (x[..., i] / 255.0 for i in range(3))
    vmax = torch.maximum(torch.maximum(r, g), b)
    vmin = torch.minimum(torch.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * 0.5
    valid = diff > np.finfo(np.float32).eps
    safe = torch.where(valid, diff, torch.ones_like(diff))
    sat = torch.where(light < 0.5, diff / torch.where(valid, vmax + vmin, torch.ones_like(diff)),
                      diff / torch.where(valid, 2.0 - vmax - vmin, torch.ones_like(diff)))
    scale = 60.0 / safe
    hue = torch.where(vmax == r, (g - b) * scale,
                      torch.where(vmax == g, (b - r) * scale + 120.0, (r - g) * scale + 240.0))
    hue = torch.where(hue < 0, hue + 360.0, hue)
    zero = torch.zeros_like(hue)
    return torch.where(valid, hue, zero), light, torch.where(valid, sat, zero)


# OpenCV's HLS sectors: which of (p2, p1, falling, rising) is b, g, r in each 60-degree sector
_SECTORS = torch.tensor([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hls_to_rgb(hue, light, sat):
    """OpenCV's HLS -> RGB, in MXNet's float32 operation order."""
    p2 = torch.where(light <= 0.5, light * (1 + sat), light + sat - light * sat)
    p1 = 2 * light - p2
    h = hue * np.float32(1.0 / 60.0)
    while bool((h < 0).any()):
        h = torch.where(h < 0, h + 6, h)
    while bool((h >= 6).any()):
        h = torch.where(h >= 6, h - 6, h)
    sector = h.to(torch.int64)
    h = h - sector
    tab = torch.stack([p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h], -1)
    idx = _SECTORS.to(hue.device)[sector]
    bgr = torch.gather(tab, -1, idx)
    rgb = bgr.flip(-1)
    gray = light.unsqueeze(-1).expand_as(rgb)
    return torch.where((sat != 0).unsqueeze(-1), rgb, gray) * 255.0


def adjust_hue(data, alpha):
    """Rotate the hue by ``alpha * 360`` degrees in OpenCV's HLS space."""
    if data.shape[2] == 1:
        return data.clone()
    x = data.to(torch.float32)
    hue, light, sat = _rgb_to_hls(x)
    return _saturate(_hls_to_rgb(hue + np.float32(alpha) * np.float32(360.0), light, sat), data.dtype)


_FACTORS = dict(min_factor=Float(), max_factor=Float())


def _random_adjust(name, adjust):
    def fn(data, *, min_factor, max_factor):
        _check_hwc(name, data)
        _check(0 <= min_factor <= max_factor, name, "min_factor %g and max_factor %g must satisfy "
               "0 <= min_factor <= max_factor" % (min_factor, max_factor))
        return adjust(data, _uniform(min_factor, max_factor))
    fn.__name__ = name
    fn.__doc__ = "%s by a factor drawn uniformly from [min_factor, max_factor]." % adjust.__doc__
    return register(name, params=_FACTORS, differentiable=False)(fn)


adjust_brightness.__doc__ = "Scale the pixel values"
random_brightness = _random_adjust("_image_random_brightness", adjust_brightness)
random_contrast = _random_adjust("_image_random_contrast", adjust_contrast)
random_saturation = _random_adjust("_image_random_saturation", adjust_saturation)
random_hue = _random_adjust("_image_random_hue", adjust_hue)


@register("_image_random_color_jitter", differentiable=False,
          params=dict(brightness=Float(), contrast=Float(), saturation=Float(), hue=Float()))
def random_color_jitter(data, *, brightness, contrast, saturation, hue):
    """Brightness, contrast, saturation (factors 1 +- U(amount)) and hue (+- U(hue)) in a
    random order; an amount of 0 skips its adjustment."""
    _check_hwc("_image_random_color_jitter", data)
    steps = [(brightness, lambda x, a: adjust_brightness(x, 1 + a)),
             (contrast, lambda x, a: adjust_contrast(x, 1 + a)),
             (saturation, lambda x, a: adjust_saturation(x, 1 + a)),
             (hue, adjust_hue)]
    out = data
    for i in torch.randperm(4).tolist():
        amount, step = steps[i]
        if amount > 0:
            out = step(out, _uniform(-amount, amount))
    return out if out is not data else data.clone()


# AlexNet's PCA lighting: eigenvalue-scaled eigenvectors of ImageNet's RGB covariance
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], dtype=np.float32)


def adjust_lighting_by(data, alpha):
    _check(data.shape[2] == 3, "_image_adjust_lighting", "the image must have 3 channels, got %d"
           % data.shape[2])
    pca = torch.from_numpy(_EIG @ np.asarray(alpha, dtype=np.float32)).to(data.device)
    return _saturate(data.to(torch.float32) + pca, data.dtype)


@register("_image_adjust_lighting", differentiable=False, params=dict(alpha=FloatTuple()))
def adjust_lighting(data, *, alpha):
    """Add AlexNet's PCA lighting noise ``eig @ alpha`` to every pixel of an HWC RGB image."""
    _check_hwc("_image_adjust_lighting", data)
    _check(len(alpha) == 3, "_image_adjust_lighting", "alpha must have 3 values, got %s" % (alpha,))
    return adjust_lighting_by(data, alpha)


@register("_image_random_lighting", differentiable=False, params=dict(alpha_std=Float(0.05)))
def random_lighting(data, *, alpha_std):
    """``adjust_lighting`` with alpha drawn from N(0, alpha_std)."""
    _check_hwc("_image_random_lighting", data)
    alpha = (torch.randn(3, dtype=torch.float64) * alpha_std).tolist()
    return adjust_lighting_by(data, alpha)


