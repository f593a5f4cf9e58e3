"""Shape and indexing operators against MXNet 1.9.1, beyond the shared fixtures.

The recorded cases (``tests/fixtures/extra/shape``, made by
``tools/make_extra_fixtures_shape.py``) give outputs and gradients for special reshape
codes, negative steps and axes, multi-output splits, out-of-range indices and the
errors MXNet raises. The tests after them check the API around the operators
(aliases, ``mx.nd`` signatures, attribute strings, ``infer_args``).
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "shape")
CASES = json.load(open(os.path.join(FIXTURES, "cases.json")))

# cases where MXNet fails internally rather than answering; neogluon gives numpy's answer
INTERNAL_FAILURES = {
    "slice_1d_3": lambda x: x[8:2],  # an empty slice: MXNet fails in its allocator ('delay_alloc')
}


# cases MXNet's imperative mode accepts without checking, where neogluon raises
STRICTER = {
    "stack_error": "inputs of shapes (2, 3) and (3, 2): MXNet reads the second one's memory as (2, 3)",
}
# gradients where MXNet's backward disagrees with its own forward; neogluon's follows the forward
GRADIENT_DEVIATIONS = {
    "gather_nd_negative": "MXNet's backward does not wrap negative indices (it writes outside the gradient)",
}


def load(name):
    spec = CASES[name]
    data = dict(np.load(os.path.join(FIXTURES, name + ".npz")))
    inputs = [mx.nd.array(data["in:" + n], dtype=data["in:" + n].dtype) for n in spec["inputs"]]
    return spec, data, inputs


def call(spec, inputs):
    """Invoke the case's operator; variadic ones get ``num_args`` as ``mx.nd`` fills it in."""
    attrs = dict(spec["attrs"])
    op = registry.get(spec["op"])
    if op.variadic:
        attrs[op.variadic] = len(inputs)
    return invoke(op, inputs, attrs)


def check(actual, expected, what):
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s: shape %s, MXNet gave %s" % (what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=1e-5, atol=1e-6,
                               err_msg=what)


def as_list(out):
    return out if isinstance(out, list) else [out]


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" not in c and n not in STRICTER))
def test_recorded_case(name):
    spec, data, inputs = load(name)
    for n in spec["grad"]:
        inputs[spec["inputs"].index(n)].attach_grad()
    with mx.autograd.record():
        outs = as_list(call(spec, inputs))
    assert len(outs) == len([k for k in data if k.startswith("out:")])
    for i, o in enumerate(outs):
        check(o, data["out:%d" % i], "%s output %d" % (name, i))
    if spec["grad"]:
        heads = [mx.nd.array(data["head:%d" % i], dtype=data["head:%d" % i].dtype) for i in range(len(outs))]
        mx.autograd.backward(outs, heads)
        for n in spec["grad"]:
            if name in GRADIENT_DEVIATIONS:
                continue
            check(inputs[spec["inputs"].index(n)].grad, data["grad:" + n], "%s gradient of %s" % (name, n))


@pytest.mark.parametrize("name", sorted(set(n for n, c in CASES.items() if "error" in c) - set(INTERNAL_FAILURES)
                                        | set(STRICTER)))
def test_recorded_error(name):
    spec, _, inputs = load(name)
    with pytest.raises(MXNetError) as info:
        call(spec, inputs)
    short = spec["op"].replace("_contrib_", "")
    assert short in str(info.value), "the message should name the operator: %s" % info.value


@pytest.mark.parametrize("name", sorted(INTERNAL_FAILURES))
def test_where_mxnet_fails_internally(name):
    spec, data, inputs = load(name)
    out = call(spec, inputs)
    np.testing.assert_array_equal(out.asnumpy(), INTERNAL_FAILURES[name](data["in:" + spec["inputs"][0]]))


def test_gather_nd_negative_indices_gradient_follows_the_forward():
    data = mx.nd.zeros((3, 4))
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.gather_nd(data, mx.nd.array([[-1, 2], [0, -4]]))  # both pick data[2, 0]
    out.backward(mx.nd.array([1, 2]))
    expected = np.zeros((3, 4), dtype=np.float32)
    expected[2, 0] = 3
    np.testing.assert_array_equal(data.grad.asnumpy(), expected)


def test_gather_nd_out_of_bounds_is_an_index_error():
    """MXNet raises its IndexError (an MXNetError that is also a Python IndexError)."""
    with pytest.raises(IndexError, match="out of bounds"):
        mx.nd.gather_nd(mx.nd.zeros((3, 4)), mx.nd.array([[4], [0]]))


