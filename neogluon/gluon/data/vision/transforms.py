"""``gluon.data.vision.transforms``: image transforms as Blocks, as MXNet 1.9.1.

The HybridBlocks call the ``_image_*`` operators (``F.image.to_tensor``, ``F.image.resize``
...), so a chain of them hybridizes into one graph and exports to ``-symbol.json`` as MXNet's
does. The crops with Python randomness (``RandomResizedCrop``, ``CenterCrop``) are Blocks
over ``mx.image`` and draw from Python's ``random`` as MXNet's. ``HybridCompose``,
``RandomCrop``, ``RandomGray`` and ``HybridRandomApply`` come from MXNet 2.0's API (absent
from 1.9.1); they are built from the same operators.
"""
import random

import numpy as np

from ....base import numeric_types
from .... import image, ndarray as nd
from ...block import Block, HybridBlock
from ...nn import Sequential, HybridSequential

__all__ = ["Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "Rotate", "RandomRotation", "RandomResizedCrop", "CropResize",
           "CenterCrop", "Resize", "RandomCrop", "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter", "RandomLighting", "RandomGray",
           "RandomApply", "HybridRandomApply"]


class Compose(Sequential):
    """Chain transforms; runs of consecutive HybridBlocks are grouped into a hybridized
    HybridSequential, as MXNet does."""

    def __init__(self, transforms):
        super().__init__()
        transforms = list(transforms) + [None]
        hybrid = []
        for t in transforms:
            if isinstance(t, HybridBlock):
                hybrid.append(t)
                continue
            if len(hybrid) == 1:
                self.add(hybrid[0])
            elif len(hybrid) > 1:
                block = HybridSequential()
                for h in hybrid:
                    block.add(h)
                block.hybridize()
                self.add(block)
            hybrid = []
            if t is not None:
                self.add(t)


class HybridCompose(HybridSequential):
    """Chain HybridBlock transforms into one HybridSequential (MXNet 2.0)."""

    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            if not isinstance(t, HybridBlock):
                raise ValueError("HybridCompose takes HybridBlocks only, got %s; use Compose" % type(t).__name__)
            self.add(t)


class Cast(HybridBlock):
    """Cast to ``dtype``."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """HWC (or NHWC) [0, 255] -> CHW (or NCHW) float32 [0, 1]."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """(x - mean) / std per channel of a CHW (or NCHW) tensor."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


class Rotate(Block):
    """Rotate a float32 CHW image (or NCHW batch) by ``rotation_degrees`` (see
    ``mx.image.imrotate``)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype != np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it after ToTensor")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn from ``angle_limits`` with probability ``rotate_with_proba``
    (numpy.random, as MXNet)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype != np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it after ToTensor")
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """A crop of random area fraction (``scale``) and aspect ratio (``ratio``), resized to
    ``size`` (w, h, or an int for a square)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (size, scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """The ``width`` x ``height`` region at (x, y), resized to ``size`` when given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x = x
        self._y = y
        self._width = width
        self._height = height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """The central crop of ``size`` (w, h, or an int), scaled to fit and resized."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        self._args = (size, interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class Resize(HybridBlock):
    """Resize to ``size`` (w, h), or an int (square, or the short side with ``keep_ratio``)."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class RandomCrop(Block):
    """A random crop of ``size`` (w, h, or an int), after optional padding ``pad`` (an int,
    (left/right, top/bottom), or (top, bottom, left, right)) with ``pad_value`` (MXNet 2.0)."""

    def __init__(self, size, pad=None, pad_value=0, interpolation=1):
        super().__init__()
        if isinstance(size, numeric_types):
            size = (size, size)
        if isinstance(pad, numeric_types):
            pad = (pad, pad, pad, pad)
        elif pad is not None and len(pad) == 2:
            pad = (pad[1], pad[1], pad[0], pad[0])
        self._size = size
        self._pad = pad
        self._pad_value = pad_value
        self._interpolation = interpolation

    def forward(self, x):
        if self._pad is not None:
            top, bot, left, right = self._pad
            x = image.copyMakeBorder(x, top, bot, left, right, type=0, values=(float(self._pad_value),) * 3)
        return image.random_crop(x, self._size, self._interpolation)[0]


class RandomFlipLeftRight(HybridBlock):
    """Mirror left-right with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Mirror top-bottom with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    """A colour adjustment by a factor drawn from [max(0, 1 - amount), 1 + amount]."""
    _op = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """Scale brightness by a random factor in [max(0, 1 - brightness), 1 + brightness]."""
    _op = "random_brightness"


class RandomContrast(_RandomFactor):
    """Scale contrast by a random factor in [max(0, 1 - contrast), 1 + contrast]."""
    _op = "random_contrast"


class RandomSaturation(_RandomFactor):
    """Scale saturation by a random factor in [max(0, 1 - saturation), 1 + saturation]."""
    _op = "random_saturation"


class RandomHue(_RandomFactor):
    """Shift hue by a random factor in [max(0, 1 - hue), 1 + hue] turns (MXNet's convention)."""
    _op = "random_hue"


class RandomColorJitter(HybridBlock):
    """Random brightness, contrast, saturation and hue in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise with standard deviation ``alpha``."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class RandomGray(Block):
    """Turn an HWC RGB image to gray (0.21 R + 0.72 G + 0.07 B in all three channels, as
    ``mx.image.RandomGrayAug``) with probability ``p`` (MXNet 2.0)."""

    def __init__(self, p=0.5):
        super().__init__()
        self._aug = image.RandomGrayAug(p)

    def forward(self, x):
        if random.random() < self._aug.p:
            return nd.dot(x.astype("float32"), self._aug.mat).astype(x.dtype)
        return x


class RandomApply(Sequential):
    """Apply ``transforms`` with probability ``p`` (Python's ``random``)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


class HybridRandomApply(HybridSequential):
    """Apply ``transforms`` (a HybridBlock) with probability ``p``, inside the graph (MXNet
    2.0): both branches are computed and one is selected by a uniform draw, so the
    transforms must keep the shape and dtype."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def hybrid_forward(self, F, x):
        one = F.sum(F.zeros_like(x), keepdims=True)
        draw = F.random.uniform_like(F.cast(one, "float32"))
        apply = F.broadcast_like(F.cast(draw < self.p, "float32"), x)
        return F.where(apply, self.transforms(x), x)
