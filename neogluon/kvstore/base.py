"""``mx.kvstore.base``: MXNet 1.9.1's abstract key-value store interface, its registry of
store classes, and ``TestStore`` (its reference single-process implementation).

A class derived from :class:`KVStoreBase` and decorated with ``@KVStoreBase.register`` is
created by ``mx.kv.create(<its lower-cased name>)`` and can be given to ``gluon.Trainer``
or ``Module.init_optimizer(kvstore=...)``, as in MXNet (Horovod's and BytePS's plugins are
registered this way). Other names fall back to neogluon's own stores (:mod:`.kvstore`).
"""
from ..base import register_by_name
from ..ndarray import NDArray

__all__ = ["KVStoreBase", "TestStore", "create"]


def _abstract(doc):
    def missing(self):
        raise NotImplementedError()
    return property(missing, doc=doc)


class OneProcess:
    """``rank`` 0 of ``num_workers`` 1: a store living in one process."""

    @property
    def rank(self):
        """This worker's rank: 0 (one process)."""
        return 0

    @property
    def num_workers(self):
        """The number of workers: 1 (one process)."""
        return 1


class KVStoreBase:
    """An abstract key-value store interface for data-parallel training: a store implements
    ``broadcast``, ``pushpull``, ``is_capable`` and the properties ``type``, ``rank`` and
    ``num_workers`` (and ``set_optimizer`` / optimizer states when it can update)."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Broadcast ``value`` (rank 0's) into ``out`` (an NDArray or a list of them)."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sum ``value`` (an NDArray or a list of them) over devices and workers into ``out``
        (``value`` itself when ``out`` is None)."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` on the store (when ``is_capable(OPTIMIZER)``)."""
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether the store supports ``capability`` (``KVStoreBase.OPTIMIZER``)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    type = _abstract("The store's type name.")
    rank = _abstract("This worker's rank.")
    num_workers = _abstract("The number of workers.")

    @staticmethod
    def register(klass):
        """Class decorator: make ``mx.kv.create(klass.__name__.lower())`` create a ``klass``."""
        return register_by_name(KVStoreBase.kv_registry, klass, "kvstore")


def _as_list(out):
    return out if isinstance(out, list) else [out]


@KVStoreBase.register
class TestStore(OneProcess, KVStoreBase):
    """A single-process store that sums in Python (MXNet's reference ``KVStoreBase``
    implementation): it cannot run an optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for o in _as_list(out):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for o in _as_list(out):
                    o[:] = value
            return
        ctx = value[0].context
        reduced = sum(v.as_in_context(ctx) for v in value)
        for o in (value if out is None else _as_list(out)):
            o[:] = reduced

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return "teststore"


def create(name="local"):
    """A store of type ``name``: a registered :class:`KVStoreBase` class first, else one of
    neogluon's stores ('local', 'device', 'nccl', the distributed ones)."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    from . import kvstore
    return kvstore.create(name)
