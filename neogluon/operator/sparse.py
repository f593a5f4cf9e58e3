"""Operators on sparse storage: ``cast_storage``, ``_sparse_retain``, ``_contrib_getnnz``,
and the storage rules (MXNet's FInferStorageType with its sparse kernels) of the dense
operators that keep an output sparse.

Which output stays sparse is MXNet 1.9.1's answer, recorded from it
(``tools/make_extra_fixtures_sparse.py``):

* unary operators with ``f(0) == 0`` (abs, sign, rounding, square, sqrt, sin, tan, the
  inverse and hyperbolic ones, expm1, log1p, relu, negative, radians, degrees, cbrt,
  clip, identity, stop_gradient, make_loss, zeros_like, ``x * s``, ``x / s``): the input's storage;
* ``elemwise_add``/``_sub`` (and ``_grad_add``, ``_maximum``...) of two csr or two
  row_sparse arrays: that storage, on the union of the stored entries;
  ``elemwise_mul``: csr with csr or dense gives csr, row_sparse with row_sparse or dense
  gives row_sparse; ``broadcast_mul``/``_div`` of csr by a dense array: csr;
* ``dot``: csr x dense -> dense, csr.T x dense -> row_sparse (the rows are the csr's
  columns), dense x csr -> csr; ``add_n`` of row_sparse arrays, ``slice`` of csr,
  ``concat`` of csr on axis 0, ``_square_sum`` of row_sparse over axis 1 with keepdims;
* everything else reads its sparse inputs densely and gives a dense result.

Stored values are kept when they become zero (``x - x`` of a csr keeps its entries), as
MXNet's kernels do.
"""
# pylint: disable=unused-argument  (storage rules share one signature: attrs, inputs, out)
import warnings

import torch

from ..base import MXNetError
from ..core import STATE
from .registry import register, storage_rule, get, Str, Int, Any, Bool, Float, Dtype, REQUIRED
from . import storage as st
from .storage import CSR, RowSparse, INDEX_DTYPE

__all__ = []

STYPES = ("default", "row_sparse", "csr")


def _sp(x):
    """The storage of a sparse input, None for a dense one."""
    return getattr(x, "_storage", None)


def _stype(x):
    s = _sp(x)
    return "default" if s is None else s.stype


def _dense(x):
    """A dense input's tensor, detached outside ``autograd.record()`` (the recording rule)."""
    t = x._t
    if t.requires_grad and not STATE.recording:
        t = t.detach()
    return t


def _values(s):
    d = s.data
    return d.detach() if d.requires_grad and not STATE.recording else d


# ----------------------------------------------------------------------------- cast_storage
@register("cast_storage", params=dict(stype=Str(REQUIRED, choices=STYPES)), aliases=["_sparse_cast_storage"])
def cast_storage(data, *, stype):
    """Cast to storage ``stype``; on a dense input to 'default', a copy."""
    return data.clone()


@storage_rule("cast_storage", dense=True)
def _cast_storage_rule(attrs, inputs, out=None):
    x, = inputs
    src, dst = _stype(x), attrs["stype"]
    if src == "default":
        if dst == "default":
            return None
        t = _dense(x)
        if dst == "csr":
            if t.dim() != 2:
                raise MXNetError("Operator cast_storage: a csr array is 2-d, got data of shape %s" % (tuple(t.shape),))
            return st.to_csr(t)
        return st.to_row_sparse(t)
    s = _sp(x)
    if dst == "default":
        return st.densify(s).detach() if not STATE.recording else st.densify(s)
    if dst == src:
        return type(s)(s.shape, _values(s).clone(), *[a.clone() for a in (
            (s.indices, s.indptr) if src == "csr" else (s.indices,))])
    raise MXNetError("Operator cast_storage: casting from %s to %s is not supported" % (src, dst))


# ----------------------------------------------------------------------------- retain, getnnz
@register("_sparse_retain", inputs=("data", "indices"))
def sparse_retain(data, indices):
    """The rows of ``data`` named by ``indices`` (others zero); on a row_sparse input the
    result is row_sparse, storing every row ``indices`` names, in its order (its storage rule)."""
    keep = torch.zeros(data.shape[0], dtype=torch.bool, device=data.device)
    keep[indices.long()] = True
    return data * keep.reshape((-1,) + (1,) * (data.dim() - 1)).to(data.dtype)


