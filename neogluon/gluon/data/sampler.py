"""Samplers (``mx.gluon.data.sampler``): iterables of dataset indices, as in MXNet 1.9.1.

``RandomSampler`` shuffles with numpy's global generator, exactly as MXNet does, so
``np.random.seed(s)`` gives the same order here as in MXNet (``mx.random.seed`` does not
affect it, in either library).
"""
import random

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler",
           "IntervalSampler", "SplitSampler"]

_LAST_BATCH_MODES = ("keep", "discard", "rollover")


class Sampler:
    """Base class for samplers: subclasses define ``__iter__`` (indices) and ``__len__``."""

    def __iter__(self):
        raise TypeError("%s must define __iter__" % type(self).__name__)

    def __len__(self):
        raise TypeError("%s must define __len__" % type(self).__name__)


class SequentialSampler(Sampler):
    """The indices ``start, start+1, ..., start+length-1`` in order."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh permutation of ``[0, length)`` on every pass, drawn by ``np.random.shuffle``
    (numpy's global generator) when iteration starts, as MXNet."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices)

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true
    (evaluated once, when the sampler is made)."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    ``last_batch`` says what happens to an incomplete final batch: 'keep' yields it,
    'discard' drops it, 'rollover' carries its indices over to the start of the next pass.

    >>> list(BatchSampler(SequentialSampler(10), 3, 'keep'))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler, batch_size, last_batch="keep"):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def _check_mode(self):
        if self._last_batch not in _LAST_BATCH_MODES:
            raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', "
                             "but got %s" % self._last_batch)

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            self._check_mode()
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        self._check_mode()
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size


class IntervalSampler(Sampler):
    """Indices of ``[0, length)`` at a fixed ``interval``: ``0, k, 2k, ...``, then (with
    ``rollover``) ``1, 1+k, ...`` and so on until every index has been visited.

    MXNet 1.9.1 has it as ``gluon.contrib.data.IntervalSampler`` (MXNet 2 in
    ``gluon.data``). Unlike MXNet, whose ``len`` is ``length`` even when ``rollover=False``,
    ``len`` here is the number of indices actually produced.

    >>> list(IntervalSampler(13, interval=3))
    [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    >>> list(IntervalSampler(13, interval=3, rollover=False))
    [0, 3, 6, 9, 12]
    """

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, \
            "Interval {} must be smaller than or equal to length {}".format(interval, length)
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for i in range(self._interval if self._rollover else 1):
            yield from range(i, self._length, self._interval)

    def __len__(self):
        if self._rollover:
            return self._length
        return len(range(0, self._length, self._interval))


class SplitSampler(Sampler):
    """The indices of part ``part_index`` of ``num_parts`` equal parts of ``[0, length)``,
    shuffled by Python's ``random.shuffle`` on every pass, as the ``SplitSampler`` of MXNet's
    distributed-training examples (``example/distributed_training``) does: each part has
    ``length // num_parts`` indices (the remainder is never sampled) and part ``k`` starts at
    ``k * (length // num_parts)``. Give each worker ``part_index=kv.rank`` and
    ``num_parts=kv.num_workers``.
    """

    def __init__(self, length, num_parts=1, part_index=0):
        if num_parts < 1 or not 0 <= part_index < num_parts:
            raise ValueError("SplitSampler: part_index=%r must be in [0, num_parts=%r)" % (part_index, num_parts))
        self.part_len = length // num_parts
        self.start = self.part_len * part_index
        self.end = self.start + self.part_len

    def __iter__(self):
        indices = list(range(self.start, self.end))
        random.shuffle(indices)
        return iter(indices)

    def __len__(self):
        return self.part_len
