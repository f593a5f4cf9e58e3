"""``mx.np.function_base``: ``meshgrid`` (and ``broadcast_arrays``, which MXNet imports here)."""
from .extras import meshgrid
from .stride_tricks import broadcast_arrays  # noqa: F401

__all__ = ["meshgrid"]
