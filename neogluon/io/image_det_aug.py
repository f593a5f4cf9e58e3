"""MXNet 1.9.1's default detection augmenter (``aug_seq='det_aug_default'``), which
``mx.io.ImageDetRecordIter`` applies to every decoded image and its objects, on HWC uint8 RGB
numpy arrays and ``(objects, object_width)`` float32 arrays of ``[cls, xmin, ymin, xmax, ymax,
...]`` rows (corners as fractions of the image).

In MXNet's order (each step found by experiment on MXNet 1.9.1, see
tools/make_extra_fixtures_image_det_aug.py):

0. ``resize``: the shorter side to ``resize``, the longer by integer division (as
   ``ImageRecordIter``'s);
1. colour, when any of ``random_hue_prob``, ``random_saturation_prob``,
   ``random_illumination_prob``, ``random_contrast_prob`` is positive: ``h, s, l`` are
   ``U(-1, 1) * max_random_hue/saturation/illumination`` truncated to integers, ``c`` is
   ``U(-1, 1) * max_random_contrast``; each is kept with its probability (else 0). A non-zero
   ``h, s, l`` is added to the image's 8-bit HLS channels (clipped to 180/255/255; the image is
   converted from its true colours, unlike ``ImageRecordIter``'s ``random_h``); ``|c| > 1e-3``
   scales the pixels by ``1 + c`` (rounded and saturated, no mean);
2. mirror with probability ``rand_mirror_prob``: ``xmin, xmax`` become ``1 - xmax, 1 - xmin``;
3. pad with probability ``rand_pad_prob`` (when ``max_pad_scale`` > 1): a scale ``U(1,
   max_pad_scale)``; below 1.05 nothing is padded; else the image is put in a canvas that
   many times its size (both sides) at ``U(0, scale - 1)`` of its width and height from the
   top left, borders of ``fill_value`` (saturated to 0..255), the boxes projected into it;
4. crop with probability ``rand_crop_prob`` (when ``num_crop_sampler`` > 0): the samplers in
   a random order, each tried up to its ``max_crop_trials`` times until one crop is accepted.
   A trial draws a scale ``s = U(min_crop_scales, max_crop_scales)`` and a ratio ``r =
   sqrt(U(max(min_aspect / image_aspect, s**2), min(max_aspect / image_aspect, 1 / s**2)))``:
   the crop is ``min(1, s*r)`` x ``min(1, s/r)`` of the image (so its aspect ratio in pixels
   is within the aspect range) at a uniform position. It is accepted when some object has
   its IOU with the crop, its intersection over the crop's area (sample coverage) and over
   its own area (object coverage) within the sampler's ranges (a range [0, 1] is not
   checked), and when at least one object is kept: with ``crop_emit_mode='center'`` the
   objects whose centre is in the crop, with ``'overlap'`` those whose intersection over
   their own area is above ``emit_overlap_thresh``. Kept objects are projected into the crop
   and clipped to [0, 1]; the image is cut at ``int(x * cols), int(y * rows)``, ``int(w *
   cols)`` x ``int(h * rows)`` pixels.

The draws come from the iterator's Python generator (MXNet's C++ engine gives other values:
random outputs match MXNet's in distribution, not value by value).
"""
import re

import numpy as np

from ..base import MXNetError
from .image_aug_default import _cv2, _keep3, interpolation, resize_shorter, scale_pixels, shift_hls

__all__ = ["DetAugmenter", "SAMPLER_DEFAULTS"]

# the crop samplers' arguments: one value per sampler (one value is repeated for every sampler)
SAMPLER_DEFAULTS = {"min_crop_scales": (0.0,), "max_crop_scales": (1.0,), "min_crop_aspect_ratios": (1.0,),
                    "max_crop_aspect_ratios": (1.0,), "min_crop_overlaps": (0.0,), "max_crop_overlaps": (1.0,),
                    "min_crop_sample_coverages": (0.0,), "max_crop_sample_coverages": (1.0,),
                    "min_crop_object_coverages": (0.0,), "max_crop_object_coverages": (1.0,),
                    "max_crop_trials": (25,)}
