"""Where a training step's time goes: forward, backward and ``Trainer.step`` of one network,
timed separately, several variants alternating in one process.

    python benchmarks/bench_train_step.py [--workload resnet18_b1] [--variants hybridized static torch]
        [--rounds 5] [--calls 10] [--clock cpu|wall] [--threads 1]

The step is issue 17's (benchmarks/bench_workloads.py): forward under ``autograd.record()``,
``mean(out**2)``, backward, ``Trainer('sgd', lr=0.01).step(batch)``; torch: ``zero_grad``,
forward, loss, backward, ``SGD.step()``. Variants: ``hybridized`` (the plain graph), ``static``
(the compiled backend, calibrated against the plain graph as usual), ``compiled`` (the compiled
backend kept without calibration), ``torch``, ``torch.compile``. Each round runs ``calls``
steps of every variant in a rotating order; reported per variant and phase: the median over
rounds of the per-round median (ms) and the minor page faults per step. ``--clock cpu``
(the default) times by the process's CPU time, which a loaded machine disturbs least.
"""
import argparse
import os
import resource
import statistics
import sys
import time

# compile in the timed call, as the figures count it (by default the first compilation of a graph
# runs in a child process while the plain graph serves: executor/warm.py)
os.environ.setdefault("NEOGLUON_COMPILE_BACKGROUND", "0")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_workloads as bw  # noqa: E402  (imports neither torch nor neogluon)

PHASES = ("forward", "backward", "update", "step")


def _faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def phases(workload, variant):
    """``(forward, backward, update)``: three functions, each running one phase of a step
    (``backward`` takes what ``forward`` returned)."""
    import numpy as np
    arrays = bw.inputs(workload)
    batch = bw.WORKLOADS[workload]
    if variant in ("torch", "torch.compile"):
        import torch
        torch.manual_seed(0)
        net = bw.torch_net(workload)
        net.train()
        run = torch.compile(net) if variant == "torch.compile" else net
        xs = [torch.from_numpy(a) for a in arrays]
        opt = torch.optim.SGD(net.parameters(), lr=bw.LR / batch)

        def forward():
            opt.zero_grad()
            out = run(*xs)
            return (out * out).mean()
        return forward, lambda loss: loss.backward(), opt.step
    import neogluon as mx
    mx.random.seed(0)
    net = bw.gluon_net(mx, workload)
    net.initialize(mx.init.Xavier())
    xs = [mx.nd.array(np.asarray(a)) for a in arrays]
    if variant in ("static", "compiled"):
        net.hybridize(static_alloc=True, static_shape=True)
    elif variant == "hybridized":
        net.hybridize()
    net(*xs)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": bw.LR})

    def forward():
        with mx.autograd.record():
            out = net(*xs)
            return (out * out).mean()

    def update():
        trainer.step(batch)
        mx.nd.waitall()
    return forward, lambda loss: loss.backward(), update


def one_step(fns, clock):
    """{phase: (seconds, minor faults)} of one step."""
    forward, backward, update = fns
    out = {}
    t0, f0 = clock(), _faults()
    loss = forward()
    t1, f1 = clock(), _faults()
    backward(loss)
    t2, f2 = clock(), _faults()
    update()
    t3, f3 = clock(), _faults()
    for name, (a, b, fa, fb) in zip(PHASES, ((t0, t1, f0, f1), (t1, t2, f1, f2), (t2, t3, f2, f3),
                                            (t0, t3, f0, f3))):
        out[name] = (b - a, fb - fa)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", default="resnet18_b1", choices=list(bw.WORKLOADS))
    parser.add_argument("--variants", nargs="+", default=["hybridized", "static", "torch"],
                        choices=["hybridized", "static", "compiled", "torch", "torch.compile"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=6)
    parser.add_argument("--clock", choices=("cpu", "thread", "wall"), default="cpu",
                        help="the process's CPU time; the calling thread's CPU time (with several torch threads, "
                             "about the wall time the step would take with the cores free: the serial work plus the "
                             "calling thread's share of the parallel work); or the wall clock")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: leave them)")
    args = parser.parse_args(argv)
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    clock = {"cpu": time.process_time, "thread": time.thread_time, "wall": time.perf_counter}[args.clock]
    if any(v not in ("torch", "torch.compile") for v in args.variants):
        import neogluon  # noqa: F401  (before torch: OMP_WAIT_POLICY, neogluon/threads.py)
    made = {}
    for v in args.variants:
        if v == "compiled":
            os.environ["NEOGLUON_COMPILE_CALIBRATE"] = "0"  # read when the graph compiles (its first step)
        made[v] = phases(args.workload, v)
        for _ in range(args.warmup):
            one_step(made[v], clock)
        os.environ.pop("NEOGLUON_COMPILE_CALIBRATE", None)
    import torch
    per_round = {v: {p: [] for p in PHASES} for v in made}
    faults = {v: {p: [] for p in PHASES} for v in made}
    order = list(made)
    for r in range(args.rounds):
        for v in order[r % len(order):] + order[:r % len(order)]:
            steps = [one_step(made[v], clock) for _ in range(args.calls)]
            for p in PHASES:
                per_round[v][p].append(statistics.median(s[p][0] for s in steps))
                faults[v][p].extend(s[p][1] for s in steps)
    print("# %s, %s clock, torch threads %d, %d rounds x %d steps, load average %s" % (
        args.workload, args.clock, torch.get_num_threads(), args.rounds, args.calls,
        " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"))
    print("%-14s" % "variant" + "".join("%26s" % p for p in PHASES) + "   faults/step")
    for v in made:
        cells = []
        for p in PHASES:
            vals = per_round[v][p]
            cells.append("%8.3f [%5.3f-%5.3f]" % (1e3 * statistics.median(vals), 1e3 * min(vals), 1e3 * max(vals)))
        print("%-14s" % v + "".join("%26s" % c for c in cells) + "   %d" % statistics.median(faults[v]["step"]))


if __name__ == "__main__":
    main()
