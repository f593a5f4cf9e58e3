"""How a ``DataLoader`` worker process hands its batches to the parent: reusable shared-memory
slots.

Sending a tensor through ``multiprocessing`` with torch's shared-memory reduction costs, per
tensor, a fresh shared-memory file whose pages are faulted in and zeroed by the kernel (about
1.6 ms for a 3.5 MB batch here) and a file-descriptor hand-over through a
``resource_sharer`` connection with its authentication round trips (about 2.7 ms of latency
and 0.5 ms of the parent's CPU). A worker instead keeps a few files in ``/dev/shm``, mapped
once, and writes each large array of a batch into a free one; the parent maps each file once
(and unlinks its name at once: the pages live as long as the two mappings) and hands out the
slot's memory itself as the batch's array, as MXNet's batches live in ``cpu_shared`` memory:
the slot is marked free again when the last tensor on that memory (the batch, any view of
it) is freed, so a batch costs the parent no copy (a 3.5 MB batch: about 1-2 ms of its CPU,
the page faults of fresh memory included). A worker whose slots are all still held (a
user keeping many batches) creates more, up to a bound, and then sends arrays the ordinary
way. Small arrays (labels) travel pickled as numpy arrays. Files whose name the parent never
opened (the batches of an epoch broken off) are removed when the loader is cleaned up.

Slot layout: byte 0 is the busy flag (set by the worker when it writes, cleared in the parent
when the batch's memory is freed), the data starts at byte 64.
"""
import glob
import math
import mmap
import os
import weakref

import numpy as np
import torch

from ...ndarray import NDArray
from ...numpy.multiarray import as_np as _as_np, ndarray as _np_ndarray

__all__ = ["WorkerSlots", "ParentSlots"]

_HEADER = 64
_MIN_BYTES = 1 << 16  # smaller arrays are pickled
SHM_DIR = "/dev/shm"


class _InSlot:
    """An array written into the slot file ``name``."""
    __slots__ = ("name", "shape", "dtype", "is_np")

    def __init__(self, name, shape, dtype, is_np):
        self.name, self.shape, self.dtype, self.is_np = name, shape, dtype, is_np

    def __reduce__(self):
        return _InSlot, (self.name, self.shape, self.dtype, self.is_np)


class _Inline:
    """A small array, pickled as a numpy array."""
    __slots__ = ("array", "is_np")

    def __init__(self, array, is_np):
        self.array, self.is_np = array, is_np

    def __reduce__(self):
        return _Inline, (self.array, self.is_np)


def available():
    """Whether this system has a ``/dev/shm`` to put slots in."""
    return os.path.isdir(SHM_DIR) and os.access(SHM_DIR, os.W_OK)


class _Slot:
    __slots__ = ("name", "map", "size")

    def __init__(self, name, size):
        fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        try:
            os.ftruncate(fd, _HEADER + size)
            self.map = mmap.mmap(fd, _HEADER + size)
        finally:
            os.close(fd)
        self.name, self.size = name, size