@storage_rule("_sparse_retain")
def _retain_rule(attrs, inputs, out=None):
    x, idx = inputs
    s = _sp(x)
    if s is None or s.stype != "row_sparse" or _sp(idx) is not None:
        raise MXNetError("Operator _sparse_retain: data must be row_sparse and indices dense, got %s and %s"
                         % (_stype(x), _stype(idx)))
    want = _dense(idx).to(INDEX_DTYPE).reshape(-1)
    v = _values(s)
    pos = torch.searchsorted(s.indices, want).clamp_(max=max(s.indices.numel() - 1, 0))
    found = (s.indices[pos] == want) if s.indices.numel() else torch.zeros_like(want, dtype=torch.bool)
    rows = torch.zeros((want.numel(),) + tuple(v.shape[1:]), dtype=v.dtype, device=v.device)
    rows[found] = v[pos[found]]
    return RowSparse(s.shape, rows, want.clone())


@register("_contrib_getnnz", params=dict(axis=Any(None)))
def getnnz(data, *, axis):
    """The number of stored values of a csr array (all, or per row with ``axis=1``)."""
    raise MXNetError("Operator _contrib_getnnz: the input must be csr, got a dense array")


@storage_rule("_contrib_getnnz")
def _getnnz_rule(attrs, inputs, out=None):
    x, = inputs
    s = _sp(x)
    if s is None or s.stype != "csr":
        raise MXNetError("Operator _contrib_getnnz: the input must be csr, got %s" % _stype(x))
    axis = attrs["axis"]
    if axis is None:
        return torch.tensor([s.indices.numel()], dtype=torch.int64)
    if axis in (1, -1):
        return (s.indptr[1:] - s.indptr[:-1]).to(torch.int64)
    raise MXNetError("getnnz with axis = %s is not supported yet" % axis)


# ----------------------------------------------------------------------------- unary, zero-preserving
ZERO_PRESERVING = (
    "abs", "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "square", "sqrt", "sin", "tan", "arcsin",
    "arctan", "sinh", "tanh", "arcsinh", "arctanh", "expm1", "log1p", "relu", "negative", "radians", "degrees",
    "cbrt", "BlockGrad", "make_loss", "_contrib_round_ste", "_contrib_sign_ste", "_copy", "_mul_scalar",
    "_div_scalar", "clip")


def _unary_rule(name):
    op = get(name)

    def rule(attrs, inputs, out=None):
        x, = inputs
        s = _sp(x)
        return s.replace(data=op.kernel(attrs)(_values(s)))
    rule.__name__ = "_%s_storage" % name.strip("_")
    return rule


for _name in ZERO_PRESERVING:
    storage_rule(_name)(_unary_rule(_name))


@storage_rule("zeros_like")
def _zeros_like_rule(attrs, inputs, out=None):
    s = _sp(inputs[0])
    return st.empty(s.stype, s.shape, s.data.dtype, s.data.device)


# ----------------------------------------------------------------------------- binary element-wise
def _keys(s):
    """Linear positions of the stored entries (csr) or the stored row numbers (row_sparse)."""
    if s.stype == "csr":
        return st.csr_rows(s) * s.shape[1] + s.indices
    return s.indices


def _from_keys(like, keys, values):
    if like.stype == "csr":
        rows, cols = keys // like.shape[1], keys % like.shape[1]
        indptr = torch.zeros(like.shape[0] + 1, dtype=INDEX_DTYPE, device=keys.device)
        torch.cumsum(torch.bincount(rows, minlength=like.shape[0]), 0, out=indptr[1:])
        return CSR(like.shape, values, cols, indptr)
    return RowSparse(like.shape, values, keys)


