"""MXNet 1.x's binary NDArray list format: ``nd.save``, ``nd.load``, ``nd.load_frombuffer``
(also the format of Gluon's ``.params`` files).

Layout (little-endian)::

    uint64 0x112, uint64 0                      list header
    uint64 n, then n arrays                     the arrays
    uint64 m, then m x (uint64 len, bytes)      the names (m is 0 for a list, n for a dict)

and one array (``NDArray::Save``)::

    uint32 magic        0xF993FAC9 (V2), 0xF993FACA (V3: numpy shape semantics)
    int32  stype        0 dense, 1 row_sparse, 2 csr
    [shape  storage shape, sparse only]
    shape               int32 ndim (-1: unknown, V3 only), int64 dims[ndim]
    int32 dev_type, int32 dev_id, int32 type_flag   (absent for a 'none' array)
    [sparse only: per aux array int32 type_flag and its shape]
    data bytes, then the sparse aux arrays' bytes

Files are written exactly as MXNet 1.9.1 writes them (V2; V3 only when an array is 0-d,
which only numpy shape semantics can express), sparse arrays with their storage type
(the storage shape MXNet writes is kept: a csr made by ``cast_storage`` on the CPU says
(0,), and a file read here is written back with the storage shape it had). Reading also
accepts V3 arrays and the two older layouts (V1 magic 0xF993FAC8, and the magic-less one
whose dims are uint32).

Reading trusts nothing a file claims: every count, dimension and length is checked against
the bytes left before anything is allocated, ndim is at most 32, a sparse record's index
arrays must describe its shape exactly (row indices in range and strictly increasing; csr
``indptr`` rising from 0 to the number of values, columns in range). Anything else is an MXNetError naming the file, the array and the problem. Files are read
with :func:`neogluon.fileio.read_file` (regular files only) and written atomically.
"""
import math
import os
import struct

import numpy as np
import torch

from ..base import DTYPE_TO_FLAG, FLAG_TO_DTYPE, MXNetError, np_type
from ..fileio import atomic_write, read_file
from ..operator.storage import CSR as _CSR, RowSparse as _RowSparse
from .ndarray import NDArray
from .sparse import wrap_stored as _wrap_stored

__all__ = ["save", "load", "load_frombuffer"]

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA
DENSE, ROW_SPARSE, CSR = 0, 1, 2
_NUM_AUX = {DENSE: 0, ROW_SPARSE: 1, CSR: 2}
_DEV_CPU, _DEV_GPU = 1, 2
BFLOAT16_FLAG = 12  # MXNet stores bfloat16 as 2-byte words; torch has the dtype, numpy does not
MAX_NDIM = 32  # numpy 1.x's limit (torch's kernels stop at 25 for some, numpy 2 at 64)


# ----------------------------------------------------------------------------- writing
def _shape_bytes(shape):
    return struct.pack("<I%dq" % len(shape), len(shape), *shape)


def _flag_and_bytes(t):
    """MXNet's type flag of a tensor and its little-endian bytes."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        flag, t = BFLOAT16_FLAG, t.view(torch.int16)
    else:
        flag = DTYPE_TO_FLAG.get(np.dtype(np_type(t.dtype)))
    if flag is None:
        raise MXNetError("nd.save: arrays of dtype %s cannot be stored in MXNet's format" % t.dtype)
    data = t.cpu().contiguous().numpy()
    return flag, data.astype(data.dtype.newbyteorder("<"), copy=False).tobytes()


def _array_bytes(arr, magic):
    """One array as ``NDArray::Save`` writes it (a sparse one with its storage and index arrays)."""
    ctx = arr.context
    dev = struct.pack("<ii", _DEV_GPU if ctx.device_type == "gpu" else _DEV_CPU, ctx.device_id)
    if arr.stype == "default":
        flag, data = _flag_and_bytes(arr._t)
        return b"".join((struct.pack("<Ii", magic, DENSE), _shape_bytes(arr._t.shape), dev,
                         struct.pack("<i", flag), data))
    s = arr._storage
    flag, data = _flag_and_bytes(s.data)
    aux = [_flag_and_bytes(a) for a in s.aux]
    stored = s.saved_shape if s.saved_shape is not None else tuple(s.data.shape)
    head = [struct.pack("<Ii", magic, CSR if s.stype == "csr" else ROW_SPARSE), _shape_bytes(stored),
            _shape_bytes(s.shape), dev, struct.pack("<i", flag)]
    head += [struct.pack("<i", f) + _shape_bytes(a.shape) for (f, _), a in zip(aux, s.aux)]
    return b"".join(head + [data] + [b for _, b in aux])


def dumps_array(arr):
    """One array's record alone (what MXNet's ``MXNDArraySaveRawBytes`` gives, and its
    pickles hold as an NDArray's ``handle``)."""
    return _array_bytes(arr, V3_MAGIC if arr.ndim == 0 else V2_MAGIC)


