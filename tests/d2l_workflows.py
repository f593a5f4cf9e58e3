"""d2l 1.0.3's MXNet edition (``from d2l import mxnet as d2l``) read as a reader runs the book,
on small synthetic data: each workflow returns {name: numpy array} of deterministic numbers
(parameters set from a seeded NumPy generator, data loaders without shuffling).

Run under MXNet 1.9.1 by ``tools/make_client_fixtures_d2l.py`` (which records
``tests/fixtures/extra/d2l/workflows.npz``) and under neogluon by ``tests/test_client_d2l.py``.
Imports ``mxnet`` and ``d2l`` only when a workflow runs."""
import os

import numpy as onp

os.environ.setdefault("MPLBACKEND", "Agg")


def _setup():
    import matplotlib
    matplotlib.use("Agg")
    from d2l import mxnet as d2l
    from mxnet import np, npx
    npx.set_np()
    return d2l, np, npx


def _arr(np, shape, seed, lo=-1.0, hi=1.0):
    return np.array(onp.random.RandomState(seed).uniform(lo, hi, size=shape).astype("float32"))


def _setp(np, block, seed, scale=0.3):
    rng = onp.random.RandomState(seed)
    for p in block.collect_params().values():
        v = rng.uniform(-scale, scale, size=p.shape)
        if p.name.endswith(("running_var", "gamma")):
            v = 1 + v
        p.set_data(np.array(v.astype("float32")))


def _out(res, name, x):
    res[name] = onp.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x, dtype=onp.float64)


def _fixed_data(d2l, arrays, batch_size, n_train):
    class Data(d2l.DataModule):
        def __init__(self):
            super().__init__()
            self.batch_size = batch_size

        def get_dataloader(self, train):
            i = slice(0, n_train) if train else slice(n_train, None)
            return self.get_tensorloader(arrays, False, i)
    return Data()


def regression_and_classifiers():
    """Chapters 3-5: LinearRegressionScratch/LinearRegression, softmax and MLP classifiers,
    weight decay and a custom initializer, all through d2l.Trainer."""
    d2l, np, _ = _setup()
    from mxnet import gluon, init
    from mxnet.gluon import nn
    res = {}
    X = _arr(np, (64, 2), 1)
    y = np.dot(X, np.array([2, -3.4]).reshape(-1, 1)) + 4.2
    data = _fixed_data(d2l, (X, y), 16, 48)
    model = d2l.LinearRegressionScratch(2, lr=0.03)
    model.w[:] = _arr(np, (2, 1), 2) * 0.1
    d2l.Trainer(max_epochs=2).fit(model, data)
    _out(res, "linreg_scratch_w", model.w)
    model = d2l.LinearRegression(lr=0.03)
    model(X[:2])
    _setp(np, model.net, 3)
    d2l.Trainer(max_epochs=2).fit(model, data)
    _out(res, "linreg_w", model.get_w_b()[0])
    _out(res, "linreg_board", [p.y for p in model.board.data["train_loss"]])

    class WeightDecay(d2l.LinearRegression):
        def __init__(self, wd, lr):
            super().__init__(lr)
            self.save_hyperparameters()
            self.wd = wd

        def configure_optimizers(self):
            self.collect_params('.*bias').setattr('wd_mult', 0)
            return gluon.Trainer(self.collect_params(), 'sgd', {'learning_rate': self.lr, 'wd': self.wd})
    model = WeightDecay(wd=3, lr=0.01)
    model(X[:2])
    _setp(np, model.net, 4)
    d2l.Trainer(max_epochs=2).fit(model, data)
    _out(res, "weight_decay_w", model.net.weight.data())

    Xi = _arr(np, (48, 1, 6, 6), 5, 0, 1)
    yi = np.array(onp.random.RandomState(6).randint(0, 4, size=48)).astype("int32")
    imgs = _fixed_data(d2l, (Xi, yi), 8, 32)
    model = d2l.SoftmaxRegression(num_outputs=4, lr=0.1)
    model(Xi[:2])
    _setp(np, model.net, 7, 0.05)
    d2l.Trainer(max_epochs=2).fit(model, imgs)
    _out(res, "softmax_loss", model.loss(model(Xi), yi))
    _out(res, "softmax_acc", model.accuracy(model(Xi), yi))

    class MyInit(init.Initializer):
        def _init_weight(self, name, data):
            data[:] = _arr(np, data.shape, 8, -10, 10)
            data *= np.abs(data) >= 5
    mlp = nn.Sequential()
    mlp.add(nn.Dense(8, activation="relu"), nn.Dense(4))
    mlp.initialize(MyInit())
    _out(res, "myinit_out", mlp(Xi[:3].reshape(3, -1)))
    return res


