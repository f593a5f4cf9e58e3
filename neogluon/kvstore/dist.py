"""The distributed KVStores ('dist_sync', 'dist_device_sync', 'dist_async', 'horovod',
'byteps') on torch.distributed's collectives.

MXNet runs 'dist_*' on parameter servers: workers push gradients to servers, which sum
them (and run the optimizer, with ``update_on_kvstore``) and serve the values workers pull.
Here there are no servers: every worker keeps a replica of every key and the servers' work
is done by collectives, which gives the same values for each type:

- ``init``: rank 0's value is broadcast to every worker (MXNet: rank 0 initializes the
  servers, the other workers wait).
- 'dist_sync' / 'dist_device_sync' ``push``: each worker sums its own values (one per
  device), the sums are all-reduced, and the total goes through the optimizer if one was
  set (``set_optimizer``) or replaces the stored value; ``pull`` reads the replica, which is
  the same on every worker. The two types differ in MXNet only in where a worker sums its
  devices' values, as 'local' and 'device' do.
- 'dist_async': a parameter server applies each worker's push as it arrives, without
  waiting for the others, so workers may pull stale weights. An all-reduce engine cannot
  skip waiting; instead each push gathers every worker's value and applies them one at a
  time in rank order (one of the orders a server could see), so every replica stays equal.
  There is no staleness and no speed-up from not waiting. As in MXNet, pushing without an
  optimizer is refused (the server has nothing to apply).
- 'horovod' / 'byteps': MXNet 2's all-reduce stores: ``pushpull`` sums across workers and
  ``broadcast`` copies rank 0's value; they cannot run an optimizer (``is_capable`` is
  False, so Trainer updates on the workers) and have no ``push``/``pull``.

``set_gradient_compression({'type': '2bit', 'threshold': t})`` quantizes each worker's
summed value (with its residual) before the reduction, as MXNet compresses worker-to-server
traffic; pulls are not compressed, as in MXNet. ``save_optimizer_states`` works on every
worker (the replicas' optimizer states are equal), where MXNet's workers cannot save the
servers' states. ``priority`` is accepted and ignored: collectives run in call order, so
every worker must push the same keys in the same order (Trainer and Module do).

A collective that fails (a worker died, or did not answer within ``NEOGLUON_DIST_TIMEOUT``)
raises MXNetError naming this worker's rank and, when it runs on this host, the dead one.
"""
import torch
import torch.distributed as dist

from ..base import MXNetError
from ..ndarray import NDArray
from . import rendezvous
from .compression import create_compression
from .kvstore import KVStore, _key_value

__all__ = ["DistKVStore", "AllreduceKVStore", "DIST_TYPES"]

DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_async")


