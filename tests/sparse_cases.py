"""Sparse-storage cases, written once and run twice: by ``tools/make_extra_fixtures_sparse.py``
on MXNet 1.9.1 (which records what each returns) and by ``tests/test_sparse.py`` on
neogluon (which compares). A case is a function of the ``mx`` module and numpy; it returns
a dict of NDArrays (their storage type, dtype, dense value and stored components are
compared), numbers, strings or bytes. A case that raises is recorded as its exception type.
This module imports neither MXNet nor neogluon.
"""
import numpy as np

CASES = {}
OPS = {}  # case name -> the operators it runs that the coverage table looks for (op_coverage.tsv)


def case(fn=None, *, ops=()):
    def deco(f):
        CASES[f.__name__] = f
        OPS[f.__name__] = tuple(ops)
        return f
    return deco(fn) if fn is not None else deco


D = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0], [0, -4, 0, 5], [0, 0, 6, 0]], "float32")
R = np.array([[0, 0, 0], [1, 2, 3], [0, 0, 0], [4, 0, 6], [0, 0, 0], [0, 7, 0]], "float32")


def rnd(seed, *shape):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype("float32")


def sprand(seed, shape, density):
    rs = np.random.RandomState(seed)
    a = rs.uniform(-1, 1, shape).astype("float32")
    return a * (rs.uniform(0, 1, shape) < density)


# ----------------------------------------------------------------------------- constructors
@case
def csr_from_dense(mx, np):
    return {"list": mx.nd.sparse.csr_matrix(D.tolist()), "numpy": mx.nd.sparse.csr_matrix(D),
            "nd": mx.nd.sparse.csr_matrix(mx.nd.array(D)), "f64": mx.nd.sparse.csr_matrix(D, dtype="float64"),
            "i32": mx.nd.sparse.csr_matrix(D.astype("int32"))}


@case
def csr_from_definition(mx, np):
    data, indices, indptr = [1, 2, 3, -4, 5, 6], [1, 0, 2, 1, 3, 2], [0, 1, 3, 3, 5, 6]
    return {"shaped": mx.nd.sparse.csr_matrix((data, indices, indptr), shape=(5, 4)),
            "inferred": mx.nd.sparse.csr_matrix((data, indices, indptr)),
            "nd_parts": mx.nd.sparse.csr_matrix((mx.nd.array(data), mx.nd.array(indices, dtype="int64"),
                                                 mx.nd.array(indptr, dtype="int64")), shape=(5, 4)),
            "np_f64": mx.nd.sparse.csr_matrix((np.array(data, "float64"), indices, indptr), shape=(5, 6))}


@case
def csr_from_coo(mx, np):
    return {"coo": mx.nd.sparse.csr_matrix(([3.0, 1.0, 2.0], ([2, 0, 0], [1, 3, 0])), shape=(3, 4))}


@case
def csr_from_shape_and_copy(mx, np):
    a = mx.nd.sparse.csr_matrix(D)
    return {"empty": mx.nd.sparse.csr_matrix((3, 4)), "empty_f16": mx.nd.sparse.csr_matrix((2, 2), dtype="float16"),
            "copy": mx.nd.sparse.csr_matrix(a), "array": mx.nd.array(a), "sparse_array": mx.nd.sparse.array(a),
            "array_f64": mx.nd.sparse.array(a, dtype="float64")}


@case
def csr_from_scipy(mx, np):
    import scipy.sparse as spsp
    m = spsp.csr_matrix(D)
    unsorted = spsp.csr_matrix((np.array([1.0, 2.0, 3.0], "float32"), [2, 0, 0], [0, 2, 3]), shape=(2, 3))
    return {"scipy": mx.nd.sparse.csr_matrix(m), "array": mx.nd.sparse.array(m), "unsorted_dup": mx.nd.array(unsorted)}


@case
def rsp_constructors(mx, np):
    a = mx.nd.sparse.row_sparse_array(R)
    return {"dense": a, "nd": mx.nd.sparse.row_sparse_array(mx.nd.array(R)),
            "def": mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 4]), shape=(6, 2)),
            "def_inferred": mx.nd.sparse.row_sparse_array(([[1.0, 2], [3, 4]], [0, 2])),
            "def_3d": mx.nd.sparse.row_sparse_array((rnd(1, 2, 2, 3), [0, 3]), shape=(4, 2, 3)),
            "shape": mx.nd.sparse.row_sparse_array((4, 3)), "shape3": mx.nd.sparse.row_sparse_array((2, 3, 4)),
            "copy": mx.nd.sparse.row_sparse_array(a), "f64": mx.nd.sparse.row_sparse_array(R, dtype="float64")}


@case
def zeros_and_empty(mx, np):
    return {"csr": mx.nd.sparse.zeros("csr", (3, 4)), "rsp": mx.nd.sparse.zeros("row_sparse", (3, 4)),
            "default": mx.nd.sparse.zeros("default", (2, 2)), "nd_csr": mx.nd.zeros((2, 5), stype="csr"),
            "nd_rsp": mx.nd.zeros((2, 5), stype="row_sparse", dtype="float64"),
            "empty_rsp": mx.nd.sparse.empty("row_sparse", (3, 2)), "empty_csr": mx.nd.empty((3, 2), stype="csr"),
            "rsp3": mx.nd.sparse.zeros("row_sparse", (2, 3, 4))}


