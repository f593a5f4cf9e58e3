"""``mx.np.linalg``: MXNet 1.9.1's NumPy-interface linear algebra, over the ``_npi_*``
operators of ``neogluon/operator/numpy_linalg.py``."""
from .multiarray import call as _call
from . import fallback_linalg
from .fallback_linalg import *  # noqa: F401,F403  (NumPy's, as MXNet runs them)

__all__ = ["norm", "inv", "det", "slogdet", "svd", "cholesky", "qr", "solve", "pinv", "eigh", "eigvalsh"]
__all__ += fallback_linalg.__all__


def norm(x, ord=None, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """The 2-norm of the flattened array by default; vector or matrix norms along ``axis``."""
    return _call("_npi_norm", (x,), dict(ord=ord, axis=tuple(axis) if isinstance(axis, list) else axis,
                                         keepdims=keepdims))


def inv(a):
    return _call("_npi_inv", (a,))


def det(a):
    return _call("_npi_det", (a,))


def slogdet(a):
    return tuple(_call("_npi_slogdet", (a,)))


def svd(a):
    """``(UT, L, V)`` with ``a = UT @ diag(L) @ V``, as MXNet's."""
    return tuple(_call("_npi_svd", (a,)))


def cholesky(a):
    return _call("_npi_cholesky", (a,))


def qr(a, mode="reduced"):
    return tuple(_call("_npi_qr", (a,)))


def solve(a, b):
    return _call("_npi_solve", (a, b))


def pinv(a, rcond=1e-15, hermitian=False):
    return _call("_npi_pinv_scalar_rcond", (a,), dict(rcond=rcond, hermitian=hermitian))


def eigh(a, UPLO="L"):
    return tuple(_call("_npi_eigh", (a,), dict(UPLO=UPLO)))


def eigvalsh(a, UPLO="L"):
    return _call("_npi_eigvalsh", (a,), dict(UPLO=UPLO))
