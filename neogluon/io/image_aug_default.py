"""MXNet 1.9.1's default image augmenter (``aug_seq='aug_default'``), which
``mx.io.ImageRecordIter`` applies to every decoded image, on HWC uint8 RGB numpy arrays.

In MXNet's order (src/io/image_aug_default.cc):

1. ``resize``: the shorter side to ``resize``, the longer by integer division;
2. one affine warp (``cv2.warpAffine``, border ``fill_value``) when any of rotation
   (``max_rotate_angle``: an integer angle drawn in [-max, max]; ``rotate`` > 0: that angle),
   shear (``max_shear_ratio``: s drawn in [-max, max)), random scale (``min/max_random_scale``),
   aspect ratio (``max_aspect_ratio``) or size bounds (``min/max_img_size``) is set: the
   matrix ``[[hs*a - s*b*ws, hs*b + s*a*ws, tx], [-b*ws, a*ws, ty]]`` with ``a, b`` the cosine
   and sine of the angle, ``hs = 2*scale/(1+ratio)``, ``ws = ratio*hs``, the output
   ``scale * size`` bounded by the size bounds, the image centred in it;
3. ``pad`` pixels of ``fill_value`` on every side;
4. the crop of ``data_shape`` (centre, or uniform with ``rand_crop``; an image smaller than
   ``data_shape`` is first resized, aspect kept and sides truncated, to cover it); with
   ``min/max_crop_size`` a square of a size drawn in [min, max] is cut instead and resized
   to ``data_shape``; with ``random_resized_crop`` (when ``min/max_random_area`` or the aspect
   ratio range is set) up to 10 tries of: an area fraction ``U(min_random_area,
   max_random_area)`` and a ratio ``U(min_aspect_ratio, max_aspect_ratio)`` (without
   ``min_aspect_ratio``: ``U(1 - max_aspect_ratio, 1 + max_aspect_ratio)``) give the sides
   ``round(sqrt(area * ratio))`` x ``round(sqrt(area / ratio))`` (float32), swapped with
   probability 0.5; the first that fits is cut at a uniform position and resized to
   ``data_shape``; when none fits, the plain crop above;
5. colour jitter: ``brightness`` (pixels times ``1 + U(-b, b)``), ``contrast`` (towards the
   image's mean grey level), ``saturation`` (towards each pixel's grey level), each rounded
   to uint8 as OpenCV's ``convertTo``/``addWeighted``; the grey levels, as MXNet's, convert
   the RGB pixels with OpenCV's BGR weights;
6. HSL shift (``random_h/s/l``): integer offsets drawn in [-max, max) added to OpenCV's
   8-bit HLS channels (of the RGB pixels read as BGR, as MXNet), clipped to 180/255/255;
7. PCA lighting noise (``pca_noise``): AlexNet's eigenvectors and eigenvalues, weights
   drawn from N(0, pca_noise), the RGB offset added with rounding and saturation.

The draws come from the iterator's Python generator, in MXNet's order (MXNet's C++ engine
gives other values: random outputs match MXNet's in distribution, not value by value).
"""
import math

import numpy as np

from ..base import MXNetError

# AlexNet's ImageNet RGB principal components, as MXNet's augmenter and mx.image.LightingAug
_EIGVAL = np.array([55.46, 4.794, 1.148], np.float32)
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]],
                   np.float32)
# MXNet's augmenter gets RGB images but converts them with OpenCV's BGR codes (grey levels
# weigh red 0.114 and blue 0.299; hue turns the other way): its results are kept
_GREY, _HLS, _HLS_BACK = 6, 52, 60  # cv2.COLOR_BGR2GRAY, COLOR_BGR2HLS, COLOR_HLS2BGR
# MXNet's interpolation codes to OpenCV's (0 nearest, 1 linear, 2 cubic, 3 area, 4 Lanczos)
_CV_INTER = (0, 1, 2, 3, 4)


def _cv2():
    try:
        import cv2
    except ImportError:  # pragma: no cover - the vision extra
        raise ImportError("mx.io.ImageRecordIter needs OpenCV: pip install 'neogluon[vision]'") from None
    return cv2


