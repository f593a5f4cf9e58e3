"""Record MXNet 1.9.1's answers for Python custom operators (``mx.operator.CustomOp``).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_custom_op.py

The operators (the custom-operator tutorial's ``softmax`` and a ``scaled`` operator with an
attribute, two outputs and an auxiliary state) are defined in
``tests/fixtures/extra/custom_op/ops.py``, shared with ``tests/test_custom_op.py``. Writes
``tests/fixtures/extra/custom_op/``: ``arrays.npz`` (inputs, outputs, gradients),
``info.json`` (symbol listings, inferred shapes and types, error messages) and the JSON
files MXNet writes for a symbol and for an exported hybridized block.
"""
import importlib.util
import json
import os
import tempfile

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "custom_op")


def load_ops():
    spec = importlib.util.spec_from_file_location("custom_ops", os.path.join(OUT, "ops.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.define(mx)


def main():
    Net = load_ops()
    rng = np.random.RandomState(7)
    arrays, info = {}, {}
    x = rng.uniform(-2, 2, (3, 4)).astype(np.float32)
    label = np.array([0, 3, 1], dtype=np.float32)
    arrays["x"], arrays["label"] = x, label

    # the tutorial's softmax, imperative: forward, and the gradient under autograd
    xs, ls = mx.nd.array(x), mx.nd.array(label)
    arrays["softmax_out"] = mx.nd.Custom(xs, ls, op_type="softmax").asnumpy()
    xs.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(xs, ls, op_type="softmax")
    y.backward()
    arrays["softmax_grad"] = xs.grad.asnumpy()

    # 'scaled': an attribute (a string for the prop), two outputs, an aux state, head gradients
    a = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    hs = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    hp = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    arrays.update(a=a, b=b, head_sum=hs, head_product=hp)
    an, bn, count = mx.nd.array(a), mx.nd.array(b), mx.nd.zeros((1,))
    an.attach_grad()
    bn.attach_grad()
    with mx.autograd.record():
        s, p = mx.nd.Custom(an, bn, count, op_type="scaled", scale=2.5)
    mx.autograd.backward([s, p], [mx.nd.array(hs), mx.nd.array(hp)])
    arrays.update(scaled_sum=s.asnumpy(), scaled_product=p.asnumpy(), scaled_grad_a=an.grad.asnumpy(),
                  scaled_grad_b=bn.grad.asnumpy(), scaled_count=count.asnumpy())

    # symbols: listings, shape and type inference, JSON
    data, lab = mx.sym.Variable("data"), mx.sym.Variable("label")
    sm = mx.sym.Custom(data=data, label=lab, op_type="softmax", name="sm")
    sc = mx.sym.Custom(mx.sym.Variable("a"), mx.sym.Variable("b"), op_type="scaled", scale=2.5, name="sc")
    partial = mx.sym.Custom(data, op_type="softmax", name="auto")
    info["softmax"] = {"arguments": sm.list_arguments(), "outputs": sm.list_outputs(),
                       "infer_shape": [list(map(list, r)) for r in sm.infer_shape(data=(3, 4))],
                       "infer_type": [[np.dtype(t).name for t in r] for r in sm.infer_type(data="float64", label="float64")],
                       "partial_arguments": partial.list_arguments()}
    info["scaled"] = {"arguments": sc.list_arguments(), "outputs": sc.list_outputs(),
                      "auxiliary_states": sc.list_auxiliary_states(),
                      "infer_shape": [list(map(list, r)) for r in sc.infer_shape(a=(2, 3))]}
    with open(os.path.join(OUT, "softmax-symbol.json"), "w") as f:
        f.write(sm.tojson())
    with open(os.path.join(OUT, "scaled-symbol.json"), "w") as f:
        f.write(sc.tojson())
    exe = sc.simple_bind(mx.cpu(), a=(2, 3), b=(2, 3))
    exe.forward(is_train=False, a=mx.nd.array(a), b=mx.nd.array(b))
    arrays["bound_sum"], arrays["bound_product"] = exe.outputs[0].asnumpy(), exe.outputs[1].asnumpy()

    # the tutorial's use: a network whose loss layer is the custom softmax, hybridized and exported
    mx.random.seed(3)
    net = Net(prefix="net_")
    net.initialize(mx.init.Xavier())
    net.hybridize()
    feats = rng.uniform(-1, 1, (3, 5)).astype(np.float32)
    arrays["feats"] = feats
    for name, param in net.collect_params().items():
        arrays["param:" + name] = param.data().asnumpy()
    with mx.autograd.record():
        out = net(mx.nd.array(feats), mx.nd.array(label))
    out.backward()
    arrays["net_out"] = out.asnumpy()
    for name, param in net.collect_params().items():
        arrays["grad:" + name] = param.grad().asnumpy()
    with tempfile.TemporaryDirectory() as tmp:
        net.export(os.path.join(tmp, "net"))
        with open(os.path.join(tmp, "net-symbol.json")) as f:
            exported = f.read()
    with open(os.path.join(OUT, "net-symbol.json"), "w") as f:
        f.write(exported)

    # errors: an unregistered op_type
    try:
        mx.nd.Custom(xs, ls, op_type="no_such_op")
    except mx.base.MXNetError as err:
        info["unknown_op_type_error"] = str(err).strip().split("\n")[-1]
    np.savez(os.path.join(OUT, "arrays.npz"), **arrays)
    with open(os.path.join(OUT, "info.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
