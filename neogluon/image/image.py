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
import torch

from ..base import numeric_types
from .. import ndarray as nd
from ..ndarray import _internal
from ..numpy.multiarray import as_np
from ..np_mode import is_np_array

__all__ = ["imread", "imresize", "imdecode", "scale_down", "copyMakeBorder", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate"]


def _cv(name, *args, **kwargs):
    """Run OpenCV's operator ``name``; under ``npx.set_np()`` its NumPy twin (``_npi_cvimread``,
    ...), which gives an ``mx.np.ndarray`` as MXNet's ``mx.image`` does there."""
    if is_np_array():
        return as_np(getattr(_internal, "_npi" + name)(*args, **kwargs))
    return getattr(_internal, name)(*args, **kwargs)


def imread(filename, *args, **kwargs):
    """Read an image file into an HWC uint8 NDArray (``flag``: 1 colour, 0 gray; ``to_rgb``);
    an ``mx.np.ndarray`` under ``npx.set_np()``."""
    return _cv("_cvimread", filename, *args, **kwargs)


def imresize(src, w, h, *args, **kwargs):
    """Resize ``src`` (HWC) to ``w`` x ``h`` with OpenCV (``interp``, default 1 bilinear); an
    ``mx.np.ndarray`` under ``npx.set_np()``, so are the crops and augmenters that resize."""
    return _cv("_cvimresize", src, w, h, *args, **kwargs)


def imdecode(buf, *args, **kwargs):
    """Decode an image (bytes, bytearray, a uint8 numpy array or NDArray) into an HWC uint8 NDArray;
    an ``mx.np.ndarray`` under ``npx.set_np()``."""
    if not isinstance(buf, nd.NDArray):
        if not isinstance(buf, (bytes, bytearray, np.ndarray)):
            raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray,"
                             "if you would like to input type str, please convert to bytes")
        # wrapped as it is (one copy of the bytes; nd.array's conversions cost more than the copy)
        buf = nd.NDArray(torch.from_numpy(np.frombuffer(buf, dtype=np.uint8).copy()))
    return _cv("_cvimdecode", buf, *args, **kwargs)


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



def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate float32 CHW images (or an NCHW batch, one angle each) counter-clockwise by
    ``rotation_degrees`` about their centres with ``BilinearSampler`` (zeros outside);
    ``zoom_in`` scales so that no zeros show, ``zoom_out`` so that the whole image shows."""
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype != np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    expanded = False
    if src.ndim == 3:
        expanded = True
        src = src.expand_dims(axis=0)
        if not isinstance(rotation_degrees, numeric_types):
            raise TypeError("When a single image is passed the rotation angle is required to be a scalar.")
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    if isinstance(rotation_degrees, numeric_types):
        rotation_degrees = nd.array([rotation_degrees] * len(src), ctx=src.context)
    if len(src) != len(rotation_degrees):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    rotation_rad = (np.pi * rotation_degrees.as_in_context(src.context) / 180).expand_dims(axis=1).expand_dims(axis=2)
    _, _, h, w = src.shape
    hscale, wscale = float(h - 1) / 2, float(w - 1) / 2
    h_matrix = (nd.repeat(nd.arange(h, ctx=src.context).astype("float32").reshape(h, 1), w, axis=1)
                - hscale).expand_dims(axis=0)
    w_matrix = (nd.repeat(nd.arange(w, ctx=src.context).astype("float32").reshape(1, w), h, axis=0)
                - wscale).expand_dims(axis=0)
    c_alpha, s_alpha = nd.cos(rotation_rad), nd.sin(rotation_rad)
    w_matrix_rot = (w_matrix * c_alpha - h_matrix * s_alpha) / wscale
    h_matrix_rot = (w_matrix * s_alpha + h_matrix * c_alpha) / hscale
    globalscale = 1
    if zoom_in or zoom_out:
        h, w = nd.array([h], ctx=src.context), nd.array([w], ctx=src.context)
        rho_corner = nd.sqrt(h * h + w * w)
        ang_corner = nd.arctan(h / w)
        corner1_x = nd.abs(rho_corner * nd.cos(ang_corner + nd.abs(rotation_rad)))
        corner1_y = nd.abs(rho_corner * nd.sin(ang_corner + nd.abs(rotation_rad)))
        corner2_x = nd.abs(rho_corner * nd.cos(ang_corner - nd.abs(rotation_rad)))
        corner2_y = nd.abs(rho_corner * nd.sin(ang_corner - nd.abs(rotation_rad)))
        max_x, max_y = nd.maximum(corner1_x, corner2_x), nd.maximum(corner1_y, corner2_y)
        if zoom_out:
            globalscale = nd.maximum(max_x / w, max_y / h)
        else:
            globalscale = nd.minimum(w / max_x, h / max_y)
        globalscale = globalscale.expand_dims(axis=3)
    grid = nd.concat(w_matrix_rot.expand_dims(axis=1), h_matrix_rot.expand_dims(axis=1), dim=1) * globalscale
    rot_img = nd.BilinearSampler(src, grid)
    return rot_img[0] if expanded else rot_img


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """``imrotate`` by angles drawn from U(angle_limits) (numpy.random, as MXNet)."""
    if src.ndim == 3:
        rotation_degrees = np.random.uniform(*angle_limits)
    else:
        rotation_degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, rotation_degrees, zoom_in=zoom_in, zoom_out=zoom_out)
