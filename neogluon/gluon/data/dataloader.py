"""``DataLoader`` (``mx.gluon.data.dataloader``): mini-batches from a dataset, as in MXNet 1.9.1.

Batches are formed from the index lists of a ``BatchSampler`` and merged by a batchify
function. With ``num_workers > 0`` they are made by a ``multiprocessing.Pool`` (or a
``ThreadPool`` with ``thread_pool=True``) while the caller consumes earlier ones; they
still arrive in sampler order, so workers give exactly the batches of ``num_workers=0``.

Worker processes hand NDArrays back through shared memory, as MXNet's ``cpu_shared``
arrays do: the large arrays of a batch through a few reusable shared-memory slots per worker
(``_shm_slots.py``: no fresh shared memory and no file-descriptor hand-over per batch),
anything else pickled; NDArray is also registered with ``multiprocessing``'s
``ForkingPickler`` so that one nested elsewhere travels by torch's shared-memory reduction
instead of being copied into the pipe. The dataset and batchify function are given to each
worker once, when the pool starts (inherited on fork), not pickled with every batch.
"""
import collections
import functools
import gc
import multiprocessing
import os
import multiprocessing.pool
import signal
import threading
from multiprocessing.reduction import ForkingPickler

import numpy as np
import torch

from ... import ndarray as nd
from ... import threads as _threads
from ...ndarray import NDArray
from ...np_mode import FLAGS as _NP
from ...numpy.multiarray import as_np as _as_np
from . import _shm_slots
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn", "rebuild_ndarray", "reduce_ndarray",
           "rebuild_np_ndarray", "reduce_np_ndarray"]


def rebuild_ndarray(tensor):
    """The NDArray of a tensor received from another process."""
    return NDArray(tensor)


def reduce_ndarray(data):
    """Pickle an NDArray for another process as its tensor (torch moves the storage to
    shared memory, MXNet's ``cpu_shared``)."""
    return rebuild_ndarray, (data._t.detach(),)


def rebuild_np_ndarray(tensor):
    """The ``mx.np.ndarray`` of a tensor received from another process."""
    return _as_np(NDArray(tensor))


def reduce_np_ndarray(data):
    """Pickle an ``mx.np.ndarray`` for another process as its (shared-memory) tensor."""
    return rebuild_np_ndarray, (data._t.detach(),)


ForkingPickler.register(NDArray, reduce_ndarray)


def _as_in_context(data, ctx):
    """``data`` (an NDArray, or nested lists/tuples of them) moved to ``ctx``."""
    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def default_batchify_fn(data):
    """Merge a list of samples into a batch, as MXNet's ``default_batchify_fn``: NDArrays
    are stacked (``nd.stack``), tuples are merged element-wise into a list, anything
    else (numpy arrays and scalars, Python numbers) goes through ``np.asarray`` and
    becomes an NDArray of numpy's dtype. Under ``npx.set_np()`` the batches are
    ``mx.np.ndarray``, as MXNet's NumPy-mode batchify gives."""
    if isinstance(data[0], tuple):
        return [default_batchify_fn(field) for field in zip(*data)]
    if isinstance(data[0], NDArray):
        batch = nd.stack(*data)
    else:
        data = np.asarray(data)
        batch = nd.array(data, dtype=data.dtype)
    return _as_np(batch) if _NP.array else batch


def default_mp_batchify_fn(data):
    """``default_batchify_fn`` for worker processes: the batch is built directly in shared
    memory (MXNet's ``cpu_shared`` context), so passing it back copies nothing."""
    return _mp_batchify(data, True)


def _mp_batchify(data, shared):
    """``default_mp_batchify_fn``; with ``shared=False`` in ordinary memory (for the
    DataLoader's workers, whose slots are the shared memory)."""
    if isinstance(data[0], tuple):
        return [_mp_batchify(field, shared) for field in zip(*data)]
    if isinstance(data[0], NDArray):
        tensors = [d._t.detach() for d in data]
        out = torch.empty((len(tensors),) + tuple(tensors[0].shape), dtype=tensors[0].dtype)
        batch = NDArray(torch.stack(tensors, out=out.share_memory_() if shared else out))
    else:
        data = np.asarray(data)
        batch = nd.array(data, dtype=data.dtype)
        if shared:
            batch._t.share_memory_()
    return _as_np(batch) if _NP.array else batch  # MXNet's np.stack under npx.set_np()


def _slot_batchify(data):
    """``default_mp_batchify_fn`` in a worker with slots: NDArray samples are stacked straight
    into a shared-memory slot (``_shm_slots.WorkerSlots.stack``), the rest as usual."""
    if isinstance(data[0], tuple):
        return [_slot_batchify(field) for field in zip(*data)]
    if isinstance(data[0], NDArray):
        packed = _worker_slots.stack([d._t.detach() for d in data], _NP.array)
        if packed is not None:
            return packed
    return _mp_batchify(data, False)


