"""When one thread for a tiny graph ends (neogluon/threads.py, ``release``): at the end of its
backward or prediction (now), or only when a larger graph is called (before).

    python benchmarks/tiny_release.py [--rounds 9] [--calls 200] [--variant hybridized static]

The tutorial LeNet at batch 1 (tiny_threads.py's: record, forward, an eager loss, backward,
``Trainer.step``; and prediction), with the adaptive policy on, alternating round
by round in one process between the policy as it is ("release": the load's number back after
backward / after the prediction) and the policy with ``threads.release`` made a no-op ("keep":
one thread until a larger graph runs, the behaviour before), and "step" (given back only after
the whole step, ``Trainer.step`` included). Printed: the median call (ms, over rounds of the
per-round median of ``--calls`` calls), its range, and over "keep" (median and range of the
per-round ratios). Also the cost of ``torch.set_num_threads`` itself.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import tiny_threads  # noqa: E402


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
            fn = tiny_threads.build(mx, "lenet_b1", variant, mode)[1]  # its training step or prediction
            def after(fn=fn):  # "step": released only after the whole step (Trainer.step) or prediction
                fn()
                release()
            times = tiny_threads.alternate({"release": (lambda: setattr(threads, "release", release), fn),
                                            "keep": (lambda: setattr(threads, "release", lambda: None), fn),
                                            "step": (lambda: setattr(threads, "release", lambda: None), after)},
                                           args.rounds, args.calls, warm=20)
            threads.release = release
            for name in ("release", "step", "keep"):
                ratios = [a / b for a, b in zip(times[name], times["keep"])]
                print("%-10s %-5s %-7s %.4f ms [%.4f-%.4f]  /keep %.3f [%.3f-%.3f]" % (
                    variant, mode, name, statistics.median(times[name]), min(times[name]), max(times[name]),
                    statistics.median(ratios), min(ratios), max(ratios)), flush=True)
    print("# load average %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()
