"""``mx.io.ImageDetRecordIter``: MXNet 1.9.1's C++ detection record iterator, in Python.

Per record: decode (RGB, or grey for one channel), MXNet's detection augmentation
(``io/image_det_aug.py``: ``resize``, colour distortions, ``rand_mirror_prob``,
``rand_pad_prob``, the SSD crop samplers, each moving the record's boxes with the image),
resize the result to ``data_shape`` (``inter_method``, ``resize_mode``), ``(pixel - mean) *
scale / std`` per channel into a float32 ``(batch, C, H, W)`` batch. The record's label
(``[header_width, object_width, header..., objects...]``, objects ``[cls, xmin, ymin, xmax,
ymax, ...]``; MXNet's checks: at least 7 values, ``header_width >= 2``, ``object_width >= 5``,
whole objects; ``label_width``, when given, its length) comes out as MXNet's:
``[C, H, W, len(label), label...]`` with the objects the augmentation kept, padded with
``label_pad_value`` to ``4 + label_pad_width`` values, where ``label_pad_width`` defaults to
the longest label of the file. With ``path_imglist`` the labels are the list's, by the record
header's ``id`` (``io/image_list.py``): all values of a line between the index and the path,
or its first ``label_width``; ``label_pad_width`` then defaults to the longest line of the
list, a line of no record of the file too (MXNet's estimate). Batching, ``round_batch``,
shuffling and parts are ``ImageRecordIter``'s.

``dtype``: as MXNet 1.9.1, ``None`` and ``'float32'``; its other values fail there
(``TBlob.get_with_shape: data type do not match``) and raise here.

``resize_mode``: ``'force'`` resizes to ``data_shape``; ``'fit'`` keeps the aspect ratio (the
sides truncated) to fit in it, ``'shrink'`` does so only for images larger than it: the image
at the top left, zero pixels around (normalized as the others), the label's ``H, W`` the
image's size and its boxes fractions of the image, as MXNet's.

``ImageRecordIter``'s augmenter arguments (``rand_crop``, ``mirror``, ``max_rotate_angle``,
``pad``, ``brightness``, ...) and unknown names are ignored, as MXNet's detection iterator
ignores them (its augmenter has none of them), so MXNet code gives MXNet's batches; where
MXNet says nothing, a ``UserWarning`` names them.
"""
import inspect
import warnings

import numpy as np

from ..base import MXNetError
from .. import recordio
from .image_aug_default import _cv2, _keep3, interpolation
from .image_det_aug import SAMPLER_DEFAULTS, DetAugmenter
from .image_record_iter import _AUGMENT as _RECORD_AUGMENT, _IGNORED, ImageRecordIter, _check_dtype

__all__ = ["ImageDetRecordIter"]

# the arguments ImageDetRecordIter passes on to ImageRecordIter (batching, normalization, ...)
_RECORD_ARGS = (set(inspect.signature(ImageRecordIter.__init__).parameters) | set(_IGNORED)) - {
    "self", "kwargs", "rand_crop", "rand_mirror", "mirror", "resize", "max_random_contrast",
    "max_random_illumination"}
# the detection augmenter's arguments (io/image_det_aug.py) besides the crop samplers' tuples
_AUGMENT = ("resize", "rand_crop_prob", "num_crop_sampler", "crop_emit_mode", "emit_overlap_thresh", "max_random_hue",
            "random_hue_prob", "max_random_saturation", "random_saturation_prob", "max_random_illumination",
            "random_illumination_prob", "max_random_contrast", "random_contrast_prob") + tuple(SAMPLER_DEFAULTS)


