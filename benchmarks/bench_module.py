"""Module.fit epoch time and Module.predict throughput on MXNet's MNIST-MLP example, neogluon
against MXNet 1.9.1, in one run.

    OMP_NUM_THREADS=1 python benchmarks/bench_module.py [--rounds 5] [--mxnet /work/mxref/bin/python]

Each round starts one worker process per framework, alternately (the machine is shared, so
they see the same load): the worker trains the MLP (fc 128-64-10, SGD with momentum,
batch 100) on 6000 synthetic MNIST-shaped examples with an NDArrayIter for 5 epochs and keeps
the fastest epoch after the first (load spikes only ever slow an epoch down), then keeps the
fastest of 3 Module.predict passes over the same 6000 examples. Reports each framework's
median, the ratio neogluon/MXNet per round and its spread.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
N, BATCH = 6000, 100


def worker(framework):
    """One measurement in this process; prints a JSON line."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import logging
    import numpy as np
    import legacy_models as lm
    if framework == "mxnet":
        import mxnet as mx  # noqa: F401  (only in the MXNet worker, run with the reference Python)
    else:
        sys.path.insert(0, os.path.join(HERE, ".."))
        import neogluon as mx
    logging.getLogger().setLevel(logging.WARNING)
    x, y = lm.mnist_like(N, 1)
    net = lm.mlp_symbol(mx)
    init = lm.init_params(net, dict(data=(BATCH, 1, 28, 28)), 11, 0.05)
    np.random.seed(0)
    train = mx.io.NDArrayIter(x, y, batch_size=BATCH, shuffle=True)
    mod = mx.mod.Module(net, context=mx.cpu())
    epoch_ends = []

    def timer(epoch, *args):
        epoch_ends.append(time.perf_counter())
    mod.fit(train, num_epoch=5, optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
            arg_params={k: mx.nd.array(v) for k, v in init.items()}, epoch_end_callback=timer)
    fit_epoch = min(b - a for a, b in zip(epoch_ends, epoch_ends[1:]))
    test = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    mod.predict(test)  # warm-up
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        out = mod.predict(test)
        out.asnumpy()
        best = min(best, time.perf_counter() - t0)
    print(json.dumps({"fit_epoch_s": fit_epoch, "predict_per_s": N / best}))


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
        print("round %d: neogluon fit %.3fs/epoch predict %.0f/s | MXNet fit %.3fs/epoch predict %.0f/s"
              % (r, got["neogluon"]["fit_epoch_s"], got["neogluon"]["predict_per_s"], got["mxnet"]["fit_epoch_s"],
                 got["mxnet"]["predict_per_s"]), flush=True)

    rows = alternating_rounds(__file__, args.rounds, args.mxnet, report)
    fit_ratio = [g["neogluon"]["fit_epoch_s"] / g["mxnet"]["fit_epoch_s"] for g in rows]
    pred_ratio = [g["neogluon"]["predict_per_s"] / g["mxnet"]["predict_per_s"] for g in rows]
    for name, key in (("fit epoch time", "fit_epoch_s"), ("predict throughput", "predict_per_s")):
        for fw in ("neogluon", "mxnet"):
            print("%-18s %-8s median %.4g" % (name, fw, statistics.median(g[fw][key] for g in rows)))
    print("fit epoch time neogluon/MXNet: median %.2f (min %.2f, max %.2f; < 1 is faster)"
          % (statistics.median(fit_ratio), min(fit_ratio), max(fit_ratio)))
    print("predict throughput neogluon/MXNet: median %.2f (min %.2f, max %.2f; > 1 is faster)"
          % (statistics.median(pred_ratio), min(pred_ratio), max(pred_ratio)))


if __name__ == "__main__":
    main()