@case
def constructor_errors_csr_of_rsp(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(mx.nd.sparse.row_sparse_array(R))}


@case
def constructor_errors_rsp_of_csr(mx, np):
    return {"x": mx.nd.sparse.row_sparse_array(mx.nd.sparse.csr_matrix(D))}


@case
def constructor_errors_shape_mismatch(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D, shape=(4, 4))}


@case
def constructor_errors_csr_bad_tuple(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(([1], [0], [0, 1], [2]))}


# ----------------------------------------------------------------------------- properties, conversions
@case
def properties(mx, np):
    c, r = mx.nd.sparse.csr_matrix(D), mx.nd.sparse.row_sparse_array(R)
    return {"c_data": c.data, "c_indices": c.indices, "c_indptr": c.indptr, "r_data": r.data,
            "r_indices": r.indices, "c_stype": c.stype, "r_stype": r.stype, "c_shape": str(c.shape),
            "c_dtype": str(np.dtype(c.dtype)), "c_repr": repr(c), "r_repr": repr(r), "c_ndim": c.ndim,
            "c_aux": str([np.dtype(t).name for t in c._aux_types]), "r_ctx": str(r.context),
            "dense_stype": mx.nd.ones((2,)).stype}


@case
def size_raises(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D).size}


@case
def reshape_raises(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D).reshape((4, 5))}


@case(ops=("cast_storage", "_sparse_cast_storage"))
def tostype_all(mx, np):
    x = mx.nd.array(D)
    c, r = x.tostype("csr"), x.tostype("row_sparse")
    return {"d2c": c, "d2r": r, "d2d": x.tostype("default"), "c2d": c.tostype("default"), "r2d": r.tostype("default"),
            "c2c": c.tostype("csr"), "r2r": r.tostype("row_sparse"),
            "cast_c": mx.nd.cast_storage(x, stype="csr"), "cast_r": mx.nd.sparse.cast_storage(x, stype="row_sparse"),
            "cast_back": mx.nd.cast_storage(c, stype="default"),
            "nan": mx.nd.array([[0, np.nan], [0, 0]]).tostype("csr"),
            "r3": mx.nd.array(rnd(2, 3, 2, 2) * (np.arange(3) != 1)[:, None, None]).tostype("row_sparse"),
            "zeros": mx.nd.zeros((3, 3)).tostype("csr"), "zeros_r": mx.nd.zeros((3, 3)).tostype("row_sparse")}


@case
def tostype_csr_to_rsp_raises(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D).tostype("row_sparse")}


@case
def tostype_rsp_to_csr_raises(mx, np):
    return {"x": mx.nd.sparse.row_sparse_array(R).tostype("csr")}


@case
def tostype_1d_csr_raises(mx, np):
    return {"x": mx.nd.array([1, 0, 2]).tostype("csr").asnumpy()}


@case
def astype_copy_copyto(mx, np):
    c, r = mx.nd.sparse.csr_matrix(D), mx.nd.sparse.row_sparse_array(R)
    dense_target = mx.nd.zeros(D.shape)
    c.copyto(dense_target)
    csr_target = mx.nd.sparse.zeros("csr", D.shape, dtype="float64")
    c.copyto(csr_target)
    rsp_target = mx.nd.sparse.zeros("row_sparse", R.shape)
    mx.nd.array(R * 2).copyto(rsp_target)
    csr_from_dense = mx.nd.sparse.zeros("csr", D.shape)
    mx.nd.array(D * 3).copyto(csr_from_dense)
    return {"c_f64": c.astype("float64"), "r_i32": r.astype("int32"), "same": c.astype("float32", copy=False),
            "copy": r.copy(), "ctx": c.copyto(mx.cpu(0)), "in_ctx": r.as_in_context(mx.cpu(0)),
            "dense_target": dense_target, "csr_target": csr_target, "rsp_target": rsp_target,
            "csr_from_dense": csr_from_dense}


@case
def copyto_wrong_stype_raises(mx, np):
    t = mx.nd.sparse.zeros("row_sparse", D.shape)
    return {"x": mx.nd.sparse.csr_matrix(D).copyto(t)}


@case
def setitem(mx, np):
    c, r = mx.nd.sparse.zeros("csr", D.shape), mx.nd.sparse.zeros("row_sparse", R.shape)
    c[:] = mx.nd.sparse.csr_matrix(D)
    r[:] = mx.nd.array(R)
    r2 = mx.nd.sparse.zeros("row_sparse", (3, 2))
    r2[:] = 2.5
    c2 = mx.nd.sparse.zeros("csr", (5, 4))
    c2[:] = mx.nd.array(D * 2)
    return {"c": c, "r": r, "r2": r2, "c2": c2}


@case
def setitem_csr_scalar_raises(mx, np):
    c = mx.nd.sparse.zeros("csr", (2, 2))
    c[:] = 1.0
    return {"c": c}


