"""Shape manipulation: Reshape (MXNet's special codes), transpose, slice, split, concat, tile, pad, ...

All of these are views or copies of torch tensors, so their gradients come from torch
autograd and match MXNet's (slice gradients scatter back, tile/broadcast gradients sum).
Axes may be negative; where MXNet 1.9.1 rejects a negative axis (``transpose``,
``reverse``) neogluon accepts it, with numpy's meaning.
"""
import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import (CACHE_SIZE, REQUIRED, Bool, Float, Int, Shape, Str, check_rule, compiling, implementation,
                       register, remember, require, shape_rule)

__all__ = ["IntOrNone", "norm_axis", "op_error", "infer_reshape"]


class IntOrNone(Int):
    """MXNet's ``int or None``: an integer attribute that may also be ``None``."""
    type_name = "int or None"

    def parse(self, value):
        if value is None or (isinstance(value, str) and value.strip() == "None"):
            return None
        return super().parse(value)


def op_error(op, msg, *shapes):
    """An MXNetError naming the operator, with the input shapes appended."""
    if shapes:
        msg += " (input shapes: %s)" % ", ".join(str(tuple(s)) for s in shapes)
    return MXNetError("Operator %s: %s" % (op, msg))


def same_dtype(op, tensors):
    """MXNet's check of operators whose inputs share one dtype (``add_n``, ``Concat``):
    an MXNetError naming the first input whose dtype differs from the first's."""
    first = tensors[0].dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != first:
            raise op_error(op, "incompatible input dtypes: input %d is %s, expected %s as input 0"
                           % (i, str(t.dtype).replace("torch.", ""), str(first).replace("torch.", "")))


def norm_axis(axis, ndim, op, name="axis"):
    """``axis`` made non-negative; MXNetError when it is outside ``[-ndim, ndim)``."""
    if not -ndim <= axis < ndim:
        raise op_error(op, "%s=%d is out of range for an input with %d dimensions" % (name, axis, ndim))
    return axis % ndim


def _shape(t):
    return tuple(t.shape)


# ----------------------------------------------------------------------------- Reshape
def _reshape_codes(dshape, codes):
    """MXNet's InferReshapeShape: apply the codes 0, -1, -2, -3, -4 to ``dshape``."""
    out, src, inf_idx, i = [], 0, -1, 0
    n = len(dshape)

    def need(cond):
        if not cond:
            raise ValueError("shape %s does not apply to an input of shape %s" % (tuple(codes), tuple(dshape)))

    while i < len(codes):
        c = codes[i]
        if c == 0:
            need(src < n)
            out.append(dshape[src])
            src += 1
        elif c == -1:
            if inf_idx >= 0:
                raise ValueError("One and only one dim can be inferred, got shape %s" % (tuple(codes),))
            inf_idx = len(out)
            out.append(1)
            src += 1
        elif c == -2:
            out.extend(dshape[src:])
            src = n
        elif c == -3:
            need(src < n - 1)
            out.append(dshape[src] * dshape[src + 1])
            src += 2
        elif c == -4:
            need(src < n and i + 2 < len(codes))
            d0, d1, d2 = dshape[src], codes[i + 1], codes[i + 2]
            if d1 == -1 and d2 == -1:
                raise ValueError("Split dims cannot both be -1")
            d1 = d0 // d2 if d1 == -1 else d1
            d2 = d0 // d1 if d2 == -1 else d2
            if d1 * d2 != d0:
                raise ValueError("Split dims %d, %d do not divide original dim %d" % (d1, d2, d0))
            out.extend((d1, d2))
            src += 1
            i += 2
        elif c > 0:
            out.append(c)
            src += 1
        else:
            raise ValueError("shape dim size must be >= -4, while received %d" % c)
        i += 1
    if inf_idx >= 0:
        known = math.prod(out)
        if known == 0:
            raise ValueError("cannot infer the -1 dimension of shape %s: the other dimensions have size 0"
                             % (tuple(codes),))
        out[inf_idx] = math.prod(dshape) // known
    return out


