"""The graph compiler and MXNet's Executor API: bind, simple_bind, eval, forward/backward,
grad_req 'write'/'add'/'null', auxiliary states, reshape, copy_params_from, and the
test_utils symbolic checks built on them."""
import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.executor import compile_graph
from neogluon import test_utils as tu

RS = np.random.RandomState(3)


def fc_net():
    return mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc")


def fc_args():
    return {"x": mx.nd.array(RS.rand(2, 4)), "fc_weight": mx.nd.array(RS.rand(3, 4)),
            "fc_bias": mx.nd.array(RS.rand(3))}


def expected_fc(args):
    x, w, b = (args[k].asnumpy() for k in ("x", "fc_weight", "fc_bias"))
    return x @ w.T + b


def test_compiled_graph_is_straight_line_code():
    s = mx.sym.clip(fc_net(), a_min=-0.5, a_max=1.5, name="c")
    cg = compile_graph(s)
    assert cg.input_names == ["x", "fc_weight", "fc_bias"]
    x, w, b = (t._t for t in fc_args().values())
    out, = cg([x, w, b], is_train=False)
    expected = np.clip(x.numpy() @ w.numpy().T + b.numpy(), -0.5, 1.5)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    src = cg.sources[False]
    # clip is called with its attributes as literals; FullyConnected has a lowering, so its
    # attributes were resolved at compile time and the call takes the tensors alone
    assert "a_min=-0.5" in src and src.count("_f") == 2 and "is_train" not in src
    assert "_f3(i0, i1, i2)" in src and "num_hidden" not in src


def test_bind_forward_backward_write():
    args = fc_args()
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    ex = fc_net().bind(mx.cpu(), args, args_grad=grads)
    out = ex.forward(is_train=True)[0]
    np.testing.assert_allclose(out.asnumpy(), expected_fc(args), rtol=1e-5)
    head = RS.rand(2, 3).astype(np.float32)
    ex.backward(mx.nd.array(head))
    np.testing.assert_allclose(ex.grad_dict["fc_weight"].asnumpy(), head.T @ args["x"].asnumpy(), rtol=1e-5)
    ex.backward(mx.nd.array(head))  # 'write' overwrites: same values again
    np.testing.assert_allclose(ex.grad_dict["fc_bias"].asnumpy(), head.sum(0), rtol=1e-5)
    assert ex.outputs[0] is out and ex.output_dict["fc_output"] is out
    assert ex.arg_arrays[0] is args["x"] and ex.grad_arrays[1] is grads["fc_weight"]


def test_grad_req_add_and_null():
    args = fc_args()
    grads = {k: mx.nd.ones(v.shape) for k, v in args.items()}
    ex = fc_net().bind(mx.cpu(), args, args_grad=grads, grad_req={"x": "null", "fc_weight": "add", "fc_bias": "write"})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2, 3)))
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2, 3)))
    np.testing.assert_allclose(grads["x"].asnumpy(), 1)  # untouched
    np.testing.assert_allclose(grads["fc_weight"].asnumpy(), 1 + 2 * np.broadcast_to(args["x"].asnumpy().sum(0), (3, 4)),
                               rtol=1e-5)
    np.testing.assert_allclose(grads["fc_bias"].asnumpy(), 2)
    with pytest.raises(MXNetError, match="grad_req"):
        fc_net().bind(mx.cpu(), args, args_grad=grads, grad_req="sometimes")


def test_bind_with_lists_and_missing_arguments():
    args = fc_args()
    ex = fc_net().bind(mx.cpu(), list(args.values()))
    assert set(ex.grad_dict.values()) == {None} and ex.forward()[0].shape == (2, 3)
    with pytest.raises(MXNetError, match="fc_bias"):
        fc_net().bind(mx.cpu(), {"x": args["x"], "fc_weight": args["fc_weight"]})


def test_simple_bind_forward_kwargs_and_copy_params():
    ex = fc_net().simple_bind(mx.cpu(), x=(2, 4))
    assert ex.arg_dict["fc_weight"].shape == (3, 4) and ex.grad_dict["fc_bias"].shape == (3,)
    args = fc_args()
    ex.copy_params_from({"fc_weight": args["fc_weight"], "fc_bias": args["fc_bias"]})
    out = ex.forward(is_train=False, x=args["x"])[0]
    np.testing.assert_allclose(out.asnumpy(), expected_fc(args), rtol=1e-5)
    with pytest.raises(ValueError):
        ex.copy_params_from({"nothing": args["x"]})
    ex.copy_params_from({"nothing": args["x"]}, allow_extra_params=True)
    with pytest.raises(MXNetError, match="unknown argument"):
        ex.forward(y=args["x"])
    half = fc_net().simple_bind(mx.cpu(), grad_req="null", type_dict={"x": "float64"}, x=(2, 4))
    assert half.arg_dict["fc_weight"].dtype == np.float64 and half.grad_arrays == [None] * 3


