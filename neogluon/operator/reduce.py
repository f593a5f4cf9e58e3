"""Reductions, sorting and arg-functions: sum, mean, max, norm, argmax, topk, sort, ...

MXNet's conventions reproduced here:

- ``axis`` is an int, a tuple or None; None and ``()`` reduce every axis, ``exclude``
  reduces every axis *not* listed, and a full reduction without ``keepdims`` gives
  shape ``(1,)``, also of a 0-d array or along the one axis of a vector (argmax);
- outputs keep the input dtype: integer sums wrap, an integer mean truncates, and
  argmax/argmin/topk indices are numbers of the input dtype (or of ``dtype=``);
- gradients follow MXNet where they differ from torch's: every tied maximum receives
  the full gradient, ``prod`` divides the output by the input (NaN at zeros), the L2
  norm's gradient is ``x / norm`` (NaN at a zero norm), index outputs give zeros.
"""
import math

import numpy as np
import torch

from ..base import MXNetError, torch_dtype
from .elemwise import zero_grad_output
from .registry import Bool, Dtype, Int, Shape, Str, compiling, implementation, register, remember, require, shape_rule
from .shape import SYMBOLIC_SIZES  # set while export_torch captures: sizes may be symbolic

_INDEX_DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint8")
_NORM_DTYPES = ("float16", "float32", "float64", "int32", "int64", "int8")


class OptionalInt(Int):
    """An int attribute that may also be None (MXNet's ``int or None`` with a default)."""
    type_name = "int or None"

    def parse(self, value):
        if value is None or (isinstance(value, str) and value.strip() == "None"):
            return None
        return super().parse(value)


def _reduce_params():
    return dict(axis=Shape(None), keepdims=Bool(False), exclude=Bool(False))


# ----------------------------------------------------------------------------- axes and shapes
def reduce_axes(op, shape, axis, exclude=False):
    """The sorted axes MXNet reduces: all for None or ``()``, the complement with ``exclude``."""
    ndim = len(shape)
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise MXNetError("Operator %s: reduction axis %d exceeds input dimensions %s"
                             % (op, a, tuple(shape)))
        axes.append(a % ndim)
    axes.sort()
    if len(set(axes)) != len(axes):
        raise MXNetError("Operator %s: reduction axes have duplicates %s" % (op, tuple(axis)))
    if exclude:
        return tuple(i for i in range(ndim) if i not in axes)
    return tuple(axes)


def finish_shape(out, axes, keepdims):
    """Turn a ``keepdim=True`` result into MXNet's output shape (``(1,)`` for a full reduction)."""
    if keepdims or (not axes and out.dim()):
        return out
    shape = [d for i, d in enumerate(out.shape) if i not in axes]
    return out.reshape(shape or (1,))


def _check_axis(op, ndim, axis):
    if not -ndim <= axis < ndim:
        raise MXNetError("Operator %s: axis %d exceeds the input dimension of %d" % (op, axis, ndim))
    return axis % ndim


def _flat_reduced(x, axes):
    """``x`` with the reduced axes moved last and merged, for reductions over one dim."""
    kept = [d for d in range(x.dim()) if d not in axes]
    n = math.prod(x.shape[a] for a in axes)
    return x.permute(kept + list(axes)).reshape([x.shape[d] for d in kept] + [n])


def _keepdim_shape(shape, axes):
    return [1 if i in axes else d for i, d in enumerate(shape)]


# ----------------------------------------------------------------------------- gradients as MXNet
class _ExtremumFn(torch.autograd.Function):
    """max/min over axes; the gradient goes in full to every element equal to the result."""

    @staticmethod
    def forward(ctx, x, axes, largest):  # pylint: disable=arguments-differ
        out = x.amax(axes, keepdim=True) if largest else x.amin(axes, keepdim=True)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        x, out = ctx.saved_tensors
        return g * (x == out).to(g.dtype), None, None


class _ProdFn(torch.autograd.Function):
    """prod over axes with MXNet's gradient ``out / x`` (NaN where x is 0, as MXNet)."""

    @staticmethod
    def forward(ctx, x, axes):  # pylint: disable=arguments-differ
        out = _flat_reduced(x, axes).prod(-1).reshape(_keepdim_shape(x.shape, axes)).to(x.dtype)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        x, out = ctx.saved_tensors
        return g * out / x, None


