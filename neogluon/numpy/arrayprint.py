"""``mx.np.arrayprint``: MXNet 1.9.1's printing options (``mx.np`` arrays print through NumPy)."""
import numpy as _onp

__all__ = ["set_printoptions"]


def set_printoptions(precision=None, threshold=None, **kwarg):
    """Digits of precision and the size above which arrays print summarised (only these two,
    as in MXNet)."""
    if kwarg:
        raise NotImplementedError("mxnet.numpy.set_printoptions only supports parameters"
                                  " precision and threshold for now.")
    _onp.set_printoptions(precision=precision, threshold=threshold)
