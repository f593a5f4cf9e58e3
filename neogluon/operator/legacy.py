"""MXNet's legacy operators that old model files and code still name: the ``_v1`` layers
(``Convolution_v1``, ``Pooling_v1``, ``BatchNorm_v1``), the NDArray functions of MXNet
0.x (``_onehot_encode``, ``fill_element_0index``) and the ``_scatter_*``
operators, which MXNet defines for sparse storage and which on neogluon's dense arrays
are the plain element-wise operations (``_scatter_set_nd`` writes ``rhs`` at
``indices`` into a copy of ``lhs``).

The ``_v1`` layers are the current layers under their old schema (fewer attributes):
they compute the same thing, and the gradients are the current layers'.
"""
import torch

from ..base import MXNetError
from . import registry
from .conv import _CONV_PARAMS, _POOL_PARAMS, _conv_infer_args, _conv_weight, _with_bias
from .norm import _BN_COMMON, _infer_from_axis, _mean_var_names, _visible
from .registry import Bool, Float, Shape, Str, check_rule, register, shape_rule

__all__ = []


# ----------------------------------------------------------------------------- _v1 layers
_CONV_V1 = {k: v for k, v in _CONV_PARAMS.items()}
_CONV_V1["layout"] = Str(None, choices=("NCDHW", "NCHW", "NDHWC", "NHWC"))


@register("Convolution_v1", inputs=_with_bias, signature=("data", "weight", "bias"), params=_CONV_V1,
          infer_args=lambda attrs, shapes: _conv_infer_args(attrs, shapes, _conv_weight))
def convolution_v1(data, weight, bias=None, *, kernel, stride, dilate, pad, num_filter, num_group, workspace,
                   no_bias, cudnn_tune, cudnn_off, layout):
    """MXNet's ``Convolution_v1``: ``Convolution`` with the same attributes."""
    return registry.get("Convolution").fn(data, weight, bias, kernel=kernel, stride=stride, dilate=dilate, pad=pad,
                                          num_filter=num_filter, num_group=num_group, workspace=workspace,
                                          no_bias=no_bias, cudnn_tune=cudnn_tune, cudnn_off=cudnn_off, layout=layout)


@check_rule("Convolution_v1")
def _check_convolution_v1(attrs, tensors):
    registry.get("Convolution").check(attrs, tensors)


_POOL_V1 = dict(kernel=_POOL_PARAMS["kernel"], pool_type=Str("max", choices=("avg", "max", "sum")),
                global_pool=Bool(False), pooling_convention=Str("valid", choices=("full", "valid")),
                stride=Shape(()), pad=Shape(()))


@register("Pooling_v1", params=_POOL_V1)
def pooling_v1(data, *, kernel, pool_type, global_pool, pooling_convention, stride, pad):
    """MXNet's ``Pooling_v1``: ``Pooling`` (max/avg/sum, 'valid' or 'full'), except that an
    average always divides by the kernel's area, also for the windows a 'full' convention
    cuts at the border."""
    area = 1
    for k in kernel:
        area *= k
    by_sum = pool_type == "avg" and not global_pool
    out = registry.get("Pooling").fn(data, kernel=kernel, pool_type="sum" if by_sum else pool_type,
                                     global_pool=global_pool, cudnn_off=False, pooling_convention=pooling_convention,
                                     stride=stride, pad=pad, p_value=None, count_include_pad=None, layout=None)
    out = out[0] if isinstance(out, (tuple, list)) else out
    return out / area if by_sum else out


@check_rule("Pooling_v1")
def _check_pooling_v1(attrs, tensors):
    registry.get("Pooling").check(dict(attrs, p_value=None, layout=None), tensors)


@register("BatchNorm_v1", inputs=("data", "gamma", "beta"), aux=("moving_mean", "moving_var"),
          params=dict(_BN_COMMON), num_outputs=3, num_visible_outputs=_visible, output_names=_mean_var_names("var"),
          infer_args=_infer_from_axis(None, 1), mode_dependent=True)
def batch_norm_v1(data, gamma, beta, moving_mean, moving_var, *, eps, momentum, fix_gamma, use_global_stats,
                  output_mean_var, is_train):
    """MXNet's ``BatchNorm_v1``: ``BatchNorm`` over axis 1."""
    return registry.get("BatchNorm").fn(data, gamma, beta, moving_mean, moving_var, eps=eps, momentum=momentum,
                                        fix_gamma=fix_gamma, use_global_stats=use_global_stats,
                                        output_mean_var=output_mean_var, axis=1, cudnn_off=False,
                                        min_calib_range=None, max_calib_range=None, is_train=is_train)


