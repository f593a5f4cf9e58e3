"""Record MXNet 1.9.1's answers for its NumPy interface (``mx.np``, ``mx.npx``) under
``npx.set_np()``.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_numpy.py

Each case is a Python expression over ``np``, ``npx`` and named inputs (NumPy arrays made
into ``mx.np`` arrays with their dtypes). The expression's results (values, dtypes,
shapes; ``values=False`` for samplers: shape and dtype only), and for cases with ``grad``
the gradients of the named inputs for a random head gradient, go to
``tests/fixtures/extra/numpy/<case>.npz``; ``cases.json`` lists each case (an error
MXNet raises is recorded by its type). ``tests/test_numpy.py`` replays them: the same
expression runs on neogluon's ``mx.np``/``mx.npx``.
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx, autograd

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "numpy")
RNG = onp.random.RandomState(1234)
CASES = {}


def u(*shape, dtype="float32", lo=-2, hi=2):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def ints(*shape, dtype="int32", lo=0, hi=5):
    return RNG.randint(lo, hi, size=shape).astype(dtype)


def case(name, expr, values=True, grad=(), **inputs):
    CASES[name] = dict(expr=expr, inputs=inputs, grad=list(grad), values=values)


# ---------------------------------------------------------------- creation and dtypes
case("array_list", "np.array([[1, 2], [3, 4]])")
case("array_bool_list", "np.array([True, False])")
case("array_scalar", "np.array(3)")
case("array_numpy_int", "np.array(a)", a=ints(3))
case("array_numpy_f64", "np.array(a)", a=u(3, dtype="float64"))
case("array_dtype", "np.array([1.5, 2.5], dtype='int32')")
case("zeros", "np.zeros((2, 3))")
case("zeros_int", "np.zeros(4, dtype='int32')")
case("ones", "np.ones((2, 0))")
case("full", "np.full((2, 2), 7)")
case("full_int", "np.full((2,), 3, dtype='int64')")
case("arange1", "np.arange(5)")
case("arange3", "np.arange(1, 7, 2)")
case("arange_int", "np.arange(4, dtype='int32')")
case("linspace", "np.linspace(0, 1, 5)")
case("linspace_noend", "np.linspace(0, 1, 4, endpoint=False)")
case("eye", "np.eye(3, 4, k=1)")
case("zeros_like", "np.zeros_like(a)", a=ints(2, 3))
case("ones_like", "np.ones_like(a)", a=u(2, 2))
case("full_like", "np.full_like(a, 2)", a=u(3))
# ---------------------------------------------------------------- arithmetic and promotion
for op in ("+", "-", "*", "/", "%", "**"):
    n = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "**": "pow"}[op]
    case("binop_%s_f32" % n, "a %s b" % op, grad=("a", "b") if op != "%" else (), a=u(2, 3, lo=0.5), b=u(3, lo=0.5))
    case("binop_%s_i32" % n, "a %s b" % op, a=ints(2, 3, lo=1), b=ints(3, lo=1))
    case("binop_%s_i32_f32" % n, "a %s b" % op, a=ints(3, lo=1), b=u(3, lo=0.5))
    case("scalar_%s_i32_float" % n, "a %s 1.5" % op, a=ints(4, lo=1))
    case("scalar_%s_i32_int" % n, "a %s 2" % op, a=ints(4, lo=1))
    case("rscalar_%s_f32" % n, "2.5 %s a" % op, grad=("a",), a=u(4, lo=0.5))
    case("scalar_%s_f32" % n, "a %s 3" % op, grad=("a",) if op != "%" else (), a=u(2, 2, lo=0.5))
case("promote_i32_i64", "a + b", a=ints(3), b=ints(3, dtype="int64"))
case("promote_f16_i32", "a * b", a=u(3, dtype="float16"), b=ints(3))
case("promote_f16_f32", "a + b", a=u(3, dtype="float16"), b=u(3))
case("promote_bool_i32", "a + b", a=onp.array([True, False, True]), b=ints(3))
case("promote_f32_f64", "a + b", a=u(3), b=u(3, dtype="float64"))
case("scalar_bool_add", "a + 1", a=onp.array([True, False]))
case("div_int_int", "a / b", a=ints(3, lo=1), b=ints(3, lo=1))
case("compare_eq", "a == b", a=ints(4), b=ints(4))
case("compare_lt_scalar", "a < 0.5", a=u(4))
case("compare_ge_broadcast", "a >= b", a=u(2, 3), b=u(3))
case("rcompare", "1 < a", a=u(4))
case("neg", "-a", grad=("a",), a=u(3))
case("abs_dunder", "abs(a)", a=u(3))
case("iadd", "b = a.copy(); b += 1; b", a=u(3))
case("iadd_array", "b = a.copy(); b *= a; b", a=u(2, 3))
case("iadd_int", "b = a.copy(); b += 1.7; b", a=ints(3))
case("broadcast_3d", "a * b", grad=("a", "b"), a=u(2, 1, 4), b=u(3, 1))
case("matmul_op", "a @ b", grad=("a", "b"), a=u(2, 3), b=u(3, 4))
# ---------------------------------------------------------------- unary math
for f in ("exp", "log", "sqrt", "tanh", "sin", "cos", "abs", "square", "sign", "negative", "log1p",
          "expm1", "arctan", "reciprocal", "floor", "ceil", "trunc", "rint", "cbrt", "sinh", "arcsin"):
    case("unary_%s" % f, "np.%s(a)" % f, grad=("a",) if f not in ("sign", "floor", "ceil", "trunc", "rint") else (),
         a=u(2, 3, lo=0.1, hi=0.9))
for f in ("exp", "sqrt", "abs", "square", "negative", "floor"):
    case("unary_%s_int" % f, "np.%s(a)" % f, a=ints(4, lo=1))
case("sigmoid_np", "npx.sigmoid(a)", grad=("a",), a=u(3))
# ---------------------------------------------------------------- reductions
for f in ("sum", "mean", "max", "min", "prod"):
    case("reduce_%s_all" % f, "np.%s(a)" % f, grad=("a",), a=u(2, 3, lo=0.5))
    case("reduce_%s_axis" % f, "np.%s(a, axis=1)" % f, grad=("a",), a=u(2, 3, lo=0.5))
    case("reduce_%s_keep" % f, "np.%s(a, axis=(0, 2), keepdims=True)" % f, grad=("a",), a=u(2, 3, 2, lo=0.5))
    case("reduce_%s_int" % f, "np.%s(a)" % f, a=ints(2, 3, lo=1))
    case("method_%s" % f, "a.%s(axis=0)" % f, a=u(3, 2))
case("sum_dtype", "np.sum(a, dtype='float64')", a=u(3))
case("mean_int_axis", "np.mean(a, axis=0)", a=ints(3, 2))
case("sum_bool", "np.sum(a)", a=onp.array([True, True, False]))
case("argmax_all", "np.argmax(a)", a=u(3, 4))
case("argmax_axis", "np.argmax(a, axis=1)", a=u(3, 4))
case("argmin_axis0", "np.argmin(a, axis=0)", a=u(3, 4))
case("cumsum", "np.cumsum(a)", grad=("a",), a=u(2, 3))
case("cumsum_axis", "np.cumsum(a, axis=1)", a=ints(2, 3))
case("std", "np.std(a)", a=u(4, 3))
case("var_axis", "np.var(a, axis=0)", a=u(4, 3))
# ---------------------------------------------------------------- shapes
case("reshape", "np.reshape(a, (3, -1))", grad=("a",), a=u(2, 3, 2))
case("reshape_method", "a.reshape(2, 6)", a=u(3, 4))
case("reshape_0d", "a.reshape(())", a=u(1))
case("transpose", "np.transpose(a)", grad=("a",), a=u(2, 3, 4))
case("transpose_axes", "a.transpose(0, 2, 1)", grad=("a",), a=u(2, 3, 4))
case("T", "a.T", a=u(2, 3))
case("swapaxes", "np.swapaxes(a, 0, 2)", a=u(2, 3, 4))
case("expand_dims", "np.expand_dims(a, 1)", a=u(2, 3))
case("squeeze", "np.squeeze(a)", a=u(1, 3, 1))
case("squeeze_axis", "np.squeeze(a, axis=0)", a=u(1, 3, 1))
case("stack", "np.stack([a, b], axis=1)", grad=("a", "b"), a=u(2, 3), b=u(2, 3))
case("concatenate", "np.concatenate([a, b], axis=0)", grad=("a", "b"), a=u(2, 3), b=u(1, 3))
case("concatenate_none", "np.concatenate([a, b], axis=None)", a=u(2, 2), b=u(3))
case("split", "np.split(a, 3, axis=1)", a=u(2, 6))
case("split_idx", "np.split(a, [1, 3])", a=u(5, 2))
case("tile", "np.tile(a, (2, 1))", grad=("a",), a=u(2, 3))
case("repeat", "np.repeat(a, 2, axis=0)", a=u(2, 3))
case("repeat_flat", "np.repeat(a, 2)", a=u(2, 2))
case("broadcast_to", "np.broadcast_to(a, (2, 3, 4))", grad=("a",), a=u(3, 1))
case("where", "np.where(c, a, b)", grad=("a", "b"), c=onp.array([True, False, True]), a=u(3), b=u(3))
case("where_scalar", "np.where(a > 0, a, 0)", a=u(2, 3))
case("clip", "np.clip(a, -0.5, 0.5)", grad=("a",), a=u(3, 3))
case("maximum", "np.maximum(a, b)", grad=("a", "b"), a=u(3), b=u(3))
case("minimum_scalar", "np.minimum(a, 0)", a=u(4))
case("flip", "np.flip(a, 0)", a=u(3, 2))
case("take", "np.take(a, i, axis=0)", a=u(4, 2), i=ints(3, dtype="int64", hi=4))
case("ravel", "np.ravel(a)", a=u(2, 3))
case("moveaxis", "np.moveaxis(a, 0, -1)", a=u(2, 3, 4))
case("vstack", "np.vstack([a, b])", a=u(3), b=u(3))
case("hstack", "np.hstack([a, b])", a=u(2), b=u(3))
# ---------------------------------------------------------------- products, linalg
case("dot_2d", "np.dot(a, b)", grad=("a", "b"), a=u(2, 3), b=u(3, 2))
case("dot_1d", "np.dot(a, b)", grad=("a", "b"), a=u(3), b=u(3))
case("dot_nd", "np.dot(a, b)", a=u(2, 2, 3), b=u(3, 4))
case("matmul_batch", "np.matmul(a, b)", grad=("a", "b"), a=u(2, 2, 3), b=u(3, 4))
case("tensordot", "np.tensordot(a, b, axes=([1, 2], [0, 1]))", a=u(2, 3, 4), b=u(3, 4, 2))
case("einsum", "np.einsum('ij,jk->ik', a, b)", grad=("a", "b"), a=u(2, 3), b=u(3, 2))
case("einsum_trace", "np.einsum('ii', a)", a=u(3, 3))
case("outer", "np.outer(a, b)", a=u(3), b=u(2))
case("norm", "np.linalg.norm(a)", grad=("a",), a=u(2, 3))
case("norm_axis", "np.linalg.norm(a, axis=1)", a=u(2, 3))
case("norm_ord1", "np.linalg.norm(a, ord=1, axis=0)", a=u(2, 3))
spd = u(3, 3)
spd = (spd @ spd.T + 3 * onp.eye(3)).astype("float32")
case("inv", "np.linalg.inv(a)", grad=("a",), a=spd)
case("det", "np.linalg.det(a)", grad=("a",), a=spd)
case("slogdet", "np.linalg.slogdet(a)", a=spd)
case("cholesky", "np.linalg.cholesky(a)", a=spd)
case("svd_values", "np.linalg.svd(a)[1]", a=spd)
case("eigvalsh", "np.linalg.eigvalsh(a)", a=spd)
case("solve", "np.linalg.solve(a, b)", a=spd, b=u(3, 2))
# ---------------------------------------------------------------- indexing
case("index_int_1d", "a[1]", a=u(4))
case("index_int_2d", "a[1, 2]", a=u(3, 4))
case("index_row", "a[-1]", grad=("a",), a=u(3, 4))
case("index_slice", "a[1:3, ::2]", grad=("a",), a=u(4, 5))
case("index_negstep", "a[::-1]", a=u(4))
case("index_none", "a[:, None]", a=u(2, 3))
case("index_ellipsis", "a[..., 1]", a=u(2, 3, 4))
case("index_list", "a[[0, 2]]", grad=("a",), a=u(3, 2))
case("index_two_lists", "a[[0, 1], [1, 2]]", a=u(3, 4))
case("index_bool", "a[a > 0]", a=u(3, 4))
case("index_array", "a[i]", a=u(5, 2), i=ints(3, dtype="int64"))
case("setitem_slice", "b = a.copy(); b[1:] = 0; b", a=u(3, 2))
case("setitem_int", "b = a.copy(); b[0, 1] = 5; b", a=u(2, 2))
case("setitem_bool", "b = a.copy(); b[b < 0] = 0; b", a=u(3, 3))
# ---------------------------------------------------------------- properties
case("item", "np.array(a.sum().item())", a=u(3))
case("tolist", "np.array(a.tolist())", a=u(2, 2))
case("len", "np.array(len(a))", a=u(3, 2))
case("size_ndim", "np.array([a.size, a.ndim])", a=u(3, 2))
case("float_0d", "np.array(float(a[1]))", a=u(3))
case("astype", "a.astype('int32')", a=u(3, hi=5))
case("as_nd_roundtrip", "a.as_nd_ndarray().as_np_ndarray()", a=u(3))
case("detach", "a.detach() * 2", a=u(3))
# ---------------------------------------------------------------- random (shape and dtype)
case("rand_uniform", "np.random.uniform(size=(5, 3, 10))", values=False)
case("rand_uniform_none", "np.random.uniform()", values=False)
case("rand_normal", "np.random.normal(0, 1, size=(2, 3))", values=False)
case("rand_randint", "np.random.randint(0, 5, size=(4,))", values=False)
case("rand_choice", "np.random.choice(5, size=(3,))", values=False)
case("rand_uniform_f64", "np.random.uniform(size=2, dtype='float64')", values=False)
for _f, _args in (("exponential", "2.0"), ("gamma", "2.0, 1.5"), ("beta", "2.0, 3.0"), ("chisquare", "3"),
                  ("lognormal", "0.0, 0.5"), ("gumbel", "0.0, 1.0"), ("logistic", "0.0, 1.0"),
                  ("rayleigh", "1.0"), ("weibull", "2.0"), ("pareto", "3.0"), ("power", "2.0")):
    case("rand_" + _f, "np.random.%s(%s, size=(3, 2))" % (_f, _args), values=False)
# ---------------------------------------------------------------- npx
case("npx_relu", "npx.relu(a)", grad=("a",), a=u(2, 3))
case("npx_sigmoid", "npx.sigmoid(a)", grad=("a",), a=u(2, 3))
case("npx_activation", "npx.activation(a, act_type='tanh')", grad=("a",), a=u(2, 3))
case("npx_softmax", "npx.softmax(a)", grad=("a",), a=u(2, 3))
case("npx_softmax_axis", "npx.softmax(a, axis=0)", a=u(2, 3))
case("npx_log_softmax", "npx.log_softmax(a)", grad=("a",), a=u(2, 3))
case("npx_batch_norm", "npx.batch_norm(x, g, b, m, v, fix_gamma=False, use_global_stats=True)",
     grad=("x", "g", "b"), x=u(2, 3, 4), g=u(3), b=u(3), m=u(3), v=u(3, lo=0.5))
case("npx_layer_norm", "npx.layer_norm(x, g, b)", grad=("x", "g", "b"), x=u(2, 4), g=u(4), b=u(4))
case("npx_convolution", "npx.convolution(x, w, b, kernel=(3, 3), num_filter=2, pad=(1, 1))",
     grad=("x", "w", "b"), x=u(1, 2, 5, 5), w=u(2, 2, 3, 3), b=u(2))
case("npx_deconvolution", "npx.deconvolution(x, w, kernel=(2, 2), num_filter=2, stride=(2, 2), no_bias=True)",
     grad=("x", "w"), x=u(1, 3, 3, 3), w=u(3, 2, 2, 2))
case("npx_fully_connected", "npx.fully_connected(x, w, b, num_hidden=4)", grad=("x", "w", "b"),
     x=u(2, 3), w=u(4, 3), b=u(4))
case("npx_pooling", "npx.pooling(x, kernel=(2, 2), pool_type='max', stride=(2, 2))", grad=("x",), x=u(1, 2, 4, 4))
case("npx_pooling_avg_global", "npx.pooling(x, kernel=(1, 1), pool_type='avg', global_pool=True)", x=u(1, 2, 4, 4))
case("npx_dropout_train", "npx.dropout(x, p=0.5)", values=False, x=u(2, 3))  # recorded: training mode
case("npx_embedding", "npx.embedding(i, w, input_dim=5, output_dim=3)", grad=("w",),
     i=ints(2, 3, dtype="float32"), w=u(5, 3))
case("npx_one_hot", "npx.one_hot(i, 4)", i=ints(3, dtype="float32", hi=4))
case("npx_pick", "npx.pick(x, i, axis=1)", grad=("x",), x=u(3, 4), i=ints(3, dtype="float32", hi=4))
case("npx_topk", "npx.topk(x, k=2, ret_typ='value')", x=u(3, 4))
case("npx_topk_indices", "npx.topk(x, k=2)", x=u(3, 4))
case("npx_batch_dot", "npx.batch_dot(a, b)", grad=("a", "b"), a=u(2, 2, 3), b=u(2, 3, 2))
case("npx_batch_dot_t", "npx.batch_dot(a, b, transpose_b=True)", a=u(2, 2, 3), b=u(2, 2, 3))
case("npx_batch_flatten", "npx.batch_flatten(a)", a=u(2, 3, 4))
case("npx_reshape_copy", "npx.reshape(a, (-2, -2, 2, -1))", a=u(2, 3, 8))
case("npx_reshape_split", "npx.reshape(a, (-6, 2, -1, -4))", a=u(8, 3, 3))
case("npx_reshape_merge", "npx.reshape(a, (-5, -4))", a=u(8, 3, 3, 2))
case("npx_reshape_skip", "npx.reshape(a, (-2, -3, -3, -2))", a=u(4, 1, 1, 3))
case("npx_reshape_reverse", "npx.reshape(a, (-4, -5), reverse=True)", a=u(2, 3, 3, 4))
case("npx_reshape_reverse_split", "npx.reshape(a, (-4, -1, 2, -6), reverse=True)", a=u(2, 3, 2, 4, 8))
case("npx_sequence_mask", "npx.sequence_mask(x, l, use_sequence_length=True, value=-1)", grad=("x",),
     x=u(4, 2, 3), l=onp.array([2, 3], dtype="float32"))
case("npx_arange_like", "npx.arange_like(x, axis=1)", x=u(2, 5))
case("npx_gather_nd", "npx.gather_nd(x, i)", grad=("x",), x=u(3, 4), i=onp.array([[0, 2], [1, 3]], dtype="int32"))
case("npx_smooth_l1", "npx.smooth_l1(x, scalar=1.0)", grad=("x",), x=u(5))
case("npx_leaky_relu", "npx.leaky_relu(x, act_type='leaky', slope=0.1)", grad=("x",), x=u(5))
case("npx_erf", "npx.erf(x)", grad=("x",), x=u(5))
case("npx_rnn_lstm", "npx.rnn(x, p, h, c, state_size=2, num_layers=1, mode='lstm')", grad=("x", "p"),
     x=u(3, 2, 4), p=u(4 * 2 * (4 + 2 + 2), lo=-0.5, hi=0.5), h=u(1, 2, 2), c=u(1, 2, 2))
# ---------------------------------------------------------------- more functions (numpy/extras.py)
N_BASE = len(CASES)  # the cases below run first: some are MXNet's NumPy fallbacks, which fail after other cases
case("allclose", "np.array(np.allclose(a, b))", a=u(3), b=u(3))
case("allclose_true", "np.array(np.allclose(a, a + 1e-9))", a=u(3))
case("isclose", "np.isclose(a, b, atol=0.5)", a=u(4), b=u(4))
case("array_equal", "np.array(np.array_equal(a, a))", a=u(3))
case("atleast_2d", "np.atleast_2d(a)", a=u(3))
case("atleast_3d", "np.atleast_3d(a)", a=u(2, 3))
case("diff", "np.diff(a)", grad=("a",), a=u(2, 5))
case("diff_n2_axis0", "np.diff(a, n=2, axis=0)", a=u(4, 2))
case("diagonal", "np.diagonal(a, 1)", a=u(3, 4))
case("trace", "np.trace(a)", grad=("a",), a=u(3, 3))
case("tril", "np.tril(a)", grad=("a",), a=u(3, 4))
case("triu_k", "np.triu(a, 1)", a=u(4, 3))  # not in MXNet 1.9.1's mx.np: recorded as its error
case("roll", "np.roll(a, 2)", a=u(2, 3))
case("roll_axis", "np.roll(a, -1, axis=1)", grad=("a",), a=u(2, 3))
case("rot90", "np.rot90(a)", a=u(2, 3))
case("rot90_k3", "np.rot90(a, 3)", a=u(2, 3))
case("fliplr", "np.fliplr(a)", a=u(2, 3))
case("flipud", "np.flipud(a)", a=u(2, 3))
case("meshgrid", "np.meshgrid(a, b)", a=u(3), b=u(2))
case("meshgrid_ij", "np.meshgrid(a, b, indexing='ij')", a=u(3), b=u(2))
case("logspace", "np.logspace(0, 2, 3)")
case("append", "np.append(a, b)", a=u(2, 2), b=u(3))
case("append_axis", "np.append(a, b, axis=0)", a=u(2, 2), b=u(1, 2))
case("column_stack", "np.column_stack([a, b])", a=u(3), b=u(3))
case("dstack", "np.dstack([a, b])", a=u(2, 3), b=u(2, 3))
case("array_split", "np.array_split(a, 3)", a=u(7))
case("hsplit", "np.hsplit(a, 2)", a=u(2, 4))
case("vsplit", "np.vsplit(a, 2)", a=u(4, 2))
case("fabs", "np.fabs(a)", a=u(3))
case("copysign", "np.copysign(a, b)", a=u(4), b=u(4))
case("nan_to_num", "np.nan_to_num(a / b)", a=onp.array([0., 1., -1.], dtype="float32"),
     b=onp.array([0., 0., 0.], dtype="float32"))
case("average", "np.average(a)", a=u(2, 3))
case("average_weights", "np.average(a, axis=1, weights=w)", a=u(2, 3), w=u(3, lo=0.1, hi=1))
case("ptp", "np.ptp(a, axis=0)", a=u(3, 2))
case("take_along_axis", "np.take_along_axis(a, i, axis=1)", a=u(3, 4), i=ints(3, 2, dtype="int64", hi=4))
case("vdot", "np.vdot(a, b)", a=u(2, 2), b=u(2, 2))
case("trapz", "np.trapz(a)", a=u(5))
case("polyval", "np.polyval(p, x)", p=u(3), x=u(4))
case("count_nonzero", "np.count_nonzero(a)", a=onp.array([0, 1, 2, 0], dtype="float32"))
case("flatnonzero", "np.flatnonzero(a)", a=onp.array([[0, 1], [2, 0]], dtype="float32"))
case("argwhere", "np.argwhere(a)", a=onp.array([[0, 1], [2, 0]], dtype="float32"))
case("nonzero", "np.nonzero(a)", a=onp.array([[0, 1], [2, 0]], dtype="float32"))
case("interp", "np.interp(x, xp, fp)", x=onp.array([0.5, 1.5, 3.0], dtype="float32"),
     xp=onp.array([0., 1., 2.], dtype="float32"), fp=onp.array([0., 10., 0.], dtype="float32"))
case("ldexp", "np.ldexp(a, b)", a=u(3), b=onp.array([1., 2., 3.], dtype="float32"))
case("rollaxis", "np.rollaxis(a, 2)", a=u(2, 3, 4))
case("resize", "np.resize(a, (3, 3))", a=u(2, 2))
case("cov", "np.cov(a)", a=u(2, 5))
case("corrcoef", "np.corrcoef(a)", a=u(3, 5))
case("isnan", "np.isnan(a / b)", a=onp.array([0., 1.], dtype="float32"), b=onp.array([0., 1.], dtype="float32"))
case("logical_and", "np.logical_and(a > 0, b > 0)", a=u(4), b=u(4))  # not in MXNet 1.9.1's mx.np
case("hypot", "np.hypot(a, b)", a=u(3), b=u(3))
case("any_all", "np.stack([np.any(a > 1), np.all(a > -3)])", a=u(3))


def to_np(v):
    if isinstance(v, dict):
        return v
    return np.array(v, dtype=v.dtype)


def run(spec):
    xs = {k: np.array(onp.asarray(v), dtype=onp.asarray(v).dtype) for k, v in spec["inputs"].items()}
    for k in spec["grad"]:
        xs[k].attach_grad()
    env = dict(np=np, npx=npx, **xs)
    *stmts, last = spec["expr"].split("; ")
    if spec["grad"] or "dropout" in spec["expr"]:
        with autograd.record():
            for s in stmts:
                exec(s, env)  # pylint: disable=exec-used
            out = eval(last, env)  # pylint: disable=eval-used
    else:  # MXNet's NumPy fallbacks (allclose, cov, ...) refuse to run while recording
        for s in stmts:
            exec(s, env)  # pylint: disable=exec-used
        out = eval(last, env)  # pylint: disable=eval-used
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    heads = []
    if spec["grad"]:
        heads = [RNG.uniform(-1, 1, size=o.shape).astype(o.dtype) for o in outs]
        autograd.backward(outs, [np.array(h, dtype=h.dtype) for h in heads])
    return outs, heads, xs


GLUON_NET = """
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.conv = gluon.nn.Conv2D(4, 3, in_channels=2)
        self.d1 = gluon.nn.Dense(8, in_units=4 * 4 * 4)
        self.d2 = gluon.nn.Dense(3, in_units=8)

    def hybrid_forward(self, F, x):
        h = F.npx.relu(self.conv(x))
        h = F.npx.pooling(h, kernel=(2, 2), stride=(2, 2), pool_type='max')
        h = F.npx.batch_flatten(h)
        return self.d2(F.np.tanh(self.d1(h)) * 2 + 1)
