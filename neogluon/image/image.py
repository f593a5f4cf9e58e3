"""``mx.image``'s functions: decode, read, resize, pad and crop HWC images, as MXNet 1.9.1.

Decoding, resizing and padding run the OpenCV operators of the registry (``_cvimdecode``,
``_cvimread``, ``_cvimresize``, ``_cvcopyMakeBorder``). The interpolation codes are MXNet's:
0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 9 "auto" (cubic to enlarge, area to
shrink, bilinear otherwise) and 10 random (0-4). The random crops draw from Python's
``random`` module exactly as MXNet's do, so seeding it reproduces MXNet's crops.
"""
import random
import warnings

import numpy as np

from ..base import numeric_types
from .. import ndarray as nd
from ..ndarray import _internal

__all__ = ["imread", "imresize", "imdecode", "scale_down", "copyMakeBorder", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop"]


def imread(filename, *args, **kwargs):
    """Read an image file into an HWC uint8 NDArray (``flag``: 1 colour, 0 gray; ``to_rgb``)."""
    return _internal._cvimread(filename, *args, **kwargs)


def imresize(src, w, h, *args, **kwargs):
    """Resize ``src`` (HWC) to ``w`` x ``h`` with OpenCV (``interp``, default 1 bilinear)."""
    return _internal._cvimresize(src, w, h, *args, **kwargs)


def imdecode(buf, *args, **kwargs):
    """Decode an image (bytes, bytearray, a uint8 numpy array or NDArray) into an HWC uint8 NDArray."""
    if not isinstance(buf, nd.NDArray):
        if not isinstance(buf, (bytes, bytearray, np.ndarray)):
            raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray,"
                             "if you would like to input type str, please convert to bytes")
        buf = nd.array(np.frombuffer(buf, dtype=np.uint8).copy(), dtype=np.uint8)
    return _internal._cvimdecode(buf, *args, **kwargs)


def scale_down(src_size, size):
    """Shrink ``size`` (w, h) to fit in ``src_size`` (w, h), keeping its aspect ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def copyMakeBorder(src, top, bot, left, right, *args, **kwargs):  # pylint: disable=invalid-name
    """Pad an HWC image (``type``: OpenCV's border type; ``value``/``values``: the fill)."""
    return _internal._cvcopyMakeBorder(src, top, bot, left, right, *args, **kwargs)


def _get_interp_method(interp, sizes=()):
    """Resolve MXNet's interpolation code 9 (auto, from (old h, old w, new h, new w)) and 10
    (random); any other code must be 0-4."""
    if interp == 9:
        if sizes:
            assert len(sizes) == 4
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interp method %d" % interp)
    return interp


def resize_short(src, size, interp=2):
    """Resize so that the shorter side is ``size`` (the longer by integer division)."""
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The ``w`` x ``h`` region at (x0, y0), resized to ``size`` (w, h) when given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != size:
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A random crop of ``size`` (w, h) (scaled down to fit, then resized): (image, (x, y, w, h))."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The central crop of ``size`` (w, h) (scaled down to fit, then resized): (image, rect)."""
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """Subtract ``mean`` and divide by ``std`` (in place, as MXNet)."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Inception-style crop: random area fraction in ``area`` and aspect ratio (log-uniform) in
    ``ratio``, ten tries, then the centre crop: (image, (x, y, w, h))."""
    h, w, _ = src.shape
    src_area = h * w
    if "min_area" in kwargs:
        warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
        area = kwargs.pop("min_area")
    assert not kwargs, "unexpected keyword arguments for `random_size_crop`."
    if isinstance(area, numeric_types):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)