@case
def csr_row_slicing(mx, np):
    c = mx.nd.sparse.csr_matrix(D)
    return {"i1": c[1], "last": c[-1], "i3": c[3], "s13": c[1:3], "s2": c[2:], "all": c[:], "to3": c[:3],
            "empty_rows": c[2:3]}


@case
def csr_numpy_int_index_raises(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D)[np.int64(4)]}


@case
def csr_slice_step_raises(mx, np):
    return {"x": mx.nd.sparse.csr_matrix(D)[0:4:2]}


@case
def rsp_getitem(mx, np):
    r = mx.nd.sparse.row_sparse_array(R)
    return {"all": r[:]}


@case(ops=("_sparse_retain",))
def retain(mx, np):
    r = mx.nd.sparse.row_sparse_array(R)
    return {"fn": mx.nd.sparse.retain(r, mx.nd.array([1, 2, 5])), "kw": mx.nd.sparse.retain(r, indices=mx.nd.array([0, 3])),
            "none": mx.nd.sparse.retain(r, mx.nd.array([0, 2])),
            "int64_idx": mx.nd.sparse.retain(r, mx.nd.array([5, 1], dtype="int64"))}


@case
def asscipy(mx, np):
    m = mx.nd.sparse.csr_matrix(D).asscipy()
    return {"data": mx.nd.array(m.data), "indices": mx.nd.array(m.indices, dtype="int64"),
            "indptr": mx.nd.array(m.indptr, dtype="int64"), "shape": str(m.shape), "dtype": str(m.dtype),
            "format": m.format}


@case
def asnumpy_and_wait(mx, np):
    c = mx.nd.sparse.csr_matrix(D)
    c.wait_to_read()
    return {"dense": mx.nd.array(c.asnumpy()), "r": mx.nd.array(mx.nd.sparse.row_sparse_array(R).asnumpy())}


# ----------------------------------------------------------------------------- operators
def _inputs(mx):
    c = mx.nd.sparse.csr_matrix(D)
    r = mx.nd.sparse.row_sparse_array(D)
    return c, r, mx.nd.array(rnd(3, *D.shape) + 2)


UNARY = ("abs", "sign", "round", "rint", "ceil", "floor", "trunc", "fix", "square", "sqrt", "sin", "tan",
         "arcsin", "arctan", "sinh", "tanh", "arcsinh", "arctanh", "expm1", "log1p", "relu", "negative",
         "radians", "degrees", "cbrt", "exp", "cos", "sigmoid", "zeros_like", "stop_gradient", "make_loss",
         "ones_like", "norm")


@case
def unary_operators(mx, np):
    c = mx.nd.sparse.csr_matrix(np.abs(D) / 8)
    r = mx.nd.sparse.row_sparse_array(np.abs(R) / 8)
    out = {}
    for name in UNARY:
        out["csr:" + name] = getattr(mx.nd, name)(c)
        out["rsp:" + name] = getattr(mx.nd, name)(r)
    return out


@case
def scalar_operators(mx, np):
    c, r, _ = _inputs(mx)
    return {"c*2": c * 2, "r*2": r * 2, "c/4": c / 4, "r/4": r / 4, "c+1": c + 1, "r-1": r - 1,
            "clip_c": mx.nd.clip(c, -1, 2.5), "clip_r": mx.nd.sparse.clip(r, a_min=-3, a_max=1),
            "2*c": 2 * c, "c**2": c ** 2, "neg": -c}


@case
def binary_operators(mx, np):
    c, r, d = _inputs(mx)
    c2 = mx.nd.sparse.csr_matrix(np.roll(D, 1, axis=1) * 2)
    r2 = mx.nd.sparse.row_sparse_array(np.roll(D, 2, axis=0) * 3)
    arrays = {"csr": c, "csr2": c2, "rsp": r, "rsp2": r2, "dns": d}
    out = {}
    for name in ("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"):
        for a, b in (("csr", "csr2"), ("rsp", "rsp2"), ("csr", "dns"), ("dns", "csr"), ("rsp", "dns"),
                     ("dns", "rsp"), ("csr", "rsp"), ("csr", "csr")):
            out["%s:%s:%s" % (name, a, b)] = getattr(mx.nd.sparse, name)(arrays[a], arrays[b])
    out["c+c2"], out["c-c"], out["r*r2"] = c + c2, c - c, r * r2
    out["add"], out["sub"] = mx.nd.sparse.add(c, c2), mx.nd.sparse.subtract(r, d)
    out["mul"], out["div"] = mx.nd.sparse.multiply(c, d), mx.nd.sparse.divide(r, d)
    row, col = mx.nd.array(rnd(4, 5, 1) + 2), mx.nd.array(rnd(5, 1, 4) + 2)
    for name in ("broadcast_mul", "broadcast_div", "broadcast_add", "broadcast_sub"):
        out[name + ":row"] = getattr(mx.nd.sparse, name)(c, row)
        out[name + ":col"] = getattr(mx.nd, name)(c, col)
        out[name + ":rsp"] = getattr(mx.nd, name)(r, row)
    out["bmul_full"] = mx.nd.broadcast_mul(c, d)
    out["mul_bcast"] = mx.nd.sparse.multiply(c, row)
    return out


