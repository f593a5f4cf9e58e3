"""``mx.operator.CustomOp``/``CustomOpProp``/``register`` with ``mx.nd.Custom`` and
``mx.sym.Custom``, against MXNet 1.9.1's recorded answers
(``tools/make_extra_fixtures_custom_op.py``): the custom-operator tutorial's softmax
imperatively, under autograd, in a hybridized block, exported and imported back; an
operator with an attribute, two outputs and an auxiliary state; the JSON of both."""
import importlib.util
import json
import os

import numpy as np
import pytest

import neogluon as mx

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "custom_op")
A = np.load(os.path.join(HERE, "arrays.npz"))
with open(os.path.join(HERE, "info.json")) as _f:
    INFO = json.load(_f)


def _define():
    spec = importlib.util.spec_from_file_location("custom_ops", os.path.join(HERE, "ops.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.define(mx)


Net = _define()


def _json(path):
    with open(os.path.join(HERE, path)) as f:
        return json.load(f)


def test_tutorial_softmax_imperative_and_autograd():
    x, label = mx.nd.array(A["x"]), mx.nd.array(A["label"])
    np.testing.assert_allclose(mx.nd.Custom(x, label, op_type="softmax").asnumpy(), A["softmax_out"], rtol=1e-6)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, label, op_type="softmax")
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), A["softmax_grad"], rtol=1e-6, atol=1e-7)
    # inputs may be named as the prop names them
    by_name = mx.nd.Custom(data=mx.nd.array(A["x"]), label=label, op_type="softmax")
    np.testing.assert_allclose(by_name.asnumpy(), A["softmax_out"], rtol=1e-6)


def test_attribute_outputs_aux_and_head_gradients():
    a, b, count = mx.nd.array(A["a"]), mx.nd.array(A["b"]), mx.nd.zeros((1,))
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        s, p = mx.nd.Custom(a, b, count, op_type="scaled", scale=2.5)
    mx.autograd.backward([s, p], [mx.nd.array(A["head_sum"]), mx.nd.array(A["head_product"])])
    for name, got in [("scaled_sum", s), ("scaled_product", p), ("scaled_grad_a", a.grad),
                      ("scaled_grad_b", b.grad), ("scaled_count", count)]:
        np.testing.assert_allclose(got.asnumpy(), A[name], rtol=1e-6, atol=1e-7, err_msg=name)


def test_symbols_listings_inference_and_json():
    data, label = mx.sym.Variable("data"), mx.sym.Variable("label")
    sm = mx.sym.Custom(data=data, label=label, op_type="softmax", name="sm")
    info = INFO["softmax"]
    assert sm.list_arguments() == info["arguments"]
    assert sm.list_outputs() == info["outputs"]
    assert [list(map(list, r)) for r in sm.infer_shape(data=(3, 4))] == info["infer_shape"]
    types = sm.infer_type(data="float64", label="float64")
    assert [[np.dtype(t).name for t in r] for r in types] == info["infer_type"]
    assert mx.sym.Custom(data, op_type="softmax", name="auto").list_arguments() == info["partial_arguments"]
    assert json.loads(sm.tojson()) == _json("softmax-symbol.json")

    sc = mx.sym.Custom(mx.sym.Variable("a"), mx.sym.Variable("b"), op_type="scaled", scale=2.5, name="sc")
    info = INFO["scaled"]
    assert (sc.list_arguments(), sc.list_outputs(), sc.list_auxiliary_states()) == \
        (info["arguments"], info["outputs"], info["auxiliary_states"])
    assert [list(map(list, r)) for r in sc.infer_shape(a=(2, 3))] == info["infer_shape"]
    assert json.loads(sc.tojson()) == _json("scaled-symbol.json")


def test_json_from_mxnet_loads_and_binds():
    sc = mx.sym.load(os.path.join(HERE, "scaled-symbol.json"))
    exe = sc.simple_bind(mx.cpu(), a=(2, 3), b=(2, 3))
    exe.forward(is_train=False, a=mx.nd.array(A["a"]), b=mx.nd.array(A["b"]))
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), A["bound_sum"], rtol=1e-6)
    np.testing.assert_allclose(exe.outputs[1].asnumpy(), A["bound_product"], rtol=1e-6)


