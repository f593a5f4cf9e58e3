"""``mx.nd.npx.image``: MXNet 1.9.1's imperative image operators of the NumPy interface,
which are ``mx.npx.image``'s functions (the same objects)."""
from ...numpy_extension.image import (  # noqa: F401
    adjust_lighting, crop, flip_left_right, flip_top_bottom, normalize, random_brightness, random_color_jitter,
    random_contrast, random_flip_left_right, random_flip_top_bottom, random_hue, random_lighting,
    random_saturation, resize, to_tensor)
from ...numpy_extension.image import __all__  # noqa: F401
