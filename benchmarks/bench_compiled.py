"""Hybridized plain graph vs the compiled (inductor) backend vs raw torch eager vs torch.compile.

    python benchmarks/bench_compiled.py [--rounds 5] [--calls 20] [--cache-check]

Inference (predict mode, no autograd) on the tutorial-sized LeNet at batch 1 and 16, a
ResNet-18-like residual stage (conv-BN-relu x2 + shortcut, 64 channels, 56x56, batch 1) and
a 3-layer MLP at batch 64. The four variants of a workload run alternately in each round;
per variant the best call of the round is kept, and the ratios reported are the median
(and min-max spread) over rounds of the per-round ratio to the plain hybridized graph, so
a shared machine's drifts cancel. The first (compiling) call of each compiled variant is
reported too. ``--cache-check`` runs the first compiled prediction call of LeNet (batch 16)
and ResNet-18 (batch 1) in three fresh processes sharing a new TORCHINDUCTOR_CACHE_DIR: the
first compiles (and stores the frozen graph's AOTInductor package), the others load it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# compile in the timed call, as the figures count it (by default the first compilation of a graph
# runs in a child process while the plain graph serves: executor/warm.py)
os.environ.setdefault("NEOGLUON_COMPILE_BACKGROUND", "0")

import torch

import neogluon as mx
from neogluon.gluon import nn


# ---------------------------------------------------------------------- networks, both frameworks
def lenet_mx():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Conv2D(16, 5, activation="relu"),
            nn.MaxPool2D(2, 2), nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"),
            nn.Dense(10))
    return net


def lenet_torch():
    t = torch.nn
    return t.Sequential(t.Conv2d(1, 6, 5), t.ReLU(), t.MaxPool2d(2, 2), t.Conv2d(6, 16, 5), t.ReLU(),
                        t.MaxPool2d(2, 2), t.Flatten(), t.Linear(256, 120), t.ReLU(), t.Linear(120, 84), t.ReLU(),
                        t.Linear(84, 10))


def mlp_mx():
    net = nn.HybridSequential()
    net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"), nn.Dense(10))
    return net


def mlp_torch():
    t = torch.nn
    return t.Sequential(t.Linear(784, 512), t.ReLU(), t.Linear(512, 512), t.ReLU(), t.Linear(512, 10))


class ResStageMx(mx.gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(64, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                          nn.Conv2D(64, 3, padding=1, use_bias=False), nn.BatchNorm())

    def hybrid_forward(self, F, x):
        return F.relu(self.body(x) + x)


class ResStageTorch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        t = torch.nn
        self.body = t.Sequential(t.Conv2d(64, 64, 3, padding=1, bias=False), t.BatchNorm2d(64), t.ReLU(),
                                 t.Conv2d(64, 64, 3, padding=1, bias=False), t.BatchNorm2d(64))

    def forward(self, x):
        return torch.relu(self.body(x) + x)


WORKLOADS = {
    "LeNet b1": (lenet_mx, lenet_torch, (1, 1, 28, 28)),
    "LeNet b16": (lenet_mx, lenet_torch, (16, 1, 28, 28)),
    "ResNet stage b1": (ResStageMx, ResStageTorch, (1, 64, 56, 56)),
    "MLP b64": (mlp_mx, mlp_torch, (64, 784)),
}


def variants(make_mx, make_torch, shape):
    x = torch.rand(shape)
    xn = mx.nd.array(x.numpy())
    plain, comp = make_mx(), make_mx()
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
        net(xn)
    plain.hybridize()
    comp.hybridize(backend="inductor")
    tnet = make_torch().eval()
    tcomp = torch.compile(make_torch().eval())

    def run_torch(m):
        with torch.no_grad():
            return m(x)
    return {
        "hybridized": lambda: plain(xn).wait_to_read(),
        "compiled": lambda: comp(xn).wait_to_read(),
        "torch eager": lambda: run_torch(tnet),
        "torch.compile": lambda: run_torch(tcomp),
    }


def bench(rounds, calls):
    print("inference, predict mode; ratios = per-round best of %d calls relative to the plain hybridized graph, "
          "median [min-max] over %d rounds (shared, loaded machine: load average %.1f)"
          % (calls, rounds, os.getloadavg()[0]))
    for name, (make_mx, make_torch, shape) in WORKLOADS.items():
        fns = variants(make_mx, make_torch, shape)
        first = {}
        for k, f in fns.items():
            t = time.perf_counter()
            f()
            f()  # (a compiled prediction runs the plain graph at its first call and compiles at its second)
            first[k] = time.perf_counter() - t
        ratios = {k: [] for k in fns}
        best = {k: [] for k in fns}
        for _ in range(rounds):
            this = {}
            for k, f in fns.items():
                times = []
                for _ in range(calls):
                    t = time.perf_counter()
                    f()
                    times.append(time.perf_counter() - t)
                this[k] = min(times)
                best[k].append(this[k])
            for k in fns:
                ratios[k].append(this["hybridized"] / this[k])
        print("\n%s" % name)
        for k in fns:
            r = ratios[k]
            print("  %-14s best %8.3f ms   speed vs hybridized %5.2fx [%4.2f-%4.2f]   first 2 calls %6.2f s"
                  % (k, min(best[k]) * 1e3, statistics.median(r), min(r), max(r), first[k]))


CACHE_CHILD = r'''
import sys, time
t0 = time.perf_counter()
import neogluon as mx
from neogluon.gluon import nn
t_import = time.perf_counter() - t0
if sys.argv[1] == "resnet18":
    net, x = mx.gluon.model_zoo.vision.resnet18_v1(), mx.nd.ones((1, 3, 224, 224))
else:
    net, x = nn.HybridSequential(), mx.nd.ones((16, 1, 28, 28))
    net.add(nn.Conv2D(6, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Conv2D(16, 5, activation="relu"),
            nn.MaxPool2D(2, 2), nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"),
            nn.Dense(10))
mx.random.seed(0)  # the same weights in every process (they are frozen into the cached package)
net.initialize(mx.init.Xavier())
net.hybridize(backend="inductor")
t = time.perf_counter()
net(x).wait_to_read()  # the plain graph
net(x).wait_to_read()  # compiles (or loads the cached package)
first = time.perf_counter() - t
net(x).wait_to_read()  # the third call times the compiled graph against the plain one (calibration)
t = time.perf_counter()
net(x).wait_to_read()
print("first 2 calls %6.2f s   fourth call %7.1f ms   (import neogluon %.2f s)"
      % (first, (time.perf_counter() - t) * 1e3, t_import))
'''


def cache_check(networks=("lenet_b16", "resnet18")):
    """First (compiling) call of each network in a new process on an empty cache, then in
    two more new processes on that cache."""
    print("first compiled call in a new process (load average %.1f)" % os.getloadavg()[0])
    for name in networks:
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=d)
            for label in ("cold cache", "warm cache", "warm cache"):
                out = subprocess.run([sys.executable, "-c", CACHE_CHILD, name], env=env, capture_output=True,
                                     text=True)
                print("  %-10s %-11s %s" % (name, label, out.stdout.strip() or out.stderr.strip()[-300:]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--cache-check", action="store_true")
    args = parser.parse_args(argv)
    if args.cache_check:
        cache_check()
    else:
        bench(args.rounds, args.calls)


if __name__ == "__main__":
    main()