def _reshape_legacy(dshape, target, keep_highest):
    """The deprecated ``target_shape`` parameter: a single 0 is inferred."""
    out = list(target)
    start = 0
    if keep_highest:
        out[0] = dshape[0]
        start = 1
    zeros = [i for i in range(start, len(out)) if out[i] == 0]
    if len(zeros) == 1:
        out[zeros[0]] = 1
        out[zeros[0]] = math.prod(dshape) // math.prod(out)
    return out


def infer_reshape(dshape, shape=(), reverse=False, target_shape=(), keep_highest=False):
    """The output shape of ``Reshape`` for an input of shape ``dshape`` (MXNet's rules)."""
    return _infer_reshape(tuple(dshape), tuple(shape), bool(reverse), tuple(target_shape), bool(keep_highest))


@functools.lru_cache(maxsize=CACHE_SIZE)  # the dispatch caches' one bound (registry.CACHE_SIZE)
def _infer_reshape(dshape, shape, reverse, target_shape, keep_highest):
    """infer_reshape, memoised: a training loop reshapes the same shapes over and over."""
    if shape:
        if reverse:
            out = _reshape_codes(dshape[::-1], tuple(shape)[::-1])[::-1]
        else:
            out = _reshape_codes(dshape, tuple(shape))
    elif target_shape:
        out = _reshape_legacy(dshape, target_shape, keep_highest)
    else:
        raise ValueError("shape is not given")
    if math.prod(out) != math.prod(dshape):
        raise ValueError("target shape %s has %d elements but the input has %d"
                         % (tuple(out), math.prod(out), math.prod(dshape)))
    return tuple(out)


