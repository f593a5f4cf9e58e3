"""``mx.nd.sparse``: arrays stored as ``csr`` or ``row_sparse`` (MXNet 1.9.1's
``CSRNDArray`` and ``RowSparseNDArray``), their constructors, and the ``_sparse_*``
operators (generated from the registry, as the rest of ``mx.nd``).

A sparse array holds a storage (:mod:`neogluon.operator.storage`: the values and the
int64 index arrays). Every operator call goes through ``Operator.call``: an operator with a
storage rule (``registry.storage_rule``: ``dot``, the element-wise operators, ``slice``,
``cast_storage``, ...) computes on the storage and gives MXNet's output storage type; any
other operator reads the array densely (``_t``, made once and kept) and gives a dense
result, as MXNet's storage fallback does.
"""
import builtins
import warnings

import numpy as np
import torch

from ..base import MXNetError, NotSupportedForSparseNDArray, numeric_types, torch_dtype, np_type
from ..context import Context, as_context, current_context
from ..operator import registry as _registry
from ..operator import storage as _storage
from ..operator.storage import CSR, RowSparse, INDEX_DTYPE
from .ndarray import NDArray, invoke, placed as _placed

__all__ = ["BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray", "csr_matrix", "row_sparse_array",
           "zeros", "empty", "array", "add", "subtract", "multiply", "divide"]

py_slice = builtins.slice  # this module also gets the generated ``slice`` operator
_NO_SCIPY = ("scipy could not be imported. Please make sure that the scipy is installed "
             "(pip install 'neogluon[sparse]').")


