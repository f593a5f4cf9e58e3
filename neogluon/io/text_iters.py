"""``CSVIter`` and ``LibSVMIter``: MXNet 1.9.1's C++ text iterators, read into memory with numpy.

Both batch rows as MXNet's ``BatchLoader`` does. With ``round_batch=True`` (the default) a
batch that runs past the last row is completed with rows from the beginning and reports
them as ``pad``; the next epoch then starts after those rows (so every row is seen equally
often). With ``round_batch=False`` the last batch's missing rows are left as they were in the
batch buffer (MXNet does not clear it: they hold the previous batch's rows) and counted in
``pad``. ``LibSVMIter`` gives CSRNDArray data (and CSR labels when they come from ``label_libsvm``)
holding the entries the file lists, as MXNet's does.
"""
import numpy as np

from ..base import MXNetError
from .. import ndarray as nd
from .io import DataBatch, DataDesc, _CurrentBatchIter

__all__ = ["CSVIter", "LibSVMIter"]


def _shape(shape):
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        return (int(shape),)


class _RowBatcher(_CurrentBatchIter):
    """Batches in-memory rows (``self._data``, ``self._label`` numpy arrays) with MXNet's BatchLoader."""

    def __init__(self, data, label, data_shape, label_shape, batch_size, round_batch, dtype, data_name, label_name):
        super().__init__(batch_size)
        if batch_size <= 0:
            raise MXNetError("%s: batch_size must be positive, got %d" % (type(self).__name__, batch_size))
        self._data, self._label = data, label
        self._round_batch = round_batch
        self._data_shape, self._label_shape = data_shape, label_shape
        self._label_out_shape = () if label_shape == (1,) else label_shape
        self._dtype = np.dtype(dtype)
        self._data_buf = np.zeros((batch_size,) + data_shape, dtype=self._dtype)
        self._label_buf = np.zeros((batch_size,) + self._label_out_shape, dtype=np.float32)
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape, self._dtype.type)]
        self.provide_label = [DataDesc(label_name, (batch_size,) + self._label_out_shape, np.float32)]
        self._start = 0
        self._cursor = 0
        self._done = False

    def reset(self):
        self._cursor = self._start
        self._done = False

    def iter_next(self):
        n = self._data.shape[0]
        if self._done or self._cursor >= n:
            return False
        take = min(self.batch_size, n - self._cursor)
        rows = np.arange(self._cursor, self._cursor + take)
        self._cursor += take
        pad = self.batch_size - take
        if pad and self._round_batch:
            rows = np.concatenate([rows, np.arange(pad) % n])
            self._start = pad % n
            self._done = True
        elif self._cursor >= n:
            self._start = 0
        self.current_batch = DataBatch([self._batch_data(rows)], [self._batch_label(rows)], pad=pad)
        return True

    def _batch_data(self, rows):
        self._data_buf[:len(rows)] = self._data[rows].reshape((len(rows),) + self._data_shape)
        return nd.array(self._data_buf, dtype=self._dtype)

    def _batch_label(self, rows):
        self._label_buf[:len(rows)] = self._label[rows].reshape((len(rows),) + self._label_out_shape)
        return nd.array(self._label_buf)


def _load_csv(fname, shape, what):
    try:
        arr = np.loadtxt(fname, delimiter=",", dtype=np.float64, ndmin=2)
    except OSError as e:
        raise MXNetError("CSVIter: cannot read %s %r: %s" % (what, fname, e)) from None
    width = int(np.prod(shape))
    if arr.shape[1] != width:
        raise MXNetError("CSVIter: %s %r has %d values a row, but %s_shape %s needs %d"
                         % (what, fname, arr.shape[1], what, shape, width))
    return arr


class CSVIter(_RowBatcher):
    """Batches of rows of a CSV file (``data_csv``), each reshaped to ``data_shape``, with labels
    from ``label_csv`` (zeros without one), as MXNet's ``mx.io.CSVIter``."""

    def __init__(self, data_csv, data_shape, label_csv="NULL", label_shape=(1,), batch_size=1, round_batch=True,
                 dtype="float32", data_name="data", label_name="softmax_label", prefetch_buffer=4, ctx="cpu",
                 **kwargs):
        data_shape = _shape(data_shape)
        label_shape = _shape(label_shape)
        data = _load_csv(data_csv, data_shape, "data")
        if label_csv in (None, "NULL"):
            label = np.zeros((data.shape[0], int(np.prod(label_shape))))
        else:
            label = _load_csv(label_csv, label_shape, "label")
            if label.shape[0] != data.shape[0]:
                raise MXNetError("CSVIter: %r has %d rows but %r has %d" % (data_csv, data.shape[0], label_csv,
                                                                              label.shape[0]))
        super().__init__(data, label, data_shape, label_shape, int(batch_size), round_batch, dtype, data_name,
                         label_name)


