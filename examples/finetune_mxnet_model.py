"""Load a model that MXNet 1.9.1 saved, check it, fine-tune it on digits, save it again.

The model is the hybridization tutorial's LeNet as real MXNet 1.9.1 exported it
(``tests/fixtures/mxnet-1.9.1/models/lenet-symbol.json`` and ``lenet-0000.params``, with
the inputs and outputs MXNet recorded in ``lenet-io.npz``). The script

1. loads it with ``gluon.SymbolBlock.imports`` and checks that it reproduces MXNet's
   recorded outputs;
2. fine-tunes every layer on scikit-learn's digits with ``gluon.Trainer``, the
   convolutions at a tenth of the learning rate (``Parameter.lr_mult``);
3. exports the fine-tuned model in the same MXNet format (``--out``), ready for MXNet
   1.9.1 or ``SymbolBlock.imports`` again.

    python examples/finetune_mxnet_model.py [--epochs 5] [--out DIR] [--limit N]
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import autograd, gluon  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.cli.digits import load_digits_28  # noqa: E402  pylint: disable=wrong-import-position

MODEL = os.path.join(HERE, "..", "tests", "fixtures", "mxnet-1.9.1", "models", "lenet")


def load_mxnet_model(prefix):
    """The model as a SymbolBlock, checked against the outputs MXNet recorded for it."""
    net = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    recorded = np.load(prefix + "-io.npz")
    ours = net(mx.nd.array(recorded["data:0"])).asnumpy()
    np.testing.assert_allclose(ours, recorded["out:0"], rtol=1e-4, atol=1e-5)
    print("loaded %s-symbol.json: outputs match MXNet 1.9.1's to %.1e" % (
        os.path.basename(prefix), np.max(np.abs(ours - recorded["out:0"]))))
    return net


def accuracy(net, x, y):
    metric = mx.metric.Accuracy()
    metric.update([y], [net(x)])
    return metric.get()[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N training images")
    parser.add_argument("--out", default="lenet-digits", help="prefix of the exported model (default lenet-digits)")
    args = parser.parse_args(argv)

    mx.random.seed(0)
    net = load_mxnet_model(os.path.normpath(MODEL))
    x_train, y_train, x_test, y_test = load_digits_28()
    x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    x_test, y_test = mx.nd.array(x_test), mx.nd.array(y_test)
    print("test accuracy before fine-tuning: %.3f" % accuracy(net, x_test, y_test))

    for name, param in net.collect_params().items():
        if "conv" in name:
            param.lr_mult = 0.1
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": args.lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=args.batch_size,
                                   shuffle=True)
    for epoch in range(args.epochs):
        for x, y in loader:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
        print("epoch %d: test accuracy %.3f" % (epoch + 1, accuracy(net, x_test, y_test)))

    net.export(args.out)
    again = gluon.SymbolBlock.imports(args.out + "-symbol.json", ["data"], args.out + "-0000.params")
    same = np.allclose(again(x_test).asnumpy(), net(x_test).asnumpy(), rtol=1e-5, atol=1e-5)
    print("exported %s-symbol.json / %s-0000.params; reloaded outputs agree: %s" % (args.out, args.out, same))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
