"""``mx.np.linalg``: MXNet 1.9.1's NumPy-interface linear algebra, over the ``_npi_*``
operators of ``neogluon/operator/numpy_linalg.py``."""
from .multiarray import call as _call
from . import fallback_linalg
from .fallback_linalg import cond, lstsq, matrix_power, matrix_rank, multi_dot  # noqa: F401  (NumPy's)

__all__ = ["norm", "inv", "det", "slogdet", "svd", "cholesky", "qr", "solve", "pinv", "eigh", "eigvalsh", "eig",
           "eigvals", "tensorinv", "tensorsolve"]
__all__ += fallback_linalg.__all__


def norm(x, ord=None, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """The 2-norm of the flattened array by default; vector or matrix norms along ``axis``."""
    if axis is None and ord is None:  # the attributes MXNet's frontend writes
        return _call("_npi_norm", (x,), dict(ord=2, axis=None, keepdims=keepdims, flag=-2))
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


def eig(a):
    """Eigenvalues and right eigenvectors (real: a complex eigenvalue is an error, as in MXNet)."""
    return tuple(_call("_npi_eig", (a,)))


def eigvals(a):
    return _call("_npi_eigvals", (a,))


def tensorinv(a, ind=2):
    """The inverse of ``a`` as a map from its first ``ind`` axes to the others."""
    return _call("_npi_tensorinv", (a,), dict(ind=ind))


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``."""
    return _call("_npi_tensorsolve", (a, b), dict(a_axes=tuple(axes) if axes else ()))


fallback_linalg.qr = qr  # MXNet lists qr among its fallbacks; here it is the operator
