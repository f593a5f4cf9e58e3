"""Record MXNet 1.9.1's answers for the ``mx.np`` names added after the first set
(``tools/make_extra_fixtures_numpy.py``): set operations, ``unique``, ``pad``,
``percentile``, bitwise functions, windows, ``insert``/``delete``, the NumPy fallbacks,
``np.linalg``'s ``eig``/``tensorinv``/..., ``np.random.multinomial``/``multivariate_normal``.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_numpy_more.py

Cases are written as in the first set (an expression over ``np``, ``npx`` and named inputs;
values, dtypes, shapes, gradients of the ``grad`` inputs) to
``tests/fixtures/extra/numpy_more/``; ``cases.json`` also says, per output, whether MXNet
gave an ``mx.np`` array (``"mx"``) or a NumPy value (``"numpy"``, a fallback called without
any ``mx.np`` array). ``tests/test_numpy_more.py`` replays them.
"""
import json
import os
import sys

import numpy as onp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mxnet as mx  # noqa: E402
from mxnet import np, npx, autograd  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "numpy_more")
RNG = onp.random.RandomState(4321)
CASES = {}


def u(*shape, dtype="float32", lo=-2, hi=2):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def ints(*shape, dtype="int32", lo=0, hi=5):
    return RNG.randint(lo, hi, size=shape).astype(dtype)


def case(name, expr, values=True, grad=(), **inputs):
    CASES[name] = dict(expr=expr, inputs=inputs, grad=list(grad), values=values)


