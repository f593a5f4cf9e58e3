"""``mx.io.ImageRecordIter``: MXNet 1.9.1's C++ image record iterator, in Python.

Per image, as MXNet's ``ImageRecordIOParser2``: decode (RGB), augment with MXNet's default
augmenter (``io/image_aug_default.py``: resize, rotation/shear/scale/aspect warp, pad, crop,
HSL, PCA noise), mirror (``mirror``, or with probability 0.5 with ``rand_mirror``), then
``(pixel - mean) * (scale / std)`` per channel into a float32 ``(batch, C, H, W)`` batch.
With ``max_random_contrast``/``max_random_illumination`` the value is ``((pixel - mean) * c +
i) * scale / std`` with ``c = 1 + U(-max, max)`` and ``i = U(-max, max)`` per image. With
``mean_img`` the mean is that image (``nd.save``'s ``{"mean_img": (C, H, W)}``); a
missing file is computed first, as MXNet does, over one pass of the data and saved: the mean
of ``pixel * scale / std`` (MXNet's scaling, kept). With ``round_batch`` (the default) the
last batch is completed from the start of the data, ``pad`` says how many images are
repeats, and the next epoch continues after them, as MXNet's does.

Labels: the record header's, which must have ``label_width`` values (MXNet's check); with
``path_imglist`` (an im2rec ``.lst``, read by ``io/image_list.py``) those of the list's line
whose index is the record header's ``id`` (not the record's position), ``label_width`` values
a line. ``num_parts``/``part_index`` split as dmlc does: through ``path_imgidx``
``ceil(records / num_parts)`` records a part, else the file's bytes (a record in the part its
start is in), so the labels of a list follow their records into any part and any shuffle.

``dtype`` (MXNet's ImageRecordIter2): None or 'float32' give the float32 batches, 'uint8' and
'int8' those of ``ImageRecordUInt8Iter`` and ``ImageRecordInt8Iter``; MXNet refuses the other
types of its list ('unknown dtype'), and any name outside it. The UInt8/Int8 iterators take
any valid ``dtype`` and keep their type, as MXNet's; the _v1 iterators take only their own
(MXNet 1.9.1 fails on the others).

Differences, on purpose: the random crop, mirror, augmentations and shuffle draw from Python's
generator seeded by ``seed`` (MXNet's C++ generator gives other draws); with
``round_batch=False`` the incomplete last batch is zero-filled and ``pad`` counts the fill
(MXNet reports 0 and leaves stale memory).
"""
import os
import random

import numpy as np

from ..base import MXNetError
from .. import image, ndarray as nd, recordio
from .image_aug_default import DefaultAugmenter
from .image_list import LabelList
from .io import DataBatch, DataDesc, DataIter

__all__ = ["ImageRecordIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordUInt8Iter_v1",
           "ImageRecordInt8Iter"]

# MXNet's values of ``dtype`` (any other is refused by its parameter parser)
DTYPES = ("None", "bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")
_IGNORED = ("preprocess_threads", "prefetch_buffer", "verbose", "ctx", "dtype_name", "shuffle_chunk_size",
            "shuffle_chunk_seed", "seed_aug", "device_id", "aug_seq")
# the default augmenter's arguments neogluon implements (io/image_aug_default.py)
_AUGMENT = ("max_rotate_angle", "max_aspect_ratio", "max_shear_ratio", "max_random_scale", "min_random_scale",
            "max_img_size", "min_img_size", "pca_noise", "random_h", "random_s", "random_l", "rotate",
            "fill_value", "pad", "max_crop_size", "min_crop_size", "brightness", "contrast", "saturation",
            "random_resized_crop", "min_random_area", "max_random_area", "min_aspect_ratio")


def _check_dtype(iterator, dtype):
    """``dtype`` as MXNet's parameter parser reads it (``str(dtype)``, ``None`` as ``'None'``),
    refused with MXNet's message when it is none of ``DTYPES``."""
    text = "None" if dtype is None else str(dtype)
    if text not in DTYPES:
        raise MXNetError("%s: dtype: Invalid Input: '%s', valid values are: {None, %s}"
                         % (iterator, text, ", ".join("'%s'" % d for d in DTYPES[1:])))
    return text