class _L2NormFn(torch.autograd.Function):
    """The L2 norm over axes with MXNet's gradient ``x / norm`` (NaN for a zero norm)."""

    @staticmethod
    def forward(ctx, x, axes):  # pylint: disable=arguments-differ
        out = torch.linalg.vector_norm(x, 2, dim=axes, keepdim=True)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        x, out = ctx.saved_tensors
        return g * x / out, None


# ----------------------------------------------------------------------------- sum, mean, max, ...
# Each kernel reduces ``dims`` (one int for a single axis, which torch parses faster, or a
# sorted tuple) and keeps or drops them as ``keepdim`` says.
def _tuple(dims):
    return (dims,) if isinstance(dims, int) else dims


def _sum(x, dims, keepdim):
    out = torch.sum(x, dims, keepdim)
    return out if x.is_floating_point() else out.to(x.dtype)


def _mean(x, dims, keepdim):
    if x.is_floating_point():
        return torch.mean(x, dims, keepdim)
    count = math.prod(x.shape[a] for a in _tuple(dims))
    return torch.div(_sum(x, dims, keepdim), count, rounding_mode="trunc")


def _dropped(out, dims, keepdim):
    return out if keepdim else out.squeeze(dims)


def _max(x, dims, keepdim):
    return _dropped(_ExtremumFn.apply(x, _tuple(dims), True), dims, keepdim)


def _min(x, dims, keepdim):
    return _dropped(_ExtremumFn.apply(x, _tuple(dims), False), dims, keepdim)


def _prod(x, dims, keepdim):
    return _dropped(_ProdFn.apply(x, _tuple(dims)), dims, keepdim)


def _nansum(x, dims, keepdim):
    if not x.is_floating_point():
        return _sum(x, dims, keepdim)
    return torch.nansum(x, dims, keepdim)


def _nanprod(x, dims, keepdim):
    if not x.is_floating_point():
        return _prod(x, dims, keepdim)
    return _prod(torch.where(torch.isnan(x), torch.ones_like(x), x), dims, keepdim)


def _square_sum(x, dims, keepdim):
    return _sum(x * x, dims, keepdim)


def _reduction_plan(name, shape, axis, exclude, keepdims):
    """``(dims, full)``: what the kernel reduces (None: nothing, the input is copied), and
    whether every axis goes without ``keepdims``, where MXNet's shape is ``(1,)``. It
    depends on the number of dimensions only (``shape`` is for error messages)."""
    axes = reduce_axes(name, shape, axis, exclude)
    if not axes:  # nothing to reduce: a copy, (1,) for a 0-d input (NumPy shape semantics)
        return None, not keepdims and not shape
    return (axes[0] if len(axes) == 1 else axes), not keepdims and len(axes) == len(shape)


def _reduce(kernel, data, plan, keepdims):
    dims, full = plan
    if dims is None:
        return data.reshape((1,)).clone() if full else data.clone()
    out = kernel(data, dims, keepdims)
    return torch.reshape(out, (1,)) if full else out


def _register_reduction(name, kernel, doc, aliases=()):
    def reduction(*, axis, keepdims, exclude):
        """The reduction with its plan made once per number of input dimensions."""
        plans = {}

        def run(data):
            if compiling() and not SYMBOLIC_SIZES[0]:  # traced by TorchDynamo: no plan cache (registry.compiling)
                return _reduce(kernel, data, _reduction_plan(name, data.shape, axis, exclude, keepdims), keepdims)
            plan = plans.get(data.ndim)
            if plan is None:
                plan = remember(plans, data.ndim, _reduction_plan(name, data.shape, axis, exclude, keepdims))
            return _reduce(kernel, data, plan, keepdims)
        return run
    reduction.__doc__ = doc
    implementation(name, params=_reduce_params(), aliases=list(aliases))(reduction)


_register_reduction("sum", _sum, "Sum over ``axis`` (MXNet's ``sum``; integer sums wrap in the input dtype).",
                    aliases=["sum_axis"])
_register_reduction("mean", _mean, "Mean over ``axis``; an integer mean is the wrapped sum divided with truncation.")
_register_reduction("max", _max, "Maximum over ``axis``; every tied maximum gets the full gradient.",
                    aliases=["max_axis"])
