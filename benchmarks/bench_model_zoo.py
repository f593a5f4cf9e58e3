"""resnet50_v1 inference, hybridized, neogluon vs MXNet 1.9.1, at batch 1 and 32.

    python benchmarks/bench_model_zoo.py [--mxnet /work/mxref/bin/python] [--rounds 8] [--threads 1]

Two worker processes, one per library (this file run with ``--worker``: neogluon in this
interpreter, MXNet in ``--mxnet``'s), each build ``vision.resnet50_v1()``, initialise it,
hybridize it and warm it up at both batch sizes. The parent then asks them in turn, never
both at once, to time a few forward passes (``net(x).wait_to_read()``, 224x224 inputs),
alternating which library goes first from round to round. Per batch size it prints each
library's best and median time per pass and the neogluon/MXNet ratio of every round's
medians: its median and its spread (min-max over rounds), so that a shared machine's
drifts show up instead of hiding in one number. Both workers get ``--threads`` OpenMP/MKL
threads (``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``); on a machine whose cores are busy with
other work, torch's 2-thread kernels stall at every OpenMP barrier, so 1 is the default.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BATCHES = (1, 32)
PASSES = {1: 10, 32: 2}  # forward passes timed per round


def worker(lib):
    """Serve timing requests on stdin: a line ``<batch> <passes>`` answers with the JSON
    list of the seconds each pass took."""
    import numpy as np
    if lib == "neogluon":
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    mx = __import__(lib)
    vision = mx.gluon.model_zoo.vision
    net = vision.resnet50_v1()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rng = np.random.RandomState(0)
    inputs = {b: mx.nd.array(rng.uniform(-1, 1, (b, 3, 224, 224)).astype("float32"))
              for b in BATCHES}
    for b in BATCHES:  # build the cached graph and warm the kernels up at both sizes
        for _ in range(2):
            net(inputs[b]).wait_to_read()
    print("ready", flush=True)
    for line in sys.stdin:
        batch, passes = (int(v) for v in line.split())
        times = []
        for _ in range(passes):
            t0 = time.perf_counter()
            net(inputs[batch]).wait_to_read()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)


def start(python, lib, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", lib], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if line != "ready":
        raise RuntimeError("the %s worker did not start (%r)" % (lib, line))
    return proc


def ask(proc, batch, passes):
    proc.stdin.write("%d %d\n" % (batch, passes))
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python",
                        help="a Python interpreter with MXNet 1.9.1")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1, help="OpenMP/MKL threads of each worker")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    procs = {"neogluon": start(sys.executable, "neogluon", args.threads),
             "mxnet": start(args.mxnet, "mxnet", args.threads)}
    try:
        times = {(lib, b): [] for lib in procs for b in BATCHES}
        for r in range(args.rounds):
            for b in BATCHES:
                order = ["neogluon", "mxnet"] if r % 2 == 0 else ["mxnet", "neogluon"]
                for lib in order:
                    times[lib, b].append(ask(procs[lib], b, PASSES[b]))
    finally:
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
    print("resnet50_v1, hybridized, 224x224, %d rounds, %d thread(s)" % (args.rounds, args.threads))
    print("%-6s %14s %14s %14s %14s %10s %17s" % (
        "batch", "neogluon best", "neogluon med", "mxnet best", "mxnet med", "ratio med",
        "ratio min-max"))
    for b in BATCHES:
        neo = [statistics.median(t) for t in times["neogluon", b]]
        ref = [statistics.median(t) for t in times["mxnet", b]]
        ratios = [n / m for n, m in zip(neo, ref)]
        print("%-6d %12.1fms %12.1fms %12.1fms %12.1fms %10.3f %8.3f-%-8.3f" % (
            b, min(min(t) for t in times["neogluon", b]) * 1e3, statistics.median(neo) * 1e3,
            min(min(t) for t in times["mxnet", b]) * 1e3, statistics.median(ref) * 1e3,
            statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
