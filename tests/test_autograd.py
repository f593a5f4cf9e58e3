"""mx.autograd against MXNet 1.9.1 (recorded cases), plus higher-order gradients."""
import pytest

from api_cases import cases, run_case


@pytest.mark.parametrize("case", cases("autograd"))
def test_mxnet_case(case):
    run_case(case)


import numpy as np  # noqa: E402

import neogluon as mx  # noqa: E402


def _var(values, grad_req="write"):
    x = mx.nd.array(values)
    x.attach_grad(grad_req)
    return x


def test_second_and_third_derivative_of_cube():
    """MXNet 1.9.1 cannot differentiate _backward_power_scalar; neogluon can (6x, then 6)."""
    x = _var([1.0, 2.0, -3.0])
    with mx.autograd.record():
        y = x ** 3
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
        d2y = mx.autograd.grad(dy, [x], create_graph=True)[0]
    d2y.backward()
    np.testing.assert_allclose(dy.asnumpy(), [3.0, 12.0, 27.0])
    np.testing.assert_allclose(d2y.asnumpy(), [6.0, 12.0, -18.0])
    np.testing.assert_allclose(x.grad.asnumpy(), [6.0, 6.0, 6.0])


def test_second_derivative_of_product_chain():
    x = _var([0.5, 2.0])
    with mx.autograd.record():
        y = mx.nd.exp(x) + x * x * x
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    dy.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp([0.5, 2.0]) + 6 * np.array([0.5, 2.0]), rtol=1e-6)


def test_grad_without_retain_frees_the_graph():
    x = _var([1.0, 2.0])
    with mx.autograd.record():
        y = x * x
    mx.autograd.grad(y, [x])
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        mx.autograd.grad(y, [x])


def test_backward_twice_fails_even_without_saved_tensors():
    x = _var([1.0, 2.0])
    with mx.autograd.record():
        y = x * 2
    y.backward()
    with pytest.raises(mx.MXNetError, match="retain_graph=True"):
        y.backward()


def test_grad_of_unreached_variable_is_zero():
    x, z = _var([1.0, 2.0]), _var([3.0, 4.0])
    with mx.autograd.record():
        y = x * 3
    gx, gz = mx.autograd.grad(y, [x, z])
    np.testing.assert_allclose(gx.asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(gz.asnumpy(), [0.0, 0.0])


def test_reattached_variable_ignores_the_old_graph():
    x = _var([1.0, 2.0])
    with mx.autograd.record():
        y = x * 5
    x.attach_grad()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [0.0, 0.0])


def test_variable_keeps_its_memory_after_attach_grad():
    a = mx.nd.zeros((2, 2))
    row = a[0]
    a.attach_grad()
    row[:] = 7
    np.testing.assert_allclose(a.asnumpy(), [[7, 7], [0, 0]])


def test_add_req_accumulates_across_heads_and_calls():
    x = _var([1.0, 2.0], "add")
    for _ in range(2):
        with mx.autograd.record():
            a, b = x * 2, x * x
        mx.autograd.backward([a, b])
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (2 + 2 * np.array([1.0, 2.0])))


def test_backward_sees_train_mode():
    seen = []

    class Probe(mx.autograd.Function):
        def forward(self, x):
            seen.append(("forward", mx.autograd.is_training(), mx.autograd.is_recording()))
            return x * 1

        def backward(self, dy):
            seen.append(("backward", mx.autograd.is_training(), mx.autograd.is_recording()))
            return dy

    x = _var([1.0])
    with mx.autograd.record():
        y = Probe()(x)
    mx.autograd.backward(y, train_mode=False)
    assert seen == [("forward", True, False), ("backward", False, False)]


def test_function_returning_its_input():
    class Ident(mx.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, dy):
            return dy * 3

    x = _var([1.0, 2.0])
    with mx.autograd.record():
        y = Ident()(x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 3.0])


def test_function_backward_with_wrong_gradient_count():
    class Bad(mx.autograd.Function):
        def forward(self, a, b):
            return a + b

        def backward(self, dy):
            return dy

    a, b = _var([1.0]), _var([2.0])
    with mx.autograd.record():
        y = Bad()(a, b)
    with pytest.raises(mx.MXNetError, match="Expecting 2 got 1"):
        y.backward()


def test_user_mistakes_raise_mxnet_errors():
    x = _var([1.0, 2.0])
    with pytest.raises(mx.MXNetError, match="grad_req"):
        x.attach_grad("sometimes")
    with pytest.raises(mx.MXNetError, match="2 variables, 1 gradients"):
        mx.autograd.mark_variables([x, x], [mx.nd.zeros((2,))])
    with mx.autograd.record():
        y = x * x
    with pytest.raises(mx.MXNetError, match=r"head gradient has shape \(3,\) but the head has shape \(2,\)"):
        y.backward(mx.nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match="variables cannot be an empty list"):
        mx.autograd.grad(y, [])


def test_get_symbol_points_to_hybridize():
    with pytest.raises(mx.MXNetError, match="hybridize"):
        mx.autograd.get_symbol(mx.nd.ones((1,)))


def test_backward_calls_the_engine_directly_for_plain_tensors_only(monkeypatch):
    import torch
    from neogluon import autograd as ag
    seen = []
    real = torch.autograd.backward
    monkeypatch.setattr(torch.autograd, "backward", lambda *a, **k: (seen.append(1), real(*a, **k)))
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    assert seen == [] and x.grad.asnumpy().tolist() == [2.0, 4.0, 6.0]

    class Sub(torch.Tensor):
        pass
    leaf = torch.tensor([1.0, 2.0], requires_grad=True)
    head = (leaf * 3).sum().as_subclass(Sub)
    ag._run_backward([head], [torch.ones_like(head)], False)  # a subclass: torch's own dispatching call
    assert seen and leaf.grad.tolist() == [3.0, 3.0]
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    with pytest.raises(mx.base.MXNetError):
        y.backward()                                 # the graph was freed: MXNet's error, as before
