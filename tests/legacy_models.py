"""Models and data shared by tools/make_extra_fixtures_legacy.py (run with MXNet 1.9.1) and the
tests (run with neogluon): each function takes the framework module ``mx`` as an argument, so
the same code builds the network in both and neither imports the other."""
import numpy as np


def mlp_symbol(mx):
    """MXNet's MNIST MLP example (example/image-classification/symbols/mlp.py)."""
    data = mx.sym.var("data")
    data = mx.sym.flatten(data=data)
    fc1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=128)
    act1 = mx.sym.Activation(data=fc1, name="relu1", act_type="relu")
    fc2 = mx.sym.FullyConnected(data=act1, name="fc2", num_hidden=64)
    act2 = mx.sym.Activation(data=fc2, name="relu2", act_type="relu")
    fc3 = mx.sym.FullyConnected(data=act2, name="fc3", num_hidden=10)
    return mx.sym.SoftmaxOutput(data=fc3, name="softmax")


def mnist_like(n, seed):
    """Synthetic MNIST-shaped digits: class templates plus noise, labels 0..9 (float32)."""
    rs = np.random.RandomState(seed)
    templates = np.random.RandomState(0).uniform(0, 1, (10, 1, 28, 28)).astype(np.float32)
    y = rs.randint(0, 10, n)
    x = templates[y] * 0.5 + rs.uniform(0, 0.5, (n, 1, 28, 28)).astype(np.float32)
    return x.astype(np.float32), y.astype(np.float32)


def init_params(sym, shapes, seed, scale):
    """Normal(0, scale) float32 values for every argument of ``sym`` but data and label."""
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    rs = np.random.RandomState(seed)
    return {n: rs.normal(0, scale, s).astype(np.float32) for n, s in zip(sym.list_arguments(), arg_shapes)
            if n not in ("data", "softmax_label")}


BUCKET_VOCAB, BUCKET_EMBED, BUCKET_HIDDEN = 12, 6, 8


def lstm_symbol(mx, seq_len):
    """An LSTM unrolled over ``seq_len`` steps from symbol ops, predicting the next token;
    the ``sym_gen`` result ``(symbol, data_names, label_names)`` of a BucketingModule."""
    data = mx.sym.var("data")
    label = mx.sym.var("softmax_label")
    embed = mx.sym.Embedding(data, input_dim=BUCKET_VOCAB, output_dim=BUCKET_EMBED, name="embed")
    steps = mx.sym.SliceChannel(embed, num_outputs=seq_len, axis=1, squeeze_axis=True)
    i2h_w, i2h_b = mx.sym.var("lstm_i2h_weight"), mx.sym.var("lstm_i2h_bias")
    h2h_w, h2h_b = mx.sym.var("lstm_h2h_weight"), mx.sym.var("lstm_h2h_bias")
    h = c = None
    outs = []
    for t in range(seq_len):
        gates = mx.sym.FullyConnected(steps[t], weight=i2h_w, bias=i2h_b, num_hidden=4 * BUCKET_HIDDEN,
                                      name="t%d_i2h" % t)
        if h is not None:
            gates = gates + mx.sym.FullyConnected(h, weight=h2h_w, bias=h2h_b, num_hidden=4 * BUCKET_HIDDEN,
                                                  name="t%d_h2h" % t)
        i, f, g, o = mx.sym.SliceChannel(gates, num_outputs=4, name="t%d_slice" % t)
        i, f, o = mx.sym.sigmoid(i), mx.sym.sigmoid(f), mx.sym.sigmoid(o)
        g = mx.sym.tanh(g)
        c = i * g if c is None else f * c + i * g
        h = o * mx.sym.tanh(c)
        outs.append(mx.sym.expand_dims(h, axis=1))
    hs = mx.sym.Concat(*outs, dim=1)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(hs, shape=(-1, BUCKET_HIDDEN)), num_hidden=BUCKET_VOCAB,
                                 name="pred")
    return (mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name="softmax"),
            ("data",), ("softmax_label",))


def bucket_iter(mx, seed, batch_size=5):
    """A DataIter of token sequences of lengths 4 and 7 (label: the next token), with bucket keys."""

    class BucketIter(mx.io.DataIter):
        def __init__(self):
            super().__init__(batch_size)
            rs = np.random.RandomState(seed)
            self.batches = []
            for length in (7, 4, 7, 4, 4, 7):
                start = rs.randint(0, BUCKET_VOCAB, (batch_size, 1))
                seq = (start + np.arange(length + 1)[None, :] * 3) % BUCKET_VOCAB
                self.batches.append((length, seq[:, :-1].astype(np.float32), seq[:, 1:].astype(np.float32)))
            self.default_bucket_key = 7
            self.provide_data = [mx.io.DataDesc("data", (batch_size, 7))]
            self.provide_label = [mx.io.DataDesc("softmax_label", (batch_size, 7))]
            self.cur = 0

        def reset(self):
            self.cur = 0

        def next(self):
            if self.cur == len(self.batches):
                raise StopIteration
            length, d, lab = self.batches[self.cur]
            self.cur += 1
            return mx.io.DataBatch([mx.nd.array(d)], [mx.nd.array(lab)], pad=0, bucket_key=length,
                                   provide_data=[mx.io.DataDesc("data", d.shape)],
                                   provide_label=[mx.io.DataDesc("softmax_label", lab.shape)])
    return BucketIter()


