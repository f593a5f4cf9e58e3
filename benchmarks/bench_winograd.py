"""Winograd F(2x2,3x3) / F(4x4,3x3) against oneDNN's direct convolution, per ResNet-18 layer.

    python benchmarks/bench_winograd.py [--threads 1 2] [--calls 30] [--rounds 3] [--only 64x56]

Each ResNet-18 (batch 1, 224x224) 3x3 stride-1 convolution shape, with what follows it in
the network (BatchNorm folded into a bias, ReLU), is compiled the way neogluon's compiled
prediction compiles it (``torch.compile`` with inductor's weight freezing: the direct
convolution becomes oneDNN's prepacked ``mkldnn._convolution_pointwise`` with the ReLU fused;
the Winograd weight transform is folded into a constant), and the variants are timed
alternately: per round the best of ``--calls`` calls of each, by the wall clock and by the
process's CPU time; the table gives the median over rounds of each and its ratio to the direct
convolution (above 1: Winograd faster). The maximum error against a float64 convolution,
relative to the output's largest magnitude, is printed for each variant.

``--resnet18`` instead times the whole network (model_zoo ``resnet18_v1``, batch 1, predict
mode) compiled by neogluon's backend (``hybridize(static_alloc=True, static_shape=True)``)
with the Winograd choice (operator/winograd.py) and without it (``NEOGLUON_WINOGRAD=0`` while
it is frozen): two copies of the same network with the same weights, called alternately.
"""
import argparse
import os
import statistics
import time

# compile in the timed call, as the figures count it (by default the first compilation of a graph
# runs in a child process while the plain graph serves: executor/warm.py)
os.environ.setdefault("NEOGLUON_COMPILE_BACKGROUND", "0")

import torch
import torch.nn.functional as F

from neogluon.operator import winograd

# (channels, spatial size, convolutions of that shape in ResNet-18 v1)
LAYERS = [(64, 56, 4), (128, 28, 3), (256, 14, 3), (512, 7, 3)]


class Direct(torch.nn.Module):
    def __init__(self, w, b):
        super().__init__()
        self.w, self.b = torch.nn.Parameter(w, requires_grad=False), torch.nn.Parameter(b, requires_grad=False)

    def forward(self, x):
        return torch.relu(F.conv2d(x, self.w, self.b, 1, 1))


class Wino(Direct):
    def __init__(self, w, b, m):
        super().__init__(w, b)
        self.m = m

    def forward(self, x):
        return torch.relu(winograd.conv2d(x, self.w, self.b, (1, 1), m=self.m))


def compiled(module, x):
    from torch._inductor import config
    with config.patch(freezing=True), torch.no_grad():
        fn = torch.compile(module, dynamic=False)
        fn(x)
    return fn


def time_best(fn, x, calls):
    wall, cpu = float("inf"), float("inf")
    with torch.no_grad():
        for _ in range(calls):
            w0, c0 = time.perf_counter(), time.process_time()
            fn(x)
            wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu


def resnet18(args):
    import numpy as np
    import neogluon as mx
    mx.random.seed(0)
    x = mx.nd.random.uniform(shape=(1, 3, 224, 224))
    nets = {}
    for name, env in (("direct", "0"), ("winograd", "1")):
        net = mx.gluon.model_zoo.vision.resnet18_v1()
        net.initialize(mx.init.Xavier())
        if nets:
            for (_, a), (_, b) in zip(sorted(net.collect_params().items()),
                                      sorted(nets["direct"].collect_params().items())):
                a.set_data(b.data())
        net.hybridize(static_alloc=True, static_shape=True)
        os.environ["NEOGLUON_WINOGRAD"] = env
        start = time.perf_counter()
        for _ in range(3):
            net(x).wait_to_read()
        print("%s: first 3 calls %.1f s" % (name, time.perf_counter() - start))
        nets[name] = net
    os.environ.pop("NEOGLUON_WINOGRAD")
    ref = nets["direct"](x).asnumpy()
    got = nets["winograd"](x).asnumpy()
    print("max |winograd - direct| = %.2e (max |y| %.2e)" % (np.abs(got - ref).max(), np.abs(ref).max()))
    alternate({name: (lambda a, net=net: net(a).wait_to_read()) for name, net in nets.items()}, x, args,
              "resnet18 b1")


def alternate(variants, x, args, label):
    """Time ``variants`` ({name: fn(x)}) alternately at each thread count of ``args``; print
    the median over rounds of each one's best call (wall and CPU time) and its ratio to the
    first variant's."""
    for threads in args.threads:
        torch.set_num_threads(threads)
        got = {name: ([], []) for name in variants}
        for _ in range(args.rounds):
            for name, fn in variants.items():
                wall, cpu = time_best(fn, x, args.calls)
                got[name][0].append(wall)
                got[name][1].append(cpu)
        base = [statistics.median(v) for v in next(iter(got.values()))]
        for name, (walls, cpus) in got.items():
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            print("%s %d thr %-8s wall %.3f ms (%.2fx)  cpu %.3f ms (%.2fx)  [wall %.3f-%.3f, cpu %.3f-%.3f]"
                  % (label, threads, name, wall * 1e3, base[0] / wall, cpu * 1e3, base[1] / cpu, min(walls) * 1e3,
                     max(walls) * 1e3, min(cpus) * 1e3, max(cpus) * 1e3))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--resnet18", action="store_true", help="the whole network, with and without Winograd")
    p.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    p.add_argument("--calls", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tiles", type=int, nargs="+", default=[2, 4])
    p.add_argument("--channels-last", action="store_true", help="feed channels-last data")
    p.add_argument("--only", default=None, help="CxS, e.g. 64x56")
    args = p.parse_args()
    torch.manual_seed(0)
    print("load: %s" % open("/proc/loadavg").read().strip())
    if args.resnet18:
        resnet18(args)
        print("load: %s" % open("/proc/loadavg").read().strip())
        return
    for c, s, count in LAYERS:
        if args.only and args.only != "%dx%d" % (c, s):
            continue
        torch._dynamo.reset()  # a fresh recompile limit per layer (the modules share a code object)
        x = torch.randn(1, c, s, s)
        if args.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        w = torch.randn(c, c, 3, 3) * (2.0 / (9 * c)) ** 0.5
        b = torch.randn(c) * 0.1
        ref = torch.relu(F.conv2d(x.double(), w.double(), b.double(), 1, 1))
        variants = {"direct": compiled(Direct(w, b), x)}
        for m in args.tiles:
            variants["F(%d,3)" % m] = compiled(Wino(w, b, m), x)
        for name, fn in variants.items():
            with torch.no_grad():
                err = (fn(x).double() - ref).abs().max().item() / ref.abs().max().item()
            print("%dx%d %-7s max error / max |y| = %.2e" % (c, s, name, err))
        alternate(variants, x, args, "%dx%d (x%d)" % (c, s, count))
    print("load: %s" % open("/proc/loadavg").read().strip())


if __name__ == "__main__":
    main()