def _as_items(data):
    """(arrays, names) of what ``nd.save`` accepts: an NDArray, a list, or a dict str -> NDArray."""
    if isinstance(data, NDArray):
        return [data], []
    if isinstance(data, dict):
        if any(not isinstance(k, str) for k in data) or any(not isinstance(v, NDArray) for v in data.values()):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
        return list(data.values()), list(data.keys())
    if isinstance(data, list):
        if any(not isinstance(v, NDArray) for v in data):
            raise TypeError("save only accept dict str->NDArray or list of NDArray")
        return data, []
    raise ValueError("data needs to either be a NDArray, dict of str, NDArray pairs or a list of NDarrays.")


def dumps(data):
    """The bytes ``nd.save`` writes for ``data``."""
    arrays, names = _as_items(data)
    magic = V3_MAGIC if any(a.ndim == 0 for a in arrays) else V2_MAGIC
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    parts.extend(_array_bytes(a, magic) for a in arrays)
    parts.append(struct.pack("<Q", len(names)))
    for name in names:
        raw = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)) + raw)
    return b"".join(parts)


def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict str -> NDArray in MXNet's binary format.

    The file is byte-identical to what MXNet 1.9.1's ``nd.save`` writes for the same arrays."""
    atomic_write(_path(fname), dumps(data), "nd.save")


# ----------------------------------------------------------------------------- reading
class _Reader:
    """Sequential little-endian reads from a buffer; running short raises MXNetError."""

    def __init__(self, buf, source):
        self.buf = memoryview(buf).cast("B")
        self.pos = 0
        self.source = source

    def error(self, what):
        return MXNetError("Invalid NDArray file format (%s): %s" % (self.source, what))

    def take(self, nbytes, what):
        end = self.pos + nbytes
        if nbytes < 0 or end > len(self.buf):
            raise self.error("truncated at byte %d while reading %s (%d bytes needed, %d left)"
                             % (self.pos, what, nbytes, len(self.buf) - self.pos))
        view = self.buf[self.pos:end]
        self.pos = end
        return view

    def unpack(self, fmt, what):
        """A tuple of values read with struct format ``fmt``."""
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def value(self, fmt, what):
        return self.unpack(fmt, what)[0]

    def shape(self, what, allow_unknown=False, dim_format="q"):
        """A shape: int32 ndim and int64 dims (uint32 dims in the oldest layout); None for
        an unknown shape (ndim -1) where ``allow_unknown``."""
        ndim = self.value("i", what + " ndim")
        if ndim == -1 and allow_unknown:
            return None
        if ndim < 0:
            raise self.error("negative ndim %d in %s" % (ndim, what))
        if ndim > MAX_NDIM:
            raise self.error("%s has %d dimensions; at most %d are supported" % (what, ndim, MAX_NDIM))
        dims = self.unpack("%d%s" % (ndim, dim_format), what)
        if any(d < 0 for d in dims):
            raise self.error("negative dimension in %s %s" % (what, dims))
        return dims

    def array(self, dtype, shape, what):
        """A writable numpy array of ``shape`` read from the buffer."""
        count = math.prod(shape)
        dtype = np.dtype(dtype)
        if math.prod(d for d in shape if d) * dtype.itemsize >= 1 << 63:
            raise self.error("%s has shape %s, too large for any array" % (what, tuple(shape)))
        raw = self.take(count * dtype.itemsize, what)
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<"), count=count).astype(dtype).reshape(shape)


