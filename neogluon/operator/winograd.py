"""Winograd convolution F(m x m, 3 x 3) for 3x3 stride-1 2-d convolutions, in torch operations.

Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks" (2015): an output tile
of m x m from an input tile of a x a (a = m + 2) is ``A^T [(G g G^T) * (B^T d B)] A``, so
the convolution's multiplications become a*a independent matrix products (tiles x C by C x K)
of the transformed data and the transformed weight: F(2x2,3x3) does 16/36 = 1/2.25 of the
direct convolution's multiply-adds, F(4x4,3x3) 36/144 = 1/4. The transforms are sums of
slices with constant coefficients (pointwise work that inductor fuses into one loop each);
the products are one ``bmm``. With frozen weights the weight transform ``G g G^T`` is folded
into a constant.

**Where it runs.** Only in a *frozen* compiled prediction graph (the AOTInductor package of
executor/inductor.py: the weights are constants, so their transform costs nothing per call),
for a plain 3x3 stride-1 convolution (one group, no dilation, float32, CPU) whose output is
at least :data:`MIN_OUTPUT` square, and only where it measured faster: whether the direct
convolution (oneDNN's, prepacked by inductor) or F(2x2,3x3) or F(4x4,3x3) serves a shape is
decided once per (shapes, padding, bias) and intra-op thread count, as ``cudnn.benchmark``
and conv_choice.py do: each is compiled alone with frozen random weights and timed
alternately at the thread count in use (:data:`TRIALS` rounds, the best call of each: by the
process's CPU time on one thread, by the wall clock on more, where CPU time would also count
OpenMP's waiting), a Winograd variant is eligible only if its output on the trial data is within
:data:`ACCURACY` (largest error over the largest magnitude, against a float64 convolution)
and it is kept only if it beats the direct convolution by :data:`MARGIN`. The choices are
recorded in a JSON file (the compiled backend keeps it beside inductor's cache, keyed by
torch's version, the CPU and the thread count), so later processes reuse them without timing
(and find the same cached package: the choices are part of its key). On the 2-core test
machine (one thread, CPU time, per layer with its ReLU): 128 channels at 28x28 1.29-1.51x
faster with F(4x4,3x3), 256 at 14x14 1.12-1.14x with F(2x2,3x3), 64 at 56x56 1.00-1.08x with
F(4x4,3x3), 512 at 7x7 0.57-0.82x (benchmarks/bench_winograd.py); whole ResNet-18 b1 with the
choices, one thread, 1.06-1.09x (28.6 -> 26.5 ms). On two threads a session measured a loss
(the whole network 0.96x, 17.0 -> 17.7 ms; per layer 128 channels at 28x28 0.66x with
F(4x4,3x3); load 3): the transforms compile into many small parallel loops that split
poorly over two threads, where oneDNN's direct convolution scales by 1.8-1.9x (its per-layer
times at batch 1, two threads against one, 2026-11-28). Choices used to be timed on one
thread whatever the count of the call, so a two-thread process got the one-thread winners;
now each thread count is timed for itself and a variant that loses at two threads is not
chosen there (benchmarks/bench_winograd.py --resnet18, 2026-11-28, load 5 from other jobs:
at one thread F(4x4,3x3) was chosen at 56x56 and 28x28 and F(2x2,3x3) at 14x14, the
network 1.10x, 28.4 -> 25.9 ms; at two threads all three shapes timed direct, 1.01x). It
stays off unless asked for: ``NEOGLUON_WINOGRAD=1`` turns it on (worth it where prediction
runs on one thread: ``OMP_NUM_THREADS=1``, or a machine whose other work leaves one core);
unset or ``0``, every convolution is direct and nothing is timed.
"""
import contextlib
import os
import time

import torch
import torch.nn.functional as F

from ..fileio import read_record, write_record

__all__ = ["ACCURACY", "MARGIN", "MIN_OUTPUT", "TRIALS", "active", "choices", "collect", "conv2d", "enabled",
           "prepare", "tile", "transform_weight", "TRANSFORMS"]

TRIALS = 5
ACCURACY = 2e-5  # largest error / largest |output| against float64 (F(4x4,3x3) measured 3e-6 to 1.2e-5)
MARGIN = 1.05  # a Winograd variant must be this much faster than the direct convolution
MIN_OUTPUT = 8  # smaller outputs are not tried (512 channels at 7x7: 0.57-0.82x)
_clock = time.process_time  # one thread's trials: CPU time, other processes on a shared machine do not disturb it
_wall = time.perf_counter  # trials on more threads (CPU time would count OpenMP's waiting too)
_CHOSEN = {}  # (thread count, key (see _key)) -> tile size m (0: the direct convolution)
_STATE = {"collect": None, "active": None}  # the keys being collected; the choices serving a trace

