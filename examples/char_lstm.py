"""A character-level LSTM language model on a few public-domain passages.

Embedding -> rnn.LSTM (fused) -> Dense, hybridized, trained with a Trainer by truncated
back-propagation through time; the hidden state is carried (detached) from one batch
to the next. Each epoch prints the training and held-out perplexity next to the
unigram baseline (the perplexity of predicting every character by its frequency).

    python examples/char_lstm.py                 # about a minute on 2 CPU cores
    python examples/char_lstm.py --seconds 5     # a quick run
"""
import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import autograd, gluon, nd  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon import nn, rnn  # noqa: E402  pylint: disable=wrong-import-position

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "public_domain.txt")


class CharLSTM(gluon.HybridBlock):
    """Embedding -> LSTM -> Dense over 'TNC' sequences of character ids."""

    def __init__(self, vocab, embed=32, hidden=128, layers=1, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.Embedding(vocab, embed)
            self.lstm = rnn.LSTM(hidden, num_layers=layers, dropout=dropout)
            self.decoder = nn.Dense(vocab, flatten=False)

    def hybrid_forward(self, F, x, h, c):
        out, (h, c) = self.lstm(self.embedding(x), [h, c])
        return self.decoder(out).reshape((-3, 0)), h, c   # (T*N, vocab) logits


def load_text(path=DATA, holdout=0.1):
    """(train ids, validation ids, vocabulary) of the text, split at the end."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    vocab = sorted(set(text))
    ids = np.array([vocab.index(ch) for ch in text], dtype=np.float32)
    cut = int(len(ids) * (1 - holdout))
    return ids[:cut], ids[cut:], vocab


def unigram_perplexity(train, valid, vocab_size):
    """exp of the cross-entropy of ``valid`` under ``train``'s (add-one smoothed) character frequencies."""
    counts = np.bincount(train.astype(int), minlength=vocab_size) + 1.0
    probs = counts / counts.sum()
    return float(np.exp(-np.log(probs[valid.astype(int)]).mean()))


def batchify(ids, batch_size):
    """(T_total, N) columns of consecutive text, as a 'TNC' stream."""
    steps = len(ids) // batch_size
    return nd.array(ids[:steps * batch_size].reshape(batch_size, steps).T)


def run_epoch(model, data, bptt, loss_fn, trainer=None, clip=1.0):
    """Mean perplexity over ``data``; trains when a ``trainer`` is given."""
    n = data.shape[1]
    h, c = model.lstm.begin_state(n)
    total, count = 0.0, 0
    for i in range(0, data.shape[0] - 1, bptt):
        seq = min(bptt, data.shape[0] - 1 - i)
        x, y = data[i:i + seq], data[i + 1:i + 1 + seq]
        h, c = h.detach(), c.detach()
        if trainer is None:
            out, h, c = model(x, h, c)
            loss = loss_fn(out, y.reshape((-1,)))
        else:
            with autograd.record():
                out, h, c = model(x, h, c)
                loss = loss_fn(out, y.reshape((-1,)))
            loss.backward()
            grads = [p.grad() for p in model.collect_params().values()]
            gluon.utils.clip_global_norm(grads, clip * seq * n)
            trainer.step(seq * n)
        total += float(loss.sum().asscalar())
        count += seq * n
    return math.exp(total / count)


def train(epochs=200, seconds=60.0, batch_size=16, bptt=35, hidden=128, lr=0.01, seed=1, verbose=True):
    """Train until ``epochs`` or ``seconds`` run out; returns (per-epoch validation perplexities, baseline)."""
    mx.random.seed(seed)
    np.random.seed(seed)
    train_ids, valid_ids, vocab = load_text()
    baseline = unigram_perplexity(train_ids, valid_ids, len(vocab))
    train_data, valid_data = batchify(train_ids, batch_size), batchify(valid_ids, 4)
    model = CharLSTM(len(vocab), hidden=hidden)
    model.initialize(mx.init.Xavier())
    model.hybridize()
    trainer = gluon.Trainer(model.collect_params(), "adam", {"learning_rate": lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    if verbose:
        print("%d characters, vocabulary %d, unigram baseline perplexity %.2f" % (
            len(train_ids) + len(valid_ids), len(vocab), baseline))
    history, start = [], time.time()
    for epoch in range(epochs):
        train_ppl = run_epoch(model, train_data, bptt, loss_fn, trainer)
        valid_ppl = run_epoch(model, valid_data, bptt, loss_fn)
        history.append(valid_ppl)
        if verbose:
            print("epoch %3d  train perplexity %7.2f  validation perplexity %7.2f  (unigram %.2f)  %5.1fs" % (
                epoch, train_ppl, valid_ppl, baseline, time.time() - start))
        if time.time() - start > seconds:
            break
    return history, baseline


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after the epoch that passes this")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args(argv)
    history, baseline = train(args.epochs, args.seconds, hidden=args.hidden, lr=args.lr)
    print("best validation perplexity %.2f vs unigram %.2f" % (min(history), baseline))


if __name__ == "__main__":
    main()
