"""How a hybridized call slows down when another CPU-bound process runs (issue 17, speed under load).

Four settings, each in its own worker process (OMP_WAIT_POLICY must be set before torch
loads): torch's default intra-op threads, 1 thread, OMP_WAIT_POLICY=PASSIVE with the
default threads, and neogluon's defaults (PASSIVE and the intra-op threads adapted to the free
cores, neogluon/threads.py). Rounds alternate the settings, each measured alone and then beside a
neighbour process running torch matmuls on one thread; the figures are ratios
and spreads, since the machine is shared. The worker imports torch before neogluon, so
"default" is torch's own OpenMP default (neogluon/threads.py, which asks for PASSIVE, comes
too late there). Not a test: ``python benchmarks/thread_load.py``.
"""
import json
import os
import statistics
import subprocess
import sys
import time

CONFIGS = {
    "default": {"NEOGLUON_ADAPTIVE_THREADS": "0"},
    "1 thread": {"OMP_NUM_THREADS": "1"},
    "PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE", "NEOGLUON_ADAPTIVE_THREADS": "0"},
    "adaptive": {"OMP_WAIT_POLICY": "PASSIVE"},  # neogluon's defaults (neogluon/threads.py)
}

WORKER = r'''
import json, sys, time
import torch
import neogluon as mx
from neogluon.gluon import nn
kind = sys.argv[1]
net = nn.HybridSequential()
if kind == "lenet":
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Conv2D(16, 5, activation="relu"),
            nn.MaxPool2D(2, 2), nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"),
            nn.Dense(10))
    x = mx.nd.random.uniform(shape=(16, 1, 28, 28))
else:
    net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"), nn.Dense(10))
    x = mx.nd.random.uniform(shape=(64, 784))
net.initialize()
net.hybridize()
for _ in range(20):
    net(x).wait_to_read()
print(json.dumps({"threads": torch.get_num_threads()}), flush=True)
for line in sys.stdin:
    n = int(line)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        net(x).wait_to_read()
        times.append(time.perf_counter() - t)
    print(json.dumps(times), flush=True)
'''

NEIGHBOUR = r'''
import torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a)
'''


def main(kind="mlp", rounds=4, calls=60):
    workers = {}
    for name, env in CONFIGS.items():
        e = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY",
                                                                "NEOGLUON_ADAPTIVE_THREADS")}
        e.update(env)
        p = subprocess.Popen([sys.executable, "-c", WORKER, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=e, text=True)
        info = json.loads(p.stdout.readline())
        workers[name] = p
        print("%-9s torch threads %d" % (name, info["threads"]))
    times = {(name, load): [] for name in CONFIGS for load in ("alone", "loaded")}

    def measure(name):
        p = workers[name]
        p.stdin.write("%d\n" % calls)
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    try:
        for _ in range(rounds):
            for name in CONFIGS:
                times[(name, "alone")] += measure(name)
                nb = subprocess.Popen([sys.executable, "-c", NEIGHBOUR], env=dict(os.environ, OMP_NUM_THREADS="1"))
                time.sleep(1.0)
                times[(name, "loaded")] += measure(name)
                nb.kill()
                nb.wait()
    finally:
        for p in workers.values():
            p.kill()
    print("%s: ms per call (median, p95), slowdown loaded/alone (median, p95); %d rounds x %d calls"
          % (kind, rounds, calls))
    for name in CONFIGS:
        a, b = sorted(times[(name, "alone")]), sorted(times[(name, "loaded")])
        med = lambda v: statistics.median(v) * 1e3  # noqa: E731
        p95 = lambda v: v[int(0.95 * (len(v) - 1))] * 1e3  # noqa: E731
        print("%-9s alone %7.2f %7.2f   loaded %7.2f %7.2f   slowdown %5.2fx %5.2fx"
              % (name, med(a), p95(a), med(b), p95(b), med(b) / med(a), p95(b) / p95(a)))


if __name__ == "__main__":
    main(*(sys.argv[1:2] or ["mlp"]))