_register_reduction("min", _min, "Minimum over ``axis``; every tied minimum gets the full gradient.",
                    aliases=["min_axis"])
_register_reduction("prod", _prod, "Product over ``axis``; the gradient is ``out / x`` as in MXNet.")
_register_reduction("nansum", _nansum, "Sum over ``axis`` treating NaN as 0 (zero gradient at NaN).")
_register_reduction("nanprod", _nanprod, "Product over ``axis`` treating NaN as 1 (zero gradient at NaN).")
_register_reduction("_square_sum", _square_sum, "Sum of squares over ``axis`` (MXNet's ``_square_sum``).")


@register("norm", params=dict(ord=Int(2), axis=Shape(None),
                              out_dtype=Dtype(None, choices=_NORM_DTYPES),
                              keepdims=Bool(False)),
          infer_type=lambda attrs, dtypes: [np.dtype(attrs["out_dtype"] or dtypes[0])])
def norm(data, *, ord, axis, out_dtype, keepdims):  # pylint: disable=redefined-builtin
    """The L1 or L2 norm over ``axis`` (all axes by default), as MXNet's ``norm``.

    Integer and float16 inputs are computed in a wider float type and cast back;
    ``out_dtype`` casts the result."""
    if ord not in (1, 2):
        raise MXNetError("Operator norm: only ord=1 and ord=2 are supported, got ord=%d" % ord)
    axes = reduce_axes("norm", data.shape, axis)
    x = data if data.dtype in (torch.float32, torch.float64) else data.to(
        torch.float32 if data.is_floating_point() else torch.float64)
    out = x.abs().sum(axes, keepdim=True) if ord == 1 else _L2NormFn.apply(x, axes)
    out = out.to(data.dtype if out_dtype is None else getattr(torch, out_dtype))
    return finish_shape(out, axes, keepdims)


@register("moments", params=dict(axes=Shape(None), keepdims=Bool(False)), num_outputs=2)
def moments(data, *, axes, keepdims):
    """Mean and (population) variance over ``axes``, as two outputs (MXNet's ``moments``)."""
    if not axes:
        raise MXNetError("Operator moments: empty axes is not supported; to compute global moments "
                         "pass all axes to the axes argument")
    ax = reduce_axes("moments", data.shape, axes)
    mean = data.mean(ax, keepdim=True)
    var = ((data - mean) ** 2).mean(ax, keepdim=True)
    return finish_shape(mean, ax, keepdims), finish_shape(var, ax, keepdims)


# ----------------------------------------------------------------------------- argmax, argmin
def _arg_reduce(name, fn, data, axis, keepdims):
    if axis is None:
        out = fn(data.reshape(-1)).reshape((1,) * (data.dim() if keepdims else 1))
    else:
        out = fn(data, _check_axis(name, data.dim(), axis), keepdims)
        if out.dim() == 0:  # the one axis of a 1-d array: (1,), as every full reduction
            out = out.reshape((1,))
    return zero_grad_output(data, out.to(data.dtype))


@register("argmax", params=dict(axis=OptionalInt(None), keepdims=Bool(False)))
def argmax(data, *, axis, keepdims):
    """Index of the first maximum along ``axis`` (flattened when None), in the input dtype."""
    return _arg_reduce("argmax", torch.argmax, data, axis, keepdims)


@register("argmin", params=dict(axis=OptionalInt(None), keepdims=Bool(False)))
def argmin(data, *, axis, keepdims):
    """Index of the first minimum along ``axis`` (flattened when None), in the input dtype."""
    return _arg_reduce("argmin", torch.argmin, data, axis, keepdims)


@register("argmax_channel")
def argmax_channel(data):
    """Index of the maximum along axis 1 (the channel axis), in the input dtype."""
    return _arg_reduce("argmax_channel", torch.argmax, data, 1, False)


# ----------------------------------------------------------------------------- sorting
def _along(name, data, axis):
    """(array, axis) to sort along: the flattened array and 0 when ``axis`` is None."""
    if axis is None:
        return data.reshape(-1), 0
    return data, _check_axis(name, data.dim(), axis)


def _sort(src, axis, is_ascend):
    return torch.sort(src, dim=axis, descending=not is_ascend, stable=True)


def _topk_outputs(attrs):
    return 2 if attrs["ret_typ"] in ("value", "both") else 1