# ---------------------------------------------------------------- NumPy fallbacks
case("fb_in1d", "np.in1d(a, b)", a=ints(6), b=ints(3))
case("fb_isin", "np.isin(a, b)", a=ints(2, 3), b=ints(3))
case("fb_isin_invert", "np.isin(a, b, invert=True)", a=u(4), b=u(2))
case("fb_intersect1d", "np.intersect1d(a, b)", a=ints(6, hi=8), b=ints(6, hi=8))
case("fb_union1d", "np.union1d(a, b)", a=ints(5, hi=8), b=ints(4, hi=8))
case("fb_setdiff1d", "np.setdiff1d(a, b)", a=ints(6, hi=8), b=ints(3, hi=8))
case("fb_setxor1d", "np.setxor1d(a, b)", a=ints(6, hi=8), b=ints(5, hi=8))
case("fb_searchsorted", "np.searchsorted(a, b)", a=onp.arange(6, dtype="float32"), b=u(4, lo=0, hi=6))
case("fb_searchsorted_right", "np.searchsorted(a, b, side='right')", a=onp.arange(5, dtype="int32"), b=ints(4))
case("fb_digitize", "np.digitize(a, b)", a=u(5), b=onp.array([-1.0, 0.0, 1.0], dtype="float32"))
case("fb_nanmedian", "np.nanmedian(a, axis=0)", a=onp.array([[1, onp.nan, 3], [4, 5, 6]], dtype="float32"))
case("fb_nanpercentile", "np.nanpercentile(a, 30)", a=onp.array([1, onp.nan, 3, 7], dtype="float32"))
case("fb_nanquantile", "np.nanquantile(a, 0.3, axis=1)", a=onp.array([[1, onp.nan, 3], [4, 5, 6]], dtype="float32"))
case("fb_nancumsum", "np.nancumsum(a)", a=onp.array([1, onp.nan, 3], dtype="float32"))
case("fb_nancumprod", "np.nancumprod(a)", a=onp.array([2, onp.nan, 3], dtype="float32"))
case("fb_nanargmax", "np.nanargmax(a)", a=onp.array([1, onp.nan, 3], dtype="float32"))
case("fb_nanargmin", "np.nanargmin(a, axis=1)", a=onp.array([[1, onp.nan, 3], [4, 0, 6]], dtype="float32"))
case("fb_polyfit", "np.polyfit(a, b, 2)", a=onp.arange(6, dtype="float64"), b=u(6, dtype="float64"))
case("fb_polyadd", "np.polyadd(a, b)", a=u(3), b=u(2))
case("fb_polymul", "np.polymul(a, b)", a=u(3), b=u(2))
case("fb_polysub", "np.polysub(a, b)", a=u(3), b=u(3))
case("fb_polydiv", "np.polydiv(a, b)", a=u(4), b=u(2))
case("fb_polyint", "np.polyint(a)", a=u(3))
case("fb_poly", "np.poly(a)", a=u(3))
case("fb_roots", "np.roots(a)", a=onp.array([1.0, -3.0, 2.0], dtype="float32"))
case("fb_vander", "np.vander(a, 3)", a=u(4))
case("fb_trim_zeros", "np.trim_zeros(a)", a=onp.array([0, 0, 1, 2, 0], dtype="float32"))
case("fb_lexsort", "np.lexsort((a, b))", a=ints(6), b=ints(6))
case("fb_argpartition", "np.sort(np.argpartition(a, 2)[:2])", a=onp.array([5, 1, 4, 0, 3], dtype="float32"))
case("fb_partition", "np.partition(a, 2)[2]", a=onp.array([5, 1, 4, 0, 3], dtype="float32"))
case("fb_modf", "np.modf(a)", a=u(4))
case("fb_frexp", "np.frexp(a)", a=u(4))
case("fb_divmod", "np.divmod(a, 3)", a=ints(5, hi=10))
case("fb_spacing", "np.spacing(a)", a=u(3))
case("fb_real", "np.real(a)", a=u(3))
case("fb_i0", "np.i0(a)", a=u(3))
case("fb_unwrap", "np.unwrap(a)", a=u(5, lo=-6, hi=6))
case("fb_correlate", "np.correlate(a, b, 'full')", a=u(4), b=u(2))
case("fb_histogram2d", "np.histogram2d(a, b, bins=3)", a=u(8), b=u(8))
case("fb_histogram_bin_edges", "np.histogram_bin_edges(a, bins=4)", a=u(8))
case("fb_histogramdd", "np.histogramdd(a, bins=2)[0]", a=u(6, 2))
case("fb_packbits", "np.packbits(a)", a=ints(10, dtype="uint8", hi=2))
case("fb_unpackbits", "np.unpackbits(a)", a=ints(2, dtype="uint8", hi=255))
case("fb_compress", "np.compress(c, a, axis=0)", a=u(3, 2), c=onp.array([True, False, True]))
case("fb_extract", "np.extract(c, a)", a=u(4), c=onp.array([True, False, True, True]))
case("fb_choose", "np.choose(c, [a, b])", a=u(4), b=u(4), c=ints(4, hi=2))
case("fb_select", "np.select([a > 0, a < -1], [a, b])", a=u(5), b=u(5))
case("fb_tril_indices_from", "np.tril_indices_from(a)", a=u(3, 3))
case("fb_triu_indices_from", "np.triu_indices_from(a, 1)", a=u(3, 3))
case("fb_ix", "np.ix_(a, b)", a=ints(2), b=ints(3))
case("fb_array_equiv", "np.array(np.array_equiv(a, a[0]))", a=onp.ones((2, 3), dtype="float32"))
case("fb_apply_along_axis", "np.apply_along_axis(lambda r: r.sum(), 1, a)", a=u(3, 2))
case("fb_apply_over_axes", "np.apply_over_axes(onp.sum, a, [0])", a=u(3, 2))
case("fb_piecewise", "np.piecewise(a, [a < 0, a >= 0], [-1, 1])", a=u(5))
case("fb_min_scalar_type", "np.array([np.min_scalar_type(10) == onp.uint8])")
case("fb_msort", "np.msort(a)", a=u(3, 2))
case("fb_no_mx_array", "np.polyadd([1.0, 2.0], [3.0])")
case("fb_mirr", "np.mirr(a, 0.1, 0.1)", a=u(3))
case("fb_linalg_cond", "np.linalg.cond(a)", a=u(3, 3))
case("fb_linalg_matrix_rank", "np.linalg.matrix_rank(a)", a=onp.array([[1, 2], [2, 4]], dtype="float32"))
case("fb_linalg_matrix_power", "np.linalg.matrix_power(a, 3)", a=u(2, 2))
case("fb_linalg_multi_dot", "np.linalg.multi_dot([a, b, c])", a=u(2, 3), b=u(3, 4), c=u(4, 2))
case("fb_linalg_lstsq", "np.linalg.lstsq(a, b, rcond=None)", a=u(4, 2, dtype="float64"), b=u(4, dtype="float64"))
case("fb_recording", "recorded(lambda: np.unwrap(a))", a=u(3))

