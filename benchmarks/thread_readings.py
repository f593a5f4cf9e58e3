"""What the adaptive thread policy reads as the load (neogluon/threads.py): the CPU time other
work took on this process's CPUs (``/proc/stat``, now) against ``/proc/loadavg``'s count of
runnable threads at the instant of the reading (before 2026-12-07), which counted this
process's own spinning OpenMP worker.

    python benchmarks/thread_readings.py [--only mlp_b64 ...] [--variants hybridized static]
        [--rounds 7] [--seconds 1.0] [--under-load]

Issue 17's workloads (bench_workloads.py's closures), alternating round by round in one
process between the two readers: each round installs its reader as the policy's ``load``,
runs the workload for half a second to let the policy settle, then times calls for
``--seconds``, recording each call's wall time and the thread count the policy had set.
Printed per workload, mode and reader: the median over rounds of the round's median call (ms)
and its range, the share of calls that ran on one thread, and the per-round ratio loadavg /
CPU-time reader. ``--under-load`` runs the same beside a CPU-bound process (bench_workloads'
neighbour, one thread of matmuls): both readers should then choose one thread.

Measured 2026-12-07 12:11 UTC, idle machine (load 0.0-1.6), 5 rounds of 0.7 s, plain
``hybridize()``, the reader as committed in 03b2757 (the lesser of the window's CPU time and
the threads runnable now) against loadavg: the MLP b64's prediction 0.486 ms against 0.701
(loadavg / CPU time 1.45 [1.18-1.51]; 61% of loadavg's calls on one thread, none of the
other's), LeNet b16's 0.413 against 0.482 (1.13 [1.12-1.18], 41%), the LSTM LM's 13.0 against
13.4 (1.03 [1.02-1.07]); the other workloads and the training steps within 3% either way
(0.97-1.02), none of the CPU-time reader's calls on one thread. 11:35 UTC, beside the
neighbour (MLP, LeNet b16, BERT, LSTM LM, with the first version of the reader, the window's
CPU time alone): every call of both readers on one thread, times within 4%.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import bench_workloads  # noqa: E402


def loadavg_runnable_others():
    """The reader before 2026-12-07: runnable threads of the machine less the reader."""
    with open("/proc/loadavg", "rb") as f:
        return max(0, int(f.read().split()[3].split(b"/")[0]) - 1)


def run_round(policy, reader, fn, seconds, n_threads):
    policy.load = reader
    policy._next = 0.0  # read at the next call
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:
        fn()
    times, ones = [], 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        ones += n_threads() == 1
    return statistics.median(times) * 1e3, ones / len(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(bench_workloads.WORKLOADS),
                        default=list(bench_workloads.WORKLOADS))
    parser.add_argument("--variants", nargs="+", choices=("hybridized", "static"), default=["hybridized"])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--under-load", action="store_true")
    args = parser.parse_args()
    os.environ.pop("NEOGLUON_ADAPTIVE_THREADS", None)
    os.environ.pop("OMP_NUM_THREADS", None)
    import neogluon  # noqa: F401  (the policy configures OpenMP before torch loads)
    import torch
    from neogluon import threads
    policy = threads.policy()
    readers = {"cpu time": threads.OthersUse(), "loadavg": loadavg_runnable_others}
    print("# %s UTC, %d rounds of %.1f s, torch %d threads, load average %s%s" % (
        time.strftime("%H:%M"), args.rounds, args.seconds, torch.get_num_threads(),
        " ".join("%.2f" % v for v in os.getloadavg()), ", beside a CPU-bound process" if args.under_load else ""))
    with bench_workloads.neighbour(args.under_load):
        for workload in args.only:
            for variant in args.variants:
                for mode in bench_workloads.MODES:
                    fn = bench_workloads.closure("neogluon", workload, variant, mode)
                    for _ in range(3):
                        fn()
                    got = {name: [] for name in readers}
                    for r in range(args.rounds):
                        order = list(readers) if r % 2 == 0 else list(readers)[::-1]
                        for name in order:
                            got[name].append(run_round(policy, readers[name], fn, args.seconds,
                                                       torch.get_num_threads))
                    ratios = [a[0] / b[0] for a, b in zip(got["loadavg"], got["cpu time"])]
                    for name, res in got.items():
                        ms = [m for m, _ in res]
                        print("%-13s %-10s %-5s %-8s %8.3f ms [%.3f-%.3f]  one thread %3.0f%%%s" % (
                            workload, variant, mode, name, statistics.median(ms), min(ms), max(ms),
                            100 * statistics.median(o for _, o in res),
                            "  loadavg / cpu time %.2f [%.2f-%.2f]" % (statistics.median(ratios), min(ratios),
                                                                     max(ratios)) if name == "loadavg" else ""),
                          flush=True)
    print("# load average after %s" % " ".join("%.2f" % v for v in os.getloadavg()))


if __name__ == "__main__":
    main()