class ImageDetRecordIter(ImageRecordIter):
    """Batches of images and padded detection labels from a RecordIO file (module docstring)."""

    def __init__(self, path_imgrec, data_shape, batch_size, label_pad_width=-1, label_pad_value=-1.0,
                 label_width=-1, rand_mirror_prob=0.0, rand_pad_prob=0.0, max_pad_scale=1.0, fill_value=127,
                 dtype=None, **kwargs):
        self.resize_mode = kwargs.pop("resize_mode", "force")
        if self.resize_mode not in ("fit", "force", "shrink"):
            raise MXNetError("ImageDetRecordIter: resize_mode: Invalid Input: %r, valid values are: {'fit', "
                             "'force', 'shrink'}" % (self.resize_mode,))
        ignored = sorted(k for k in kwargs if k in _RECORD_AUGMENT or k in ("rand_crop", "rand_mirror", "mirror"))
        if ignored:
            warnings.warn("ImageDetRecordIter: %s ignored, as MXNet 1.9.1 ignores them: they are ImageRecordIter's "
                          "augmenter arguments, which the detection augmenter does not have (see rand_crop_prob, "
                          "rand_mirror_prob, rand_pad_prob and the random_*_prob colour distortions)"
                          % ", ".join(ignored), stacklevel=2)
            kwargs = {k: v for k, v in kwargs.items() if k not in ignored}
        if _check_dtype("ImageDetRecordIter", dtype) not in ("None", "float32"):
            raise MXNetError("ImageDetRecordIter: dtype=%r is not supported: MXNet 1.9.1's ImageDetRecordIter "
                             "fails on it (TBlob.get_with_shape: data type do not match specified type); it "
                             "gives float32 batches (dtype None or 'float32')" % (dtype,))
        augment = {k: kwargs.pop(k) for k in _AUGMENT if k in kwargs}
        unknown = sorted(k for k in kwargs if k not in _RECORD_ARGS)
        if unknown:
            warnings.warn("ImageDetRecordIter: argument(s) %s ignored: they are not ImageDetRecordIter's (MXNet "
                          "1.9.1 ignores them too)" % ", ".join(unknown), stacklevel=2)
            kwargs = {k: v for k, v in kwargs.items() if k not in unknown}
        self._det = DetAugmenter(tuple(data_shape)[0] if len(tuple(data_shape)) == 3 else 3,
                                 inter_method=kwargs.get("inter_method", 1), rand_mirror_prob=rand_mirror_prob, rand_pad_prob=rand_pad_prob,
                                 max_pad_scale=max_pad_scale, fill_value=fill_value, **augment)
        self.label_pad_value = float(label_pad_value)
        self._det_label_width = label_width
        super().__init__(path_imgrec, data_shape, batch_size, **kwargs)
        if self._labels is None:
            labels = [self._raw_label(key) for key in self._order]
            if label_width > 0:
                for label in labels:
                    if label.size != label_width:
                        raise MXNetError("ImageDetRecordIter: %s provides a %d-dimensional label but label_width "
                                         "is set to %d" % (path_imgrec, label.size, label_width))
            longest, source = max((label.size for label in labels), default=0), path_imgrec
        else:  # MXNet's estimate: the longest line of the list, records of the file or not
            longest, source = self._labels.longest, self._labels.path
        if label_pad_width <= 0:
            label_pad_width = longest
        elif label_pad_width < longest:
            raise MXNetError("ImageDetRecordIter: label_pad_width: %d smaller than estimated width: %d (the "
                             "longest label of %s)" % (label_pad_width, longest, source))
        self.label_pad_width = label_pad_width
        desc = self.provide_label[0]
        self.provide_label = [type(desc)(desc.name, (batch_size, 4 + label_pad_width), np.float32)]

    def _label_list(self, path_imglist, label_width):
        """The list's labels: ``label_width`` a line when it is given, else all values but the path."""
        return super()._label_list(path_imglist, self._det_label_width)

    def _raw_label(self, key, header=None):
        if header is None:
            header, _ = recordio.unpack(self._source.read(key))
        if self._labels is None:
            label, where = np.asarray(header.label, dtype=np.float32).ravel(), "the record at %s" % key
        else:
            label = self._labels.find(header.id)
            where = "the line of id %d in path_imglist %s" % (header.id, self._labels.path)
        # MXNet's checks of a detection label [header_width, object_width, header..., objects...]
        problem = None
        if label.size < 7:
            problem = "label_width %d < 7 (a header of 2 and one object of 5)" % label.size
        elif label[0] < 2:
            problem = "header_width %d < 2" % label[0]
        elif label[1] < 5:
            problem = "object_width %d < 5" % label[1]
        elif (label.size - int(label[0])) % int(label[1]):
            problem = "%d values after the header are not a multiple of object_width %d" % (
                label.size - int(label[0]), label[1])
        if problem:
            raise MXNetError("ImageDetRecordIter: %s has no detection label [header_width, object_width, "
                             "header..., objects...]: %s: %s" % (where, problem, label.tolist()))
        return label

    def _size(self, rows, cols):
        """The size (rows, cols) the augmented image is resized to (``resize_mode``)."""
        _, h, w = self.data_shape
        if self.resize_mode == "force" or (self.resize_mode == "shrink" and rows <= h and cols <= w):
            return (h, w) if self.resize_mode == "force" else (rows, cols)
        if h / rows < w / cols:  # aspect kept, the sides truncated
            return h, int(cols * h / rows)
        return int(rows * w / cols), w

    def _image(self, key):
        """(label row, CHW float32 pixels) of the record at ``key``: augmented with its objects,
        resized by ``resize_mode``; the row is ``[C, rows, cols, len(label), label...]``."""
        header, img = self._decode(key)
        label = self._raw_label(key, header)
        start, width = int(label[0]), int(label[1])
        img, objects = self._det(img, label[start:].reshape(-1, width), self._rng)
        label = np.concatenate([label[:start], objects.ravel()])
        rows, cols = img.shape[:2]
        new_rows, new_cols = self._size(rows, cols)
        code = interpolation(self._augment.inter_method, self._rng, rows, cols, new_rows, new_cols)
        img = _keep3(_cv2().resize(np.ascontiguousarray(img), (new_cols, new_rows), interpolation=code), img)
        pixels = np.zeros(self.data_shape, np.float32)  # 'fit'/'shrink': the image at the top left, zeros around
        pixels[:, :new_rows, :new_cols] = img.transpose(2, 0, 1)
        head = np.array([self.data_shape[0], new_rows, new_cols, label.size], np.float32)
        return np.concatenate([head, label]), pixels

    def _fill(self, batch_data, batch_label, slot, key):
        label, pixels = self._image(key)
        self._store(batch_data, slot, pixels)
        row = np.full(4 + self.label_pad_width, self.label_pad_value, np.float32)
        row[:label.size] = label
        batch_label[slot] = row