# ---------------------------------------------------------------- MXNet's own operators
case("unique", "np.unique(a)", a=ints(8, hi=5).astype("float32"))
case("unique_int", "np.unique(a)", a=ints(8, hi=5))
case("unique_all", "np.unique(a, return_index=True, return_inverse=True, return_counts=True)",
     a=ints(8, hi=5).astype("float32"))
case("unique_axis", "np.unique(a, axis=0)", a=onp.array([[1, 2], [0, 1], [1, 2]], dtype="float32"))
case("unique_2d", "np.unique(a, return_counts=True)", a=ints(3, 3, hi=4).astype("float32"))
case("pad_constant", "np.pad(a, ((1, 2), (0, 1)))", grad=("a",), a=u(2, 3))
case("pad_constant_value", "np.pad(a, 2, constant_values=3.5)", a=u(3))
case("pad_edge", "np.pad(a, ((1, 1), (2, 0)), mode='edge')", a=u(2, 3))
case("pad_reflect", "np.pad(a, ((1, 1), (2, 2)), mode='reflect')", a=u(3, 3))
case("pad_symmetric", "np.pad(a, 2, mode='symmetric')", a=u(3, 3))
case("pad_maximum", "np.pad(a, 1, mode='maximum')", a=u(2, 3))
case("pad_minimum", "np.pad(a, ((0, 1), (1, 0)), mode='minimum')", a=u(2, 3))
case("pad_int", "np.pad(a, 1)", a=ints(2, 2))
case("pad_int_tuple", "np.pad(a, ((1, 1), (1, 1)))", a=ints(2, 2))
case("pad_symmetric_tuple", "np.pad(a, ((2, 1), (1, 2)), mode='symmetric')", a=u(3, 3))
case("pad_maximum_tuple", "np.pad(a, ((1, 0), (1, 1)), mode='maximum')", a=u(2, 3))
case("pad_value_tuple", "np.pad(a, ((2, 1),), constant_values=3.5)", a=u(3))
case("pad_3d", "np.pad(a, ((0, 0), (1, 1), (2, 0)), mode='edge')", a=u(2, 2, 2))
case("percentile", "np.percentile(a, 40)", a=u(7))
case("percentile_axis", "np.percentile(a, 25, axis=1)", a=u(3, 5))
case("percentile_q_array", "np.percentile(a, q, axis=0, keepdims=True)", a=u(5, 2),
     q=onp.array([10, 50, 90], dtype="float32"))
