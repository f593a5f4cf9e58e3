"""``mx.sym.np``: MXNet 1.9.1's symbolic NumPy interface (``mxnet/symbol/numpy``).

A thin frontend over ``mx.np`` (see ``_symbol.py``): each function of MXNet's list is
``mx.np``'s, run on Symbols so that it makes the graph node MXNet's does (``np.add`` an
``_npi_add`` node, ``np.zeros`` an ``_npi_zeros`` node); results are :class:`_Symbol`.
"""
from ... import numpy as _mxnp
from ._symbol import _Symbol, frontend as _frontend

__all__ = _frontend(globals(), _mxnp, "mxnet.symbol.numpy") + ["_Symbol"]

from . import linalg, random, _internal  # noqa: E402,F401