# (B^T, G, A^T) for each output tile size m (Lavin & Gray's choice of interpolation points)
TRANSFORMS = {
    2: ([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]]),
    4: ([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0], [0, -2, -1, 2, 1, 0],
         [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]],
        [[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6], [1 / 24, 1 / 12, 1 / 6],
         [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]]),
}


def _combine(matrix, parts):
    """``[sum_j matrix[i][j] * parts[j] for i]``: zero coefficients skipped, +-1 not multiplied."""
    out = []
    for row in matrix:
        acc = None
        for coef, part in zip(row, parts):
            if coef == 0:
                continue
            if acc is None:
                acc = part if coef == 1 else (-part if coef == -1 else part * coef)
            elif coef == 1:
                acc = acc + part
            elif coef == -1:
                acc = acc - part
            else:
                acc = acc + part * coef
        out.append(acc)
    return out


def transform_weight(weight, m):
    """``G g G^T`` of each (K, C) 3x3 kernel, as (a*a, C, K): the right operand of the products."""
    _, g, _ = TRANSFORMS[m]
    rows = _combine(g, [weight[:, :, i, :] for i in range(3)])  # a x (K, C, 3)
    tiles = [v for r in rows for v in _combine(g, [r[:, :, j] for j in range(3)])]  # a*a x (K, C)
    return torch.stack(tiles).transpose(1, 2)


