"""OpenCV, the optional dependency of the image operators (the ``neogluon[vision]`` extra).

MXNet 1.9.1 decodes, resizes and pads images with the OpenCV (3.4.2, libjpeg-turbo 2.0.2,
libpng 1.6.35) built into its wheel; neogluon calls ``opencv-python-headless`` for the same
pixels. Nothing imports cv2 until an operator that needs it runs. In a worker process (a
DataLoader's) that imports OpenCV itself, OpenCV runs on one thread, as torch does there: the
parallelism is the workers'. A worker forked from a parent that already used OpenCV keeps the
inherited setting: changing OpenCV's thread count after such a fork hangs the worker.
"""
import multiprocessing
import os
import sys

from .base import MXNetError

__all__ = ["cv2_module"]

_CV2 = {}


def cv2_module():
    """The cv2 module; MXNetError naming the extra to install when it is missing."""
    pid = os.getpid()
    cv2 = _CV2.get(pid)
    if cv2 is None:
        inherited = "cv2" in sys.modules  # imported before this process was forked
        try:
            import cv2  # pylint: disable=import-outside-toplevel,redefined-outer-name
        except ImportError:
            raise MXNetError("mx.image and the image operators need OpenCV: pip install 'neogluon[vision]' "
                             "(opencv-python-headless)") from None
        # never in a forked child whose parent ran OpenCV's thread pool: setNumThreads then
        # waits for pool threads that do not exist in the child, and the worker hangs
        if multiprocessing.current_process().name != "MainProcess" and not inherited:
            cv2.setNumThreads(1)
        _CV2[pid] = cv2
    return cv2