class _SparseRows:
    """The rows of a LibSVM file as CSR parts (the entries the file lists, explicit zeros included)."""

    def __init__(self, entries, width):
        self.entries, self.width = entries, width
        self.shape = (len(entries), width)

    def __getitem__(self, rows):
        if isinstance(rows, slice):
            return _SparseRows(self.entries[rows], self.width)
        return _SparseRows([self.entries[i] for i in rows], self.width)

    def csr(self, dtype):
        """This batch of rows as a ``(rows, width)`` CSRNDArray."""
        indptr = np.cumsum([0] + [len(e) for e in self.entries]).astype(np.int64)
        indices = np.array([i for e in self.entries for i, _ in e], dtype=np.int64)
        values = np.array([v for e in self.entries for _, v in e], dtype=dtype)
        return nd.sparse.csr_matrix((values, indices, indptr), shape=self.shape, dtype=dtype)


def _parse_libsvm(fname, width, what):
    """Rows ``label[:weight] idx:value ...`` (0-based indices) as ``_SparseRows`` and the labels."""
    labels, rows = [], []
    try:
        with open(fname) as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
    except OSError as e:
        raise MXNetError("LibSVMIter: cannot read %s %r: %s" % (what, fname, e)) from None
    for lineno, line in enumerate(lines, 1):
        tokens = line.split()
        row = []
        # the first token is always the label (dmlc's ``label[:weight]``), even in a label file
        labels.append([float(tokens[0].partition(":")[0])])
        for tok in tokens[1:]:
            idx, _, val = tok.partition(":")
            idx = int(idx)
            if not 0 <= idx < width:
                raise MXNetError("LibSVMIter: %r line %d has feature index %d, outside data_shape (%d,)"
                                 % (fname, lineno, idx, width))
            row.append((idx, float(val)))
        rows.append(sorted(row))
    return _SparseRows(rows, width), labels


class LibSVMIter(_RowBatcher):
    """Batches of a LibSVM file as ``(batch_size, num_features)`` CSRNDArrays; labels from the
    lines' first token (dense) or from ``label_libsvm`` (CSR), as MXNet's ``mx.io.LibSVMIter``."""

    def __init__(self, data_libsvm, data_shape, label_libsvm="NULL", label_shape=(1,), batch_size=1,
                 round_batch=True, num_parts=1, part_index=0, data_name="data", label_name="softmax_label",
                 dtype="float32", **kwargs):
        data_shape = _shape(data_shape)
        label_shape = _shape(label_shape)
        if len(data_shape) != 1:
            raise MXNetError("LibSVMIter: data_shape must have one dimension (the number of features), got %s"
                             % (data_shape,))
        if not round_batch:
            raise MXNetError("LibSVMIter: sparse batch loader doesn't support round_batch == false yet")
        data, labels = _parse_libsvm(data_libsvm, data_shape[0], "data")
        if label_libsvm not in (None, "NULL"):
            label, _ = _parse_libsvm(label_libsvm, int(np.prod(label_shape)), "label")
        else:
            label = np.array(labels, dtype=np.float32)
        if not 0 <= part_index < num_parts:
            raise MXNetError("LibSVMIter: part_index %d is not in [0, num_parts=%d)" % (part_index, num_parts))
        bounds = np.linspace(0, data.shape[0], num_parts + 1).astype(int)
        part = slice(bounds[part_index], bounds[part_index + 1])
        super().__init__(data[part], label[part], data_shape, label_shape, int(batch_size), round_batch, dtype,
                         data_name, label_name)

    def _batch_data(self, rows):
        return self._data[rows].csr(self._dtype)

    def _batch_label(self, rows):
        if isinstance(self._label, _SparseRows):
            return self._label[rows].csr(np.float32)
        return super()._batch_label(rows)
