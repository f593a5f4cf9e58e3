"""MXNet 1.9.1's NumPy-interface operators that build a new array around an old one:
``_npi_pad``, ``_npi_insert_scalar``/``_slice``/``_tensor``, ``_npi_delete``,
``_npi_ediff1d``, ``_np_diagflat`` and ``_npi_diag_indices_from``.

The positions (which elements go where) are worked out on the shapes alone; the data moves
by torch indexing, so gradients flow where MXNet defines them (``pad`` in constant mode,
``ediff1d``, ``diagflat``)."""
import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import Any, Bool, Float, Int, Shape, Str, register

__all__ = []

_PAD_MODES = ("constant", "edge", "maximum", "minimum", "reflect", "symmetric")


def _pad_index(n, before, after, mode):
    """Source positions of a padded axis of length ``n`` (NumPy's edge/reflect/symmetric)."""
    i = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(i)
        period = 2 * (n - 1)
        j = np.mod(i, period)
        return np.where(j >= n, period - j, j)
    period = 2 * n  # symmetric
    j = np.mod(i, period)
    return np.where(j >= n, period - 1 - j, j)


@register("_npi_pad", params=dict(pad_width=Any(), mode=Str("constant", choices=_PAD_MODES),
                                  constant_value=Float(0.0), reflect_type=Str("even")))
def pad(data, *, pad_width, mode, constant_value, reflect_type):
    """``np.pad``: ``pad_width`` one ``(before, after)`` per axis."""
    widths = [tuple(int(v) for v in w) for w in pad_width]
    if len(widths) != data.dim() or any(len(w) != 2 or min(w) < 0 for w in widths):
        raise MXNetError("Operator _npi_pad: pad_width %s does not give (before, after) >= 0 for each axis of "
                         "an array of shape %s" % (pad_width, tuple(data.shape)))
    if mode == "constant":
        flat = [v for w in reversed(widths) for v in w]
        return F.pad(data, flat, value=constant_value)
    out = data
    for axis, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = out.shape[axis]
        if n == 0:
            raise MXNetError("Operator _npi_pad: cannot pad an empty axis in mode %r (shape %s)"
                             % (mode, tuple(data.shape)))
        if mode in ("maximum", "minimum"):
            stat = (out.amax if mode == "maximum" else out.amin)(dim=axis, keepdim=True)
            sizes = list(out.shape)
            parts = [stat.expand(*sizes[:axis], before, *sizes[axis + 1:]), out,
                     stat.expand(*sizes[:axis], after, *sizes[axis + 1:])]
            out = torch.cat(parts, dim=axis)
        else:
            idx = torch.as_tensor(_pad_index(n, before, after, mode), device=out.device)
            out = out.index_select(axis, idx)
    return out


# ------------------------------------------------------------------ insert and delete
_WHERE = dict(start=Int(None), stop=Int(None), step=Int(None), int_ind=Int(None), axis=Int(None))


def _flat_axis(arr, axis, name):
    if axis is None:
        return arr.reshape(-1), 0
    if not -arr.dim() <= axis < arr.dim():
        raise MXNetError("Operator %s: axis %d is out of bounds for an array of shape %s"
                         % (name, axis, tuple(arr.shape)))
    return arr, axis % arr.dim()


def _positions(n, attrs, obj, name):
    """The positions ``obj`` names on an axis of length ``n`` (a slice, one int, an array)."""
    if obj is not None:
        return np.asarray(obj.detach().cpu().numpy(), dtype=np.int64), obj.dim() == 0
    if attrs["int_ind"] is not None:
        return np.asarray(attrs["int_ind"], dtype=np.int64), True
    return np.arange(n)[slice(attrs["start"], attrs["stop"], attrs["step"])], False


def _insert(name):
    def impl(arr, *rest, val, start, stop, step, int_ind, axis):
        attrs = dict(start=start, stop=stop, step=step, int_ind=int_ind)
        values = None if val is not None else rest[0]
        obj = rest[-1] if name == "_npi_insert_tensor" else None
        arr, axis = _flat_axis(arr, axis, name)
        n = arr.shape[axis]
        if values is None:
            values = torch.tensor(val, dtype=arr.dtype, device=arr.device)
        values = values.to(arr.dtype)
        indices, scalar = _positions(n, attrs, obj, name)
        if (indices < -n).any() or (indices > n).any():
            raise MXNetError("Operator %s: index %s is out of bounds for axis %d with size %d"
                             % (name, indices.tolist(), axis, n))
        indices = np.where(indices < 0, indices + n, indices)
        while values.dim() < arr.dim():
            values = values.unsqueeze(0)
        if scalar or indices.size == 1:
            if scalar:
                values = torch.movedim(values, 0, axis)
            numnew = values.shape[axis]
            indices = np.full(numnew, int(indices.reshape(-1)[0])) + np.arange(numnew)
        else:
            numnew = indices.size
            order = np.argsort(indices, kind="mergesort")
            shifted = indices.copy()
            shifted[order] += np.arange(numnew)
            indices = shifted
        shape = list(arr.shape)
        shape[axis] = numnew
        values = values.expand(*shape) if values.shape != tuple(shape) else values
        keep = np.ones(n + numnew, dtype=bool)
        keep[indices] = False
        out_shape = list(arr.shape)
        out_shape[axis] = n + numnew
        out = arr.new_empty(out_shape)
        dev = arr.device
        out = out.index_copy(axis, torch.as_tensor(np.nonzero(keep)[0], device=dev), arr)
        return out.index_copy(axis, torch.as_tensor(indices, device=dev), values)
    impl.__doc__ = "``np.insert``: ``values`` (or the scalar ``val``) before the positions given."
    return impl


