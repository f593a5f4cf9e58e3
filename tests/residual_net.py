"""A small residual CNN (convolutions, BatchNorm, residual additions, global pooling),
built from the ``mx`` module it is given: neogluon in ``tests/test_trainer.py``, MXNet
1.9.1 in ``tools/make_extra_fixtures_train.py``, which records its training."""


def build(mx):
    """The network, with fixed prefixes so that parameter names do not depend on counters."""
    nn = mx.gluon.nn

    class Residual(nn.HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv1 = nn.Conv2D(channels, 3, padding=1, use_bias=False)
                self.bn1 = nn.BatchNorm()
                self.conv2 = nn.Conv2D(channels, 3, padding=1, use_bias=False)
                self.bn2 = nn.BatchNorm()

        def hybrid_forward(self, F, x):
            y = F.relu(self.bn1(self.conv1(x)))
            return F.relu(x + self.bn2(self.conv2(y)))

    net = nn.HybridSequential(prefix="resnet_")
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                Residual(8, prefix="res1_"), Residual(8, prefix="res2_"),
                nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(10))
    return net
