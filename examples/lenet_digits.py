"""LeNet on handwritten digits with Gluon: a complete training script.

scikit-learn's bundled 8x8 digits (1797 images, no download) are upscaled to LeNet's
28x28 input; a hybridized ``nn.HybridSequential`` LeNet is trained with ``gluon.Trainer``
(Adam), a ``DataLoader`` and ``mx.metric.Accuracy``, then saved with
``save_parameters`` and reloaded into a fresh network to check the test accuracy again.

    python examples/lenet_digits.py [--epochs 8] [--batch-size 32] [--limit N]
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import autograd, gluon  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon import nn  # noqa: E402  pylint: disable=wrong-import-position
# scikit-learn's digits, upscaled 3x and padded to 28x28, split 80/20 by class
from neogluon.cli.digits import load_digits_28  # noqa: E402  pylint: disable=wrong-import-position


def lenet():
    """LeNet-5 as in the Gluon tutorials: two conv/pool stages and three dense layers."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(6, kernel_size=5, activation="relu"),
                nn.MaxPool2D(pool_size=2),
                nn.Conv2D(16, kernel_size=5, activation="relu"),
                nn.MaxPool2D(pool_size=2),
                nn.Flatten(),
                nn.Dense(120, activation="relu"),
                nn.Dense(84, activation="relu"),
                nn.Dense(10))
    return net


def evaluate(net, loader):
    metric = mx.metric.Accuracy()
    for x, y in loader:
        metric.update([y], [net(x)])
    return metric.get()[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N training images")
    args = parser.parse_args(argv)

    mx.random.seed(0)
    x_train, y_train, x_test, y_test = load_digits_28()
    x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    train = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=args.batch_size,
                                  shuffle=True)
    test = gluon.data.DataLoader(gluon.data.ArrayDataset(x_test, y_test), batch_size=256)

    net = lenet()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": args.lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for epoch in range(args.epochs):
        start, total, count = time.perf_counter(), 0.0, 0
        for x, y in train:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
            total += loss.sum().asscalar()
            count += x.shape[0]
        print("epoch %d: loss %.4f, test accuracy %.3f (%.1fs)"
              % (epoch + 1, total / count, evaluate(net, test), time.perf_counter() - start))

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "lenet.params")
        net.save_parameters(path)
        net2 = lenet()
        net2.load_parameters(path)
    accuracy, reloaded = evaluate(net, test), evaluate(net2, test)
    print("test accuracy %.3f; after save_parameters/load_parameters: %.3f" % (accuracy, reloaded))
    return 0 if accuracy == reloaded else 1


if __name__ == "__main__":
    sys.exit(main())
