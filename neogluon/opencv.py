"""OpenCV, the optional dependency of the image operators (the ``neogluon[vision]`` extra).

MXNet 1.9.1 decodes, resizes and pads images with the OpenCV (3.4.2, libjpeg-turbo 2.0.2,
libpng 1.6.35) built into its wheel; neogluon calls ``opencv-python-headless`` for the same
pixels. Nothing imports cv2 until an operator that needs it runs. In a worker process (a
DataLoader's) OpenCV runs on one thread, as torch does there: the parallelism is the workers'.
"""
import multiprocessing
import os

from .base import MXNetError

__all__ = ["cv2_module"]

_CV2 = {}


def cv2_module():
    """The cv2 module; MXNetError naming the extra to install when it is missing."""
    pid = os.getpid()
    cv2 = _CV2.get(pid)
    if cv2 is None:
        try:
            import cv2  # pylint: disable=import-outside-toplevel,redefined-outer-name
        except ImportError:
            raise MXNetError("mx.image and the image operators need OpenCV: pip install 'neogluon[vision]' "
                             "(opencv-python-headless)") from None
        if multiprocessing.current_process().name != "MainProcess":
            cv2.setNumThreads(1)
        _CV2[pid] = cv2
    return cv2