case("percentile_lower", "np.percentile(a, 30, interpolation='lower')", a=u(6))
case("percentile_higher", "np.percentile(a, 30, interpolation='higher')", a=u(6))
case("percentile_midpoint", "np.percentile(a, 30, interpolation='midpoint')", a=u(6))
case("percentile_nearest", "np.percentile(a, 30, interpolation='nearest')", a=u(6))
case("percentile_int", "np.percentile(a, 50)", a=ints(6))
case("quantile", "np.quantile(a, 0.3, axis=0)", a=u(4, 3))
case("quantile_array", "np.quantile(a, q)", a=u(6), q=onp.array([0.1, 0.9], dtype="float32"))
case("bitwise_and", "np.bitwise_and(a, b)", a=ints(5, hi=16), b=ints(5, hi=16))
case("bitwise_or", "np.bitwise_or(a, b)", a=ints(5, hi=16), b=ints(5, hi=16))
case("bitwise_xor", "np.bitwise_xor(a, b)", a=ints(5, hi=16), b=ints(5, hi=16))
case("bitwise_and_scalar", "np.bitwise_and(a, 6)", a=ints(5, hi=16))
case("bitwise_or_rscalar", "np.bitwise_or(3, a)", a=ints(5, hi=16))
case("bitwise_xor_bool", "np.bitwise_xor(a, b)", a=onp.array([True, False, True]), b=onp.array([True, True, False]))
case("bitwise_and_mixed", "np.bitwise_and(a, b)", a=ints(4, hi=16), b=ints(4, dtype="int64", hi=16))
case("bitwise_not", "np.bitwise_not(a)", a=ints(5, lo=-4, hi=16))
case("bitwise_not_bool", "np.bitwise_not(a)", a=onp.array([True, False]))
case("invert", "np.invert(a)", a=ints(5, dtype="uint8", hi=200))
case("lcm", "np.lcm(a, b)", a=ints(5, lo=1, hi=12), b=ints(5, lo=1, hi=12))
case("lcm_scalar", "np.lcm(a, 4)", a=ints(5, lo=-6, hi=12))
case("isposinf", "np.isposinf(a)", a=onp.array([1, onp.inf, -onp.inf, onp.nan], dtype="float32"))
case("isneginf", "np.isneginf(a)", a=onp.array([1, onp.inf, -onp.inf, onp.nan], dtype="float32"))
case("blackman", "np.blackman(6)")
case("hamming", "np.hamming(5)")
case("hanning", "np.hanning(7, dtype='float64')")
case("hanning_1", "np.hanning(1)")
case("indices", "np.indices((2, 3))")
case("indices_dtype", "np.indices((2, 2, 1), dtype='int64')")
case("bincount", "np.bincount(a)", a=ints(8, hi=6))
case("bincount_weights", "np.bincount(a, weights=w, minlength=7)", a=ints(6, hi=4), w=u(6))
case("histogram", "np.histogram(a, bins=4)", a=u(10))
case("histogram_range", "np.histogram(a, bins=3, range=(-1, 1))", a=u(10))
case("histogram_edges", "np.histogram(a, bins=b)", a=u(10), b=onp.array([-2, -0.5, 0, 2], dtype="float32"))
case("diagflat", "np.diagflat(a)", grad=("a",), a=u(3))
case("diagflat_k", "np.diagflat(a, k=-1)", grad=("a",), a=u(2, 2))
case("ediff1d", "np.ediff1d(a)", grad=("a",), a=u(2, 3))
case("ediff1d_ends", "np.ediff1d(a, to_end=b, to_begin=-9)", grad=("a",), a=u(4), b=u(2))
case("delete_int", "np.delete(a, 1, axis=1)", a=u(3, 4))
case("delete_slice", "np.delete(a, slice(0, None, 2))", a=u(3, 2))
case("delete_array", "np.delete(a, idx, axis=0)", a=u(4, 2), idx=onp.array([0, 2], dtype="int64"))
case("delete_list", "np.delete(a, [1, 3])", a=u(5))
case("insert_scalar", "np.insert(a, 1, 5)", a=u(4))
case("insert_axis", "np.insert(a, 1, b, axis=1)", a=u(2, 3), b=u(2))
case("insert_slice", "np.insert(a, slice(0, 2), b)", a=u(4), b=u(2))
case("insert_array", "np.insert(a, idx, b)", a=u(4), b=u(2), idx=onp.array([1, 3], dtype="int64"))
case("diag_indices_from", "np.diag_indices_from(a)", a=u(3, 3))
case("unravel_index", "np.unravel_index(a, (7, 6))", a=onp.array([22, 41, 37], dtype="int64"))
case("unravel_index_scalar", "np.unravel_index(1621, (6, 7, 8, 9))")
case("broadcast_arrays", "np.broadcast_arrays(a, b)", a=u(3, 1), b=u(1, 4))
case("may_share_memory", "np.array([np.may_share_memory(a, a[1:]), np.may_share_memory(a, b)])", a=u(4), b=u(4))
case("shares_memory", "np.array([np.shares_memory(a, a), np.shares_memory(a, b)])", a=u(4), b=u(4))
case("eig", "np.linalg.eig(a)", a=onp.array([[2, 1], [1, 3]], dtype="float32"))
case("eigvals", "np.linalg.eigvals(a)", a=onp.array([[4, 1], [2, 3]], dtype="float32"))
case("eigvals_batch", "np.linalg.eigvals(a)", a=onp.array([[[4, 1], [2, 3]], [[1, 0], [0, 2]]], dtype="float32"))
case("tensorinv", "np.linalg.tensorinv(a, ind=1)", grad=("a",),
     a=(onp.eye(4) + 0.1 * RNG.uniform(-1, 1, (4, 4))).astype("float32").reshape(4, 2, 2))