class DefaultAugmenter:
    """The augmentation of one image (see the module docstring); ``rng`` is a ``random.Random``."""

    def __init__(self, data_shape, rng, resize=-1, rand_crop=False, max_rotate_angle=0, max_aspect_ratio=0.0,
                 max_shear_ratio=0.0, max_random_scale=1.0, min_random_scale=1.0, max_img_size=1e10,
                 min_img_size=0.0, pca_noise=0.0, random_h=0, random_s=0, random_l=0, rotate=-1, fill_value=255,
                 inter_method=1, pad=0, max_crop_size=-1, min_crop_size=-1, brightness=0.0, contrast=0.0,
                 saturation=0.0, random_resized_crop=False, min_random_area=1.0, max_random_area=1.0,
                 min_aspect_ratio=None):
        if not (0 <= inter_method <= 4 or 9 <= inter_method <= 10):
            raise MXNetError("ImageRecordIter: invalid inter_method %d: valid values are 0, 1, 2, 3, 4, 9, 10"
                             % inter_method)
        self.data_shape = tuple(data_shape)
        self.rng = rng
        self.resize = resize
        self.rand_crop = rand_crop
        self.max_rotate_angle = int(max_rotate_angle)
        self.max_aspect_ratio = float(max_aspect_ratio)
        self.max_shear_ratio = float(max_shear_ratio)
        self.max_random_scale = float(max_random_scale)
        self.min_random_scale = float(min_random_scale)
        self.max_img_size = float(max_img_size)
        self.min_img_size = float(min_img_size)
        self.pca_noise = float(pca_noise)
        self.hsl = (int(random_h), int(random_s), int(random_l))
        self.rotate = int(rotate)
        self.fill_value = int(fill_value)
        self.inter_method = inter_method
        self.pad = int(pad)
        self.crop_size = (int(min_crop_size), int(max_crop_size))
        self.jitter = (float(brightness), float(contrast), float(saturation))
        self.min_aspect_ratio = None if min_aspect_ratio is None else float(min_aspect_ratio)
        self.random_resized_crop = bool(random_resized_crop)
        self.random_area = (float(min_random_area), float(max_random_area))
        # with random_resized_crop the aspect ratio shapes the crop, not the warp
        aspect = not self.random_resized_crop and (self.max_aspect_ratio != 0 or self.min_aspect_ratio is not None)
        self.affine = (self.max_rotate_angle > 0 or self.max_shear_ratio > 0 or self.rotate > 0
                       or self.max_random_scale != 1 or self.min_random_scale != 1 or aspect
                       or self.max_img_size != 1e10 or self.min_img_size != 0)
        if self.affine and inter_method == 0:  # as MXNet: its warp takes no nearest-neighbour code
            raise MXNetError("ImageRecordIter: invalid inter_method 0 with rotation, shear, random scale, aspect "
                             "ratio or image size bounds: valid values are 1, 2, 3, 4, 9, 10")
        self.resized_crop = self.random_resized_crop and self._check_resized_crop(rand_crop)

    def _aspect_range(self):
        if self.min_aspect_ratio is None:
            return 1 - self.max_aspect_ratio, 1 + self.max_aspect_ratio
        return self.min_aspect_ratio, self.max_aspect_ratio

    def _check_resized_crop(self, rand_crop):
        """MXNet's checks of ``random_resized_crop``; whether it crops (else the plain crop)."""
        if (self.min_random_scale != 1 or self.max_random_scale != 1 or self.crop_size != (-1, -1)
                or rand_crop):
            raise MXNetError("ImageRecordIter: setting random_resized_crop to true conflicts with "
                             "min_random_scale, max_random_scale, min_crop_size, max_crop_size, and rand_crop")
        low, high = self.random_area
        if low == 1 and high == 1 and self.max_aspect_ratio == 0 and self.min_aspect_ratio is None:
            return False
        low_ratio, high_ratio = self._aspect_range()
        if not low_ratio > 0:
            raise MXNetError("ImageRecordIter: random_resized_crop needs a positive aspect ratio, got the range "
                             "[%g, %g] (min_aspect_ratio, max_aspect_ratio)" % (low_ratio, high_ratio))
        if not low <= high:
            raise MXNetError("ImageRecordIter: min_random_area %g > max_random_area %g" % (low, high))
        if not low_ratio <= high_ratio:
            raise MXNetError("ImageRecordIter: min_aspect_ratio %g > max_aspect_ratio %g" % (low_ratio, high_ratio))
        return True

    def _inter(self, rows, cols, new_rows, new_cols):
        """OpenCV's interpolation for MXNet's code (``interpolation``)."""
        return interpolation(self.inter_method, self.rng, rows, cols, new_rows, new_cols)

    def __call__(self, img):
        """The augmented HWC uint8 image (a new array or a view of ``img``)."""
        cv2 = _cv2()
        if self.resize > 0:
            img = resize_shorter(cv2, img, self.resize, self._inter)
        if self.affine:
            img = self._warp(cv2, img)
        if self.pad > 0:
            fill = (self.fill_value,) * 3
            img = _keep3(cv2.copyMakeBorder(img, self.pad, self.pad, self.pad, self.pad, cv2.BORDER_CONSTANT,
                                            value=fill), img)
        img = self._crop(cv2, img)
        if any(self.jitter):
            img = self._color_jitter(cv2, img)
        if any(self.hsl):
            img = self._hsl(cv2, img)
        if self.pca_noise > 0:
            img = self._pca(img)
        return img

    def _warp(self, cv2, img):
        rng = self.rng
        s = np.float32(rng.random() * self.max_shear_ratio * 2 - self.max_shear_ratio)
        angle = rng.randint(-self.max_rotate_angle, self.max_rotate_angle)
        if self.rotate > 0:
            angle = self.rotate
        a = np.float32(math.cos(angle / 180.0 * math.pi))
        b = np.float32(math.sin(angle / 180.0 * math.pi))
        scale = np.float32(rng.random() * (self.max_random_scale - self.min_random_scale) + self.min_random_scale)
        if self.random_resized_crop:
            ratio = np.float32(1)
        else:
            low, high = self._aspect_range()
            ratio = np.float32(rng.random() * (high - low) + low)
        hs = np.float32(2 * scale / (1 + ratio))
        ws = np.float32(ratio * hs)
        rows, cols = img.shape[:2]
        new_w = max(self.min_img_size, min(self.max_img_size, float(scale * cols)))
        new_h = max(self.min_img_size, min(self.max_img_size, float(scale * rows)))
        m = np.empty((2, 3), np.float32)
        m[0, 0] = hs * a - s * b * ws
        m[1, 0] = -b * ws
        m[0, 1] = hs * b + s * a * ws
        m[1, 1] = a * ws
        m[0, 2] = (np.float32(new_w) - (m[0, 0] * cols + m[0, 1] * rows)) / 2
        m[1, 2] = (np.float32(new_h) - (m[1, 0] * cols + m[1, 1] * rows)) / 2
        size = (int(new_w), int(new_h))
        inter = self._inter(rows, cols, size[1], size[0])
        return _keep3(cv2.warpAffine(img, m, size, flags=inter, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(self.fill_value,) * 3), img)

    def _resized_crop(self, cv2, img):
        """The random resized crop (module docstring, step 4), or None when no try fits."""
        _, h, w = self.data_shape
        rows, cols = img.shape[:2]
        area = np.float32(rows * cols)
        low, high = self.random_area
        low_ratio, high_ratio = self._aspect_range()
        rng = self.rng
        for _ in range(10):
            target = area * np.float32(rng.random() * (high - low) + low)
            ratio = np.float32(rng.random() * (high_ratio - low_ratio) + low_ratio)
            # C++'s std::round: halves away from zero
            crop_w = int(math.floor(np.sqrt(np.float32(target * ratio)) + 0.5))
            crop_h = int(math.floor(np.sqrt(np.float32(target / ratio)) + 0.5))
            if rng.random() > 0.5:
                crop_w, crop_h = crop_h, crop_w
            if crop_w <= cols and crop_h <= rows:
                x, y = rng.randint(0, cols - crop_w), rng.randint(0, rows - crop_h)
                return _keep3(cv2.resize(img[y:y + crop_h, x:x + crop_w], (w, h),
                                         interpolation=self._inter(crop_h, crop_w, h, w)), img)
        return None

    def _crop(self, cv2, img):
        _, h, w = self.data_shape
        if self.resized_crop:
            out = self._resized_crop(cv2, img)
            if out is not None:
                return out
        rows, cols = img.shape[:2]
        low, high = self.crop_size
        if low != -1 or high != -1:
            if not (cols >= high and rows >= high and high >= low):
                raise MXNetError("ImageRecordIter: an image of %dx%d is smaller than max_crop_size %d (or "
                                 "max_crop_size < min_crop_size %d)" % (cols, rows, high, low))
            size = self.rng.randint(low, high)
            if self.rand_crop:
                y, x = self.rng.randint(0, rows - size), self.rng.randint(0, cols - size)
            else:
                y, x = (rows - size) // 2, (cols - size) // 2
            return _keep3(cv2.resize(img[y:y + size, x:x + size], (w, h),
                                     interpolation=self._inter(size, size, h, w)), img)
        if rows < h or cols < w:
            # as MXNet 1.9.1: scaled up (aspect kept, sides truncated) to cover data_shape, then cropped
            factor = max(h / rows, w / cols)
            new_w, new_h = max(w, int(cols * factor)), max(h, int(rows * factor))
            img = _keep3(cv2.resize(img, (new_w, new_h), interpolation=self._inter(rows, cols, new_h, new_w)), img)
            rows, cols = new_h, new_w
        if self.rand_crop:
            y, x = self.rng.randint(0, rows - h), self.rng.randint(0, cols - w)
        else:
            y, x = (rows - h) // 2, (cols - w) // 2
        return img[y:y + h, x:x + w]

    def _color_jitter(self, cv2, img):
        if img.shape[2] != 3:
            raise MXNetError("ImageRecordIter: brightness/contrast/saturation need 3-channel images")
        brightness, contrast, saturation = self.jitter
        out = img.astype(np.float32)
        if brightness > 0:
            out = scale_pixels(out, np.float32(1 + self.rng.random() * brightness * 2 - brightness))
        if contrast > 0:
            alpha = np.float32(1 + self.rng.random() * contrast * 2 - contrast)
            grey = cv2.cvtColor(out.astype(np.uint8), _GREY).mean()
            out = np.clip(np.rint(out * alpha + np.float32((1 - alpha) * grey)), 0, 255)
        if saturation > 0:
            alpha = np.float32(1 + self.rng.random() * saturation * 2 - saturation)
            grey = cv2.cvtColor(out.astype(np.uint8), _GREY).astype(np.float32)[:, :, None]
            out = np.clip(np.rint(out * alpha + grey * (1 - alpha)), 0, 255)
        return out.astype(np.uint8)

    def _hsl(self, cv2, img):
        if img.shape[2] != 3:
            raise MXNetError("ImageRecordIter: random_h/random_s/random_l need 3-channel images")
        rh, rs, rl = self.hsl
        # MXNet truncates the float draws to int
        h = int(self.rng.random() * rh * 2 - rh)
        s = int(self.rng.random() * rs * 2 - rs)
        l_ = int(self.rng.random() * rl * 2 - rl)
        return shift_hls(cv2, img, h, s, l_, _HLS, _HLS_BACK)

    def _pca(self, img):
        alpha = np.array([self.rng.gauss(0.0, self.pca_noise) for _ in range(3)], np.float32)
        offset = _EIGVEC @ (alpha * _EIGVAL)
        channels = min(3, img.shape[2])
        out = img.astype(np.float32)
        out[:, :, :channels] += offset[:channels]
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def scale_pixels(pixels, alpha):
    """``pixels * alpha`` (float32) rounded and saturated to [0, 255] as OpenCV's ``convertTo``
    (a float32 array holding uint8 values)."""
    return np.clip(np.rint(np.asarray(pixels, np.float32) * np.float32(alpha)), 0, 255)