def test_reshape_size_mismatch_names_the_operator_and_shapes():
    with pytest.raises(MXNetError, match=r"Reshape.*\(2, 3, 4\)"):
        mx.nd.Reshape(mx.nd.zeros((2, 3, 4)), shape=(5, -1))


@pytest.mark.parametrize("alias,name", [
    ("reshape", "Reshape"), ("flatten", "Flatten"), ("swapaxes", "SwapAxis"), ("crop", "slice"),
    ("split", "SliceChannel"), ("concat", "Concat"), ("flip", "reverse"), ("pad", "Pad"),
    ("broadcast_axes", "broadcast_axis"), ("choose_element_0index", "pick"), ("_crop_assign", "_slice_assign"),
    ("_crop_assign_scalar", "_slice_assign_scalar")])
def test_mxnet_aliases(alias, name):
    assert registry.get(alias) is registry.get(name)


def test_variadic_functions_and_multi_output_lists():
    a, b = mx.nd.ones((2, 3)), mx.nd.zeros((2, 3))
    assert mx.nd.concat(a, b, dim=0).shape == (4, 3)
    assert mx.nd.stack(a, b, a, axis=1).shape == (2, 3, 3)
    parts = mx.nd.split(mx.nd.arange(12).reshape((2, 6)), num_outputs=3)
    assert isinstance(parts, list) and [p.shape for p in parts] == [(2, 2)] * 3
    assert registry.get("SliceChannel").num_outputs({"num_outputs": 3}) == 3
    assert registry.get("_split_v2").num_outputs({"indices": (0, 2), "sections": 0}) == 2


def test_attributes_parse_from_json_strings():
    """Symbol files store attributes as strings, None entries included."""
    x = mx.nd.arange(24).reshape((2, 3, 4))
    out = invoke("slice", [x], {"begin": "(None, 2)", "end": "(1, None)", "step": "(None, -1)"})
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy()[None:1, 2::-1])
    out = invoke("slice_axis", [x], {"axis": "-1", "begin": "1", "end": "None"})
    assert out.shape == (2, 3, 3)
    out = invoke("Reshape", [x], {"shape": "(-1, 0)", "reverse": "True"})
    assert out.shape == (6, 4)


def test_methods_with_reshape_codes_and_splits():
    x = mx.nd.arange(24).reshape((2, 3, 4))
    assert x.reshape(0, -1).shape == (2, 12)
    assert x.reshape((-4, 1, 2, -2)).shape == (1, 2, 3, 4)
    assert x.reshape(-3, -1, reverse=False).shape == (6, 4)
    assert [p.shape for p in x.split(num_outputs=2, axis=-1)] == [(2, 3, 2)] * 2
    assert x.swapaxes(0, 2).shape == (4, 3, 2)


def test_embedding_infers_its_weight_shape():
    op = registry.get("Embedding")
    attrs = op.parse_attrs({"input_dim": 10, "output_dim": 4})
    assert op.infer_args(attrs, [(2, 5), None]) == [(2, 5), (10, 4)]


def test_slice_assign_is_differentiable():
    """MXNet registers no gradient for _slice_assign; neogluon's is the natural one."""
    lhs, rhs = mx.nd.ones((3, 4)), mx.nd.ones((1, 2)) * 2
    lhs.attach_grad()
    rhs.attach_grad()
    with mx.autograd.record():
        out = invoke("_slice_assign", [lhs, rhs], {"begin": (1, 1), "end": (2, 3)})
    out.backward(mx.nd.ones((3, 4)) * 3)
    expected = np.full((3, 4), 3.0, dtype=np.float32)
    expected[1, 1:3] = 0
    np.testing.assert_array_equal(lhs.grad.asnumpy(), expected)
    np.testing.assert_array_equal(rhs.grad.asnumpy(), [[3, 3]])


def test_boolean_mask_gradient_scatters_back():
    data = mx.nd.arange(12).reshape((3, 4))
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(data, mx.nd.array([1, 0, 1]))
    out.backward(mx.nd.ones((2, 4)))
    np.testing.assert_array_equal(data.grad.asnumpy().sum(axis=1), [4, 0, 4])


def test_index_inputs_get_zero_gradients():
    a, i = mx.nd.ones((3, 4)), mx.nd.array([0, 2])
    a.attach_grad()
    i.attach_grad()
    with mx.autograd.record():
        out = mx.nd.take(a, i)
    out.backward()
    np.testing.assert_array_equal(i.grad.asnumpy(), [0, 0])
    np.testing.assert_array_equal(a.grad.asnumpy()[:, 0], [1, 0, 1])
