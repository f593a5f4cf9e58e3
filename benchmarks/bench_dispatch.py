"""Per-call dispatch cost of two neogluon trees, measured alternately in one run.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_dispatch.py --tree before=/work/wt/before \\
        --tree after=. [--rounds 30] [--gluon]

Each tree runs in its own long-lived worker process (``PYTHONPATH=<tree>``, one thread);
every round asks each worker in turn, in a rotating order, to time every case once: the
neogluon statement and the raw torch statement back to back. The report gives, per case
and tree, the median per-call time and the median over rounds of the ratio to torch
within a round (paired: the drift of a shared machine cancels), with its spread (the
lower and upper quartiles); then, between the first tree and each other one, the median
of their per-round time ratio, and of the ratio of their per-round ratios to torch
("torch-normalised": a worker process that is slower as a whole cancels out). The cases are those of ``bench_ndarray.py`` (``mx.nd``),
the small ``mx.np`` arrays of ``tools/bench_numpy_overhead.py`` (when the tree has
``mx.np``) and, with ``--gluon``, one hybridized training step of ``bench_gluon.py``'s
MLP and LeNet against the same step in raw torch.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))

NP_CASES = {
    "np a+b 4x4": ("a = np.ones((4, 4)); b = np.ones((4, 4))", "a + b", "ta + tb"),
    "np a*2 4x4": ("a = np.ones((4, 4))", "a * 2.0", "ta * 2.0"),
    "np exp 4x4": ("a = np.ones((4, 4))", "np.exp(a)", "torch.exp(ta)"),
    "np sum 4x4": ("a = np.ones((4, 4))", "a.sum()", "ta.sum()"),
    "np a[1] 4x4": ("a = np.ones((4, 4))", "a[1]", "ta[1]"),
}
GLUON_CASES = (("mlp", 16), ("lenet", 16))


def _cases(number):
    """name -> (neogluon callable, torch callable, calls per timing) in this worker."""
    sys.path.insert(0, HERE)
    import torch
    import neogluon as mx
    import bench_ndarray
    torch.set_num_threads(1)
    out = {}
    table = dict(bench_ndarray.CASES)
    if os.path.isdir(os.path.join(os.path.dirname(mx.__file__), "numpy")):
        table.update(NP_CASES)
    for name, (setup, stmt, torch_stmt) in table.items():
        g = {"mx": mx, "nd": mx.nd, "torch": torch}
        if name.startswith("np "):
            g["np"] = mx.np
        exec(setup, g)  # pylint: disable=exec-used
        for k in ("a", "b", "c"):
            if k in g:
                g["t" + k] = g[k]._t
        out[name] = (timeit.Timer(stmt, globals=g), timeit.Timer(torch_stmt, globals=g), number)
    if os.environ.get("BENCH_GLUON"):
        import bench_gluon
        for net, batch in GLUON_CASES:
            _, train = bench_gluon.gluon_cases(mx, net, batch, True)
            _, torch_train = bench_gluon.torch_cases(net, batch)
            out["%s b%d train (hybridized)" % (net, batch)] = (
                timeit.Timer(train), timeit.Timer(torch_train), max(2, number // 400))
    return out


def worker(number, repeat):
    """Time every case once per line read from stdin; one JSON line of {case: [ours, torch]}."""
    cases = _cases(number)
    wanted = os.environ.get("BENCH_CASES")
    if wanted:
        cases = {k: v for k, v in cases.items() if any(w in k for w in wanted.split("\n"))}
    print(json.dumps(list(cases)), flush=True)
    for _ in sys.stdin:
        res = {}
        for name, (ours, torch_, n) in cases.items():
            res[name] = [min(ours.repeat(repeat, n)) / n, min(torch_.repeat(repeat, n)) / n]
        print(json.dumps(res), flush=True)


def _quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], statistics.median(values), q[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="a neogluon source tree to measure (give two or more)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--number", type=int, default=2000, help="calls per timing")
    parser.add_argument("--repeat", type=int, default=3, help="timings per case and round (best kept)")
    parser.add_argument("--gluon", action="store_true", help="also a hybridized training step")
    parser.add_argument("--cases", metavar="TEXT", action="append", default=[],
                        help="only the cases whose name contains TEXT (may be repeated)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.number, args.repeat)
        return 0
    trees = [t.split("=", 1) for t in args.tree]
    if len(trees) < 2:
        parser.error("give two or more --tree NAME=PATH")
    procs = {}
    for name, path in trees:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(path), OMP_NUM_THREADS="1")
        if args.gluon:
            env["BENCH_GLUON"] = "1"
        if args.cases:
            env["BENCH_CASES"] = "\n".join(args.cases)
        procs[name] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "--number", str(args.number),
             "--repeat", str(args.repeat)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    names = {n: json.loads(p.stdout.readline()) for n, p in procs.items()}
    order = [n for n, _ in trees]
    results = {n: [] for n in order}
    for r in range(args.rounds):
        for n in order[r % len(order):] + order[:r % len(order)]:
            procs[n].stdin.write("round\n")
            procs[n].stdin.flush()
            results[n].append(json.loads(procs[n].stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print("%d rounds, %d calls per timing, load average %s" % (args.rounds, args.number, " ".join(load)))
    print("%-30s %-8s %10s %10s %22s" % ("case", "tree", "ours", "torch", "ratio to torch (q1..q3)"))
    first = order[0]
    cases = []
    for n in order:
        cases += [c for c in names[n] if c not in cases]
    for case in cases:
        for n in order:
            if case not in names[n]:
                continue
            rows = [res[case] for res in results[n]]
            lo, med, hi = _quartiles([a / b for a, b in rows])
            print("%-30s %-8s %8.2fus %8.2fus %8.2fx (%.2f..%.2f)" % (
                case, n, statistics.median(a for a, _ in rows) * 1e6,
                statistics.median(b for _, b in rows) * 1e6, med, lo, hi))
        for n in order[1:]:
            if case in names[n] and case in names[first]:
                lo, med, hi = _quartiles([x[case][0] / y[case][0] for x, y in zip(results[n], results[first])])
                print("%-30s %-8s %s/%s time %.3f (%.3f..%.3f)" % ("", "", n, first, med, lo, hi))
                # each worker's time over its own torch time in the round: a worker process
                # that runs slower as a whole (a busier core) cancels out
                lo, med, hi = _quartiles([(x[case][0] / x[case][1]) / (y[case][0] / y[case][1])
                                          for x, y in zip(results[n], results[first])])
                print("%-30s %-8s %s/%s torch-normalised %.3f (%.3f..%.3f)" % ("", "", n, first, med, lo, hi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
