"""Stacked RNN layers in prediction as a wavefront over threads (the fused ``RNN`` operator).

A multi-layer RNN's time steps are sequential within a layer, but layer ``l + 1`` can run
step ``t`` while layer ``l`` runs step ``t + 1``: cuDNN's persistent kernels overlap layers
this way on a GPU. On the CPU torch's fused kernel (oneDNN's LSTM) runs the layers one after
the other and parallelises each time step's small matrix products over the intra-op threads,
which gains little at these sizes: the benchmark LSTM LM (2 layers x 256, T=35, batch 32)
runs each layer in about the same time on two threads as on one, because every step's
parallel region is too short to share.

So in prediction, on the CPU, with ``n >= 2`` intra-op threads and at least two layers, the
layers are split into ``min(layers, n)`` consecutive groups (*stages*), the sequence into
chunks of a few steps, and every stage runs on its own thread with one intra-op thread:
stage ``s`` takes chunk ``k`` from stage ``s - 1`` (or the input), runs its layers over it
with torch's fused kernel from the states it carries, and hands the result on. The
arithmetic is the fused kernel's, chunk by chunk (the input products of a chunk are one
matrix product instead of a slice of one; the values agree to float rounding, and in
practice bit for bit). Threads of stage 1 and on are kept (one per stage, daemon threads,
made again in a forked child); the calling thread runs stage 0. Each thread uses one
intra-op thread while it runs, and the caller's number is restored after.

Not used (torch's fused kernel runs as before): when recording gradients or training
(the backward needs torch's whole-sequence kernel), bidirectional layers, sequence
lengths, fewer than :data:`MIN_STEPS` steps, layers of fewer than :data:`MIN_MACS`
multiply-adds, one intra-op thread (neogluon's thread policy drops to one when another
process keeps a core busy, neogluon/threads.py), or ``NEOGLUON_RNN_PIPELINE=0``.
"""
import os
import queue
import threading

import torch

__all__ = ["stages", "run", "MIN_MACS", "MIN_STEPS"]

MIN_STEPS = 4
# a layer's multiply-adds over the whole sequence below which the per-chunk overhead (a
# kernel call and a hand-over, ~20-40 us a chunk) outweighs running on a second core
MIN_MACS = 1 << 22
STEPS_PER_CHUNK = 8  # at most; a sequence is cut into at least 4 chunks per stage


def enabled(environ=os.environ):
    return environ.get("NEOGLUON_RNN_PIPELINE", "1").strip() not in ("0", "false", "False", "off")


def stages(data, num_layers, layer_macs, bidirectional, recorded, threads=None):
    """How many stages to run (1: torch's fused kernel as is): ``layer_macs`` is the first
    layer's multiply-adds over the sequence, ``recorded`` whether gradients are recorded or
    the graph is in training mode."""
    if (num_layers < 2 or bidirectional or recorded or data.device.type != "cpu" or data.dim() != 3
            or data.shape[0] < MIN_STEPS or layer_macs < MIN_MACS or not enabled()):
        return 1
    threads = torch.get_num_threads() if threads is None else threads
    return max(1, min(num_layers, threads))


def _chunks(steps, n_stages):
    per = max(1, min(STEPS_PER_CHUNK, -(-steps // (4 * n_stages))))
    return [(t, min(steps, t + per)) for t in range(0, steps, per)]


class _Worker:
    """A daemon thread running submitted functions one at a time, with one intra-op thread."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="neogluon-rnn-stage", daemon=True)
        self.thread.start()

    def _loop(self):
        torch.set_num_threads(1)  # this thread's OpenMP/MKL setting only
        while True:
            job = self.jobs.get()
            job()


_WORKERS = {"pid": None, "threads": []}
_LOCK = threading.Lock()


def _workers(n):
    with _LOCK:
        if _WORKERS["pid"] != os.getpid():  # a forked child has none of its parent's threads
            _WORKERS["pid"], _WORKERS["threads"] = os.getpid(), []
        while len(_WORKERS["threads"]) < n:
            _WORKERS["threads"].append(_Worker())
        return _WORKERS["threads"][:n]


_STOP = object()


def run(layer, data, states, num_layers, n_stages):
    """Run ``num_layers`` layers over ``data`` (T, N, C) as ``n_stages`` pipelined stages.

    ``layer(l, x, state) -> (y, state)`` runs layer ``l`` over a chunk of steps from its state
    (a tuple of tensors, as ``states[l]`` gives them); returns the last layer's output (T, N, .)
    and the final state of every layer (a list)."""
    bounds = [round(s * num_layers / n_stages) for s in range(n_stages + 1)]
    groups = [range(bounds[s], bounds[s + 1]) for s in range(n_stages)]
    chunks = _chunks(data.shape[0], n_stages)
    finals = list(states)
    outs = [None] * len(chunks)
    links = [queue.SimpleQueue() for _ in range(n_stages)]  # links[s]: into stage s (s >= 1); links[0]: done
    errors = []

    def stage(s):
        def body():
            try:
                for k, (t0, t1) in enumerate(chunks):
                    x = data[t0:t1] if s == 0 else links[s].get()
                    if x is _STOP:
                        break
                    for l in groups[s]:
                        x, finals[l] = layer(l, x, finals[l])
                    if s + 1 < n_stages:
                        links[s + 1].put(x)
                    else:
                        outs[k] = x
            except BaseException as e:  # pylint: disable=broad-except
                errors.append(e)
                if s + 1 < n_stages:
                    links[s + 1].put(_STOP)
            if s > 0:
                links[0].put(s)
        return body

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for s, worker in enumerate(_workers(n_stages - 1), start=1):
            worker.jobs.put(stage(s))
        stage(0)()
        for _ in range(n_stages - 1):
            links[0].get()
    finally:
        torch.set_num_threads(threads)
    if errors:
        raise errors[0]
    return torch.cat(outs), finals