def _union(a, b, fn):
    """``fn(a, b)`` of two storages of one type on the union of their stored entries."""
    ka, kb = _keys(a), _keys(b)
    keys = torch.unique(torch.cat([ka, kb]))
    va, vb = _values(a), _values(b)
    full_a = torch.zeros((keys.numel(),) + tuple(va.shape[1:]), dtype=va.dtype, device=va.device)
    full_b = torch.zeros((keys.numel(),) + tuple(vb.shape[1:]), dtype=vb.dtype, device=vb.device)
    full_a = full_a.index_copy(0, torch.searchsorted(keys, ka), va)
    full_b = full_b.index_copy(0, torch.searchsorted(keys, kb), vb)
    return _from_keys(a, keys, fn(full_a, full_b))


def _csr_binary(a, b, fn):
    """``fn(a, b)`` of two csr storages as MXNet's kernel gives it (scipy's general csr
    binop): in each row the columns only ``b`` stores, then those ``a`` stores, each in
    descending order, and the entries whose result is zero dropped."""
    ka, kb = _keys(a), _keys(b)
    keys, inv = torch.unique(torch.cat([ka, kb]), return_inverse=True)
    in_a = torch.zeros(keys.numel(), dtype=torch.bool, device=keys.device)
    in_a[inv[:ka.numel()]] = True
    va, vb = _values(a), _values(b)
    full_a = torch.zeros(keys.numel(), dtype=va.dtype, device=va.device).index_copy(0, inv[:ka.numel()], va)
    full_b = torch.zeros(keys.numel(), dtype=vb.dtype, device=vb.device).index_copy(0, inv[ka.numel():], vb)
    vals = fn(full_a, full_b)
    ncols = a.shape[1]
    rows, cols = keys // ncols, keys % ncols
    order = torch.argsort(rows * (2 * ncols) + in_a * ncols + (ncols - 1 - cols))
    keep = vals[order] != 0
    order = order[keep]
    indptr = torch.zeros(a.shape[0] + 1, dtype=INDEX_DTYPE, device=keys.device)
    torch.cumsum(torch.bincount(rows[order], minlength=a.shape[0]), 0, out=indptr[1:])
    return CSR(a.shape, vals[order], cols[order], indptr)


def _binary_union_rule(name):
    op = get(name)

    def rule(attrs, inputs, out=None):
        a, b = inputs
        sa, sb = _sp(a), _sp(b)
        if sa is None or sb is None or sa.stype != sb.stype or sa.shape != sb.shape:
            return None
        if sa.stype == "csr":
            return _csr_binary(sa, sb, op.kernel(attrs))
        return _union(sa, sb, op.kernel(attrs))
    rule.__name__ = "_%s_storage" % name.strip("_")
    return rule


for _name in ("elemwise_add", "elemwise_sub", "_grad_add", "_maximum", "_minimum"):
    storage_rule(_name)(_binary_union_rule(_name))


def _gather_dense(s, t):
    """The elements of dense ``t`` at the stored positions of ``s``."""
    if s.stype == "csr":
        return t[st.csr_rows(s), s.indices]
    return t[s.indices]


def _times_dense(s, t, fn):
    """``fn(s, t)`` on the stored entries of ``s``: a sparse times a dense array."""
    return s.replace(data=fn(_values(s), _gather_dense(s, t)))


@storage_rule("elemwise_mul")
def _elemwise_mul_rule(attrs, inputs, out=None):
    a, b = inputs
    sa, sb = _sp(a), _sp(b)
    if sa is not None and sb is not None:
        if sa.stype != sb.stype:
            return None
        return _csr_binary(sa, sb, torch.mul) if sa.stype == "csr" else _union(sa, sb, torch.mul)
    if sa is not None:
        return _times_dense(sa, _dense(b), torch.mul)
    return _times_dense(sb, _dense(a), lambda v, d: d * v)


def _broadcast_csr_rule(fn):
    def rule(attrs, inputs, out=None):
        a, b = inputs
        sa = _sp(a)
        if sa is None or sa.stype != "csr" or _sp(b) is not None:
            return None
        t = _dense(b)
        if t.dim() != 2:
            return None
        return _times_dense(sa, t.expand(sa.shape), fn)
    return rule


