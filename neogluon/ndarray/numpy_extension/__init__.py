"""``mx.nd.npx`` (``mx.nd.numpy_extension``): MXNet 1.9.1's imperative NumPy-extension
operators, the functions ``mx.npx`` is built on. In neogluon they are ``mx.npx``'s own
functions (see ``_op``, ``image``, ``random``): one implementation, two names."""
from . import _op, image, random  # noqa: F401
from ._op import *  # noqa: F401,F403

__all__ = _op.__all__
