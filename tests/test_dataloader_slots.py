"""DataLoader worker processes hand large arrays back through reusable shared-memory slots
(neogluon/gluon/data/_shm_slots.py): the batches equal those made in the main process, over
epochs (slots reused), with batches growing and shrinking, in NumPy mode, and no file is left
in /dev/shm once the loader is gone, even after an epoch broken off."""
import gc
import glob
import os
import multiprocessing as mp
import pickle

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon, nd
from neogluon.gluon.data import _shm_slots

pytestmark = pytest.mark.skipif(not _shm_slots.available(), reason="no /dev/shm")


class _Big:
    """Sample i: a (3, 64, 64) float32 array full of i (48 KB: a batch of 2 or more takes a
    slot) and the label i as float64; sample 7 is larger (the batch holding it does not fit
    the slots made so far)."""

    def __len__(self):
        return 23

    def __getitem__(self, i):
        side = 96 if i == 7 else 64
        return nd.full((3, side, side), float(i)), float(i)


class _Same(_Big):
    def __getitem__(self, i):
        return nd.full((3, 64, 64), float(i)), np.int32(i)


def _files():
    return glob.glob(os.path.join(_shm_slots.SHM_DIR, "neogluon-dl-%d-*" % os.getpid()))


def _check(batches, size, count):
    seen = []
    for x, y in batches:
        assert isinstance(x, nd.NDArray) and x.dtype == np.float32
        values = x.asnumpy().reshape(x.shape[0], -1)
        assert (values == values[:, :1]).all()
        seen.extend(values[:, 0].tolist())
        np.testing.assert_array_equal(y.asnumpy(), values[:, 0])
    assert seen == [float(i) for i in range(count)]


def test_batches_equal_the_main_process_over_epochs():
    before = set(_files())
    loader = gluon.data.DataLoader(_Same(), batch_size=4, num_workers=2, prefetch=3)
    plain = [(x.asnumpy(), y.asnumpy()) for x, y in gluon.data.DataLoader(_Same(), batch_size=4)]
    for _ in range(3):  # the slots are reused from one epoch to the next
        got = [(x.asnumpy(), y.asnumpy(), y.dtype) for x, y in loader]
        assert len(got) == len(plain)
        for (x, y, dtype), (px, py) in zip(got, plain):
            np.testing.assert_array_equal(x, px)
            np.testing.assert_array_equal(y, py)
            assert dtype == py.dtype == np.int32
    assert len(set(_files()) - before) <= 2 * (3 + 2)  # the slots, named after the parent
    del loader
    gc.collect()
    assert set(_files()) <= before


def test_a_batch_larger_than_the_slots_and_a_short_last_batch():
    # samples of one shape per batch: batch 1 holds sample 7, of another shape: batch_size 1
    loader = gluon.data.DataLoader(_Big(), batch_size=1, num_workers=2)
    for _ in range(2):
        _check(loader, 1, 23)
    big = gluon.data.DataLoader(_Same(), batch_size=5, num_workers=2)  # 4 batches of 5, one of 3
    sizes = []
    for x, y in big:
        sizes.append(x.shape[0])
        assert (x.asnumpy()[:, 0, 0, 0] == y.asnumpy()).all()
    assert sizes == [5, 5, 5, 5, 3]


def test_numpy_mode_batches():
    with mx.util.np_shape(True), mx.util.np_array(True):
        loader = gluon.data.DataLoader(_Same(), batch_size=4, num_workers=2)
        x, y = next(iter(loader))
        assert isinstance(x, mx.np.ndarray) and x.shape == (4, 3, 64, 64)
        assert float(x[3, 0, 0, 0]) == 3.0


def test_no_file_left_after_an_epoch_broken_off():
    before = set(_files())
    loader = gluon.data.DataLoader(_Same(), batch_size=2, num_workers=2, prefetch=4)
    for i, (x, _) in enumerate(loader):
        assert float(x.asnumpy()[0, 0, 0, 0]) == 2 * i
        if i == 1:
            break
    x, _ = next(iter(loader))  # a new epoch while batches of the first are pending
    assert float(x.asnumpy()[0, 0, 0, 0]) == 0
    del loader, x
    gc.collect()
    assert set(_files()) <= before


def test_batches_kept_are_not_overwritten():
    # a batch lives on its slot's memory (no copy in the parent): the slot is written again
    # only once nothing uses that memory, so batches kept (more than there are slots) or a
    # view of each keep their values, and the workers go on with new slots or pickling
    loader = gluon.data.DataLoader(_Same(), batch_size=4, num_workers=2, prefetch=2)
    kept = [list(loader) for _ in range(3)]
    for epoch in kept:
        _check(epoch, 4, 23)
    views = [x[1:3] for x, _ in loader]
    for i, v in enumerate(views):
        np.testing.assert_array_equal(v.asnumpy()[:, 0, 0, 0], [4 * i + 1, 4 * i + 2])
    del kept, views
    gc.collect()
    for x, y in loader:  # released slots are reused
        assert (x.asnumpy()[:, 0, 0, 0] == y.asnumpy()).all()
    del x, y
    gc.collect()
    busy = {name: m[0] for name, m in loader._slots.maps.items()}
    assert busy and not any(busy.values()), busy  # (one failure seen under load: the message says which)


def test_a_batch_written_in_place_and_pickled():
    loader = gluon.data.DataLoader(_Same(), batch_size=4, num_workers=2)
    for i, (x, _) in enumerate(loader):
        x += 1  # the batch's memory is the caller's
        assert float(x.asnumpy()[0, 0, 0, 0]) == 4 * i + 1
        copy = pickle.loads(pickle.dumps(x))
        np.testing.assert_array_equal(copy.asnumpy(), x.asnumpy())


class _DiesOnce:
    """Sample 3 ends its worker process the first time it is read (a crashing transform)."""

    def __init__(self, marker):
        self.marker = marker

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return nd.full((2,), float(i))


def test_a_worker_that_dies_is_replaced(tmp_path):
    # the pool's handler thread sleeps until a worker ends (not on every result): the batch
    # of the dead worker times out, and the next epoch runs on a new worker
    loader = gluon.data.DataLoader(_DiesOnce(str(tmp_path / "died")), batch_size=2, num_workers=2, timeout=2)
    with pytest.raises(mp.TimeoutError):
        list(loader)
    assert [x.asnumpy()[:, 0].tolist() for x in loader] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert all(p.is_alive() for p in loader._worker_pool._pool)



def _take_and_exit(lock):
    lock.acquire()
    os._exit(0)


def test_terminate_does_not_hang_on_a_result_lock_a_killed_worker_held():
    # Pool.terminate kills the workers, then joins the task handler, whose last step writes a
    # sentinel under the result queue's write lock: a worker killed while it wrote a result
    # (a loader dropped while its workers wrote prefetched batches) left that lock taken and
    # the parent hung for ever (seen as a 12-minute stall of the suite). Here: a process takes
    # the lock of a queue and exits; a thread blocks writing into it, as the handler did.
    import threading
    from neogluon.gluon.data.dataloader import _join_task_handler
    ctx = mp.get_context("fork")
    queue = ctx.SimpleQueue()
    dead = ctx.Process(target=_take_and_exit, args=(queue._wlock,))
    dead.start()
    dead.join()
    handler = threading.Thread(target=queue.put, args=(None,), daemon=True)
    handler.start()
    done = threading.Event()

    def join():
        _join_task_handler(handler, queue, [dead])
        done.set()

    threading.Thread(target=join, daemon=True).start()
    assert done.wait(30), "the join hung on the lock a dead process held"
    assert not handler.is_alive() and queue.get() is None
