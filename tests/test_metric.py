"""mx.metric against MXNet 1.9.1's values on fixed predictions and labels
(tools/make_extra_fixtures_train.py): after each update, then local and global values
after ``reset_local``; plus creation by name/list/callable, registration and errors."""
import json
import math
import os

import numpy as np
import pytest

import neogluon as mx

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "train")
CASES = json.load(open(os.path.join(FIX, "metrics.json")))
DATA = np.load(os.path.join(FIX, "metrics.npz"))


def _same(actual, expected, what):
    (aname, avalue), (ename, evalue) = actual, expected
    assert aname == ename, what
    avalue = avalue if isinstance(avalue, list) else [avalue]
    evalue = evalue if isinstance(evalue, list) else [evalue]
    for a, e in zip(avalue, evalue):
        if isinstance(e, float) and math.isnan(e):
            assert math.isnan(a), what
        else:
            assert float(a) == pytest.approx(e, rel=1e-5, abs=1e-6), what


def _batch(name, j):
    return [mx.nd.array(DATA["%s:%d:label" % (name, j)])], [mx.nd.array(DATA["%s:%d:pred" % (name, j)])]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_metric_matches_mxnet(case):
    m = mx.metric.create(case["metric"], **case["kwargs"])
    for j in range(case["nbatch"]):
        m.update(*_batch(case["data"], j))
        _same(m.get(), case["get:%d" % j], "%s after update %d" % (case["case"], j))
    m.reset_local()
    m.update(*_batch(case["data"], 0))
    _same(m.get(), case["local"], "%s local" % case["case"])
    _same(m.get_global(), case["global"], "%s global" % case["case"])


def test_create_variants_and_registry():
    assert isinstance(mx.metric.create("acc"), mx.metric.Accuracy)
    assert isinstance(mx.metric.create("CE"), mx.metric.CrossEntropy)
    comp = mx.metric.create(["acc", mx.metric.MAE()])
    assert isinstance(comp, mx.metric.CompositeEvalMetric) and len(comp.metrics) == 2
    m = mx.metric.create('{"metric": "top_k_accuracy", "top_k": 3}')
    assert m.name == "top_k_accuracy_3"
    with pytest.raises(AssertionError, match="is not registered"):
        mx.metric.create("nosuch")

    @mx.metric.register
    @mx.metric.alias("half_sum")
    class HalfSum(mx.metric.EvalMetric):
        def __init__(self):
            super().__init__("halfsum")

        def update(self, labels, preds):
            self.sum_metric += float(preds[0].asnumpy().sum()) / 2
            self.num_inst += 1

    m = mx.metric.create("halfsum")
    m.update([mx.nd.zeros(2)], [mx.nd.array([1.0, 3.0])])
    assert m.get() == ("halfsum", 2.0)


def test_custom_metric_and_np():
    def neg_mae(label, pred):
        return -np.abs(label - pred).mean()
    m = mx.metric.np(neg_mae)
    m.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([2.0, 2.0])])
    assert m.get() == ("neg_mae", -0.5)
    m = mx.metric.create(lambda label, pred: (float((label == pred).sum()), label.size))
    m.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.0, 3.0])])
    assert m.get() == ("custom(<lambda>)", 0.5)
    assert m.get_name_value() == [("custom(<lambda>)", 0.5)]


def test_shape_mismatch_and_empty():
    m = mx.metric.Accuracy()
    assert math.isnan(m.get()[1])
    with pytest.raises(ValueError, match="does not match shape of predictions"):
        m.update([mx.nd.zeros(2)], [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))])
    with pytest.raises(AssertionError, match="Please use Accuracy"):
        mx.metric.TopKAccuracy(top_k=1)
    assert str(mx.metric.MSE()) == "EvalMetric: {'mse': nan}"
