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
