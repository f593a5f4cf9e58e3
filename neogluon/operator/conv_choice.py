"""Which torch kernel runs a 2-d convolution that records its backward (a training step).

torch's CPU ``conv2d`` runs oneDNN's convolution for float32. Its forward and, above all,
its backward carry a fixed cost per call (primitive setup, layout reorders) that dwarfs the
arithmetic of small convolutions, and its backward is slow for some larger shapes too: on
one thread, forward + backward of the tutorial LeNet's convolutions at batch 1 took 175
and 238 µs with oneDNN and 48 and 85 µs with torch's own im2col + GEMM kernel
(``aten.thnn_conv2d``); ResNet-18's 512-channel 3x3 convolutions at 7x7 took 22 ms with
oneDNN and 14 ms with the GEMM kernel, while its 56x56 layers are faster with oneDNN.
No rule of sizes orders them on every CPU, so each (shapes, stride, pad) is timed once, as
``cudnn.benchmark`` does on a GPU: the first recorded call of a shape runs forward and
backward of both kernels :data:`TRIALS` times alternately on copies of its inputs (the
process's CPU time, best of each; no random numbers drawn, no result kept) and the faster
serves that shape from then on. Both compute the same convolution; their results differ
by float rounding only.

A small call that records no backward (a prediction; at most :data:`PREDICT_MACS`
multiply-adds) is chosen the same way by its forward alone, under a key of its own:
oneDNN's fixed cost per call makes it the slower kernel for small shapes there too (the
tutorial LeNet at batch 1, one thread: 41 and 38 µs against 10 and 13 µs for the GEMM kernel;
at batch 16, 100 against 76 µs for the first convolution, while the second, 2.5 M
multiply-adds, is faster with oneDNN, 69 against 128 µs). Larger predictions keep oneDNN:
chosen by CPU time at two threads, the serial GEMM kernel won some of ResNet-18's
convolutions and the plain graph's prediction took 19.3 ms against 18.3 ms with oneDNN's
everywhere (2026-11-28, idle).

Only a plain convolution takes part (2-d, one group, no dilation, channel-first, float32 or
float64 on the CPU); a call traced by ``torch.compile`` (inductor chooses its own kernels)
and everything else run ``conv2d``. ``NEOGLUON_CONV_CHOICE=0`` turns the choice off (oneDNN,
as torch chooses).
"""
import os
import time

import torch
import torch.nn.functional as F

from .registry import CACHE_SIZE

__all__ = ["PREDICT_MACS", "TRIALS", "choices", "conv2d", "gemm", "macs"]

TRIALS = 3
PREDICT_MACS = 1 << 21  # the largest prediction (multiply-adds) whose kernel is chosen (docstring)
_ON = os.environ.get("NEOGLUON_CONV_CHOICE", "1") != "0"
_clock = time.process_time  # CPU time: other processes on a shared machine do not disturb it
_CHOSEN = {}  # (shapes, dtype, bias, stride, pad[, "predict"]) -> the kernel serving that convolution (CACHE_SIZE keys)


def gemm(data, weight, bias, stride, pad):
    """torch's im2col + GEMM convolution (its autograd backward is the same kernel's)."""
    return torch.ops.aten.thnn_conv2d(data, weight, weight.shape[2:], bias, stride, pad)


def _onednn(data, weight, bias, stride, pad):
    return F.conv2d(data, weight, bias, stride, pad)


def choices():
    """``{key: kernel name}`` of the shapes chosen so far (for tests and reports)."""
    return {k: f.__name__.strip("_") for k, f in _CHOSEN.items()}


def macs(data, weight):
    """A 2-d convolution's multiply-adds at stride 1 (one per input position, weight element
    and image): the size both its kernel choices go by."""
    n, _, h, w = data.shape
    return n * h * w * weight.numel()


def _plain(data, weight):
    return (_ON and data.device.type == "cpu" and data.dim() == 4 and data.dtype in (torch.float32, torch.float64)
            and weight.dtype == data.dtype and not torch.compiler.is_compiling())


def _records(data, weight, bias):
    return torch.is_grad_enabled() and (data.requires_grad or weight.requires_grad
                                        or bias is not None and bias.requires_grad)


def conv2d(data, weight, bias=None, stride=(1, 1), pad=(0, 0), dilate=(1, 1), groups=1):
    """``F.conv2d``'s call: a plain convolution (one group, no dilation) runs the kernel chosen
    for its shapes, by forward and backward when it records its backward, else by the
    forward; any other call ``F.conv2d``."""
    if groups != 1 or tuple(dilate) != (1, 1) or not _plain(data, weight):
        return F.conv2d(data, weight, bias, stride, pad, dilate, groups)
    stride, pad = tuple(stride), tuple(pad)
    key = (data.shape, weight.shape, data.dtype, bias is None, stride, pad)
    if not _records(data, weight, bias):
        if macs(data, weight) > PREDICT_MACS * stride[0] * stride[1]:
            return F.conv2d(data, weight, bias, stride, pad)
        key += ("predict",)
    fn = _CHOSEN.get(key)
    if fn is None:
        if len(_CHOSEN) >= CACHE_SIZE:  # as every dispatch cache, it stops growing: no more timing
            return F.conv2d(data, weight, bias, stride, pad)
        fn = _CHOSEN[key] = _choose(data, weight, bias, stride, pad)
    return fn(data, weight, bias, stride, pad)


def _choose(data, weight, bias, stride, pad):
    """The faster of oneDNN's and the GEMM kernel on copies of the inputs: forward +
    backward for a recording call, the forward for a prediction (oneDNN when the GEMM kernel
    fails: it is the one torch would run)."""
    inputs = [t.detach().clone().requires_grad_(t.requires_grad) if t is not None else None
              for t in (data, weight, bias)]
    leaves = [t for t in inputs if t is not None and t.requires_grad]

    def trial(fn):
        out = fn(inputs[0], inputs[1], inputs[2], stride, pad)
        if leaves and torch.is_grad_enabled():
            torch.autograd.grad(out, leaves, torch.ones_like(out))

    best = {_onednn: float("inf"), gemm: float("inf")}
    try:
        for fn in best:  # warm up: oneDNN's primitive cache, the allocator
            trial(fn)
        for _ in range(TRIALS):
            for fn in best:
                start = _clock()
                trial(fn)
                best[fn] = min(best[fn], _clock() - start)
    except RuntimeError:
        return _onednn
    return gemm if best[gemm] < best[_onednn] else _onednn
