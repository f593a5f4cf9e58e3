"""MXNet 1.9.1's NumPy-interface linear algebra operators (``_npi_einsum``, ``_npi_norm``,
``_npi_inv``, ``_npi_det``, ``_npi_slogdet``, ``_npi_svd``, ``_npi_cholesky``, ``_npi_qr``,
``_npi_solve``, ``_npi_pinv``, ``_npi_eigh``, ``_npi_eigvalsh``), behind ``mx.np.einsum``
and ``mx.np.linalg``, on ``torch.linalg`` (batched over leading axes, as MXNet's).
"""
import torch

from ..base import MXNetError
from .registry import Any, Bool, Float, Int, Str, register

__all__ = []


@register("_npi_einsum", variadic="num_args", params=dict(num_args=Int(), subscripts=Str(), optimize=Int(0)))
def einsum(*operands, num_args, subscripts, optimize):
    """``np.einsum(subscripts, *operands)``."""
    return torch.einsum(subscripts, *operands)


@register("_npi_norm", params=dict(ord=Any(None), axis=Any(None), keepdims=Bool(False), flag=Int(-1)))
def norm(x, *, ord, axis, keepdims, flag):  # pylint: disable=redefined-builtin
    """``np.linalg.norm``: the 2-norm of the flattened array by default, vector or matrix norms
    along ``axis``; 'fro' and 'nuc' for matrices."""
    if isinstance(axis, list):
        axis = tuple(axis)
    if axis is None and ord is None:
        r = torch.linalg.vector_norm(x.reshape(-1), 2)
        return r.reshape((1,) * x.dim()) if keepdims else r
    if isinstance(axis, int) or (axis is None and x.dim() == 1):
        return torch.linalg.vector_norm(x, 2 if ord is None else ord, dim=axis, keepdim=keepdims)
    if axis is None:
        if x.dim() != 2:
            raise MXNetError("Operator _npi_norm: improper number of dimensions to norm (%d) for ord=%r"
                             % (x.dim(), ord))
        axis = (0, 1)
    return torch.linalg.matrix_norm(x, "fro" if ord is None else ord, dim=axis, keepdim=keepdims)


register("_npi_inv", inputs=("A",))(lambda A: torch.linalg.inv(A))
register("_npi_det", inputs=("A",))(lambda A: torch.linalg.det(A))
register("_npi_pinv_scalar_rcond", inputs=("A",), params=dict(rcond=Float(1e-15), hermitian=Bool(False)))(
    lambda A, *, rcond, hermitian: torch.linalg.pinv(A, rtol=rcond, hermitian=hermitian))
register("_npi_cholesky", inputs=("A",))(lambda A: torch.linalg.cholesky(A))
register("_npi_solve", inputs=("A", "B"))(lambda A, B: torch.linalg.solve(A, B))
register("_npi_eigvalsh", inputs=("A",), params=dict(UPLO=Str("L")))(
    lambda A, *, UPLO: torch.linalg.eigvalsh(A, UPLO=UPLO))


@register("_npi_slogdet", inputs=("A",), num_outputs=2)
def slogdet(A):
    """(sign, log|det|) of square matrices."""
    return tuple(torch.linalg.slogdet(A))


@register("_npi_svd", inputs=("A",), num_outputs=3)
def svd(A):
    """MXNet's ``np.linalg.svd``: ``(UT, L, V)`` with ``A = UT @ diag(L) @ V`` (reduced)."""
    u, s, vh = torch.linalg.svd(A, full_matrices=False)
    return u, s, vh


@register("_npi_qr", inputs=("A",), num_outputs=2)
def qr(A):
    """``np.linalg.qr`` (reduced): Q and R."""
    return tuple(torch.linalg.qr(A))


@register("_npi_eigh", inputs=("A",), params=dict(UPLO=Str("L")), num_outputs=2)
def eigh(A, *, UPLO):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices."""
    return tuple(torch.linalg.eigh(A, UPLO=UPLO))