storage_rule("broadcast_mul")(_broadcast_csr_rule(torch.mul))
storage_rule("broadcast_div")(_broadcast_csr_rule(torch.div))


@storage_rule("add_n")
def _add_n_rule(attrs, inputs, out=None):
    ss = [_sp(x) for x in inputs]
    if any(s is None or s.stype != "row_sparse" for s in ss):
        return None
    res = ss[0]
    for s in ss[1:]:
        res = _union(res, s, torch.add)
    return res if len(ss) > 1 else res.replace(data=_values(res).clone())


# ----------------------------------------------------------------------------- dot
class _CsrDot(torch.autograd.Function):
    """``csr @ rhs`` (or ``csr.T @ rhs``) for a dense ``rhs``; the gradient of ``rhs`` is
    ``csr.T @ g`` (``csr @ g``), given as a torch sparse COO tensor on the rows the csr
    names when ``rhs`` is a variable whose gradient is row_sparse."""

    @staticmethod
    def forward(ctx, data, rhs, indices, indptr, shape, transpose):  # pylint: disable=arguments-differ
        ctx.save_for_backward(data, indices, indptr)
        ctx.shape, ctx.transpose = shape, transpose
        ctx.sparse_grad = getattr(rhs, "_row_sparse_grad", False)
        return _csr_mm(data, indices, indptr, shape, rhs, transpose)

    @staticmethod
    def backward(ctx, grad):  # pylint: disable=arguments-differ
        data, indices, indptr = ctx.saved_tensors
        gdata = None
        if ctx.needs_input_grad[0]:
            raise MXNetError("Operator dot: the gradient of a csr operand is not supported")
        if not ctx.needs_input_grad[1]:
            return None, None, None, None, None, None
        g = _csr_mm(data, indices, indptr, ctx.shape, grad, not ctx.transpose)
        if ctx.sparse_grad:
            rows = _named_rows(indptr, indices, ctx.shape, not ctx.transpose)
            g = torch.sparse_coo_tensor(rows.unsqueeze(0), g[rows], g.shape, check_invariants=False).coalesce()
        return gdata, g, None, None, None, None


def _named_rows(indptr, indices, shape, columns):
    """The sorted column numbers a csr stores values in (``columns``), or its non-empty
    rows: the rows of ``csr.T @ x`` (``csr @ x``) MXNet stores, zero or not (no sort)."""
    if columns:
        return (torch.bincount(indices, minlength=shape[1]) > 0).nonzero().reshape(-1)
    return (indptr[1:] > indptr[:-1]).nonzero().reshape(-1)


def _csr_mm(data, indices, indptr, shape, rhs, transpose):
    """``csr @ rhs`` (``csr.T @ rhs`` when ``transpose``) with torch's sparse kernels: the
    CSR one, and for the transpose the COO one on the swapped coordinates (no sort)."""
    vec = rhs.dim() == 1
    r = rhs.unsqueeze(1) if vec else rhs
    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        if not transpose:
            m = torch.sparse_csr_tensor(indptr, indices, data, shape, check_invariants=False)
        else:
            rows = st.csr_rows(CSR(shape, data, indices, indptr))
            m = torch.sparse_coo_tensor(torch.stack([indices, rows]), data, (shape[1], shape[0]),
                                        check_invariants=False)
        out = torch.sparse.mm(m, r)
    return out.squeeze(1) if vec else out


@storage_rule("dot")
def _dot_rule(attrs, inputs, out=None):
    lhs, rhs = inputs
    sl, sr = _sp(lhs), _sp(rhs)
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if sl is not None and sl.stype == "csr" and not tb and (sr is None or sr.stype == "row_sparse"):
        r = _dense(rhs) if sr is None else st.densify(sr)
        if r.dim() != 2:
            raise MXNetError("Operator dot: sparse dot only supports 2 dimensional rhs, got rhs of shape %s"
                             % (tuple(r.shape),))
        k = sl.shape[0] if ta else sl.shape[1]
        if r.shape[0] != k:
            raise MXNetError("Operator dot: shape mismatch, lhs %s X rhs %s (transpose_a=%s, transpose_b=%s)"
                             % (sl.shape, tuple(r.shape), ta, tb))
        out = _CsrDot.apply(_values(sl), r, sl.indices, sl.indptr, sl.shape, ta)
        if not ta:
            return out
        rows = _named_rows(sl.indptr, sl.indices, sl.shape, True)
        return RowSparse(tuple(out.shape), out.index_select(0, rows), rows)
    if sl is None and sr is not None and sr.stype == "csr" and not ta and not tb:
        a = _dense(lhs)
        # dense x csr = (csr.T x dense.T).T; MXNet gives it on csr storage
        out = _csr_mm(_values(sr), sr.indices, sr.indptr, sr.shape, a.t(), True).t()
        return st.to_csr(out.contiguous())
    return None