def _dtype_of(reader, flag):
    """The numpy dtype in which an array of type ``flag`` is read."""
    if flag == BFLOAT16_FLAG:
        return np.dtype(np.int16)
    try:
        return FLAG_TO_DTYPE[flag]
    except KeyError:
        raise reader.error("unknown type flag %d" % flag) from None


def _device(dev_type, dev_id):
    """Where a loaded array goes: its saved GPU when there is one (as MXNet), else the CPU."""
    if dev_type == _DEV_GPU and torch.cuda.is_available() and dev_id < torch.cuda.device_count():
        return torch.device("cuda", dev_id)
    return torch.device("cpu")


def _check_sparse(reader, what, stype, shape, values, aux):
    """Refuse a sparse record whose index arrays do not describe ``shape`` exactly."""
    if any(a.dtype.kind not in "iu" for a in aux):
        raise reader.error("sparse %s has non-integer index arrays (%s)" % (what, ", ".join(str(a.dtype) for a in aux)))
    if stype == ROW_SPARSE:
        rows = aux[0]
        if len(shape) < 1 or rows.ndim != 1:
            raise reader.error("row_sparse %s: shape %s and row indices of shape %s" % (what, tuple(shape), rows.shape))
        if rows.size and (rows.min() < 0 or rows.max() >= shape[0]):
            raise reader.error("row_sparse %s: row index %d out of range [0, %d)"
                               % (what, rows.min() if rows.min() < 0 else rows.max(), shape[0]))
        if rows.size > 1 and np.any(np.diff(rows.astype(np.int64)) <= 0):
            raise reader.error("row_sparse %s: row indices are not strictly increasing" % what)
        return
    indptr, cols = aux
    if len(shape) != 2 or indptr.ndim != 1 or cols.ndim != 1 or values.ndim != 1:
        raise reader.error("csr %s: shape %s with indptr %s, indices %s and data %s"
                           % (what, tuple(shape), indptr.shape, cols.shape, values.shape))
    if indptr.size != shape[0] + 1:
        raise reader.error("csr %s: indptr has %d entries for %d rows (needs rows + 1)" % (what, indptr.size, shape[0]))
    ptr = indptr.astype(np.int64)
    if ptr[0] != 0 or ptr[-1] != cols.size or np.any(np.diff(ptr) < 0):
        raise reader.error("csr %s: indptr must rise from 0 to the %d stored values, got %s"
                           % (what, cols.size, np.array2string(indptr, threshold=8)))
    if cols.size and (cols.min() < 0 or cols.max() >= shape[1]):
        raise reader.error("csr %s: column index %d out of range [0, %d)"
                           % (what, cols.min() if cols.min() < 0 else cols.max(), shape[1]))


def _tensor_of(values, flag, device):
    t = torch.from_numpy(values)
    if flag == BFLOAT16_FLAG:
        t = t.view(torch.bfloat16)
    return t.to(device)


def _stored(stype, shape, values, aux, flag, device, saved_shape):
    """The storage of a sparse record (checked by ``_check_sparse``); ``saved_shape`` is
    the storage shape the file gave, kept to be written back."""
    vals = _tensor_of(values, flag, device)
    idx = [torch.from_numpy(a.astype(np.int64, copy=False)).to(device) for a in aux]
    kept = saved_shape if tuple(saved_shape) != tuple(values.shape) else None
    if stype == ROW_SPARSE:
        return _RowSparse(shape, vals, idx[0], kept)
    return _CSR(shape, vals, idx[1], idx[0], kept)


def _values_shape(stype, shape, aux_shapes):
    """The shape of the stored values: the array's for dense arrays; for sparse ones, what
    the index arrays say (MXNet's written storage shape can be stale, e.g. (0,) after tostype)."""
    if stype == ROW_SPARSE:
        return tuple(aux_shapes[0][:1]) + tuple(shape[1:])
    if stype == CSR:
        return tuple(aux_shapes[1])
    return shape


