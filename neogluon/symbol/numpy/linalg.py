"""``mx.sym.np.linalg``: ``mx.np.linalg``'s functions making graph nodes (see ``_symbol.py``)."""
from ...numpy import linalg as _linalg
from ._symbol import frontend as _frontend

__all__ = _frontend(globals(), _linalg, "mxnet.symbol.numpy.linalg")
