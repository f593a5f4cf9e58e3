"""BatchNorm folded into the convolution before it in hybridized prediction
(neogluon/executor/fold.py): the same outputs as the unfolded graph, refolded when a
parameter changes, exact gradients when recording, and no folding where it would be wrong.
The model-zoo tests (tests/test_model_zoo.py) check folded networks against MXNet's outputs."""
import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon, nd


class ConvBN(gluon.HybridBlock):
    def __init__(self, use_bias=False, fix_gamma=False, share=False, **kwargs):
        super().__init__(**kwargs)
        self.share = share
        with self.name_scope():
            self.conv = gluon.nn.Conv2D(4, 3, padding=1, use_bias=use_bias, in_channels=3)
            self.bn = gluon.nn.BatchNorm(in_channels=4, scale=not fix_gamma)

    def hybrid_forward(self, F, x):
        y = self.conv(x)
        out = F.relu(self.bn(y))
        return out + y if self.share else out


def build(**kwargs):
    net = ConvBN(**kwargs)
    net.initialize(mx.init.Xavier())
    rng = np.random.RandomState(0)
    for name, p in net.collect_params().items():
        if name.endswith("running_var") or name.endswith("gamma"):
            p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape)))
        elif not name.endswith("weight"):
            p.set_data(nd.array(rng.uniform(-0.3, 0.3, p.shape)))
    return net


X = nd.array(np.random.RandomState(1).uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32))


def source(net):
    return net._cached_op.compiled.sources[False]


@pytest.mark.parametrize("kwargs", [{}, {"use_bias": True}, {"fix_gamma": True}])
def test_folded_prediction_equals_the_unfolded_graph(kwargs):
    net = build(**kwargs)
    want = net(X).asnumpy()
    net.hybridize()
    got = net(X).asnumpy()
    assert "folded in" in source(net)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_convolution_read_twice_is_not_folded():
    net = build(share=True)
    want = net(X).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(X).asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert "folded in" not in source(net)


def test_training_mode_is_not_folded():
    net = build()
    net.hybridize()
    with mx.autograd.record():
        net(X)
    assert "folded in" not in net._cached_op.compiled.sources[True]


def test_changed_parameters_are_folded_again():
    net = build()
    net.hybridize()
    net(X)
    net.bn.gamma.set_data(net.bn.gamma.data() * 2)
    got = net(X).asnumpy()
    net.hybridize(active=False)
    np.testing.assert_allclose(got, net(X).asnumpy(), rtol=1e-5, atol=1e-6)
    # a training step changes the weights in place (their version counters)
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    with mx.autograd.record():
        loss = net(X).sum()
    loss.backward()
    trainer.step(1)
    got = net(X).asnumpy()
    net.hybridize(active=False)
    want = net(X).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())


def test_gradients_recorded_in_predict_mode_are_exact():
    net = build()
    grads = []
    for hybrid in (False, True):
        net.hybridize(active=hybrid)
        x = X.copy()
        x.attach_grad()
        with mx.autograd.record(train_mode=False):
            y = net(x)
        y.backward()
        grads.append((x.grad.asnumpy(), net.conv.weight.grad().asnumpy().copy(), net.bn.gamma.grad().asnumpy().copy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_outputs_leave_the_graph_contiguous():
    """Folded weights are channels-last (oneDNN's fast kernels); the outputs are not."""
    net = build()
    net.hybridize()
    out = net(X)
    assert out._t.is_contiguous() and out.asnumpy().flags["C_CONTIGUOUS"]


class ConvBNActivation(gluon.HybridBlock):
    """Convolution, BatchNorm and ``Activation(relu)`` (model-zoo style): the three run as
    one oneDNN convolution with a ReLU post-op; ``tap`` also returns the BatchNorm output."""

    def __init__(self, tap=False, **conv):
        super().__init__()
        self.tap = tap
        with self.name_scope():
            self.conv = gluon.nn.Conv2D(in_channels=3, use_bias=False, **conv)
            self.bn = gluon.nn.BatchNorm(in_channels=conv["channels"])
            self.act = gluon.nn.Activation("relu")

    def hybrid_forward(self, F, x):
        y = self.bn(self.conv(x))
        return (self.act(y), y) if self.tap else self.act(y)


def _build_act(**kwargs):
    net = ConvBNActivation(**kwargs)
    net.initialize(mx.init.Xavier())
    rng = np.random.RandomState(0)
    for name, p in net.collect_params().items():
        if name.endswith("running_var") or name.endswith("gamma"):
            p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape)))
        elif not name.endswith("weight"):
            p.set_data(nd.array(rng.uniform(-0.3, 0.3, p.shape)))
    return net


@pytest.mark.parametrize("conv", [dict(channels=4, kernel_size=3, padding=1),
                                  dict(channels=6, kernel_size=3, strides=2, padding=2, dilation=2, groups=3),
                                  dict(channels=5, kernel_size=1)])
def test_relu_after_a_folded_pair_runs_in_the_convolution(conv):
    net = _build_act(**conv)
    want = net(X).asnumpy()
    net.hybridize()
    got = net(X).asnumpy()
    assert "folded in" in source(net) and net.act.name in source(net)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (got >= 0).all() and (got == 0).any()
    # gradients recorded in predict mode run the pair and the ReLU unfolded: exact
    x = X.copy()
    x.attach_grad()
    with mx.autograd.record(train_mode=False):
        y = net(x)
    y.backward()
    got_grad = x.grad.asnumpy()
    net.hybridize(active=False)
    x2 = X.copy()
    x2.attach_grad()
    with mx.autograd.record(train_mode=False):
        y2 = net(x2)
    y2.backward()
    np.testing.assert_allclose(got_grad, x2.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_relu_is_not_folded_when_the_batchnorm_output_is_read_elsewhere():
    net = _build_act(tap=True, channels=4, kernel_size=3, padding=1)
    want = [o.asnumpy() for o in net(X)]
    net.hybridize()
    got = [o.asnumpy() for o in net(X)]
    assert "folded in" in source(net) and net.act.name not in source(net).split("folded in")[0].split("\n")[-1]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
