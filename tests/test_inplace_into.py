"""``x += y`` and ``out=`` write through the operator's kernel into the array's memory
(``Operator.write_into``, the ``into`` form of the elementwise arithmetic) instead of computing
a new array and copying it: the same values as the computed result, the same memory, and the
old path (computed, copied) wherever the kernel cannot write (integers, overlapping memory,
recording, gradients, shapes that do not fit)."""
import numpy as np
import pytest

from neogluon import autograd, nd
from neogluon.base import MXNetError

_OPS = {"+=": np.add, "-=": np.subtract, "*=": np.multiply, "/=": np.divide}


def _apply(x, op, other):
    if op == "+=":
        x += other
    elif op == "-=":
        x -= other
    elif op == "*=":
        x *= other
    else:
        x /= other
    return x


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("other", ["same", "channels", "row", "scalar"])
def test_values_and_memory(dtype, op, other):
    rs = np.random.RandomState(0)
    a = (rs.rand(5, 4, 3) * 100).astype(dtype)
    b = {"same": (rs.rand(5, 4, 3) + 0.5), "channels": rs.rand(3) + 0.5, "row": rs.rand(4, 1) + 0.5,
         "scalar": 0.37}[other]
    rhs = nd.array(b, dtype=dtype) if other != "scalar" else b
    expected = {"+=": lambda: nd.array(a, dtype=dtype) + rhs, "-=": lambda: nd.array(a, dtype=dtype) - rhs,
                "*=": lambda: nd.array(a, dtype=dtype) * rhs, "/=": lambda: nd.array(a, dtype=dtype) / rhs}[op]()
    x = nd.array(a, dtype=dtype)
    tensor, ptr, version = x._t, x._t.data_ptr(), x._t._version
    assert _apply(x, op, rhs) is x
    assert x._t is tensor and x._t.data_ptr() == ptr and x._t._version == version + 1  # written once
    np.testing.assert_array_equal(x.asnumpy(), expected.asnumpy())  # bit for bit


def test_a_view_is_written_through():
    x = nd.arange(12).reshape((3, 4))
    v = x[1:2]
    v *= 10
    np.testing.assert_array_equal(x.asnumpy()[1], [40, 50, 60, 70])


def test_cases_the_kernel_leaves_to_compute_and_copy():
    y = nd.array([1, 2, 3], dtype="int32")
    y /= 2  # integers: MXNet's truncating division, computed and copied
    np.testing.assert_array_equal(y.asnumpy(), [0, 1, 1])
    w = nd.arange(6)
    w[0:3] += w[1:4]  # partial overlap: the values of the computed result
    np.testing.assert_array_equal(w.asnumpy(), [1, 3, 5, 3, 4, 5])
    z = nd.ones((2, 3))
    with pytest.raises(MXNetError, match="Shape inconsistent in in-place operation"):
        z += nd.ones((2, 2, 3))
    with pytest.raises(MXNetError, match="broadcast_add"):
        z += nd.ones((3, 3))
    h = nd.ones((2, 3), dtype="float16")
    with pytest.raises(MXNetError, match="incompatible input dtypes"):
        h += nd.ones((2, 3))
    m = nd.array([5.5, -3.0])
    m %= 2  # no into form: computed and copied
    np.testing.assert_array_equal(m.asnumpy(), [1.5, 1.0])


def test_gradients_and_recording():
    x = nd.ones((2, 3))
    x.attach_grad()
    x += 1  # outside recording: written, the variable keeps its memory
    np.testing.assert_array_equal(x.asnumpy(), 2 * np.ones((2, 3)))
    w = nd.ones((2, 3))
    w.attach_grad()
    with autograd.record():
        y = w * 2
        with pytest.raises(MXNetError):
            w += 1  # MXNet refuses to write a variable while recording
        z = nd.ones((2, 3))
        with pytest.raises(MXNetError, match="not supported when recording"):
            z += y  # y is recorded: MXNet refuses
        z += 1  # recording, nothing recorded: computed and copied
    np.testing.assert_array_equal(z.asnumpy(), 2 * np.ones((2, 3)))


def test_out_arrays():
    a, b = nd.array([[1.0, 2.0, 3.0]]), nd.array([[1.0], [2.0]])
    out = nd.zeros((2, 3))
    ptr = out._t.data_ptr()
    assert nd.broadcast_sub(a, b, out=out) is out and out._t.data_ptr() == ptr
    np.testing.assert_array_equal(out.asnumpy(), a.asnumpy() - b.asnumpy())
    half = nd.zeros((1, 3))
    nd.broadcast_div(a, a, out=half)
    np.testing.assert_array_equal(half.asnumpy(), [[1, 1, 1]])
    ints = nd.zeros((1, 3), dtype="int32")  # another dtype than the inputs': computed and copied
    nd.broadcast_add(a, a, out=ints)
    np.testing.assert_array_equal(ints.asnumpy(), [[2, 4, 6]])
    scaled = nd.zeros((1, 3))
    nd._internal._mul_scalar(a, scalar=2.0, out=scaled)
    np.testing.assert_array_equal(scaled.asnumpy(), [[2, 4, 6]])
    with pytest.raises(MXNetError):
        nd.broadcast_add(a, b, out=nd.zeros((3, 3)))  # the result's shape is (2, 3)


def test_a_numpy_scalar_takes_the_general_path():
    x = nd.array([1.0, 2.0])
    x += np.float32(1.5)  # a numpy scalar is no Python number: the method's general path
    np.testing.assert_array_equal(x.asnumpy(), [2.5, 3.5])
