"""``mx.npx.random``: ``seed`` (MXNet 1.9.1's npx.random; the samplers are in ``mx.np.random``)."""
from ..random import seed  # noqa: F401

__all__ = ["seed"]
