"""``mx.io``'s core: ``DataDesc``, ``DataBatch``, the ``DataIter`` protocol and ``NDArrayIter``.

Reproduces MXNet 1.9.1's ``mxnet/io/io.py`` semantics, including its quirks:

- inputs are sorted by name (``provide_data`` follows that order); numpy inputs become float32
  NDArrays, and shuffling re-creates every array as float32 (MXNet's ``_getdata_by_idx``);
- shuffling uses numpy's global generator, permuting the already-shuffled data each ``reset``;
- ``last_batch_handle='pad'`` wraps around to the first examples and reports ``pad``;
  ``'discard'`` stops before an incomplete batch; ``'roll_over'`` caches the incomplete batch
  and prepends it to the first batch of the next epoch (with ``pad`` = number of cached rows).
"""
from collections import OrderedDict, namedtuple

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray, array, concat, tile

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name, shape, dtype and layout of one input; a ``(name, shape)`` namedtuple like MXNet's."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super(DataDesc, cls).__new__(cls, name, shape)
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The axis of ``N`` in ``layout`` (0 when ``layout`` is None, -1 when it has no N)."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``[(name, shape)]`` and optional ``[(name, dtype)]``."""
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch: lists of data and label arrays, ``pad``, ``index``, ``bucket_key``."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise AssertionError("Data must be list of NDArrays")
        if label is not None and not isinstance(label, (list, tuple)):
            raise AssertionError("Label must be list of NDArrays")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [lb.shape for lb in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(type(self).__name__, data_shapes, label_shapes)


class DataIter:
    """Base iterator: ``next()`` builds a DataBatch from ``iter_next``/``getdata``/``getlabel``/``getpad``."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the beginning of the data."""

    def next(self):
        """The next DataBatch; StopIteration at the end of the data."""
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch; False at the end."""

    def getdata(self):
        """The data arrays of the current batch."""

    def getlabel(self):
        """The label arrays of the current batch."""

    def getindex(self):
        """The example indices of the current batch (None by default)."""
        return None

    def getpad(self):
        """How many examples at the end of the current batch are padding."""


class _CurrentBatchIter(DataIter):
    """A DataIter whose ``iter_next`` stores a DataBatch in ``current_batch``; the getters read it."""

    current_batch = None

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


def _init_data(data, allow_empty, default_name):
    """``[(name, NDArray)]`` sorted by name from an array, a list of arrays or a dict (MXNet's rule)."""
    if data is None:
        if not allow_empty:
            raise AssertionError("NDArrayIter: data must not be None")
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not allow_empty and not data:
            raise AssertionError("NDArrayIter: data must not be an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict(("_%d_%s" % (i, default_name), d) for i, d in enumerate(data))
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset "
                        "a list of them or dict with them as values")
    out = {}
    for k, v in data.items():
        if not isinstance(v, NDArray):
            try:
                v = array(v)
            except Exception:
                raise TypeError("Invalid type '%s' for %s, should be NDArray, numpy.ndarray or h5py.Dataset"
                                % (type(v), k)) from None
        out[k] = v
    return sorted(out.items())


def _getdata_by_idx(data, idx):
    """The arrays permuted by ``idx`` along axis 0, re-created as float32 as MXNet does."""
    return [(k, array(v.asnumpy()[idx], v.context)) for k, v in data]


class NDArrayIter(DataIter):
    """Iterates over NDArrays/numpy arrays (or lists/dicts of them) in batches, as MXNet 1.9.1.

    ``data``/``label`` are one array, a list (named ``_<i>_<data_name>`` when several) or a dict;
    ``last_batch_handle`` is ``'pad'``, ``'discard'`` or ``'roll_over'``; ``layout``'s ``N``
    is the batch axis.
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetError("NDArrayIter: last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        self.idx = np.arange(self.data[0][1].shape[0])
        for name, arr in self.data + self.label:
            if arr.shape[0] != self.idx.shape[0]:
                raise MXNetError("NDArrayIter: %r has %d examples but %r has %d"
                                 % (name, arr.shape[0], self.data[0][0], self.idx.shape[0]))
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = batch_size
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        self.reset()
        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)
        self._cache_data = None
        self._cache_label = None
        self.layout = layout

    def _descs(self, source):
        axis = self.layout.find("N")
        return [DataDesc(k, tuple(list(v.shape[:axis]) + [self.batch_size] + list(v.shape[axis + 1:])),
                         v.dtype, layout=self.layout) for k, v in source]

    @property
    def provide_data(self):
        """DataDesc of every data input, batch axis set to ``batch_size``."""
        return self._descs(self.data)

    @property
    def provide_label(self):
        """DataDesc of every label input, batch axis set to ``batch_size``."""
        return self._descs(self.label)

    def hard_reset(self):
        """Back to the start, dropping any rolled-over examples."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Back to the start (after the rolled-over examples with ``'roll_over'``)."""
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self.layout.find("N")] != self.batch_size:
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _getdata(self, source, start=None, end=None):
        start = 0 if start is None else start
        if end is None:
            end = source[0][1].shape[0] if source else 0
        axis = self.layout.find("N")
        return [x[1].slice_axis(axis=axis, begin=start, end=end) for x in source]

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        axis = self.layout.find("N")
        return [concat(a, b, dim=axis) for a, b in zip(first, second)]

    @staticmethod
    def _tile(data, repeats):
        return [tile(d, reps=[repeats] + [1] * (len(d.shape) - 1)) for d in data]

    def _batchify(self, source):
        if self.cursor >= self.num_data:
            raise AssertionError("DataIter needs reset.")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            if self._cache_data is None and self._cache_label is None:
                raise AssertionError("next epoch should have cached data")
            cache = self._cache_data if self._cache_data is not None else self._cache_label
            second = self._getdata(source, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cache, second)
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            first = self._getdata(source, start=self.cursor)
            if pad > self.num_data:
                second = self._tile(self._getdata(source, end=self.num_data), pad // self.num_data)
                if pad % self.num_data:
                    second = self._concat(second, self._getdata(source, end=pad % self.num_data))
            else:
                second = self._getdata(source, end=pad)
            return self._concat(first, second)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._getdata(source, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data)

    def getlabel(self):
        return self._batchify(self.label)

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx)
        self.label = _getdata_by_idx(self.label, self.idx)
