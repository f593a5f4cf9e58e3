"""Record ONNX files written by MXNet 1.9.1's own exporter and MXNet's outputs on them.

Run with a side venv holding MXNet 1.9.1 and the onnx its exporter accepts (never imported
by neogluon or its tests)::

    python3 -m venv /work/venvs/mxonnx
    /work/venvs/mxonnx/bin/pip install mxnet==1.9.1 numpy==1.23.5 "onnx<1.16" "protobuf<4"
    /work/venvs/mxonnx/bin/python tools/make_extra_fixtures_onnx.py

Small networks (a CNN with the model zoo's layers, an LSTM language model on the fused
``RNN`` operator, a BERT-style encoder) with seeded weights are hybridized, exported by
``mx.onnx.export_model`` at opsets 12 and 13 (MXNet's exporter targets onnx's newest opset;
its converters stop at 13, so the opset is pinned through ``onnx.defs``), and run by MXNet
on seeded inputs. ``tests/fixtures/extra/onnx/<name>_opset<k>.onnx`` holds each file,
``<name>.npz`` the inputs (``in0``, ...) and MXNet's outputs (``out0``, ...),
``metadata.json`` what MXNet's ``mx.contrib.onnx.get_model_metadata`` says of each file;
``tests/test_onnx_import.py`` imports the files with neogluon and compares.
"""
import json
import os

import numpy as np
import mxnet as mx
import onnx
import onnx.defs
from mxnet.gluon import nn, rnn

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "onnx")