def shift_hls(cv2, img, hue, saturation, lightness, to_hls, from_hls):
    """``img`` (HWC uint8) with integer offsets added to its 8-bit HLS channels, clipped to
    180/255/255, as MXNet's augmenters do; ``to_hls``/``from_hls`` are the OpenCV conversion
    codes (which channel order the image is read in)."""
    hls = cv2.cvtColor(np.ascontiguousarray(img), to_hls).astype(np.int16)
    hls += np.array([hue, lightness, saturation], np.int16)
    np.clip(hls, 0, np.array([180, 255, 255], np.int16), out=hls)
    return cv2.cvtColor(hls.astype(np.uint8), from_hls)


def interpolation(code, rng, rows, cols, new_rows, new_cols):
    """OpenCV's interpolation for MXNet's ``inter_method`` code (9: by the size change, 10: a
    random one of 0..4 drawn from ``rng``) for a resize of rows x cols to new_rows x new_cols."""
    if code == 9:
        if new_rows > rows and new_cols > cols:
            return 2
        if new_rows < rows and new_cols < cols:
            return 3
        return 1
    if code == 10:
        return rng.randint(0, 4)
    return _CV_INTER[code]


def resize_shorter(cv2, img, size, inter):
    """``img`` resized so that its shorter side is ``size``, the longer by integer division, as
    MXNet's ``resize``; ``inter(rows, cols, new_rows, new_cols)`` gives OpenCV's interpolation."""
    rows, cols = img.shape[:2]
    if rows > cols:
        new_rows, new_cols = size * rows // cols, size
    else:
        new_rows, new_cols = size, size * cols // rows
    return _keep3(cv2.resize(np.ascontiguousarray(img), (new_cols, new_rows),
                             interpolation=inter(rows, cols, new_rows, new_cols)), img)


def _keep3(out, like):
    """OpenCV drops the channel axis of one-channel images: put it back."""
    return out[:, :, None] if out.ndim == 2 and like.ndim == 3 else out
