"""The compiled prediction of a small graph with serial kernels (neogluon's choice,
inductor.py's ``_SMALL``) against kernels generated for the thread count of the moment
(inductor's default: OpenMP regions when torch has 2 threads), both run at ``--run-threads``.

Each choice compiles in its own worker process with its own empty inductor cache, the
adaptive thread count off; rounds alternate the workers. Not a test::

    python benchmarks/compile_threads.py [--only lenet_b1 lenet_b16] [--run-threads 2] [--rounds 10]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = r'''
import statistics, sys, time
sys.path.insert(0, %(here)r)
import torch
import neogluon
from neogluon import threads
from neogluon.executor import inductor
import bench_workloads as bw
threads.policy().reason = "benchmark"  # the thread count is this script's
workload, serial, compile_threads, run_threads = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
if not serial:
    inductor._SMALL = dict(inductor._AUTOTUNE, **{"cpp.dynamic_threads": False})  # threads fixed at compile time
torch.set_num_threads(compile_threads)
fn = bw.closure("neogluon", workload, "static", "infer")
for _ in range(5):
    fn()
torch.set_num_threads(run_threads)
for _ in range(20):
    fn()
print("ready", flush=True)
for line in sys.stdin:
    times = []
    for _ in range(int(line)):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    print(statistics.median(times), flush=True)
'''


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=["lenet_b1", "lenet_b16"])
    ap.add_argument("--compile-threads", type=int, default=2, help="torch's threads while the default compiles")
    ap.add_argument("--run-threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args(argv)
    code = WORKER % {"here": HERE}
    for workload in args.only:
        workers, caches = {}, []
        try:
            for name, serial in (("serial kernels", "1"), ("at %d threads" % args.compile_threads, "0")):
                cache = tempfile.mkdtemp(prefix="compile_threads-")
                caches.append(cache)
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, PYTHONPATH=ROOT + os.pathsep +
                           os.environ.get("PYTHONPATH", ""))
                p = subprocess.Popen([sys.executable, "-c", code, workload, serial, str(args.compile_threads),
                                      str(args.run_threads)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
                if p.stdout.readline().strip() != "ready":
                    raise RuntimeError("the %s worker failed" % name)
                workers[name] = p
            medians = {name: [] for name in workers}
            for r in range(args.rounds):
                names = list(workers)
                for name in names[r % 2:] + names[:r % 2]:
                    workers[name].stdin.write("%d\n" % args.calls)
                    workers[name].stdin.flush()
                    medians[name].append(float(workers[name].stdout.readline()))
            for name, v in medians.items():
                print("%s compiled %-15s run at %d thread(s): median %.3f ms [%.3f-%.3f]"
                      % (workload, name, args.run_threads, statistics.median(v) * 1e3, min(v) * 1e3, max(v) * 1e3))
        finally:
            for p in workers.values():
                p.kill()
                p.wait()
            for cache in caches:
                shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
