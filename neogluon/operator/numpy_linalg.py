"""MXNet 1.9.1's NumPy-interface linear algebra operators (``_npi_einsum``, ``_npi_norm``,
``_npi_inv``, ``_npi_det``, ``_npi_slogdet``, ``_npi_svd``, ``_npi_cholesky``, ``_npi_qr``,
``_npi_solve``, ``_npi_pinv``, ``_npi_eigh``, ``_npi_eigvalsh``), behind ``mx.np.einsum``
and ``mx.np.linalg``, on ``torch.linalg`` (batched over leading axes, as MXNet's).
"""
import torch

from ..base import MXNetError
from .registry import Any, Bool, Float, Int, Shape, Str, register

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
    if axis is None and (ord is None or flag == -2):  # (flag -2: MXNet's frontend for ord=None, axis=None)
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
register("_npi_cholesky", inputs=("A",), attr_parser=True)(lambda A: torch.linalg.cholesky(A))
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


def _real_eig(name, A):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise MXNetError("Operator %s: the input must be (batches of) square matrices, got shape %s"
                         % (name, tuple(A.shape)))
    w, v = torch.linalg.eig(A)
    if bool((w.imag != 0).any()):
        raise MXNetError("Operator %s: complex eigenvalues are not supported (input of shape %s)"
                         % (name, tuple(A.shape)))
    return w.real.to(A.dtype), v.real.to(A.dtype)


@register("_npi_eig", inputs=("A",), num_outputs=2)
def eig(A):
    """Eigenvalues and right eigenvectors of real square matrices with real eigenvalues
    (MXNet 1.9.1 has no complex arrays: a complex eigenvalue is an error)."""
    return _real_eig("_npi_eig", A)


@register("_npi_eigvals", inputs=("A",))
def eigvals(A):
    """The eigenvalues of ``_npi_eig``."""
    return _real_eig("_npi_eigvals", A)[0]


def _prod(shape):
    out = 1
    for d in shape:
        out *= d
    return out


@register("_npi_tensorinv", inputs=("a",), params=dict(ind=Int(2)))
def tensorinv(a, *, ind):
    """The inverse of ``a`` as a map from its first ``ind`` axes to the others: shape
    ``a.shape[ind:] + a.shape[:ind]``."""
    head, tail = tuple(a.shape[:ind]), tuple(a.shape[ind:])
    if ind <= 0 or _prod(head) != _prod(tail):
        raise MXNetError("Operator _npi_tensorinv: an array of shape %s is not square for ind=%d"
                         % (tuple(a.shape), ind))
    return torch.linalg.inv(a.reshape(_prod(head), -1)).reshape(tail + head)


@register("_npi_tensorsolve", inputs=("a", "b"), params=dict(a_axes=Shape(())))
def tensorsolve(a, b, *, a_axes):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (``a_axes`` moved to the end first)."""
    if a_axes:
        rest = [d for d in range(a.dim()) if d not in [x % a.dim() for x in a_axes]]
        a = a.permute(rest + [x % a.dim() for x in a_axes])
    xshape = tuple(a.shape[b.dim():])
    if _prod(xshape) != b.numel():
        raise MXNetError("Operator _npi_tensorsolve: a of shape %s and b of shape %s do not make a square system"
                         % (tuple(a.shape), tuple(b.shape)))
    return torch.linalg.solve(a.reshape(b.numel(), -1), b.reshape(-1)).reshape(xshape)