@check_rule("BatchNorm_v1")
def _check_batch_norm_v1(attrs, tensors):
    registry.get("BatchNorm").check(dict(attrs, axis=1), tensors)


# ----------------------------------------------------------------------------- MXNet 0.x NDArray functions
@register("_onehot_encode", inputs=("lhs", "rhs"), differentiable=False)
def onehot_encode(lhs, rhs):
    """MXNet's deprecated ``_onehot_encode(indices, out_like)``: rows of ``rhs``'s shape with
    a 1 at each index of ``lhs`` (the result has ``rhs``'s shape and dtype)."""
    if lhs.dim() != 1 or rhs.dim() != 2 or lhs.shape[0] != rhs.shape[0]:
        raise MXNetError("Operator _onehot_encode: indices of shape %s do not match the output shape %s"
                         % (tuple(lhs.shape), tuple(rhs.shape)))
    out = torch.zeros_like(rhs)
    out.scatter_(1, lhs.long().reshape(-1, 1), 1)
    return out


@register("fill_element_0index", inputs=("lhs", "mhs", "rhs"), differentiable=False)
def fill_element_0index(lhs, mhs, rhs):
    """MXNet's ``fill_element_0index``: a copy of the 2-d ``lhs`` with ``lhs[i, rhs[i]] = mhs[i]``."""
    if lhs.dim() != 2 or mhs.shape != (lhs.shape[0],) or rhs.shape != (lhs.shape[0],):
        raise MXNetError("Operator fill_element_0index: lhs %s needs mhs and rhs of shape (%d,), got %s and %s"
                         % (tuple(lhs.shape), lhs.shape[0], tuple(mhs.shape), tuple(rhs.shape)))
    out = lhs.clone()
    out.scatter_(1, rhs.long().reshape(-1, 1), mhs.to(lhs.dtype).reshape(-1, 1))
    return out


# ----------------------------------------------------------------------------- _scatter_* on dense arrays
_SCALAR = dict(scalar=Float(1.0), is_int=Bool(True))


@register("_scatter_plus_scalar", params=dict(_SCALAR))
def scatter_plus_scalar(data, *, scalar, is_int):
    """``data + scalar`` (MXNet's form for sparse storage; every element is stored here)."""
    return data + scalar


@register("_scatter_minus_scalar", params=dict(_SCALAR))
def scatter_minus_scalar(data, *, scalar, is_int):
    """``data - scalar`` (MXNet's form for sparse storage; every element is stored here)."""
    return data - scalar


@register("_scatter_elemwise_div", inputs=("lhs", "rhs"))
def scatter_elemwise_div(lhs, rhs):
    """``lhs / rhs`` of equal shapes (MXNet's form for sparse storage)."""
    if lhs.shape != rhs.shape:
        raise MXNetError("Operator _scatter_elemwise_div: lhs %s and rhs %s must have the same shape"
                         % (tuple(lhs.shape), tuple(rhs.shape)))
    return lhs / rhs


@register("_scatter_set_nd", inputs=("lhs", "rhs", "indices"), params=dict(shape=Shape()), differentiable=False)
def scatter_set_nd(lhs, rhs, indices, *, shape):
    """``lhs`` with ``rhs`` written at ``indices`` (``scatter_nd``'s index layout: one row of
    coordinates per output dimension). MXNet runs it in place on ``lhs`` only (``out=lhs``)."""
    if tuple(lhs.shape) != tuple(shape):
        raise MXNetError("Operator _scatter_set_nd: lhs has shape %s but shape=%s" % (tuple(lhs.shape), shape))
    out = lhs.clone()
    out[tuple(indices.long())] = rhs.to(lhs.dtype)
    return out


@register("_identity_with_attr_like_rhs", inputs=("lhs", "rhs"))
def identity_with_attr_like_rhs(lhs, rhs):
    """``lhs`` unchanged (MXNet gives it ``rhs``'s storage type, which is always dense
    here); ``rhs`` gets no gradient."""
    return lhs.clone()


for _name in ("_identity_with_attr_like_rhs", "_scatter_plus_scalar", "_scatter_minus_scalar", "_scatter_elemwise_div"):
    shape_rule(_name)(lambda attrs, shapes: [tuple(shapes[0])])
shape_rule("_scatter_set_nd")(lambda attrs, shapes: [tuple(shapes[0])])