case("tensorsolve", "np.linalg.tensorsolve(a, b)", grad=("a", "b"),
     a=(onp.eye(6) + 0.1 * RNG.uniform(-1, 1, (6, 6))).astype("float32").reshape(2, 3, 6), b=u(2, 3))
case("multinomial", "np.random.multinomial(5, [0.2, 0.3, 0.5], size=(2, 3))", values=False)
case("multinomial_one", "np.random.multinomial(4, [0.5, 0.5])", values=False)
case("multinomial_sum", "np.random.multinomial(7, [0.1, 0.2, 0.7], size=4).sum(axis=1)")
case("multivariate_normal", "np.random.multivariate_normal(m, c)", values=False, m=u(3, 2),
     c=onp.eye(2, dtype="float32"))
case("multivariate_normal_size", "np.random.multivariate_normal(m, c, size=(4,))", values=False, m=u(2),
     c=onp.eye(2, dtype="float32"))

case("npx_constraint_check", "npx.constraint_check(a, 'all positive')", a=onp.array([True, True]))
case("npx_constraint_check_false", "npx.constraint_check(a, 'all positive')", a=onp.array([True, False]))
case("npx_constraint_check_float", "npx.constraint_check(a, 'all positive')", a=u(2))
case("npx_multibox_prior", "npx.multibox_prior(d, sizes=(0.5, 0.25), ratios=(1, 2))", d=u(1, 3, 4, 4))
case("npx_multibox_prior_steps", "npx.multibox_prior(d, sizes=(0.3,), ratios=(1, 2, 0.5), clip=True, steps=(0.2, 0.3))",
     d=u(1, 2, 3, 5))
case("npx_multibox_target", "npx.multibox_target(npx.multibox_prior(d, sizes=(0.5, 0.25), ratios=(1, 2)), lab, cp)",
     d=u(1, 3, 4, 4), lab=onp.array([[[0, 0.1, 0.1, 0.5, 0.5], [1, 0.4, 0.3, 0.9, 0.8]]], dtype="float32"),
     cp=u(1, 3, 48))
case("npx_multibox_detection",
     "npx.multibox_detection(npx.softmax(cp, axis=1), loc, npx.multibox_prior(d, sizes=(0.5, 0.25), ratios=(1, 2)))",
     d=u(1, 3, 4, 4), cp=u(1, 3, 48, lo=-4, hi=4), loc=u(1, 192, lo=-0.1, hi=0.1))

