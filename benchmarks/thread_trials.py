"""The adaptive thread count with and without its trials, alone and beside one CPU-bound process
(issue 17, speed under load), alternating in one process.

neogluon/threads.py's policy chooses the number of intra-op threads from the load; beside other
runnable threads it may try ``cores + base`` threads against ``base`` by the measured call time
(``Adaptive(samples=...)``). This script times the compiled (``static``) workloads of
benchmarks/bench_workloads.py in one process: each block of calls runs with a fresh policy,
either ``trials`` (the default) or ``load only`` (``samples=0``: the count from the load alone,
the policy before the trials), alternating block by block, alone (torch's count: what both keep
on an idle machine, whatever the shared machine's other jobs) and then beside a neighbour
(torch matmuls on one thread, started as a child each round, as in ``bench_workloads.py
--under-load``). A fresh policy per block means each loaded block pays its trial. Reported: ms
per call (median, p95) and the slowdown against the same policy alone. Not a test::

    python benchmarks/thread_trials.py [--only resnet18_b1 ...] [--rounds 4]
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import bench_workloads as bw  # noqa: E402  pylint: disable=wrong-import-position

POLICIES = {"trials": {}, "load only": {"samples": 0}}


def run(workload, rounds, calls):
    import torch  # pylint: disable=import-outside-toplevel
    from neogluon import threads  # pylint: disable=import-outside-toplevel
    start = threads.policy().limit or torch.get_num_threads()  # torch's own count, before any adaptation
    fns = {m: bw.closure("neogluon", workload, "static", m) for m in bw.MODES}
    for fn in fns.values():
        fn()
        fn()
    times = {(p, m, load): [] for p in POLICIES for m in bw.MODES for load in ("alone", "loaded")}
    used = {(p, load): [] for p in POLICIES for load in ("alone", "loaded")}
    plan = list(POLICIES)
    for load in ("alone", "loaded"):
        for r in range(rounds):
            with bw.neighbour(on=load == "loaded", threads=1):
                for p in plan[r % 2:] + plan[:r % 2]:
                    torch.set_num_threads(start)
                    # alone: torch's count, what either policy keeps on an idle machine (this one is shared)
                    reason = "alone" if load == "alone" else None
                    threads._POLICY = threads.Adaptive(reason=reason, **POLICIES[p])  # pylint: disable=protected-access
                    for m in (bw.MODES if r % 2 == 0 else bw.MODES[::-1]):
                        for _ in range(calls[m]):
                            t0 = time.perf_counter()
                            fns[m]()
                            times[(p, m, load)].append(time.perf_counter() - t0)
                            used[(p, load)].append(torch.get_num_threads())
    torch.set_num_threads(start)
    print("%s static, %d rounds, calls %s, %s UTC, load average %s: ms per call median/p95 alone -> loaded, "
          "slowdown median, p95 (threads used loaded)" % (workload, rounds, calls, time.strftime("%H:%M"),
                                                        "%.2f %.2f %.2f" % os.getloadavg()))
    for m in bw.MODES:
        for p in POLICIES:
            a, b = times[(p, m, "alone")], times[(p, m, "loaded")]
            counts = used[(p, "loaded")]
            print("  %-5s %-9s %8.2f %8.2f -> %8.2f %8.2f   %5.2fx %5.2fx   (%s)" % (
                m, p, statistics.median(a) * 1e3, bw.p95(a) * 1e3, statistics.median(b) * 1e3, bw.p95(b) * 1e3,
                statistics.median(b) / statistics.median(a), bw.p95(b) / bw.p95(a),
                " ".join("%d:%d%%" % (k, 100 * counts.count(k) / len(counts)) for k in sorted(set(counts)))))
    sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=["resnet18_b1", "bert_b8", "lstmcell_b32", "lstm_lm_b32"],
                    choices=sorted(bw.WORKLOADS))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=1.0, help="per block and mode (rough)")
    args = ap.parse_args(argv)
    for workload in args.only:
        guess = bw._guess(workload)  # pylint: disable=protected-access
        calls = {"infer": max(5, int(args.seconds / guess)), "train": max(5, int(args.seconds / (4 * guess)))}
        run(workload, args.rounds, calls)


if __name__ == "__main__":
    main()