def _pin(batch, device_id):
    """The batch in page-locked host memory (MXNet's ``cpu_pinned``) when CUDA is present;
    without a GPU pinning has no purpose and the batch is returned as it is."""
    if not torch.cuda.is_available():
        return batch
    if isinstance(batch, NDArray):
        with torch.cuda.device(device_id):
            return NDArray(batch._t.pin_memory())
    if isinstance(batch, (list, tuple)):
        return [_pin(b, device_id) for b in batch]
    return batch


# ---------------------------------------------------------------------- worker side
_worker_dataset = None
_worker_batchify_fn = None
_worker_slots = None


def _worker_initializer(dataset, batchify_fn, slots_prefix=None, max_slots=0):
    """Runs once in each worker process: keep the dataset and batchify function (the
    default one stacks in ordinary memory when the batch goes back through the slots of
    ``slots_prefix``), ignore Ctrl-C (the parent handles it) and use one intra-op thread.

    The objects inherited from the parent (torch's and neogluon's modules, the dataset: some
    200k) are moved out of the worker's garbage collector (``gc.freeze``): otherwise the
    worker's first full collection walks them all, about 0.2 s, and writes to every page
    holding one, which copies the pages the fork shared."""
    global _worker_dataset, _worker_batchify_fn, _worker_slots  # pylint: disable=global-statement
    gc.freeze()
    if slots_prefix and batchify_fn is default_mp_batchify_fn:
        batchify_fn = _slot_batchify
    _worker_dataset, _worker_batchify_fn = dataset, batchify_fn
    _worker_slots = _shm_slots.WorkerSlots(slots_prefix, max_slots) if slots_prefix else None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _threads.fix(1, "DataLoader worker")  # the workers are the parallelism; never adapted


def _worker_fn(samples):
    """Make one batch in a worker process."""
    batch = _worker_batchify_fn([_worker_dataset[i] for i in samples])
    return _worker_slots.pack(batch) if _worker_slots is not None else batch


def _thread_worker_fn(samples, batchify_fn, dataset):
    """Make one batch in a worker thread (the default batchify function stacks in ordinary
    memory: the batch stays in this process, and a fresh shared-memory file per batch
    costs more than the stacking itself)."""
    if batchify_fn is default_mp_batchify_fn:
        return _mp_batchify([dataset[i] for i in samples], False)
    return batchify_fn([dataset[i] for i in samples])


class _WorkerPool(multiprocessing.pool.Pool):
    """``multiprocessing.Pool`` whose worker-handler thread sleeps until a worker process ends
    or the pool changes. The stock one also wakes whenever a result waits in the result pipe,
    and until the result thread has read it it spins: about 1300 wake-ups per epoch of 16
    batches here, the parent's CPU taken from the workers. Results are the result thread's
    business; the handler's own (replacing a worker that died) needs only the processes'
    sentinels, and the loader never retires workers (no ``maxtasksperchild``)."""

    def _get_sentinels(self):
        return [self._change_notifier._reader]

    @classmethod
    def _terminate_pool(cls, taskqueue, inqueue, outqueue, pool, change_notifier, worker_handler, task_handler,
                        result_handler, cache):
        task_handler.join = functools.partial(_join_task_handler, task_handler, outqueue, pool)
        super()._terminate_pool(taskqueue, inqueue, outqueue, pool, change_notifier, worker_handler, task_handler,
                                result_handler, cache)


def _join_task_handler(handler, outqueue, workers):
    """``Thread.join`` of a pool's task handler, which ``Pool.terminate`` waits for once it has
    killed the workers. The handler's last step puts a sentinel in the result queue under the
    queue's write lock, a lock shared with the workers: one killed while it wrote a result
    (a batch prefetched for an epoch nobody will read, as the loader is dropped) keeps it for
    ever, and the stock join hung with it. Once every worker has exited, nobody else may hold
    that lock: a handler still waiting for it a while later (writing the sentinel itself takes
    microseconds) gets it released."""
    waited = 0
    while True:
        threading.Thread.join(handler, 0.05)
        if not handler.is_alive():
            return
        lock = getattr(outqueue, "_wlock", None)
        waited = waited + 1 if lock is not None and all(p.exitcode is not None for p in workers) else 0
        if waited == 4:
            try:
                lock.release()
            except ValueError:  # it was free: the handler waits for something else
                pass