@case
def dot_operators(mx, np):
    c, _, _ = _inputs(mx)
    w, w2 = mx.nd.array(rnd(6, 4, 3)), mx.nd.array(rnd(7, 5, 3))
    wr = mx.nd.array(rnd(6, 4, 3) * np.array([1, 0, 1, 0])[:, None]).tostype("row_sparse")
    big = mx.nd.sparse.csr_matrix(sprand(8, (30, 20), 0.1))
    return {"csr.dns": mx.nd.sparse.dot(c, w), "csrT.dns": mx.nd.sparse.dot(c, w2, transpose_a=True),
            "csr.rsp": mx.nd.dot(c, wr), "csrT.rsp": mx.nd.dot(c, mx.nd.array(rnd(7, 5, 3)).tostype("row_sparse"),
                                                              transpose_a=True),
            "dns.csr": mx.nd.dot(mx.nd.array(rnd(9, 2, 5)), c), "csr.dnsT": mx.nd.dot(c, mx.nd.array(rnd(6, 3, 4)),
                                                                                   transpose_b=True),
            "big": mx.nd.dot(big, mx.nd.array(rnd(10, 20, 8))),
            "bigT": mx.nd.dot(big, mx.nd.array(rnd(11, 30, 8)), transpose_a=True),
            "rsp.dns": mx.nd.dot(wr, mx.nd.array(rnd(13, 3, 2))),
            "csr.csr": mx.nd.dot(c, mx.nd.sparse.csr_matrix(np.abs(rnd(14, 4, 3)) * (rnd(15, 4, 3) > 0)))}


@case
def dot_csr_vector_raises(mx, np):
    return {"x": mx.nd.dot(mx.nd.sparse.csr_matrix(D), mx.nd.array(rnd(12, 4)))}


@case
def dot_shape_mismatch_raises(mx, np):
    return {"x": mx.nd.dot(mx.nd.sparse.csr_matrix(D), mx.nd.ones((5, 2))).asnumpy()}


@case(ops=("_square_sum",))
def reductions(mx, np):
    c, r, _ = _inputs(mx)
    out = {}
    for name in ("sum", "mean"):
        for ax in (None, 0, 1):
            kw = {} if ax is None else {"axis": ax}
            out["%s:%s:csr" % (name, ax)] = getattr(mx.nd.sparse, name)(c, **kw)
            out["%s:%s:rsp" % (name, ax)] = getattr(mx.nd, name)(r, **kw)
        out[name + ":keep"] = getattr(mx.nd, name)(c, axis=1, keepdims=True)
    out["sqsum_keep"] = mx.nd._internal._square_sum(r, axis=1, keepdims=True)
    out["sqsum0"] = mx.nd._internal._square_sum(r, axis=0)
    out["sqsum1"] = mx.nd._internal._square_sum(r, axis=1)
    out["norm"] = mx.nd.norm(c)
    return out


@case
def add_n_where_concat_slice(mx, np):
    c, r, d = _inputs(mx)
    r2 = mx.nd.sparse.row_sparse_array(np.roll(D, 2, axis=0) * 3)
    c2 = mx.nd.sparse.csr_matrix(np.roll(D, 1, axis=1) * 2)
    return {"add_n_rsp": mx.nd.sparse.add_n(r, r2, r), "add_n_one": mx.nd.add_n(r),
            "add_n_mixed": mx.nd.add_n(r, d), "add_n_csr": mx.nd.add_n(c, c2),
            "ews": mx.nd.sparse.ElementWiseSum(r, r2),
            "where": mx.nd.sparse.where(c, d, d * 0 - 1), "concat0": mx.nd.sparse.concat(c, c2, dim=0),
            "concat1": mx.nd.concat(c, c2, dim=1), "concat_rsp": mx.nd.concat(r, r2, dim=0),
            "slice_rows": mx.nd.sparse.slice(c, begin=(1,), end=(4,)),
            "slice_cols": mx.nd.slice(c, begin=(1, 1), end=(4, 3)),
            "slice_neg": mx.nd.slice(c, begin=(-3, None), end=(None, -1)),
            "slice_rsp": mx.nd.slice(r, begin=(1,), end=(4,))}


@case(ops=("_contrib_getnnz",))
def getnnz(mx, np):
    c, _, _ = _inputs(mx)
    return {"all": mx.nd.contrib.getnnz(c), "rows": mx.nd.contrib.getnnz(c, axis=1),
            "empty": mx.nd.contrib.getnnz(mx.nd.sparse.zeros("csr", (3, 2)))}


@case
def getnnz_axis0_raises(mx, np):
    c, _, _ = _inputs(mx)
    return {"x": mx.nd.contrib.getnnz(c, axis=0).asnumpy()}


