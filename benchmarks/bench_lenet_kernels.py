"""The kernels of the tutorial LeNet's training step at batch 16, and the alternatives tried
for them (issue 17: the b16 training step is about as fast as MXNet's, 1.5x is the target).

    python benchmarks/bench_lenet_kernels.py [--threads 1] [--rounds 15] [--calls 20] [--batch 16]
        [--only pool conv inductor step]

``pool``: 2x2 max pooling of the two pooling inputs, forward and forward + backward: torch's
``max_pool2d`` (what the Pooling operator runs when a gradient is recorded), the same on
channels-last data, and the elementwise maximum of the four strided views that Pooling runs
without a gradient (values only: its gradient would need the index of each window's first
maximum, and computing that with torch's elementwise operators costs more than the kernel).

``conv``: the two convolutions, forward and forward + backward (weight, bias and, for the
second, data gradients), with the kernels neogluon's per-shape choice times
(operator/conv_choice.py): oneDNN (``F.conv2d``), torch's per-image im2col + GEMM
(``thnn_conv2d``), and one batched im2col of the whole batch with one batched GEMM, its
weight gradient a batched GEMM on the kept patches and its data gradient oneDNN's.

``inductor``: a compiled training function of one ReLU on the first pooling's input (what
the compiled LeNet graph fuses around its pooling), forward + backward, against the same
eager, compiled as inductor compiles (``g++ ... -fno-tree-loop-vectorize``) and without that
flag, each in a fresh process with its own inductor cache. Inductor's vectorized kernel stores
the ReLU mask through ``at::vec::VecMask::store(bool*)``, whose conversion loop relies on
gcc's loop vectorizer; with the flag it runs as scalar code.

Each variant is timed alternately with the others of its group: per round ``--calls`` calls,
the calling thread's CPU time (``time.thread_time``: the work of other threads, at
``--threads 2``, is not counted, so compare at one thread); the table gives the median over
rounds and the interquartile range, in microseconds per call.

Measured 2026-11-28 18:52 UTC, one thread, load average 2.3-2.5 (other engineers' jobs):
pool1 max_pool2d forward 239, forward + backward 311, channels-last 262, view maxima forward
55; pool2 69 / 102 / 67 / 28. conv1 forward + backward: oneDNN 445, thnn 388, batched im2col
338; conv2: 598, 699, 790. Compiled ReLU: eager 99, compiled 1036 with inductor's flags and
437 without -fno-tree-loop-vectorize. ``step`` (the plain graph's training step of
benchmarks/bench_train_step.py with each of the nine assignments of these three kernels to
the two convolutions, switched between rounds in one process; wall clock), 18:54 UTC, load
1.6-2.1, 10 rounds of 10 steps: medians 2381 (thnn + thnn, what the choice usually picks) to
2615 us, interquartile ranges about 150 us wide: no assignment clearly faster. Torch's 2x2
max_pool2d spends about 17 ns per output, more than half of it in mispredicted branches (each
comparison of the window branches on data that is about half ReLU zeros: pool1's forward
takes 101 us on all-zero or increasing data); inductor's pooling loops (scalar: it does not
vectorize the stride-2 loads) have the same branches, and its kernels for ReLU's backward
store and load ``bool`` masks through ``at::vec::VecMask``, whose conversions are slow (the
load about 3 ns per element with or without the flag, compiled standalone): why the compiled
training graph of this LeNet is slower than the plain one at batch 16.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

POOLS = {"pool1": (6, 24), "pool2": (16, 8)}  # channels, input size
CONVS = {"conv1": (1, 28, 6), "conv2": (6, 12, 16)}  # in channels, input size, out channels (5x5)


def timed(variants, rounds, calls, clock=time.thread_time):
    """``{name: (median, q1, q3)}`` of the per-call time (us), variants alternating."""
    for fn in variants.values():
        for _ in range(3):
            fn()
    times = {name: [] for name in variants}
    for r in range(rounds):
        order = list(variants.items())
        for name, fn in (order if r % 2 == 0 else order[::-1]):
            start = clock()
            for _ in range(calls):
                fn()
            times[name].append((clock() - start) / calls * 1e6)
    return {name: (statistics.median(t),) + tuple(statistics.quantiles(t, n=4)[::2]) for name, t in times.items()}


def report(title, results):
    print(title)
    for name, (med, q1, q3) in results.items():
        print("  %-34s %8.1f us  [%.1f-%.1f]" % (name, med, q1, q3))


def view_maximum(x):
    """2x2 max pooling as the elementwise maximum of the four strided views (values only)."""
    n, c, h, w = x.shape
    t = x.view(n, c, h // 2, 2, w // 2, 2)
    out = torch.maximum(t[:, :, :, 0, :, 0], t[:, :, :, 0, :, 1])
    torch.maximum(out, t[:, :, :, 1, :, 0], out=out)
    return torch.maximum(out, t[:, :, :, 1, :, 1], out=out)


def bench_pool(args):
    for name, (c, size) in POOLS.items():
        x = torch.randn(args.batch, c, size, size).relu().requires_grad_()
        g = torch.randn(args.batch, c, size // 2, size // 2)
        xl = x.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
        assert torch.equal(view_maximum(x.detach()), F.max_pool2d(x, 2, 2))
        report("%s %s, 2x2 max pooling" % (name, tuple(x.shape)), timed({
            "max_pool2d forward": lambda: F.max_pool2d(x, 2, 2),
            "max_pool2d forward + backward": lambda: torch.autograd.grad(F.max_pool2d(x, 2, 2), x, g),
            "channels-last forward + backward": lambda: torch.autograd.grad(F.max_pool2d(xl, 2, 2), xl, g),
            "view maxima forward (no gradient)": lambda: view_maximum(x.detach()),
        }, args.rounds, args.calls))


class BatchedIm2col(torch.autograd.Function):
    """Stride 1, no pad: patches (N, C*k*k, L) of the whole batch, one batched GEMM."""

    @staticmethod
    def forward(ctx, x, w, b):  # pylint: disable=arguments-differ
        n, c, h, wd = x.shape
        o, _, k, _ = w.shape
        oh, ow = h - k + 1, wd - k + 1
        cols = x.as_strided((n, c, k, k, oh, ow), (c * h * wd, h * wd, wd, 1, wd, 1)).reshape(n, c * k * k, oh * ow)
        y = torch.bmm(w.reshape(1, o, -1).expand(n, -1, -1), cols) + b.view(1, o, 1)
        ctx.save_for_backward(x, w, cols)
        return y.view(n, o, oh, ow)

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        x, w, cols = ctx.saved_tensors
        gx = None
        if ctx.needs_input_grad[0]:
            gx = torch.ops.aten.convolution_backward(g, x, w, None, (1, 1), (0, 0), (1, 1), False, (0, 0), 1,
                                                     (True, False, False))[0]
        gw = torch.bmm(g.reshape(g.shape[0], g.shape[1], -1), cols.transpose(1, 2)).sum(0).view(w.shape)
        return gx, gw, g.sum((0, 2, 3))


def bench_conv(args):
    kernels = {
        "oneDNN": lambda x, w, b: F.conv2d(x, w, b),
        "thnn (per-image im2col + GEMM)": lambda x, w, b: torch.ops.aten.thnn_conv2d(x, w, (5, 5), b, (1, 1), (0, 0)),
        "batched im2col + GEMM": BatchedIm2col.apply,
    }
    for name, (c, size, o) in CONVS.items():
        x = torch.randn(args.batch, c, size, size, requires_grad=name != "conv1")  # conv1's input is the data
        w, b = torch.randn(o, c, 5, 5, requires_grad=True), torch.randn(o, requires_grad=True)
        leaves = [t for t in (x, w, b) if t.requires_grad]
        g = torch.randn(args.batch, o, size - 4, size - 4)
        want = torch.autograd.grad(F.conv2d(x.double(), w.double(), b.double()), leaves, g.double())
        variants = {}
        for kname, fn in kernels.items():
            got = torch.autograd.grad(fn(x, w, b), leaves, g)
            err = max(float((a - e).abs().max() / e.abs().max()) for a, e in zip(got, want))
            assert err < 1e-4, (name, kname, err)
            variants[kname + " forward"] = lambda fn=fn: fn(x, w, b)
            variants[kname + " forward + backward"] = lambda fn=fn: torch.autograd.grad(fn(x, w, b), leaves, g)
        report("%s %s -> %d channels, 5x5" % (name, tuple(x.shape), o), timed(variants, args.rounds, args.calls))


def bench_step(args):
    """The plain LeNet training step with each assignment of the three kernels to its two
    convolutions (neogluon's per-shape choice overridden between rounds)."""
    import itertools  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_train_step  # pylint: disable=import-outside-toplevel
    from neogluon.operator import conv_choice  # pylint: disable=import-outside-toplevel
    forward, backward, update = bench_train_step.phases("lenet_b%d" % args.batch, "hybridized")

    def step():
        backward(forward())
        update()
    step()
    keys = sorted(conv_choice._CHOSEN, key=lambda k: k[1][1])  # pylint: disable=protected-access
    assert all(k[4:] == ((1, 1), (0, 0)) for k in keys)  # BatchedIm2col: stride 1, no pad
    kernels = {"oneDNN": conv_choice._onednn, "thnn": conv_choice.gemm,  # pylint: disable=protected-access
               "batched im2col": lambda x, w, b, stride, pad: BatchedIm2col.apply(x, w, b)}

    def assigned(names):
        def run():
            for key, name in zip(keys, names):
                conv_choice._CHOSEN[key] = kernels[name]  # pylint: disable=protected-access
            step()
        return run
    variants = {" + ".join(names): assigned(names) for names in itertools.product(kernels, repeat=len(keys))}
    report("lenet_b%d training step (conv1 + conv2 kernels), wall clock" % args.batch,
           timed(variants, args.rounds, args.calls, time.perf_counter))


def _relu_worker(args):
    """In a fresh process: the compiled ReLU training function, inductor's flags or without
    ``-fno-tree-loop-vectorize``; prints {"eager": ..., "compiled": ...} (medians, us)."""
    if args.worker == "vectorizer":
        from torch._inductor import cpp_builder  # pylint: disable=import-outside-toplevel
        flags = cpp_builder._get_optimization_cflags  # pylint: disable=protected-access

        def without_flag(*a, **k):
            cflags, ldflags = flags(*a, **k)
            return [f for f in cflags if f != "fno-tree-loop-vectorize"], ldflags
        cpp_builder._get_optimization_cflags = without_flag  # pylint: disable=protected-access
    c, size = POOLS["pool1"]
    x = torch.randn(args.batch, c, size, size, requires_grad=True)
    g = torch.randn_like(x)

    def fn(t):
        return torch.relu(t) * 2

    compiled = torch.compile(fn, dynamic=False, options={"cpp.threads": 1, "cpp.dynamic_threads": False})
    assert torch.equal(torch.autograd.grad(compiled(x), x, g)[0], torch.autograd.grad(fn(x), x, g)[0])
    res = timed({"eager": lambda: torch.autograd.grad(fn(x), x, g),
                 "compiled": lambda: torch.autograd.grad(compiled(x), x, g)}, args.rounds, args.calls)
    print(json.dumps({k: v[0] for k, v in res.items()}))


def bench_inductor(args):
    results = {}
    for flags in ("inductor", "vectorizer"):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, OMP_NUM_THREADS=str(args.threads))
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", flags, "--threads",
                                  str(args.threads), "--rounds", str(args.rounds), "--calls", str(args.calls),
                                  "--batch", str(args.batch)], env=env, capture_output=True, text=True, check=True)
            results[flags] = json.loads(out.stdout.strip().splitlines()[-1])
    c, size = POOLS["pool1"]
    print("compiled ReLU training function on (%d, %d, %d, %d), forward + backward" % (args.batch, c, size, size))
    for flags, label in (("inductor", "inductor's g++ flags"), ("vectorizer", "without -fno-tree-loop-vectorize")):
        print("  %-34s eager %7.1f us, compiled %7.1f us" % (label, results[flags]["eager"],
                                                             results[flags]["compiled"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--only", nargs="*", default=["pool", "conv", "inductor", "step"])
    parser.add_argument("--worker", choices=("inductor", "vectorizer"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.worker:
        return _relu_worker(args)
    try:
        load = " ".join("%.2f" % v for v in os.getloadavg())
    except OSError:
        load = "?"
    print("# LeNet batch %d kernels, torch %s, %d thread(s), load average %s" % (args.batch, torch.__version__,
                                                                              args.threads, load))
    for part in args.only:
        {"pool": bench_pool, "conv": bench_conv, "inductor": bench_inductor, "step": bench_step}[part](args)
    return None


if __name__ == "__main__":
    main()
