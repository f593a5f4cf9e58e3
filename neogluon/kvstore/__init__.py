"""``mx.kv`` / ``mx.kvstore``: the single-process key-value store of MXNet 1.9.1, and the
``KVStoreBase`` interface and registry that other stores plug into (``kvstore.base``)."""
from . import kvstore, base
from .kvstore import KVStore
from .base import KVStoreBase, TestStore, create

__all__ = ["KVStore", "KVStoreBase", "TestStore", "create"]