# ----------------------------------------------------------------------------- gradients
@case
def grad_dot_row_sparse(mx, np):
    x = mx.nd.sparse.csr_matrix(sprand(20, (6, 8), 0.25))
    w = mx.nd.array(rnd(21, 8, 3))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.sparse.dot(x, w)
        loss = (y * y).sum()
    loss.backward()
    wd = mx.nd.array(rnd(21, 8, 3))
    wd.attach_grad()
    with mx.autograd.record():
        y2 = mx.nd.dot(x, wd)
    y2.backward(mx.nd.array(rnd(22, 6, 3)))
    return {"y": y, "grad": w.grad, "dense_grad": wd.grad}


@case
def grad_embedding_sparse(mx, np):
    w = mx.nd.array(rnd(23, 7, 3))
    w.attach_grad(stype="row_sparse")
    idx = mx.nd.array([[1, 4], [4, 0]])
    with mx.autograd.record():
        y = mx.nd.Embedding(idx, w, input_dim=7, output_dim=3, sparse_grad=True)
    y.backward(mx.nd.array(rnd(24, 2, 2, 3)))
    return {"y": y, "grad": w.grad}


@case
def grad_attach_row_sparse_then_dense_op(mx, np):
    w = mx.nd.array(rnd(25, 4, 3))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = (w * 2).sum()
    y.backward()
    return {"grad": w.grad}


@case
def gluon_embedding_sparse_grad(mx, np):
    emb = mx.gluon.nn.Embedding(10, 4, sparse_grad=True)
    emb.initialize(mx.init.Constant(0.5))
    with mx.autograd.record():
        out = emb(mx.nd.array([[2, 5, 2], [9, 0, 5]]))
        loss = (out * mx.nd.array(rnd(26, 2, 3, 4))).sum()
    loss.backward()
    return {"grad": emb.weight.grad(), "grad_stype": emb.weight.grad().stype, "data_stype": emb.weight.data().stype}


# ----------------------------------------------------------------------------- optimizers
def _lazy_step(mx, opt_name, lazy, **kw):
    w = mx.nd.array(rnd(30, 6, 3))
    opt = mx.optimizer.create(opt_name, learning_rate=0.1, wd=0.01, lazy_update=lazy, **kw)
    state = opt.create_state(0, w)
    out = {}
    for step, rows in enumerate(([1, 4], [0, 4], [2])):
        g = mx.nd.sparse.row_sparse_array((rnd(31 + step, len(rows), 3), rows), shape=(6, 3))
        opt.update(0, w, g, state)
        out["w%d" % step] = w.copy()
    return out


@case
def sgd_lazy(mx, np):
    return _lazy_step(mx, "sgd", True, momentum=0.9)


@case
def sgd_not_lazy(mx, np):
    return _lazy_step(mx, "sgd", False, momentum=0.9)


@case
def sgd_lazy_no_momentum(mx, np):
    return _lazy_step(mx, "sgd", True)


@case
def adam_lazy(mx, np):
    return _lazy_step(mx, "adam", True)


@case
def adam_not_lazy(mx, np):
    return _lazy_step(mx, "adam", False)


def _sparse_step(mx, opt_name, **kw):
    """An optimizer whose row_sparse kernel is always lazy (AdaGrad, FTRL), three steps."""
    w = mx.nd.array(rnd(30, 6, 3))
    opt = mx.optimizer.create(opt_name, learning_rate=0.1, wd=0.01, **kw)
    state = opt.create_state(0, w)
    out = {}
    for step, rows in enumerate(([1, 4], [0, 4], [2])):
        g = mx.nd.sparse.row_sparse_array((rnd(31 + step, len(rows), 3), rows), shape=(6, 3))
        opt.update(0, w, g, state)
        out["w%d" % step] = w.copy()
    return out


@case
def adagrad_row_sparse(mx, np):
    return _sparse_step(mx, "adagrad", clip_gradient=0.5)


@case
def ftrl_row_sparse(mx, np):
    return _sparse_step(mx, "ftrl", lamda1=0.01)


# ----------------------------------------------------------------------------- files
@case
def save_bytes(mx, np):
    import os
    import tempfile
    arrays = {"csr_tostype": mx.nd.array(D).tostype("csr"), "csr_def": mx.nd.sparse.csr_matrix(
        ([1.0, 2.0], [0, 2], [0, 1, 2]), shape=(2, 3)), "rsp": mx.nd.array(R).tostype("row_sparse"),
        "rsp_def": mx.nd.sparse.row_sparse_array(([[1.0, 2.0]], [1]), shape=(3, 2)),
        "csr_zeros": mx.nd.sparse.zeros("csr", (3, 3)), "rsp_zeros": mx.nd.sparse.zeros("row_sparse", (3, 3)),
        "csr_f64": mx.nd.sparse.csr_matrix(D, dtype="float64"), "csr_slice": mx.nd.sparse.csr_matrix(D)[1:3],
        "rsp_retain": mx.nd.sparse.retain(mx.nd.array(R).tostype("row_sparse"), mx.nd.array([1]))}
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, arr in arrays.items():
            path = os.path.join(tmp, name)
            mx.nd.save(path, {name: arr})
            with open(path, "rb") as f:
                out[name] = f.read()
        path = os.path.join(tmp, "all")
        mx.nd.save(path, [arrays["csr_def"], mx.nd.ones((2,)), arrays["rsp"]])
        with open(path, "rb") as f:
            out["list"] = f.read()
    return out