class WorkerSlots:
    """The worker's side: ``pack(batch)`` replaces the NDArrays of a (nested list/tuple) batch
    by descriptors; at most ``max_slots`` files (beyond that, arrays go the ordinary way)."""

    def __init__(self, prefix, max_slots):
        self.prefix = prefix
        self.max_slots = max_slots
        self.slots = []
        self.created = 0

    def _free_slot(self, nbytes):
        for slot in self.slots:
            if slot.map[0] == 0 and slot.size >= nbytes:
                return slot
        if len(self.slots) >= self.max_slots:
            free = [s for s in self.slots if s.map[0] == 0]
            if not free:
                return None
            self.slots.remove(free[0])  # too small: replaced by a larger one
            free[0].map.close()
        self.created += 1
        slot = _Slot("%s-%d-%d" % (self.prefix, os.getpid(), self.created), nbytes)
        self.slots.append(slot)
        return slot

    def stack(self, tensors, is_np):
        """``torch.stack(tensors)`` written straight into a free slot (no batch in ordinary
        memory copied over afterwards): its descriptor, or None when it is small or no slot
        is free."""
        first = tensors[0]
        shape = (len(tensors),) + tuple(first.shape)
        count = len(tensors) * first.numel()
        if first.device.type != "cpu" or count * first.element_size() < _MIN_BYTES:
            return None
        if any(t.shape != first.shape or t.dtype != first.dtype for t in tensors):
            return None  # torch.stack's own error (or promotion) then applies
        slot = self._free_slot(count * first.element_size())
        if slot is None:
            return None
        slot.map[0] = 1
        view = torch.frombuffer(slot.map, dtype=first.dtype, count=count, offset=_HEADER)
        try:
            torch.stack(tensors, out=view.view(shape))
        except BaseException:
            slot.map[0] = 0
            raise
        finally:
            del view
        return _InSlot(slot.name, shape, first.dtype, is_np)

    def pack(self, batch):
        if type(batch) is list or type(batch) is tuple:
            return type(batch)(self.pack(b) for b in batch)
        if not isinstance(batch, NDArray):
            return batch
        tensor = batch._t.detach()
        if tensor.device.type != "cpu":
            return batch
        nbytes = tensor.numel() * tensor.element_size()
        if nbytes < _MIN_BYTES:
            return _Inline(tensor.numpy().copy(), isinstance(batch, _np_ndarray))
        slot = self._free_slot(nbytes)
        if slot is None:
            return batch
        slot.map[0] = 1
        view = torch.frombuffer(slot.map, dtype=tensor.dtype, count=tensor.numel(), offset=_HEADER)
        view.view(tensor.shape).copy_(tensor)
        del view
        return _InSlot(slot.name, tuple(tensor.shape), tensor.dtype, isinstance(batch, _np_ndarray))


_NUMPY_DTYPES = {}


def _numpy_dtype(dtype):
    """numpy's dtype for a torch dtype; None for one numpy lacks (bfloat16)."""
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        try:
            found = torch.empty(0, dtype=dtype).numpy().dtype
        except TypeError:
            found = None
        return _NUMPY_DTYPES.setdefault(dtype, found)


def _release(mapped):
    """The slot's memory is no longer used in the parent: the worker may write it again."""
    try:
        mapped[0] = 0
    except ValueError:  # pragma: no cover - unmapped at interpreter exit
        pass


class ParentSlots:
    """The parent's side: ``unpack(batch)`` turns the descriptors back into NDArrays on the
    slots' memory (each slot released when its array's memory is freed)."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.maps = {}

    def _map(self, name):
        mapped = self.maps.get(name)
        if mapped is None:
            fd = os.open(name, os.O_RDWR)
            try:
                mapped = self.maps[name] = mmap.mmap(fd, 0)
            finally:
                os.close(fd)
            os.unlink(name)
        return mapped

    def unpack(self, batch):
        if type(batch) is list or type(batch) is tuple:
            return type(batch)(self.unpack(b) for b in batch)
        if isinstance(batch, _Inline):
            out = NDArray(torch.from_numpy(batch.array))
        elif isinstance(batch, _InSlot):
            out = NDArray(self._lend(self._map(batch.name), batch.shape, batch.dtype))
        else:
            return batch
        return _as_np(out) if batch.is_np else out

    @staticmethod
    def _lend(mapped, shape, dtype):
        """A tensor on the slot's memory; the slot is free again once no tensor uses it
        (torch holds the numpy array on the memory until its storage is freed). A dtype
        numpy lacks (bfloat16) is copied out at once."""
        count = math.prod(shape)
        np_dtype = _numpy_dtype(dtype)
        if np_dtype is None:
            view = torch.frombuffer(mapped, dtype=dtype, count=count, offset=_HEADER)
            out = view.view(shape).clone()
            del view
            mapped[0] = 0
            return out
        array = np.frombuffer(mapped, dtype=np_dtype, count=count, offset=_HEADER)
        weakref.finalize(array, _release, mapped).atexit = False
        return torch.from_numpy(array.reshape(shape))

    def close(self):
        """Unmap the slots and remove the files the parent never opened."""
        for mapped in self.maps.values():
            try:
                mapped.close()
            except (BufferError, ValueError):  # pragma: no cover - a view still alive
                pass
        self.maps.clear()
        for name in glob.glob(self.prefix + "-*"):
            try:
                os.unlink(name)
            except OSError:  # pragma: no cover - removed meanwhile
                pass
