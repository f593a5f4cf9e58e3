"""Reference values from real MXNet 1.9.1 for tests/test_ops_math.py.

Covers what the shared fixtures do not: reductions with exclude/keepdims and integer
inputs, every topk mode, sorting ties, arg-function dtypes, the whole _linalg_ family,
casts and element-wise corner cases (ties, boundaries, integer arithmetic).

Run with the reference environment (never from the project itself):

    /tmp/mxref/bin/python tools/make_extra_fixtures_math.py

It writes tests/fixtures/extra/math/<case>.npz (``in:<name>`` inputs, ``out:<i>``
outputs, ``head:<i>`` head gradients and ``grad:<name>`` gradients) and cases.json
(per case: the operator, its input names in order, attributes as MXNet's strings).
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "math")
rs = np.random.RandomState(1919)
CASES = {}


def U(*shape, lo=-1.0, hi=1.0, dtype="float32"):
    return rs.uniform(lo, hi, size=shape).astype(dtype)


def INT(*shape, lo=-9, hi=10, dtype="int32"):
    return rs.randint(lo, hi, size=shape).astype(dtype)


def SPD(n, batch=()):
    m = rs.uniform(-1, 1, size=batch + (n, n))
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype("float32")


def LOWER(n, batch=()):
    m = np.tril(rs.uniform(-1, 1, size=batch + (n, n)))
    idx = np.arange(n)
    m[..., idx, idx] = rs.uniform(1.5, 3.0, size=batch + (n,))
    return m.astype("float32")


def mx_op(name):
    """MXNet's imperative function for a registered operator name."""
    for ns in (mx.nd.op, mx.nd._internal):
        if hasattr(ns, name):
            return getattr(ns, name)
    if name.startswith("_linalg_"):
        return getattr(mx.nd.linalg, name[len("_linalg_"):])
    raise KeyError(name)


def case(name, op, inputs, grad=True, **attrs):
    """Run ``op`` on the named inputs; record outputs and (if ``grad``) input gradients.

    Operators MXNet cannot differentiate are recorded without gradients."""
    try:
        _case(name, op, inputs, grad, attrs)
    except mx.base.MXNetError as e:
        if not (grad and "non-differentiable" in str(e)):
            raise
        _case(name, op, inputs, False, attrs)


