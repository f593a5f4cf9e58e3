"""The fused multi-head attention operators of MXNet's ``contrib`` (``transformer.cc``),
which GluonNLP's BERT and Transformer models call: ``_contrib_div_sqrt_dim`` and the
``_contrib_interleaved_matmul_{selfatt,encdec}_{qk,valatt}`` family.

Layouts, as MXNet's: projections are time-major, ``(seq_length, batch, heads * head_dim *
k)`` with the k projections (queries, keys, values for self-attention; keys, values for
encoder-decoder) interleaved per head; attention maps are ``(batch * heads, query_length,
key_length)`` with the batch index major. The ``qk`` operators scale queries by
``1/sqrt(head_dim)``. Gradients come from autograd through the same torch expressions.
"""
import math

import torch

from ..base import MXNetError
from .registry import Int, register, shape_rule

__all__ = []


def _heads(op, shape, heads, parts):
    """``head_dim`` of a projection of shape ``shape`` holding ``parts`` interleaved projections."""
    if len(shape) != 3:
        raise MXNetError("Operator %s: the projections must be 3-d (seq_length, batch, heads*head_dim*%d), "
                         "got shape %s" % (op, parts, tuple(shape)))
    if heads <= 0 or shape[2] % (heads * parts):
        raise MXNetError("Operator %s: the last dimension of shape %s is not a multiple of heads*%d = %d"
                         % (op, tuple(shape), parts, heads * parts))
    return shape[2] // (heads * parts)


def _projection(x, heads, parts, index):
    """Projection ``index`` of ``x`` (L, B, H*parts*D) as (B*H, L, D)."""
    length, batch, _ = x.shape
    p = x.reshape(length, batch, heads, parts, -1)[:, :, :, index, :]
    return p.permute(1, 2, 0, 3).reshape(batch * heads, length, -1)


def _merge_heads(out, heads):
    """(B*H, L, D) -> (L, B, H*D)."""
    bh, length, dim = out.shape
    return out.reshape(bh // heads, heads, length, dim).permute(2, 0, 1, 3).reshape(length, bh // heads, heads * dim)


def _check_attention(op, attention, batch_heads, lq, lk):
    if tuple(attention.shape) != (batch_heads, lq, lk):
        raise MXNetError("Operator %s: attention has shape %s, expected (batch*heads, query_length, key_length) "
                         "= %s" % (op, tuple(attention.shape), (batch_heads, lq, lk)))


@register("_contrib_div_sqrt_dim")
def div_sqrt_dim(data):
    """``data / sqrt(data.shape[-1])`` (MXNet's ``contrib.div_sqrt_dim``)."""
    return data / math.sqrt(data.shape[-1])


@register("_contrib_interleaved_matmul_selfatt_qk", inputs=("queries_keys_values",), params=dict(heads=Int()))
def selfatt_qk(queries_keys_values, *, heads):
    """Scaled ``q @ k^T`` per head from interleaved (L, B, H*D*3) projections: (B*H, L, L)."""
    op = "_contrib_interleaved_matmul_selfatt_qk"
    dim = _heads(op, queries_keys_values.shape, heads, 3)
    q = _projection(queries_keys_values, heads, 3, 0)
    k = _projection(queries_keys_values, heads, 3, 1)
    return torch.bmm(q / math.sqrt(dim), k.transpose(1, 2))


@register("_contrib_interleaved_matmul_selfatt_valatt", inputs=("queries_keys_values", "attention"),
          params=dict(heads=Int()))
def selfatt_valatt(queries_keys_values, attention, *, heads):
    """``attention @ v`` per head, heads merged back: (L, B, H*D)."""
    op = "_contrib_interleaved_matmul_selfatt_valatt"
    _heads(op, queries_keys_values.shape, heads, 3)
    length, batch, _ = queries_keys_values.shape
    _check_attention(op, attention, batch * heads, length, length)
    v = _projection(queries_keys_values, heads, 3, 2)
    return _merge_heads(torch.bmm(attention, v), heads)


@register("_contrib_interleaved_matmul_encdec_qk", inputs=("queries", "keys_values"), params=dict(heads=Int()))
def encdec_qk(queries, keys_values, *, heads):
    """Scaled ``q @ k^T`` per head from queries (Lq, B, H*D) and interleaved keys/values
    (Lk, B, H*D*2): (B*H, Lq, Lk)."""
    op = "_contrib_interleaved_matmul_encdec_qk"
    dim = _heads(op, queries.shape, heads, 1)
    if _heads(op, keys_values.shape, heads, 2) != dim or keys_values.shape[1] != queries.shape[1]:
        raise MXNetError("Operator %s: queries of shape %s and keys_values of shape %s do not match for %d heads"
                         % (op, tuple(queries.shape), tuple(keys_values.shape), heads))
    q = _projection(queries, heads, 1, 0)
    k = _projection(keys_values, heads, 2, 0)
    return torch.bmm(q / math.sqrt(dim), k.transpose(1, 2))


@register("_contrib_interleaved_matmul_encdec_valatt", inputs=("keys_values", "attention"),
          params=dict(heads=Int()))
def encdec_valatt(keys_values, attention, *, heads):
    """``attention @ v`` per head from interleaved keys/values (Lk, B, H*D*2) and attention
    (B*H, Lq, Lk): (Lq, B, H*D)."""
    op = "_contrib_interleaved_matmul_encdec_valatt"
    _heads(op, keys_values.shape, heads, 2)
    length, batch, _ = keys_values.shape
    _check_attention(op, attention, batch * heads, attention.shape[1] if attention.dim() == 3 else -1, length)
    v = _projection(keys_values, heads, 2, 1)
    return _merge_heads(torch.bmm(attention, v), heads)


# ----------------------------------------------------------------------------- shape rules
@shape_rule("_contrib_div_sqrt_dim")
def _div_sqrt_dim_shape(attrs, shapes):
    return [tuple(shapes[0])]


@shape_rule("_contrib_interleaved_matmul_selfatt_qk")
def _selfatt_qk_shape(attrs, shapes):
    (length, batch, _), heads = shapes[0], attrs["heads"]
    _heads("_contrib_interleaved_matmul_selfatt_qk", shapes[0], heads, 3)
    return [(batch * heads, length, length)]


@shape_rule("_contrib_interleaved_matmul_selfatt_valatt")
def _selfatt_valatt_shape(attrs, shapes):
    (length, batch, _), heads = shapes[0], attrs["heads"]
    dim = _heads("_contrib_interleaved_matmul_selfatt_valatt", shapes[0], heads, 3)
    return [(length, batch, heads * dim)]


@shape_rule("_contrib_interleaved_matmul_encdec_qk")
def _encdec_qk_shape(attrs, shapes):
    (lq, batch, _), (lk, _, _), heads = shapes[0], shapes[1], attrs["heads"]
    return [(batch * heads, lq, lk)]


@shape_rule("_contrib_interleaved_matmul_encdec_valatt")
def _encdec_valatt_shape(attrs, shapes):
    (_, batch, _), heads = shapes[0], attrs["heads"]
    dim = _heads("_contrib_interleaved_matmul_encdec_valatt", shapes[0], heads, 2)
    return [(shapes[1][1], batch, heads * dim)]