def _net():
    net = Net(prefix="net_")
    net.initialize()
    for name, param in net.collect_params().items():
        param.set_data(mx.nd.array(A["param:" + name]))
    return net


@pytest.mark.parametrize("hybridize", [False, True])
def test_tutorial_network_trains_as_in_mxnet(hybridize):
    net = _net()
    if hybridize:
        net.hybridize()
    with mx.autograd.record():
        out = net(mx.nd.array(A["feats"]), mx.nd.array(A["label"]))
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), A["net_out"], rtol=1e-5, atol=1e-6)
    for name, param in net.collect_params().items():
        np.testing.assert_allclose(param.grad().asnumpy(), A["grad:" + name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_export_writes_mxnets_json_and_imports_back(tmp_path):
    net = _net()
    net.hybridize()
    net(mx.nd.array(A["feats"]), mx.nd.array(A["label"]))
    net.export(str(tmp_path / "net"))
    with open(tmp_path / "net-symbol.json") as f:
        assert json.load(f) == _json("net-symbol.json")
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "net-symbol.json"), ["data0", "data1"],
                                        str(tmp_path / "net-0000.params"))
    out = back(mx.nd.array(A["feats"]), mx.nd.array(A["label"]))
    np.testing.assert_allclose(out.asnumpy(), A["net_out"], rtol=1e-5, atol=1e-6)


def test_errors_name_the_operator():
    x = mx.nd.array(A["x"])
    with pytest.raises(mx.MXNetError, match="Cannot find custom operator no_such_op"):
        mx.nd.Custom(x, op_type="no_such_op")
    assert "Cannot find custom operator no_such_op" in INFO["unknown_op_type_error"]
    with pytest.raises(mx.MXNetError, match="op_type"):
        mx.nd.Custom(x)
    with pytest.raises(mx.MXNetError, match="keyword argument name wrong"):
        mx.nd.Custom(x, wrong=x, op_type="softmax")
    with pytest.raises(mx.MXNetError, match="does not take the attributes"):
        mx.nd.Custom(x, x, op_type="softmax", foo=3)
    with pytest.raises(mx.MXNetError, match="CustomOpProp subclass"):
        mx.operator.register("bad")(object)


def test_base_classes_defaults():
    prop = mx.operator.CustomOpProp()
    assert prop.list_arguments() == ["data"] and prop.list_outputs() == ["output"]
    assert prop.infer_shape([[2, 3]]) == ([[2, 3]], ([2, 3],), ())
    assert prop.declare_backward_dependency([1], [2], [3]) == [1, 2, 3]
    op = mx.operator.CustomOp()
    dst = mx.nd.ones((2,))
    op.assign(dst, "add", mx.nd.ones((2,)))
    op.assign(dst, "null", mx.nd.zeros((2,)))
    np.testing.assert_array_equal(dst.asnumpy(), [2, 2])
    with pytest.raises(NotImplementedError):
        op.forward(True, [], [], [], [])


# ----------------------------------------------------------------------------- legacy NumpyOp / NDArrayOp
class _NumpySoftmax(mx.operator.NumpyOp):
    """MXNet's documented NumpyOp example (example/numpy-ops/numpy_softmax.py): a softmax
    loss layer computed in NumPy."""

    def __init__(self):
        super().__init__(False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return [in_shape[0], [in_shape[0][0]]], [in_shape[0]]

    def forward(self, in_data, out_data):
        x = in_data[0]
        y = out_data[0]
        y[:] = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))

    def backward(self, out_grad, in_data, out_data, in_grad):
        assert out_grad == []  # need_top_grad=False: no head gradient
        lab = in_data[1].reshape((in_data[1].size,)).astype(np.int64)
        dx = in_grad[0]
        dx[:] = out_data[0]
        dx[np.arange(lab.shape[0]), lab] -= 1.0


class _SumProd(mx.operator.NDArrayOp):
    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["sum", "prod"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]]

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0] + 2 * in_data[1]
        out_data[1][:] = in_data[0] * in_data[1]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = out_grad[0] + out_grad[1] * in_data[1]
        in_grad[1][:] = 2 * out_grad[0] + out_grad[1] * in_data[0]