_EMIT_MODES = ("center", "overlap")
_RGB2HLS, _HLS2RGB = 53, 61  # cv2.COLOR_RGB2HLS, COLOR_HLS2RGB
_F = np.float32


def _tuple(name, value):
    """An MXNet tuple argument (a tuple or list, a number, or its string form) as floats."""
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,()\[\]]+", value) if v]
    elif np.ndim(value) == 0:
        value = [value]
    try:
        values = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise MXNetError("ImageDetRecordIter: invalid parameter format for %s: expect a tuple of numbers but "
                         "value=%r" % (name, value)) from None
    if name == "max_crop_trials" and any(v != int(v) for v in values):
        raise MXNetError("ImageDetRecordIter: invalid parameter format for max_crop_trials: expect Shape(tuple) "
                         "but value=%r" % (value,))
    return values


def _per_sampler(name, values, count):
    """``values`` for each of ``count`` samplers, checked as MXNet checks them."""
    if count <= 0:
        return values
    if count == 1 and len(values) != 1:
        raise MXNetError("ImageDetRecordIter: %s needs 1 value with num_crop_sampler=1, got %d: %s"
                         % (name, len(values), values))
    if count > 1 and len(values) == 1:
        return values * count
    if len(values) != count:
        raise MXNetError("ImageDetRecordIter: %s has %d values but num_crop_sampler is %d (# of "
                         "parameters/crop_samplers mismatch): %s" % (name, len(values), count, values))
    return values


class _Sampler:
    """One crop sampler's ranges."""

    def __init__(self, values, i):
        def pair(kind):
            return _F(values["min_crop_" + kind][i]), _F(values["max_crop_" + kind][i])
        self.scales, self.ratios = pair("scales"), pair("aspect_ratios")
        self.overlaps, self.sample_coverages = pair("overlaps"), pair("sample_coverages")
        self.object_coverages = pair("object_coverages")
        self.trials = int(values["max_crop_trials"][i])
        low, high = self.scales
        if not low >= 0:
            raise MXNetError("ImageDetRecordIter: min_crop_scales[%d] = %g must be >= 0" % (i, low))
        if not high <= 1:
            raise MXNetError("ImageDetRecordIter: max_crop_scales[%d] = %g must be <= 1" % (i, high))
        if not high > low:
            raise MXNetError("ImageDetRecordIter: max_crop_scales[%d] = %g must be > min_crop_scales[%d] = %g"
                             % (i, high, i, low))
        if not self.ratios[0] >= 0:
            raise MXNetError("ImageDetRecordIter: min_crop_aspect_ratios[%d] = %g must be >= 0" % (i, self.ratios[0]))
        for kind in ("aspect_ratios", "overlaps", "sample_coverages", "object_coverages"):
            low, high = pair(kind)
            if not high >= low:
                raise MXNetError("ImageDetRecordIter: max_crop_%s[%d] = %g must be >= min_crop_%s[%d] = %g"
                                 % (kind, i, high, kind, i, low))


def _uniform(rng, low, high):
    """``std::uniform_real_distribution<float>(low, high)``: ``low + U * (high - low)`` in float32."""
    return _F(low) + _F(rng.random()) * (_F(high) - _F(low))


def _project(objects, x, y, w, h):
    """The objects' corners in the box (x, y, w, h) of the image, clipped to [0, 1] (float32)."""
    out = objects.copy()
    out[:, 1] = np.maximum(_F(0), (objects[:, 1] - x) / w)
    out[:, 2] = np.maximum(_F(0), (objects[:, 2] - y) / h)
    out[:, 3] = np.minimum(_F(1), (objects[:, 3] - x) / w)
    out[:, 4] = np.minimum(_F(1), (objects[:, 4] - y) / h)
    return out


def _intersections(objects, x, y, w, h):
    """Each object's area of intersection with the box (x, y, w, h), and its own area."""
    left, top = np.maximum(objects[:, 1], x), np.maximum(objects[:, 2], y)
    right, bottom = np.minimum(objects[:, 3], x + w), np.minimum(objects[:, 4], y + h)
    inter = np.where((left < right) & (top < bottom), (right - left) * (bottom - top), _F(0))
    return inter, (objects[:, 3] - objects[:, 1]) * (objects[:, 4] - objects[:, 2])


