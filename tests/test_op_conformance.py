"""Every operator case recorded from MXNet 1.9.1 (tests/fixtures/mxnet-1.9.1/ops), run
imperatively through ``mx.nd``: outputs in predict and train mode, gradients for the
recorded head gradients, and auxiliary states after the train step.

Each case's ``-symbol.json`` is a small graph (usually one operator); it is evaluated
node by node with the registry's attribute parser reading MXNet's attribute strings.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "mxnet-1.9.1")
MANIFEST = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))
CASES = sorted(MANIFEST["ops"])

RTOL, ATOL = 1e-4, 1e-5
# cases that need a looser tolerance, and why
TOLERANCE = {
}
# outputs that are random in train mode (compared in predict mode only)
RANDOM_IN_TRAIN = {"Dropout_predict"}


def run_graph(graph, values):
    """Evaluate an MXNet JSON graph imperatively; returns the head NDArrays."""
    nodes = graph["nodes"]
    results = {}
    for i, node in enumerate(nodes):
        if node["op"] == "null":
            results[i] = [values[node["name"]]]
            continue
        attrs = {k: v for k, v in node.get("attrs", {}).items() if not k.startswith("__")}
        inputs = [results[e[0]][e[1]] for e in node["inputs"]]
        out = invoke(node["op"], inputs, attrs)
        results[i] = out if isinstance(out, list) else [out]
    return [results[h[0]][h[1]] for h in graph["heads"]]


def load_case(name):
    graph = json.load(open(os.path.join(FIXTURES, "ops", name + "-symbol.json")))
    data = dict(np.load(os.path.join(FIXTURES, "ops", name + ".npz")))
    return graph, data


def fresh_inputs(data):
    return {k[3:]: mx.nd.array(v, dtype=v.dtype) for k, v in data.items() if k.startswith("in:")}


def check(actual, expected, what, case):
    rtol, atol = TOLERANCE.get(case, (RTOL, ATOL))
    a = actual.asnumpy() if hasattr(actual, "asnumpy") else actual
    assert a.shape == expected.shape, "%s %s: shape %s, MXNet gave %s" % (case, what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s %s: dtype %s, MXNet gave %s" % (case, what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg="%s: %s" % (case, what))


@pytest.mark.parametrize("case", CASES)
def test_predict(case):
    graph, data = load_case(case)
    with mx.autograd.predict_mode():
        outs = run_graph(graph, fresh_inputs(data))
    n = len([k for k in data if k.startswith("out:")])
    assert len(outs) == n
    for i, o in enumerate(outs):
        check(o, data["out:%d" % i], "predict output %d" % i, case)


@pytest.mark.parametrize("case", CASES)
def test_train_and_gradients(case):
    graph, data = load_case(case)
    values = fresh_inputs(data)
    grads = {k[5:] for k in data if k.startswith("grad:")}
    for name in grads:
        values[name].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = run_graph(graph, values)
    if case not in RANDOM_IN_TRAIN:
        for i, o in enumerate(outs):
            check(o, data["trainout:%d" % i], "train output %d" % i, case)
    if grads:
        heads = [mx.nd.array(data["head:%d" % i], dtype=data["head:%d" % i].dtype) for i in range(len(outs))]
        mx.autograd.backward(outs, heads)
        for name in sorted(grads):
            check(values[name].grad, data["grad:" + name], "gradient of %s" % name, case)
    for k in data:  # after backward, where MXNet's BatchNorm updates its moving averages
        if k.startswith("auxafter:"):
            check(values[k[9:]], data[k], "auxiliary state %s after the train step" % k[9:], case)


def test_every_fixture_operator_is_registered():
    missing = sorted({c["op"] for c in MANIFEST["ops"].values()} - set(registry.list_operators()))
    assert not missing, missing