def _read_array(reader, index):
    """One array (any version); None for an uninitialised ('none') array."""
    what = "array %d" % index
    magic = reader.value("I", what + " magic")
    if magic in (V2_MAGIC, V3_MAGIC):
        stype = reader.value("i", what + " storage type")
        if stype not in _NUM_AUX:
            raise reader.error("unknown storage type %d in %s" % (stype, what))
        saved_shape = reader.shape(what + " storage shape") if _NUM_AUX[stype] else None
        shape = reader.shape(what + " shape", allow_unknown=magic == V3_MAGIC)
        if shape is None or (magic == V2_MAGIC and len(shape) == 0):
            return None
    else:
        stype = DENSE
        if magic == V1_MAGIC:
            shape = reader.shape(what + " shape")
        else:  # the oldest layout: no magic, the first word is ndim and the dims are uint32
            reader.pos -= 4
            shape = reader.shape(what + " shape", dim_format="I")
        if len(shape) == 0:
            return None
    dev_type, dev_id, flag = reader.unpack("iii", what + " context and type flag")
    dtype = _dtype_of(reader, flag)
    aux_specs = [(_dtype_of(reader, reader.value("i", what + " aux type flag")), reader.shape(what + " aux shape"))
                 for _ in range(_NUM_AUX[stype])]
    values = reader.array(dtype, _values_shape(stype, shape, [sh for _, sh in aux_specs]), what + " data")
    if stype != DENSE:
        aux = [reader.array(dt, sh, what + " aux data") for dt, sh in aux_specs]
        _check_sparse(reader, what, stype, shape, values, aux)
        return _stored(stype, shape, values, aux, flag, _device(dev_type, dev_id), saved_shape)
    return _tensor_of(values, flag, _device(dev_type, dev_id))


def _read_names(reader, count):
    names = []
    for i in range(count):
        length = reader.value("Q", "name %d length" % i)
        raw = reader.take(length, "name %d" % i)
        try:
            names.append(bytes(raw).decode("utf-8"))
        except UnicodeDecodeError:
            raise reader.error("name %d is not valid UTF-8" % i) from None
    return names


def _count(reader, what, min_item_bytes):
    n = reader.value("Q", what)
    if n * min_item_bytes > len(reader.buf) - reader.pos:
        raise reader.error("%s is %d but only %d bytes follow" % (what, n, len(reader.buf) - reader.pos))
    return n


def loads(buf, source="buffer"):
    """Parse MXNet's NDArray list format: a list, or a dict when the file has names."""
    reader = _Reader(buf, source)
    header, _reserved = reader.unpack("QQ", "the header")
    if header != LIST_MAGIC:
        raise reader.error("bad magic number 0x%x (expected 0x%x); not an MXNet NDArray file" % (header, LIST_MAGIC))
    tensors = [_read_array(reader, i) for i in range(_count(reader, "the number of arrays", 4))]
    names = _read_names(reader, _count(reader, "the number of names", 8))
    if names and len(names) != len(tensors):
        raise reader.error("%d names for %d arrays" % (len(names), len(tensors)))
    if any(t is None for t in tensors):
        raise reader.error("array %d is uninitialised (saved with no shape)" % [t is None for t in tensors].index(True))
    arrays = [_wrap_stored(t) for t in tensors]
    return dict(zip(names, arrays)) if names else arrays


def loads_array(buf, source="buffer"):
    """The NDArray of one record alone (``dumps_array``'s bytes, an MXNet pickle's handle)."""
    reader = _Reader(buf, source)
    tensor = _read_array(reader, 0)
    if tensor is None:
        raise reader.error("the array is uninitialised (saved with no shape)")
    if reader.pos != len(reader.buf):
        raise reader.error("%d bytes left over after the array" % (len(reader.buf) - reader.pos))
    return _wrap_stored(tensor)


def load(fname):
    """Load what ``nd.save`` (here or in MXNet) wrote: a list of NDArrays, or a dict str -> NDArray."""
    path = _path(fname)
    return loads(read_file(path, "nd.load"), "file %r" % path)


def load_frombuffer(buf):
    """Load arrays from the bytes of a file that ``nd.save`` wrote."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError("buf required to be a string or bytes")
    return loads(buf)


def _path(fname):
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError("fname required to be a string")
    return os.fspath(fname)
