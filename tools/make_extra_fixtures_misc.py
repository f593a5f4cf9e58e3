"""Record MXNet 1.9.1's answers for the miscellaneous operators of issue 12 (cumsum,
arange_like, index and histogram operators, the ``_v1`` layers, scatter and sparse
aliases, ...) and for registered operators that had no recorded case yet (creation
operators, logical and hypot operators, ``_square_sum``, ``amp_multicast``, ...).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_misc.py

It writes ``tests/fixtures/extra/misc`` (see ``tools/mxcases.py`` for the format);
``tests/test_ops_misc.py`` replays the cases imperatively and through ``bind``.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxcases import Recorder  # noqa: E402

R = Recorder("misc")
RNG = np.random.RandomState(42)


def U(*shape, lo=-2.0, hi=2.0, dtype="float32"):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def INT(*shape, lo=0, hi=5, dtype="int32"):
    return RNG.randint(lo, hi, size=shape).astype(dtype)


case = R.case

# ----------------------------------------------------------------------------- registered, not yet recorded
case("arange_repeat", "_arange", [], dict(start=1.0, stop=4.0, step=0.5, repeat=2))
case("arange_int", "_arange", [], dict(start=2, stop=9, step=3, dtype="int32"))
case("linspace", "_linspace", [], dict(start=-1.0, stop=2.0, num=7, endpoint=False, dtype="float64"))
case("eye_k", "_eye", [], dict(N=3, M=5, k=1))
case("full", "_full", [], dict(shape=(2, 3), value=2.5, dtype="float16"))
case("ones_int", "_ones", [], dict(shape=(3, 2), dtype="int64"))
X = U(3, 4)
Y = U(3, 4)
X[0, :2] = 0
Y[1, 1:3] = 0
for op in ("_logical_and", "_logical_or", "_logical_xor"):
    case(op[1:], op, [("lhs", X), ("rhs", Y)], grad=["lhs", "rhs"])
    case(op[1:] + "_scalar", op + "_scalar", [("data", X)], dict(scalar=1.5), grad=["data"])
case("broadcast_logical_xor", "broadcast_logical_xor", [("lhs", X), ("rhs", Y[:1])], grad=["lhs", "rhs"])
case("hypot_scalar", "_hypot_scalar", [("data", X)], dict(scalar=-1.5), grad=["data"])
# MXNet's MKL-DNN build runs amp_multicast on float32 only (float16 and float64 fail with
# 'unknown type for MKLDNN'), and cannot record it under autograd
case("amp_multicast", "amp_multicast", [("a", U(2, 3)), ("b", U(2, 3)), ("c", U(3))], dict(num_outputs=3))
BN = [("data", U(2, 3, 4, 4)), ("gamma", U(3, lo=0.5)), ("beta", U(3)), ("moving_mean", U(3)),
      ("moving_var", U(3, lo=0.5))]
case("bn_relu", "_contrib_BatchNormWithReLU", BN, dict(fix_gamma=False), grad=["data", "gamma", "beta"])

# ----------------------------------------------------------------------------- cumsum, arange_like
case("cumsum_flat", "cumsum", [("a", U(2, 3))], grad=["a"])
case("cumsum_axis", "cumsum", [("a", U(2, 3, 4))], dict(axis=1), grad=["a"])
case("cumsum_error_negative_axis", "cumsum", [("a", U(2, 3, 4))], dict(axis=-2))  # MXNet 1.9.1 rejects it
case("cumsum_int_to_float", "cumsum", [("a", INT(3, 2))], dict(axis=0, dtype="float64"))
case("cumsum_int", "cumsum", [("a", INT(5))])
case("cumsum_uint8", "cumsum", [("a", INT(2, 4, hi=200, dtype="uint8"))], dict(axis=1))
case("cumsum_error_axis", "cumsum", [("a", U(2, 3))], dict(axis=2))
case("arange_like", "_contrib_arange_like", [("data", U(2, 3))])
case("arange_like_axis", "_contrib_arange_like", [("data", U(2, 5, 3))], dict(axis=1, start=2.0, step=-0.5))
case("arange_like_repeat", "_contrib_arange_like", [("data", U(2, 3, dtype="float16"))],
     dict(repeat=2, start=1.0))
case("arange_like_int", "_contrib_arange_like", [("data", INT(2, 3))], dict(axis=-1, start=1.5, step=0.5))
case("arange_like_float64_neg_axis", "_contrib_arange_like", [("data", U(4, 2, dtype="float64"))],
     dict(axis=-2, step=3.0))

# ----------------------------------------------------------------------------- index arithmetic
case("index_array", "_contrib_index_array", [("data", U(2, 3, 2))])
case("index_array_axes", "_contrib_index_array", [("data", U(2, 3, 4))], dict(axes=(2, -3)))
case("ravel_multi_index", "ravel_multi_index", [("data", np.array([[3, 6, 6], [4, 5, 1]], "float32"))],
     dict(shape=(7, 6)))
case("ravel_multi_index_3d_int", "_ravel_multi_index", [("data", np.array([[1, 0], [2, 1], [3, 0]], "int32"))],
     dict(shape=(2, 3, 4)))
case("unravel_index", "unravel_index", [("data", np.array([22, 41, 37], "float32"))], dict(shape=(7, 6)))
case("unravel_index_int64", "_unravel_index", [("data", np.array([0, 23, 7, 12], "int64"))], dict(shape=(2, 3, 4)))

# ----------------------------------------------------------------------------- numeric
case("quadratic", "_contrib_quadratic", [("data", U(2, 3))], dict(a=1.5, b=-2.0, c=0.5), grad=["data"])
case("quadratic_default", "_contrib_quadratic", [("data", U(4))], grad=["data"])
case("allclose_true", "_contrib_allclose", [("a", np.array([1.0, 2.0], "float32")),
                                            ("b", np.array([1.0, 2.00001], "float32"))])
case("allclose_false", "_contrib_allclose", [("a", U(2, 3)), ("b", U(2, 3))], dict(rtol=0.1, atol=0.1))
case("allclose_nan", "_contrib_allclose", [("a", np.array([np.nan, 1.0], "float32")),
                                           ("b", np.array([np.nan, 1.0], "float32"))], dict(equal_nan=False))
case("histogram_uniform", "_histogram", [("data", np.array([0.1, 0.5, 0.9, 1.5, 0.3, -1.0, 2.0], "float32"))],
     dict(bin_cnt=4, range=(0.0, 2.0)))
case("histogram_bins", "_histogram", [("data", U(20, lo=0, hi=3)), ("bins", np.array([0, 0.5, 1, 2, 3], "float32"))])
case("histogram_float64", "_histogram", [("data", U(3, 5, dtype="float64"))], dict(bin_cnt=3, range=(-1.0, 1.0)))

# ----------------------------------------------------------------------------- gradient transforms
case("gradientmultiplier", "_contrib_gradientmultiplier", [("data", U(2, 3))], dict(scalar=-0.5), grad=["data"])
case("round_ste", "_contrib_round_ste", [("data", U(2, 3) * 2)], grad=["data"])
case("sign_ste", "_contrib_sign_ste", [("data", U(2, 3))], grad=["data"])
case("sparse_round_ste", "_sparse__contrib_round_ste", [("data", U(5))], grad=["data"])
case("kl_sparse_reg", "IdentityAttachKLSparseReg",
     [("data", U(4, 3, lo=0.05, hi=0.95)), ("moving_avg", U(3, lo=0.1, hi=0.9))],
     dict(sparseness_target=0.2, penalty=0.01, momentum=0.8), grad=["data"], mutates=["moving_avg"], raw=True)

# ----------------------------------------------------------------------------- legacy operators
case("onehot_encode", "_onehot_encode", [("lhs", np.array([1, 0, 3], "float32")), ("rhs", U(3, 4))])
case("fill_element_0index", "fill_element_0index",
     [("lhs", U(3, 4)), ("mhs", np.array([5, 6, 7], "float32")), ("rhs", np.array([2, 0, 3], "float32"))],
     )  # MXNet registers no gradient
case("scatter_plus_scalar", "_scatter_plus_scalar", [("data", U(2, 3))], dict(scalar=1.5), grad=["data"])
case("scatter_minus_scalar", "_scatter_minus_scalar", [("data", U(2, 3))], dict(scalar=0.5), grad=["data"])
case("scatter_elemwise_div", "_scatter_elemwise_div", [("lhs", U(2, 3)), ("rhs", U(2, 3, lo=0.5))],
     grad=["lhs", "rhs"])
case("scatter_set_nd", "_scatter_set_nd",
     [("lhs", U(3, 4)), ("rhs", np.array([9, 8], "float32")), ("indices", np.array([[0, 2], [1, 3]], "float32"))],
     dict(shape=(3, 4)), out_like=["lhs"])  # MXNet runs it in place only
CONV = [("data", U(2, 3, 7, 6)), ("weight", U(4, 3, 3, 2)), ("bias", U(4))]
case("convolution_v1", "Convolution_v1", CONV, dict(kernel=(3, 2), num_filter=4, stride=(2, 1), pad=(1, 0)),
     grad=["data", "weight", "bias"])
case("convolution_v1_group_nobias", "Convolution_v1", [("data", U(1, 4, 5, 5)), ("weight", U(6, 2, 3, 3))],
     dict(kernel=(3, 3), num_filter=6, num_group=2, no_bias=True, dilate=(2, 1)), grad=["data", "weight"])
case("pooling_v1_max", "Pooling_v1", [("data", U(2, 2, 5, 6))], dict(kernel=(2, 3), stride=(2, 2)), grad=["data"])
case("pooling_v1_avg_full", "Pooling_v1", [("data", U(1, 2, 5, 5))],
     dict(kernel=(2, 2), stride=(2, 2), pool_type="avg", pooling_convention="full"), grad=["data"])
case("pooling_v1_sum_global", "Pooling_v1", [("data", U(2, 3, 4, 4))], dict(pool_type="sum", global_pool=True),
     grad=["data"])
case("batchnorm_v1", "BatchNorm_v1", [("data", U(4, 3, 2, 2)), ("gamma", U(3, lo=0.5)), ("beta", U(3)),
                                      ("moving_mean", U(3)), ("moving_var", U(3, lo=0.5, hi=1.5))],
     dict(fix_gamma=False), grad=["data", "gamma", "beta"], raw=True)
case("batchnorm_v1_fix_gamma", "BatchNorm_v1", [("data", U(4, 3)), ("gamma", U(3, lo=0.5)), ("beta", U(3)),
                                                ("moving_mean", U(3)), ("moving_var", U(3, lo=0.5, hi=1.5))],
     grad=["data", "beta"], raw=True)

case("identity_with_attr_like_rhs", "_identity_with_attr_like_rhs", [("lhs", U(2, 3)), ("rhs", U(2, 3))],
     grad=["lhs", "rhs"])

# ----------------------------------------------------------------------------- Hawkes process log-likelihood
N, K, T = 3, 2, 4
HAWKES = [("lda", U(N, K, lo=0.5, hi=2.0)), ("alpha", U(K, lo=0.1, hi=0.6)), ("beta", U(K, lo=0.5, hi=2.0)),
          ("state", U(N, K, lo=0.0, hi=1.0)), ("lags", U(N, T, lo=0.1, hi=1.5)),
          ("marks", INT(N, T, hi=K)), ("valid_length", np.array([4, 2, 0], "float32")),
          ("max_time", np.array([8.0, 5.0, 3.0], "float32"))]
case("hawkesll", "_contrib_hawkesll", HAWKES, grad=["lda", "alpha", "beta", "state"])

# ----------------------------------------------------------------------------- sparse names of dense operators
case("sparse_abs", "_sparse_abs", [("data", U(2, 3))], grad=["data"])
case("sparse_broadcast_plus", "_sparse_broadcast_plus", [("lhs", U(2, 3)), ("rhs", U(1, 3))], grad=["lhs", "rhs"])
case("sparse_dot", "_sparse_dot", [("lhs", U(2, 3)), ("rhs", U(3, 4))], dict(transpose_a=False), grad=["lhs", "rhs"])
case("sparse_sum", "_sparse_sum", [("data", U(2, 3))], dict(axis=1), grad=["data"])
case("sparse_zeros_like", "_sparse_zeros_like", [("data", U(2, 3))])
case("sparse_stop_gradient", "_sparse_stop_gradient", [("data", U(2, 3))], grad=["data"])
case("sparse_elemwise_mul", "_sparse_elemwise_mul", [("lhs", U(2, 3)), ("rhs", U(2, 3))], grad=["lhs", "rhs"])
case("sparse_add_n", "_sparse_add_n", [("a", U(2, 2)), ("b", U(2, 2)), ("c", U(2, 2))], dict(num_args=3),
     grad=["a", "b", "c"])



def split_v2_symbols():
    """``mx.sym.split_v2`` is a Python function: record the graphs it writes."""
    import json
    import mxnet as mx
    a = mx.sym.var("a")
    graphs = {"sections": mx.sym.split_v2(a, 3, axis=1).tojson(),
              "indices": mx.sym.split_v2(a, (1, 4), axis=-1, squeeze_axis=True).tojson()}
    with open(os.path.join(R.out, "split_v2_symbols.json"), "w") as f:
        json.dump(graphs, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    R.write()
    split_v2_symbols()
