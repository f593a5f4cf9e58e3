"""``mx.io.ImageRecordIter``: MXNet 1.9.1's C++ image record iterator, in Python.

Per image, as MXNet's default augmenter and ``ImageRecordIOParser2``: decode (RGB), resize
the shorter side to ``resize`` (``inter_method``, default bilinear; the longer side by
integer division), crop ``data_shape`` from the centre (or at a random position with
``rand_crop``), mirror with probability 0.5 (``rand_mirror``), then ``(pixel - mean) *
(scale / std)`` per channel into a float32 ``(batch, C, H, W)`` batch. With ``round_batch``
(the default) the last batch is completed from the start of the data, ``pad`` says how many
images are repeats, and the next epoch continues after them, as MXNet's does.

Differences, on purpose: the random crop, mirror and shuffle draw from Python's generator
seeded by ``seed`` (MXNet's C++ generator gives other draws); with ``round_batch=False`` the
incomplete last batch is zero-filled and ``pad`` counts the fill (MXNet reports 0 and leaves
stale memory). The other augmentation arguments of the C++ iterator (random scale, rotation,
shear, HSL, PCA noise, ``mean_img``) are not supported and raise MXNetError.
"""
import random

import numpy as np

from ..base import MXNetError
from .. import image, ndarray as nd, recordio
from .io import DataBatch, DataDesc, DataIter

__all__ = ["ImageRecordIter"]

_IGNORED = ("preprocess_threads", "prefetch_buffer", "verbose", "ctx", "dtype_name", "shuffle_chunk_size",
            "shuffle_chunk_seed", "seed_aug")


class ImageRecordIter(DataIter):
    """Batches of images from a RecordIO file (see the module docstring)."""

    def __init__(self, path_imgrec, data_shape, batch_size, path_imgidx="", label_width=1, shuffle=False, seed=0,
                 round_batch=True, num_parts=1, part_index=0, resize=-1, rand_crop=False, rand_mirror=False,
                 mean_r=0.0, mean_g=0.0, mean_b=0.0, mean_a=0.0, std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0,
                 scale=1.0, inter_method=1, data_name="data", label_name="softmax_label", dtype="float32",
                 **kwargs):
        super().__init__(batch_size)
        unknown = sorted(k for k in kwargs if k not in _IGNORED)
        if unknown:
            raise MXNetError("ImageRecordIter: argument(s) %s are not supported by neogluon (supported: resize, "
                             "rand_crop, rand_mirror, mean_*, std_*, scale, inter_method, shuffle, round_batch, "
                             "num_parts, part_index)" % ", ".join(unknown))
        data_shape = tuple(data_shape)
        if len(data_shape) != 3 or data_shape[0] not in (1, 3, 4):
            raise MXNetError("ImageRecordIter: data_shape must be (channels, height, width) with 1, 3 or 4 "
                             "channels, got %s" % (data_shape,))
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        self.round_batch = round_batch
        self.resize = resize
        self.rand_crop = rand_crop
        self.rand_mirror = rand_mirror
        self.inter_method = inter_method
        self.dtype = dtype
        channels = data_shape[0]
        mean = np.array([mean_r, mean_g, mean_b, mean_a][:channels], np.float32)
        std = np.array([std_r, std_g, std_b, std_a][:channels], np.float32)
        self._mean = nd.array(mean.reshape(-1, 1, 1))
        self._factor = nd.array((np.float32(scale) / std).reshape(-1, 1, 1))
        self._rng = random.Random(seed)
        self._source = _RecordSource(path_imgrec, path_imgidx, shuffle)
        self._order = self._source.part(num_parts, part_index)
        self._pos = 0
        self._overflow = 0
        label_shape = (batch_size,) if label_width == 1 else (batch_size, label_width)
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape, np.float32)]
        self.provide_label = [DataDesc(label_name, label_shape, np.float32)]
        self._begin_epoch()

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
        batch_data = nd.zeros((self.batch_size,) + self.data_shape)
        batch_label = nd.zeros(self.provide_label[0].shape)
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
        return DataBatch([batch_data], [batch_label], pad=pad, provide_data=self.provide_data,
                         provide_label=self.provide_label)

    def _fill(self, batch_data, batch_label, slot, key):
        header, payload = recordio.unpack(self._source.read(key))
        batch_data[slot] = self._augment(image.imdecode(payload, flag=0 if self.data_shape[0] == 1 else 1))
        label = np.asarray(header.label, dtype=np.float32).ravel()
        batch_label[slot] = label[0] if self.label_width == 1 else label[:self.label_width]

    def _augment(self, img):
        _, h, w = self.data_shape
        rows, cols = img.shape[:2]
        if self.resize > 0:
            if rows > cols:
                rows, cols = self.resize * rows // cols, self.resize
            else:
                rows, cols = self.resize, self.resize * cols // rows
            img = image.imresize(img, cols, rows, interp=image._get_interp_method(self.inter_method,  # pylint: disable=protected-access
                                                                                  (img.shape[0], img.shape[1],
                                                                                   rows, cols)))
        if rows < h or cols < w:
            raise MXNetError("ImageRecordIter: an image of %dx%d is smaller than data_shape %s; set resize"
                             % (cols, rows, (self.data_shape,)))
        if self.rand_crop:
            y, x = self._rng.randint(0, rows - h), self._rng.randint(0, cols - w)
        else:
            y, x = (rows - h) // 2, (cols - w) // 2
        img = img[y:y + h, x:x + w]
        if self.rand_mirror and self._rng.random() < 0.5:
            img = nd.flip(img, axis=1)
        chw = nd.transpose(img.astype("float32"), axes=(2, 0, 1))
        return nd.broadcast_mul(nd.broadcast_sub(chw, self._mean), self._factor)


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
        if not 0 <= part_index < num_parts:
            raise MXNetError("ImageRecordIter: part_index %d is not in [0, %d)" % (part_index, num_parts))
        per = len(self._keys) // num_parts
        return list(self._keys[part_index * per:(part_index + 1) * per] if num_parts > 1 else self._keys)

    def read(self, key):
        if self._indexed:
            return self._rec.read_idx(key)
        self._rec._check_pid(allow_reset=True)  # pylint: disable=protected-access
        self._rec._file.seek(key)  # pylint: disable=protected-access
        return self._rec.read()
