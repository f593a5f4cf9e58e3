"""Miscellaneous operators against MXNet 1.9.1 (cumsum, arange_like, creation, logical and
hypot operators, ...): the cases recorded by tools/make_extra_fixtures_misc.py, replayed
imperatively and through ``bind`` with MXNet's JSON (see tests/opcases.py)."""
import json
import os

import numpy as np

import neogluon as mx
from opcases import make_tests

test_imperative, test_graph, test_hybridized, test_error = make_tests("misc")


def test_square_sum_on_dense_arrays_is_the_sum_of_squares():
    """MXNet 1.9.1 implements _square_sum for row_sparse inputs only (tests/test_sparse.py);
    on a dense array neogluon gives ``sum(x*x)`` with the reduction's axes."""
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd._internal._square_sum(data, axis=1, keepdims=True)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), (x * x).sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(data.grad.asnumpy(), 2 * x, rtol=1e-6)


def test_zeros_without_dtype():
    out = mx.nd._internal._zeros_without_dtype(shape=(2, 3))
    assert out.shape == (2, 3) and out.dtype == np.float32 and not out.asnumpy().any()


def test_sample_unique_zipfian_draws_unique_log_uniform_classes():
    """MXNet's stream cannot be reproduced: the samples are checked for uniqueness, range,
    dtypes and against the log-uniform probabilities of the first classes."""
    mx.random.seed(7)
    samples, tries = mx.nd._internal._sample_unique_zipfian(range_max=50, shape=(400, 5))
    assert samples.dtype == np.int64 and tries.dtype == np.int64 and tries.shape == (400,)
    s = samples.asnumpy()
    assert all(len(set(r)) == 5 for r in s) and s.min() >= 0 and s.max() < 50
    assert (tries.asnumpy() >= 5).all()
    # a class is in a row's sample with probability 1 - (1 - p)^tries, p = log((k+2)/(k+1))/log(51)
    p = np.log((np.arange(50) + 2) / (np.arange(50) + 1)) / np.log(51)
    expected = np.mean([1 - (1 - p) ** t for t in tries.asnumpy()], axis=0)
    observed = np.array([(s == k).any(axis=1).mean() for k in range(50)])
    np.testing.assert_allclose(observed[:5], expected[:5], atol=0.08)


def test_sample_unique_zipfian_symbol_writes_mxnets_json():
    sym = mx.sym._internal._sample_unique_zipfian(range_max=100, shape=(2, 5))
    node = json.loads(sym.tojson())["nodes"][0]
    assert node["op"] == "_sample_unique_zipfian" and node["attrs"] == {"range_max": "100", "shape": "(2, 5)"}
    assert len(sym.list_outputs()) == 2


def test_sym_split_v2_writes_mxnets_graphs():
    """``mx.sym.split_v2`` (GluonTS's TFT) gives MXNet's ``_split_v2`` node: sections or
    indices from 0, as recorded by tools/make_extra_fixtures_misc.py."""
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "extra", "misc", "split_v2_symbols.json")) as f:
        graphs = json.load(f)
    a = mx.sym.var("a")
    node = json.loads(mx.sym.split_v2(a, 3, axis=1).tojson())["nodes"][1]
    expected = json.loads(graphs["sections"])["nodes"][1]
    assert (node["op"], node["attrs"]) == (expected["op"], expected["attrs"])
    node = json.loads(mx.sym.split_v2(a, (1, 4), axis=-1, squeeze_axis=True).tojson())["nodes"][1]
    expected = json.loads(graphs["indices"])["nodes"][1]
    assert (node["op"], node["attrs"]) == (expected["op"], expected["attrs"])
    parts = mx.sym.split_v2(a, 3, axis=1)
    assert len(parts.list_outputs()) == 3
    outs = parts.eval(a=mx.nd.arange(12).reshape((2, 6)))
    assert [o.shape for o in outs] == [(2, 2)] * 3


def test_operator_without_parameters_ignores_attributes():
    """MXNet 1.9.1 parses attributes only of operators with an attribute parser: one without
    (broadcast_mul, elemwise_add, relu, zeros_like...) ignores any it is given, which GluonTS's
    mixture mean relies on (``F.broadcast_mul(values, probs, axis=-1)``); the attribute stays in
    the symbol's JSON. Operators with parameters, and linalg_potrf (a parser without fields),
    still reject unknown names. All checked against MXNet 1.9.1."""
    import pytest
    from neogluon.base import MXNetError
    a = mx.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = mx.nd.array([[2.0], [3.0]])
    np.testing.assert_array_equal(mx.nd.broadcast_mul(a, b, axis=-1).asnumpy(), a.asnumpy() * b.asnumpy())
    np.testing.assert_array_equal(mx.nd.elemwise_add(a, a, axis=1).asnumpy(), 2 * a.asnumpy())
    np.testing.assert_array_equal(mx.nd.relu(a - 3, axis=1).asnumpy(), np.maximum(a.asnumpy() - 3, 0))
    np.testing.assert_array_equal(mx.nd.zeros_like(a, axis=1).asnumpy(), np.zeros((2, 3)))
    s = mx.sym.broadcast_mul(mx.sym.var("a"), mx.sym.var("b"), axis=-1, name="m")
    assert json.loads(s.tojson())["nodes"][2]["attrs"] == {"axis": "-1"}
    loaded = mx.sym.load_json(s.tojson())
    np.testing.assert_array_equal(loaded.eval(a=a, b=b)[0].asnumpy(), a.asnumpy() * b.asnumpy())
    for call in (lambda: mx.nd.sum(a, foo=1), lambda: mx.nd.dot(a, a.T, foo=1), lambda: mx.nd.log_softmax(a, foo=1),
                 lambda: mx.nd.linalg.potrf(mx.nd.eye(2), foo=1), lambda: mx.nd.linalg.potri(mx.nd.eye(2), foo=1)):
        with pytest.raises(MXNetError, match="Cannot find argument 'foo'"):
            call()
