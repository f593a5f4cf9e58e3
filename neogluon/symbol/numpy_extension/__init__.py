"""``mx.sym.npx``: MXNet 1.9.1's symbolic NumPy extensions (``mxnet/symbol/numpy_extension``):
``mx.npx``'s operators making graph nodes, results ``mx.sym.np._Symbol`` (see
``symbol/numpy/_symbol.py``)."""
from ... import numpy_extension as _npx
from ..numpy._symbol import frontend as _frontend

__all__ = _frontend(globals(), _npx, "mxnet.symbol.numpy_extension")

from . import random, image  # noqa: E402,F401