case("npx_bernoulli", "npx.random.bernoulli(0.3, size=(2, 3))", values=False)
case("npx_bernoulli_array", "npx.random.bernoulli(p)", values=False, p=u(4, lo=0, hi=1))
case("npx_bernoulli_logit_bool", "npx.random.bernoulli(logit=p, dtype='bool')", values=False, p=u(2, 3))
case("npx_bernoulli_certain", "npx.random.bernoulli(p, size=(3, 2))", p=onp.array([1.0, 0.0], dtype="float32"))
case("npx_bernoulli_both", "npx.random.bernoulli(0.3, 0.5)")
case("npx_uniform_n", "npx.random.uniform_n(lo, hi, batch_shape=(3,))", values=False, lo=u(2, 1), hi=u(4) + 3)
case("npx_uniform_n_scalar", "npx.random.uniform_n(2.0, 2.0, batch_shape=(2, 2))")
case("npx_uniform_n_values", "npx.random.uniform_n(lo, lo, batch_shape=(2,))", lo=u(3))
case("npx_normal_n", "npx.random.normal_n(m, 1.0, batch_shape=(4,), dtype='float64')", values=False, m=u(2, 3))
case("npx_normal_n_values", "npx.random.normal_n(m, 0.0)", m=u(2, 3))
case("fb_pmt", "np.fallback.pmt(0.1, 10, 100)")

case("zeros_like_int", "np.zeros_like(a)", a=ints(2, 3))
case("full_like_int_float_value", "np.full_like(a, 2.7)", a=ints(2))
case("ones_like_dtype", "np.ones_like(a, dtype='float16')", a=u(3))
case("full_like_grad", "np.full_like(a, 4) * a", grad=("a",), a=u(3))

case("squeeze_all", "np.squeeze(a)", a=u(1, 1))
case("squeeze_axis", "np.squeeze(a, axis=(0, 2))", grad=("a",), a=u(1, 3, 1))


class _Plain:
    """A result that is not an mx array (MXNet's NumPy fallbacks return NumPy values)."""

    def __init__(self, v):
        self.v = onp.asarray(v)
        self.dtype, self.shape = self.v.dtype, self.v.shape

    def asnumpy(self):
        return self.v


def recorded(fn):
    with autograd.record():
        return fn()


def run(spec, heads_rng):
    xs = {k: np.array(onp.asarray(v), dtype=onp.asarray(v).dtype) for k, v in spec["inputs"].items()}
    for k in spec["grad"]:
        xs[k].attach_grad()
    env = dict(np=np, npx=npx, onp=onp, recorded=recorded, **xs)
    if spec["grad"]:
        with autograd.record():
            out = eval(spec["expr"], env)  # pylint: disable=eval-used
    else:  # MXNet's NumPy fallbacks refuse to run while recording
        out = eval(spec["expr"], env)  # pylint: disable=eval-used
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    heads = []
    if spec["grad"]:
        heads = [heads_rng.uniform(-1, 1, size=o.shape).astype(o.dtype) for o in outs]
        autograd.backward(outs, [np.array(h, dtype=h.dtype) for h in heads])
    return outs, heads, xs


EXPORT_NETS = {  # name: (source of Net, its inputs as (nested list, dtype))
    "new_operators": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x, i):
        a = F.np.pad(x, ((1, 1), (0, 2)), mode='edge')
        b = F.np.percentile(x, 30, axis=1, interpolation='lower')
        e = F.np.bitwise_and(i, 3)
        f = F.np.diagflat(x, k=1)
        g = F.np.ediff1d(x, to_begin=-1)
        h = F.np.unique(i, return_counts=True)
        m = F.np.lcm(i, i)
        q = F.np.quantile(x, 0.5, keepdims=True)
        return a, b, e, f, g, h[0], h[1], m, q
""", [([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], "float32"), ([3, 1, 3], "int32")]),
    "arithmetic": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return ((x + F.np.ones((3,))) * F.np.arange(3) + F.np.sum(x) * 2 - 1 / (x + 1) ** 2 + (x > 0.5)
                - F.np.mean(x, axis=0))
""", [([[0, 1, 2], [3, 4, 5]], "float32")]),
    "creation_and_indexing": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return (x + F.np.zeros((3,)) + F.np.full((3,), 2) + F.np.linspace(0, 1, 3) + F.np.eye(3)[0]
                + F.np.arange(1, 4, 1, dtype='float32') + x[1] * F.np.sum(x[:, 1:2]) - F.np.sum(x[-1, 0:3:2]))
