"""Datasets (``mx.gluon.data.dataset``): indexable collections of samples, as in MXNet 1.9.1.

A sample is whatever ``dataset[i]`` returns; a tuple sample is spread over the arguments
of ``transform`` functions. Any object with ``len()`` and ``[]`` (a list, a numpy array,
an NDArray) can serve where a dataset is expected.
"""
import os

from ... import recordio
from ...ndarray import NDArray
from . import sampler as _sampler

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Base class of datasets: subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise TypeError("%s must define __getitem__" % type(self).__name__)

    def __len__(self):
        raise TypeError("%s must define __len__" % type(self).__name__)

    def __iter__(self):
        """The samples in index order (``len`` of them; MXNet relies on ``__getitem__``
        raising IndexError at the end, which gives the same samples)."""
        for i in range(len(self)):
            yield self[i]

    def filter(self, fn):
        """A dataset of the samples for which ``fn(sample)`` is true (decided now, once)."""
        return _SampledDataset(self, _sampler.FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` contiguous parts; the first ``len % num_shards``
        parts get one sample more, as MXNet."""
        assert index < num_shards, "Shard index of out bound: %d out of %d" % (index, num_shards)
        assert num_shards > 0, "Number of shards must be greater than 0"
        assert index >= 0, "Index must be non-negative"
        shard_len, rest = divmod(len(self), num_shards)
        start = shard_len * index + min(index, rest)
        length = shard_len + (index < rest)
        return _SampledDataset(self, _sampler.SequentialSampler(length, start))

    def take(self, count):
        """The first ``count`` samples (all of them when ``count`` is None or too large)."""
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, _sampler.SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` produces (in that order)."""
        if not isinstance(sampler, _sampler.Sampler):
            raise TypeError("Invalid sampler type: %s. Expected gluon.data.Sampler instead."
                            % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset whose samples are ``fn(*sample)`` (tuple samples) or ``fn(sample)``.

        Lazily, on every access, by default; with ``lazy=False`` every sample is
        transformed now and kept in a :class:`SimpleDataset`."""
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset(list(trans))

    def transform_first(self, fn, lazy=True):
        """As :meth:`transform`, applying ``fn`` to the first element of each sample only
        (typically the data, leaving the label as it is)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any object with ``len()`` and ``[]`` (a list, an array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Several dataset-like objects of one length zipped: sample ``i`` is
    ``(x1[i], x2[i], ...)``, or ``x1[i]`` alone for a single argument.

    As in MXNet, a 1-d NDArray is converted to numpy once, so its samples are numpy
    scalars rather than shape-(1,) NDArrays."""

    def __init__(self, *args):
        assert len(args) > 0, "Needs at least 1 arrays"
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, \
                "All arrays must have the same length; array[0] has length %d " \
                "while array[%d] has %d." % (self._length, i + 1, len(data))
            if isinstance(data, NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class _LazyTransformDataset(Dataset):
    """``dataset`` with ``fn`` applied to each sample when it is read."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """``fn`` applied to the first of its arguments (an object, not a closure, so that it
    pickles for worker processes)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices of ``sampler`` (drawn once)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class RecordFileDataset(Dataset):
    """The records of a RecordIO file (``filename``, with its index beside it: the same name
    ending in ``.idx``), as raw bytes, in the index's order."""

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
