"""``mx.image``: image decoding, resizing, cropping, augmenters and iterators, as MXNet 1.9.1.

OpenCV (``pip install 'neogluon[vision]'``) does the decoding and resizing, as in MXNet."""
from .image import *  # noqa: F401,F403
from .image import _get_interp_method  # noqa: F401
from .augmenters import *  # noqa: F401,F403
from .image_iter import ImageIter  # noqa: F401
from .detection import *  # noqa: F401,F403
from . import image, augmenters, image_iter, detection  # noqa: F401
from . import detection as det  # noqa: F401
