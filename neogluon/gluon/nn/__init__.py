"""``mx.gluon.nn``: neural network layers (and Block, HybridBlock, SymbolBlock), as in
MXNet 1.9.1. ``SyncBatchNorm`` lives in ``gluon.contrib.nn`` in 1.9.1; it is also
exported here, where later MXNet releases put it."""
from ..block import *  # noqa: F401,F403  (MXNet's gluon.nn re-exports the Block classes)
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403
from ..contrib.nn.basic_layers import SyncBatchNorm  # noqa: F401