def cnns():
    """Chapters 7-8: LeNet through d2l.Trainer, and BatchNorm/ResNet/ResNeXt blocks with one
    SGD step through train_batch_ch13 (one CPU context: BatchNorm's running statistics over
    two CPU contexts still differ from MXNet's)."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    import mxnet as mx
    res = {}
    X = _arr(np, (24, 1, 28, 28), 1, 0, 1)
    y = np.array(onp.random.RandomState(2).randint(0, 10, size=24)).astype("int32")
    model = d2l.LeNet(lr=0.5)
    model(X[:2])
    _setp(np, model.net, 3, 0.2)
    d2l.Trainer(max_epochs=1).fit(model, _fixed_data(d2l, (X, y), 8, 16))
    _out(res, "lenet_out", model(X[:2]))
    net = nn.Sequential()
    net.add(nn.Conv2D(8, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            d2l.Residual(8), d2l.Residual(16, use_1x1conv=True, strides=2),
            d2l.ResNeXtBlock(16, 4, 1), nn.GlobalAvgPool2D(), nn.Dense(10))
    devices = [mx.cpu(0)]
    net.initialize(ctx=devices)
    Xs = _arr(np, (4, 3, 16, 16), 4, 0, 1)
    ys = np.array([1, 2, 3, 0])
    net(Xs.as_in_ctx(devices[0]))
    _setp(np, net, 5, 0.1)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    l, _ = d2l.train_batch_ch13(net, Xs, ys, loss, trainer, devices)
    _out(res, "resnet_loss", l)
    with autograd.predict_mode():
        _out(res, "resnet_after", net(Xs))
    _out(res, "resnet_running_mean", net[1].running_mean.data())
    return res


TEXT = ("the time machine by h g wells the time traveller for so it will be convenient to speak of him "
        "was expounding a recondite matter to us his grey eyes shone and twinkled ") * 3


def rnns():
    """Chapter 9-10: RNNLMScratch and RNNLM (GRU, two layers) with gradient clipping, predict."""
    d2l, np, _ = _setup()
    res = {}

    class TM(d2l.TimeMachine):
        def _download(self):
            return TEXT

        def get_dataloader(self, train):
            idx = slice(0, self.num_train) if train else slice(self.num_train, self.num_train + self.num_val)
            return self.get_tensorloader([self.X, self.Y], False, idx)
    data = TM(batch_size=16, num_steps=8, num_train=96, num_val=32)
    rnn = d2l.RNNScratch(num_inputs=len(data.vocab), num_hiddens=16)
    model = d2l.RNNLMScratch(rnn, vocab_size=len(data.vocab), lr=1)
    rng = onp.random.RandomState(1)
    for p in model.get_scratch_params():
        p[:] = np.array(rng.uniform(-0.2, 0.2, size=p.shape).astype("float32"))
    d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(model, data)
    _out(res, "rnn_scratch_loss", model.loss(model(data.X[:16]), data.Y[:16]))
    res["rnn_scratch_predict"] = onp.array([ord(c) for c in model.predict("it has", 12, data.vocab)], onp.float64)
    model = d2l.RNNLM(d2l.GRU(16, 2), vocab_size=len(data.vocab), lr=2)
    model(data.X[:2])
    _setp(np, model, 2, 0.2)
    d2l.Trainer(max_epochs=1, gradient_clip_val=1).fit(model, data)
    _out(res, "gru_loss", model.loss(model(data.X[:16]), data.Y[:16]))
    return res


RAW = "\n".join(["Go.\tVa !", "Hi.\tSalut !", "Run!\tCours !", "Who?\tQui ?", "I lost.\tJ'ai perdu.",
                 "I'm OK.\tJe vais bien.", "Help!\tÀ l'aide !", "I won!\tJ'ai gagné !"] * 6)


def seq2seq_attention():
    """Chapters 10-11: Seq2Seq (GRU encoder-decoder, Adam) through d2l.Trainer, greedy
    predict_step, MaskedSoftmaxCELoss with trainer.step(num_tokens) as train_seq2seq does,
    masked_softmax, MultiHeadAttention and TransformerEncoder."""
    d2l, np, npx = _setup()
    from mxnet import autograd, gluon, init
    from mxnet.gluon import nn
    res = {}

    class MT(d2l.MTFraEng):
        def _download(self):
            return RAW

        def get_dataloader(self, train):
            idx = slice(0, self.num_train) if train else slice(self.num_train, None)
            return self.get_tensorloader(self.arrays, False, idx)
    data = MT(batch_size=8, num_steps=6, num_train=32, num_val=16)

    class Decoder(d2l.Decoder):
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = d2l.GRU(num_hiddens, num_layers)
            self.dense = nn.Dense(vocab_size, flatten=False)
            self.initialize(init.Xavier())

        def init_state(self, enc_all_outputs, *args):
            return enc_all_outputs

        def forward(self, X, state):
            embs = self.embedding(d2l.transpose(X))
            enc_output, hidden_state = state
            context = np.tile(enc_output[-1], (embs.shape[0], 1, 1))
            outputs, hidden_state = self.rnn(d2l.concat((embs, context), -1), hidden_state)
            return d2l.swapaxes(self.dense(outputs), 0, 1), [enc_output, hidden_state]
    model = d2l.Seq2Seq(d2l.Seq2SeqEncoder(len(data.src_vocab), 8, 16, 2),
                        Decoder(len(data.tgt_vocab), 8, 16, 2), tgt_pad=data.tgt_vocab['<pad>'], lr=0.01)
    src, tgt, src_valid_len, label = next(iter(data.train_dataloader()))
    model(src, tgt, src_valid_len)
    _setp(np, model, 1, 0.2)
    d2l.Trainer(max_epochs=2, gradient_clip_val=1).fit(model, data)
    _out(res, "seq2seq_loss", model.loss(model(src, tgt, src_valid_len), label))
    preds, _ = model.predict_step(data.build(["go .", "i lost ."], ["va !", "j'ai perdu ."]), d2l.cpu(), 6)
    _out(res, "seq2seq_preds", preds)
    loss = d2l.MaskedSoftmaxCELoss()
    trainer = gluon.Trainer(model.collect_params(), "adam", {"learning_rate": 0.01})
    Y_valid_len = (label != data.tgt_vocab['<pad>']).astype("int32").sum(axis=1)
    with autograd.record():
        l = loss(model(src, tgt, src_valid_len), label, Y_valid_len)
    l.backward()
    d2l.grad_clipping(model, 1)
    trainer.step(Y_valid_len.sum())
    _out(res, "masked_ce", l)
    _out(res, "seq2seq_after_step", model(src, tgt, src_valid_len)[0, :2])

    _out(res, "masked_softmax", d2l.masked_softmax(_arr(np, (2, 2, 4), 2), np.array([[1, 3], [2, 4]])))
    attention = d2l.MultiHeadAttention(20, 5, 0.5)
    attention.initialize()
    X, Y = _arr(np, (2, 4, 20), 3), _arr(np, (2, 6, 20), 4)
    attention(X, Y, Y, np.array([3, 2]))
    _setp(np, attention, 5)
    _out(res, "mha", attention(X, Y, Y, np.array([3, 2])))
    enc = d2l.TransformerEncoder(50, 16, 32, 4, 2, 0.0)
    tok = np.array(onp.random.RandomState(6).randint(0, 50, size=(2, 7)))
    enc(tok, np.array([3, 7]))
    _setp(np, enc, 7, 0.2)
    _out(res, "transformer", enc(tok, np.array([3, 7]))[:, :3])
    _out(res, "transformer_weights", enc.attention_weights[1][:2])
    return res


def anchors():
    """Chapter 14: d2l's multibox_prior / multibox_target / multibox_detection and the
    npx operators."""
    d2l, np, npx = _setup()
    res = {}
    img = np.zeros((1, 3, 4, 6))
    anchors = d2l.multibox_prior(img, sizes=[0.75, 0.5], ratios=[1, 2, 0.5])
    _out(res, "multibox_prior", anchors)
    _out(res, "npx_multibox_prior", npx.multibox_prior(img, sizes=[0.75, 0.5], ratios=[1, 2, 0.5]))
    ground_truth = np.array([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    anc = np.array([[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
                    [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]])
    labels = d2l.multibox_target(np.expand_dims(anc, axis=0), np.expand_dims(ground_truth, axis=0))
    for i, name in enumerate(("offset", "mask", "class")):
        _out(res, "target_" + name, labels[i])
    offset_preds = np.array([0] * anc.size)
    cls_probs = np.array([[0] * 5, [0.9, 0.8, 0.7, 0.1, 0.2], [0.1, 0.2, 0.3, 0.9, 0.8]])
    _out(res, "detection", d2l.multibox_detection(np.expand_dims(cls_probs, axis=0),
                                                  np.expand_dims(offset_preds, axis=0),
                                                  np.expand_dims(anc, axis=0), nms_threshold=0.5))
    _out(res, "box_iou", d2l.box_iou(anc, ground_truth[:, 1:]))
    return res


WORKFLOWS = (regression_and_classifiers, cnns, rnns, seq2seq_attention, anchors)