class DetAugmenter:
    """The detection augmentation of one image and its objects (see the module docstring)."""

    def __init__(self, channels, resize=-1, inter_method=1, rand_crop_prob=0.0, num_crop_sampler=1, crop_emit_mode="center",
                 emit_overlap_thresh=0.3, rand_mirror_prob=0.0, rand_pad_prob=0.0, max_pad_scale=1.0,
                 fill_value=127, max_random_hue=0, random_hue_prob=0.0, max_random_saturation=0,
                 random_saturation_prob=0.0, max_random_illumination=0, random_illumination_prob=0.0,
                 max_random_contrast=0.0, random_contrast_prob=0.0, **samplers):
        unknown = sorted(set(samplers) - set(SAMPLER_DEFAULTS))
        if unknown:
            raise TypeError("DetAugmenter got unexpected arguments %s" % unknown)
        if crop_emit_mode not in _EMIT_MODES:
            raise MXNetError("ImageDetRecordIter: crop_emit_mode: Invalid Input: %r, valid values are: {'center', "
                             "'overlap'}" % (crop_emit_mode,))
        self.emit_center = crop_emit_mode == "center"
        self.emit_overlap_thresh = _F(emit_overlap_thresh)
        if not self.emit_overlap_thresh >= 0:
            raise MXNetError("ImageDetRecordIter: emit_overlap_thresh = %g must be >= 0" % emit_overlap_thresh)
        count = int(num_crop_sampler)
        values = {name: _per_sampler(name, _tuple(name, samplers.get(name, default)), count)
                  for name, default in SAMPLER_DEFAULTS.items()}
        self.samplers = [_Sampler(values, i) for i in range(max(0, count))]
        self.resize, self.inter_method = int(resize), int(inter_method)
        self.rand_crop_prob = float(rand_crop_prob)
        self.rand_mirror_prob = float(rand_mirror_prob)
        self.rand_pad_prob = float(rand_pad_prob)
        self.max_pad_scale = float(max_pad_scale)
        self.fill_value = min(255, max(0, int(fill_value)))  # OpenCV's Scalar saturated to uint8
        self.hsl = (int(max_random_hue), int(max_random_saturation), int(max_random_illumination))
        self.colour_probs = (float(random_hue_prob), float(random_saturation_prob), float(random_illumination_prob),
                             float(random_contrast_prob))
        self.max_random_contrast = float(max_random_contrast)
        # MXNet's HLS conversion fails on grey images (OpenCV asserts 3 channels) whenever an offset
        # can be non-zero: said when the iterator is made
        names = ("random_hue_prob", "random_saturation_prob", "random_illumination_prob")
        shifted = [n for n, p, m in zip(names, self.colour_probs, self.hsl) if p > 0 and abs(m) >= 2]
        if shifted and channels != 3:
            raise MXNetError("ImageDetRecordIter: %s need 3-channel images (HLS), data_shape has %d channel(s)"
                             % ("/".join(shifted), channels))

    def __call__(self, img, objects, rng):
        """The augmented HWC uint8 image and its objects (a new array or ``objects``)."""
        cv2 = _cv2()
        if self.resize > 0:
            img = resize_shorter(cv2, img, self.resize, lambda *sizes: interpolation(self.inter_method, rng, *sizes))
        if any(p > 0 for p in self.colour_probs):
            img = self._colour(cv2, img, rng)
        if self.rand_mirror_prob > 0 and rng.random() < self.rand_mirror_prob:
            img = img[:, ::-1]
            objects = objects.copy()
            objects[:, 1], objects[:, 3] = _F(1) - objects[:, 3], _F(1) - objects[:, 1]
        if self.rand_pad_prob > 0 and self.max_pad_scale > 1 and rng.random() < self.rand_pad_prob:
            img, objects = self._pad(cv2, img, objects, rng)
        if self.rand_crop_prob > 0 and self.samplers and rng.random() < self.rand_crop_prob:
            img, objects = self._crop(img, objects, rng)
        return img, objects

    def _colour(self, cv2, img, rng):
        h, s, l_ = (int(_uniform(rng, -1, 1) * m) for m in self.hsl)  # truncated towards 0, as C++
        c = _uniform(rng, -1, 1) * _F(self.max_random_contrast)
        keep = [rng.random() < p for p in self.colour_probs]
        h, s, l_ = (v if k else 0 for v, k in zip((h, s, l_), keep))
        c = c if keep[3] else _F(0)
        if h or s or l_:
            img = shift_hls(cv2, img, h, s, l_, _RGB2HLS, _HLS2RGB)
        if abs(c) > 1e-3:
            img = scale_pixels(img, _F(1) + c).astype(np.uint8)
        return img

    def _pad(self, cv2, img, objects, rng):
        scale = _uniform(rng, 1, self.max_pad_scale)
        if scale < 1.05:
            return img, objects
        x, y = -_uniform(rng, 0, scale - 1), -_uniform(rng, 0, scale - 1)
        rows, cols = img.shape[:2]
        left, top = int(-x * _F(cols)), int(-y * _F(rows))
        right, bottom = int((scale + x - 1) * _F(cols)), int((scale + y - 1) * _F(rows))
        out = cv2.copyMakeBorder(np.ascontiguousarray(img), top, bottom, left, right, cv2.BORDER_CONSTANT,
                                 value=(self.fill_value,) * 3)
        return _keep3(out, img), _project(objects, x, y, scale, scale)

    def _crop(self, img, objects, rng):
        rows, cols = img.shape[:2]
        aspect = _F(cols) / _F(rows)
        order = list(range(len(self.samplers)))
        rng.shuffle(order)
        for index in order:
            sampler = self.samplers[index]
            for _ in range(sampler.trials):
                box = self._crop_box(sampler, aspect, rng)
                kept = self._try_crop(sampler, objects, box)
                if kept is not None:
                    x, y, w, h = box
                    left, top = int(x * _F(cols)), int(y * _F(rows))
                    width, height = int(w * _F(cols)), int(h * _F(rows))
                    if not width or not height:  # MXNet fails there too (OpenCV's resize of an empty image)
                        raise MXNetError("ImageDetRecordIter: a crop of %gx%g of the %dx%d image is less than a "
                                         "pixel: min_crop_scales[%d] = %g is too small"
                                         % (w, h, cols, rows, index, sampler.scales[0]))
                    return img[top:top + height, left:left + width], kept
        return img, objects

    @staticmethod
    def _crop_box(sampler, aspect, rng):
        scale = _uniform(rng, *sampler.scales) + _F(1e-12)
        low = max(_F(sampler.ratios[0]) / aspect, scale * scale)
        high = min(_F(sampler.ratios[1]) / aspect, _F(1) / (scale * scale))
        ratio = np.sqrt(_uniform(rng, low, high))
        w, h = min(_F(1), scale * ratio), min(_F(1), scale / ratio)
        return _uniform(rng, 0, 1 - w), _uniform(rng, 0, 1 - h), w, h

    def _try_crop(self, sampler, objects, box):
        """The objects kept by the crop ``box``, projected into it; None when it is refused."""
        x, y, w, h = box
        inter, area = _intersections(objects, x, y, w, h)
        ok = np.ones(len(objects), bool)
        with np.errstate(divide="ignore", invalid="ignore"):  # an empty object: NaN fails every check, as in C++
            for (low, high), value in ((sampler.overlaps, lambda: inter / (w * h + area - inter)),
                                       (sampler.sample_coverages, lambda: inter / (w * h)),
                                       (sampler.object_coverages, lambda: inter / area)):
                if low > 0 or high < 1:
                    v = value()
                    ok &= (v >= low) & (v <= high)
            if not ok.any():
                return None
            if self.emit_center:
                cx = (objects[:, 1] + objects[:, 3]) * _F(0.5)
                cy = (objects[:, 2] + objects[:, 4]) * _F(0.5)
                keep = (x <= cx) & (cx < x + w) & (y <= cy) & (cy < y + h)
            else:
                keep = inter / area > self.emit_overlap_thresh
        if not keep.any():
            return None
        return _project(objects[keep], x, y, w, h)
