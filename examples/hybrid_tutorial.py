"""MXNet's Gluon hybridization tutorial ("Hybrid - Faster training and easy deployment"),
as a script, on neogluon.

The only change from the tutorial's code is ``import neogluon as mx`` for
``import mxnet as mx`` (or keep ``import mxnet`` and run the page's code unchanged with
``neogluon run``). It shows, in order:

1. ``hybrid_forward`` running imperatively: it sees an NDArray on every call;
2. after ``net.hybridize()`` the first call traces the graph (``hybrid_forward`` sees a
   Symbol, once) and later calls run the cached graph without calling it;
3. the time per forward pass before and after ``hybridize()``;
4. ``net.export`` writing ``model-symbol.json`` / ``model-0001.params`` and
   ``SymbolBlock.imports`` loading them back with the same outputs.

    python examples/hybrid_tutorial.py [--out DIR] [--repeat N]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import gluon  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon import nn  # noqa: E402  pylint: disable=wrong-import-position


class Net(gluon.HybridBlock):
    """The tutorial's LeNet, with the last layer as a manual ``dot`` on its own Parameter."""

    def __init__(self, verbose=True, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.verbose = verbose
        with self.name_scope():
            # layers created in name_scope will inherit name space from parent layer.
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.conv2 = nn.Conv2D(16, kernel_size=5)
            self.pool2 = nn.MaxPool2D(pool_size=2)
            self.fc1 = nn.Dense(120)
            self.fc2 = nn.Dense(84)
            # You can use a Dense layer for fc3 but we do dot product manually
            # here for illustration purposes.
            self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))

    def hybrid_forward(self, F, x, fc3_weight):
        # F is mx.nd or mx.sym; x and fc3_weight are NDArrays or Symbols accordingly
        if self.verbose:  # the tutorial prints x itself: an NDArray, or a Symbol while tracing
            print("  hybrid_forward called with %s" % ("Symbol %s" % x.name if isinstance(x, mx.sym.Symbol)
                                                       else "NDArray %s" % (x.shape,)))
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        # 0 means copy over size from corresponding dimension.
        # -1 means infer size from the rest of dimensions.
        x = x.reshape((0, -1))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.dot(x, fc3_weight, transpose_b=True)
        return x


def time_forward(net, x, repeat=50):
    """Best-of-three average time of ``net(x)`` in predict mode, in milliseconds."""
    net(x).wait_to_read()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeat):
            net(x).wait_to_read()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e3


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=".", help="where export writes the model files (default: here)")
    parser.add_argument("--repeat", type=int, default=50, help="forward passes per timing (default 50)")
    args = parser.parse_args(argv)
    mx.random.seed(42)

    print("--- imperative: hybrid_forward runs on every call ---")
    net = Net()
    net.initialize()
    x = mx.nd.random_normal(shape=(16, 1, 28, 28))
    net(x)
    x = mx.nd.random_normal(shape=(16, 1, 28, 28))
    net(x)

    print("--- hybridize: traced once, then the cached graph runs ---")
    net.hybridize()
    x = mx.nd.random_normal(shape=(16, 1, 28, 28))
    net(x)
    x = mx.nd.random_normal(shape=(16, 1, 28, 28))
    out = net(x)
    print("--- hybridize(static_alloc=True, static_shape=True): a new cached graph, traced again ---")
    net.hybridize(static_alloc=True, static_shape=True)
    out = net(x)

    net.verbose = False
    net.hybridize(active=False)
    imperative_ms = time_forward(net, x, args.repeat)
    net.hybridize(static_alloc=True, static_shape=True)
    hybrid_ms = time_forward(net, x, args.repeat)
    print("forward of a batch of 16: %.2f ms imperative, %.2f ms hybridized (%.2fx)"
          % (imperative_ms, hybrid_ms, imperative_ms / hybrid_ms))

    prefix = os.path.join(args.out, "model")
    net.export(prefix, epoch=1)
    print("exported %s-symbol.json and %s-0001.params" % (prefix, prefix))
    net2 = gluon.SymbolBlock.imports(prefix + "-symbol.json", ['data'], prefix + "-0001.params")
    same = np.allclose(net2(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    print("SymbolBlock.imports gives the same outputs: %s" % same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
