"""Reductions, sorting, linear algebra and element-wise corner cases against MXNet 1.9.1.

The parametrized cases replay tests/fixtures/extra/math (made by
tools/make_extra_fixtures_math.py with real MXNet): outputs, dtypes and gradients.
The remaining tests cover errors and behaviour MXNet itself cannot record.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

EXTRA = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "math")
CASES = json.load(open(os.path.join(EXTRA, "cases.json")))["cases"]

RTOL, ATOL = 1e-4, 1e-5
# float16 results differ in the last bit where torch accumulates differently
TOLERANCE = {"sum_float16": (1e-3, 1e-3), "norm_float16": (1e-3, 1e-3), "cast_float64_to_float16": (1e-3, 1e-3),
             "amp_cast_float16": (1e-3, 1e-3)}


def _load(name):
    return dict(np.load(os.path.join(EXTRA, name + ".npz")))


def _check(actual, expected, what, name):
    rtol, atol = TOLERANCE.get(name, (RTOL, ATOL))
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s %s: shape %s, MXNet gave %s" % (name, what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s %s: dtype %s, MXNet gave %s" % (name, what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg="%s: %s" % (name, what))


def _run(spec, data, grad):
    inputs = [mx.nd.array(data["in:" + k], dtype=data["in:" + k].dtype) for k in spec["inputs"]]
    if grad:
        for x in inputs:
            x.attach_grad()
    attrs = dict(spec["attrs"])
    op = registry.get(spec["op"])
    if op.variadic:
        attrs.setdefault(op.variadic, len(inputs))  # MXNet's function fills in num_args
    with mx.autograd.record():
        out = invoke(op, inputs, attrs)
    return inputs, out if isinstance(out, list) else [out]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    spec, data = CASES[name], _load(name)
    grad = any(k.startswith("grad:") for k in data)
    inputs, outs = _run(spec, data, grad)
    assert len(outs) == len([k for k in data if k.startswith("out:")])
    for i, o in enumerate(outs):
        _check(o, data["out:%d" % i], "output %d" % i, name)
    if grad:
        heads = [mx.nd.array(data["head:%d" % i], dtype=data["head:%d" % i].dtype) for i in range(len(outs))]
        mx.autograd.backward(outs, heads)
        for k, x in zip(spec["inputs"], inputs):
            _check(x.grad, data["grad:" + k], "gradient of %s" % k, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbol_inference_matches_mxnet(name):
    """``Symbol.infer_shape``/``infer_type`` give the shapes and dtypes MXNet produced."""
    spec, data = CASES[name], _load(name)
    op = registry.get(spec["op"])
    variables = [mx.sym.var(k) for k in spec["inputs"]]
    attrs = dict(spec["attrs"])
    if op.variadic:
        fn = getattr(mx.sym, spec["op"])
        sym = fn(*variables, **attrs)
    else:
        fn = getattr(mx.sym, spec["op"], None) or getattr(mx.sym._internal, spec["op"])
        sym = fn(**dict(zip(op.all_input_names(), variables)), **attrs)
    ins = {k: data["in:" + k] for k in spec["inputs"]}
    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in ins.items()})
    _, out_types, _ = sym.infer_type(**{k: v.dtype for k, v in ins.items()})
    expected = [data["out:%d" % i] for i in range(len(out_shapes))]
    assert [tuple(s) for s in out_shapes] == [e.shape for e in expected]
    assert [np.dtype(t) for t in out_types] == [e.dtype for e in expected]


# ----------------------------------------------------------------------------- names and namespaces
def test_aliases_and_namespaces():
    for alias, real in [("sum_axis", "sum"), ("max_axis", "max"), ("min_axis", "min"), ("cast", "Cast"),
                        ("linalg_gemm2", "_linalg_gemm2"), ("linalg_potrf", "_linalg_potrf")]:
        assert registry.get(alias) is registry.get(real)
    x = mx.nd.array([[1, 2], [3, 4]])
    np.testing.assert_allclose(mx.nd.linalg.gemm2(x, x, alpha=2.0).asnumpy(), 2 * x.asnumpy() @ x.asnumpy())
    np.testing.assert_allclose(mx.nd.linalg_det(x).asnumpy(), [-2.0], rtol=1e-6)


def test_ndarray_methods_use_the_operators():
    x = mx.nd.array([[1, 5, 3], [4, 2, 6]])
    assert x.sum(axis=1).asnumpy().tolist() == [9, 12]
    assert x.max(axis=0, keepdims=True).shape == (1, 3)
    assert x.argmax(axis=1).asnumpy().tolist() == [1, 2]
    assert x.topk(k=1, ret_typ="value").asnumpy().tolist() == [[5], [6]]
    assert x.astype("int32").dtype == np.int32
    assert x.norm().shape == (1,)


def test_argmax_over_the_one_axis_of_a_vector_has_shape_1():
    """MXNet 1.9.1: ``nd.argmax(nd.ones((3,)), axis=0)`` has shape (1,), as every full reduction."""
    x = mx.nd.array([1, 5, 3])
    for op, want in (("argmax", 1), ("argmin", 0)):
        res = getattr(mx.nd, op)(x, axis=0)
        assert res.shape == (1,) and res.asnumpy().tolist() == [want]
        assert getattr(mx.nd, op)(x, axis=-1, keepdims=True).shape == (1,)


def test_topk_num_outputs_follow_mxnet():
    op = registry.get("topk")
    for ret_typ, total, visible in [("value", 2, 1), ("indices", 1, 1), ("mask", 1, 1), ("both", 2, 2)]:
        attrs = op.parse_attrs({"ret_typ": ret_typ})
        assert (op.num_outputs(attrs), op.num_visible_outputs(attrs)) == (total, visible)
    sort = registry.get("sort")
    assert (sort.num_outputs({}), sort.num_visible_outputs({})) == (2, 1)
    slogdet = registry.get("_linalg_slogdet")
    assert (slogdet.num_outputs({}), slogdet.num_visible_outputs({})) == (4, 2)


def test_attributes_parse_from_json_strings():
    x = mx.nd.array([[3, 1, 2]])
    assert invoke("topk", [x], {"axis": "None", "k": "2", "dtype": "int64"}).dtype == np.int64
    assert invoke("argmax", [x], {"axis": "None", "keepdims": "True"}).shape == (1, 1)
    assert invoke("sum", [x], {"axis": "(0, 1)", "exclude": "False"}).asnumpy().tolist() == [6]


# ----------------------------------------------------------------------------- beyond MXNet's own recordings
def test_sort_gradient_with_default_axis():
    """MXNet 1.9.1 fails to build sort's backward without an explicit axis; here it works."""
    x = mx.nd.array([[3, 1, 2]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sort(x)
    y.backward(mx.nd.array([[10, 20, 30]]))
    assert x.grad.asnumpy().tolist() == [[30, 10, 20]]


def test_amp_multicast():
    """MXNet's CPU build fails on this operator (MKLDNN); the documented behaviour is tested."""
    a, b = mx.nd.ones((2,), dtype="float32"), mx.nd.ones((2,), dtype="float16")
    i = mx.nd.ones((2,), dtype="int32")
    wide = mx.nd.amp_multicast(a, b, i, num_outputs=3)
    assert [o.dtype for o in wide] == [np.float32, np.float32, np.int32]
    narrow = mx.nd.amp_multicast(a, b, num_outputs=2, cast_narrow=True)
    assert [o.dtype for o in narrow] == [np.float16, np.float16]


def test_norm_out_dtype_casts_the_result():
    """MXNet 1.9.1's CPU kernel rejects out_dtype; the parameter's meaning is reproduced."""
    y = mx.nd.norm(mx.nd.array([[3, 4]], dtype="float16"), out_dtype="float32")
    assert y.dtype == np.float32 and y.asnumpy().tolist() == [5.0]


def test_index_outputs_have_zero_gradient():
    x = mx.nd.array([[3, 1, 2]])
    x.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.topk(x, k=2, ret_typ="both")
    mx.autograd.backward(outs, [mx.nd.ones((1, 2)), mx.nd.ones((1, 2))])
    assert x.grad.asnumpy().tolist() == [[1, 0, 1]]


# ----------------------------------------------------------------------------- user mistakes
ERRORS = [
    ("sum", [(2, 3)], {"axis": 5}, "axis 5"),
    ("sum", [(2, 3)], {"axis": (0, 0)}, "duplicates"),
    ("norm", [(2, 3)], {"ord": 3}, "ord"),
    ("argmax", [(2, 3)], {"axis": 2}, "axis 2"),
    ("topk", [(2, 3)], {"k": 5}, "k=5"),
    ("sort", [(2, 3)], {"axis": -3}, "axis -3"),
    ("moments", [(2, 3)], {}, "axes"),
    ("dot", [(2, 3), (2, 3)], {}, "(2, 3)"),
    ("dot", [(3,), (3,)], {"transpose_a": True}, "vectors"),
    ("batch_dot", [(2, 3, 4), (2, 3, 4)], {}, "(2, 3, 4)"),
    ("batch_dot", [(3, 4), (4, 5)], {}, "N >= 3"),
    ("batch_dot", [(2, 4, 5), (1, 5, 2)], {}, "(1, 5, 2)"),
    ("khatri_rao", [(2, 3), (2, 4)], {"num_args": 2}, "columns"),
    ("_linalg_gemm2", [(2, 3), (2, 3)], {}, "incompatible"),
    ("_linalg_inverse", [(2, 3)], {}, "square"),
    ("_linalg_maketrian", [(4,)], {}, "triangular"),
    ("_linalg_gelqf", [(3, 2)], {}, "rows"),
    ("elemwise_add", [(2, 3), (3, 2)], {}, "(3, 2)"),
    ("Cast", [(2,)], {"dtype": "complex64"}, "dtype"),
]


@pytest.mark.parametrize("op,shapes,attrs,needle", ERRORS, ids=["%s-%d" % (e[0], i) for i, e in enumerate(ERRORS)])
def test_user_mistakes_raise_mxnet_error(op, shapes, attrs, needle):
    inputs = [mx.nd.ones(s) for s in shapes]
    with pytest.raises(MXNetError) as info:
        invoke(op, inputs, attrs)
    assert needle in str(info.value) and op in str(info.value)


def test_linalg_failures_name_the_operator():
    with pytest.raises(MXNetError, match="_linalg_potrf.*positive definite"):
        mx.nd.linalg.potrf(mx.nd.array([[1, 2], [2, 1]]))
    with pytest.raises(MXNetError, match="_linalg_inverse.*singular"):
        mx.nd.linalg.inverse(mx.nd.array([[1, 2], [2, 4]]))
