"""Why a call slows down beside a CPU-bound process, and which thread setting holds (issue 17).

One worker process per OpenMP environment (the wait policy and the spin count are read once,
when torch's OpenMP runtime starts, so each needs its own process); each worker builds the
hybridized workloads (LeNet b16, ResNet-18 b1, the LSTM LM b32, the MLP b64, as in
benchmarks/bench_workloads.py) and times single inference calls with ``torch.set_num_threads(k)``
chosen per request (so ``k=1`` in a worker started with 2 threads is the run-time change an
adaptive policy makes). Settings:

- ``active``: ``OMP_WAIT_POLICY=ACTIVE`` (threads spin between parallel regions);
- ``passive``: ``OMP_WAIT_POLICY=PASSIVE`` (neogluon's default, neogluon/threads.py);
- ``gomp``: neither set (libgomp's default spin count; ``gomp-spin10k``: ``GOMP_SPINCOUNT=10000``);
- ``env1``: ``OMP_NUM_THREADS=1`` from the start;
- ``adaptive``: passive, 2 threads, and neogluon's adaptive policy (neogluon/threads.py) on.

Each round times every (setting, k) alone, then starts the neighbour (``--neighbour-threads``
threads of torch matmuls, 1 by default: "one CPU-bound process") and times them all again,
in a rotating order. Reported per workload: median and 95th percentile of single calls (ms)
alone and loaded, and their ratios. Also the cost of ``torch.set_num_threads``.
Not a test: ``python benchmarks/thread_study.py [--rounds 3] [--only lstm_lm_b32 ...]``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_workloads as bw  # noqa: E402  pylint: disable=wrong-import-position

WORKLOADS = ("lenet_b16", "resnet18_b1", "lstm_lm_b32", "mlp_b64")
ENVS = {
    "active": {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "ACTIVE"},
    "passive": {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "PASSIVE"},
    "gomp": {"OMP_NUM_THREADS": "2"},
    "gomp-spin10k": {"OMP_NUM_THREADS": "2", "GOMP_SPINCOUNT": "10000"},
    "env1": {"OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"},
    "adaptive": {"OMP_WAIT_POLICY": "PASSIVE"},
}
# (env, k): k = threads set per request (None: leave the policy to neogluon)
SETTINGS = [("active", 2), ("passive", 2), ("passive", 1), ("gomp", 2), ("env1", 1), ("adaptive", None)]

WORKER = r'''
import json, os, sys, time
env = sys.argv[1]
if env != "adaptive":
    import torch  # before neogluon: the environment given is the one OpenMP sees
    os.environ["NEOGLUON_ADAPTIVE_THREADS"] = "0"
sys.path.insert(0, sys.argv[2])
import bench_workloads as bw
import neogluon
import torch
from neogluon import threads
fns = {w: bw.closure("neogluon", w, "hybridized", "infer") for w in sys.argv[3].split(",")}
for fn in fns.values():
    for _ in range(3):
        fn()
cost, start = [], torch.get_num_threads()
for _ in range(200):
    t = time.perf_counter(); torch.set_num_threads(1); torch.set_num_threads(2); cost.append(time.perf_counter() - t)
torch.set_num_threads(start)
print(json.dumps({"threads": torch.get_num_threads(), "set_num_threads_us": sorted(cost)[100] / 2 * 1e6}),
      flush=True)
for line in sys.stdin:
    req = json.loads(line)
    if req["k"]:
        torch.set_num_threads(req["k"])
    fn, times = fns[req["w"]], []
    end = time.perf_counter() + req["max_s"]
    for _ in range(req["n"]):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if t > end:  # a collapsed setting (spinning threads beside a neighbour) must not take minutes
            break
    print(json.dumps({"times": times, "threads": torch.get_num_threads()}), flush=True)
'''

NEIGHBOUR = r'''
import torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a)
'''


def p95(v):
    v = sorted(v)
    return v[int(0.95 * (len(v) - 1))]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=0.4, help="per (setting, workload) measurement")
    ap.add_argument("--only", nargs="+", choices=WORKLOADS)
    ap.add_argument("--neighbour-threads", type=int, default=1)
    ap.add_argument("--settings", nargs="+", help="a subset, as env:k (k 0 = the policy's own)")
    args = ap.parse_args(argv)
    workloads = args.only or list(WORKLOADS)
    settings = SETTINGS
    if args.settings:
        settings = [(s.split(":")[0], int(s.split(":")[1]) or None) for s in args.settings]
    workers, info = {}, {}
    for env in dict.fromkeys(e for e, _ in settings):
        e = {k: v for k, v in os.environ.items()
             if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "MKL_NUM_THREADS",
                          "MXNET_CPU_WORKER_NTHREADS", "NEOGLUON_ADAPTIVE_THREADS")}
        e.update(ENVS[env], PYTHONPATH=ROOT)
        p = subprocess.Popen([sys.executable, "-c", WORKER, env, HERE, ",".join(workloads)], env=e,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        workers[env] = p
    for env, p in workers.items():
        info[env] = json.loads(p.stdout.readline())
        print("%-13s threads %d, set_num_threads %.1f us" % (env, info[env]["threads"],
                                                             info[env]["set_num_threads_us"]))

    def measure(env, k, w, n):
        p = workers[env]
        p.stdin.write(json.dumps({"k": k, "w": w, "n": n, "max_s": 4 * args.seconds}) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    calls = {w: max(5, int(args.seconds / statistics.median(measure("passive" if "passive" in workers else
                                                                     settings[0][0], 1, w, 3)["times"])))
             for w in workloads}
    times = {(s, w, load): [] for s in settings for w in workloads for load in ("alone", "loaded")}
    used = {}

    def report():
        for w in workloads:
            print("%s: ms per call median/p95, alone -> loaded; slowdown median, p95" % w)
            for s in settings:
                a, b = times[(s, w, "alone")], times[(s, w, "loaded")]
                if not a or not b:
                    continue
                print("  %-13s k=%-4s (thr %s/%s) %8.2f %8.2f -> %8.2f %8.2f   %5.2fx %5.2fx" % (
                    s[0], s[1] or "auto", used.get((s, "alone")), used.get((s, "loaded")),
                    statistics.median(a) * 1e3, p95(a) * 1e3, statistics.median(b) * 1e3, p95(b) * 1e3,
                    statistics.median(b) / statistics.median(a), p95(b) / p95(a)))
        sys.stdout.flush()
    nb_env = dict(os.environ, OMP_NUM_THREADS=str(args.neighbour_threads))
    print("# %s UTC, load average %s, neighbour %d thread(s), %d rounds, calls %s"
          % (time.strftime("%H:%M"), "%.2f %.2f %.2f" % os.getloadavg(), args.neighbour_threads, args.rounds, calls),
          flush=True)
    try:
        for r in range(args.rounds):
            order = settings[r % len(settings):] + settings[:r % len(settings)]
            for load in ("alone", "loaded"):
                nb = None
                if load == "loaded":
                    nb = subprocess.Popen([sys.executable, "-c", NEIGHBOUR], env=nb_env)
                    time.sleep(0.7)
                try:
                    for s in order:
                        for w in workloads:
                            rep = measure(s[0], s[1], w, calls[w])
                            times[(s, w, load)] += rep["times"]
                            used[(s, load)] = rep["threads"]
                finally:
                    if nb is not None:
                        nb.kill()
                        nb.wait()
            print("# after round %d, %s UTC, load average %s" % (r + 1, time.strftime("%H:%M"),
                                                                "%.2f %.2f %.2f" % os.getloadavg()))
            report()
    finally:
        for p in workers.values():
            p.kill()
    print("# %s UTC, load average after %s" % (time.strftime("%H:%M"), "%.2f %.2f %.2f" % os.getloadavg()))


if __name__ == "__main__":
    main()
