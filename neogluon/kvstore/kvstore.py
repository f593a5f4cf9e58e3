"""``mx.kv.KVStore``: MXNet 1.9.1's single-process key-value store ('local', 'device', 'nccl').

The store keeps one array per key. ``push`` sums the values given for a key (one per
device) and, when an optimizer was set (``set_optimizer``), runs it as
``updater(key, summed_gradient, stored_weight)``; without one the sum replaces the stored
value. ``pull`` copies the stored value into every output. Keys are ints or strs, never
mixed in one store, as MXNet checks. On one machine the three types differ only in where
MXNet reduces (CPU or GPU memory); here they behave the same, and gradient compression is
applied for 'device'/'nccl' as MXNet does (each device's value quantized with its own
residual before the sum, :mod:`neogluon.kvstore.compression`); MXNet refuses it for 'local'. The distributed types are in :mod:`neogluon.kvstore.dist`.
"""
import pickle

import torch

from .. import optimizer as opt
from ..base import MXNetError
from ..fileio import atomic_write, read_file
from ..ndarray import NDArray
from ..operator import registry as _registry
from .compression import create_compression
from .base import KVStoreBase, OneProcess

__all__ = ["KVStore", "create"]

OPTIMIZER = "optimizer"


def _key_value(key, value, what):
    """``[(key, [arrays])]`` for one key or a list of keys (MXNet's ``_ctype_key_value``)."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(key) != len(value):
            raise MXNetError("KVStore.%s: %d keys need a list of %d values" % (what, len(key), len(key)))
        pairs = []
        for k, v in zip(key, value):
            pairs.extend(_key_value(k, v, what))
        return pairs
    if not isinstance(key, (int, str)):
        raise MXNetError("KVStore.%s: keys must be int or str, got %s" % (what, type(key).__name__))
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if not isinstance(v, NDArray):
            raise TypeError("KVStore.%s: value for key %r must be NDArray, got %s" % (what, key, type(v).__name__))
    return [(key, values)]


class KVStore(OneProcess, KVStoreBase):
    """A single-process KVStore; create it with ``mx.kv.create(name)``."""

    OPTIMIZER = OPTIMIZER

    def __init__(self, name="local"):
        self._type = name
        self._store = {}
        self._key_type = None
        self._updater = None
        self._compression_params = None
        self._compressor = None

    # -- identity
    @property
    def type(self):
        """The name given to ``create`` ('local', 'device' or 'nccl')."""
        return self._type

    def is_capable(self, capability):
        """Whether the store can run the optimizer (``'optimizer'``): yes."""
        if capability.lower() == OPTIMIZER:
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    # -- keys and values
    def _check_key_type(self, key):
        kt = str if isinstance(key, str) else int
        if self._key_type is None:
            self._key_type = kt
        elif self._key_type is not kt:
            raise MXNetError("KVStore: Mixed key types are not allowed (the store holds %s keys, got %r)"
                             % (self._key_type.__name__, key))

    def _stored(self, key):
        if key not in self._store:
            raise MXNetError("KVStore: key %r has not been inited" % (key,))
        return self._store[key]

    def init(self, key, value):
        """Store the initial value of each key (a copy); a key can be initialized once."""
        for k, vals in _key_value(key, value, "init"):
            self._check_key_type(k)
            if k in self._store:
                raise MXNetError("KVStore: duplicate init of key %r. Please double check if you called kv.init "
                                 "or kv.broadcast with this key multiple times" % (k,))
            v = vals[0]
            self._store[k] = v.copy() if v.stype != "default" else NDArray(v._t.detach().clone())

    def push(self, key, value, priority=0):
        """Sum the values of each key and apply the updater (or replace the stored value)."""
        for k, vals in _key_value(key, value, "push"):
            stored = self._stored(k)
            if self._compressor is not None:
                vals = [NDArray(self._compressor((k, i), v._t.detach().to(device=stored._t.device,
                                                                            dtype=stored._t.dtype)))
                        for i, v in enumerate(vals)]
            merged = self._merge(k, vals, stored)
            if self._updater is not None:
                self._updater(k, merged, stored)
            elif stored.stype != "default" or merged.stype != "default":
                merged.copyto(stored)  # a row_sparse value replaces the stored one, storage and all
            else:
                stored._t.copy_(merged._t)

    @staticmethod
    def _merge(key, vals, stored):
        total = None
        for v in vals:
            if tuple(v.shape) != tuple(stored.shape):
                raise MXNetError("KVStore.push: value of shape %s for key %r, which holds shape %s"
                                 % (tuple(v.shape), key, tuple(stored.shape)))
        if any(v.stype != "default" for v in vals):  # row_sparse pushes are summed on their rows
            total = vals[0].astype(stored.dtype, copy=False)
            for v in vals[1:]:
                total = total + v
            return total if len(vals) > 1 else total.copy()
        for v in vals:
            t = v._t.detach().to(device=stored._t.device, dtype=stored._t.dtype)
            total = t.clone() if total is None else total.add_(t)
        return NDArray(total)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into its output array(s)."""
        if out is None:
            raise AssertionError("KVStore.pull: out must be given")
        for k, outs in _key_value(key, out, "pull"):
            stored = self._stored(k)
            for o in outs:
                if tuple(o.shape) != tuple(stored.shape):
                    raise MXNetError("KVStore.pull: output of shape %s for key %r, which holds shape %s"
                                     % (tuple(o.shape), k, tuple(stored.shape)))
                if o.stype != "default" or stored.stype != "default":
                    stored.copyto(o)  # into a sparse output: its storage, cast as MXNet's CopyFromTo
                    continue
                with torch.no_grad():
                    o._t.copy_(stored._t)

    def pushpull(self, key, value, out=None, priority=0):
        """``push`` then ``pull`` into ``out`` (into ``value`` when ``out`` is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """``init`` the keys with ``value``, then ``pull`` into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull the rows ``row_ids`` of each key: a row_sparse value gives each output the
        rows named (sorted, once each, zero where the value stores none: ``retain``); into
        a dense output of a dense value every row is copied, as MXNet's dense fallback does."""
        if out is None or row_ids is None:
            raise AssertionError("KVStore.row_sparse_pull: out and row_ids must be given")
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        if not isinstance(row_ids, list):
            raise AssertionError("row_ids should be NDArray or list of NDArray")
        for k, outs in _key_value(key, out, "row_sparse_pull"):
            stored = self._stored(k)
            if stored.stype != "row_sparse":
                if any(o.stype != "default" for o in outs):
                    raise MXNetError("KVStore.row_sparse_pull of key %r: PullRowSparse expects row_sparse src "
                                     "NDArray, the stored value is %s" % (k, stored.stype))
                self.pull(k, outs, priority)
                continue
            ids = row_ids if len(row_ids) == len(outs) else row_ids * len(outs)
            for o, rid in zip(outs, ids):
                rows = NDArray(torch.unique(rid._t.detach().to(torch.int64)))
                retain_op.call((stored, rows)).copyto(o)

    # -- optimizer
    def set_optimizer(self, optimizer):
        """Run ``optimizer`` on every push from now on."""
        self._updater = opt.get_updater(optimizer)

    def _set_updater(self, updater):
        self._updater = updater

    def set_gradient_compression(self, compression_params):
        """Compress each device's pushes with MXNet's 2-bit scheme ('device'/'nccl' only)."""
        if "device" not in self._type and self._type != "nccl":
            raise MXNetError("Gradient compression is not supported for this type of kvstore")
        self._compressor = create_compression(compression_params)
        self._compression_params = self._compressor.params()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states (and the optimizer with ``dump_optimizer``) to ``fname``."""
        if self._updater is None:
            raise AssertionError("Cannot save states for distributed training")
        atomic_write(fname, self._updater.get_states(dump_optimizer), "KVStore.save_optimizer_states")

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states``."""
        if self._updater is None:
            raise AssertionError("Cannot load states for distributed training")
        self._updater.set_states(read_file(fname, "KVStore.load_optimizer_states"),
                                 "KVStore.load_optimizer_states(%r)" % (fname,))

    def __getstate__(self):
        raise pickle.PicklingError("KVStore cannot be pickled")


LOCAL_TYPES = ("local", "device", "nccl", "local_update_cpu", "local_allreduce_cpu", "local_allreduce_device")


def create(name="local"):
    """A KVStore of type ``name``: a single-process one, or a distributed one (``kvstore.dist``)."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in LOCAL_TYPES:
        return KVStore(name)
    from . import dist  # torch.distributed is imported only for a distributed store
    if name in dist.DIST_TYPES:
        return dist.DistKVStore(name)
    if name in ("horovod", "byteps"):
        return dist.AllreduceKVStore(name)
    raise MXNetError("mx.kv.create: unknown KVStore type %r (one of %s)"
                     % (name, ", ".join(LOCAL_TYPES + ("dist_sync", "dist_device_sync", "dist_async", "horovod",
                                                       "byteps"))))


retain_op = _registry.get("_sparse_retain")