class BaseSparseNDArray(NDArray):
    """An array on sparse storage (see CSRNDArray and RowSparseNDArray). ``_storage`` holds
    its components; ``_t``, its dense form, is made when an operator without a sparse
    kernel reads it, and kept."""
    __slots__ = ("_storage", "_dense")
    _sparse = True

    def __init__(self, storage):  # pylint: disable=super-init-not-called
        self._storage = storage
        self._dense = None

    # ------------------------------------------------------------------ state
    @property
    def _t(self):
        d = self._dense
        if d is None:
            d = self._dense = _storage.densify(self._storage)
        return d

    @_t.setter
    def _t(self, tensor):  # an operator's out= writing a dense result into this array
        self._set(_cast(tensor, self.stype))

    def _set(self, storage):
        self._storage = storage
        self._dense = None

    @property
    def stype(self):
        return self._storage.stype

    @property
    def shape(self):
        return self._storage.shape

    @property
    def ndim(self):
        return len(self._storage.shape)

    @property
    def dtype(self):
        return np_type(self._storage.data.dtype)

    @property
    def size(self):
        """Ambiguous for a sparse array (stored or logical elements?): NotImplementedError, as MXNet."""
        raise NotImplementedError()

    @property
    def context(self):
        ctx = getattr(self, "_ctx", None)
        if ctx is not None:
            return ctx
        dev = self._storage.data.device
        return Context("gpu", dev.index or 0) if dev.type == "cuda" else Context("cpu", 0)

    ctx = context

    def __repr__(self):
        return "\n<%s %s @%s>" % (type(self).__name__, "x".join("%d" % d for d in self.shape), self.context)

    __str__ = __repr__

    def __len__(self):
        return self.shape[0]

    def __reduce__(self):
        s = self._storage
        return (_rebuild, (s.stype, s.shape, s.data.detach().cpu().numpy(),
                           [a.cpu().numpy() for a in s.aux], str(self.context)))

    # ------------------------------------------------------------------ components
    def _data(self):
        """The stored values as a dense NDArray (a copy)."""
        return NDArray(self._storage.data.detach().clone())

    def _aux_data(self, i):
        """Index array ``i`` (csr: 0 indptr, 1 indices; row_sparse: 0 indices) as an NDArray copy."""
        return NDArray(self._storage.aux[i].clone())

    @property
    def _num_aux(self):
        return len(self._storage.aux)

    @property
    def _aux_types(self):
        return [np.int64] * self._num_aux

    def _aux_type(self, i):
        return np_type(self._storage.aux[i].dtype)

    @property
    def data(self):
        """A copy of the stored values."""
        return self._data()

    @data.setter
    def data(self, value):
        raise NotImplementedError()

    @property
    def indices(self):
        """A copy of the index array (csr: column indices; row_sparse: row indices)."""
        return self._aux_data(self._num_aux - 1)

    @indices.setter
    def indices(self, value):
        raise NotImplementedError()

    def check_format(self, full_check=True):
        """MXNetError unless the index arrays describe the shape (with ``full_check``,
        also in range and sorted), as ``MXNDArraySyncCheckFormat``."""
        problem = _format_problem(self._storage, full_check)
        if problem:
            raise MXNetError("check_format: %s %s of shape %s: %s" % (self.stype, type(self).__name__,
                                                                      self.shape, problem))

    # ------------------------------------------------------------------ conversions
    def asnumpy(self):
        return self.tostype("default").asnumpy()

    def astype(self, dtype, copy=True):
        """A copy with values of ``dtype``, same storage (``self`` when ``copy=False`` and it matches)."""
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        res = zeros(self.stype, self.shape, ctx=self.context, dtype=dtype)
        self.copyto(res)
        return res

    def tostype(self, stype):
        """A copy on storage ``stype`` (``cast_storage``)."""
        return invoke("cast_storage", (self,), {"stype": stype})

    def copy(self):
        return self.copyto(self.context)

    def copyto(self, other):
        """Copy into ``other`` (same shape; a dense array or one of this storage type) or to a Context."""
        if isinstance(other, Context):
            s = self._storage
            dev = other.torch_device
            res = _wrap(type(s)(s.shape, s.data.detach().to(dev, copy=True),
                                *[a.to(dev, copy=True) for a in _ordered_aux(s)]))
            if other.device_type != "gpu":
                res._ctx = other  # pylint: disable=protected-access
            return res
        if not isinstance(other, NDArray):
            raise TypeError("copyto does not support type " + str(type(other)))
        if other is self:
            warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
            return False
        if other.shape != self.shape:
            raise MXNetError("copyto: shape mismatch, source %s vs target %s" % (self.shape, other.shape))
        if other.stype == "default":
            with torch.no_grad():
                other._t.copy_(self._t)
            return other
        if other.stype != self.stype:
            raise TypeError("copyto does not support destination NDArray stype " + str(other.stype))
        s = self._storage
        data = s.data.detach().to(device=other._storage.data.device, dtype=other._storage.data.dtype, copy=True)
        other._set(type(s)(s.shape, data, *[a.clone() for a in _ordered_aux(s)]))
        return other

    def detach(self):
        return _wrap(self._storage.detach())

    def wait_to_read(self):
        pass

    # ------------------------------------------------------------------ what sparse arrays refuse
    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def _at(self, idx):
        raise NotSupportedForSparseNDArray(self._at, "[idx]", idx)

    def _slice(self, start, stop):
        raise NotSupportedForSparseNDArray(self._slice, None, start, stop)

    def _sync_copyfrom(self, source_array):
        raise NotImplementedError()

    def __iadd__(self, other):
        raise NotImplementedError()

    __isub__ = __imul__ = __idiv__ = __itruediv__ = __iadd__

    def __add__(self, other):
        return add(self, other)

    def __sub__(self, other):
        return subtract(self, other)

    def __mul__(self, other):
        return multiply(self, other)

    def __truediv__(self, other):
        return divide(self, other)

    __div__ = __truediv__

    def _assign(self, key, value, numeric):
        """``x[:] = value``: the one assignment MXNet allows on sparse arrays."""
        name = type(self).__name__
        if not isinstance(key, py_slice):
            raise (Exception if self.stype == "csr" else TypeError)("%s only supports [:] for assignment" % name)
        if key.step is not None or key.start is not None or key.stop is not None:
            raise ValueError("Assignment with slice for %s is not implemented yet." % name)
        if isinstance(value, NDArray):
            if value is not self:
                value.copyto(self)
        elif isinstance(value, numeric_types):
            numeric(value)
        elif isinstance(value, (np.ndarray, np.generic)):
            warnings.warn("Assigning non-NDArray object to %s is not efficient" % name, RuntimeWarning)
            NDArray(torch.from_numpy(np.asarray(value, dtype=self.dtype))).copyto(self)
        else:
            raise TypeError("type %s not supported" % str(type(value)))