class DistKVStore(KVStore):
    """A worker's handle on a distributed KVStore; create it with ``mx.kv.create('dist_sync')``."""

    def __init__(self, name):
        super().__init__(name)
        self._rank, self._num_workers = rendezvous.ensure_process_group(name)
        self._compression = None

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        return self._rank

    @property
    def num_workers(self):
        """The number of workers in the job."""
        return self._num_workers

    def is_capable(self, capability):
        """Whether the store can run the optimizer (``'optimizer'``): yes."""
        return super().is_capable(capability)

    # -- collectives, with failures turned into MXNetError
    def _collective(self, what, key, fn):
        try:
            return fn()
        except MXNetError:
            raise
        except Exception as err:  # DistBackendError, RuntimeError from gloo/NCCL
            dead = rendezvous.dead_peers()
            who = ("worker rank %s exited" % ", ".join(str(r) for r in dead)) if dead else \
                "a worker died, stopped answering within NEOGLUON_DIST_TIMEOUT, or called collectives in another order"
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise MXNetError("KVStore(%r) rank %d of %d: %s of key %r failed: %s (%s)"
                             % (self._type, self._rank, self._num_workers, what, key, who, first)) from err

    @staticmethod
    def _on_backend(tensor):
        """A copy of ``tensor`` on the backend's device (never ``tensor`` itself)."""
        buf = tensor.detach().to(rendezvous.backend_device(tensor))
        return buf.clone() if buf.data_ptr() == tensor.data_ptr() else buf

    def _barrier(self):
        """Wait for every worker (MXNet's ``kv._barrier()``)."""
        self._collective("barrier", None, dist.barrier)

    barrier = _barrier

    def _broadcast_tensor(self, key, tensor):
        """``tensor`` replaced, in place, by rank 0's value."""
        buf = self._on_backend(tensor)
        self._collective("broadcast", key, lambda: dist.broadcast(buf, src=0))
        tensor.copy_(buf.to(tensor.device))

    def _allreduce(self, key, tensor):
        if self._num_workers == 1:
            return tensor
        buf = self._on_backend(tensor)
        self._collective("all-reduce", key, lambda: dist.all_reduce(buf, op=dist.ReduceOp.SUM))
        return buf.to(tensor.device)

    def _allgather(self, key, tensor):
        buf = self._on_backend(tensor)
        bufs = [torch.empty_like(buf) for _ in range(self._num_workers)]
        self._collective("all-gather", key, lambda: dist.all_gather(bufs, buf))
        return [b.to(tensor.device) for b in bufs]

    # -- the KVStore API
    def init(self, key, value):
        """Store each key's initial value: rank 0's, broadcast to every worker."""
        pairs = _key_value(key, value, "init")
        super().init(key, value)
        for k, _ in pairs:
            with torch.no_grad():
                self._broadcast_tensor(k, self._store[k]._t)

    def push(self, key, value, priority=0):
        """Sum each key's values on this worker, then across workers, then update (see the module
        doc). The keys of one call are all-reduced together, as one flat buffer."""
        pairs = _key_value(key, value, "push")
        locals_ = []
        for k, vals in pairs:
            stored = self._stored(k)
            local = self._merge(k, vals, stored)._t
            if self._compression is not None:
                local = self._compression(k, local)
            locals_.append((k, local, stored))
        with torch.no_grad():
            if self._type == "dist_async":
                for k, local, stored in locals_:
                    self._push_async(k, local, stored)
                return
            for k, total, stored in self._allreduce_many(locals_):
                if self._updater is not None:
                    self._updater(k, NDArray(total), stored)
                else:
                    stored._t.copy_(total)

    def _allreduce_many(self, items):
        """``[(key, summed tensor, stored)]``: the tensors of ``items`` all-reduced in one
        collective per dtype and device (one per key when there is a single key)."""
        groups = {}
        for item in items:
            groups.setdefault((item[1].dtype, item[1].device), []).append(item)
        done = {}
        for group in groups.values():
            if len(group) == 1:
                k, local, stored = group[0]
                done[id(group[0])] = (k, self._allreduce(k, local), stored)
                continue
            flat = self._allreduce("[%s]" % ", ".join(repr(g[0]) for g in group),
                                   torch.cat([g[1].reshape(-1) for g in group]))
            offset = 0
            for item in group:
                n = item[1].numel()
                done[id(item)] = (item[0], flat[offset:offset + n].view(item[1].shape), item[2])
                offset += n
        return [done[id(item)] for item in items]

    def _push_async(self, key, local, stored):
        if self._updater is None:
            raise MXNetError("KVStore('dist_async').push of key %r: an asynchronous KVStore applies each push with "
                             "the optimizer; call set_optimizer first (Trainer and Module do with "
                             "update_on_kvstore=True)" % (key,))
        for value in self._allgather(key, local):
            self._updater(key, NDArray(value), stored)

    def set_gradient_compression(self, compression_params):
        """Compress each worker's pushes with MXNet's 2-bit scheme (the only type MXNet 1.9.1 has)."""
        self._compression = create_compression(compression_params)
        self._compression_params = self._compression.params()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (equal on every worker) to ``fname``."""
        if self._updater is None:
            raise AssertionError("Cannot save states for distributed training: set_optimizer was not called")
        super().save_optimizer_states(fname, dump_optimizer)

    def load_optimizer_states(self, fname):
        """Read states written by ``save_optimizer_states`` (each worker reads ``fname``)."""
        if self._updater is None:
            raise AssertionError("Cannot load states for distributed training: set_optimizer was not called")
        super().load_optimizer_states(fname)


class AllreduceKVStore(DistKVStore):
    """'horovod' / 'byteps' (MXNet 2's all-reduce KVStores): ``pushpull`` and ``broadcast`` only."""

    def is_capable(self, capability):
        """All-reduce stores cannot run an optimizer."""
        if capability.lower() == self.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    def _refuse(self, what):
        raise MXNetError("KVStore(%r) has no %s: use pushpull (a sum across workers) and broadcast"
                         % (self._type, what))

    def push(self, key, value, priority=0):
        self._refuse("push")

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        self._refuse("pull")

    def set_optimizer(self, optimizer):
        self._refuse("optimizer (is_capable('optimizer') is False): update on the workers")

    def pushpull(self, key, value, out=None, priority=0):
        """Sum each key's values on this worker and across workers into ``out`` (``value`` when None)."""
        outs = _key_value(key, value if out is None else out, "pushpull")
        for (k, vals), (_, targets) in zip(_key_value(key, value, "pushpull"), outs):
            total = None
            for v in vals:
                t = v._t.detach()
                total = t.clone() if total is None else total.add_(t.to(total.device))
            if self._compression is not None:
                total = self._compression(k, total)
            with torch.no_grad():
                total = self._allreduce(k, total)
                for o in targets:
                    o._t.copy_(total.to(o._t.device))

    def broadcast(self, key, value, out, priority=0):
        """Copy rank 0's ``value`` of each key into ``out`` on every worker (nothing is stored)."""
        outs = _key_value(key, out, "broadcast")
        for (k, vals), (_, targets) in zip(_key_value(key, value, "broadcast"), outs):
            buf = vals[0]._t.detach().clone()
            with torch.no_grad():
                self._broadcast_tensor(k, buf)
                for o in targets:
                    o._t.copy_(buf.to(o._t.device))

    def init(self, key, value):
        self._refuse("init (use broadcast)")
