"""lstm_bucketing.py's training (``mx.rnn`` cells + BucketSentenceIter + BucketingModule),
neogluon against MXNet 1.9.1, in one run.

    OMP_NUM_THREADS=1 python benchmarks/bench_legacy_rnn.py [--rounds 5] [--mxnet /work/mxref/bin/python]

Each round starts one worker process per framework, alternately (the machine is shared, so
they see the same load). The worker builds the example of ``tests/legacy_rnn_cases.py``
(2 LSTM layers of 64 units, embedding 32, buckets 4/8/12/16, batch 32) on 2000 synthetic
sentences. It first times the binding of the four buckets (with ``init_params``; ``sym_gen`` unrolls the cells,
``switch_bucket`` binds each graph sharing the parameters), then trains with SGD for 4
epochs and keeps the fastest epoch after the first (the first also pays one-time costs:
torch imports sympy on its first ``autograd.grad`` with head gradients; load spikes only
ever slow an epoch down). Reports each framework's
median, the ratio neogluon/MXNet per round and its spread.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(framework):
    """One measurement in this process; prints a JSON line."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import logging
    import random
    import numpy as np
    if framework == "mxnet":
        import mxnet as mx  # noqa: F401  (only in the MXNet worker, run with the reference Python)
    else:
        sys.path.insert(0, os.path.join(HERE, ".."))
        import neogluon as mx
    import legacy_rnn_cases as lc
    logging.getLogger().setLevel(logging.WARNING)
    lc.BUCKETING.update(num_hidden=64, num_embed=32, batch_size=32, buckets=[4, 8, 12, 16])
    random.seed(0)
    np.random.seed(0)
    sentences, vocab = mx.rnn.encode_sentences(lc.corpus(2000, 1), invalid_label=0, start_label=1)
    train = mx.rnn.BucketSentenceIter(sentences, 32, buckets=[4, 8, 12, 16], invalid_label=0)
    _, sym_gen = lc.bucketing_sym_gen(mx, len(vocab))
    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=train.default_bucket_key, context=mx.cpu())
    t0 = time.perf_counter()
    model.bind(train.provide_data, train.provide_label)
    model.init_params(initializer=mx.init.Xavier(factor_type="in", magnitude=2.34))
    for key in train.buckets:  # unroll the cells and bind one graph per bucket
        model.switch_bucket(key, [("data", (32, key))], [("softmax_label", (32, key))])
    bind_s = time.perf_counter() - t0
    ends = [time.perf_counter()]

    def timer(epoch, *args):
        ends.append(time.perf_counter())
    model.fit(train, eval_metric=mx.metric.Perplexity(0), optimizer="sgd",
              optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, num_epoch=4, epoch_end_callback=timer)
    epochs = [b - a for a, b in zip(ends, ends[1:])]
    print(json.dumps({"bind_s": bind_s, "epoch_s": min(epochs[1:])}))


def main():
    from alternating import alternating_rounds  # beside this script (neogluon bench loads it by path)

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mxnet", default="/work/mxref/bin/python")
    parser.add_argument("--worker", choices=["neogluon", "mxnet"])
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return

    def report(r, got):
        print("round %d: neogluon bind %.3fs, epoch %.3fs | MXNet bind %.3fs, epoch %.3fs"
              % (r, got["neogluon"]["bind_s"], got["neogluon"]["epoch_s"], got["mxnet"]["bind_s"],
                 got["mxnet"]["epoch_s"]), flush=True)

    rows = alternating_rounds(__file__, args.rounds, args.mxnet, report)
    for key, label in (("epoch_s", "epoch time"), ("bind_s", "bind of the 4 buckets")):
        ratio = [g["neogluon"][key] / g["mxnet"][key] for g in rows]
        print("%s: neogluon median %.3fs, MXNet median %.3fs; neogluon/MXNet median %.2f (min %.2f, max %.2f; "
              "< 1 is faster)" % (label, statistics.median(g["neogluon"][key] for g in rows),
                                  statistics.median(g["mxnet"][key] for g in rows), statistics.median(ratio),
                                  min(ratio), max(ratio)))


if __name__ == "__main__":
    main()