class CSRNDArray(BaseSparseNDArray):
    """A 2-d array in compressed sparse row format (``data``, ``indices``, ``indptr``)."""
    __slots__ = ()

    @property
    def indptr(self):
        """A copy of the row pointers."""
        return self._aux_data(0)

    @indptr.setter
    def indptr(self, value):
        raise NotImplementedError()

    def __getitem__(self, key):
        """Rows: ``x[i]`` (as a 1-row csr) and ``x[begin:end]``, through ``slice``."""
        if isinstance(key, int) and not isinstance(key, bool):  # a numpy integer is refused, as in MXNet
            begin = self.shape[0] - 1 if key == -1 else key
            return invoke("slice", (self,), {"begin": (begin,), "end": (begin + 1,)})
        if isinstance(key, py_slice):
            if key.step is not None:
                raise ValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key.start is not None or key.stop is not None:
                begin = key.start if key.start else 0
                end = key.stop if key.stop else self.shape[0]
                return invoke("slice", (self,), {"begin": (begin,), "end": (end,)})
            return self
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def __setitem__(self, key, value):
        def numeric(_):
            raise ValueError("Assigning numeric types to CSRNDArray is not implemented yet.")
        self._assign(key, value, numeric)

    def copyto(self, other):
        if isinstance(other, NDArray) and other.stype == "row_sparse":
            raise TypeError("copyto does not support destination NDArray stype row_sparse")
        return super().copyto(other)

    def tostype(self, stype):
        if stype == "row_sparse":
            raise ValueError("cast_storage from csr to row_sparse is not supported")
        return super().tostype(stype)

    def asscipy(self):
        """A ``scipy.sparse.csr_matrix`` copy."""
        try:
            import scipy.sparse as spsp
        except ImportError:
            raise ImportError(_NO_SCIPY) from None
        s = self._storage
        return spsp.csr_matrix((s.data.detach().cpu().numpy(), s.indices.cpu().numpy(), s.indptr.cpu().numpy()),
                               shape=self.shape, dtype=self.dtype)


class RowSparseNDArray(BaseSparseNDArray):
    """An array of which only some rows are stored (``data`` rows at row numbers ``indices``)."""
    __slots__ = ()

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            raise Exception("__getitem__ with int key is not implemented for RowSparseNDArray yet")
        if isinstance(key, py_slice):
            if key.step is not None or key.start is not None or key.stop is not None:
                raise Exception("RowSparseNDArray only supports [:] for __getitem__")
            return self
        if isinstance(key, tuple):
            raise ValueError("Multi-dimension indexing is not supported")
        raise ValueError("Undefined behaviour for {}".format(key))

    def __setitem__(self, key, value):
        def numeric(v):  # MXNet's _set_value: every row stored, each element v
            dense = torch.full(self.shape, float(v), dtype=self._storage.data.dtype,
                               device=self._storage.data.device)
            self._set(RowSparse(self.shape, dense, torch.arange(self.shape[0], dtype=INDEX_DTYPE,
                                                                 device=dense.device)))
        self._assign(key, value, numeric)

    def copyto(self, other):
        if isinstance(other, NDArray) and other.stype == "csr":
            raise TypeError("copyto does not support destination NDArray stype csr")
        return super().copyto(other)

    def tostype(self, stype):
        if stype == "csr":
            raise ValueError("cast_storage from row_sparse to csr is not supported")
        return super().tostype(stype)

    def retain(self, *args, **kwargs):
        """``mx.nd.sparse.retain(self, indices)``: only the rows named by ``indices``."""
        return invoke("_sparse_retain", (self,) + args, kwargs)


