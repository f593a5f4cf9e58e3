"""MXNet 1.x's first multi-process data loader (``DataLoaderV1``) and the queue machinery it
runs on, kept in ``mx.gluon.data.dataloader`` for code that imports them.

Worker processes read index lists from a key queue and put ``(index, batch)`` on a data
queue; a fetcher thread files the batches by index and ``__next__`` returns them in
sampler order. The queues pickle with ``ForkingPickler``, with which NDArray is
registered (``dataloader.reduce_ndarray``): a tensor travels through shared memory, as MXNet's
``cpu_shared`` arrays do, not through the pipe.
"""
import io
import multiprocessing
import multiprocessing.queues
import pickle
import threading
from multiprocessing.reduction import ForkingPickler

from ...context import cpu
from .dataloader import DataLoader, _as_in_context, _pin, default_batchify_fn, default_mp_batchify_fn

__all__ = ["DataLoaderV1", "ConnectionWrapper", "Queue", "SimpleQueue", "worker_loop_v1", "fetcher_loop_v1"]


class ConnectionWrapper:
    """A multiprocessing connection whose objects are pickled by ``ForkingPickler`` (so
    NDArrays go through shared memory)."""

    def __init__(self, conn):
        self._conn = conn

    def send(self, obj):
        buf = io.BytesIO()
        ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
        self.send_bytes(buf.getvalue())

    def recv(self):
        return pickle.loads(self.recv_bytes())

    def __getattr__(self, name):
        return getattr(self.__dict__.get("_conn"), name)


def _wrap_connections(queue):
    queue._reader = ConnectionWrapper(queue._reader)  # pylint: disable=protected-access
    queue._writer = ConnectionWrapper(queue._writer)  # pylint: disable=protected-access
    queue._send = queue._writer.send  # pylint: disable=protected-access
    queue._recv = queue._reader.recv  # pylint: disable=protected-access


class Queue(multiprocessing.queues.Queue):
    """A multiprocessing queue that passes NDArrays through shared memory."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, ctx=multiprocessing.get_context(), **kwargs)
        _wrap_connections(self)


class SimpleQueue(multiprocessing.queues.SimpleQueue):
    """A multiprocessing ``SimpleQueue`` (no feeder thread) that passes NDArrays through
    shared memory."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, ctx=multiprocessing.get_context(), **kwargs)
        _wrap_connections(self)


def worker_loop_v1(dataset, key_queue, data_queue, batchify_fn):
    """A worker process: batches for the index lists of ``key_queue`` until ``None``."""
    while True:
        idx, samples = key_queue.get()
        if idx is None:
            break
        data_queue.put((idx, batchify_fn([dataset[i] for i in samples])))


def fetcher_loop_v1(data_queue, data_buffer, pin_memory=False, pin_device_id=0, data_buffer_lock=None):
    """The fetcher thread: file each received batch in ``data_buffer`` by its index (a
    ``threading.Condition`` as the lock is notified of each)."""
    while True:
        idx, batch = data_queue.get()
        if idx is None:
            break
        batch = _pin(batch, pin_device_id) if pin_memory else _as_in_context(batch, cpu())
        if data_buffer_lock is not None:
            with data_buffer_lock:
                data_buffer[idx] = batch
                if hasattr(data_buffer_lock, "notify_all"):
                    data_buffer_lock.notify_all()
        else:
            data_buffer[idx] = batch


class _MultiWorkerIterV1:
    """Batches made by worker processes, returned in sampler order (see the module)."""

    def __init__(self, num_workers, dataset, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=worker_loop_v1):
        assert num_workers > 0, "_MultiWorkerIter is not for {} workers".format(num_workers)
        self._num_workers = num_workers
        self._batch_sampler = batch_sampler
        self._key_queue = Queue()
        self._data_queue = SimpleQueue()
        self._data_buffer = {}
        self._data_buffer_lock = threading.Condition()
        self._rcvd_idx = self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._shutdown = False
        self._workers = []
        for _ in range(num_workers):
            worker = multiprocessing.Process(target=worker_fn,
                                             args=(dataset, self._key_queue, self._data_queue, batchify_fn))
            worker.daemon = True
            worker.start()
            self._workers.append(worker)
        self._fetcher = threading.Thread(target=fetcher_loop_v1, daemon=True,
                                         args=(self._data_queue, self._data_buffer, pin_memory, pin_device_id,
                                               self._data_buffer_lock))
        self._fetcher.start()
        for _ in range(2 * num_workers):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        self.shutdown()

    def _push_next(self):
        r = next(self._iter, None)
        if r is None:
            return
        self._key_queue.put((self._sent_idx, r))
        self._sent_idx += 1

    def __next__(self):
        assert not self._shutdown, "call __next__ after shutdown is forbidden"
        if self._rcvd_idx == self._sent_idx:
            assert not self._data_buffer, "Data buffer should be empty at this moment"
            self.shutdown()
            raise StopIteration
        with self._data_buffer_lock:
            while self._rcvd_idx not in self._data_buffer:
                if not any(w.is_alive() for w in self._workers):
                    raise RuntimeError("DataLoaderV1: every worker process has exited before batch %d arrived"
                                       % self._rcvd_idx)
                self._data_buffer_lock.wait(1.0)
            batch = self._data_buffer.pop(self._rcvd_idx)
        self._rcvd_idx += 1
        self._push_next()
        return batch

    next = __next__

    def __iter__(self):
        return self

    def shutdown(self):
        """Stop the fetcher, then the workers."""
        if not getattr(self, "_shutdown", True):
            self._data_queue.put((None, None))
            self._fetcher.join()
            for _ in range(self._num_workers):
                self._key_queue.put((None, None))
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
            self._shutdown = True


class DataLoaderV1:
    """MXNet's first ``DataLoader`` (``dataset``, ``batch_size``, ``shuffle``, ``sampler``,
    ``last_batch``, ``batch_sampler``, ``batchify_fn``, ``num_workers``, ``pin_memory``,
    ``pin_device_id``), with the worker processes and queues of the module docstring."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._batch_sampler = DataLoader._make_batch_sampler(  # pylint: disable=protected-access
            dataset, batch_size, shuffle, sampler, last_batch, batch_sampler)
        self._num_workers = max(num_workers, 0)
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn

    def __iter__(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIterV1(self._num_workers, self._dataset, self._batchify_fn, self._batch_sampler,
                                  self._pin_memory, self._pin_device_id)

    def _same_process_iter(self):
        for batch in self._batch_sampler:
            ret = self._batchify_fn([self._dataset[idx] for idx in batch])
            yield _pin(ret, self._pin_device_id) if self._pin_memory else ret

    def __len__(self):
        return len(self._batch_sampler)