# ----------------------------------------------------------------------------- training
def _csr_batches(mx, n_batches, batch, features, seed):
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(n_batches):
        x = rs.uniform(0, 1, (batch, features)).astype("float32") * (rs.uniform(0, 1, (batch, features)) < 0.2)
        y = rs.uniform(-1, 1, (batch, 1)).astype("float32")
        out.append((mx.nd.sparse.csr_matrix(x), mx.nd.array(y)))
    return out


def _train_linear_csr(mx, optimizer, params):
    """A linear model on CSR input, ``dot(x, w) + b`` with a row_sparse gradient for ``w``,
    trained by a Gluon Trainer: the weights after 4 steps."""
    class Linear(mx.gluon.Block):
        def __init__(self, features, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.w = self.params.get("w", shape=(features, 1), grad_stype="row_sparse",
                                         init=mx.init.Constant(0.1))
                self.b = self.params.get("b", shape=(1,), init=mx.init.Zero())

        def forward(self, x):
            return mx.nd.sparse.dot(x, self.w.data()) + self.b.data()

    net = Linear(12, prefix="linear_")
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, params, kvstore=None)
    loss_fn = mx.gluon.loss.L2Loss()
    out = {}
    for step, (x, y) in enumerate(_csr_batches(mx, 4, 5, 12, 40)):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(5)
        out["w%d" % step] = net.w.data().copy()
    out["b"], out["grad_stype"] = net.b.data(), net.w.grad().stype
    return out


@case
def train_linear_csr_lazy_adam(mx, np):
    return _train_linear_csr(mx, "adam", {"learning_rate": 0.05, "lazy_update": True})


@case
def train_linear_csr_lazy_sgd(mx, np):
    return _train_linear_csr(mx, "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})


@case
def train_embedding_sparse_grad(mx, np):
    """Embedding(sparse_grad=True) + Dense trained with lazy Adam from a fixed start."""
    net = mx.gluon.nn.Sequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Embedding(20, 4, sparse_grad=True), mx.gluon.nn.Dense(1, flatten=True))
    net.initialize(mx.init.Uniform(0.5))
    net(mx.nd.array([[0, 1, 2]]))
    rs = np.random.RandomState(41)
    for p in net.collect_params().values():  # the same start on both sides
        p.set_data(mx.nd.array(rs.uniform(-0.5, 0.5, p.shape)))
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05, "lazy_update": True},
                               kvstore=None)
    out = {}
    for step in range(4):
        idx = mx.nd.array(rs.randint(0, 20, (6, 3)))
        y = mx.nd.array(rs.uniform(-1, 1, (6, 1)))
        with mx.autograd.record():
            loss = mx.gluon.loss.L2Loss()(net(idx), y)
        loss.backward()
        trainer.step(6)
        out["emb%d" % step] = net[0].weight.data().copy()
    out["dense_w"], out["emb_grad"] = net[1].weight.data(), net[0].weight.grad()
    return out


@case
def kvstore_row_sparse_pull_of_dense_raises(mx, np):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.array(R))
    out = mx.nd.sparse.zeros("row_sparse", R.shape)
    kv.row_sparse_pull("w", out=out, row_ids=mx.nd.array([3, 1, 3]))
    return {"pulled": out}


@case
def kvstore_row_sparse_pull(mx, np):
    kv = mx.kv.create("local")
    kv.init("w", mx.nd.array(D).tostype("row_sparse"))
    out = mx.nd.sparse.zeros("row_sparse", D.shape)
    kv.row_sparse_pull("w", out=out, row_ids=mx.nd.array([3, 1, 3]))
    kv.init("e", mx.nd.array(R).tostype("row_sparse"))
    out2 = mx.nd.sparse.zeros("row_sparse", R.shape)
    kv.row_sparse_pull("e", out=out2, row_ids=mx.nd.array([0, 5]))
    kv.push("e", mx.nd.sparse.row_sparse_array(([[1.0, 1, 1]], [2]), shape=R.shape))
    out3 = mx.nd.sparse.zeros("row_sparse", R.shape)
    kv.row_sparse_pull("e", out=out3, row_ids=mx.nd.array([2, 3]))
    return {"pulled": out, "pulled_rsp": out2, "after_push": out3}


# ----------------------------------------------------------------------------- contrib operators on sparse storage
G = np.array([[1, 0, 0, 2], [3, 0, 4, 0], [0, 5, 0, 0], [0, 6, 7, 0]], "int64")


@case(ops=("_contrib_SparseEmbedding",))
def sparse_embedding(mx, np):
    w = mx.nd.array(np.arange(20).reshape(4, 5))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.contrib.SparseEmbedding(mx.nd.array([[1, 3], [0, 3]]), w, input_dim=4, output_dim=5)
    y.backward(mx.nd.array(rnd(50, 2, 2, 5)))
    return {"y": y, "grad": w.grad}


