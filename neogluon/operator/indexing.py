"""Indexing operators: take, pick, one_hot, gather_nd, scatter_nd, Embedding, Sequence*, ...

Index inputs may come in any dtype (MXNet usually passes float32): they are truncated
toward zero, then clipped or wrapped as each operator's ``mode`` says. Gradients flow to
the data input only (an index input gets a zero gradient, as in MXNet), through torch's
gather/scatter kernels, so repeated indices accumulate.
"""
import torch
import torch.nn.functional as F

from ..base import MXNetError, torch_dtype
from .registry import Bool, Dtype, Float, Int, Shape, Str, register, shape_rule
from .shape import IntOrNone, norm_axis, op_error

__all__ = ["MXNetIndexError"]

_DTYPES = ("bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


class MXNetIndexError(MXNetError, IndexError):
    """An index out of bounds (MXNet raises its ``IndexError``, an MXNetError subclass)."""


def _long(indices):
    """Indices as int64, truncating float values toward zero as MXNet's casts do."""
    return indices if indices.dtype == torch.int64 else indices.to(torch.int64)


def _clip_or_wrap(idx, n, mode):
    return torch.remainder(idx, n) if mode == "wrap" else idx.clamp(0, n - 1)


# ----------------------------------------------------------------------------- take, pick, batch_take
@register("take", inputs=("a", "indices"),
          params=dict(axis=Int(0), mode=Str("clip", choices=("clip", "raise", "wrap"))))
def take(a, indices, *, axis, mode):
    """Gather slices of ``a`` along ``axis``: the output shape is
    ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``. Out-of-range indices are
    clipped, wrapped, or (``mode='raise'``) an error."""
    ax = norm_axis(axis, a.dim(), "take")
    n = a.shape[ax]
    idx = _long(indices)
    if mode == "raise":
        if idx.numel() and bool(((idx < 0) | (idx >= n)).any()):
            raise MXNetIndexError("Operator take: indices out of bound for axis %d of size %d (input shape %s)"
                                  % (ax, n, tuple(a.shape)))
    else:
        idx = _clip_or_wrap(idx, n, mode)
    out = torch.index_select(a, ax, idx.reshape(-1))
    return out.reshape(a.shape[:ax] + indices.shape + a.shape[ax + 1:])


@register("pick", aliases=["choose_element_0index"], inputs=("data", "index"),
          params=dict(axis=IntOrNone(-1), keepdims=Bool(False), mode=Str("clip", choices=("clip", "wrap"))))
def pick(data, index, *, axis, keepdims, mode):
    """Pick one element per position along ``axis``: ``out[i, j] = data[i, index[i, j], j]``.
    ``index`` has ``data``'s shape without ``axis`` (or with it of size 1)."""
    if axis is None:
        raise op_error("pick", "axis=None is not supported by pick yet. Must specify an axis.")
    ax = norm_axis(axis, data.dim(), "pick")
    idx = _clip_or_wrap(_long(index), data.shape[ax], mode)
    if idx.dim() == data.dim() - 1:
        idx = idx.unsqueeze(ax)
    expected = data.shape[:ax] + (1,) + data.shape[ax + 1:]
    if tuple(idx.shape) != tuple(expected):
        raise op_error("pick", "index shape %s does not match data shape %s without axis %d"
                       % (tuple(index.shape), tuple(data.shape), ax))
    out = torch.gather(data, ax, idx)
    return out if keepdims else out.squeeze(ax)


@register("batch_take", inputs=("a", "indices"))
def batch_take(a, indices):
    """``out[i] = a[i, indices[i]]`` for a 2-d ``a`` (an N-d ``a`` is read as rows of
    its last axis); indices are clipped to the row length."""
    rows = a.reshape(-1, a.shape[-1]) if a.dim() > 1 else a.reshape(1, -1)
    if rows.shape[0] != indices.numel():
        raise op_error("batch_take", "the index array's size must equal the number of rows %d"
                       % rows.shape[0], a.shape, indices.shape)
    idx = _long(indices).reshape(-1, 1).clamp(0, rows.shape[1] - 1)
    return torch.gather(rows, 1, idx).reshape(indices.shape)


# ----------------------------------------------------------------------------- one_hot, nd gather/scatter
@register("one_hot", inputs=("indices",), differentiable=False,
          params=dict(depth=Int(), on_value=Float(1.0), off_value=Float(0.0),
                      dtype=Dtype("float32", choices=_DTYPES)))
def one_hot(indices, *, depth, on_value, off_value, dtype):
    """A ``depth``-long one-hot vector per index (``on_value`` at the index, ``off_value``
    elsewhere); indices outside ``[0, depth)`` give all ``off_value``. ``depth`` 0 gives an
    empty last axis and a negative one MXNet's "depth >= 0" error."""
    if depth < 0:
        raise op_error("one_hot", "Check failed: *depth >= 0 (%d vs. 0) : Dimension size, depth, must be a "
                       "non-negative integer" % depth)
    idx = _long(indices)
    if depth == 0:
        return torch.zeros(tuple(idx.shape) + (0,), dtype=torch_dtype(dtype))
    valid = (idx >= 0) & (idx < depth)
    hot = F.one_hot(torch.where(valid, idx, torch.zeros_like(idx)), depth) * valid.unsqueeze(-1)
    out = torch.where(hot.bool(), torch.tensor(on_value, dtype=torch.float64),
                      torch.tensor(off_value, dtype=torch.float64))
    return out.to(torch_dtype(dtype))


def _check_bounds(op, row, axis, size):
    """MXNet's bounds check of gather_nd/scatter_nd indices (after negatives are wrapped)."""
    if row.numel() and bool(((row < 0) | (row >= size)).any()):
        bad = int(row[(row < 0) | (row >= size)].reshape(-1)[0])
        raise MXNetIndexError("Operator %s: index %d is out of bounds for axis %d with size %d"
                              % (op, bad, axis, size))


# The check reads index values on the host, where dynamo breaks a graph ``torch.compile``
# traces (a hybridized BERT with static_shape, whose MLM decoder gathers the masked
# positions): the first such read logged torch's 15-line advice about
# ``capture_scalar_outputs`` to an MXNet user. Made opaque by :func:`prepare_compiled`, as
# operator/detection.py's NMS.
_CHECK_BOUNDS = [_check_bounds]


def prepare_compiled():
    """Make the bounds check opaque to dynamo (above); the compiled backend calls this before compiling."""
    if len(_CHECK_BOUNDS) == 1:
        _CHECK_BOUNDS.append(torch.compiler.disable(_check_bounds))


def _nd_index(op, indices, shape):
    """The first-axis rows of ``indices`` as a tuple of int64 index tensors, negatives wrapped."""
    idx = _long(indices)
    m = idx.shape[0] if idx.dim() else 0
    if idx.dim() == 0 or m > len(shape):
        raise op_error(op, "indices of shape %s cannot index an array of %d dimensions"
                       % (tuple(indices.shape), len(shape)))
    out = []
    for i in range(m):
        row = idx[i]
        row = torch.where(row < 0, row + shape[i], row)
        _CHECK_BOUNDS[-1](op, row, i, shape[i])
        out.append(row)
    return tuple(out)


@register("gather_nd", inputs=("data", "indices"))
def gather_nd(data, indices):
    """``out[y...] = data[indices[0, y...], ..., indices[M-1, y...]]``: the output shape is
    ``indices.shape[1:] + data.shape[M:]``."""
    return data[_nd_index("gather_nd", indices, tuple(data.shape))]


@register("scatter_nd", inputs=("data", "indices"), params=dict(shape=Shape()))
def scatter_nd(data, indices, *, shape):
    """The inverse of ``gather_nd``: zeros of ``shape`` with ``data`` written at ``indices``."""
    idx = _nd_index("scatter_nd", indices, shape)
    expected = tuple(indices.shape[1:]) + tuple(shape[len(idx):])
    if tuple(data.shape) != expected:
        raise op_error("scatter_nd", "data shape %s does not match indices %s and shape %s (expected %s)"
                       % (tuple(data.shape), tuple(indices.shape), shape, expected))
    out = torch.zeros(shape, dtype=data.dtype, device=data.device)
    return out.index_put(idx, data)


# ----------------------------------------------------------------------------- Embedding
def _embedding_infer_args(attrs, shapes):
    shapes = list(shapes)
    shapes[1] = (attrs["input_dim"], attrs["output_dim"])
    return shapes


@register("Embedding", inputs=("data", "weight"), infer_args=_embedding_infer_args,
          params=dict(input_dim=Int(), output_dim=Int(), dtype=Dtype("float32", choices=_DTYPES),
                      sparse_grad=Bool(False)))
def embedding(data, weight, *, input_dim, output_dim, dtype, sparse_grad):
    """Look up rows of ``weight`` (``(input_dim, output_dim)``) for the indices in ``data``;
    indices are clipped to ``[0, input_dim)``. With ``sparse_grad`` a variable ``weight``
    gets torch's sparse gradient, stored row_sparse when its buffer is (``attach_grad(stype=
    'row_sparse')``, Gluon's ``Embedding(sparse_grad=True)``), and densified otherwise."""
    if tuple(weight.shape) != (input_dim, output_dim):
        raise op_error("Embedding", "weight shape %s does not match (input_dim, output_dim)=(%d, %d)"
                       % (tuple(weight.shape), input_dim, output_dim), data.shape)
    return F.embedding(_long(data).clamp(0, input_dim - 1), weight, sparse=sparse_grad and weight.is_leaf)


# ----------------------------------------------------------------------------- Sequence*
def _seq_inputs(attrs):
    return ("data", "sequence_length") if attrs["use_sequence_length"] else ("data",)


def _seq_axis(op, data, axis):
    if axis not in (0, 1) or data.dim() < 2:
        raise op_error(op, "axis=%d: the sequence axis must be 0 or 1 of an input with at least 2 dimensions"
                       % axis, data.shape)
    return axis


def _lengths(op, data, sequence_length, axis):
    """Per-batch lengths as int64 (truncated), or the full length when none are given."""
    steps = data.shape[axis]
    batch = data.shape[1 - axis]
    if sequence_length is None:
        return torch.full((batch,), steps, dtype=torch.int64, device=data.device)
    if sequence_length.numel() != batch:
        raise op_error(op, "sequence_length has %d entries for a batch of %d"
                       % (sequence_length.numel(), batch), data.shape)
    return _long(sequence_length).reshape(-1).clamp(0, steps)


def _time_major(data, axis):
    return data if axis == 0 else data.transpose(0, 1)


@register("SequenceMask", inputs=_seq_inputs, signature=("data", "sequence_length"),
          params=dict(use_sequence_length=Bool(False), value=Float(0.0), axis=Int(0)))
def sequence_mask(data, sequence_length=None, *, use_sequence_length, value, axis):
    """Set the steps at or beyond each sequence's length to ``value`` (``axis`` is the
    time axis, 0 or 1; the other of the two is the batch axis)."""
    _seq_axis("SequenceMask", data, axis)
    if not use_sequence_length:
        return data.clone()
    x = _time_major(data, axis)
    lengths = _lengths("SequenceMask", data, sequence_length, axis)
    keep = torch.arange(x.shape[0], device=data.device).unsqueeze(1) < lengths.unsqueeze(0)
    keep = keep.reshape(keep.shape + (1,) * (x.dim() - 2))
    out = torch.where(keep, x, torch.tensor(value, dtype=x.dtype, device=x.device))
    return _time_major(out, axis)


@register("SequenceLast", inputs=_seq_inputs, signature=("data", "sequence_length"),
          params=dict(use_sequence_length=Bool(False), axis=Int(0)))
def sequence_last(data, sequence_length=None, *, use_sequence_length, axis):
    """The last valid step of each sequence: ``data[length-1, b]`` (the last step when no
    lengths are used); the time axis is removed."""
    _seq_axis("SequenceLast", data, axis)
    x = _time_major(data, axis)
    lengths = _lengths("SequenceLast", data, sequence_length if use_sequence_length else None, axis)
    last = (lengths - 1).clamp(min=0)
    return x[last, torch.arange(x.shape[1], device=data.device)]


@register("SequenceReverse", inputs=_seq_inputs, signature=("data", "sequence_length"),
          params=dict(use_sequence_length=Bool(False), axis=Int(0)))
def sequence_reverse(data, sequence_length=None, *, use_sequence_length, axis):
    """Reverse the first ``length`` steps of each sequence along the time axis 0, leaving
    the padding steps in place."""
    if axis != 0:
        raise op_error("SequenceReverse", "only axis=0 is supported (got %d)" % axis, data.shape)
    _seq_axis("SequenceReverse", data, axis)
    lengths = _lengths("SequenceReverse", data, sequence_length if use_sequence_length else None, axis)
    t = torch.arange(data.shape[0], device=data.device).unsqueeze(1)
    src = torch.where(t < lengths, lengths - 1 - t, t)
    return data[src, torch.arange(data.shape[1], device=data.device).unsqueeze(0)]


# ----------------------------------------------------------------------------- contrib
@register("_contrib_boolean_mask", inputs=("data", "index"), params=dict(axis=Int(0)))
def boolean_mask(data, index, *, axis):
    """The slices of ``data`` along ``axis`` where ``index`` is non-zero (the output's
    size depends on the values)."""
    ax = norm_axis(axis, data.dim(), "boolean_mask")
    if index.dim() != 1 or index.shape[0] != data.shape[ax]:
        raise op_error("boolean_mask", "index must be 1-d with the length of axis %d" % ax,
                       data.shape, index.shape)
    return torch.index_select(data, ax, torch.nonzero(index.reshape(-1) != 0).reshape(-1))


@register("_contrib_index_copy", inputs=("old_tensor", "index_vector", "new_tensor"))
def index_copy(old_tensor, index_vector, new_tensor):
    """A copy of ``old_tensor`` with rows ``index_vector[i]`` replaced by ``new_tensor[i]``."""
    idx = _long(index_vector).reshape(-1)
    if new_tensor.shape[0] != idx.numel() or new_tensor.shape[1:] != old_tensor.shape[1:]:
        raise op_error("index_copy", "new_tensor must have one row per index and old_tensor's row shape",
                       old_tensor.shape, index_vector.shape, new_tensor.shape)
    if idx.numel() and bool(((idx < 0) | (idx >= old_tensor.shape[0])).any()):
        raise MXNetIndexError("Operator index_copy: index out of bounds for %d rows" % old_tensor.shape[0])
    return old_tensor.index_copy(0, idx, new_tensor.to(old_tensor.dtype))

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _embedding(attrs, shapes):
    return [tuple(shapes[0]) + (attrs["output_dim"],)]


shape_rule("Embedding")(_embedding)
