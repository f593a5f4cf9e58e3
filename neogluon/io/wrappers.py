"""Iterators wrapping other iterators: ``ResizeIter`` and ``PrefetchingIter`` (MXNet 1.9.1)."""
import threading

from .io import DataBatch, DataDesc, _CurrentBatchIter

__all__ = ["ResizeIter", "PrefetchingIter"]


class ResizeIter(_CurrentBatchIter):
    """``size`` batches an epoch from ``data_iter``, restarting it when it runs out; ``reset``
    resets it too unless ``reset_internal=False``."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class PrefetchingIter(_CurrentBatchIter):
    """Reads the next batch of each of ``iters`` in a background thread while the current one is
    used; batches of several iterators are joined (data and labels concatenated as lists), and
    ``rename_data``/``rename_label`` (one ``{old: new}`` dict per iterator) rename their inputs."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise AssertionError("PrefetchingIter needs at least one iterator")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in range(self.n_iter)]
        self.data_taken = [threading.Event() for _ in range(self.n_iter)]
        for e in self.data_taken:
            e.set()
        self.started = True
        self.current_batch = None
        self.next_batch = [None] * self.n_iter
        self.prefetch_threads = [threading.Thread(target=self._prefetch, args=(i,), daemon=True)
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def _prefetch(self, i):
        while True:
            self.data_taken[i].wait()
            if not self.started:
                break
            try:
                self.next_batch[i] = self.iters[i].next()
            except StopIteration:
                self.next_batch[i] = None
            self.data_taken[i].clear()
            self.data_ready[i].set()

    def close(self):
        """Stop the prefetching threads."""
        if getattr(self, "started", False):
            self.started = False
            for e in self.data_taken:
                e.set()
            for thread in self.prefetch_threads:
                thread.join()

    def __del__(self):
        self.close()

    def _renamed(self, which, renames):
        descs = [getattr(it, which) for it in self.iters]
        if renames is None:
            return sum(descs, [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc) else DataDesc(*x)
                     for x in d] for r, d in zip(renames, descs)], [])

    @property
    def provide_data(self):
        return self._renamed("provide_data", self.rename_data)

    @property
    def provide_label(self):
        return self._renamed("provide_label", self.rename_label)

    def reset(self):
        for e in self.data_ready:
            e.wait()
        for it in self.iters:
            it.reset()
        for e in self.data_ready:
            e.clear()
        for e in self.data_taken:
            e.set()

    def iter_next(self):
        for e in self.data_ready:
            e.wait()
        if self.next_batch[0] is None:
            if any(b is not None for b in self.next_batch):
                raise AssertionError("Number of entry mismatches between iterators")
            return False
        if any(b.pad != self.next_batch[0].pad for b in self.next_batch):
            raise AssertionError("Number of entry mismatches between iterators")
        self.current_batch = DataBatch(sum([b.data for b in self.next_batch], []),
                                       sum([b.label or [] for b in self.next_batch], []),
                                       self.next_batch[0].pad, self.next_batch[0].index,
                                       provide_data=self.provide_data, provide_label=self.provide_label)
        for e in self.data_ready:
            e.clear()
        for e in self.data_taken:
            e.set()
        return True
