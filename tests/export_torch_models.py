"""Two models of the export_torch tests and benchmark: an LSTM language model (the fused
``RNN`` operator) and a BERT-style encoder (embeddings, LayerNorm, masked multi-head
self-attention through ``batch_dot``, a GELU feed-forward block, a tanh pooler)."""
from neogluon import gluon
from neogluon.gluon import nn, rnn


class LSTMLanguageModel(gluon.HybridBlock):
    """tokens (T, N), begin states h, c (layers, N, hidden) -> logits (T, N, vocab), h, c."""

    def __init__(self, vocab=50, embed=16, hidden=24, layers=2, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(vocab, embed)
            self.lstm = rnn.LSTM(hidden, num_layers=layers, input_size=embed)
            self.decoder = nn.Dense(vocab, flatten=False, in_units=hidden)

    def hybrid_forward(self, F, tokens, h, c):  # pylint: disable=arguments-differ
        out, (h, c) = self.lstm(self.embedding(tokens), [h, c])
        return self.decoder(out), h, c


class EncoderLayer(gluon.HybridBlock):
    """Post-LayerNorm transformer layer: x (N, T, C), mask (N, T) of 1 (keep) / 0 (pad)."""

    def __init__(self, units, heads, **kwargs):
        super().__init__(**kwargs)
        self.units, self.heads = units, heads
        with self.name_scope():
            self.qkv = nn.Dense(3 * units, flatten=False, in_units=units)
            self.proj = nn.Dense(units, flatten=False, in_units=units)
            self.ln1 = nn.LayerNorm(in_channels=units)
            self.ffn1 = nn.Dense(4 * units, flatten=False, in_units=units)
            self.ffn2 = nn.Dense(units, flatten=False, in_units=4 * units)
            self.ln2 = nn.LayerNorm(in_channels=units)

    def hybrid_forward(self, F, x, mask):  # pylint: disable=arguments-differ
        q, k, v = F.split(self.qkv(x), num_outputs=3, axis=-1)

        def heads(t):  # (N, T, C) -> (N*H, T, C/H)
            t = F.transpose(F.reshape(t, (0, 0, self.heads, -1)), (0, 2, 1, 3))
            return F.reshape(t, (-3, 0, 0))
        q, k, v = heads(q), heads(k), heads(v)
        scores = F.batch_dot(q, k, transpose_b=True) / (self.units // self.heads) ** 0.5
        keep = F.broadcast_like(F.repeat(F.expand_dims(mask, 1), self.heads, axis=0), scores)
        att = F.softmax(scores + (1 - keep) * -1e4, axis=-1)
        ctx = F.reshape(F.batch_dot(att, v), (-4, -1, self.heads, 0, 0))
        ctx = F.reshape(F.transpose(ctx, (0, 2, 1, 3)), (0, 0, -3))
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.ffn2(F.LeakyReLU(self.ffn1(x), act_type="gelu")))


class BertEncoder(gluon.HybridBlock):
    """tokens (N, T), valid_length (N,) -> the pooled first position (N, 1, units)."""

    def __init__(self, vocab=60, units=32, heads=4, layers=2, max_len=16, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.word = nn.Embedding(vocab, units)
            self.position = self.params.get("position_weight", shape=(max_len, units))
            self.ln = nn.LayerNorm(in_channels=units)
            self.layers = nn.HybridSequential()
            for _ in range(layers):
                self.layers.add(EncoderLayer(units, heads))
            self.pooler = nn.Dense(units, activation="tanh", flatten=False, in_units=units)

    def hybrid_forward(self, F, tokens, valid_length, position):  # pylint: disable=arguments-differ
        x = self.word(tokens)
        pos = F.slice_like(position, F.transpose(x, (1, 0, 2)), axes=(0,))
        x = self.ln(F.broadcast_add(x, F.expand_dims(pos, 0)))
        steps = F.contrib.arange_like(tokens, axis=1)
        mask = F.broadcast_lesser(F.reshape(steps, (1, -1)), F.reshape(valid_length, (-1, 1)))
        for layer in self.layers:
            x = layer(x, mask)
        return self.pooler(F.slice_axis(x, axis=1, begin=0, end=1))
