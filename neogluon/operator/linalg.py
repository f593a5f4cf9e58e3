"""Linear algebra: dot, batch_dot, khatri_rao and the _linalg_* family.

The ``_linalg_*`` operators act on the last two axes and batch over the leading ones
(``mx.nd.linalg.gemm2`` etc. come from the ``_linalg_`` prefix; the ``linalg_*`` names
are MXNet's aliases). A scalar-per-matrix result of a single 2-d matrix has shape
``(1,)``, as MXNet has no 0-d arrays.
"""
import functools
import math

import torch

from ..base import MXNetError
from .registry import Bool, Float, Int, Str, register, require, shape_rule

_STYPES = ("csr", "default", "row_sparse")


def _linalg(name, alias=True, **schema):
    """Register ``_linalg_<name>`` with (unless ``alias=False``) its ``linalg_<name>`` alias."""
    schema.setdefault("inputs", ("A",))
    return register("_linalg_" + name, aliases=["linalg_" + name] if alias else [], **schema)


def _scalar_shape(out):
    """MXNet gives ``(1,)`` where torch gives a 0-d tensor."""
    return out.reshape(1) if out.dim() == 0 else out


def _check_matrices(op, *tensors):
    for t in tensors:
        if t.dim() < 2:
            raise MXNetError("Operator %s: inputs must have at least 2 dimensions, got shape %s"
                             % (op, tuple(t.shape)))


def _check_square(op, a):
    _check_matrices(op, a)
    if a.shape[-1] != a.shape[-2]:
        raise MXNetError("Operator %s: input must be (a batch of) square matrices, got shape %s"
                         % (op, tuple(a.shape)))


def _failed(info):
    """True when a LAPACK-style ``info`` reports a failure (never for shape-only meta tensors)."""
    return not info.is_meta and bool((info != 0).any())


def _tr(x, flag):
    return x.mT if flag else x


# ----------------------------------------------------------------------------- dot, batch_dot
def _dot_operand(t, transposed, is_lhs):
    """(kept dims, contracted size, 2-d matrix with the contracted axis where matmul wants it).

    MXNet's N-d dot contracts the last axis of ``lhs`` (the first with ``transpose_a``)
    with the first axis of ``rhs`` (the last with ``transpose_b``)."""
    shape = tuple(t.shape)
    contract_last = is_lhs != transposed
    kept = shape[:-1] if contract_last else shape[1:]
    k = shape[-1] if contract_last else shape[0]
    if contract_last:
        m = t.reshape(math.prod(kept), k)
        return kept, k, m if is_lhs else m.T
    m = t.reshape(k, math.prod(kept))
    return kept, k, m.T if is_lhs else m


@register("dot", inputs=("lhs", "rhs"),
          params=dict(transpose_a=Bool(False), transpose_b=Bool(False), forward_stype=Str(None, choices=_STYPES)))
def dot(lhs, rhs, *, transpose_a, transpose_b, forward_stype):
    """MXNet's ``dot``: matrix product of 2-d arrays; for N-d arrays the last axis of
    ``lhs`` is contracted with the first of ``rhs`` (flipped by the transpose flags)."""
    if lhs.dim() == 2 and rhs.dim() == 2:  # the common case, without the N-d bookkeeping
        a = lhs.t() if transpose_a else lhs
        b = rhs.t() if transpose_b else rhs
        if a.shape[1] == b.shape[0]:
            return torch.mm(a, b)
    if lhs.dim() == 1 and rhs.dim() == 1 and (transpose_a or transpose_b):
        raise MXNetError("Operator dot: cannot transpose vectors, got lhs %s and rhs %s"
                         % (tuple(lhs.shape), tuple(rhs.shape)))
    lkept, lk, a = _dot_operand(lhs, transpose_a, True)
    rkept, rk, b = _dot_operand(rhs, transpose_b, False)
    if lk != rk:
        raise MXNetError("Operator dot: shape mismatch, lhs %s X rhs %s (transpose_a=%s, transpose_b=%s)"
                         % (tuple(lhs.shape), tuple(rhs.shape), transpose_a, transpose_b))
    return (a @ b).reshape(lkept + rkept or (1,))


