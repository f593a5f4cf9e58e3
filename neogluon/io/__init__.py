"""``mx.io``: MXNet 1.9.1's data iterators (DataDesc, DataBatch, DataIter and its subclasses)."""
from . import io
from .io import DataDesc, DataBatch, DataIter, NDArrayIter
from .text_iters import CSVIter, LibSVMIter
from .wrappers import ResizeIter, PrefetchingIter
from .mnist import MNISTIter

__all__ = ["io", "DataDesc", "DataBatch", "DataIter", "NDArrayIter", "CSVIter", "LibSVMIter", "ResizeIter",
           "PrefetchingIter", "MNISTIter"]
from .image_record_iter import (ImageRecordIter, ImageRecordIter_v1, ImageRecordUInt8Iter,  # noqa: E402,F401
                                ImageRecordUInt8Iter_v1, ImageRecordInt8Iter)
from .image_det_record_iter import ImageDetRecordIter  # noqa: E402,F401
