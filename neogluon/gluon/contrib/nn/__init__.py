"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SyncBatchNorm and
PixelShuffle layers of MXNet 1.9.1."""
from . import basic_layers
from .basic_layers import *  # noqa: F401,F403

__all__ = basic_layers.__all__