class _MultiWorkerIter:
    """Batches computed by a worker pool, returned in sampler order.

    ``prefetch`` batches are submitted up front and one more each time a batch is taken,
    as in MXNet; ``timeout`` bounds the wait for any one batch."""

    def __init__(self, loader):
        self._loader = loader
        self._iter = iter(loader._batch_sampler)
        self._pending = collections.deque()
        for _ in range(loader._prefetch):
            self._push_next()

    def __len__(self):
        return len(self._loader._batch_sampler)

    def _push_next(self):
        indices = next(self._iter, None)
        if indices is None:
            return
        loader = self._loader
        if loader._thread_pool:
            job = loader._worker_pool.apply_async(
                _thread_worker_fn, (indices, loader._batchify_fn, loader._dataset))
        else:
            job = loader._worker_pool.apply_async(_worker_fn, (indices,))
        self._pending.append(job)

    def __next__(self):
        self._push_next()
        if not self._pending:
            raise StopIteration
        job = self._pending.popleft()
        loader = self._loader
        try:
            batch = job.get(loader._timeout)
        except multiprocessing.TimeoutError:
            raise multiprocessing.TimeoutError(
                "DataLoader: a worker timed out after %s seconds. A slow transform needs a "
                "larger `timeout`%s." % (loader._timeout, "" if loader._thread_pool else
                                         "; with a large enough timeout, shared memory may "
                                         "be exhausted: use fewer workers")) from None
        except Exception:
            loader._worker_pool.terminate()
            raise
        if loader._slots is not None:
            batch = loader._slots.unpack(batch)
        if loader._pin_memory:
            batch = _pin(batch, loader._pin_device_id)
        return batch

    next = __next__

    def __iter__(self):
        return self


class DataLoader:
    """Loads mini-batches from a dataset (``mx.gluon.data.DataLoader``).

    Parameters follow MXNet 1.9.1: either ``batch_size`` (with ``shuffle`` or a
    ``sampler``, and ``last_batch`` 'keep' / 'discard' / 'rollover') or a
    ``batch_sampler``; ``batchify_fn`` merges samples (default
    :func:`default_batchify_fn`); ``num_workers`` worker processes, or threads with
    ``thread_pool=True``, computing ``prefetch`` batches ahead (default
    ``2 * num_workers``) with ``timeout`` seconds allowed per batch; ``pin_memory``
    returns page-locked batches. ``auto_reload`` starts prefetching the next epoch as
    soon as one ends. ``try_nopython`` (MXNet 2's C++ loader) is accepted; the Python
    loader always runs, which is what MXNet falls back to.

    With ``shuffle=True`` the order comes from numpy's global generator, drawn when an
    epoch's iteration starts: ``np.random.seed`` makes it repeatable and equal to MXNet's.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False,
                 try_nopython=None):
        assert timeout > 0, "timeout must be positive, given {}".format(timeout)
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        self._try_nopython = try_nopython
        self._batch_sampler = self._make_batch_sampler(
            dataset, batch_size, shuffle, sampler, last_batch, batch_sampler)
        self._num_workers = max(num_workers, 0)
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self._slots = None
        self._worker_pool = self._make_pool() if self._num_workers > 0 else None
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    @staticmethod
    def _make_batch_sampler(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler):
        """The BatchSampler that the arguments describe, with MXNet's checks."""
        if batch_sampler is not None:
            if batch_size is not None or shuffle or sampler is not None or last_batch is not None:
                raise ValueError("batch_size, shuffle, sampler and last_batch must "
                                 "not be specified if batch_sampler is specified.")
            return batch_sampler
        if batch_size is None:
            raise ValueError("batch_size must be specified unless batch_sampler is specified")
        if sampler is None:
            sampler = (_sampler.RandomSampler(len(dataset)) if shuffle
                       else _sampler.SequentialSampler(len(dataset)))
        elif shuffle:
            raise ValueError("shuffle must not be specified if sampler is specified")
        return _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")

    def _make_pool(self):
        if self._thread_pool:
            return multiprocessing.pool.ThreadPool(self._num_workers)
        prefix = None
        if _shm_slots.available():
            prefix = os.path.join(_shm_slots.SHM_DIR, "neogluon-dl-%d-%s" % (os.getpid(), os.urandom(6).hex()))
            self._slots = _shm_slots.ParentSlots(prefix)
        # a worker holds at most the batches prefetched and not yet taken: that many slots, and two more
        return _WorkerPool(self._num_workers, initializer=_worker_initializer,
                           initargs=(self._dataset, self._batchify_fn, prefix, self._prefetch + 2))

    def _same_process_iter(self):
        for indices in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[i] for i in indices])
            if self._pin_memory:
                batch = _pin(batch, self._pin_device_id)
            yield batch

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIter(self)

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        it, self._iter = self._iter, None
        yield from it
        if self._iter is None and self.auto_reload:
            self.refresh()

    def __len__(self):
        return len(self._batch_sampler)

    def refresh(self):
        """Start the next epoch's iterator now (prefetching begins with worker pools)."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop the prefetched iterator; the next epoch starts when iteration does."""
        self._iter = None

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        slots = getattr(self, "_slots", None)
        try:
            if pool is not None:
                pool.terminate()
        finally:  # the shared-memory files go even when the pool's teardown fails
            if slots is not None:
                slots.close()


# MXNet 1.x's first loader and its queues live in this module's namespace too
from .dataloader_v1 import (DataLoaderV1, ConnectionWrapper, Queue, SimpleQueue,  # noqa: E402,F401
                            worker_loop_v1, fetcher_loop_v1)
