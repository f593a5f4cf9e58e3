"""Recurrent models: the fused Gluon LSTM layer and a hybridized unrolled LSTMCell vs raw torch.

    OMP_NUM_THREADS=2 python3 benchmarks/bench_rnn.py [--rounds 15] [--clock wall|cpu] [--quick]

Two models, each with an embedding (vocabulary 2000, width 256) and a decoder (Dense to
the vocabulary) around the recurrence, batch N=32:

- ``fused``: ``rnn.LSTM(256, num_layers=2)`` over T=35 steps ('TNC', begin states given),
  against ``torch.nn.LSTM(256, 256, 2)``;
- ``cell``: ``rnn.LSTMCell(256)`` unrolled over 20 steps inside a hybridized block
  (``merge_outputs=True``), against a Python loop over ``torch.nn.LSTMCell``.

For each it times inference (predict mode) and a training step (forward under
``autograd.record()``, softmax cross-entropy, backward, ``Trainer('sgd').step``; in torch
``zero_grad``, forward, ``cross_entropy``, backward, ``SGD.step``), in interleaved rounds,
best of the rounds, by wall-clock time or, with ``--clock cpu``, by the process's CPU
time (steadier on a machine shared with other jobs). Targets (issue 5): fused within 1.1x of torch's ``nn.LSTM``; the
hybridized unrolled cell within 1.3x of the torch ``LSTMCell`` loop.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import autograd, gluon, nd  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon import nn, rnn  # noqa: E402  pylint: disable=wrong-import-position

VOCAB, EMBED, HIDDEN, BATCH, LR = 2000, 256, 256, 32, 0.01
TARGETS = {"fused": 1.1, "cell": 1.3}


# ---------------------------------------------------------------------- neogluon models
class FusedLM(gluon.HybridBlock):
    """Embedding -> rnn.LSTM(256, 2 layers) -> Dense(vocab)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.lstm = rnn.LSTM(HIDDEN, num_layers=2, input_size=EMBED)
            self.decoder = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

    def hybrid_forward(self, F, x, h, c):
        out, _ = self.lstm(self.embedding(x), [h, c])
        return self.decoder(out)


class CellLM(gluon.HybridBlock):
    """Embedding -> rnn.LSTMCell(256) unrolled over ``length`` steps -> Dense(vocab)."""

    def __init__(self, length, **kwargs):
        super().__init__(**kwargs)
        self._length = length
        with self.name_scope():
            self.embedding = nn.Embedding(VOCAB, EMBED)
            self.cell = rnn.LSTMCell(HIDDEN, input_size=EMBED)
            self.decoder = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

    def hybrid_forward(self, F, x, h, c):
        out, _ = self.cell.unroll(self._length, self.embedding(x), begin_state=[h, c], layout="TNC",
                                  merge_outputs=True)
        return self.decoder(out)


def gluon_closures(kind, steps):
    """(infer, train_step) closures for the hybridized neogluon model."""
    net = FusedLM() if kind == "fused" else CellLM(steps)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    x = nd.array(np.random.randint(0, VOCAB, (steps, BATCH)))
    y = nd.array(np.random.randint(0, VOCAB, (steps, BATCH)))
    layers = 2 if kind == "fused" else 1
    h, c = nd.zeros((layers, BATCH, HIDDEN)), nd.zeros((layers, BATCH, HIDDEN))
    if kind == "cell":
        h, c = h[0], c[0]

    def infer():
        net(x, h, c).wait_to_read()

    def train():
        with autograd.record():
            loss = loss_fn(net(x, h, c), y)
        loss.backward()
        trainer.step(BATCH)
    return infer, train


# ---------------------------------------------------------------------- torch models
class TorchFused(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCAB, EMBED)
        self.lstm = torch.nn.LSTM(EMBED, HIDDEN, 2)
        self.decoder = torch.nn.Linear(HIDDEN, VOCAB)

    def forward(self, x, h, c):
        out, _ = self.lstm(self.embedding(x), (h, c))
        return self.decoder(out)


class TorchCell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCAB, EMBED)
        self.cell = torch.nn.LSTMCell(EMBED, HIDDEN)
        self.decoder = torch.nn.Linear(HIDDEN, VOCAB)

    def forward(self, x, h, c):
        outs = []
        for step in self.embedding(x):
            h, c = self.cell(step, (h, c))
            outs.append(h)
        return self.decoder(torch.stack(outs))


def torch_closures(kind, steps):
    net = TorchFused() if kind == "fused" else TorchCell()
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    x = torch.randint(0, VOCAB, (steps, BATCH))
    y = torch.randint(0, VOCAB, (steps, BATCH))
    shape = (2, BATCH, HIDDEN) if kind == "fused" else (BATCH, HIDDEN)
    h, c = torch.zeros(shape), torch.zeros(shape)

    def infer():
        with torch.no_grad():
            net.eval()
            net(x, h, c)

    def train():
        net.train()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x, h, c).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
    return infer, train


# ---------------------------------------------------------------------- timing
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def timed(fn, repeat, clock):
    start = clock()
    for _ in range(repeat):
        fn()
    return (clock() - start) / repeat * 1e3


def measure(kind, steps, rounds, repeat, clock):
    """Best milliseconds per call: {(mode, impl): ms}, the implementations interleaved."""
    closures = {"neogluon": gluon_closures(kind, steps), "torch": torch_closures(kind, steps)}
    samples = {}
    for fns in closures.values():   # warm up: build caches, allocator
        for fn in fns:
            fn()
            fn()
    for _ in range(rounds):
        for impl, (infer, train) in closures.items():
            samples.setdefault(("inference", impl), []).append(timed(infer, repeat, clock))
            samples.setdefault(("train step", impl), []).append(timed(train, repeat, clock))
    return {k: min(v) for k, v in samples.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 1 call (a smoke run)")
    args = parser.parse_args()
    rounds, repeat = (3, 1) if args.quick else (args.rounds, args.repeat)
    np.random.seed(0)
    torch.manual_seed(0)
    print("torch %s, %d threads, %s clock; N=%d, embedding %d, hidden %d, vocabulary %d"
          % (torch.__version__, torch.get_num_threads(), args.clock, BATCH, EMBED, HIDDEN, VOCAB))
    header = "%-32s %-11s %12s %10s %7s %7s" % ("model", "mode", "neogluon ms", "torch ms", "ratio", "target")
    print(header)
    print("-" * len(header))
    for kind, steps, label in [("fused", 35, "fused LSTM 2x256, T=35"), ("cell", 20, "LSTMCell 256 unrolled 20, hybrid")]:
        res = measure(kind, steps, rounds, repeat, CLOCKS[args.clock])
        for mode in ("inference", "train step"):
            ours, theirs = res[(mode, "neogluon")], res[(mode, "torch")]
            ratio = ours / theirs
            print("%-32s %-11s %12.2f %10.2f %6.2fx %6.1fx %s" % (
                label, mode, ours, theirs, ratio, TARGETS[kind], "ok" if ratio <= TARGETS[kind] else "SLOWER"))


if __name__ == "__main__":
    main()