def _case(name, op, inputs, grad, attrs):
    arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in inputs.items()}
    if grad:
        for a in arrays.values():
            a.attach_grad()
    with mx.autograd.record():
        outs = mx_op(op)(*arrays.values(), **attrs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    data = {"in:" + k: v for k, v in inputs.items()}
    for i, o in enumerate(outs):
        data["out:%d" % i] = o.asnumpy()
    if grad:
        heads = [mx.nd.array(U(*o.shape), dtype=o.dtype) for o in outs]
        mx.autograd.backward(outs, heads)
        for i, h in enumerate(heads):
            data["head:%d" % i] = h.asnumpy()
        for k, a in arrays.items():
            data["grad:" + k] = a.grad.asnumpy()
    np.savez(os.path.join(OUT, name + ".npz"), **data)
    CASES[name] = {"op": op, "inputs": list(inputs), "attrs": {k: str(v) for k, v in attrs.items()}}


def reductions():
    x = U(2, 3, 4)
    case("sum_exclude_keepdims", "sum", {"x": x}, axis=(0, 2), exclude=True, keepdims=True)
    case("sum_axis_neg_keepdims", "sum", {"x": x}, axis=-1, keepdims=True)
    case("sum_empty_axis", "sum", {"x": x}, axis=())
    case("sum_all_keepdims", "sum", {"x": x}, keepdims=True)
    case("sum_exclude_none", "sum", {"x": x}, exclude=True)
    case("sum_axis_alias", "sum_axis", {"x": x}, axis=1)
    case("sum_int32", "sum", {"x": INT(3, 4)}, grad=False, axis=1)
    case("sum_uint8_wraps", "sum", {"x": np.array([[200, 100, 7]], dtype="uint8")}, grad=False)
    case("sum_float16", "sum", {"x": U(3, 5, dtype="float16")}, axis=0)
    case("sum_float64", "sum", {"x": U(3, 5, dtype="float64")}, axis=(0, 1))
    case("mean_int32_truncates", "mean", {"x": np.array([[-1, -2, -4], [3, 4, 1]], dtype="int32")},
         grad=False, axis=1)
    case("mean_uint8_wraps", "mean", {"x": np.array([[200, 100]], dtype="uint8")}, grad=False)
    case("mean_exclude", "mean", {"x": x}, axis=1, exclude=True)
    ties = np.array([[[1, 3, 3], [2, 2, 0]], [[5, 5, 5], [-1, 0, -1]]], dtype="float32")
    case("max_ties", "max", {"x": ties}, axis=2)
    case("min_ties_all", "min", {"x": ties})
    case("max_axis_alias_keepdims", "max_axis", {"x": ties}, axis=(0, 2), keepdims=True)
    case("min_axis_alias_exclude", "min_axis", {"x": ties}, axis=0, exclude=True)
    case("max_int32", "max", {"x": INT(3, 4)}, grad=False, axis=0)
    case("prod_zeros", "prod", {"x": np.array([[1, 0, 3], [0, 0, 2], [1, 2, 3]], dtype="float32")}, axis=1)
    case("prod_int32", "prod", {"x": INT(2, 3, lo=-3, hi=4)}, grad=False, axis=1)
    case("prod_keepdims", "prod", {"x": U(2, 3, 2, lo=0.5, hi=1.5)}, axis=(0, 2), keepdims=True)
    nan = np.array([[1, np.nan, 3], [np.nan, np.nan, 2], [0.5, 2, -1]], dtype="float32")
    case("nansum_nan", "nansum", {"x": nan}, axis=1)
    case("nansum_all", "nansum", {"x": nan})
    case("nanprod_nan", "nanprod", {"x": nan}, axis=1)
    case("nanprod_exclude", "nanprod", {"x": nan}, axis=1, exclude=True, keepdims=True)
    case("norm_ord1_keepdims", "norm", {"x": x}, ord=1, axis=(0, 2), keepdims=True)
    case("norm_zero_row", "norm", {"x": np.array([[0, 0, 0], [3, 4, 0]], dtype="float32")}, axis=-1)
    case("norm_three_axes", "norm", {"x": x}, axis=(0, 1, 2))
    case("norm_keepdims_all", "norm", {"x": x}, keepdims=True)
    case("norm_float16", "norm", {"x": U(3, 4, dtype="float16")}, grad=False)
    case("moments_axes", "moments", {"x": x}, axes=(0, 2))
    case("moments_keepdims", "moments", {"x": x}, axes=(1,), keepdims=True)


def arg_and_sort():
    x = U(3, 5)
    ties = np.array([[1, 3, 3, 0, 3], [0, 0, 2, 0, 2]], dtype="float32")
    case("argmax_int32", "argmax", {"x": INT(3, 5)}, grad=False, axis=1)
    case("argmax_float16", "argmax", {"x": U(3, 5, dtype="float16")}, grad=False, axis=0)
    case("argmax_none", "argmax", {"x": x})
    case("argmax_none_keepdims", "argmax", {"x": U(2, 3, 4)}, keepdims=True)
    case("argmax_keepdims", "argmax", {"x": x}, axis=0, keepdims=True)
    case("argmax_ties", "argmax", {"x": ties}, axis=1)
    case("argmin_ties_neg_axis", "argmin", {"x": ties}, axis=-1, keepdims=True)
    case("argmax_channel_3d", "argmax_channel", {"x": U(2, 3, 4)})
    case("argmax_channel_int32", "argmax_channel", {"x": INT(3, 4)}, grad=False)
    case("topk_both", "topk", {"x": x}, k=2, ret_typ="both")
    case("topk_mask", "topk", {"x": x}, k=2, ret_typ="mask")
    case("topk_mask_int32", "topk", {"x": INT(3, 5)}, grad=False, k=3, ret_typ="mask", axis=0)
    case("topk_indices_int64", "topk", {"x": x}, grad=False, k=2, dtype="int64")
    case("topk_value_int32", "topk", {"x": INT(3, 5)}, grad=False, k=2, ret_typ="value")
    case("topk_ascend_axis0", "topk", {"x": x}, k=2, axis=0, is_ascend=True, ret_typ="both")
    case("topk_axis_none", "topk", {"x": x}, k=4, axis=None, ret_typ="both")
    case("topk_mask_axis_none", "topk", {"x": x}, k=4, axis=None, ret_typ="mask")
    case("topk_k0_all", "topk", {"x": x}, k=0, ret_typ="both")
    case("topk_ties_desc", "topk", {"x": ties}, k=3, ret_typ="both")
    case("topk_ties_asc", "topk", {"x": ties}, k=3, ret_typ="both", is_ascend=True)
    case("topk_value_3d", "topk", {"x": U(2, 4, 3)}, k=2, axis=1, ret_typ="value")
    case("sort_axis_none", "sort", {"x": x}, axis=None)
    case("sort_int32", "sort", {"x": INT(3, 5)}, grad=False)
    case("sort_ties_desc", "sort", {"x": ties}, axis=1, is_ascend=False)
    case("sort_axis0", "sort", {"x": U(3, 2, 4)}, axis=0)
    case("argsort_ties_desc", "argsort", {"x": ties}, is_ascend=False)
    case("argsort_ties_asc", "argsort", {"x": ties})
    case("argsort_int32_dtype", "argsort", {"x": x}, grad=False, dtype="int32")
    case("argsort_axis_none", "argsort", {"x": x}, axis=None)
    case("argsort_int_input", "argsort", {"x": INT(3, 5)}, grad=False, axis=0)


def linalg():
    case("dot_vec_vec", "dot", {"a": U(4), "b": U(4)})
    case("dot_vec_mat", "dot", {"a": U(3), "b": U(3, 4)})
    case("dot_mat_vec", "dot", {"a": U(2, 3), "b": U(3)})
    case("dot_3d_3d", "dot", {"a": U(2, 3, 4), "b": U(4, 2, 3)})
    case("dot_nd_transpose_a", "dot", {"a": U(3, 2, 4), "b": U(3, 5)}, transpose_a=True)
    case("dot_nd_transpose_b", "dot", {"a": U(2, 3, 4), "b": U(5, 2, 4)}, transpose_b=True)
    case("dot_transpose_both", "dot", {"a": U(3, 2), "b": U(4, 3)}, transpose_a=True, transpose_b=True)
    case("dot_vec_transpose_b", "dot", {"a": U(3), "b": U(4, 3)}, transpose_b=True)
    case("batch_dot_4d", "batch_dot", {"a": U(2, 3, 4, 5), "b": U(2, 3, 5, 2)})
    case("batch_dot_transpose_a", "batch_dot", {"a": U(2, 5, 4), "b": U(2, 5, 3)}, transpose_a=True)
    case("khatri_rao_three", "khatri_rao", {"a": U(2, 3), "b": U(1, 3), "c": U(3, 3)}, grad=False)
    case("khatri_rao_one", "khatri_rao", {"a": U(2, 3)}, grad=False)
    case("linalg_gemm", "_linalg_gemm", {"a": U(2, 3, 4), "b": U(2, 5, 4), "c": U(2, 3, 5)},
         transpose_b=True, alpha=0.7, beta=-1.5)
    case("linalg_gemm_axis0", "_linalg_gemm", {"a": U(3, 2, 4), "b": U(4, 2, 5), "c": U(3, 2, 5)}, axis=0)
    case("linalg_gemm2_axis", "_linalg_gemm2", {"a": U(3, 2, 4, 2), "b": U(3, 2, 4, 5)},
         transpose_a=True, axis=-3)
    case("linalg_gemm2_transpose_b", "_linalg_gemm2", {"a": U(3, 4), "b": U(2, 4)}, transpose_b=True, alpha=2.0)
    case("linalg_potrf", "_linalg_potrf", {"a": SPD(3, (2,))})
    case("linalg_potri", "_linalg_potri", {"a": LOWER(3, (2,))})
    for i, (tr, right, low) in enumerate([(False, False, True), (True, False, True), (False, True, False),
                                          (True, True, False)]):
        b = U(2, 3, 4) if not right else U(2, 4, 3)
        case("linalg_trmm_%d" % i, "_linalg_trmm", {"a": U(2, 3, 3), "b": b},
             transpose=tr, rightside=right, lower=low, alpha=1.5)
        a = LOWER(3, (2,))
        case("linalg_trsm_%d" % i, "_linalg_trsm", {"a": a if low else np.swapaxes(a, -1, -2).copy() + U(2, 3, 3),
                                                     "b": b}, transpose=tr, rightside=right, lower=low, alpha=0.5)
    case("linalg_syrk", "_linalg_syrk", {"a": U(2, 3, 4)}, alpha=0.5)
    case("linalg_syrk_transpose", "_linalg_syrk", {"a": U(3, 4)}, transpose=True)
    case("linalg_sumlogdiag", "_linalg_sumlogdiag", {"a": SPD(3, (2,))})
    case("linalg_sumlogdiag_2d", "_linalg_sumlogdiag", {"a": SPD(3)})
    case("linalg_det", "_linalg_det", {"a": U(2, 3, 3)})
    case("linalg_det_2d", "_linalg_det", {"a": U(3, 3)})
    case("linalg_slogdet", "_linalg_slogdet", {"a": U(2, 3, 3)})
    case("linalg_inverse", "_linalg_inverse", {"a": SPD(3, (2,))})
    case("linalg_extractdiag", "_linalg_extractdiag", {"a": U(2, 4, 4)}, offset=1)
    case("linalg_extractdiag_neg", "_linalg_extractdiag", {"a": U(3, 3)}, offset=-2)
    case("linalg_makediag", "_linalg_makediag", {"a": U(2, 3)}, offset=-1)
    case("linalg_makediag_1d", "_linalg_makediag", {"a": U(3)})
    sq = U(2, 4, 4)
    case("linalg_extracttrian", "_linalg_extracttrian", {"a": sq})
    case("linalg_extracttrian_upper", "_linalg_extracttrian", {"a": sq}, lower=False)
    case("linalg_extracttrian_off_pos", "_linalg_extracttrian", {"a": sq}, offset=1)
    case("linalg_extracttrian_off_neg", "_linalg_extracttrian", {"a": sq}, offset=-2, lower=False)
    case("linalg_maketrian", "_linalg_maketrian", {"a": U(2, 6)})
    case("linalg_maketrian_upper", "_linalg_maketrian", {"a": U(10)}, lower=False)
    case("linalg_maketrian_off_pos", "_linalg_maketrian", {"a": U(2, 3)}, offset=1)
    case("linalg_maketrian_off_neg", "_linalg_maketrian", {"a": U(6)}, offset=-2)
    case("linalg_gelqf", "_linalg_gelqf", {"a": U(2, 3, 5)})
    case("linalg_syevd", "_linalg_syevd", {"a": SPD(3, (2,))})


def elementwise():
    f = np.array([[-1.0, 300.0, 3.7, -3.7], [0.0, 2.5, -0.5, 255.0]], dtype="float32")
    case("cast_uint8_wraps", "Cast", {"x": f}, grad=False, dtype="uint8")
    case("cast_int8", "Cast", {"x": np.array([[-1.5, 3.7, -3.7, 100.2]], dtype="float32")}, grad=False, dtype="int8")
    case("cast_int_to_float64", "cast", {"x": INT(2, 3)}, grad=False, dtype="float64")
    case("cast_float64_to_float16", "Cast", {"x": U(2, 3, dtype="float64")}, dtype="float16")
    case("amp_cast_int_passes", "amp_cast", {"x": INT(2, 3)}, grad=False, dtype="float16")
    case("amp_cast_float16", "amp_cast", {"x": U(2, 3)}, dtype="float16")
    case("logical_not_float", "logical_not", {"x": np.array([[0, -5, 0.5], [1, 0, 0]], dtype="float32")})
    case("logical_not_int", "logical_not", {"x": INT(2, 3, lo=-1, hi=2)}, grad=False)
    case("grad_add", "_grad_add", {"a": U(2, 3), "b": U(2, 3)})
    a, b = np.array([[1, 2, 0], [4, 4, -1]], dtype="float32"), np.array([[1, 1, 1], [4, 5, -1]], dtype="float32")
    case("broadcast_maximum_ties", "broadcast_maximum", {"a": a, "b": b})
    case("broadcast_minimum_ties", "broadcast_minimum", {"a": a, "b": b[:1]})
    case("maximum_ties", "_maximum", {"a": a, "b": b})
    case("minimum_ties", "_minimum", {"a": a, "b": b})
    case("maximum_scalar_ties", "_maximum_scalar", {"x": a}, scalar=1.0)
    case("minimum_scalar_ties", "_minimum_scalar", {"x": a}, scalar=4.0)
    case("clip_boundaries", "clip", {"x": np.array([[-1, 1, 0, 2, -2]], dtype="float32")}, a_min=-1.0, a_max=1.0)
    case("hard_sigmoid_boundaries", "hard_sigmoid", {"x": np.array([[-2.5, 2.5, 0, 1, -3]], dtype="float32")})
    case("cbrt_zero", "cbrt", {"x": np.array([[0, -8, 27, 0.001]], dtype="float32")})
    case("greater_grad_zero", "broadcast_greater", {"a": a, "b": b})
    case("equal_scalar_grad_zero", "_equal_scalar", {"x": a}, scalar=4.0)
    case("round_halves", "round", {"x": np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]], dtype="float32")})
    case("rint_halves", "rint", {"x": np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]], dtype="float32")})
    case("gamma_negative", "gamma", {"x": np.array([[-1.5, -0.5, 0.5, 2.5, 4.0]], dtype="float32")})
    case("gammaln_negative", "gammaln", {"x": np.array([[-1.5, -0.5, 0.5, 2.5, 4.0]], dtype="float32")})
    ia, ib = INT(3, 4), INT(1, 4, lo=1, hi=5) * np.array([1, -1, 1, -1], dtype="int32")
    for name in ("broadcast_div", "broadcast_mod", "broadcast_power", "broadcast_maximum", "broadcast_greater"):
        case(name + "_int32", name, {"a": ia, "b": ib if name != "broadcast_power" else np.abs(ib)}, grad=False)
    for name, s in (("_div_scalar", 2.0), ("_rdiv_scalar", 7.0), ("_mod_scalar", 3.0), ("_rmod_scalar", 7.0),
                    ("_plus_scalar", 2.5), ("_mul_scalar", 1.5), ("_power_scalar", 2.0), ("_greater_scalar", 0.5)):
        case(name + "_int32", name, {"x": INT(2, 4, lo=1, hi=9) * np.array([1, -1, 1, -1], dtype="int32")},
             grad=False, scalar=s)
    for name, lo, hi in (("tan", -1.2, 1.2), ("arcsinh", -3, 3), ("arccosh", 1.1, 4), ("arctanh", -0.9, 0.9),
                         ("rcbrt", 0.2, 8), ("degrees", -3, 3), ("radians", -200, 200)):
        case("unary_" + name, name, {"x": U(2, 5, lo=lo, hi=hi)})
    for name in ("abs", "square", "negative", "sign", "sqrt", "exp", "relu", "sigmoid"):
        case(name + "_int32", name, {"x": INT(2, 4, lo=0 if name == "sqrt" else -5, hi=6)}, grad=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    reductions()
    arg_and_sort()
    linalg()
    elementwise()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"generator": "tools/make_extra_fixtures_math.py", "mxnet": mx.__version__, "cases": CASES},
                  f, indent=1, sort_keys=True)
    print("wrote %d cases to %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
