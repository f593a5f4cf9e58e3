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

if __name__ == "__main__":
    R.write()
