"""When one thread for a tiny graph ends (neogluon/threads.py, ``release``): at the end of its
backward or prediction (now), or only when a larger graph is called (before).

    python benchmarks/tiny_release.py [--rounds 9] [--calls 200] [--variant hybridized static]

The tutorial LeNet at batch 1 (bench_workloads.py's), training step (record, forward, an eager
loss, backward, ``Trainer.step``) and prediction, with the adaptive policy on, alternating round
by round in one process between the policy as it is ("release": the load's number back after
backward / after the prediction) and the policy with ``threads.release`` made a no-op ("keep":
one thread until a larger graph runs, the behaviour before). Printed: the median call (ms, over
rounds of the per-round median of ``--calls`` calls), its range, and release/keep (median and
range of the per-round ratios). Also the cost of ``torch.set_num_threads`` itself.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import bench_workloads as bw  # noqa: E402


def build(mx, variant, mode):
    import numpy as np
    net = bw.gluon_net(mx, "lenet_b1")
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 1, 28, 28)).astype("float32"))
    if variant == "static":
        net.hybridize(static_alloc=True, static_shape=True)
    else:
        net.hybridize()
    if mode == "infer":
        return lambda: net(x).wait_to_read()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": bw.LR})

    def step():
        with mx.autograd.record():
            out = net(x)
            loss = (out * out).mean()
        loss.backward()
        trainer.step(1)
        mx.nd.waitall()
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--variant", nargs="+", default=["hybridized", "static"], choices=("hybridized", "static"))
    args = parser.parse_args()
    os.environ.pop("NEOGLUON_ADAPTIVE_THREADS", None)
    import neogluon as mx
    import torch
    from neogluon import threads
    print("# neogluon %s, %d rounds x %d calls, load average %s, policy %s" % (
        mx.__file__, args.rounds, args.calls, " ".join(open("/proc/loadavg").read().split()[:3]),
        threads.policy().reason or "adapting"))
    n0 = torch.get_num_threads()
    for same in (True, False):
        seq = (n0, n0) if same else (1, n0)
        t0 = time.perf_counter()
        for i in range(20000):
            torch.set_num_threads(seq[i & 1])
        print("torch.set_num_threads, %s: %.3f us" % ("same number" if same else "alternating 1 and %d" % n0,
                                                    (time.perf_counter() - t0) / 20000 * 1e6))
    torch.set_num_threads(n0)
    release = threads.release
    for variant in args.variant:
        for mode in ("train", "infer"):
            fn = build(mx, variant, mode)
            times = {"release": [], "keep": []}
            for r in range(args.rounds):
                for name in (("release", "keep") if r % 2 == 0 else ("keep", "release")):
                    threads.release = release if name == "release" else (lambda: None)
                    for _ in range(20):
                        fn()
                    ts = []
                    for _ in range(args.calls):
                        t0 = time.perf_counter()
                        fn()
                        ts.append(time.perf_counter() - t0)
                    times[name].append(statistics.median(ts) * 1e3)
                    release()
            threads.release = release
            ratios = [a / b for a, b in zip(times["release"], times["keep"])]
            print("%-10s %-5s release %.4f ms [%.4f-%.4f]  keep %.4f ms [%.4f-%.4f]  release/keep %.3f [%.3f-%.3f]" % (
                variant, mode, statistics.median(times["release"]), min(times["release"]), max(times["release"]),
                statistics.median(times["keep"]), min(times["keep"]), max(times["keep"]), statistics.median(ratios),
                min(ratios), max(ratios)), flush=True)
    print("# load average %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