@register("batch_dot", inputs=("lhs", "rhs"),
          params=dict(transpose_a=Bool(False), transpose_b=Bool(False), forward_stype=Str(None, choices=_STYPES)))
def batch_dot(lhs, rhs, *, transpose_a, transpose_b, forward_stype):
    """Batched matrix product over the last two axes; the leading batch axes must be equal."""
    if lhs.dim() < 3 or lhs.dim() != rhs.dim():
        raise MXNetError("Operator batch_dot: only N-d x N-d arrays (N >= 3) are supported, got lhs %s and rhs %s"
                         % (tuple(lhs.shape), tuple(rhs.shape)))
    a, b = _tr(lhs, transpose_a), _tr(rhs, transpose_b)
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise MXNetError("Operator batch_dot: shape mismatch, lhs %s X rhs %s (transpose_a=%s, transpose_b=%s)"
                         % (tuple(lhs.shape), tuple(rhs.shape), transpose_a, transpose_b))
    return torch.matmul(a, b)


@register("khatri_rao", variadic="num_args", params=dict(num_args=Int()))
def khatri_rao(*args, num_args):
    """Column-wise Kronecker product of matrices with equal column counts (the first
    matrix's row index varies slowest)."""
    cols = {a.shape[-1] for a in args}
    if any(a.dim() != 2 for a in args) or len(cols) != 1:
        raise MXNetError("Operator khatri_rao: inputs must be matrices with the same number of columns, got %s"
                         % ", ".join(str(tuple(a.shape)) for a in args))
    return functools.reduce(lambda x, y: (x[:, None, :] * y[None, :, :]).reshape(-1, x.shape[-1]), args)


# ----------------------------------------------------------------------------- products
def _rows_to(x, axis):
    """Swap MXNet's row ``axis`` with axis -2 (an involution, used before and after)."""
    return x if axis in (-2, x.dim() - 2) else x.transpose(axis, -2)


def _gemm_product(name, a, b, transpose_a, transpose_b, alpha, axis):
    _check_matrices(name, a, b)
    a, b = _tr(_rows_to(a, axis), transpose_a), _tr(_rows_to(b, axis), transpose_b)
    if a.shape[-1] != b.shape[-2] or a.shape[:-2] != b.shape[:-2]:
        raise MXNetError("Operator %s: incompatible matrix dimensions for multiplication, A %s, B %s "
                         "(transpose_a=%s, transpose_b=%s, axis=%d)"
                         % (name, tuple(a.shape), tuple(b.shape), transpose_a, transpose_b, axis))
    return alpha * torch.matmul(a, b)


@_linalg("gemm", inputs=("A", "B", "C"),
         params=dict(transpose_a=Bool(False), transpose_b=Bool(False), alpha=Float(1.0), beta=Float(1.0),
                     axis=Int(-2)))
def gemm(A, B, C, *, transpose_a, transpose_b, alpha, beta, axis):  # pylint: disable=invalid-name
    """``alpha * op(A) op(B) + beta * C`` on the matrices formed by ``axis`` and the last axis."""
    out = _gemm_product("_linalg_gemm", A, B, transpose_a, transpose_b, alpha, axis)
    return _rows_to(out + beta * _rows_to(C, axis), axis)


@_linalg("gemm2", inputs=("A", "B"),
         params=dict(transpose_a=Bool(False), transpose_b=Bool(False), alpha=Float(1.0), axis=Int(-2)))
def gemm2(A, B, *, transpose_a, transpose_b, alpha, axis):  # pylint: disable=invalid-name
    """``alpha * op(A) op(B)`` on the matrices formed by ``axis`` and the last axis."""
    return _rows_to(_gemm_product("_linalg_gemm2", A, B, transpose_a, transpose_b, alpha, axis), axis)


def _triangle(a, lower):
    return torch.tril(a) if lower else torch.triu(a)


_TRI_PARAMS = dict(transpose=Bool(False), rightside=Bool(False), lower=Bool(True), alpha=Float(1.0))


