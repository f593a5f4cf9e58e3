"""``mx.sym.np.random``: ``mx.np.random``'s samplers making graph nodes (see ``_symbol.py``)."""
from ...numpy import random as _random
from ._symbol import frontend as _frontend

__all__ = _frontend(globals(), _random, "mxnet.symbol.numpy.random")