def test_reshape_shares_parameters():
    ex = fc_net().simple_bind(mx.cpu(), x=(2, 4))
    with pytest.raises(MXNetError, match="allow_up_sizing"):  # as MXNet 1.9.1: growing needs the flag
        ex.reshape(x=(5, 4))
    new = ex.reshape(x=(5, 4), allow_up_sizing=True)
    assert new.arg_dict["x"].shape == (5, 4)
    assert new.arg_dict["fc_weight"] is ex.arg_dict["fc_weight"]
    assert new.forward()[0].shape == (5, 3)


def test_eval():
    args = fc_args()
    out = fc_net().eval(ctx=mx.cpu(), **args)[0]
    np.testing.assert_allclose(out.asnumpy(), expected_fc(args), rtol=1e-5)


def test_batchnorm_aux_updated_by_the_train_backward():
    """As MXNet 1.9.1: the moving averages change when backward passes through a
    train-mode BatchNorm, not in its forward (checked against the side venv)."""
    x = mx.sym.var("x")
    bn = mx.sym.BatchNorm(x, name="bn", momentum=0.5)
    ex = bn.simple_bind(mx.cpu(), x=(4, 3))
    ex.arg_dict["x"][:] = mx.nd.array(RS.rand(4, 3))
    ex.arg_dict["bn_gamma"][:] = 1
    ex.aux_dict["bn_moving_var"][:] = 1
    ex.forward(is_train=False)
    ex.forward(is_train=True)
    assert ex.aux_dict["bn_moving_mean"].asnumpy().sum() == 0
    ex.backward([mx.nd.ones((4, 3))])
    mean = ex.arg_dict["x"].asnumpy().mean(0)
    np.testing.assert_allclose(ex.aux_dict["bn_moving_mean"].asnumpy(), 0.5 * mean, rtol=1e-5)


def test_runtime_error_names_the_node():
    s = mx.sym.var("a") + mx.sym.var("b")
    ex = s.bind(mx.cpu(), {"a": mx.nd.ones((2, 3)), "b": mx.nd.ones((3, 3))}, grad_req="null")
    with pytest.raises(MXNetError, match=r"_plus.*\(2, 3\).*\(3, 3\)"):
        ex.forward()


def test_backward_without_train_forward_raises():
    args = fc_args()
    ex = fc_net().bind(mx.cpu(), args, args_grad={k: mx.nd.zeros(v.shape) for k, v in args.items()})
    ex.forward(is_train=False)
    with pytest.raises(MXNetError, match="forward"):
        ex.backward(mx.nd.ones((2, 3)))


def test_deferred_zero_shape_is_inferred():
    """F.zeros((0, 3)) in a graph (an RNN begin state): the 0 is filled by shape inference."""
    x = mx.sym.var("x")
    s = x + mx.sym.zeros((0, 3))
    out = s.eval(x=mx.nd.ones((2, 3)))[0]
    assert out.shape == (2, 3)


# ----------------------------------------------------------------------------- test_utils
def test_check_symbolic_forward_and_backward():
    x = mx.sym.var("x")
    s = mx.sym.square(x) * 3
    data = RS.rand(2, 3)
    tu.check_symbolic_forward(s, [data], [3 * data ** 2], rtol=1e-5, atol=1e-6)
    head = RS.rand(2, 3)
    tu.check_symbolic_backward(s, {"x": data}, [head], {"x": 6 * data * head}, rtol=1e-4, atol=1e-6)
    tu.check_symbolic_backward(s, {"x": data}, [head], {"x": 6 * data * head}, rtol=1e-4, atol=1e-6, grad_req="add")
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(s, [data], [data])


def test_check_numeric_gradient():
    s = mx.sym.tanh(fc_net())
    tu.check_numeric_gradient(s, {"x": RS.rand(2, 4), "fc_weight": RS.rand(3, 4), "fc_bias": RS.rand(3)})
    wrong = mx.sym.BlockGrad(mx.sym.var("x")) * 2  # MXNet's BlockGrad: zero gradient, not the true one
    with pytest.raises(AssertionError):
        tu.check_numeric_gradient(wrong, {"x": RS.rand(3)})
