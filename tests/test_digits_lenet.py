"""The hybridization tutorial's LeNet, trained with gluon.Trainer on scikit-learn's digits,
reaches at least 95% test accuracy, imperatively and hybridized (issue 4's acceptance run)."""
import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, gluon

sklearn = pytest.importorskip("sklearn")
from neogluon.cli.lenet import build_lenet  # noqa: E402  (the tutorial's Net, with its hand-made dot)
from neogluon.cli.digits import load_digits_28  # noqa: E402


@pytest.fixture(scope="module")
def digits():
    return load_digits_28()


def accuracy(net, x, y):
    metric = mx.metric.Accuracy()
    for i in range(0, len(x), 256):
        metric.update([mx.nd.array(y[i:i + 256])], [net(mx.nd.array(x[i:i + 256]))])
    return metric.get()[1]


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_lenet_reaches_95_percent_on_digits(digits, hybridize):
    x_train, y_train, x_test, y_test = digits
    mx.random.seed(0)
    np.random.seed(0)  # DataLoader's shuffling uses numpy's generator, as in MXNet
    net = build_lenet(mx)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.002})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=32, shuffle=True)
    for _ in range(6):
        for x, y in loader:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
    acc = accuracy(net, x_test, y_test)
    print("test accuracy %.4f" % acc)
    assert acc >= 0.95
