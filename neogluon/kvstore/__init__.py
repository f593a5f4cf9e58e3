"""``mx.kv`` / ``mx.kvstore``: the single-process key-value store of MXNet 1.9.1."""
from . import kvstore
from .kvstore import KVStore, create

KVStoreBase = KVStore

__all__ = ["KVStore", "KVStoreBase", "create"]
