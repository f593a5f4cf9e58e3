"""Sparse storages: what a ``csr`` or ``row_sparse`` array holds, as torch tensors.

MXNet 1.9.1 keeps a sparse array as its values plus index ("aux") arrays, all int64:

* ``csr`` (2-d): ``data`` (nnz,), ``indices`` (nnz,) the column of each value, sorted in
  each row, and ``indptr`` (rows + 1,): row ``i`` holds ``data[indptr[i]:indptr[i+1]]``;
* ``row_sparse`` (n-d): ``data`` (k, *shape[1:]), the stored rows, and ``indices`` (k,)
  their row numbers, strictly increasing.

A stored value may be zero: the index arrays, not the values, say what is stored (MXNet's
``dot(csr.T, dense)`` gives every row a column of the csr names, zero or not). The
conversions here are those of ``cast_storage``: dense -> csr stores the non-zero elements,
dense -> row_sparse the rows with a non-zero element. Storage rules of operators
(``registry.storage_rule``) take and give these objects; ``neogluon.ndarray.sparse`` wraps
them as ``CSRNDArray`` and ``RowSparseNDArray``.
"""
import torch

__all__ = ["CSR", "RowSparse", "INDEX_DTYPE", "to_csr", "to_row_sparse", "densify", "csr_rows", "empty"]

INDEX_DTYPE = torch.int64  # MXNet's aux type for both storages


class CSR:
    """A 2-d compressed-sparse-row storage. ``saved_shape`` is the storage shape MXNet
    writes for it in a file when that differs from ``data``'s (``cast_storage`` to csr
    leaves MXNet's at (0,)); None otherwise."""
    __slots__ = ("shape", "data", "indices", "indptr", "saved_shape")
    stype = "csr"

    def __init__(self, shape, data, indices, indptr, saved_shape=None):
        self.shape, self.data, self.indices, self.indptr = tuple(shape), data, indices, indptr
        self.saved_shape = saved_shape

    @property
    def aux(self):
        """The index arrays in MXNet's aux order: indptr, indices."""
        return (self.indptr, self.indices)

    def replace(self, data=None, shape=None):
        """The same structure with other values (of the same length) or another shape."""
        return CSR(self.shape if shape is None else shape, self.data if data is None else data,
                   self.indices, self.indptr)

    def detach(self):
        return CSR(self.shape, self.data.detach(), self.indices, self.indptr, self.saved_shape)


class RowSparse:
    """A row-sparse storage: ``data`` rows at row numbers ``indices``."""
    __slots__ = ("shape", "data", "indices", "saved_shape")
    stype = "row_sparse"

    def __init__(self, shape, data, indices, saved_shape=None):
        self.shape, self.data, self.indices = tuple(shape), data, indices
        self.saved_shape = saved_shape

    @property
    def aux(self):
        return (self.indices,)

    def replace(self, data=None, shape=None):
        return RowSparse(self.shape if shape is None else shape, self.data if data is None else data, self.indices)

    def detach(self):
        return RowSparse(self.shape, self.data.detach(), self.indices, self.saved_shape)


def _index(values, device):
    return torch.as_tensor(values, dtype=INDEX_DTYPE, device=device)


def empty(stype, shape, dtype, device):
    """An all-zero storage (nothing stored), as ``mx.nd.sparse.zeros`` makes."""
    shape = tuple(shape)
    if stype == "csr":
        return CSR(shape, torch.zeros((0,), dtype=dtype, device=device), _index([], device),
                   torch.zeros((shape[0] + 1,), dtype=INDEX_DTYPE, device=device))
    return RowSparse(shape, torch.zeros((0,) + shape[1:], dtype=dtype, device=device), _index([], device))


def csr_rows(c):
    """The row number of each stored value of a CSR storage."""
    counts = c.indptr[1:] - c.indptr[:-1]
    return torch.repeat_interleave(torch.arange(c.shape[0], device=c.data.device), counts)


def densify(s):
    """The dense tensor of a storage (differentiable in its values)."""
    if s.stype == "csr":
        out = torch.zeros(s.shape, dtype=s.data.dtype, device=s.data.device)
        if s.data.numel() == 0:
            return out
        return out.index_put((csr_rows(s), s.indices), s.data)
    out = torch.zeros(s.shape, dtype=s.data.dtype, device=s.data.device)
    if s.indices.numel() == 0:
        return out
    return out.index_put((s.indices,), s.data)


def to_csr(t):
    """A dense 2-d tensor's CSR storage: its non-zero elements, row by row (NaN counts as
    non-zero, as in MXNet)."""
    mask = t != 0
    rows, cols = mask.nonzero(as_tuple=True)
    indptr = torch.zeros((t.shape[0] + 1,), dtype=INDEX_DTYPE, device=t.device)
    torch.cumsum(mask.sum(1), 0, out=indptr[1:])
    return CSR(tuple(t.shape), t[rows, cols], cols.to(INDEX_DTYPE), indptr)


def to_row_sparse(t):
    """A dense tensor's row_sparse storage: the rows holding a non-zero element."""
    if t.dim() == 0:
        raise ValueError("a 0-d array has no rows")
    flat = t.reshape(t.shape[0], -1) if t.shape[0] else t.reshape(0, 1)
    rows = (flat != 0).any(1).nonzero().reshape(-1)
    return RowSparse(tuple(t.shape), t[rows], rows.to(INDEX_DTYPE))