"""
GLUON_PARAMS = ("conv.weight", "conv.bias", "d1.weight", "d1.bias", "d2.weight", "d2.bias")


def gluon_train(env, hybridize, data, steps=3):
    """Train the np-style Net (the same source runs on neogluon) with SGD and softmax
    cross-entropy from the recorded parameters: the losses and the final parameters."""
    from mxnet import gluon  # noqa: F401  (the net's source names gluon)
    net = env["Net"]()
    net.initialize()
    for k in GLUON_PARAMS:
        blk, attr = k.split(".")
        getattr(getattr(net, blk), attr).set_data(np.array(data["p_" + k]))
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x, y = np.array(data["x"]), np.array(data["y"])
    losses = []
    for _ in range(steps):
        with autograd.record():
            out = net(x)
            loss = loss_fn(out, y)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(loss.asnumpy())
    final = {k: getattr(getattr(net, k.split(".")[0]), k.split(".")[1]).data().asnumpy() for k in GLUON_PARAMS}
    return onp.stack(losses), final, net(x).asnumpy()


def record_gluon():
    from mxnet import gluon
    env = dict(gluon=gluon)
    exec(GLUON_NET, env)  # pylint: disable=exec-used
    data = dict(x=u(6, 2, 10, 10), y=ints(6, dtype="float32", hi=3))
    shapes = {"conv.weight": (4, 2, 3, 3), "conv.bias": (4,), "d1.weight": (8, 64), "d1.bias": (8,),
              "d2.weight": (3, 8), "d2.bias": (3,)}
    for k, shp in shapes.items():
        data["p_" + k] = u(*shp, lo=-0.3, hi=0.3)
    for hyb in (False, True):
        losses, final, out = gluon_train(env, hyb, data)
        tag = "hybrid" if hyb else "imperative"
        data["losses_" + tag] = losses
        data["out_" + tag] = out
        for k, v in final.items():
            data["final_%s_%s" % (tag, k)] = v
    onp.savez(os.path.join(OUT, "gluon_train.npz"), **data)
    with open(os.path.join(OUT, "gluon_net.py.txt"), "w") as f:
        f.write(GLUON_NET)


def record_names():
    """MXNet 1.9.1's public names of mx.np, mx.np.random, mx.np.linalg and mx.npx."""
    import types
    mods = {"np": np, "np.random": np.random, "np.linalg": np.linalg, "npx": npx}
    names = {}
    for key, mod in mods.items():
        names[key] = sorted(n for n in dir(mod) if not n.startswith("_")
                            and not isinstance(getattr(mod, n), types.ModuleType))
    with open(os.path.join(OUT, "names.json"), "w") as f:
        json.dump(names, f, indent=1)


