"""``mx.contrib.symbol`` (``mx.contrib.sym``): the namespace MXNet 1.9.1 registers its contrib
operator functions in, the same operators as ``mx.sym.contrib``'s: here they are those
functions, looked up there by name."""
from .._names import forwarding as _forwarding
from ..symbol import contrib as _contrib

__all__ = []
__getattr__ = _forwarding(_contrib, __name__)