""", [([[0, 1, 2], [3, 4, 5]], "float32")]),
    "symbol_methods": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        y = x.reshape(-1, 2).T + x.reshape((3, 2)).transpose(1, 0).sum(axis=0, keepdims=True)
        return y * x.T.mean() + x.max(axis=0).reshape(1, 3) - x.min() + x.sum() + x.prod(axis=1).mean(axis=0)
""", [([[0, 1, 2], [3, 4, 5]], "float32")]),
    "like_makers": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return (x + F.np.zeros_like(x) + F.np.ones_like(x) + F.np.full_like(x, 3)
                + F.np.full_like(x, 2.5, dtype='float32'))
""", [([[0, 1, 2], [3, 4, 5]], "float32")]),
    "more_symbol_methods": ("""
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        y = x.astype('float64').astype('float32') + x.swapaxes(0, 1).flatten().reshape(2, 3) + x.clip(0, 3)
        return y + F.np.expand_dims(x, 0).squeeze(0) + x.argmax(axis=1).reshape(2, 1)
""", [([[0, 1, 2], [3, 4, 5]], "float32")]),
}


def record_export():
    """For each block: its outputs and the operators and attributes of its exported graph."""
    from mxnet import gluon
    out = {}
    for name, (source, inputs) in EXPORT_NETS.items():
        env = dict(gluon=gluon)
        exec(source, env)  # pylint: disable=exec-used
        net = env["Net"]()
        net.hybridize()
        res = net(*[np.array(v, dtype=d) for v, d in inputs])
        res = res if isinstance(res, (list, tuple)) else [res]
        prefix = os.path.join(OUT, "_export")
        net.export(prefix)
        nodes = json.load(open(prefix + "-symbol.json"))["nodes"]
        os.remove(prefix + "-symbol.json")
        os.remove(prefix + "-0000.params")
        out[name] = dict(source=source, inputs=inputs, outputs=[r.asnumpy().tolist() for r in res],
                         nodes=[[n["op"], n.get("attrs", {})] for n in nodes if n["op"] != "null"])
    with open(os.path.join(OUT, "export_nodes.json"), "w") as f:
        json.dump(out, f, indent=1)


def main():
    os.makedirs(OUT, exist_ok=True)
    npx.set_np()
    heads_rng = onp.random.RandomState(99)
    listing = {}
    for name, spec in CASES.items():
        inputs = {k: onp.asarray(v) for k, v in spec["inputs"].items()}
        entry = dict(expr=spec["expr"], inputs=sorted(inputs), grad=spec["grad"], values=spec["values"])
        data = {"in_" + k: v for k, v in inputs.items()}
        try:
            outs, heads, xs = run(spec, heads_rng)
            for o in outs:  # MXNet raises asynchronously: when the value is read
                getattr(o, "wait_to_read", lambda: None)()
        except Exception as e:  # pylint: disable=broad-except
            entry["error"] = type(e).__name__
            entry["message"] = str(e).split("\n")[0][:200]
            listing[name] = entry
            onp.savez(os.path.join(OUT, name + ".npz"), **data)
            continue
        entry["kinds"] = ["mx" if isinstance(o, np.ndarray) else "numpy" for o in outs]
        outs = [o if isinstance(o, np.ndarray) else _Plain(o) for o in outs]
        entry["dtypes"] = [str(o.dtype) for o in outs]
        entry["shapes"] = [list(o.shape) for o in outs]
        for i, o in enumerate(outs):
            if spec["values"]:
                data["out%d" % i] = o.asnumpy()
        for i, h in enumerate(heads):
            data["head%d" % i] = h
        for k in spec["grad"]:
            data["grad_" + k] = xs[k].grad.asnumpy()
        onp.savez(os.path.join(OUT, name + ".npz"), **data)
        listing[name] = entry
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(listing, f, indent=1, sort_keys=True)
    record_export()
    print("%d cases, %d errors" % (len(listing), sum("error" in e for e in listing.values())))
    for name, e in listing.items():
        print(name, e.get("error", ""), e.get("message", ""), e.get("kinds"), e.get("dtypes"), e.get("shapes"))


if __name__ == "__main__":
    main()
