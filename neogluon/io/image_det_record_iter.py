"""``mx.io.ImageDetRecordIter``: MXNet 1.9.1's C++ detection record iterator, deterministic path.

Per record: decode (RGB, or grey for one channel), resize the whole image to ``data_shape``
(``inter_method``), ``(pixel - mean) * scale / std`` per channel into a float32
``(batch, C, H, W)`` batch. The record's label (``[header_width, object_width, header...,
objects...]``) comes out as MXNet's: ``[C, H, W, len(label), label...]`` padded with
``label_pad_value`` to ``4 + label_pad_width`` values, where ``label_pad_width`` defaults to
the longest label of the file. Batching, ``round_batch``, shuffling and parts are
``ImageRecordIter``'s.

``rand_mirror_prob``: with that probability the image is flipped left-right and each object's
``xmin, xmax`` become ``1 - xmax, 1 - xmin`` (objects ``[cls, xmin, ymin, xmax, ymax, ...]``).

``rand_pad_prob``: with that probability (when ``max_pad_scale`` > 1) the image is put at a
uniform position in a canvas ``U(1, max_pad_scale)`` times its size filled with ``fill_value``
before the resize, and the boxes follow (compared with MXNet in distribution).

Not implemented: the rest of the random detection augmentation (``rand_crop_prob``, the crop
ranges, colour jitter, ...): a non-default value raises an
``MXNetError`` naming the argument.
"""
import numpy as np

from ..base import MXNetError
from .. import recordio
from .image_record_iter import ImageRecordIter, _check_dtype

__all__ = ["ImageDetRecordIter"]

# MXNet's arguments of the random detection augmentation and their defaults (a default is a no-op)
_RANDOM = {"rand_crop_prob": 0.0, "max_random_hue": 0,
           "random_hue_prob": 0.0, "max_random_saturation": 0, "random_saturation_prob": 0.0,
           "max_random_illumination": 0, "random_illumination_prob": 0.0, "max_random_contrast": 0.0,
           "random_contrast_prob": 0.0, "num_crop_sampler": 1, "min_crop_scales": None, "max_crop_scales": None,
           "min_crop_aspect_ratios": None, "max_crop_aspect_ratios": None, "min_crop_overlaps": None,
           "max_crop_overlaps": None, "min_crop_sample_coverages": None, "max_crop_sample_coverages": None,
           "min_crop_object_coverages": None, "max_crop_object_coverages": None, "crop_emit_mode": "center",
           "emit_overlap_thresh": 0.3, "max_crop_trials": None, "resize_mode": "force", "rand_crop": False, "rand_mirror": False, "mirror": False, "resize": -1}


class ImageDetRecordIter(ImageRecordIter):
    """Batches of images and padded detection labels from a RecordIO file (module docstring)."""

    def __init__(self, path_imgrec, data_shape, batch_size, label_pad_width=-1, label_pad_value=-1.0,
                 label_width=-1, rand_mirror_prob=0.0, rand_pad_prob=0.0, max_pad_scale=1.0, fill_value=127,
                 dtype=None, **kwargs):
        if _check_dtype("ImageDetRecordIter", dtype) not in ("None", "float32"):
            raise MXNetError("ImageDetRecordIter: dtype=%r is not supported: MXNet 1.9.1's ImageDetRecordIter "
                             "fails on it (TBlob.get_with_shape: data type do not match specified type); it "
                             "gives float32 batches (dtype None or 'float32')" % (dtype,))
        for name, default in _RANDOM.items():
            if name in kwargs:
                value = kwargs.pop(name)
                if value != default and not (default is None and value in ((), [])):
                    raise MXNetError("ImageDetRecordIter: %s=%r is not supported by neogluon (only the "
                                     "deterministic path: resize to data_shape, normalize, pad the labels)"
                                     % (name, value))
        self.label_pad_value = float(label_pad_value)
        self.rand_mirror_prob = float(rand_mirror_prob)
        self.rand_pad_prob = float(rand_pad_prob)
        self.max_pad_scale = float(max_pad_scale)
        self.fill_value = int(fill_value)
        self._padded = None
        super().__init__(path_imgrec, data_shape, batch_size, **kwargs)
        longest = max((len(self._raw_label(key)) for key in self._order), default=0)
        if label_pad_width <= 0:
            label_pad_width = longest
        elif label_pad_width < longest:
            raise MXNetError("ImageDetRecordIter: label_pad_width: %d smaller than estimated width: %d (the "
                             "longest label of %s)" % (label_pad_width, longest, path_imgrec))
        self.label_pad_width = label_pad_width
        desc = self.provide_label[0]
        self.provide_label = [type(desc)(desc.name, (batch_size, 4 + label_pad_width), np.float32)]

    def _raw_label(self, key):
        header, _ = recordio.unpack(self._source.read(key))
        label = np.asarray(header.label, dtype=np.float32).ravel()
        if label.size < 2 or label[0] < 2 or (label.size - int(label[0])) % max(1, int(label[1])):
            raise MXNetError("ImageDetRecordIter: the record at %s of the file has no detection label "
                             "[header_width, object_width, ...]: %s" % (key, label.tolist()))
        return label

    def _augment_image(self, img):
        import cv2
        self._padded = None
        if self.rand_pad_prob > 0 and self.max_pad_scale > 1 and self._rng.random() < self.rand_pad_prob:
            rows, cols = img.shape[:2]
            factor = self._rng.uniform(1.0, self.max_pad_scale)
            new_w, new_h = int(cols * factor), int(rows * factor)
            left, top = self._rng.randint(0, new_w - cols), self._rng.randint(0, new_h - rows)
            out = np.full((new_h, new_w, img.shape[2]), self.fill_value, np.uint8)
            out[top:top + rows, left:left + cols] = img
            img = out
            self._padded = (left, top, cols, rows, new_w, new_h)
        _, h, w = self.data_shape
        if img.shape[:2] != (h, w):
            out = cv2.resize(img, (w, h), interpolation=self._augment._inter(img.shape[0], img.shape[1], h, w))
            img = out[:, :, None] if out.ndim == 2 else out
        return img

    def _fill(self, batch_data, batch_label, slot, key):
        super()._fill(batch_data, batch_label, slot, key)
        label = self._raw_label(key)
        start, width = int(label[0]), int(label[1])
        if self._padded is not None:
            # each object's corners in the padded image
            left, top, cols, rows, new_w, new_h = (np.float32(v) for v in self._padded)
            objects = label[start:].reshape(-1, width).copy()
            objects[:, [1, 3]] = (objects[:, [1, 3]] * cols + left) / new_w
            objects[:, [2, 4]] = (objects[:, [2, 4]] * rows + top) / new_h
            label = np.concatenate([label[:start], objects.ravel()])
        row = np.full(4 + self.label_pad_width, self.label_pad_value, np.float32)
        row[:4] = self.data_shape + (label.size,)
        if self.rand_mirror_prob > 0 and self._rng.random() < self.rand_mirror_prob:
            # flip the image and each object's [cls, xmin, ymin, xmax, ymax, ...] (float32, as MXNet)
            batch_data[slot] = batch_data[slot][:, :, ::-1].copy()
            objects = label[start:].reshape(-1, width).copy()
            xmin = objects[:, 1].copy()
            objects[:, 1] = np.float32(1) - objects[:, 3]
            objects[:, 3] = np.float32(1) - xmin
            label = np.concatenate([label[:start], objects.ravel()])
        row[4:4 + label.size] = label
        batch_label[slot] = row
