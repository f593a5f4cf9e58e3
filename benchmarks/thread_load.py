"""OpenMP's wait policy and spin count, and the intra-op thread count, alone and beside a
CPU-bound process (issue 17, speed under load).

Each setting runs in its own worker process (OMP_WAIT_POLICY and GOMP_SPINCOUNT must be set
before torch loads; torch's wheel uses libgomp): torch's OpenMP defaults, 1 thread, PASSIVE
without spinning (neogluon's default before 2026-11-28), PASSIVE with a short spin
(``GOMP_SPINCOUNT``), and neogluon's own default (nothing set: neogluon/threads.py chooses).
Except for "neogluon", the settings turn the adaptive thread count off, so that they show
the wait policy alone. Every worker runs the same call of benchmarks/bench_workloads.py's
workloads (``--variant static``: the compiled backend; ``hybridized``: the plain graph;
``torch``: raw torch). Each round measures every setting alone (in a rotating order), then
starts a neighbour (torch matmuls on one thread) and measures every setting again; ratios and
spreads, since the machine is shared. Workers share one inductor cache, so they run the same
compiled code. Not a test::

    python benchmarks/thread_load.py [--only mlp_b64 lenet_b16] [--variant static]
        [--rounds 6] [--clock cpu] [--configs PASSIVE spin10k neogluon]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_workloads as bw  # noqa: E402  pylint: disable=wrong-import-position

OFF = {"NEOGLUON_ADAPTIVE_THREADS": "0"}
CONFIGS = {  # each worker's settings; anything of CLEARED not named here is unset
    # torch's own OpenMP default (libgomp's 300000 spins; an explicit GOMP_SPINCOUNT overrides the policy's)
    "default": dict(OFF, OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT="300000"),
    "1 thread": {"OMP_NUM_THREADS": "1"},
    "PASSIVE": dict(OFF, OMP_WAIT_POLICY="PASSIVE"),
    "spin3k": dict(OFF, OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT="3000"),
    "spin10k": dict(OFF, OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT="10000"),
    "spin30k": dict(OFF, OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT="30000"),
    "spin100k": dict(OFF, OMP_WAIT_POLICY="PASSIVE", GOMP_SPINCOUNT="100000"),
    "PASSIVE+adaptive": {"OMP_WAIT_POLICY": "PASSIVE"},  # neogluon's default before 2026-11-28
    "neogluon": {},  # whatever neogluon/threads.py chooses, adaptive thread count on
}
CLEARED = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "NEOGLUON_ADAPTIVE_THREADS")


def worker(name):
    """A bench_workloads worker process with setting ``name`` (and none of the caller's)."""
    env = dict.fromkeys(CLEARED)
    env.update(CONFIGS[name])
    return bw.Remote(sys.executable, "neogluon", 0, env)


def p95(v):
    v = sorted(v)
    return v[int(0.95 * (len(v) - 1))]


def run(workload, variant, configs, rounds, clock, modes=bw.MODES):
    workers = {name: worker(name) for name in configs}
    calls = max(10, min(100, int(0.1 / bw._guess(workload))))  # pylint: disable=protected-access
    try:
        for w in workers.values():
            w.request({"cmd": "setup", "workload": workload, "variants": [variant]})
        plan = [(name, m) for name in configs for m in modes]
        times = {(k, load): [] for k in plan for load in ("alone", "loaded")}
        medians = {(k, load): [] for k in plan for load in ("alone", "loaded")}
        for r in range(rounds):
            order = plan[r % len(plan):] + plan[:r % len(plan)]
            for load in ("alone", "loaded"):
                with bw.neighbour(on=load == "loaded", threads=1):
                    for name, m in order:
                        t = workers[name].request({"cmd": "time", "variant": variant, "mode": m, "calls": calls,
                                                   "clock": clock})
                        times[((name, m), load)] += t
                        medians[((name, m), load)].append(statistics.median(t))
    finally:
        for w in workers.values():
            w.close()
    print("%s %s (%s clock): ms per call alone (median of round medians [min-max], p95 of calls), beside one "
          "CPU-bound process, slowdown (median, p95); %d rounds x %d calls" % (workload, variant, clock, rounds, calls))
    for m in modes:
        for name in configs:
            a, b = medians[((name, m), "alone")], medians[((name, m), "loaded")]
            ta, tb = times[((name, m), "alone")], times[((name, m), "loaded")]
            print("  %-5s %-16s alone %7.3f [%.3f-%.3f] p95 %7.3f   loaded %7.3f p95 %7.3f   slowdown %5.2fx %5.2fx"
                  % (m, name, statistics.median(a) * 1e3, min(a) * 1e3, max(a) * 1e3, p95(ta) * 1e3,
                     statistics.median(b) * 1e3, p95(tb) * 1e3, statistics.median(tb) / statistics.median(ta),
                     p95(tb) / p95(ta)))
        sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=["mlp_b64", "lenet_b16"], choices=sorted(bw.WORKLOADS))
    ap.add_argument("--variant", default="static", choices=["static", "hybridized", "torch"])
    ap.add_argument("--configs", nargs="+", default=["default", "1 thread", "PASSIVE", "spin10k", "neogluon"],
                    choices=list(CONFIGS))
    ap.add_argument("--modes", nargs="+", default=list(bw.MODES), choices=list(bw.MODES))
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--clock", default="wall", choices=["wall", "cpu"])
    args = ap.parse_args(argv)
    for workload in args.only:
        run(workload, args.variant, args.configs, args.rounds, args.clock, args.modes)


if __name__ == "__main__":
    main()