class ImageRecordIter(DataIter):
    """Batches of images from a RecordIO file (see the module docstring)."""

    def __init__(self, path_imgrec, data_shape, batch_size, path_imgidx="", path_imglist="", label_width=1,
                 shuffle=False, seed=0, round_batch=True, num_parts=1, part_index=0, resize=-1, rand_crop=False,
                 rand_mirror=False, mirror=False, mean_img="", mean_r=0.0, mean_g=0.0, mean_b=0.0, mean_a=0.0,
                 std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0, scale=1.0, inter_method=1, data_name="data",
                 label_name="softmax_label", dtype=None, max_random_contrast=0.0, max_random_illumination=0.0,
                 **kwargs):
        super().__init__(batch_size)
        # the batch's type: float32 normalized; uint8 the augmented pixels (MXNet ignores mean, std
        # and scale); int8 ``floor(pixel - mean)`` saturated to [-128, 127] (std and scale ignored)
        self._output = self._output_type(_check_dtype(type(self).__name__, dtype))
        augment = {k: kwargs.pop(k) for k in _AUGMENT if k in kwargs}
        unknown = sorted(k for k in kwargs if k not in _IGNORED)
        if unknown:
            raise MXNetError("ImageRecordIter: argument(s) %s are not supported by neogluon (supported: resize, "
                             "path_imglist, rand_crop, rand_mirror, mirror, mean_img, mean_*, std_*, scale, "
                             "inter_method, shuffle, round_batch, num_parts, part_index, max_random_contrast, "
                             "max_random_illumination, %s)" % (", ".join(unknown), ", ".join(_AUGMENT)))
        data_shape = tuple(data_shape)
        if len(data_shape) != 3 or data_shape[0] not in (1, 3, 4):
            raise MXNetError("ImageRecordIter: data_shape must be (channels, height, width) with 1, 3 or 4 "
                             "channels, got %s" % (data_shape,))
        self.data_shape = data_shape
        if label_width < 1:
            raise MXNetError("%s: value %d for Parameter label_width should be greater equal to 1"
                             % (type(self).__name__, label_width))
        self.label_width = label_width
        self._labels = self._label_list(path_imglist, label_width)
        self.shuffle = shuffle
        self.round_batch = round_batch
        self.rand_mirror = rand_mirror
        self.mirror = mirror
        self.dtype = self._output
        self.max_random_contrast = float(max_random_contrast)
        self.max_random_illumination = float(max_random_illumination)
        self._rng = random.Random(seed)
        self._augment = DefaultAugmenter(data_shape, self._rng, resize=resize, rand_crop=rand_crop,
                                         inter_method=inter_method, **augment)
        channels = data_shape[0]
        std = np.array([std_r, std_g, std_b, std_a][:channels], np.float32)
        self._factor = (np.float32(scale) / std).reshape(-1, 1, 1)
        self._source = _RecordSource(path_imgrec, path_imgidx, shuffle)
        self._order = self._source.part(num_parts, part_index)
        self._pos = 0
        self._overflow = 0
        if mean_img:
            self._mean = self._mean_image(mean_img)
        else:
            self._mean = np.array([mean_r, mean_g, mean_b, mean_a][:channels], np.float32).reshape(-1, 1, 1)
        label_shape = (batch_size,) if label_width == 1 else (batch_size, label_width)
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape, np.dtype(self._output).type)]
        self.provide_label = [DataDesc(label_name, label_shape, np.float32)]
        self._begin_epoch()

    def _output_type(self, dtype):
        """The batches' type for MXNet's ``dtype`` (the string form): as ImageRecordIter2, None
        and 'float32' give float32 batches, 'uint8' and 'int8' those of ImageRecordUInt8Iter and
        ImageRecordInt8Iter; MXNet refuses the other types."""
        if dtype == "None":
            return "float32"
        if dtype not in ("float32", "uint8", "int8"):
            raise MXNetError("%s: unknown dtype for ImageRecordIter2: '%s' (MXNet 1.9.1 gives float32, uint8 or "
                             "int8 batches)" % (type(self).__name__, dtype))
        return dtype

    def _label_list(self, path_imglist, label_width):
        """The labels of ``path_imglist`` (``label_width`` a line), or None for MXNet's default ''."""
        return LabelList(type(self).__name__, path_imglist, label_width) if path_imglist else None

    def _mean_image(self, path):
        """The mean image of ``path``; when the file is missing, computed over one pass of the
        data (augmented, scaled by ``scale / std`` as MXNet does) and saved there."""
        if os.path.exists(path):
            try:
                mean = nd.load(path)
                mean = mean["mean_img"] if isinstance(mean, dict) else mean[0]
            except (KeyError, IndexError, MXNetError) as e:
                raise MXNetError("ImageRecordIter: mean_img %s holds no mean image: %s" % (path, e)) from None
            if tuple(mean.shape) != self.data_shape:
                raise MXNetError("ImageRecordIter: the mean image of %s has shape %s, data_shape is %s"
                                 % (path, tuple(mean.shape), self.data_shape))
            return mean.asnumpy().astype(np.float32)
        total = np.zeros(self.data_shape, np.float64)
        for key in self._order:
            _, pixels = self._image(key)
            total += pixels * self._factor
        mean = (total / max(1, len(self._order))).astype(np.float32)
        nd.save(path, {"mean_img": nd.array(mean)})
        return mean

    def _begin_epoch(self):
        if self.shuffle:
            self._rng.shuffle(self._order)
        self._pos = 0

    def reset(self):
        """A new epoch; after a rounded last batch it continues after the repeated images."""
        if self.round_batch and self._overflow:
            self._pos = self._overflow
            self._overflow = 0
        else:
            self._begin_epoch()

    def next(self):
        if self._pos >= len(self._order):
            raise StopIteration
        batch_data = np.zeros((self.batch_size,) + self.data_shape, np.float32)
        batch_label = np.zeros(self.provide_label[0].shape, np.float32)
        top = 0
        while top < self.batch_size and self._pos < len(self._order):
            self._fill(batch_data, batch_label, top, self._order[self._pos])
            self._pos += 1
            top += 1
        pad = self.batch_size - top
        if pad and self.round_batch:
            for k in range(pad):
                self._fill(batch_data, batch_label, top + k, self._order[k % len(self._order)])
            self._overflow = pad
        if self._output == "uint8":
            batch_data = batch_data.astype(np.uint8)
        elif self._output == "int8":
            batch_data = np.clip(batch_data, -128, 127).astype(np.int8)
        return DataBatch([nd.array(batch_data, dtype=self._output)], [nd.array(batch_label)], pad=pad,
                         provide_data=self.provide_data, provide_label=self.provide_label)

    def _decode(self, key):
        """(header, HWC uint8 image) of the record at ``key`` (RGB, or grey for one channel)."""
        header, payload = recordio.unpack(self._source.read(key))
        return header, image.imdecode(payload, flag=0 if self.data_shape[0] == 1 else 1).asnumpy()

    def _image(self, key):
        """(header, CHW float32 pixels) of the record at ``key``, augmented and mirrored."""
        header, img = self._decode(key)
        img = self._augment_image(img)
        if self.mirror or (self.rand_mirror and self._rng.random() < 0.5):
            img = img[:, ::-1]
        return header, img.transpose(2, 0, 1).astype(np.float32)

    def _augment_image(self, img):
        """The augmented HWC uint8 image (the default augmenter; ImageDetRecordIter resizes)."""
        return self._augment(img)

    def _fill(self, batch_data, batch_label, slot, key):
        header, pixels = self._image(key)
        label = self._record_label(header) if self._labels is None else self._labels.find(header.id)
        batch_label[slot] = label[0] if self.label_width == 1 else label[:self.label_width]
        self._store(batch_data, slot, pixels)

    def _record_label(self, header):
        """The header's label, checked against ``label_width`` as MXNet checks it."""
        label = np.asarray(header.label, dtype=np.float32).ravel()
        if header.flag > 0 and label.size != self.label_width:
            raise MXNetError("%s: the record with id %d provides a %d-dimensional label but label_width is set to "
                             "%d" % (type(self).__name__, header.id, label.size, self.label_width))
        if header.flag <= 0 and self.label_width != 1:
            raise MXNetError("%s: label_width must be 1 unless an imglist is provided or the rec file is packed "
                             "with multi dimensional label (label_width %d, the record with id %d has one label)"
                             % (type(self).__name__, self.label_width, header.id))
        return label

    def _store(self, batch_data, slot, pixels):
        """Normalize one image's CHW float32 pixels into ``batch_data[slot]`` (by the output type)."""
        if self._output == "uint8":
            batch_data[slot] = pixels
            return
        centred = pixels - self._mean
        if self._output == "int8":
            np.floor(centred, out=batch_data[slot])
            return
        if self.max_random_contrast > 0 or self.max_random_illumination > 0:
            mc, mi = self.max_random_contrast, self.max_random_illumination
            contrast = np.float32(self._rng.random() * mc * 2 - mc + 1)
            illumination = np.float32(self._rng.random() * mi * 2 - mi)
            centred = centred * contrast + illumination
        np.multiply(centred, self._factor, out=batch_data[slot])


class ImageRecordUInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` giving the augmented pixels as a uint8 batch (no mean, std or scale).
    As MXNet 1.9.1's, it takes any valid ``dtype`` and gives uint8 all the same."""

    def _output_type(self, dtype):
        return "uint8"


class ImageRecordInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` giving ``floor(pixel - mean)`` saturated to int8 (std and scale ignored).
    As MXNet 1.9.1's, it takes any valid ``dtype`` and gives int8 all the same."""

    def _output_type(self, dtype):
        return "int8"


class ImageRecordIter_v1(ImageRecordIter):  # pylint: disable=invalid-name
    """MXNet's older implementation of ``ImageRecordIter``: the same arguments and batches; its
    ``dtype`` is only None or 'float32' (MXNet 1.9.1 fails on the others)."""

    def _output_type(self, dtype):
        return _v1_output(self, dtype, ("None", "float32"), "float32")


class ImageRecordUInt8Iter_v1(ImageRecordUInt8Iter):  # pylint: disable=invalid-name
    """MXNet's older implementation of ``ImageRecordUInt8Iter``: the same arguments and batches;
    its ``dtype`` is only None (MXNet 1.9.1 fails on any other, 'uint8' too)."""

    def _output_type(self, dtype):
        return _v1_output(self, dtype, ("None",), "uint8")