def conv2d(data, weight, bias=None, pad=(1, 1), m=2):
    """``F.conv2d(data, weight, bias, 1, pad)`` for a 3x3 ``weight`` (K, C, 3, 3), by F(m x m, 3x3)."""
    bt, _, at = TRANSFORMS[m]
    a = m + 2
    n, c, h, w = data.shape
    k = weight.shape[0]
    oh, ow = h + 2 * pad[0] - 2, w + 2 * pad[1] - 2
    th, tw = -(-oh // m), -(-ow // m)
    # pad so that th x tw tiles of a x a (step m) fit: the tiles past the output are cropped
    data = F.pad(data, (pad[1], tw * m + 2 - w - pad[1], pad[0], th * m + 2 - h - pad[0]))
    tiles = data.unfold(2, a, m).unfold(3, a, m)  # N, C, th, tw, a, a
    rows = torch.stack(_combine(bt, [tiles[..., i, :] for i in range(a)]))  # a, N, C, th, tw, a
    v = torch.stack([t for i in range(a) for t in _combine(bt, [rows[i, ..., j] for j in range(a)])])  # a*a, N, C, th, tw
    v = v.permute(0, 1, 3, 4, 2).reshape(a * a, n * th * tw, c)
    prod = torch.bmm(v, transform_weight(weight, m)).view(a, a, n, th, tw, k)
    rows = torch.stack(_combine(at, [prod[i] for i in range(a)]))  # m, a, N, th, tw, K
    out = torch.stack([torch.stack(_combine(at, [rows[i, j] for j in range(a)])) for i in range(m)])  # m, m, N, th, tw, K
    # channels-last (K innermost, as the products and oneDNN's convolutions around it have it)
    out = out.permute(2, 3, 0, 4, 1, 5).reshape(n, th * m, tw * m, k)[:, :oh, :ow].permute(0, 3, 1, 2)
    return out if bias is None else out + bias.view(1, k, 1, 1)


# ---------------------------------------------------------------------- the per-shape choice
def enabled():
    """Whether Winograd convolutions may be chosen: ``NEOGLUON_WINOGRAD=1`` in the environment."""
    return os.environ.get("NEOGLUON_WINOGRAD", "0") == "1"


def _key(data, weight, bias, stride, pad, dilate, groups):
    """The choice's key of a convolution call, or None when Winograd cannot serve it."""
    if (weight.dim() != 4 or tuple(weight.shape[2:]) != (3, 3) or tuple(stride) != (1, 1) or groups != 1
            or tuple(dilate) != (1, 1) or data.dtype != torch.float32 or weight.dtype != torch.float32
            or data.device.type != "cpu" or data.dim() != 4):
        return None
    n, c, h, w = data.shape
    pad = tuple(pad)
    if min(h + 2 * pad[0], w + 2 * pad[1]) - 2 < MIN_OUTPUT:
        return None
    return "%dx%dx%dx%d k%d p%d,%d %s" % (n, c, h, w, weight.shape[0], pad[0], pad[1],
                                         "bias" if bias is not None else "nobias")


def tile(data, weight, bias, stride, pad, dilate=(1, 1), groups=1):
    """The tile size m of F(m x m, 3x3) chosen for this call while a frozen graph is traced
    (inside :func:`active`), else 0 (the direct convolution)."""
    chosen = _STATE["active"]
    if not chosen:
        return 0
    return chosen.get(_key(data, weight, bias, stride, pad, dilate, groups), 0)


def collect(data, weight, bias, stride, pad, dilate=(1, 1), groups=1):
    """Inside :func:`prepare`'s eager run: note the call's key."""
    keys = _STATE["collect"]
    if keys is not None:
        key = _key(data, weight, bias, stride, pad, dilate, groups)
        if key is not None:
            keys[key] = (data.shape, weight.shape, bias is not None, tuple(pad))


@contextlib.contextmanager
def active(chosen):
    """Trace a frozen graph with ``chosen`` ({key: m}) serving its convolutions."""
    saved, _STATE["active"] = _STATE["active"], chosen
    try:
        yield
    finally:
        _STATE["active"] = saved


def choices():
    """``{key: m}`` of the shapes chosen so far in this process for the current thread count (0: direct)."""
    threads = torch.get_num_threads()
    return {k: m for (t, k), m in _CHOSEN.items() if t == threads}


def prepare(run, record=None):
    """Run ``run()`` (the graph, eagerly, without gradients) noting its eligible convolutions,
    choose a kernel for each shape not chosen yet at the current intra-op thread count (from
    the JSON file ``record`` when it has the shape, else by timing, then recorded there) and
    return ``{key: m}`` of the graph's Winograd convolutions (empty when none pays or
    :func:`enabled` is false)."""
    if not enabled():
        return {}
    keys = {}
    saved, _STATE["collect"] = _STATE["collect"], keys
    try:
        with torch.no_grad():
            run()
    finally:
        _STATE["collect"] = saved
    threads = torch.get_num_threads()
    missing = [k for k in keys if (threads, k) not in _CHOSEN]
    if missing:
        stored = read_record(record)
        prefix = _record_prefix(threads)
        for key in missing:
            if prefix + key in stored:
                _CHOSEN[threads, key] = int(stored[prefix + key])
            else:
                _CHOSEN[threads, key] = stored[prefix + key] = _choose(*keys[key])
        write_record(record, stored)
    return {k: _CHOSEN[threads, k] for k in keys if _CHOSEN[threads, k]}


def _record_prefix(threads):
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features", "model name")):
                    flags += line.strip()
    except OSError:
        pass
    import hashlib  # pylint: disable=import-outside-toplevel
    return "%s %s t%d|" % (torch.__version__, hashlib.sha256(flags.encode()).hexdigest()[:16], threads)


def _compiled(data, weight, bias, pad, m):
    """The convolution (m = 0: direct) with frozen ``weight``/``bias``, compiled by inductor
    as a frozen prediction graph compiles it; a function of its own code object (dynamo's
    cache is per code object: trials must not use up one another's recompile limit)."""
    from torch._inductor import config  # pylint: disable=import-outside-toplevel

    class Trial(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(weight, requires_grad=False)
            self.b = None if bias is None else torch.nn.Parameter(bias, requires_grad=False)

    module = Trial()
    scope = {"_m": module, "_pad": tuple(pad), "conv2d": conv2d, "F": F}
    body = "F.conv2d(x, _m.w, _m.b, 1, _pad)" if m == 0 else "conv2d(x, _m.w, _m.b, _pad, %d)" % m
    exec(compile("def trial(x):\n    return %s\n" % body, "<winograd trial m=%d>" % m, "exec"),  # pylint: disable=exec-used
         scope)
    fn = torch.compile(scope["trial"], dynamic=False)
    with config.patch(freezing=True), torch.no_grad():
        out = fn(data)
        fn(data)  # warm: oneDNN's primitive, the allocator
    return (fn, module), out


def _choose(data_shape, weight_shape, has_bias, pad):
    """Time the direct convolution against F(2x2,3x3) and F(4x4,3x3) on random data (see the
    module's docstring); the tile size of the fastest accurate one, 0 for the direct one."""
    gen = torch.Generator().manual_seed(0)
    data = torch.randn(data_shape, generator=gen).contiguous(memory_format=torch.channels_last)
    weight = torch.randn(weight_shape, generator=gen) * (2.0 / (9 * weight_shape[1])) ** 0.5
    bias = torch.randn(weight_shape[0], generator=gen) if has_bias else None
    ref = F.conv2d(data.double(), weight.double(), None if bias is None else bias.double(), 1, pad)
    scale = ref.abs().max().item() or 1.0
    fns = {}
    try:
        for m in (0, 2, 4):
            fn, out = _compiled(data, weight, bias, pad, m)
            if m == 0 or (out.double() - ref).abs().max().item() / scale <= ACCURACY:
                fns[m] = fn
    except Exception:  # pylint: disable=broad-except
        return 0  # inductor could not compile it: the direct convolution, as without this module
    best = {m: float("inf") for m in fns}
    clock = _clock if torch.get_num_threads() == 1 else _wall  # at the count of the calls it serves
    with torch.no_grad():
        for _ in range(TRIALS):
            for m, (fn, _) in fns.items():
                start = clock()
                fn(data)
                best[m] = min(best[m], clock() - start)
    m = min(best, key=best.get)
    return m if m and best[m] * MARGIN < best[0] else 0