# ---------------------------------------------------------------------- wrapping storages
def _ordered_aux(s):
    """The index arrays in the order of the storage's constructor (csr: indices, indptr)."""
    return (s.indices, s.indptr) if s.stype == "csr" else (s.indices,)


def _wrap(storage):
    return (CSRNDArray if storage.stype == "csr" else RowSparseNDArray)(storage)


def _cast(t, stype):
    """A dense tensor's storage of type ``stype``."""
    if stype == "csr":
        if t.dim() != 2:
            raise MXNetError("cast_storage: a csr array is 2-d, got shape %s" % (tuple(t.shape),))
        return _storage.to_csr(t)
    return _storage.to_row_sparse(t)


def wrap_stored(res):
    """Arrays for what a storage rule returns: a dense tensor, a storage, or a tuple of them."""
    if isinstance(res, torch.Tensor):
        return NDArray(res)
    if isinstance(res, (CSR, RowSparse)):
        return _wrap(res)
    if isinstance(res, NDArray):
        return res
    return [wrap_stored(r) for r in res]


_registry.set_storage_wrap(wrap_stored)


def _rebuild(stype, shape, data, aux, ctx):
    dev = as_context(ctx).torch_device
    aux = [torch.from_numpy(a).to(dev) for a in aux]
    data = torch.from_numpy(data).to(dev)
    if stype == "csr":
        return CSRNDArray(CSR(shape, data, aux[1], aux[0]))
    return RowSparseNDArray(RowSparse(shape, data, aux[0]))


def _format_problem(s, full_check):
    """What is wrong with a storage's index arrays ('' when nothing)."""
    if s.stype == "csr":
        if len(s.shape) != 2 or s.indptr.dim() != 1 or s.indptr.numel() != s.shape[0] + 1:
            return "indptr of shape %s for %d rows" % (tuple(s.indptr.shape), s.shape[0])
        if s.indices.numel() != s.data.numel():
            return "%d column indices for %d values" % (s.indices.numel(), s.data.numel())
        if not full_check:
            return ""
        ptr = s.indptr
        if int(ptr[0]) != 0 or int(ptr[-1]) != s.indices.numel() or bool((ptr[1:] < ptr[:-1]).any()):
            return "indptr must rise from 0 to the number of values"
        if s.indices.numel() and (int(s.indices.min()) < 0 or int(s.indices.max()) >= s.shape[1]):
            return "column index out of range"
        rows = _storage.csr_rows(s)
        same_row = rows[1:] == rows[:-1]
        if bool((same_row & (s.indices[1:] <= s.indices[:-1])).any()):
            return "column indices not sorted in a row"
        return ""
    if s.indices.dim() != 1 or s.data.shape[:1] != s.indices.shape or tuple(s.data.shape[1:]) != s.shape[1:]:
        return "data of shape %s with indices of shape %s" % (tuple(s.data.shape), tuple(s.indices.shape))
    if full_check and s.indices.numel():
        idx = s.indices
        if int(idx.min()) < 0 or int(idx.max()) >= s.shape[0]:
            return "row index out of range"
        if bool((idx[1:] <= idx[:-1]).any()):
            return "row indices not strictly increasing"
    return ""


# ---------------------------------------------------------------------- constructors
def _default_dtype(src, dtype):
    if dtype is not None:
        return dtype
    if isinstance(src, (NDArray, np.ndarray)):
        return src.dtype
    if _is_scipy_csr(src):
        return src.dtype
    return np.float32


def _is_scipy_csr(x):
    try:
        import scipy.sparse as spsp
    except ImportError:
        return False
    return isinstance(x, spsp.csr_matrix)


def _check_shape(s1, s2):
    if s2 is not None and tuple(s1) != tuple(s2):
        raise ValueError("Shape mismatch detected. " + str(s1) + " v.s. " + str(s2))