def _v1_output(it, dtype, accepted, output):
    """The output type of a _v1 iterator, whose MXNet 1.9.1 fails on other dtypes than ``accepted``."""
    if dtype not in accepted:
        raise MXNetError("%s: dtype='%s' is not supported: MXNet 1.9.1's %s fails on it (TBlob.get_with_shape: "
                         "data type do not match specified type); it takes dtype %s" % (
                             type(it).__name__, dtype, type(it).__name__, " or ".join(repr(a) for a in accepted)))
    return output


class _RecordSource:
    """Records by position: through the index when there is one, else by one scan of the file
    for their offsets (for shuffling and parts), else sequentially."""

    def __init__(self, path_imgrec, path_imgidx, need_random_access):
        if path_imgidx:
            self._rec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            self._keys = list(self._rec.keys)
        else:
            self._rec = recordio.MXRecordIO(path_imgrec, "r")
            self._keys = self._scan()
        self._indexed = bool(path_imgidx)

    def _scan(self):
        offsets = []
        while True:
            pos = self._rec._file.tell()  # pylint: disable=protected-access
            if self._rec.read() is None:
                break
            offsets.append(pos)
        self._rec.reset()
        return offsets

    def part(self, num_parts, part_index):
        """The records of part ``part_index`` of ``num_parts``, as dmlc's splitters cut them: with an
        index, ``ceil(records / num_parts)`` records a part (the last one shorter); without, the
        file's bytes in ``ceil(size / num_parts)`` (rounded up to 4) a part, a record in the part
        its start is in (parts of records of unequal sizes hold unequal numbers of them)."""
        if not 0 <= part_index < num_parts:
            raise MXNetError("ImageRecordIter: part_index %d is not in [0, %d)" % (part_index, num_parts))
        if self._indexed:
            step = -(-len(self._keys) // num_parts)
            return list(self._keys[part_index * step:(part_index + 1) * step])
        step = -(-os.path.getsize(self._rec.uri) // num_parts)
        step = -(-step // 4) * 4
        return [offset for offset in self._keys if part_index * step <= offset < (part_index + 1) * step]

    def read(self, key):
        if self._indexed:
            return self._rec.read_idx(key)
        self._rec._check_pid(allow_reset=True)  # pylint: disable=protected-access
        self._rec._file.seek(key)  # pylint: disable=protected-access
        return self._rec.read()