@case(ops=("_contrib_group_adagrad_update",))
def group_adagrad(mx, np):
    w, h = mx.nd.array(rnd(51, 5, 3)), mx.nd.ones((5, 1))
    g = mx.nd.sparse.row_sparse_array((rnd(52, 2, 3) * 4, [1, 3]), shape=(5, 3))
    mx.nd.contrib.group_adagrad_update(w, g, h, lr=0.1, out=w)
    w2, h2 = mx.nd.array(rnd(51, 5, 3)), mx.nd.ones((5, 1))
    mx.nd.contrib.group_adagrad_update(w2, g, h2, lr=0.2, rescale_grad=0.5, clip_gradient=0.3, epsilon=1e-3, out=w2)
    return {"w": w, "h": h, "w2": w2, "h2": h2}


@case
def group_adagrad_dense_raises(mx, np):
    w = mx.nd.ones((4, 3))
    mx.nd.contrib.group_adagrad_update(w, mx.nd.ones((4, 3)), mx.nd.ones((4, 1)), lr=0.1, out=w)
    return {"w": w}


@case(ops=("_contrib_edge_id", "_contrib_dgl_adjacency"))
def dgl_edge_id_adjacency(mx, np):
    x = mx.nd.sparse.csr_matrix(G)
    return {"edge_id": mx.nd.contrib.edge_id(x, mx.nd.array([0, 0, 1, 1, 2, 3]), mx.nd.array([0, 1, 1, 2, 1, 2])),
            "edge_id_f": mx.nd.contrib.edge_id(mx.nd.sparse.csr_matrix(np.array([[1.5, 0], [0, 2]], "float32")),
                                               mx.nd.array([0, 1]), mx.nd.array([1, 1])),
            "adjacency": mx.nd.contrib.dgl_adjacency(x)}


@case(ops=("_contrib_dgl_subgraph",))
def dgl_subgraph(mx, np):
    x = mx.nd.sparse.csr_matrix(G)
    two = mx.nd.contrib.dgl_subgraph(x, mx.nd.array([0, 1, 2], dtype="int64"), mx.nd.array([1, 3], dtype="int64"),
                                     return_mapping=True)
    one = mx.nd.contrib.dgl_subgraph(x, mx.nd.array([0, 2, 3], dtype="int64"), return_mapping=False)
    return {"sub0": two[0], "sub1": two[1], "map0": two[2], "map1": two[3], "one": one}


@case(ops=("_contrib_dgl_graph_compact",))
def dgl_graph_compact(mx, np):
    g = mx.nd.sparse.csr_matrix((np.array([10, 11, 12, 13], "int64"), np.array([7, 2, 7, 9], "int64"),
                                 np.array([0, 2, 3, 4, 4, 4], "int64")), shape=(5, 10))
    v = mx.nd.array([2, 7, 9, 0, 0, 3], dtype="int64")
    with_map = mx.nd.contrib.dgl_graph_compact(g, v, graph_sizes=(3,), return_mapping=True)
    return {"compact": mx.nd.contrib.dgl_graph_compact(g, v, graph_sizes=(3,), return_mapping=False),
            "with_map": with_map[0], "map_dense": mx.nd.array(with_map[1].asnumpy())}


def _full_graph(mx):
    data = np.arange(1, 21, dtype=np.int64)
    indices = np.array([1, 2, 3, 4, 0, 2, 3, 4, 0, 1, 3, 4, 0, 1, 2, 4, 0, 1, 2, 3], np.int64)
    return mx.nd.sparse.csr_matrix((data, indices, np.arange(0, 21, 4, dtype=np.int64)), shape=(5, 5))


@case(ops=("_contrib_dgl_csr_neighbor_uniform_sample", "_contrib_dgl_csr_neighbor_non_uniform_sample"))
def dgl_neighbor_sample_every_neighbour(mx, np):
    """With num_neighbor at least every degree the samplers draw nothing at random: MXNet's
    answers are exact (the walk, its truncation at max_num_vertices, the layers)."""
    a = _full_graph(mx)
    seeds = mx.nd.array([0, 1, 2, 3, 4], dtype="int64")
    u = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(a, seeds, num_args=2, num_hops=1, num_neighbor=4,
                                                      max_num_vertices=5)
    one = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(a, mx.nd.array([3], dtype="int64"), num_args=2, num_hops=2,
                                                        num_neighbor=4, max_num_vertices=5)
    prob = mx.nd.array([0.9, 0.8, 0.2, 0.4, 0.1])
    nu = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(a, prob, seeds, num_args=3, num_hops=1, num_neighbor=4,
                                                           max_num_vertices=5)
    out = {"u_ids": u[0], "u_csr": u[1], "u_layer": u[2], "one_ids": one[0], "one_csr": one[1],
           "one_layer": one[2], "nu_ids": nu[0], "nu_csr": nu[1], "nu_prob": nu[2], "nu_layer": nu[3]}
    return out


@case
def parameter_row_sparse_data(mx, np):
    p = mx.gluon.Parameter("emb", shape=(4, 2), stype="row_sparse", init=mx.init.Constant(1.5))
    p.initialize()
    mx.gluon.Trainer([p], "sgd", {"learning_rate": 0.1})
    return {"rows": p.row_sparse_data(mx.nd.array([2, 0, 2])), "list0": p.list_row_sparse_data(mx.nd.array([3]))[0],
            "grad_stype": p.grad().stype}