def write_iter_inputs(directory):
    """The CSV, LibSVM and MNIST idx files the text/MNIST iterator fixtures read; returns their paths."""
    import os
    import struct
    p = {k: os.path.join(directory, k) for k in ("d.csv", "l.csv", "d4.csv", "l2.csv", "s.libsvm", "sl.libsvm",
                                                   "img", "lab")}
    rs = np.random.RandomState(5)
    np.savetxt(p["d.csv"], rs.randint(-9, 9, (7, 3)), delimiter=",", fmt="%g")
    np.savetxt(p["l.csv"], np.arange(7), delimiter=",", fmt="%g")
    np.savetxt(p["d4.csv"], rs.uniform(-1, 1, (5, 4)), delimiter=",", fmt="%.6f")
    np.savetxt(p["l2.csv"], rs.randint(0, 5, (5, 2)), delimiter=",", fmt="%g")
    with open(p["s.libsvm"], "w") as f:
        f.write("1 0:1.5 3:2\n0 1:3\n2 2:-1 4:7\n1 0:2\n3 4:0.5 1:-2\n")
    with open(p["sl.libsvm"], "w") as f:
        f.write("0:1 1:0\n0:0 1:1\n0:1 1:1\n0:2 1:0\n0:0 1:2\n")
    n = 7
    imgs = (np.arange(n * 28 * 28) % 251).astype(np.uint8).reshape(n, 28, 28)
    with open(p["img"], "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28))
        f.write(imgs.tobytes())
    with open(p["lab"], "wb") as f:
        f.write(struct.pack(">II", 2049, n))
        f.write((np.arange(n) % 10).astype(np.uint8).tobytes())
    return p


# (case, iterator class name, keyword arguments with file keys as "@name", epochs)
ITER_CASES = [
    ("csv_round", "CSVIter", dict(data_csv="@d.csv", data_shape=(3,), label_csv="@l.csv", batch_size=3), 3),
    ("csv_noround", "CSVIter", dict(data_csv="@d.csv", data_shape=(3,), label_csv="@l.csv", batch_size=3,
                                    round_batch=False), 2),
    ("csv_nolabel", "CSVIter", dict(data_csv="@d.csv", data_shape=(3,), batch_size=4), 2),
    ("csv_shapes", "CSVIter", dict(data_csv="@d4.csv", data_shape=(2, 2), label_csv="@l2.csv", label_shape=(2,),
                                   batch_size=2), 2),
    ("libsvm", "LibSVMIter", dict(data_libsvm="@s.libsvm", data_shape=(5,), batch_size=3), 3),
    ("libsvm_label_file", "LibSVMIter", dict(data_libsvm="@s.libsvm", data_shape=(5,), label_libsvm="@sl.libsvm",
                                             label_shape=(2,), batch_size=2), 2),
    ("mnist", "MNISTIter", dict(image="@img", label="@lab", batch_size=3, shuffle=False), 2),
    ("mnist_flat", "MNISTIter", dict(image="@img", label="@lab", batch_size=2, shuffle=False, flat=True), 1),
    ("mnist_shuffled", "MNISTIter", dict(image="@img", label="@lab", batch_size=3, seed=3), 2),
    ("mnist_shuffled_default_seed", "MNISTIter", dict(image="@img", label="@lab", batch_size=7, flat=True), 1),
]


def make_iter(mx, cls, kwargs, paths):
    """``mx.io.<cls>(**kwargs)`` with ``@name`` values replaced by the file paths."""
    kw = {k: paths[v[1:]] if isinstance(v, str) and v.startswith("@") else v for k, v in kwargs.items()}
    return getattr(mx.io, cls)(**kw)


def sequential_modules(mx):
    """A SequentialModule of two Modules (auto-wired, the second takes the labels) and one of a
    Module followed by a PythonLossModule whose gradient is softmax(scores) - one_hot(labels)."""
    data = mx.sym.var("data")
    net1 = mx.sym.Activation(mx.sym.FullyConnected(data, name="fc1", num_hidden=6), act_type="tanh")
    net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("hidden"), name="fc2", num_hidden=3),
                                name="softmax")
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(net1, label_names=None))
    seq.add(mx.mod.Module(net2, data_names=("hidden",)), take_labels=True, auto_wiring=True)

    def grad(scores, labels):
        s = scores.asnumpy()
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(p)), labels.asnumpy().astype(int)] -= 1
        return p
    scores = mx.sym.FullyConnected(data, name="fc3", num_hidden=3)
    loss = mx.mod.SequentialModule()
    loss.add(mx.mod.Module(scores, label_names=None))
    loss.add(mx.mod.PythonLossModule(grad_func=grad, data_names=("fc3_output",)), take_labels=True,
             auto_wiring=True)
    return {"two_modules": seq, "python_loss": loss}
