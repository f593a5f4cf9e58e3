"""gluon.loss against MXNet 1.9.1 (recorded by tools/make_extra_fixtures_layers.py):
values and gradients with weight, batch_axis and sample_weight, imperatively and
hybridized, reprs and graphs, and the argument checks."""
import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd
from neogluon.gluon import loss as gloss

import layer_cases as lc

LOSSES = lc.case_names(is_loss=True)
HYBRID_LOSSES = [n for n in LOSSES if lc.CASES[n]["hybridizable"]]


@pytest.mark.parametrize("name", LOSSES)
def test_loss_matches_mxnet(name):
    lc.replay(name)


@pytest.mark.parametrize("name", HYBRID_LOSSES)
def test_hybridized_loss_matches_mxnet(name):
    lc.replay(name, hybridize=True)


@pytest.mark.parametrize("name", LOSSES)
def test_loss_repr_and_prefix(name):
    lc.check_structure(name)


@pytest.mark.parametrize("name", HYBRID_LOSSES)
def test_loss_symbolic_graph(name):
    assert lc.symbolic_nodes(name) == lc.CASES[name]["graph"]


def test_aliases():
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss


def test_poisson_full_hybridizes_and_differentiates():
    """MXNet 1.9.1 cannot record or hybridize compute_full (it multiplies in place);
    here it does both, with the recorded prediction."""
    meta, data = lc.load("PoissonNLLLoss_full")
    pred, target, weight = (mx.nd.array(data["in%d" % i]) for i in range(3))
    loss = gloss.PoissonNLLLoss(from_logits=False, compute_full=True)
    pred.attach_grad()
    with autograd.record():
        out = loss(pred, target, weight)
    out.backward()
    lc.assert_close(out, data["predict"], "imperative")
    p, t, w = data["in0"], data["in1"], data["in2"]
    expected_grad = (1 - t / (p + 1e-8)) * w / p.size
    np.testing.assert_allclose(pred.grad.asnumpy(), expected_grad, rtol=1e-5)
    loss.hybridize()
    lc.assert_close(loss(pred, target, weight), data["predict"], "hybridized")


def test_sdml_loss_needs_ndarrays():
    """SDMLLoss reads the batch size from ``.shape``: hybridizing it fails, as in MXNet."""
    loss = gloss.SDMLLoss()
    loss.hybridize()
    with pytest.raises(mx.MXNetError, match="has no attribute 'shape'"):
        loss(mx.nd.ones((3, 2)), mx.nd.ones((3, 2)))


@pytest.mark.parametrize("make, error, message", [
    (lambda: gloss.LogisticLoss(label_format="onehot"), ValueError, "signed or binary"),
    (lambda: gloss.CTCLoss(layout="NCT"), AssertionError, "'NTC' and 'TNC'"),
    (lambda: gloss.CTCLoss(label_layout="NN"), AssertionError, "'NT' and 'TN'"),
])
def test_invalid_loss_arguments(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_weight_must_be_a_number():
    loss = gloss.L1Loss(weight=mx.nd.ones((1,)))
    with pytest.raises(AssertionError, match="weight must be a number"):
        loss(mx.nd.ones((2, 3)), mx.nd.zeros((2, 3)))


def test_label_of_wrong_size_raises():
    with pytest.raises(mx.MXNetError):
        gloss.L2Loss()(mx.nd.ones((2, 3)), mx.nd.ones((2, 4)))
