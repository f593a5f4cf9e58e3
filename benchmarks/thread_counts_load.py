"""Fixed intra-op thread counts and spin counts beside one CPU-bound process (issue 17, speed
under load): which count should the adaptive policy (neogluon/threads.py) choose when another
process keeps one core busy?

One worker process per spin count (``GOMP_SPINCOUNT`` is read once, when OpenMP starts), each
with ``OMP_WAIT_POLICY=PASSIVE`` and the adaptive count off; every request sets
``torch.set_num_threads(k)`` first (the compiled kernels read it at each call,
``cpp.dynamic_threads``). Each round times every (spin, k, mode) alone in a rotating order,
then starts the neighbour (one torch thread of matmuls, a child of this process, so in the
same session and autogroup as the workers, as in ``bench_workloads.py --under-load``) and times
them all again. Reported: per setting, median and p95 of single calls alone and loaded, and
the slowdown against the reference ``alone`` figure (the default spin with 2 threads, what
an idle machine runs). Not a test::

    python benchmarks/thread_counts_load.py [--only resnet18_b1 ...] [--spins 10000 50000]
        [--threads 1 2 3] [--rounds 3]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_workloads as bw  # noqa: E402  pylint: disable=wrong-import-position

WORKER = r'''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import bench_workloads as bw
w = bw.Worker("neogluon")
import torch
for line in sys.stdin:
    req = json.loads(line)
    if req.get("threads"):
        torch.set_num_threads(req["threads"])
    print(json.dumps(w.handle(req)), flush=True)
'''
HEAVY = ("resnet18_b1", "bert_b8", "lstmcell_b32", "lstm_lm_b32")


class Spin(bw.Remote):
    """A worker process with OpenMP's spin count ``spin`` (passive wait, adaptive count off)."""

    def __init__(self, spin):  # pylint: disable=super-init-not-called
        env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        env.update(OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT=str(spin), NEOGLUON_ADAPTIVE_THREADS="0",
                   PYTHONPATH=bw.ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, HERE], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)


def run(workload, spins, counts, rounds, modes, seconds):
    workers = {s: Spin(s) for s in spins}
    try:
        for w in workers.values():
            w.request({"cmd": "setup", "workload": workload, "variants": ["static"]})
        calls = max(5, int(seconds / bw._guess(workload)))  # pylint: disable=protected-access
        plan = [(s, k, m) for s in spins for k in counts for m in modes]
        times = {(p, load): [] for p in plan for load in ("alone", "loaded")}
        for r in range(rounds):
            order = plan[r % len(plan):] + plan[:r % len(plan)]
            for load in ("alone", "loaded"):
                with bw.neighbour(on=load == "loaded", threads=1):
                    for s, k, m in order:
                        times[((s, k, m), load)] += workers[s].request(
                            {"cmd": "time", "variant": "static", "mode": m, "calls": calls, "threads": k})
    finally:
        for w in workers.values():
            w.close()
    print("%s static, %d rounds x %d calls, %s UTC, load average %s: ms per call median/p95 alone -> loaded; "
          "slowdown vs (spin %s, 2 threads) alone, median and p95"
          % (workload, rounds, calls, time.strftime("%H:%M"), "%.2f %.2f %.2f" % os.getloadavg(), spins[0]))
    for m in modes:
        ref = times[((spins[0], 2 if 2 in counts else counts[0], m), "alone")]
        for s in spins:
            for k in counts:
                a, b = times[((s, k, m), "alone")], times[((s, k, m), "loaded")]
                print("  %-5s spin %-7s k=%d  %8.2f %8.2f -> %8.2f %8.2f   %5.2fx %5.2fx" % (
                    m, s, k, statistics.median(a) * 1e3, bw.p95(a) * 1e3, statistics.median(b) * 1e3,
                    bw.p95(b) * 1e3, statistics.median(b) / statistics.median(ref), bw.p95(b) / bw.p95(ref)))
    sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=list(HEAVY), choices=sorted(bw.WORKLOADS))
    ap.add_argument("--spins", nargs="+", type=int, default=[10000, 50000])
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--modes", nargs="+", default=list(bw.MODES), choices=list(bw.MODES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=0.3, help="per measurement (rough)")
    args = ap.parse_args(argv)
    for workload in args.only:
        run(workload, args.spins, args.threads, args.rounds, args.modes, args.seconds)


if __name__ == "__main__":
    main()
