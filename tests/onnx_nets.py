"""Networks and helpers shared by the ONNX tests and ``benchmarks/bench_onnx.py``: an LSTM
language model on the fused RNN operator, a BERT-style encoder, and running an ONNX file in
ONNX Runtime."""
import numpy as np

import neogluon as mx
from neogluon.gluon import nn, rnn


class LanguageModel(mx.gluon.HybridBlock):
    """Embedding, a fused multi-layer LSTM/GRU/RNN, a Dense decoder (flatten=False)."""

    def __init__(self, mode="lstm", vocab=50, embed=16, hidden=32, layers=2, bidirectional=False):
        super().__init__()
        self.emb = nn.Embedding(vocab, embed)
        cls = {"lstm": rnn.LSTM, "gru": rnn.GRU, "rnn": rnn.RNN}[mode]
        self.rnn = cls(hidden, num_layers=layers, input_size=embed, bidirectional=bidirectional)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Dense(vocab, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.drop(self.rnn(self.emb(x))))


class SelfAttention(mx.gluon.HybridBlock):
    def __init__(self, units, heads):
        super().__init__()
        self.units, self.heads = units, heads
        self.qkv = nn.Dense(3 * units, flatten=False)
        self.proj = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x, mask):
        qkv = self.qkv(x).reshape((0, 0, 3, self.heads, -1)).transpose((2, 0, 3, 1, 4))  # (3, N, H, T, d)
        q, k, v = F.split(qkv, num_outputs=3, axis=0, squeeze_axis=True)
        q, k, v = (t.reshape((-3, 0, 0)) for t in (q, k, v))                            # (N*H, T, d)
        scores = F.batch_dot(q, k, transpose_b=True) / np.sqrt(self.units // self.heads)
        att = F.softmax(F.broadcast_add(scores, mask), axis=-1)
        out = F.batch_dot(att, v).reshape((-4, -1, self.heads, 0, 0)).transpose((0, 2, 1, 3))
        return self.proj(out.reshape((0, 0, -1)))


class EncoderLayer(mx.gluon.HybridBlock):
    def __init__(self, units, heads, hidden):
        super().__init__()
        self.att = SelfAttention(units, heads)
        self.ln1 = nn.LayerNorm()
        self.ffn1 = nn.Dense(hidden, flatten=False)
        self.ffn2 = nn.Dense(units, flatten=False)
        self.ln2 = nn.LayerNorm()
        self.drop = nn.Dropout(0.1)

    def hybrid_forward(self, F, x, mask):
        x = self.ln1(x + self.drop(self.att(x, mask)))
        h = F.LeakyReLU(self.ffn1(x), act_type="gelu")
        return self.ln2(x + self.drop(self.ffn2(h)))


class Encoder(mx.gluon.HybridBlock):
    """A BERT-style encoder: token and position embeddings, post-LayerNorm transformer layers
    with a padding mask from ``valid_length``, a tanh pooler on the first position."""

    def __init__(self, vocab=100, units=32, heads=4, hidden=64, layers=2, max_len=64):
        super().__init__()
        self.heads = heads
        self.word = nn.Embedding(vocab, units)
        self.pos = nn.Embedding(max_len, units)
        self.ln = nn.LayerNorm()
        self.layers = nn.HybridSequential()
        for _ in range(layers):
            self.layers.add(EncoderLayer(units, heads, hidden))
        self.pooler = nn.Dense(units, activation="tanh", flatten=False)

    def hybrid_forward(self, F, tokens, valid_length):
        steps = F.contrib.arange_like(tokens, axis=1)
        x = self.ln(F.broadcast_add(self.word(tokens), F.expand_dims(self.pos(steps), axis=0)))
        keep = F.broadcast_lesser(F.expand_dims(steps, 0), F.expand_dims(valid_length, 1))   # (N, T)
        mask = F.expand_dims((1 - keep) * -1e4, axis=1)                                      # (N, 1, T)
        mask = F.broadcast_axis(F.expand_dims(mask, 1), axis=1, size=self.heads).reshape((-3, 0, 0))
        for layer in self.layers:
            x = layer(x, mask)
        return x, self.pooler(F.slice_axis(x, axis=1, begin=0, end=1).reshape((0, -1)))


def ort_session(path):
    import onnxruntime as ort  # pylint: disable=import-outside-toplevel
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def ort_run(path, arrays):
    """The outputs of an ONNX file in ONNX Runtime for inputs given in graph order."""
    sess = ort_session(path)
    feeds = {i.name: np.asarray(a) for i, a in zip(sess.get_inputs(), arrays)}
    return sess.run(None, feeds)