# ----------------------------------------------------------------------------- slice, concat, square_sum
@storage_rule("slice")
def _slice_rule(attrs, inputs, out=None):
    s = _sp(inputs[0])
    if s.stype != "csr" or any(x not in (None, 1) for x in attrs["step"]):
        return None
    begin, end = list(attrs["begin"]) + [None] * 2, list(attrs["end"]) + [None] * 2
    r0, r1, _ = slice(begin[0], end[0]).indices(s.shape[0])
    c0, c1, _ = slice(begin[1], end[1]).indices(s.shape[1])
    r1, c1 = max(r1, r0), max(c1, c0)
    lo, hi = int(s.indptr[r0]), int(s.indptr[r1])
    data, cols = _values(s)[lo:hi], s.indices[lo:hi]
    counts = s.indptr[r0 + 1:r1 + 1] - s.indptr[r0:r1]
    if (c0, c1) != (0, s.shape[1]):
        keep = (cols >= c0) & (cols < c1)
        rows = torch.repeat_interleave(torch.arange(r1 - r0, device=cols.device), counts)
        data, cols = data[keep], cols[keep] - c0
        counts = torch.bincount(rows[keep], minlength=r1 - r0)
    indptr = torch.zeros(r1 - r0 + 1, dtype=INDEX_DTYPE, device=cols.device)
    torch.cumsum(counts, 0, out=indptr[1:])
    return CSR((r1 - r0, c1 - c0), data, cols, indptr)


@storage_rule("Concat")
def _concat_rule(attrs, inputs, out=None):
    ss = [_sp(x) for x in inputs]
    if attrs["dim"] != 0 or any(s is None or s.stype != "csr" for s in ss):
        return None
    if len({s.shape[1] for s in ss}) != 1:
        return None
    offsets = torch.cumsum(torch.tensor([0] + [s.indices.numel() for s in ss[:-1]]), 0)
    indptr = torch.cat([ss[0].indptr[:1]] + [s.indptr[1:] + int(o) for s, o in zip(ss, offsets)])
    return CSR((sum(s.shape[0] for s in ss), ss[0].shape[1]), torch.cat([_values(s) for s in ss]),
               torch.cat([s.indices for s in ss]), indptr)


@storage_rule("_square_sum")
def _square_sum_rule(attrs, inputs, out=None):
    s = _sp(inputs[0])
    axis = attrs["axis"]
    if s.stype != "row_sparse" or len(s.shape) != 2 or tuple(axis or ()) not in ((1,), (-1,)) or \
            not attrs["keepdims"] or attrs["exclude"]:
        return None
    v = _values(s)
    return RowSparse((s.shape[0], 1), (v * v).sum(1, keepdim=True), s.indices)