def _topk_types(attrs, dtypes):
    data, index = dtypes[0], np.dtype(attrs["dtype"])
    return {"value": [data], "mask": [data], "indices": [index], "both": [data, index]}[attrs["ret_typ"]]


@register("topk", params=dict(axis=OptionalInt(-1), k=Int(1),
                              ret_typ=Str("indices", choices=("both", "indices", "mask", "value")),
                              is_ascend=Bool(False), dtype=Dtype("float32", choices=_INDEX_DTYPES)),
          num_outputs=_topk_outputs, infer_type=_topk_types,
          num_visible_outputs=lambda a: 2 if a["ret_typ"] == "both" else 1)
def topk(data, *, axis, k, ret_typ, is_ascend, dtype):
    """The ``k`` largest (or smallest) elements along ``axis`` as MXNet's ``topk``.

    ``k <= 0`` takes all; ties keep their order. ``ret_typ`` picks the values, the
    indices (as ``dtype``), both, or a 0/1 mask of the input's shape and dtype."""
    src, ax = _along("topk", data, axis)
    values, indices = _sort(src, ax, is_ascend)
    n = values.shape[ax]
    kk = n if k <= 0 else k
    if kk > n:
        raise MXNetError("Operator topk: k must be at most %d (the size of axis %s of input %s), got k=%d"
                         % (n, axis, tuple(data.shape), k))
    values, indices = values.narrow(ax, 0, kk), indices.narrow(ax, 0, kk)
    if ret_typ == "mask":
        mask = torch.zeros_like(src).scatter_(ax, indices, 1).reshape(data.shape)
        return zero_grad_output(data, mask)
    idx = zero_grad_output(data, indices.to(getattr(torch, dtype)))
    if ret_typ == "value":
        return values
    if ret_typ == "indices":
        return idx
    return values, idx


@register("sort", params=dict(axis=OptionalInt(-1), is_ascend=Bool(True)), num_outputs=2, num_visible_outputs=1)
def sort(data, *, axis, is_ascend):
    """The input sorted along ``axis`` (flattened when None); ties keep their order."""
    return _sort(*_along("sort", data, axis), is_ascend).values


@register("argsort", params=dict(axis=OptionalInt(-1), is_ascend=Bool(True),
                                 dtype=Dtype("float32", choices=_INDEX_DTYPES)))
def argsort(data, *, axis, is_ascend, dtype):
    """Indices that sort the input along ``axis`` (stable), as numbers of ``dtype``."""
    indices = _sort(*_along("argsort", data, axis), is_ascend).indices
    return zero_grad_output(data, indices.to(getattr(torch, dtype)))


# ----------------------------------------------------------------------------- cumulative sum
@register("_np_cumsum", inputs=("a",), aliases=["cumsum"], params=dict(axis=OptionalInt(None), dtype=Dtype(None)))
def cumsum(a, *, axis, dtype):
    """MXNet's ``cumsum`` (registered as ``_np_cumsum``, the name its JSON carries): the
    running sum along ``axis``, of the flattened array when ``axis`` is None. The output
    has ``dtype`` when given, else the input's (integer sums wrap, uint8 included). As
    MXNet 1.9.1 does outside its NumPy mode, a negative axis is rejected."""
    if axis is not None and not 0 <= axis < a.dim():
        raise MXNetError("Operator cumsum: axis %d out of range for an input of shape %s (MXNet 1.9.1 "
                         "accepts 0 to %d)" % (axis, tuple(a.shape), a.dim() - 1))
    x = a.reshape(-1) if axis is None else a
    out_dtype = torch_dtype(dtype) if dtype is not None else a.dtype
    out = torch.cumsum(x.to(out_dtype) if x.dtype != out_dtype else x, 0 if axis is None else axis)
    return out.to(out_dtype)
# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _reduction_shape(name):
    def rule(attrs, shapes):
        data = shapes[0]
        axes = reduce_axes(name, data, attrs["axis"], attrs["exclude"])
        require(axes)
        if attrs["keepdims"]:
            return [tuple(1 if i in axes else d for i, d in enumerate(data))]
        return [tuple(d for i, d in enumerate(data) if i not in axes) or (1,)]
    return rule


for _name in ("sum", "mean", "max", "min", "prod", "nansum", "nanprod"):
    shape_rule(_name)(_reduction_shape(_name))
