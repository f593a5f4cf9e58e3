"""One thread or two for small graphs: the threshold of neogluon/threads.py's ``TINY_MACS``.

    python benchmarks/tiny_threads.py [--rounds 7] [--calls 100] [--variant hybridized|static]
        [--mode train infer] [--nets lenet_b1 lenet_b4 ... mlp_b64]

Each net (the tutorial LeNet and the 784-512-512-10 MLP of bench_workloads.py, at several
batch sizes) runs issue 17's training step (or a prediction) at 1 and at 2 intra-op threads,
alternating round by round in one process, with the adaptive count off
(``NEOGLUON_ADAPTIVE_THREADS=0``). Printed per net: the estimated multiply-adds and largest
operator output of its graph (``executor.work.work``), the median step at each count (ms, over
rounds of the per-round median) and their ratio T2/T1 (above 1: two threads are slower).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
os.environ["NEOGLUON_ADAPTIVE_THREADS"] = "0"

import bench_workloads as bw  # noqa: E402

NETS = ("lenet_b1", "lenet_b2", "lenet_b4", "lenet_b8", "lenet_b16", "mlp_b1", "mlp_b4", "mlp_b16", "mlp_b64")


def build(mx, name, variant, mode):
    import numpy as np
    from neogluon.executor.work import work
    kind, batch = name.rsplit("_b", 1)
    batch = int(batch)
    net = bw.gluon_net(mx, kind + ("_b1" if kind == "lenet" else "_b64"))
    net.initialize(mx.init.Xavier())
    shape = (batch, 1, 28, 28) if kind == "lenet" else (batch, 784)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, shape).astype("float32"))
    if variant == "static":
        net.hybridize(static_alloc=True, static_shape=True)
    else:
        net.hybridize()
    net(x)
    op = net._cached_op  # pylint: disable=protected-access
    tensors = [x._t] + [a._t for a in op.param_arrays(x.context)]
    tensors = [tensors[k] for k in op.perm]
    est = work(op.symbol, {n.name: tuple(t.shape) for n, t in zip(op.compiled.inputs, tensors)})
    if mode == "infer":
        return est, lambda: net(x).wait_to_read()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": bw.LR})

    def step():
        with mx.autograd.record():
            out = net(x)
            loss = (out * out).mean()
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()
    return est, step


def alternate(variants, rounds, calls, warm=10):
    """Time ``variants`` (name -> ``(setup, fn)``) alternately: in each round every variant in
    turn (the order reversed every other round) runs ``setup()``, ``warm`` calls, then ``calls``
    timed calls. Name -> the per-round medians (ms)."""
    names = list(variants)
    times = {name: [] for name in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            setup, fn = variants[name]
            setup()
            for _ in range(warm):
                fn()
            ts = []
            for _ in range(calls):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
            times[name].append(statistics.median(ts) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--variant", default="hybridized", choices=("hybridized", "static"))
    parser.add_argument("--mode", nargs="+", default=["train"], choices=("train", "infer"))
    parser.add_argument("--nets", nargs="+", default=list(NETS))
    args = parser.parse_args()
    import neogluon as mx
    import torch
    print("# %s, %d rounds x %d calls, load average %s" % (args.variant, args.rounds, args.calls,
                                                         " ".join(open("/proc/loadavg").read().split()[:3])))
    print("%-10s %-6s %12s %9s %18s %18s %7s" % ("net", "mode", "MACs", "largest", "1 thread ms", "2 threads ms",
                                                "T2/T1"))
    for name in args.nets:
        for mode in args.mode:
            (macs, largest), fn = build(mx, name, args.variant, mode)
            times = alternate({n: (lambda n=n: torch.set_num_threads(n), fn) for n in (1, 2)}, args.rounds,
                              args.calls)
            m1, m2 = statistics.median(times[1]), statistics.median(times[2])
            print("%-10s %-6s %12d %9d %7.3f [%.3f-%.3f] %7.3f [%.3f-%.3f] %7.2f" % (
                name, mode, macs, largest, m1, min(times[1]), max(times[1]), m2, min(times[2]), max(times[2]),
                m2 / m1), flush=True)


if __name__ == "__main__":
    main()
