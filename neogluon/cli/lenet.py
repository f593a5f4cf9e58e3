"""The hybridization tutorial's LeNet, built from whichever ``mx`` module it is given.

This file imports nothing, so ``benchmarks/bench_gluon.py`` can load it by path under
MXNet 1.9.1's interpreter as well as under neogluon (``neogluon demo`` and the tests
import it as usual): one definition of the network for all of them.
"""


def build_lenet(mx, **kwargs):
    """The hybridization tutorial's ``Net``, as written on the tutorial page (``kwargs``
    go to the block, e.g. ``prefix``)."""
    gluon, nn = mx.gluon, mx.gluon.nn

    class LeNet(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(LeNet, self).__init__(**kwargs)
            with self.name_scope():
                self.conv1 = nn.Conv2D(6, kernel_size=5)
                self.pool1 = nn.MaxPool2D(pool_size=2)
                self.conv2 = nn.Conv2D(16, kernel_size=5)
                self.pool2 = nn.MaxPool2D(pool_size=2)
                self.fc1 = nn.Dense(120)
                self.fc2 = nn.Dense(84)
                self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))

        def hybrid_forward(self, F, x, fc3_weight):
            x = self.pool1(F.relu(self.conv1(x)))
            x = self.pool2(F.relu(self.conv2(x)))
            x = x.reshape((0, -1))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return F.dot(x, fc3_weight, transpose_b=True)

    return LeNet(**kwargs)
