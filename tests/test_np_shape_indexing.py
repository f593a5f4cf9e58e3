"""Integer indexing of a legacy NDArray under NumPy shape semantics. ``mx.set_np_shape(True)``
(which ``import dgl`` with the MXNet backend calls) makes MXNet 1.9.1's ``NDArray._at`` give an
element of a 1-d array as a 0-d array; without it the element has shape (1,). The shapes below
are MXNet 1.9.1's for the same calls, as are the 0-d view ``x.reshape(())`` gives (in either
mode) and the (1,) of a legacy reduction of such a 0-d array."""
import numpy as np
import pytest

import neogluon as mx

# key -> (shape with np_shape off, shape with np_shape on), for a = arange(3), b = arange(6).reshape(2, 3)
CASES = [
    ("a", 1, (1,), ()),
    ("a", -1, (1,), ()),
    ("a", np.int64(1), (1,), ()),
    ("a", np.int32(1), (1,), ()),
    ("a", (1,), (1,), ()),
    ("a", (1, Ellipsis), (1,), (1,)),
    ("a", (Ellipsis, 1), (1,), (1,)),
    ("a", (1, None), (1,), (1,)),
    ("b", (1, 2), (1,), ()),
    ("b", (-1, -1), (1,), ()),
    ("b", (1, np.int64(2)), (1,), ()),
    ("b", (1, slice(2, 3)), (1,), (1,)),
    ("b", 1, (3,), (3,)),
]


@pytest.fixture
def np_shape():
    prev = mx.set_np_shape(True)
    yield
    mx.set_np_shape(prev)


def _arrays():
    return {"a": mx.nd.arange(3), "b": mx.nd.arange(6).reshape((2, 3))}


@pytest.mark.parametrize("name,key,legacy,numpy_shape", CASES, ids=[repr(c[1]) for c in CASES])
def test_integer_index_shape(name, key, legacy, numpy_shape):
    x = _arrays()[name]
    assert x[key].shape == legacy
    prev = mx.set_np_shape(True)
    try:
        y = x[key]
    finally:
        mx.set_np_shape(prev)
    assert y.shape == numpy_shape
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy()[key])


def test_chained_and_iterated_elements_are_0d(np_shape):  # pylint: disable=unused-argument,redefined-outer-name
    b = mx.nd.arange(6).reshape((2, 3))
    assert b[1][2].shape == ()
    assert b[1][2].asscalar() == 5
    assert [v.shape for v in mx.nd.arange(2)] == [(), ()]
    assert repr(mx.nd.arange(3)[1].asnumpy()) == "array(1., dtype=float32)"


def test_element_gradient_and_write(np_shape):  # pylint: disable=unused-argument,redefined-outer-name
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x[1] * 3
    y.backward()
    assert y.shape == ()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 3, 0])
    c = mx.nd.arange(3)
    c[1] = 7
    np.testing.assert_array_equal(c.asnumpy(), [0, 7, 2])


def test_reshape_method_to_no_axes(np_shape):  # pylint: disable=unused-argument,redefined-outer-name
    """``x.reshape(())`` (MXNDArrayReshape64 with no axes, not the Reshape operator): a 0-d view
    of a one-element array, recorded by autograd; MXNet's errors otherwise."""
    x = mx.nd.array([[3.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = x.reshape(()) * 2
    y.backward()
    assert y.shape == () and y.asscalar() == 6
    np.testing.assert_array_equal(x.grad.asnumpy(), [[2]])
    v = x.reshape([])
    x[:] = 9
    assert v.shape == () and v.asscalar() == 9  # a view
    with pytest.raises(mx.base.MXNetError, match="target shape must have the same size"):
        mx.nd.ones((2,)).reshape(())
    with pytest.raises(AssertionError, match="Shape must be provided"):
        x.reshape(shape=())


def test_reshape_method_to_no_axes_without_np_shape():
    assert mx.nd.ones((1, 1)).reshape(()).shape == ()
    with pytest.raises(ValueError, match=r"Cannot reshape array of size 2 into shape \(\)"):
        mx.nd.ones((2,)).reshape(())


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax", "argmin"])
def test_full_reduction_of_a_0d_array_has_shape_1(np_shape, op):  # pylint: disable=unused-argument,redefined-outer-name
    """MXNet 1.9.1 with NumPy shape semantics: a legacy reduction of a 0-d array over every
    axis gives shape (1,) (the 0-d element of ``x[i]`` summed, say); with keepdims, ()."""
    z = mx.nd.array(np.float32(3))
    res = getattr(mx.nd, op)(z)
    assert res.shape == (1,)
    assert res.asscalar() == (0 if op.startswith("arg") else 3)
    if op == "sum":
        assert mx.nd.sum(z, keepdims=True).shape == ()


def test_assignment_into_a_0d_array(np_shape):  # pylint: disable=unused-argument,redefined-outer-name
    """MXNet 1.9.1: a 0-d legacy NDArray takes ``z[()] = v`` and ``z[:] = v`` (any slice) with
    one value of any shape; other keys and longer values are errors. An ``mx.np`` 0-d array
    takes ``()`` alone."""
    z = mx.nd.array(np.float32(3))
    for key, value, want in [((), 4, 4), (slice(None), mx.nd.array([5]), 5), (slice(None), np.float32(6), 6),
                             (slice(None), np.array([7.0]), 7), (slice(1, 2), 8, 8)]:
        z[key] = value
        assert z.shape == () and z.asscalar() == want
    for key in (0, (0,)):
        with pytest.raises(IndexError, match=r"scalar tensor can only accept `\(\)` and `:` as index"):
            z[key] = 1
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        z[:] = [1, 2]
    a = mx.np.array(3.0)
    a[()] = 5
    assert float(a) == 5
    for key in (Ellipsis, slice(None)):
        with pytest.raises(IndexError, match=r"scalar tensor can only accept `\(\)` as index"):
            a[key] = 1


def test_random_samples_of_shape_empty_are_0d(np_shape):  # pylint: disable=unused-argument,redefined-outer-name
    """MXNet 1.9.1 with NumPy shape semantics: ``nd.random.*(shape=())`` draws one 0-d sample
    (without them, () is an unknown shape, an error)."""
    for draw in (lambda: mx.nd.random.uniform(shape=()), lambda: mx.nd.random.normal(shape=()),
                 lambda: mx.nd.random.randint(0, 5, shape=()), lambda: mx.nd.random.exponential(shape=())):
        assert draw().shape == ()
    assert mx.nd.random.uniform().shape == (1,)


def test_random_samples_of_shape_empty_without_np_shape():
    with pytest.raises(mx.base.MXNetError):
        mx.nd.random.uniform(shape=())