@case
def parameter_row_sparse_data_without_trainer_raises(mx, np):
    p = mx.gluon.Parameter("emb", shape=(4, 2), stype="row_sparse", init=mx.init.Constant(1.5))
    p.initialize()
    return {"rows": p.row_sparse_data(mx.nd.array([2, 0, 2]))}


@case
def save_parameters_row_sparse(mx, np):
    """A 'row_sparse' Parameter is saved as a row_sparse record of every row."""
    import os
    import tempfile

    class Block(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.w = self.params.get("w", shape=(4, 2), stype="row_sparse", init=mx.init.Constant(1.5))
                self.b = self.params.get("b", shape=(2,), init=mx.init.Zero())

    net = Block(prefix="blk_")
    net.initialize()
    mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.params")
        net.save_parameters(path)
        with open(path, "rb") as f:
            blob = f.read()
        loaded = mx.nd.load(path)
        net.load_parameters(path)
    return {"bytes": blob, "w": loaded["w"], "b": loaded["b"], "w_after_load": net.w.row_sparse_data(mx.nd.arange(4))}


@case
def train_row_sparse_parameter(mx, np):
    """MXNet's Gluon sparse pattern: a 'row_sparse' weight with a row_sparse gradient, its
    rows pulled with ``row_sparse_data(x.indices)`` for a csr batch, momentum SGD."""
    class SparseDense(mx.gluon.Block):
        def __init__(self, features, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get("weight", shape=(features, 1), stype="row_sparse",
                                              grad_stype="row_sparse", init=mx.init.Constant(0.2))

        def forward(self, x):
            return mx.nd.sparse.dot(x, self.weight.row_sparse_data(x.indices))

    rs = np.random.RandomState(3)
    net = SparseDense(10, prefix="sd_")
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    out = {}
    for step in range(3):
        x = mx.nd.sparse.csr_matrix(rs.uniform(0, 1, (4, 10)).astype("float32") * (rs.uniform(0, 1, (4, 10)) < 0.25))
        y = mx.nd.array(rs.uniform(-1, 1, (4, 1)))
        with mx.autograd.record():
            loss = mx.gluon.loss.L2Loss()(net(x), y)
        loss.backward()
        out["grad%d" % step] = net.weight.grad().copy()
        trainer.step(4)
        out["w%d" % step] = net.weight.row_sparse_data(mx.nd.arange(10)).copy()
    return out


def _train_embedding_two_contexts(mx, **trainer_kwargs):
    """Embedding(sparse_grad=True) on [cpu(0), cpu(1)]: the row_sparse gradients of both
    contexts are summed on their rows and Adam updates lazily."""
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = mx.gluon.nn.Embedding(12, 3, sparse_grad=True, prefix="e_")
    net.initialize(mx.init.Constant(0.1), ctx=ctxs)
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.1}, **trainer_kwargs)
    rs = np.random.RandomState(0)
    out = {}
    for step in range(3):
        idx = rs.randint(0, 12, (4, 2)).astype("float32")
        parts = mx.gluon.utils.split_and_load(mx.nd.array(idx), ctxs)
        with mx.autograd.record():
            losses = [(net(p) * (k + 1)).sum() for k, p in enumerate(parts)]
        for loss in losses:
            loss.backward()
        trainer.step(4)
        out["w%d_ctx0" % step] = net.weight.data(ctxs[0]).copy()
        out["w%d_ctx1" % step] = net.weight.data(ctxs[1]).copyto(mx.cpu(0))
    return out


@case
def train_embedding_two_contexts(mx, np):
    return _train_embedding_two_contexts(mx)


@case
def train_embedding_two_contexts_on_kvstore(mx, np):
    return _train_embedding_two_contexts(mx, update_on_kvstore=True)


@case
def train_embedding_two_contexts_not_on_kvstore(mx, np):
    return _train_embedding_two_contexts(mx, update_on_kvstore=False)


@case
def module_linear_regression_csr(mx, np):
    """MXNet's sparse linear regression with the Module API: csr data, a weight declared
    ``stype='row_sparse'`` (its gradient row_sparse, Adam lazy on it), two epochs."""
    rs = np.random.RandomState(0)
    x = rs.uniform(0, 1, (8, 6)).astype("float32") * (rs.uniform(0, 1, (8, 6)) < 0.12)
    y = rs.uniform(0, 1, (8,)).astype("float32")
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", stype="row_sparse", shape=(6, 1))
    out = mx.sym.LinearRegressionOutput(mx.sym.sparse.dot(data, weight), mx.sym.var("softmax_label"))
    it = mx.io.NDArrayIter(mx.nd.sparse.csr_matrix(x), y, batch_size=4, last_batch_handle="discard")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Constant(0.5))
    mod.init_optimizer(optimizer="adam", optimizer_params={"learning_rate": 0.1})
    res = {}
    for epoch in range(2):
        it.reset()
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
        res["weight%d" % epoch] = mod.get_params()[0]["weight"].copy()
    return res