# ----------------------------------------------------------------------------- lazy optimizer updates
def _lazy_update_rule(name, always_lazy=False):
    """The update of ``name`` for a row_sparse gradient with ``lazy_update`` (or
    ``always_lazy``, AdaGrad's only row_sparse kernel): the dense
    kernel runs on the rows the gradient stores (weight, gradient and states gathered),
    those rows of the states are written back, and the other rows of the weight and the
    states are left as they are (no weight decay, no momentum on them), as MXNet does.
    Without ``lazy_update`` the gradient is read densely (MXNet's standard update)."""
    op = get(name)

    def rule(attrs, inputs, out=None):
        weight, grad = inputs[0], inputs[1]
        sg = _sp(grad)
        if sg is None or sg.stype != "row_sparse" or not (always_lazy or attrs["lazy_update"]) or \
                any(_sp(x) is not None for x in (weight,) + tuple(inputs[2:])):
            return None
        rows = sg.indices
        w = weight._t
        states = [x._t for x in inputs[2:]]
        with torch.no_grad():
            gathered = [s.index_select(0, rows) for s in states]
            new_rows = op.kernel(attrs)(w.index_select(0, rows), _values(sg).to(w.dtype), *gathered)
            for s, g in zip(states, gathered):
                s.index_copy_(0, rows, g)
            if out is weight:  # the usual weight update (out=weight): only the rows are written
                w.index_copy_(0, rows, new_rows)
                return weight
            res = w.clone()
            res.index_copy_(0, rows, new_rows)
        return res
    rule.__name__ = "_%s_lazy" % name
    return rule


# (ftrl_update has no such rule: on a dense weight MXNet reads a row_sparse gradient densely)
for _name in ("sgd_update", "sgd_mom_update", "adam_update"):
    storage_rule(_name)(_lazy_update_rule(_name))


_adagrad_rows = _lazy_update_rule("_sparse_adagrad_update", always_lazy=True)


@storage_rule("_sparse_adagrad_update")
def _sparse_adagrad_rule(attrs, inputs, out=None):
    """MXNet 1.9.1's AdaGrad kernels for a row_sparse gradient: dense weight and history
    (GluonNLP's word-embedding training: Embedding(sparse_grad=True) with AdaGrad) or all
    three row_sparse, with ``wd = 0`` only, written in place (``out=weight``); only the rows
    the gradient stores change. Other storage types or a weight decay are refused, as there."""
    stypes = tuple(_stype(x) for x in inputs)
    if stypes[1] != "row_sparse" or attrs["wd"] != 0 or \
            stypes not in (("default", "row_sparse", "default"), ("row_sparse",) * 3):
        raise MXNetError("Operator not implemented: operator = _sparse_adagrad_update, input storage types = "
                         "[%s], wd = %s (MXNet 1.9.1 has kernels for [default, row_sparse, default] and "
                         "[row_sparse, row_sparse, row_sparse] with wd = 0)" % (", ".join(stypes), attrs["wd"]))
    if out is not inputs[0]:
        raise MXNetError("Operator _sparse_adagrad_update: kWriteInplace is expected for sparse adagrad_update "
                         "(pass out=weight)")
    if stypes[0] == "row_sparse":
        raise MXNetError("Operator _sparse_adagrad_update: a row_sparse weight and history are not implemented "
                         "in neogluon yet (a dense weight and history with a row_sparse gradient are)")
    return _adagrad_rows(attrs, inputs, out)


# ----------------------------------------------------------------------------- SparseEmbedding, group AdaGrad
@register("_contrib_SparseEmbedding", inputs=("data", "weight"),
          params=dict(input_dim=Int(), output_dim=Int(), dtype=Dtype("float32"), sparse_grad=Bool(False)))
def sparse_embedding(data, weight, *, input_dim, output_dim, dtype, sparse_grad):
    """``Embedding`` whose weight gradient is always row_sparse (deprecated in MXNet 1.x
    for ``Embedding(sparse_grad=True)``): torch's sparse gradient, rows of the indices looked up."""
    if tuple(weight.shape) != (input_dim, output_dim):
        raise MXNetError("Operator _contrib_SparseEmbedding: weight shape %s does not match (input_dim, output_dim)"
                         "=(%d, %d)" % (tuple(weight.shape), input_dim, output_dim))
    return torch.nn.functional.embedding(data.long().clamp(0, input_dim - 1), weight, sparse=weight.is_leaf)


@register("_contrib_group_adagrad_update", inputs=("weight", "grad", "history"),
          params=dict(lr=Float(), rescale_grad=Float(1.0), clip_gradient=Float(-1.0), epsilon=Float(1e-5)))
