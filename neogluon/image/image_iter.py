"""``mx.image.ImageIter``: batches of augmented images from a RecordIO file or an image list,
as MXNet 1.9.1's Python iterator.

Images are decoded, passed through the augmenters (``CreateAugmenter(data_shape, **kwargs)``
unless ``aug_list`` is given), transposed to CHW and stacked into ``(batch, C, H, W)``
float32 batches. Shuffling uses Python's ``random.shuffle`` as MXNet's does, so a seeded run
visits the records in MXNet's order. ``last_batch_handle`` is 'pad' (fill the last batch
from the start of the data, report ``pad``), 'discard' or 'roll_over' (the incomplete batch
is completed at the start of the next epoch).
"""
import logging
import os
import random

from ..base import numeric_types
from .. import ndarray as nd
from .. import recordio
from ..io.io import DataBatch, DataIter
from .augmenters import CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]


class ImageIter(DataIter):
    """Image data iterator with MXNet's augmenters (see the module docstring)."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="softmax_label", dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__()
        assert path_imgrec or path_imglist or isinstance(imglist, list)
        assert dtype in ["int32", "float32", "int64", "float64"], dtype + " label not supported"
        self.imgrec, self.imgidx = self._open_records(path_imgrec, path_imgidx)
        imgkeys = None
        if path_imglist:
            self.imglist, imgkeys = self._read_list_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, imgkeys = self._read_list(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + data_shape)]
        if label_width > 1:
            self.provide_label = [(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            assert part_index < num_parts
            per_part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * per_part:(part_index + 1) * per_part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    # -- sources
    def _open_records(self, path_imgrec, path_imgidx):
        if not path_imgrec:
            return None, None
        logging.info("%s: loading recordio %s...", type(self).__name__, path_imgrec)
        if path_imgidx:
            rec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            return rec, list(rec.keys)
        return recordio.MXRecordIO(path_imgrec, "r"), None

    @staticmethod
    def _read_list_file(path, dtype):
        imglist, keys = {}, []
        with open(path) as fin:
            for line in iter(fin.readline, ""):
                line = line.strip().split("\t")
                key = int(line[0])
                imglist[key] = (nd.array([float(x) for x in line[1:-1]], dtype=dtype), line[-1])
                keys.append(key)
        return imglist, keys

    @staticmethod
    def _read_list(items, dtype):
        imglist, keys = {}, []
        for index, img in enumerate(items, 1):
            key = str(index)
            if len(img) > 2:
                label = nd.array(img[:-1], dtype=dtype)
            elif isinstance(img[0], numeric_types):
                label = nd.array([img[0]], dtype=dtype)
            else:
                label = nd.array(img[0], dtype=dtype)
            imglist[key] = (label, img[-1])
            keys.append(key)
        return imglist, keys

    # -- epochs
    def reset(self):
        """Start a new epoch (reshuffled when ``shuffle``); a roll-over batch is kept."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Start a new epoch, dropping any roll-over batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self):
        """(label, encoded image bytes) of the next image; StopIteration at the end."""
        if self._allow_read is False:
            raise StopIteration
        if self.seq is None:
            s = self.imgrec.read()
            if s is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(s)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            if self.imglist is None:
                return header.label, img
            return self.imglist[idx][0], img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping:  %s", str(e))
                    continue
                data = self.augmentation_transform(data)
                assert i < self.batch_size, "Batch size must be multiples of augmenter output length"
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next DataBatch (``pad`` counts the padding images of a 'pad' last batch)."""
        c, h, w = self.data_shape
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data, batch_label = self._empty_batch(c, h, w)
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad != 0:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    # -- hooks
    def _empty_batch(self, c, h, w):
        return nd.zeros((self.batch_size, c, h, w)), nd.empty(self.provide_label[0][1])

    def check_data_shape(self, data_shape):
        """``data_shape`` must be (3, H, W)."""
        if not len(data_shape) == 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if not data_shape[0] == 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data):
        """RuntimeError for an image to skip."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """Decode an image; a broken one raises RuntimeError naming its file or index."""
        try:
            return imdecode(s)
        except Exception as e:  # pylint: disable=broad-except
            raise RuntimeError("%s, %s" % (self._locate(), e)) from None

    def _locate(self):
        if self.seq is not None:
            idx = self.seq[self.cur % self.num_image - 1]
        else:
            idx = "(sequential read)"
        if self.imglist is not None:
            return "Broken image filename: {}".format(self.imglist[idx][1])
        return "Broken image index: {}".format(idx)

    def read_image(self, fname):
        """The bytes of ``path_root/fname``."""
        with open(os.path.join(self.path_root, fname), "rb") as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """Apply the augmenters in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        return nd.transpose(datum, axes=(2, 0, 1))
