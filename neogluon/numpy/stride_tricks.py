"""``mx.np.stride_tricks``: ``broadcast_arrays``."""
import numpy as _onp

__all__ = ["broadcast_arrays"]


def broadcast_arrays(*args):
    """The arrays broadcast against each other: the inputs themselves (a list) when they all
    have the broadcast shape already, else ``broadcast_to`` copies, as MXNet gives."""
    from . import broadcast_to
    shape = _onp.broadcast_shapes(*[a.shape for a in args])
    if all(a.shape == shape for a in args):
        return list(args)
    return [broadcast_to(a, shape) for a in args]
