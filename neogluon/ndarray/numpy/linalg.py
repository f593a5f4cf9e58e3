"""``mx.nd.np.linalg``: ``mx.np.linalg``'s functions, looked up there by name."""
from ...numpy import linalg as _linalg


def __getattr__(name):
    try:
        return getattr(_linalg, name)
    except AttributeError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None