class _Plain:
    """A result that is not an mx array (MXNet's NumPy fallbacks return NumPy values)."""

    def __init__(self, v):
        self.v = onp.asarray(v)
        self.dtype, self.shape = self.v.dtype, self.v.shape

    def asnumpy(self):
        return self.v


def main():
    os.makedirs(OUT, exist_ok=True)
    npx.set_np()
    listing = {}
    order = list(CASES)[N_BASE:] + list(CASES)[:N_BASE]
    for name in order:
        spec = CASES[name]
        inputs = {k: onp.asarray(v) for k, v in spec["inputs"].items()}
        entry = dict(expr=spec["expr"], inputs=sorted(inputs), grad=spec["grad"], values=spec["values"])
        try:
            outs, heads, xs = run(spec)
        except Exception as e:  # pylint: disable=broad-except
            entry["error"] = type(e).__name__
            entry["message"] = str(e).split("\n")[0][:200]
            listing[name] = entry
            onp.savez(os.path.join(OUT, name + ".npz"), **{"in_" + k: v for k, v in inputs.items()})
            continue
        data = {"in_" + k: v for k, v in inputs.items()}
        outs = [o if hasattr(o, "asnumpy") else _Plain(o) for o in outs]
        entry["dtypes"] = [str(o.dtype) for o in outs]
        entry["shapes"] = [list(o.shape) for o in outs]
        entry["types"] = [type(o.v).__name__ if isinstance(o, _Plain) else type(o).__name__ for o in outs]
        for i, o in enumerate(outs):
            if spec["values"]:
                data["out%d" % i] = o.asnumpy()
        for i, h in enumerate(heads):
            data["head%d" % i] = h
        for k in spec["grad"]:
            data["grad_" + k] = xs[k].grad.asnumpy()
        onp.savez(os.path.join(OUT, name + ".npz"), **data)
        listing[name] = entry
    record_names()  # after the cases: MXNet's NumPy fallbacks fail once these ran
    record_gluon()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(listing, f, indent=1, sort_keys=True)
    print("%d cases, %d errors" % (len(listing), sum("error" in e for e in listing.values())))


if __name__ == "__main__":
    main()