class CNN(nn.HybridBlock):
    """Conv/BatchNorm/Activation/Pooling (max, avg, global)/Concat/elemwise_add/LeakyReLU/clip/Dense/softmax."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.c1 = nn.Conv2D(8, 3, padding=1, in_channels=3)
        self.b1 = nn.BatchNorm(in_channels=8)
        self.c2 = nn.Conv2D(8, 3, padding=1, strides=2, in_channels=8)
        self.c3 = nn.Conv2D(8, 1, in_channels=8, use_bias=False)
        self.b2 = nn.BatchNorm(in_channels=16, scale=False)
        self.fc = nn.Dense(10, in_units=16)

    def hybrid_forward(self, F, x):
        x = F.Activation(self.b1(self.c1(x)), act_type="relu")
        x = F.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
        a = F.clip(self.c2(x), 0, 6)
        b = F.LeakyReLU(self.c3(F.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg")), slope=0.1)
        x = self.b2(F.concat(a + b, a * b, dim=1))
        x = F.Pooling(x, kernel=(1, 1), global_pool=True, pool_type="avg")
        return F.softmax(self.fc(F.Flatten(x)))


class LM(nn.HybridBlock):
    """Embedding, a 2-layer fused LSTM, a Dense with flatten=False. (MXNet's exporter computes
    the offsets in the flat RNN parameters as if the input size were the state size: the
    embedding has the LSTM's width so that its file is right.)"""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.emb = nn.Embedding(20, 16)
        self.lstm = rnn.LSTM(16, num_layers=2, input_size=16)
        self.out = nn.Dense(20, flatten=False, in_units=16)

    def hybrid_forward(self, F, x):
        return self.out(self.lstm(self.emb(x)))


class Encoder(nn.HybridBlock):
    """A BERT-style layer: embeddings, self-attention with batch_dot and softmax, LayerNorm, GELU FFN."""

    def __init__(self, units=16, heads=2, seq=5, **kwargs):
        super().__init__(**kwargs)
        self.units, self.heads, self.seq = units, heads, seq
        self.word = nn.Embedding(30, units)
        self.ln0 = nn.LayerNorm(in_channels=units)
        self.q = nn.Dense(units, flatten=False, in_units=units)
        self.k = nn.Dense(units, flatten=False, in_units=units)
        self.v = nn.Dense(units, flatten=False, in_units=units)
        self.proj = nn.Dense(units, flatten=False, in_units=units)
        self.ln1 = nn.LayerNorm(in_channels=units)
        self.ffn1 = nn.Dense(32, flatten=False, in_units=units)
        self.ffn2 = nn.Dense(units, flatten=False, in_units=32)
        self.ln2 = nn.LayerNorm(in_channels=units)

    def _heads(self, F, x):
        # MXNet's exporter takes Reshape codes 0 and -1 only
        x = x.reshape((0, 0, self.heads, -1)).transpose((0, 2, 1, 3))
        return x.reshape((-1, self.seq, self.units // self.heads))

    def hybrid_forward(self, F, tokens):
        x = self.ln0(self.word(tokens))
        q, k, v = (self._heads(F, f(x)) for f in (self.q, self.k, self.v))
        att = F.softmax(F.batch_dot(q, k, transpose_b=True) / np.sqrt(self.units // self.heads), axis=-1)
        o = F.batch_dot(att, v).reshape((-1, self.heads, self.seq, self.units // self.heads))
        o = o.transpose((0, 2, 1, 3)).reshape((0, 0, -1))
        x = self.ln1(x + self.proj(o))
        h = F.LeakyReLU(self.ffn1(x), act_type="gelu")
        return self.ln2(x + self.ffn2(h))


def _seeded(net, seed):
    """Seeded weights; the gamma of a BatchNorm without scale stays 1 (MXNet's exporter
    writes the stored gamma where MXNet computes with fix_gamma's 1)."""
    rng = np.random.RandomState(seed)
    for p in net.collect_params().values():
        if p.name.endswith("gamma") and p.grad_req == "null":
            p.set_data(mx.nd.ones(p.shape))
        elif p.name.endswith("running_var"):
            p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
        else:
            p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))


def _context(opset):
    """onnx's checker context for ``opset`` (MXNet's exporter checks its graph against onnx's newest)."""
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = onnx.IR_VERSION
    ctx.opset_imports = {"": opset}
    return ctx


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def record(name, net, inputs, in_types, metadata):
    net.initialize()
    net.hybridize()
    net(*[mx.nd.array(x, dtype=t) for x, t in zip(inputs, in_types)])
    _seeded(net, 7)
    outs = net(*[mx.nd.array(x, dtype=t) for x, t in zip(inputs, in_types)])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    prefix = os.path.join(OUT, name)
    net.export(prefix)
    arrays = {"in%d" % i: x for i, x in enumerate(inputs)}
    arrays.update({"out%d" % i: o.asnumpy() for i, o in enumerate(outs)})
    np.savez(prefix + ".npz", **arrays)
    real, real_check = onnx.defs.onnx_opset_version, onnx.checker.check_graph
    for opset in (12, 13):
        onnx.defs.onnx_opset_version = lambda opset=opset: opset
        onnx.checker.check_graph = lambda graph, ctx=None, opset=opset: real_check(graph, _context(opset))
        try:
            mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params", [x.shape for x in inputs],
                                 in_types, "%s_opset%d.onnx" % (prefix, opset))
        except Exception as err:  # pylint: disable=broad-except  (MXNet's exporter fails on this opset)
            print("%s: MXNet 1.9.1 cannot export at opset %d: %s" % (name, opset, str(err).splitlines()[0]))
            continue
        finally:
            onnx.defs.onnx_opset_version, onnx.checker.check_graph = real, real_check
        meta = mx.contrib.onnx.get_model_metadata("%s_opset%d.onnx" % (prefix, opset))
        metadata["%s_opset%d" % (name, opset)] = {k: [list(map(_plain, t)) for t in v] for k, v in meta.items()}
        model = onnx.load("%s_opset%d.onnx" % (prefix, opset))
        assert max(o.version for o in model.opset_import) == opset, model.opset_import
        onnx.checker.check_model(model)
    os.remove(prefix + "-symbol.json")
    os.remove(prefix + "-0000.params")


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(0)
    metadata = {}
    record("cnn", CNN(prefix="cnn_"), [rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32)], [np.float32], metadata)
    record("lstm_lm", LM(prefix="lm_"), [rng.randint(0, 20, (6, 2)).astype(np.float32)], [np.float32], metadata)
    record("encoder", Encoder(prefix="enc_"), [rng.randint(0, 30, (2, 5)).astype(np.float32)], [np.float32],
           metadata)
    with open(os.path.join(OUT, "metadata.json"), "w") as f:
        json.dump(metadata, f, indent=1, sort_keys=True)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
