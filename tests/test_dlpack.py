"""DLPack exports are dense and row-major, as every MXNet NDArray is. neogluon may hold a
tensor strided (a transpose result copied with its strides, the expanded gradient torch hands
an ``autograd.Function``'s backward); DGL's kernels read NDArrays through
``to_dlpack_for_read`` and write results through ``to_dlpack_for_write`` and refuse strided
tensors ("Expect E_data to be a contiguous tensor"). Values from MXNet 1.9.1: the transpose of
arange(6).reshape(2, 3) is [[0, 3], [1, 4], [2, 5]]; the gradient of y.sum() is ones."""
import numpy as np
import torch
import torch.utils.dlpack

import neogluon as mx


def _dense(t):
    expected = []
    step = 1
    for n in reversed(t.shape):
        expected.insert(0, step)
        step *= n
    return list(t.stride()) == expected


def test_read_export_of_a_transpose_is_row_major():
    x = mx.nd.arange(6).reshape((2, 3))
    y = x.T
    t = torch.utils.dlpack.from_dlpack(y.to_dlpack_for_read())
    assert _dense(t)
    np.testing.assert_array_equal(t.numpy(), [[0, 3], [1, 4], [2, 5]])
    back = mx.nd.from_dlpack(mx.nd.to_dlpack_for_read(mx.nd.swapaxes(x, 0, 1)))
    np.testing.assert_array_equal(back.asnumpy(), [[0, 3], [1, 4], [2, 5]])
    assert _dense(torch.from_dlpack(y))  # __dlpack__, too


def test_read_export_of_a_dense_array_shares_its_memory():
    x = mx.nd.zeros((2, 3))
    t = torch.utils.dlpack.from_dlpack(x.to_dlpack_for_read())
    x[:] = 7
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 7, np.float32))


def test_write_export_of_a_transpose_writes_the_array():
    y = mx.nd.arange(6).reshape((2, 3)).T
    t = torch.utils.dlpack.from_dlpack(y.to_dlpack_for_write())
    assert _dense(t)
    t.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    np.testing.assert_array_equal(y.asnumpy(), [[1, 2], [3, 4], [5, 6]])


class _Exported(mx.autograd.Function):
    """A Function whose backward reads its incoming gradient through DLPack, as DGL's do."""

    def forward(self, x):  # pylint: disable=arguments-differ
        return x * 2

    def backward(self, dy):  # pylint: disable=arguments-differ
        t = torch.utils.dlpack.from_dlpack(dy.to_dlpack_for_read())
        assert _dense(t)
        return mx.nd.from_dlpack(torch.utils.dlpack.to_dlpack(t * 2))


def test_function_backward_exports_an_expanded_gradient_densely():
    x = mx.nd.ones((4, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = _Exported()(x).sum()  # the gradient of sum reaches backward as a stride-0 tensor
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((4, 3), 2, np.float32))