@pytest.mark.filterwarnings("ignore:.*has been deprecated")
def test_numpy_op_softmax_trains_in_a_module_as_mxnet():
    """A NumpyOp softmax after a FullyConnected layer: two epochs of SGD through Module and
    a predict, the numbers MXNet 1.9.1 gives (its _Native operator; here a Custom node)."""
    rng = np.random.RandomState(0)
    X = rng.randn(8, 5).astype("float32")
    Y = np.array([0, 2, 1, 2, 0, 1, 1, 2], "float32")
    W = (rng.randn(3, 5) * 0.3).astype("float32")
    net = _NumpySoftmax()(data=mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"), name="softmax")
    assert net.list_arguments() == ["data", "fc_weight", "fc_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    assert net.infer_shape(data=(4, 5), softmax_label=(4,)) == ([(4, 5), (3, 5), (3,), (4,)], [(4, 3)], [])
    it = mx.io.NDArrayIter(X, Y, batch_size=4, label_name="softmax_label")
    mod = mx.mod.Module(net, data_names=["data"], label_names=["softmax_label"])
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(arg_params={"fc_weight": mx.nd.array(W), "fc_bias": mx.nd.zeros(3)})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    for _ in range(2):
        it.reset()
        for batch in it:
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
    arg, _ = mod.get_params()
    np.testing.assert_allclose(arg["fc_weight"].asnumpy(), [
        [-0.3881608, -0.5275895, -0.2324206, 0.355555, 0.233823],
        [-0.1654054, -0.4295502, -0.0675057, -0.4046711, -0.0108993],
        [-0.161062, 0.2713665, -0.1319492, -0.2040104, -0.4480961]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(arg["fc_bias"].asnumpy(), [-0.108525, 0.1551287, -0.0466037], rtol=1e-5)
    it.reset()
    np.testing.assert_allclose(mod.predict(it).asnumpy(), [
        [0.6829361, 0.1854951, 0.1315688], [0.283113, 0.310436, 0.406451], [0.1978343, 0.284328, 0.5178378],
        [0.1234872, 0.1882513, 0.6882615], [0.4410627, 0.4032435, 0.1556939], [0.7571265, 0.1511072, 0.0917663],
        [0.0821997, 0.4873496, 0.4304507], [0.1142377, 0.3061595, 0.5796028]], rtol=1e-5)


@pytest.mark.filterwarnings("ignore:.*has been deprecated")
def test_ndarray_op_two_outputs_forward_backward_in_an_executor():
    """An NDArrayOp with two inputs and two outputs, bound and run with head gradients
    (MXNet 1.9.1 gives these names, and the same values)."""
    rng = np.random.RandomState(1)
    A, B = rng.randn(2, 3).astype("float32"), rng.randn(2, 3).astype("float32")
    op = _SumProd()
    s = op(a=mx.sym.var("a"), b=mx.sym.var("b"), name="sc")
    assert (s.list_arguments(), s.list_outputs()) == (["a", "b"], ["sc_sum", "sc_prod"])
    assert op.declare_backward_dependency([0, 1], [2, 3], [4, 5]) == [0, 1, 2, 3, 4, 5]
    ga, gb = mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))
    ex = s.bind(mx.cpu(), args={"a": mx.nd.array(A), "b": mx.nd.array(B)}, args_grad={"a": ga, "b": gb})
    outs = ex.forward(is_train=True)
    ex.backward([mx.nd.ones((2, 3)), mx.nd.full((2, 3), 0.5)])
    np.testing.assert_allclose(outs[0].asnumpy(), A + 2 * B, rtol=1e-6)
    np.testing.assert_allclose(outs[1].asnumpy(), A * B, rtol=1e-6)
    np.testing.assert_allclose(ga.asnumpy(), 1 + 0.5 * B, rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), 2 + 0.5 * A, rtol=1e-6)


def test_python_op_base_is_abstract_and_warns():
    with pytest.warns(UserWarning, match="PythonOp has been deprecated"):
        op = mx.operator.PythonOp()
    with pytest.raises(NotImplementedError, match="Must override this"):
        op(mx.sym.var("x"))
    assert (op.list_arguments(), op.list_outputs(), op.need_top_grad()) == (["data"], ["output"], True)
    assert op.infer_shape([[2, 3]]) == ([[2, 3]], [[2, 3]])