def group_adagrad_update(weight, grad, history, *, lr, rescale_grad, clip_gradient, epsilon):
    """Group AdaGrad on the rows of a row_sparse gradient (its storage rule); MXNet 1.9.1
    has no kernel for a dense gradient, and neither has neogluon."""
    raise MXNetError("Operator _contrib_group_adagrad_update: the gradient must be row_sparse (MXNet 1.9.1 has no "
                     "dense kernel)")


@storage_rule("_contrib_group_adagrad_update")
def _group_adagrad_rule(attrs, inputs, out=None):
    """``history[r] += mean(g[r]**2)``, ``weight[r] -= lr * g[r] / sqrt(history[r] + epsilon)``
    on the rows ``r`` the gradient stores (``g`` rescaled and clipped), as MXNet."""
    weight, grad, history = inputs
    sg = _sp(grad)
    if sg is None or sg.stype != "row_sparse" or _sp(weight) is not None or _sp(history) is not None:
        raise MXNetError("Operator _contrib_group_adagrad_update: weight and history must be dense and grad "
                         "row_sparse, got %s, %s and %s" % (_stype(weight), _stype(grad), _stype(history)))
    rows, w, h = sg.indices, weight._t, history._t
    with torch.no_grad():
        g = _values(sg).to(w.dtype) * attrs["rescale_grad"]
        if attrs["clip_gradient"] > 0:
            g = g.clamp(-attrs["clip_gradient"], attrs["clip_gradient"])
        hist = h.index_select(0, rows) + (g * g).reshape(g.shape[0], -1).mean(1).reshape((-1,) + (1,) * (h.dim() - 1))
        h.index_copy_(0, rows, hist)
        new = w.index_select(0, rows) - attrs["lr"] * g / (hist + attrs["epsilon"]).sqrt()
        target = weight if out is weight else None
        res = w if target is not None else w.clone()
        res.index_copy_(0, rows, new)
    return target if target is not None else res


# ----------------------------------------------------------------------------- sum, mean
def _reduce_rule(mean):
    """``sum``/``mean`` of a csr or row_sparse array over all axes, axis 0 or axis 1 (a dense
    result, as MXNet's), computed from the stored values without densifying; other axes and
    ``exclude`` take the dense kernel."""
    def rule(attrs, inputs, out=None):
        s = _sp(inputs[0])
        axis, keep = attrs["axis"], attrs["keepdims"]
        if attrs["exclude"] or len(s.shape) != 2 or not s.data.is_floating_point():
            return None
        axis = None if axis in (None, ()) else tuple(a % 2 for a in axis)
        if axis not in (None, (0,), (1,)):
            return None
        v = _values(s)
        if s.stype == "csr":
            rows, cols = st.csr_rows(s), s.indices
        else:
            rows, cols = None, None
        if axis is None:
            res = v.sum().reshape((1, 1) if keep else (1,))
            count = s.shape[0] * s.shape[1]
        elif axis == (0,):
            res = torch.zeros(s.shape[1], dtype=v.dtype, device=v.device)
            res = res.index_add(0, cols, v) if rows is not None else v.sum(0) if v.shape[0] else res
            count = s.shape[0]
        else:
            res = torch.zeros(s.shape[0], dtype=v.dtype, device=v.device)
            res = res.index_add(0, rows if rows is not None else s.indices, v if rows is not None else v.sum(1))
            count = s.shape[1]
        if keep and axis is not None:
            res = res.unsqueeze(axis[0])
        return res / count if mean else res
    return rule


storage_rule("sum")(_reduce_rule(False))
storage_rule("mean")(_reduce_rule(True))


@storage_rule("norm")
def _norm_rule(attrs, inputs, out=None):
    """The L2 norm of every element of a csr or row_sparse array (MXNet's sparse ``norm``:
    ``ord=2`` over all axes, a dense (1,) result) from the stored values; other forms take
    the dense kernel."""
    s = _sp(inputs[0])
    if attrs["ord"] != 2 or attrs["axis"] not in (None, ()) or attrs["out_dtype"] is not None or \
            not s.data.is_floating_point():
        return None
    v = _values(s)
    res = v.reshape(-1).norm().reshape((1,) * len(s.shape) if attrs["keepdims"] else (1,))
    return res
