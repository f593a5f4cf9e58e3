"""``mx.sym.npx.random``: ``mx.npx.random``'s samplers making graph nodes."""
from ...numpy_extension import random as _random
from ..numpy._symbol import frontend as _frontend

__all__ = _frontend(globals(), _random, "mxnet.symbol.numpy_extension.random")
