"""``mx.np.io``: ``genfromtxt``, NumPy's reader giving an ``mx.np`` array (``ctx=`` chooses its device)."""
import numpy as _onp

from .multiarray import array as _array

__all__ = ["genfromtxt"]


def genfromtxt(*args, **kwargs):
    """NumPy's ``genfromtxt``; the result is an ``mx.np`` array of NumPy's dtype on ``ctx``."""
    ctx = kwargs.pop("ctx", None)
    ret = _onp.genfromtxt(*args, **kwargs)
    return _array(ret, dtype=ret.dtype, ctx=ctx)
