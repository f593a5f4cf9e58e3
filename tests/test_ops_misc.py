"""Miscellaneous operators against MXNet 1.9.1 (cumsum, arange_like, creation, logical and
hypot operators, ...): the cases recorded by tools/make_extra_fixtures_misc.py, replayed
imperatively and through ``bind`` with MXNet's JSON (see tests/opcases.py)."""
import numpy as np

import neogluon as mx
from opcases import make_tests

test_imperative, test_graph, test_error = make_tests("misc")


def test_square_sum_on_dense_arrays_is_the_sum_of_squares():
    """MXNet 1.9.1 implements _square_sum for row_sparse inputs only; neogluon's arrays are
    dense and it gives what MXNet's gives for them, ``sum(x*x)`` with the reduction's axes."""
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