def _reshape_infer_inputs(attrs, shapes, outs):
    """MXNet's reverse Reshape inference: one unknown input dim from the output's size."""
    data = shapes[0]
    if data is None or sum(d == 0 for d in data) != 1:
        return shapes
    rest = int(np.prod([d for d in data if d]))
    return [tuple(d or int(np.prod(outs[0])) // rest for d in data)]


@implementation("Reshape", aliasing=True, aliases=["reshape"], infer_inputs=_reshape_infer_inputs,
                params=dict(shape=Shape(()), reverse=Bool(False), target_shape=Shape(()), keep_highest=Bool(False)))
def reshape(*, shape, reverse, target_shape, keep_highest):
    """Reshape with MXNet's special codes: 0 copies a dimension, -1 infers one, -2 copies
    the rest, -3 merges two, -4 splits one into the next two codes; ``reverse`` applies
    the codes from the right. The deprecated ``target_shape``/``keep_highest`` also work.
    The target is derived once per input shape."""
    plans = {}

    def run(data):
        if SYMBOLIC_SIZES[0] and shape:  # captured by export_torch: sizes may be symbolic
            return torch.reshape(data, traced_target(data.shape, shape, reverse))
        if compiling() and not SYMBOLIC_SIZES[0]:  # traced by TorchDynamo: no plan cache (registry.compiling)
            return torch.reshape(data, infer_reshape(data.shape, shape, reverse, target_shape, keep_highest))
        out = plans.get(data.shape)
        if out is None:
            out = remember(plans, data.shape, infer_reshape(data.shape, shape, reverse, target_shape,
                                                            keep_highest))
        return torch.reshape(data, out)  # the function: ~0.7 us faster than the method with a tuple
    return run


# set by export_torch while TorchDynamo captures a graph (a list: one flag, read without a call)
SYMBOLIC_SIZES = [False]


def traced_target(dshape, codes, reverse):
    """A Reshape's target for sizes that may be symbolic (a capture by TorchDynamo): MXNet's
    codes applied without the plan cache (which would fix the sizes), the dimension MXNet
    infers left to torch as -1; so ``x.reshape(x.size(0), -1)`` keeps the batch free."""
    ds, cs = (tuple(dshape)[::-1], tuple(codes)[::-1]) if reverse else (tuple(dshape), tuple(codes))
    out = list(_reshape_codes(ds, cs))
    pos, i, src = 0, 0, 0
    while i < len(cs):  # where the -1 code's dimension lands in the output
        c = cs[i]
        if c == -1:
            out[pos] = -1
            break
        step = {-2: len(ds) - src, -4: 2}.get(c, 1)
        src += {-2: len(ds) - src, -3: 2}.get(c, 1)
        pos, i = pos + step, i + (3 if c == -4 else 1)
    return tuple(out[::-1]) if reverse else tuple(out)


@check_rule("Reshape")
def _check_reshape(attrs, tensors):
    data = tensors[0]
    try:
        infer_reshape(_shape(data), attrs["shape"], attrs["reverse"], attrs["target_shape"], attrs["keep_highest"])
    except ValueError as e:
        raise op_error("Reshape", "cannot reshape with shape=%s reverse=%s: %s" % (attrs["shape"], attrs["reverse"], e),
                       data.shape) from None


@register("Flatten", aliasing=True, aliases=["flatten"])
def flatten(data):
    """Collapse all dimensions after the first: ``(d0, d1*...*dk)``; a 1-d input gives ``(d0, 1)``."""
    return data.reshape(data.shape[0], -1) if data.dim() else data.reshape(1, 1)


@register("transpose", aliasing=True, params=dict(axes=Shape(())))
def transpose(data, *, axes):
    """Permute the axes; empty ``axes`` reverses them."""
    if not axes:
        return data.permute(*range(data.dim() - 1, -1, -1))
    if len(axes) != data.dim():
        raise op_error("transpose", "axes=%s must list every one of the %d axes" % (axes, data.dim()), data.shape)
    perm = [norm_axis(a, data.dim(), "transpose", "axes") for a in axes]
    if sorted(perm) != list(range(data.dim())):
        raise op_error("transpose", "axes=%s is not a permutation" % (axes,), data.shape)
    return data.permute(*perm)


@register("SwapAxis", aliasing=True, aliases=["swapaxes"], params=dict(dim1=Int(0), dim2=Int(0)))
def swap_axis(data, *, dim1, dim2):
    """Interchange two axes."""
    n = data.dim()
    return data.transpose(norm_axis(dim1, n, "SwapAxis", "dim1"), norm_axis(dim2, n, "SwapAxis", "dim2"))


@register("expand_dims", aliasing=True, params=dict(axis=Int()))
def expand_dims(data, *, axis):
    """Insert a size-1 axis at ``axis`` (in ``[-ndim-1, ndim]``)."""
    n = data.dim()
    if not -n - 1 <= axis <= n:
        raise op_error("expand_dims", "axis must be in the range [%d, %d] (%d provided)" % (-n - 1, n, axis),
                       data.shape)
    return data.unsqueeze(axis % (n + 1))


@register("squeeze", aliasing=True, params=dict(axis=Shape(None)))
def squeeze(data, *, axis):
    """Remove size-1 axes (all of them, or those in ``axis``); a result with no axes
    left has shape ``(1,)``, as MXNet 1.x has no 0-d arrays."""
    if axis is None:
        keep = [d for d in data.shape if d != 1]
    else:
        drop = {norm_axis(a, data.dim(), "squeeze") for a in axis}
        for a in drop:
            if data.shape[a] != 1:
                raise op_error("squeeze", "cannot select an axis to squeeze out which has size=%d not equal "
                               "to one (axis %d)" % (data.shape[a], a), data.shape)
        keep = [d for i, d in enumerate(data.shape) if i not in drop]
    return data.reshape(keep or [1])


# ----------------------------------------------------------------------------- slicing
def _axis_view(t, axis, start, stop, step):
    """The elements ``start:stop:step`` of one axis as a view in increasing order, and
    whether they must be flipped (a negative step) to be in the slice's order."""
    count = len(range(start, stop, step))
    if count == 0:
        return t.narrow(axis, 0, 0), False
    if step > 0:
        return t[(slice(None),) * axis + (slice(start, stop, step),)], False
    first = start + (count - 1) * step
    return t[(slice(None),) * axis + (slice(first, start + 1, -step),)], True


def _slice_ranges(op, shape, begin, end, step):
    """Per-axis (start, stop, step) of MXNet's ``slice``; None entries mean the whole axis."""
    if len(begin) != len(end):
        raise op_error(op, "begin %s and end %s must have the same length" % (begin, end), shape)
    if len(begin) > len(shape):
        raise op_error(op, "slicing axis exceeds data dimensions: begin=%s" % (begin,), shape)
    if step and len(step) != len(begin):
        raise op_error(op, "step %s must have the same length as begin %s" % (step, begin), shape)
    ranges = []
    for i, (b, e) in enumerate(zip(begin, end)):
        s = step[i] if step and step[i] is not None else 1
        if s == 0:
            raise op_error(op, "slice op step[%d] cannot be 0" % i, shape)
        ranges.append(slice(b, e, s).indices(shape[i]))
    return ranges


def _sliced_view(t, ranges):
    """A view of ``t`` over ``ranges`` and the axes to flip to get the slice itself."""
    flips = []
    for axis, (start, stop, step) in enumerate(ranges):
        t, flip = _axis_view(t, axis, start, stop, step)
        if flip:
            flips.append(axis)
    return t, flips


class _Step(Shape):
    """``slice``'s step: ``None`` (what MXNet's np symbols write for ``x[a:b]``) is no step."""

    def parse(self, value):
        return () if value is None or value == "None" else super().parse(value)


@register("slice", aliases=["crop"],
          params=dict(begin=Shape(allow_none_items=True), end=Shape(allow_none_items=True),
                      step=_Step((), allow_none_items=True)))
def slice_op(data, *, begin, end, step):
    """``data[b0:e0:s0, b1:e1:s1, ...]`` for the leading axes; None entries take the
    whole axis (from the end for a negative step)."""
    view, flips = _sliced_view(data, _slice_ranges("slice", _shape(data), begin, end, step))
    return view.flip(flips) if flips else view.clone()


@register("slice_axis", params=dict(axis=Int(), begin=Int(), end=IntOrNone(REQUIRED)))
def slice_axis(data, *, axis, begin, end):
    """``data[..., begin:end, ...]`` on one axis; ``end=None`` runs to the end."""
    ax = norm_axis(axis, data.dim(), "slice_axis")
    n = data.shape[ax]
    b = begin + n if begin < 0 else begin
    e = n if end is None else (end + n if end < 0 else end)
    if not 0 <= b < e <= n:
        raise op_error("slice_axis", "invalid begin=%d, end=%s for axis %d of size %d" % (begin, end, ax, n),
                       data.shape)
    return data.narrow(ax, b, e - b).clone()


@register("slice_like", inputs=("data", "shape_like"), params=dict(axes=Shape(())))
def slice_like(data, shape_like, *, axes):
    """Slice ``data`` from the start to ``shape_like``'s size on ``axes`` (all axes when empty)."""
    if not axes:
        if data.dim() != shape_like.dim():
            raise op_error("slice_like", "by default all axes are sliced, but the inputs have %d and %d "
                           "dimensions" % (data.dim(), shape_like.dim()), data.shape, shape_like.shape)
        axes = range(data.dim())
    out = data
    for a in axes:
        ax = norm_axis(a, data.dim(), "slice_like", "axes")
        size = shape_like.shape[norm_axis(a, shape_like.dim(), "slice_like", "axes")]
        if size > data.shape[ax]:
            raise op_error("slice_like", "shape_like is larger than data on axis %d" % ax,
                           data.shape, shape_like.shape)
        out = out.narrow(ax, 0, size)
    return out.clone()


def _assign(op, lhs, value, begin, end, step):
    out = lhs.clone()
    view, flips = _sliced_view(out, _slice_ranges(op, _shape(lhs), begin, end, step))
    if torch.is_tensor(value):
        if tuple(value.shape) != tuple(view.shape):
            raise op_error(op, "rhs of shape %s does not match the slice of shape %s"
                           % (tuple(value.shape), tuple(view.shape)), lhs.shape)
        view.copy_(value.flip(flips) if flips else value)
    else:
        view.fill_(value)
    return out


@register("_slice_assign", aliases=["_crop_assign"], inputs=("lhs", "rhs"),
          params=dict(begin=Shape(allow_none_items=True), end=Shape(allow_none_items=True),
                      step=Shape((), allow_none_items=True)))
def slice_assign(lhs, rhs, *, begin, end, step):
    """A copy of ``lhs`` with the slice ``[begin:end:step]`` replaced by ``rhs``."""
    return _assign("_slice_assign", lhs, rhs, begin, end, step)


@register("_slice_assign_scalar", aliases=["_crop_assign_scalar"],
          params=dict(scalar=Float(0.0), begin=Shape(allow_none_items=True), end=Shape(allow_none_items=True),
                      step=Shape((), allow_none_items=True)))
def slice_assign_scalar(data, *, scalar, begin, end, step):
    """A copy of ``data`` with the slice ``[begin:end:step]`` set to ``scalar``."""
    return _assign("_slice_assign_scalar", data, scalar, begin, end, step)


# ----------------------------------------------------------------------------- split / join
def _squeeze_parts(op, parts, axis, squeeze_axis):
    """The parts (squeezed on ``axis`` with ``squeeze_axis``); one part is returned as a
    tensor, as MXNet's one output is an array (``split(x, num_outputs=1)``, GluonCV's boxes)."""
    if squeeze_axis:
        for p in parts:
            if p.shape[axis] != 1:
                raise op_error(op, "squeeze_axis needs parts of size 1 on axis %d, got %d" % (axis, p.shape[axis]))
        parts = [p.squeeze(axis) for p in parts]
    return parts[0] if len(parts) == 1 else tuple(parts)


@register("SliceChannel", aliasing=True, aliases=["split"], num_outputs=lambda a: a["num_outputs"],
          params=dict(num_outputs=Int(), axis=Int(1), squeeze_axis=Bool(False)))
def slice_channel(data, *, num_outputs, axis, squeeze_axis):
    """Split into ``num_outputs`` equal parts along ``axis`` (optionally dropping the axis)."""
    ax = norm_axis(axis, data.dim(), "SliceChannel")
    n = data.shape[ax]
    if num_outputs <= 0 or n % num_outputs:
        raise op_error("SliceChannel", "cannot split axis %d of size %d into num_outputs=%d evenly sized chunks"
                       % (ax, n, num_outputs), data.shape)
    parts = torch.split(data, n // num_outputs, dim=ax)
    return _squeeze_parts("SliceChannel", parts, ax, squeeze_axis)


def _split_v2_count(attrs):
    return attrs["sections"] if attrs["sections"] > 0 else len(attrs["indices"])


@register("_split_v2", aliasing=True, num_outputs=_split_v2_count,
          params=dict(indices=Shape(), axis=Int(1), squeeze_axis=Bool(False), sections=Int(0)))
def split_v2(data, *, indices, axis, squeeze_axis, sections):
    """Split at the start ``indices`` (each part ends where the next starts, the last at the
    end of the axis) or into ``sections`` parts, the first ``size % sections`` one longer
    (as numpy's array_split; MXNet's np.split checks for equal parts before calling it)."""
    ax = norm_axis(axis, data.dim(), "_split_v2")
    n = data.shape[ax]
    if sections > 0:
        size, extra = divmod(n, sections)
        starts = [0]
        for i in range(sections - 1):
            starts.append(starts[-1] + size + (i < extra))
    else:
        starts = list(indices)
    parts, total = [], 0
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else n
        if n == 0:
            end = start
        elif start > end:
            raise op_error("_split_v2", "start %d is not less than end %d for subarray %d" % (start, end, i),
                           data.shape)
        elif end > n:
            raise op_error("_split_v2", "end %d is no less than the size of the axis %d" % (end, n), data.shape)
        parts.append(data.narrow(ax, start, end - start) if n else data)
        total += end - start
    if n and total != n:  # the parts do not cover the axis (the first index is not 0)
        raise op_error("_split_v2", "Shape inconsistent, Provided = [%d], inferred shape=[%d]" % (n, total),
                       data.shape)
    return _squeeze_parts("_split_v2", parts, ax, squeeze_axis)


@register("Concat", aliases=["concat"], variadic="num_args", params=dict(num_args=Int(), dim=Int(1)))
def concat(*data, num_args, dim):
    """Join the inputs along ``dim``; the other dimensions must agree."""
    ax = norm_axis(dim, data[0].dim(), "Concat", "dim")
    same_dtype("Concat", data)
    first = _shape(data[0])
    for t in data[1:]:
        s = _shape(t)
        if len(s) != len(first) or any(a != b for i, (a, b) in enumerate(zip(s, first)) if i != ax):
            raise op_error("Concat", "incompatible input shapes for dim=%d" % dim, *(x.shape for x in data))
    return torch.cat(data, dim=ax)


@register("stack", variadic="num_args", params=dict(axis=Int(0), num_args=Int()))
def stack(*data, axis, num_args):
    """Join same-shaped inputs along a new axis."""
    n = data[0].dim()
    if not -n - 1 <= axis <= n:
        raise op_error("stack", "axis=%d is out of range for inputs with %d dimensions" % (axis, n))
    if any(t.shape != data[0].shape for t in data):
        raise op_error("stack", "all inputs must have the same shape", *(x.shape for x in data))
    return torch.stack(data, dim=axis % (n + 1))


# ----------------------------------------------------------------------------- repeat / broadcast
@register("tile", params=dict(reps=Shape()))
def tile(data, *, reps):
    """Repeat the whole array ``reps`` times per axis (shorter of shape and reps padded with 1s)."""
    return torch.tile(data, reps) if reps else data.clone()


@register("repeat", params=dict(repeats=Int(), axis=IntOrNone(None)))
def repeat(data, *, repeats, axis):
    """Repeat each element ``repeats`` times along ``axis`` (the flattened array when None)."""
    if repeats < 0:
        raise op_error("repeat", "repeats=%d must be non-negative" % repeats, data.shape)
    if axis is None:
        return data.reshape(-1).repeat_interleave(repeats)
    return data.repeat_interleave(repeats, dim=norm_axis(axis, data.dim(), "repeat"))


@register("reverse", aliases=["flip"], params=dict(axis=Shape()))
def reverse(data, *, axis):
    """Reverse the order of elements along the given axes."""
    return torch.flip(data, [norm_axis(a, data.dim(), "reverse") for a in axis])


def _expand(op, data, target):
    """Broadcast ``data`` to ``target`` (same number of dimensions; size-1 axes expand)."""
    src = _shape(data)
    if len(src) != len(target) or any(s != t and s != 1 for s, t in zip(src, target)):
        raise op_error(op, "array cannot be broadcast from %s to %s" % (src, tuple(target)))
    return data.expand(*target).clone()


@register("broadcast_to", params=dict(shape=Shape(())))
def broadcast_to(data, *, shape):
    """Broadcast to ``shape``; a 0 in ``shape`` keeps the input's dimension."""
    if len(shape) != data.dim():
        raise op_error("broadcast_to", "operand of shape %s cannot be broadcast to %s" % (_shape(data), shape))
    return _expand("broadcast_to", data, [s if t == 0 else t for s, t in zip(data.shape, shape)])


@register("broadcast_axis", aliases=["broadcast_axes"], params=dict(axis=Shape(()), size=Shape(())))
def broadcast_axis(data, *, axis, size):
    """Broadcast the size-1 axes ``axis`` to the sizes ``size``."""
    if len(axis) != len(size):
        raise op_error("broadcast_axis", "axis %s and size %s must have the same length" % (axis, size))
    target = list(data.shape)
    for a, s in zip(axis, size):
        ax = norm_axis(a, data.dim(), "broadcast_axis")
        if data.shape[ax] != 1:
            raise op_error("broadcast_axis", "broadcasting axis %d must have size 1" % ax, data.shape)
        target[ax] = s
    return _expand("broadcast_axis", data, target)


@register("broadcast_like", inputs=("lhs", "rhs"), params=dict(lhs_axes=Shape(None), rhs_axes=Shape(None)))
def broadcast_like(lhs, rhs, *, lhs_axes, rhs_axes):
    """Broadcast ``lhs`` to ``rhs``'s shape, or only ``lhs_axes`` to the sizes of ``rhs_axes``."""
    if lhs_axes is None and rhs_axes is None:
        return _expand("broadcast_like", lhs, _shape(rhs))
    if lhs_axes is None or rhs_axes is None or len(lhs_axes) != len(rhs_axes):
        raise op_error("broadcast_like", "lhs_axes %s and rhs_axes %s must have the same length"
                       % (lhs_axes, rhs_axes))
    target = list(lhs.shape)
    for la, ra in zip(lhs_axes, rhs_axes):
        target[norm_axis(la, lhs.dim(), "broadcast_like", "lhs_axes")] = \
            rhs.shape[norm_axis(ra, rhs.dim(), "broadcast_like", "rhs_axes")]
    return _expand("broadcast_like", lhs, target)


def _range(begin, end, ndim):
    b = 0 if begin is None else begin % ndim if begin < 0 else begin
    e = ndim if end is None else end % ndim if end < 0 else end
    return b, e


@register("reshape_like", aliasing=True, inputs=("lhs", "rhs"),
          params=dict(lhs_begin=IntOrNone(None), lhs_end=IntOrNone(None),
                      rhs_begin=IntOrNone(None), rhs_end=IntOrNone(None)))
def reshape_like(lhs, rhs, *, lhs_begin, lhs_end, rhs_begin, rhs_end):
    """Reshape ``lhs`` so that its axes ``[lhs_begin, lhs_end)`` take the sizes of
    ``rhs``'s axes ``[rhs_begin, rhs_end)`` (the whole shapes by default)."""
    lb, le = _range(lhs_begin, lhs_end, lhs.dim())
    rb, re = _range(rhs_begin, rhs_end, rhs.dim())
    target = lhs.shape[:lb] + rhs.shape[rb:re] + lhs.shape[le:]
    if target.numel() != lhs.numel():
        raise op_error("reshape_like", "cannot reshape lhs to %s: the sizes differ" % (tuple(target),),
                       lhs.shape, rhs.shape)
    return lhs.reshape(target)


# ----------------------------------------------------------------------------- pad, space/depth, misc
_PAD_MODES = {"constant": "constant", "edge": "replicate", "reflect": "reflect"}


@register("Pad", aliases=["pad"],
          params=dict(mode=Str(choices=tuple(_PAD_MODES)), pad_width=Shape(), constant_value=Float(0.0)))
def pad(data, *, mode, pad_width, constant_value):
    """Pad a 4-d or 5-d array on its spatial axes (``pad_width`` lists before/after per axis,
    zeros for the first two): constant value, edge replication or reflection."""
    n = data.dim()
    if n not in (4, 5):
        raise op_error("Pad", "current implementation only supports 4-D or 5-D input", data.shape)
    if len(pad_width) != 2 * n:
        raise op_error("Pad", "pad_width=%s must have 2 entries per axis" % (pad_width,), data.shape)
    if any(pad_width[:4]):
        raise op_error("Pad", "padding on the first two axes must be zero, got pad_width=%s" % (pad_width,))
    if mode == "reflect" and any(pad_width[2 * i] >= data.shape[i] or pad_width[2 * i + 1] >= data.shape[i]
                                 for i in range(2, n)):
        raise op_error("Pad", "reflection padding must be smaller than the input size", data.shape)
    torch_pad = [p for i in range(n - 1, 1, -1) for p in pad_width[2 * i:2 * i + 2]]
    if mode == "constant":
        return F.pad(data, torch_pad, mode="constant", value=constant_value)
    return F.pad(data, torch_pad, mode=_PAD_MODES[mode])


def _check_nchw(op, data, block_size):
    if data.dim() != 4 or block_size <= 0:
        raise op_error(op, "expects a 4-d (N, C, H, W) input and a positive block_size", data.shape)


@register("depth_to_space", params=dict(block_size=Int()))
def depth_to_space(data, *, block_size):
    """Move channel blocks into spatial blocks: ``(N, C, H, W) -> (N, C/b^2, H*b, W*b)``,
    with MXNet's (DCR) channel order."""
    _check_nchw("depth_to_space", data, block_size)
    n, c, h, w = data.shape
    b = block_size
    if c % (b * b):
        raise op_error("depth_to_space", "channels %d must be divisible by block_size^2=%d" % (c, b * b), data.shape)
    x = data.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
    return x.reshape(n, c // (b * b), h * b, w * b)


@register("space_to_depth", params=dict(block_size=Int()))
def space_to_depth(data, *, block_size):
    """Move spatial blocks into channels: ``(N, C, H, W) -> (N, C*b^2, H/b, W/b)``;
    the inverse of ``depth_to_space``."""
    _check_nchw("space_to_depth", data, block_size)
    n, c, h, w = data.shape
    b = block_size
    if h % b or w % b:
        raise op_error("space_to_depth", "height and width must be divisible by block_size=%d" % b, data.shape)
    x = data.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
    return x.reshape(n, c * b * b, h // b, w // b)


@register("shape_array", differentiable=False)
def shape_array(data):
    """The input's shape as a 1-d int64 array."""
    return torch.tensor(data.shape, dtype=torch.int64, device=data.device)


@register("size_array", differentiable=False)
def size_array(data):
    """The input's number of elements as a ``(1,)`` int64 array."""
    return torch.tensor([data.numel()], dtype=torch.int64, device=data.device)


@register("diag", params=dict(k=Int(0), axis1=Int(0), axis2=Int(1)))
def diag(data, *, k, axis1, axis2):
    """A 1-d input becomes a matrix with it on diagonal ``k``; an N-d input gives its
    ``k``-th diagonal over ``axis1``/``axis2`` as the last axis."""
    if data.dim() == 1:
        return torch.diag(data, k)
    a1 = norm_axis(axis1, data.dim(), "diag", "axis1")
    a2 = norm_axis(axis2, data.dim(), "diag", "axis2")
    if a1 == a2:
        raise op_error("diag", "axis1 and axis2 cannot refer to the same axis %d" % a1, data.shape)
    if (k > 0 and k >= data.shape[a2]) or (k < 0 and -k >= data.shape[a1]):
        raise op_error("diag", "diagonal k=%d does not exist" % k, data.shape)
    return torch.diagonal(data, k, a1, a2).clone()

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _flatten_shape(attrs, shapes):
    data = shapes[0]
    return [(data[0], math.prod(data[1:])) if data else (1, 1)]


def _reshape_shape(attrs, shapes):
    return [infer_reshape(shapes[0], attrs["shape"], attrs["reverse"], attrs["target_shape"],
                          attrs["keep_highest"])]


def _concat_shape(attrs, shapes):
    first = shapes[0]
    dim = attrs["dim"] % len(first)
    require(all(len(s) == len(first) and all(x == y for i, (x, y) in enumerate(zip(s, first)) if i != dim)
                 for s in shapes))
    return [tuple(first[:dim]) + (sum(s[dim] for s in shapes),) + tuple(first[dim + 1:])]


def _transpose_shape(attrs, shapes):
    data, axes = shapes[0], attrs["axes"]
    if not axes:
        return [tuple(reversed(data))]
    require(sorted(a % len(data) for a in axes) == list(range(len(data))))
    return [tuple(data[a] for a in axes)]


def _expand_dims_shape(attrs, shapes):
    data, axis = shapes[0], attrs["axis"]
    require(-len(data) - 1 <= axis <= len(data))
    axis %= len(data) + 1
    return [tuple(data[:axis]) + (1,) + tuple(data[axis:])]


shape_rule("Flatten")(_flatten_shape)
shape_rule("Reshape")(_reshape_shape)
shape_rule("Concat")(_concat_shape)
shape_rule("transpose")(_transpose_shape)
shape_rule("expand_dims")(_expand_dims_shape)
