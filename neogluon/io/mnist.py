"""``MNISTIter``: MXNet 1.9.1's iterator over the MNIST idx files (local files only).

Reads ``image`` (magic 2051) and ``label`` (magic 2049) big-endian idx files; pixels are scaled
by 1/256 as MXNet does, data is ``(batch, 1, 28, 28)`` or, with ``flat``, ``(batch, 784)``;
an incomplete last batch is dropped. ``shuffle`` (MXNet's default) permutes the examples once,
in MXNet's order: ``std::shuffle`` of the GCC runtime MXNet 1.9.1 is built with, driven by
``std::mt19937(seed)`` (reproduced with numpy's MT19937, which is the same generator).
"""
import gzip
import struct

import numpy as np

from ..base import MXNetError
from .. import ndarray as nd
from .io import DataBatch, DataDesc, DataIter

__all__ = ["MNISTIter"]


def std_shuffle_order(n, seed):
    """The permutation ``std::shuffle(v.begin(), v.end(), std::mt19937(seed))`` gives ``v = 0..n-1``
    with MXNet 1.9.1's libstdc++: for each ``i`` from 1, swap ``v[i]`` with ``v[j]``, ``j`` uniform in
    ``[0, i]`` drawn by ``uniform_int_distribution``'s downscaling (rejecting raw values past the
    largest multiple of the range)."""
    bits = np.random.MT19937()
    bits._legacy_seeding(seed & 0xFFFFFFFF)  # pylint: disable=protected-access  (std::mt19937's seeding)
    raw = bits.random_raw(max(2 * n, 16)).tolist()
    pos = 0
    order = list(range(n))
    for i in range(1, n):
        span = i + 1
        scaling = 0xFFFFFFFF // span
        past = span * scaling
        while True:
            if pos == len(raw):
                raw, pos = bits.random_raw(max(n, 16)).tolist(), 0
            r = raw[pos]
            pos += 1
            if r < past:
                break
        j = r // scaling
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def _read_idx(fname, magic, what):
    opener = gzip.open if str(fname).endswith(".gz") else open
    try:
        with opener(fname, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise MXNetError("MNISTIter: cannot read the %s file %r: %s" % (what, fname, e)) from None
    ndim = 3 if magic == 2051 else 1
    if len(raw) < 4 * (ndim + 1) or struct.unpack(">I", raw[:4])[0] != magic:
        raise MXNetError("MNISTIter: %r is not an MNIST %s file (idx magic number %d expected)" % (fname, what, magic))
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 * (ndim + 1))
    if body.size != int(np.prod(dims)):
        raise MXNetError("MNISTIter: %r holds %d bytes of data, its header says %s" % (fname, body.size, dims))
    return body.reshape(dims)


class MNISTIter(DataIter):
    """Batches of MNIST images (float32, /256) and labels from local idx files."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte", batch_size=128,
                 shuffle=True, flat=False, seed=0, silent=False, num_parts=1, part_index=0, data_name="data",
                 label_name="softmax_label", **kwargs):
        super().__init__(int(batch_size))
        images = _read_idx(image, 2051, "image")
        labels = _read_idx(label, 2049, "label")
        if images.shape[0] != labels.shape[0]:
            raise MXNetError("MNISTIter: %r has %d images but %r has %d labels"
                             % (image, images.shape[0], label, labels.shape[0]))
        bounds = np.linspace(0, images.shape[0], num_parts + 1).astype(int)
        part = slice(bounds[part_index], bounds[part_index + 1])
        images, labels = images[part], labels[part]
        if shuffle:
            order = std_shuffle_order(images.shape[0], seed)
            images, labels = images[order], labels[order]
        rows, cols = images.shape[1:]
        shape = (rows * cols,) if flat else (1, rows, cols)
        self._images = (images.astype(np.float32) / 256.0).reshape((images.shape[0],) + shape)
        self._labels = labels.astype(np.float32)
        self.provide_data = [DataDesc(data_name, (self.batch_size,) + shape)]
        self.provide_label = [DataDesc(label_name, (self.batch_size,))]
        self._cursor = 0

    def reset(self):
        self._cursor = 0

    def iter_next(self):
        if self._cursor + self.batch_size > self._images.shape[0]:
            return False
        self._cursor += self.batch_size
        return True

    def _rows(self, arr):
        return nd.array(arr[self._cursor - self.batch_size:self._cursor])

    def getdata(self):
        return [self._rows(self._images)]

    def getlabel(self):
        return [self._rows(self._labels)]

    def getpad(self):
        return 0

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return DataBatch(self.getdata(), self.getlabel(), pad=0)
