"""Networks and helpers shared by the ONNX tests and ``benchmarks/bench_onnx.py``: an LSTM
language model on the fused RNN operator, a BERT-style encoder, SSD-like and Faster
R-CNN-like detector heads (Symbols), and running an ONNX file in ONNX Runtime."""
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


def ssd_head(data, classes=3):
    """Two feature maps, anchors, class and box predictions, box_decode, softmax, box_nms
    (GluonCV's SSD inference path on MXNet operators)."""
    S = mx.sym
    f1 = S.Activation(S.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="f1"),
                      act_type="relu")
    f2 = S.Activation(S.Convolution(f1, num_filter=8, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="f2"),
                      act_type="relu")
    anchors, cls, loc = [], [], []
    for i, f in enumerate((f1, f2)):
        anchors.append(S.reshape(S.contrib.MultiBoxPrior(f, sizes=(0.2 + 0.3 * i, 0.4 + 0.3 * i), ratios=(1, 2)),
                                 (1, -1)))
        k = 3
        c = S.Convolution(f, num_filter=k * (classes + 1), kernel=(3, 3), pad=(1, 1), name="cls%d" % i)
        cls.append(S.flatten(S.transpose(c, (0, 2, 3, 1))))
        b = S.Convolution(f, num_filter=k * 4, kernel=(3, 3), pad=(1, 1), name="loc%d" % i)
        loc.append(S.flatten(S.transpose(b, (0, 2, 3, 1))))
    anchors = S.reshape(S.concat(*anchors, dim=1), (1, -1, 4))
    cls = S.reshape(S.concat(*cls, dim=1), (0, -1, classes + 1))
    loc = S.reshape(S.concat(*loc, dim=1), (0, -1, 4))
    boxes = S.contrib.box_decode(loc, anchors * 64, std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner")
    prob = S.softmax(cls, axis=-1)
    scores = S.slice_axis(prob, axis=-1, begin=1, end=None)
    ids = S.broadcast_add(S.zeros_like(scores), S.reshape(S.arange(0, classes), (1, 1, classes)))
    ids = S.where(scores > 0.01, ids, S.ones_like(ids) * -1)
    rows = S.concat(S.reshape(S.transpose(ids, (0, 2, 1)), (0, -1, 1)),
                    S.reshape(S.transpose(scores, (0, 2, 1)), (0, -1, 1)),
                    S.reshape(S.tile(S.expand_dims(boxes, 1), (1, classes, 1, 1)), (0, -1, 4)), dim=-1)
    out = S.contrib.box_nms(rows, overlap_thresh=0.45, valid_thresh=0.01, topk=40, id_index=0, score_index=1,
                            coord_start=2, force_suppress=False)
    out = S.slice_axis(out, axis=1, begin=0, end=20)
    return S.Group([S.slice_axis(out, axis=-1, begin=0, end=1), S.slice_axis(out, axis=-1, begin=1, end=2),
                    S.slice_axis(out, axis=-1, begin=2, end=None)])


def rcnn_head(data, classes=3, rois=12):
    """A region proposal (box_decode + box_nms of objectness), ROIAlign of the kept proposals,
    a class and box head (Faster R-CNN's inference path)."""
    S = mx.sym
    feat = S.Activation(S.Convolution(data, num_filter=8, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="feat"),
                        act_type="relu")
    anchors = S.reshape(S.contrib.MultiBoxPrior(feat, sizes=(0.3, 0.5), ratios=(1, 2)), (1, -1, 4)) * 32
    score = S.sigmoid(S.reshape(S.transpose(S.Convolution(feat, num_filter=3, kernel=(1, 1), name="rpn_score"),
                                            (0, 2, 3, 1)), (0, -1, 1)))
    loc = S.reshape(S.transpose(S.Convolution(feat, num_filter=12, kernel=(1, 1), name="rpn_loc"), (0, 2, 3, 1)),
                    (0, -1, 4))
    boxes = S.clip(S.contrib.box_decode(loc, anchors, format="corner"), 0, 32)
    props = S.contrib.box_nms(S.concat(score, boxes, dim=-1), overlap_thresh=0.7, topk=60, coord_start=1,
                              score_index=0, id_index=-1, force_suppress=True)
    props = S.slice_axis(props, axis=1, begin=0, end=rois)
    roi = S.reshape(S.slice_axis(props, axis=-1, begin=1, end=5), (-1, 4))
    batch = S.reshape(S.repeat(S.arange(0, 1), repeats=rois), (-1, 1))
    roi = S.concat(batch, roi, dim=-1)
    pooled = S.contrib.ROIAlign(feat, roi, pooled_size=(4, 4), spatial_scale=0.5, sample_ratio=2)
    top = S.Activation(S.FullyConnected(pooled, num_hidden=16, name="top"), act_type="relu")
    cls = S.softmax(S.FullyConnected(top, num_hidden=classes + 1, name="cls"), axis=-1)
    reg = S.reshape(S.FullyConnected(top, num_hidden=4, name="reg"), (1, rois, 4))
    det = S.contrib.box_decode(reg, S.reshape(S.slice_axis(roi, axis=-1, begin=1, end=5), (1, rois, 4)),
                               std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner")
    cid = S.reshape(S.argmax(S.slice_axis(cls, axis=-1, begin=1, end=None), axis=-1), (1, rois, 1))
    cscore = S.reshape(S.max(S.slice_axis(cls, axis=-1, begin=1, end=None), axis=-1), (1, rois, 1))
    return S.contrib.box_nms(S.concat(cid, cscore, det, dim=-1), overlap_thresh=0.5, valid_thresh=0.0, id_index=0,
                             score_index=1, coord_start=2)


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