@_linalg("trmm", inputs=("A", "B"), params=dict(_TRI_PARAMS))
def trmm(A, B, *, transpose, rightside, lower, alpha):  # pylint: disable=invalid-name
    """``alpha * op(A) B`` (or ``alpha * B op(A)`` with ``rightside``) for triangular ``A``;
    only the triangle selected by ``lower`` is read."""
    _check_square("_linalg_trmm", A)
    a = _tr(_triangle(A, lower), transpose)
    return alpha * (torch.matmul(B, a) if rightside else torch.matmul(a, B))


@_linalg("trsm", inputs=("A", "B"), params=dict(_TRI_PARAMS))
def trsm(A, B, *, transpose, rightside, lower, alpha):  # pylint: disable=invalid-name
    """Solve ``op(A) X = alpha * B`` (or ``X op(A) = alpha * B`` with ``rightside``) for
    triangular ``A``; only the triangle selected by ``lower`` is read."""
    _check_square("_linalg_trsm", A)
    a, upper = (A.mT, lower) if transpose else (A, not lower)
    return torch.linalg.solve_triangular(a, alpha * B, upper=upper, left=not rightside)


@_linalg("syrk", params=dict(transpose=Bool(False), alpha=Float(1.0)))
def syrk(A, *, transpose, alpha):  # pylint: disable=invalid-name
    """``alpha * A A^T`` (or ``alpha * A^T A`` with ``transpose``)."""
    _check_matrices("_linalg_syrk", A)
    return alpha * (torch.matmul(A.mT, A) if transpose else torch.matmul(A, A.mT))


# ----------------------------------------------------------------------------- factorizations
@_linalg("potrf", attr_parser=True)  # MXNet parses its (no) attributes: unknown ones raise
def potrf(A):  # pylint: disable=invalid-name
    """Cholesky factor ``L`` (lower triangular, ``A = L L^T``) of symmetric positive-definite ``A``."""
    _check_square("_linalg_potrf", A)
    out, info = torch.linalg.cholesky_ex(A)
    if _failed(info):
        raise MXNetError("Operator _linalg_potrf: Cholesky factorization failed; the input matrix %s is "
                         "either not symmetric or not positive definite" % (tuple(A.shape),))
    return out


@_linalg("potri", attr_parser=True)
def potri(A):  # pylint: disable=invalid-name
    """``(L L^T)^{-1}`` from the lower Cholesky factor ``L`` given as ``A``."""
    _check_square("_linalg_potri", A)
    return torch.cholesky_inverse(torch.tril(A))


@_linalg("gelqf", num_outputs=2)
def gelqf(A):  # pylint: disable=invalid-name
    """LQ factorization ``A = L Q`` of a wide matrix (rows <= columns): returns ``Q`` with
    orthonormal rows and lower-triangular ``L``, with LAPACK's sign convention."""
    _check_matrices("_linalg_gelqf", A)
    if A.shape[-2] > A.shape[-1]:
        raise MXNetError("Operator _linalg_gelqf: the input must have at most as many rows as columns, got %s"
                         % (tuple(A.shape),))
    q, r = torch.linalg.qr(A.mT)
    return q.mT, r.mT


@_linalg("syevd", alias=False, num_outputs=2)
def syevd(A):  # pylint: disable=invalid-name
    """Eigendecomposition ``A = U^T diag(L) U`` of symmetric ``A``: the rows of ``U`` are the
    eigenvectors (eigenvalues ascending), each signed so its largest entry is positive."""
    _check_square("_linalg_syevd", A)
    w, v = torch.linalg.eigh(A)
    u = v.mT
    pivot = u.gather(-1, u.abs().argmax(-1, keepdim=True))
    return u * torch.where(pivot < 0, -1.0, 1.0).to(u.dtype), w


@_linalg("inverse")
def inverse(A):  # pylint: disable=invalid-name
    """Inverse of (a batch of) square matrices."""
    _check_square("_linalg_inverse", A)
    out, info = torch.linalg.inv_ex(A)
    if _failed(info):
        raise MXNetError("Operator _linalg_inverse: the input matrix %s is singular" % (tuple(A.shape),))
    return out


