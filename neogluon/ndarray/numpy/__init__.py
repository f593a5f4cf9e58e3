"""``mx.nd.np``: MXNet's imperative NumPy-interface functions, the ones ``mx.np`` is built on.
In neogluon they are ``mx.np``'s own functions (each one registry operator call), looked up
there by name."""
from ... import numpy as _np_interface
from . import linalg, random  # noqa: F401


def __getattr__(name):
    try:
        return getattr(_np_interface, name)
    except AttributeError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None
