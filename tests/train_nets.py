"""Small networks whose training tests/test_trainer.py compares with MXNet 1.9.1's, built
from the ``mx`` module they are given: neogluon in the tests, MXNet in
``tools/make_extra_fixtures_train.py``, which records the training. Fixed prefixes keep
parameter names independent of the block counters."""


def residual_cnn(mx):
    """Convolutions, BatchNorm, residual additions and global pooling."""
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


def lstm_lm(mx):
    """A language model: Embedding, a 2-layer fused LSTM (TNC), and a Dense decoder."""
    nn, rnn = mx.gluon.nn, mx.gluon.rnn

    class LanguageModel(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.embed = nn.Embedding(20, 8)
                self.lstm = rnn.LSTM(12, num_layers=2, layout="TNC")
                self.decode = nn.Dense(20, flatten=False)

        def hybrid_forward(self, F, x):
            return self.decode(self.lstm(self.embed(x)))

    return LanguageModel(prefix="lm_")


def train(mx, net, x, y, optimizer, clip, batch_axis, steps=5):
    """``steps`` training steps of ``net`` on one batch (softmax cross-entropy; the gradients
    clipped to global norm ``clip`` unless None); returns each step's mean loss."""
    params = net.collect_params()
    trainer = mx.gluon.Trainer(params, *optimizer)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        if clip is not None:
            mx.gluon.utils.clip_global_norm([p.grad() for p in params.values() if p.grad_req != "null"], clip)
        trainer.step(x.shape[batch_axis])
        losses.append(float(loss.mean().asscalar()))
    return losses
