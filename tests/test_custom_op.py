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
