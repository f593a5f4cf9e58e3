"""The kernels of the tutorial LeNet's training step at batch 16, and the alternatives tried
for them (issue 17: the b16 training step is about as fast as MXNet's, 1.5x is the target).

    python benchmarks/bench_lenet_kernels.py [--threads 1] [--rounds 15] [--calls 20] [--batch 16]
        [--clock thread|wall] [--only pool conv inductor step pool_step]

``pool``: 2x2 max pooling of the two pooling inputs, forward and forward + backward: torch's
``max_pool2d`` (what the Pooling operator runs when a gradient is recorded), the same on
channels-last data, the elementwise maximum of the four strided views that Pooling runs
without a gradient (values only), ``MaxPool2x2`` (those maxima on the window planes copied
out once, and a backward that finds each window's first maximum by float comparisons of the
saved planes and hands the indices to torch's ``max_pool2d_with_indices_backward``: outputs
and gradients equal to the kernel's, checked) and oneDNN's pooling (MXNet's kernel, through
torch's mkldnn tensors). ``pool_step``: the whole training step with the recorded poolings on
torch's kernel or on ``MaxPool2x2``, switched between rounds.

``conv``: the two convolutions, forward and forward + backward (weight, bias and, for the
second, data gradients), with the kernels neogluon's per-shape choice times
(operator/conv_choice.py): oneDNN (``F.conv2d``), torch's per-image im2col + GEMM
(``thnn_conv2d``), and one batched im2col of the whole batch with one batched GEMM, its
weight gradient a batched GEMM on the kept patches and its data gradient oneDNN's; and the
weight + bias gradients alone: thnn's (image by image, on one thread) against one matrix
product over the whole batch (patches gathered straight into ``(C*k*k, N*L)``).

``inductor``: a compiled training function of one ReLU on the first pooling's input (what
the compiled LeNet graph fuses around its pooling), forward + backward, against the same
eager, compiled as inductor compiles (``g++ ... -fno-tree-loop-vectorize``) and without that
flag, each in a fresh process with its own inductor cache. Inductor's vectorized kernel stores
the ReLU mask through ``at::vec::VecMask::store(bool*)``, whose conversion loop relies on
gcc's loop vectorizer; with the flag it runs as scalar code.

Each variant is timed alternately with the others of its group: per round ``--calls`` calls,
by default the calling thread's CPU time (``time.thread_time``: the work of other threads, at
``--threads 2``, is not counted, so compare at one thread, or use ``--clock wall``); the
steps by the wall clock; the table gives the median over rounds and the interquartile range,
in microseconds per call.

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

Measured 2026-12-07 08:56-08:59 UTC (load average 1.3-2.7, other engineers' jobs), helper
"pool16"; none of it landed. One thread, thread CPU time, 11 rounds of 20: pool1 max_pool2d
forward 222, forward + backward 262, channels-last 216, MaxPool2x2 forward 52, forward +
backward 201, oneDNN 253; pool2: 65 / 90 / 49 / 24 / 107 / 148. On the pooling inputs of a
real step (captured, half zeros) torch's kernel is cheaper than on ``randn().relu()``: pool1
forward + backward 257 against MaxPool2x2's 212, pool2 74 against 108 -- the backward's ~10
small operators (comparisons, index arithmetic, torch's scatter into a zeroed gradient) and
the Function's Python cost eat what the forward saves, and at two threads torch's kernel is
parallel where the elementwise operators (below their grain size) are not (wall clock,
quiet moment: pool1 forward + backward 139-144 against 178; pool2 52 against 94-118).
``pool_step``, 11 rounds of 20 steps: one thread 1822 [1762-1862] against 1851 [1822-1882]
us; two threads 1724 [1484-1748] against 1749 [1628-1812]; an A/B inside one process with
glibc's trim and mmap thresholds raised (no page faults on either side) gave ratios torch /
MaxPool2x2 per round of 0.991 [0.979-1.008] (one thread) and 0.989 [0.960-1.002] (two).
Variants of the backward measured first and slower: the first-maximum mask from the bool
``eq`` of the input against the output (``eq`` into bool and every comparison or ``where``
on strided views costs 3-15x a contiguous float comparison: ``gt`` 13824 floats into bool 8.3
us, into float 2.1), the mask as a byte trick (``w & -w`` on the four window bytes as an
int32: 5 us, but the permuted ``eq`` around it 380 us), and no Function at all: the same
indices under ``no_grad`` and the output as ``gather`` of the input (autograd's backward a
scatter into zeros): pool1 forward + backward 192 us against torch's 266 at one thread, 204
against 144 at two; pool2 94 / 86 and 92 / 55 (wall clock, 08:59 UTC) -- the scatter costs
more than the Function's Python. Inside the step (Pooling's calls timed in place, 200 steps,
the adaptive count at one thread under load) torch's forward takes 264 us for pool1 and 88
for pool2, a fifth of the step: the target, but not with torch's elementwise operators, whose
~15 calls a pooling cost 3-8 us each at these sizes. Nor through channels-last (the input
converted, torch's channels-last kernel, the output made contiguous again): pool1 forward +
backward 255 against 265 us at one thread, 161 against 137 at two; pool2 76 / 89, 78 / 43
(09:00 UTC, load 1.2). Convolutions at two threads (wall
clock): thnn's weight + bias gradients 104 (conv1) and 146 (conv2) us against one matrix
product 75 and 122; at one thread 100 / 167 against 96 / 231 -- and in the ``step`` table at
two threads (20 rounds of 10 steps, twice, load 2.4-2.5) thnn + thnn stayed the fastest
assignment (1792 and 1841 us; batched im2col + thnn 1820 and 1859, oneDNN + oneDNN 1874 and
1905): batched im2col's conv1 gain in isolation (132 against 201 us, wall, two threads) does
not show in the step. Page faults: an A/B of the step alternating two variants in one process
made glibc give memory back and take it again (159-305 faults a step, 2.29 against 1.75 ms at
one thread with MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ raised); bench_train_step's
and bench_workloads' steady single-variant loops settle at 0 faults a step, so it is not this
benchmark's cost (raising only the trim threshold makes it worse: 545 faults, 2.42 ms).

The compiled training graph (helper "lenetcompiled", 2026-12-07 09:07-09:41 UTC, load average
0.8-3.5 from other engineers' jobs). Before: bench_train_step's compiled step 2.53 ms [2.48-2.55]
against the plain graph's 1.93 [1.90-1.95] (one thread, wall clock, 5 rounds of 10). Where it
went (torch.profiler with ``cpp.enable_kernel_profile``, 50 steps, one thread): inductor's
kernel for the first ReLU + its bool mask + pooling with int8 indices 591 us a step, the
second's 136, the two pooling backwards (zero fill, scatter-add by index, the bool mask's
select) 270 and 61; the convolutions (oneDNN in the compiled graph) about as in the plain
graph. Two causes, each checked on the generated C++ compiled standalone with inductor's
flags: (1) the small-pooling option ``cpp.simdlen=1`` gives scalar loops in which gcc turns
the data-dependent selects (``std::max`` of the ReLU, the ternaries of the window's index)
into jumps (``vcomiss; ja`` per element, objdump), mispredicted on about half the ReLU
outputs: a where-chain first-maximum pooling written for it took 405-433 us for the first
pooling, with or without ``-fno-tree-loop-vectorize``; (2) with vector code, the ReLU's bool
mask is stored through ``at::vec::VecMask<float,1>::store(bool*)``: 575 us for the 55296
elements (6 us without the mask store, 42 us when gcc may vectorize), and NCHW pooling reads
each window's elements two apart, which inductor's vector code gathers lane by lane (208 us).
Variants of the whole step, alternating in one process (7 rounds of 20 steps, one thread,
medians, ratio to the plain graph per round): the existing kernel 1.31x [1.29-1.34]; the
Pooling operator traced as a where-chain first maximum (torch's rule: the first maximum or
the last NaN, values and indices exact) 1.48x; torch's own pooling kernel kept opaque
(a ``torch.library`` custom op) 1.38x; the same with vector code 1.62x and 1.72x; with gcc's
loop vectorizer allowed (``-fno-tree-loop-vectorize`` dropped by patching inductor) 1.29x at
best. Also tried in raw torch (one thread, 9 rounds of 30, 09:17 UTC): each convolution
followed by 2x2 pooling as ONE stride-2 convolution of the four shifted inputs stacked along
the batch, so that the pooling is elementwise over four contiguous planes: the stride-2
convolutions on 4x the batch cost more than the pooling saves (eager 1.59x, compiled
1.47-1.83x of eager torch's step). What paid: ReLU's backward as the gradient times
``sign`` of the saved float output (operator/nn.py ``relu_with``; no bool mask anywhere):
2.50 -> 1.91 ms (scalar loops), 1.79 (vector code), and with layout optimization
(channels-last: the window's elements are contiguous along the channels; the first pooling's
kernel 208 -> 54 us) 1.66 ms [1.61-1.69] against the plain graph's 1.78 [1.71-1.79]:
0.94x [0.90-0.97] (09:23 UTC). Landed: that ReLU and ``_SMALL_POOLING`` = serial vector
kernels with layout optimization (executor/inductor.py), and donated buffers off for the
direct call (else inductor's backward overwrote the now float saved ReLU output, which
``backward(retain_graph=True)`` then read again). bench_train_step after, one thread, 7
rounds of 10 (09:38 UTC, load 2.9-3.2): compiled 1.72 ms [1.70-1.74], calibrated (static)
1.75, plain 1.94. bench_workloads (``--variants hybridized static --no-fresh --rounds 5
--threads 0``, 09:40 UTC, load 2.5-2.9), LeNet b16 training step against MXNet 1.9.1: 1.35x
[1.30-1.45] and 1.36x [1.32-1.42] (1.61 and 1.74 ms) in two runs, the tree before in between
1.21x [1.04-1.24] (1.90 ms); LeNet b1's step unchanged (1.84x and 1.83x against 1.85x).
At two fixed threads (``--threads 2``) beside two busy processes every variant of both trees
swung between 1.6 and 16 ms a step: no figure. At load 1.0 (09:50 UTC) the gain is the one
thread's: bench_train_step, 7 rounds of 10, compiled 1.79 ms [1.73-1.85] against plain 2.01
[1.94-2.07] at one thread, but 1.74 [1.67-1.92] against 1.59 [1.56-1.63] at two (the compiled
graph's kernels are serial, torch's pooling and ReLU in the plain graph use both threads; the
inductor kernels generated parallel instead, ``_SERIAL`` dropped, were no better: 1.00-1.05x
of the plain graph against 0.90-0.93x serial); bench_workloads with the adaptive count, 5
rounds: 1.18x [1.12-1.23] of MXNet (1.89 ms), the tree before 1.15x [1.13-1.19] right after.
So 1.5x is still missing: the step is torch's convolution kernels (forward and backward,
about 0.85 ms of the 1.7 at one thread), the aten pooling work now gone from it, and the
framework's fixed costs.
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


class MaxPool2x2(torch.autograd.Function):
    """Recorded 2x2/stride-2 max pooling without torch's kernel (tried for issue 17, not
    landed). Forward: the four window planes copied out once and their elementwise maxima.
    Backward: each window's first maximum in row-major order (MXNet 1.9.1's rule, asked of
    it: equal maxima send the gradient to the top-left one, the NaN-free case torch's kernel
    shares) as flat plane indices, built with float comparisons of the saved planes
    (``torch.gt`` into a bool tensor or on strided views costs 3-15x more), then torch's
    ``max_pool2d_with_indices_backward``. Inputs with NaN would need torch's own indices."""

    @staticmethod
    def forward(ctx, x):  # pylint: disable=arguments-differ
        n, c, h, w = x.shape
        planes = x.view(n, c, h // 2, 2, w // 2, 2).permute(3, 5, 0, 1, 2, 4).contiguous()
        top_left, top_right, bottom_left, bottom_right = planes.view(4, n, c, h // 2, w // 2).unbind(0)
        top, bottom = torch.maximum(top_left, top_right), torch.maximum(bottom_left, bottom_right)
        ctx.save_for_backward(x, planes, top, bottom)
        return torch.maximum(top, bottom)

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        x, planes, top, bottom = ctx.saved_tensors
        n, c, h, w = x.shape
        top_left, top_right, bottom_left, bottom_right = planes.view(4, n, c, h // 2, w // 2).unbind(0)
        lower = torch.gt(bottom, top, out=torch.empty_like(top))
        right = torch.gt(top_right, top_left, out=torch.empty_like(top))
        shift = torch.gt(bottom_right, bottom_left, out=torch.empty_like(top))
        shift -= right
        shift += w
        right += (torch.arange(h // 2).view(-1, 1) * (2 * w) + torch.arange(w // 2) * 2).to(top.dtype)
        index = torch.addcmul(right, lower, shift).long()
        return torch.ops.aten.max_pool2d_with_indices_backward(g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, index)


def onednn_max_pool(x):
    """oneDNN's max pooling (MXNet's kernel), through torch's mkldnn tensors."""
    return torch.ops.aten.mkldnn_max_pool2d(x.to_mkldnn(), [2, 2], [2, 2]).to_dense()


def bench_pool(args):
    for name, (c, size) in POOLS.items():
        x = torch.randn(args.batch, c, size, size).relu().requires_grad_()
        g = torch.randn(args.batch, c, size // 2, size // 2)
        xl = x.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
        assert torch.equal(view_maximum(x.detach()), F.max_pool2d(x, 2, 2))
        want = torch.autograd.grad(F.max_pool2d(x, 2, 2), x, g)[0]
        for fn in (MaxPool2x2.apply, onednn_max_pool):
            assert torch.equal(fn(x), F.max_pool2d(x, 2, 2)) and torch.equal(torch.autograd.grad(fn(x), x, g)[0], want)
        report("%s %s, 2x2 max pooling" % (name, tuple(x.shape)), timed({
            "max_pool2d forward": lambda: F.max_pool2d(x, 2, 2),
            "max_pool2d forward + backward": lambda: torch.autograd.grad(F.max_pool2d(x, 2, 2), x, g),
            "channels-last forward + backward": lambda: torch.autograd.grad(F.max_pool2d(xl, 2, 2), xl, g),
            "view maxima forward (no gradient)": lambda: view_maximum(x.detach()),
            "MaxPool2x2 forward": lambda: MaxPool2x2.apply(x),
            "MaxPool2x2 forward + backward": lambda: torch.autograd.grad(MaxPool2x2.apply(x), x, g),
            "oneDNN forward + backward": lambda: torch.autograd.grad(onednn_max_pool(x), x, g),
        }, args.rounds, args.calls, args.clock))


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
        gw = torch.ops.aten.convolution_backward(g, x, w, [o], (1, 1), (0, 0), (1, 1), False, (0, 0), 1,
                                                 (False, True, True))
        assert torch.allclose(one_mm_weight_grad(x, g, 5), gw[1], rtol=1e-4, atol=1e-3)
        variants["thnn weight + bias gradients"] = lambda: torch.ops.aten._slow_conv2d_backward(
            g, x, w, (5, 5), (1, 1), (0, 0), (False, True, True))
        variants["one-mm weight + bias gradients"] = lambda: (one_mm_weight_grad(x, g, 5), g.sum((0, 2, 3)))
        report("%s %s -> %d channels, 5x5" % (name, tuple(x.shape), o),
               timed(variants, args.rounds, args.calls, args.clock))


def one_mm_weight_grad(x, g, k):
    """Stride 1, no pad: the weight gradient of the whole batch as one matrix product, its
    patches gathered straight into (C*k*k, N*L) (thnn's accumulates image by image on one
    thread)."""
    n, c, h, w = x.shape
    o, oh, ow = g.shape[1], h - k + 1, w - k + 1
    cols = x.as_strided((c, k, k, n, oh, ow), (h * w, w, 1, c * h * w, w, 1)).reshape(c * k * k, n * oh * ow)
    return torch.mm(g.transpose(0, 1).reshape(o, n * oh * ow), cols.t()).view(o, c, k, k)


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
    keys = sorted((k for k in conv_choice._CHOSEN if k[-1] != "predict"),  # pylint: disable=protected-access
                  key=lambda k: k[1][1])  # the training step's two (not the first call's prediction kernels)
    assert len(keys) == 2 and all(k[4:] == ((1, 1), (0, 0)) for k in keys)  # BatchedIm2col: stride 1, no pad
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


def bench_pool_step(args):
    """The plain LeNet training step with Pooling's recorded 2x2 max pooling on torch's
    kernel or on ``MaxPool2x2``, switched between rounds (operator/conv.py's ``F`` replaced
    by a copy whose ``max_pool2d`` routes recorded 2x2 calls to the Function)."""
    import types  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_train_step  # pylint: disable=import-outside-toplevel
    from neogluon.operator import conv  # pylint: disable=import-outside-toplevel
    forward, backward, update = bench_train_step.phases("lenet_b%d" % args.batch, "hybridized")
    plain = conv.F
    routed = types.SimpleNamespace(**vars(F))

    def max_pool2d(x, kernel, stride=None, *rest, **kw):
        if (tuple(kernel) == (2, 2) and stride is not None and tuple(stride) == (2, 2) and not rest and not kw
                and x.requires_grad and torch.is_grad_enabled()):
            return MaxPool2x2.apply(x)
        return F.max_pool2d(x, kernel, stride, *rest, **kw)
    routed.max_pool2d = max_pool2d

    def step(module):
        def run():
            conv.F = module
            backward(forward())
            update()
        return run
    try:
        report("lenet_b%d training step, recorded 2x2 max pooling, wall clock" % args.batch,
               timed({"torch's max_pool2d": step(plain), "MaxPool2x2": step(routed)}, args.rounds, args.calls,
                     time.perf_counter))
    finally:
        conv.F = plain


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
    parser.add_argument("--clock", choices=("thread", "wall"), default="thread",
                        help="pool and conv: the calling thread's CPU time or the wall clock (use it at 2 threads)")
    parser.add_argument("--only", nargs="*", default=["pool", "conv", "inductor", "step", "pool_step"])
    parser.add_argument("--worker", choices=("inductor", "vectorizer"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.clock = {"thread": time.thread_time, "wall": time.perf_counter}[args.clock]
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
        {"pool": bench_pool, "conv": bench_conv, "inductor": bench_inductor, "step": bench_step,
         "pool_step": bench_pool_step}[part](args)
    return None


if __name__ == "__main__":
    main()