def _tensor(x, dtype, device):
    """A torch copy of an array-like (NDArray, numpy, list) as ``dtype``."""
    if isinstance(x, NDArray):
        return x._t.detach().to(device=device, dtype=torch_dtype(dtype), copy=True)
    try:
        a = np.asarray(x, dtype=np.dtype(dtype) if dtype is not None else None)
    except (TypeError, ValueError):
        raise TypeError("values must be array like object") from None
    return torch.from_numpy(np.ascontiguousarray(a)).to(device=device, dtype=torch_dtype(dtype), copy=True)


def _dense_source(arg1, dtype, ctx, shape, stype):
    """csr_matrix(D) / row_sparse_array(D): a dense array-like cast to ``stype``."""
    dtype = _default_dtype(arg1, dtype)
    src = arg1 if isinstance(arg1, NDArray) else None
    t = _tensor(arg1 if src is None else src, dtype, as_context(ctx).torch_device if ctx is not None else
                (src._t.device if src is not None else torch.device("cpu")))
    _check_shape(tuple(t.shape), shape)
    return invoke("cast_storage", (NDArray(t),), {"stype": stype})


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from a dense array-like, a CSRNDArray or scipy csr_matrix, a shape
    ``(M, N)`` (all zeros), ``(data, indices, indptr)`` or ``(data, (row, col))`` (COO)."""
    if isinstance(arg1, tuple):
        if len(arg1) == 2:
            if isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
                return _csr_from_coo(arg1, shape, ctx, dtype)
            _check_shape(arg1, shape)
            return empty("csr", arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_definition(arg1[0], arg1[1], arg1[2], shape, ctx, dtype)
        raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
    if isinstance(arg1, CSRNDArray) or _is_scipy_csr(arg1):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError("Unexpected input type: RowSparseNDArray")
    return _dense_source(arg1, dtype, ctx, shape, "csr")


def _csr_from_coo(arg1, shape, ctx, dtype):
    try:
        import scipy.sparse as spsp
    except ImportError:
        raise ImportError(_NO_SCIPY) from None
    data, (row, col) = arg1
    data, row, col = [x.asnumpy() if isinstance(x, NDArray) else x for x in (data, row, col)]
    coo = spsp.coo_matrix((data, (row, col)), shape=shape)
    _check_shape(coo.shape, shape)
    return array(coo.tocsr(), ctx=ctx, dtype=dtype)


def _csr_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None):
    ctx = current_context() if ctx is None else as_context(ctx)
    dtype = _default_dtype(data, dtype)
    dev = ctx.torch_device
    data, indices, indptr = _tensor(data, dtype, dev), _tensor(indices, np.int64, dev), _tensor(indptr, np.int64, dev)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.max()) + 1)
    if data.dim() != 1 or indptr.dim() != 1 or indices.dim() != 1 or indptr.shape[0] == 0 or len(shape) != 2:
        raise ValueError("invalid shape")
    return _placed(CSRNDArray(CSR(tuple(int(d) for d in shape), data, indices, indptr)), ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from a dense array-like, a RowSparseNDArray, a shape (all
    zeros) or ``(data, indices)``."""
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError("Unexpected length of input tuple: " + str(len(arg1)))
        if len(arg1) > 2 or (_is_int(arg1[0]) and _is_int(arg1[1])):
            _check_shape(arg1, shape)
            return empty("row_sparse", arg1, ctx=ctx, dtype=dtype)
        return _rsp_from_definition(arg1[0], arg1[1], shape, ctx, dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError("Unexpected input type: CSRNDArray")
    return _dense_source(arg1, dtype, ctx, shape, "row_sparse")


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _rsp_from_definition(data, indices, shape=None, ctx=None, dtype=None):
    ctx = current_context() if ctx is None else as_context(ctx)
    dtype = _default_dtype(data, dtype)
    dev = ctx.torch_device
    data, indices = _tensor(data, dtype, dev), _tensor(indices, np.int64, dev)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (int(indices[-1]) + 1,) + tuple(data.shape[1:])
    shape = tuple(int(d) for d in shape)
    if data.dim() != len(shape) or indices.dim() != 1 or int(np.prod(shape[1:])) == 0:
        raise ValueError("invalid shape")
    return _placed(RowSparseNDArray(RowSparse(shape, data, indices)), ctx)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage ``stype`` ('default', 'row_sparse' or 'csr')."""
    if stype == "default":
        from . import zeros as dense_zeros  # pylint: disable=import-outside-toplevel
        return dense_zeros(shape, ctx=ctx, dtype=dtype, **kwargs)
    if stype not in ("row_sparse", "csr"):
        raise ValueError("unknown storage type" + stype)
    ctx = current_context() if ctx is None else as_context(ctx)
    shape = (shape,) if _is_int(shape) else tuple(shape)
    if stype == "csr" and len(shape) != 2:
        raise MXNetError("sparse.zeros: a csr array is 2-d, got shape %s" % (shape,))
    dt = torch_dtype("float32" if dtype is None else dtype)
    return _placed(_wrap(_storage.empty(stype, shape, dt, ctx.torch_device)), ctx)


def empty(stype, shape, ctx=None, dtype=None):
    """An array of storage ``stype`` with nothing stored (all zeros)."""
    if stype not in ("csr", "row_sparse"):
        raise Exception("unknown stype : " + str(stype))
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse copy of a CSRNDArray, RowSparseNDArray or scipy csr_matrix."""
    ctx = current_context() if ctx is None else as_context(ctx)
    if isinstance(source_array, NDArray):
        assert source_array.stype != "default", \
            "Please use `tostype` to create RowSparseNDArray or CSRNDArray from an NDArray"
        dtype = _default_dtype(source_array, dtype)
        arr = empty(source_array.stype, source_array.shape, dtype=dtype, ctx=ctx)
        arr[:] = source_array
        return arr
    if _is_scipy_csr(source_array):
        csr = source_array.sorted_indices()
        csr.sum_duplicates()
        dtype = _default_dtype(source_array, dtype)
        return csr_matrix((csr.data, csr.indices, csr.indptr), shape=csr.shape, dtype=dtype, ctx=ctx)
    if isinstance(source_array, (np.ndarray, np.generic)):
        raise ValueError("Please use mx.nd.array to create an NDArray with source_array of type ",
                         type(source_array))
    raise ValueError("Unexpected source_array type: ", type(source_array))


# ---------------------------------------------------------------------- arithmetic
def _ufunc(lhs, rhs, same, broadcast, scalar, rscalar, fn):
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return fn(lhs, rhs)
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return invoke(same if lhs.shape == rhs.shape else broadcast, (lhs, rhs), {})
    if isinstance(lhs, NDArray) and isinstance(rhs, numeric_types):
        return invoke(scalar, (lhs,), {"scalar": float(rhs)})
    if isinstance(rhs, NDArray) and isinstance(lhs, numeric_types):
        return invoke(rscalar, (rhs,), {"scalar": float(lhs)})
    raise TypeError("type %s not supported" % str(type(rhs)))


def add(lhs, rhs):
    """``lhs + rhs``: elemwise_add for equal shapes (sparse outputs kept), else broadcast_add."""
    return _ufunc(lhs, rhs, "elemwise_add", "broadcast_add", "_plus_scalar", "_plus_scalar", lambda a, b: a + b)


def subtract(lhs, rhs):
    """``lhs - rhs``: elemwise_sub for equal shapes, else broadcast_sub."""
    return _ufunc(lhs, rhs, "elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar", lambda a, b: a - b)


def multiply(lhs, rhs):
    """``lhs * rhs``: elemwise_mul for equal shapes, else broadcast_mul."""
    return _ufunc(lhs, rhs, "elemwise_mul", "broadcast_mul", "_mul_scalar", "_mul_scalar", lambda a, b: a * b)


def divide(lhs, rhs):
    """``lhs / rhs``: elemwise_div for equal shapes, else broadcast_div."""
    return _ufunc(lhs, rhs, "elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar", lambda a, b: a / b)


def _ndarray_cls(handle, writable=True, stype=None):  # pylint: disable=unused-argument
    """MXNet's handle -> array class dispatch; here an array is its own handle."""
    return handle
