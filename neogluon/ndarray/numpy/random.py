"""``mx.nd.np.random``: ``mx.np.random``'s functions, looked up there by name."""
from ...numpy import random as _random


def __getattr__(name):
    try:
        return getattr(_random, name)
    except AttributeError:
        raise AttributeError("module %r has no attribute %r" % (__name__, name)) from None