@_linalg("det", num_outputs=3, num_visible_outputs=1)
def det(A):  # pylint: disable=invalid-name
    """Determinant of (a batch of) square matrices."""
    _check_square("_linalg_det", A)
    return _scalar_shape(torch.linalg.det(A))


@_linalg("slogdet", num_outputs=4, num_visible_outputs=2)
def slogdet(A):  # pylint: disable=invalid-name
    """Sign and natural log of the absolute determinant, as two outputs."""
    _check_square("_linalg_slogdet", A)
    sign, logabs = torch.linalg.slogdet(A)
    return _scalar_shape(sign), _scalar_shape(logabs)


@_linalg("sumlogdiag")
def sumlogdiag(A):  # pylint: disable=invalid-name
    """Sum of the logarithms of the diagonal of (a batch of) square matrices."""
    _check_square("_linalg_sumlogdiag", A)
    return _scalar_shape(torch.diagonal(A, dim1=-2, dim2=-1).log().sum(-1))


# ----------------------------------------------------------------------------- diagonals and triangles
@_linalg("extractdiag", params=dict(offset=Int(0)))
def extractdiag(A, *, offset):  # pylint: disable=invalid-name
    """The diagonal ``offset`` (above the main one when positive) of each square matrix."""
    _check_square("_linalg_extractdiag", A)
    return torch.diagonal(A, offset, dim1=-2, dim2=-1).clone()


@_linalg("makediag", params=dict(offset=Int(0)))
def makediag(A, *, offset):  # pylint: disable=invalid-name
    """Square matrices with the last axis of ``A`` on diagonal ``offset``, zeros elsewhere."""
    return torch.diag_embed(A, offset, dim1=-2, dim2=-1)


def _trian_indices(n, offset, lower, device):
    """Row and column indices of MXNet's packed triangle of an ``n x n`` matrix.

    ``offset < 0`` (or 0 with ``lower``) is the lower triangle, packed row by row; the
    upper triangle is packed as the lower one of the transpose."""
    if offset < 0 or (offset == 0 and lower):
        rows, cols = torch.tril_indices(n, n, offset, device=device)
        return rows, cols
    cols, rows = torch.tril_indices(n, n, -offset, device=device)
    return rows, cols


@_linalg("extracttrian", params=dict(offset=Int(0), lower=Bool(True)))
def extracttrian(A, *, offset, lower):  # pylint: disable=invalid-name
    """The triangle of each square matrix beyond diagonal ``offset``, packed into a vector."""
    _check_square("_linalg_extracttrian", A)
    if abs(offset) >= A.shape[-1]:
        raise MXNetError("Operator _linalg_extracttrian: offset %d is out of range for matrices of shape %s"
                         % (offset, tuple(A.shape[-2:])))
    rows, cols = _trian_indices(A.shape[-1], offset, lower, A.device)
    return A[..., rows, cols]


@_linalg("maketrian", params=dict(offset=Int(0), lower=Bool(True)))
def maketrian(A, *, offset, lower):  # pylint: disable=invalid-name
    """Square matrices whose triangle beyond diagonal ``offset`` is filled from the packed
    vectors in ``A`` (the inverse of ``extracttrian``), zeros elsewhere."""
    m = A.shape[-1]
    side = int(round(((8 * m + 1) ** 0.5 - 1) / 2))
    if side * (side + 1) // 2 != m:
        raise MXNetError("Operator _linalg_maketrian: the last axis (%d) of input %s is not a triangular number"
                         % (m, tuple(A.shape)))
    n = side + abs(offset)
    rows, cols = _trian_indices(n, offset, lower, A.device)
    out = A.new_zeros(A.shape[:-1] + (n, n))
    out[..., rows, cols] = A
    return out

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _dot(attrs, shapes):
    a, b = shapes
    require(len(a) == 2 and len(b) == 2)
    m, k = a[::-1] if attrs["transpose_a"] else a
    k2, n = b[::-1] if attrs["transpose_b"] else b
    require(k == k2)
    return [(m, n)]


shape_rule("dot")(_dot)