_INSERT = dict(val=Float(None), **_WHERE)
register("_npi_insert_scalar", inputs=lambda a: ("arr",) if a["val"] is not None else ("arr", "values"),
         signature=("arr", "values"), params=_INSERT)(_insert("_npi_insert_scalar"))
register("_npi_insert_slice", inputs=lambda a: ("arr",) if a["val"] is not None else ("arr", "values"),
         signature=("arr", "values"), params=_INSERT)(_insert("_npi_insert_slice"))
register("_npi_insert_tensor",
         inputs=lambda a: ("arr", "obj") if a["val"] is not None else ("arr", "values", "obj"),
         signature=("arr", "values", "obj"), params=_INSERT)(_insert("_npi_insert_tensor"))


@register("_npi_delete", inputs=lambda a: ("arr",) if a["int_ind"] is not None or a["step"] is not None
          else ("arr", "obj"), signature=("arr", "obj"), params=_WHERE)
def delete(arr, obj=None, *, start, stop, step, int_ind, axis):
    """``np.delete``: the array without the positions given along ``axis`` (flattened without)."""
    arr, axis = _flat_axis(arr, axis, "_npi_delete")
    n = arr.shape[axis]
    indices, _ = _positions(n, dict(start=start, stop=stop, step=step, int_ind=int_ind), obj, "_npi_delete")
    indices = indices.reshape(-1)
    if ((indices < -n) | (indices >= n)).any():
        raise MXNetError("Operator _npi_delete: index %s is out of bounds for axis %d with size %d"
                         % (indices.tolist(), axis, n))
    keep = np.ones(n, dtype=bool)
    keep[indices] = False
    return arr.index_select(axis, torch.as_tensor(np.nonzero(keep)[0], device=arr.device))


# ------------------------------------------------------------------ differences and diagonals
def _ediff1d_inputs(attrs):
    """One name per given input (MXNet names them by count: input2 is to_end alone)."""
    return ("input1", "input2", "input3")[:1 + attrs["to_begin_arr_given"] + attrs["to_end_arr_given"]]


@register("_npi_ediff1d", inputs=_ediff1d_inputs, signature=("input1", "input2", "input3"),
          params=dict(to_begin_arr_given=Bool(False), to_end_arr_given=Bool(False), to_begin_scalar=Float(None),
                      to_end_scalar=Float(None)))
def ediff1d(ary, *ends, to_begin_arr_given, to_end_arr_given, to_begin_scalar, to_end_scalar):
    """The differences of the flattened array, with ``to_begin`` before and ``to_end`` after
    (arrays, flattened, or scalars), in the array's dtype."""
    ends = list(ends)
    flat = ary.reshape(-1)
    parts = []

    def end(given, scalar):
        if given:
            return ends.pop(0).reshape(-1).to(ary.dtype)
        if scalar is not None:
            return torch.tensor([scalar], dtype=ary.dtype, device=ary.device)
        return None
    begin = end(to_begin_arr_given, to_begin_scalar)
    finish = end(to_end_arr_given, to_end_scalar)
    if begin is not None:
        parts.append(begin)
    parts.append(flat[1:] - flat[:-1])
    if finish is not None:
        parts.append(finish)
    return torch.cat(parts)


@register("_np_diagflat", params=dict(k=Int(0)))
def diagflat(data, *, k):
    """A 2-d array with the flattened input on the ``k``-th diagonal."""
    return torch.diagflat(data, offset=k)


@register("_npi_diag_indices_from")
def diag_indices_from(data):
    """The indices of the main diagonal of an n-d array with equal axes: shape ``(ndim, n)``, int64."""
    if data.dim() < 2 or len(set(data.shape)) != 1:
        raise MXNetError("Operator _npi_diag_indices_from: the input must be at least 2-d with all axes of equal "
                         "length, got shape %s" % (tuple(data.shape),))
    n = data.shape[0]
    return torch.arange(n, device=data.device).expand(data.dim(), n).contiguous()


@register("_npi_unravel_index_fallback", inputs=("indices",), params=dict(shape=Shape()))
def unravel_index(indices, *, shape):
    """``np.unravel_index`` (C order): one row of coordinates per axis of ``shape``, shape
    ``(len(shape),) + indices.shape``, in the indices' dtype (MXNet runs NumPy's in a Custom
    operator of this name)."""
    idx = indices.to(torch.int64)
    total = 1
    for d in shape:
        total *= d
    if bool(((idx < 0) | (idx >= total)).any()):
        raise MXNetError("Operator _npi_unravel_index_fallback: index out of bounds for an array of shape %s"
                         % (tuple(shape),))
    rows = []
    for d in reversed(shape):
        rows.append(torch.remainder(idx, d))
        idx = torch.div(idx, d, rounding_mode="floor")
    return torch.stack(rows[::-1]).to(indices.dtype)


@register("_npi_share_memory", inputs=("a", "b"))
def share_memory(a, b):
    """Whether the two arrays' memory ranges overlap (a 0-d boolean)."""
    def span(t):
        if t.numel() == 0:
            return (0, 0)
        start = t.data_ptr()
        last = start + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) * t.element_size()
        return start, last + t.element_size()
    (a0, a1), (b0, b1) = span(a), span(b)
    same = a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    return torch.tensor(bool(same and a0 < b1 and b0 < a1))
