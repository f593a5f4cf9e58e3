"""CUDA graphs behind ``hybridize(static_alloc=True, static_shape=True)`` on a GPU (issue 17).

MXNet's static flags promise fixed memory and fixed shapes; on CUDA that is exactly what a
CUDA graph needs: the kernels a call launches are captured once and replayed with one
launch, removing the per-kernel CPU launch cost that dominates small graphs.
:class:`CudaGraphed` wraps a hybridized graph's function (``fn(tensors, is_train)``, the
plain straight-line graph or the compiled backend's) with the same interface:

- **When.** Only when every input tensor is on one CUDA device; anything else (CPU,
  mixed devices) calls the wrapped function as is. ``NEOGLUON_CUDA_GRAPH=0`` turns it off.
- **Key.** A capture serves one mode (``is_train``, whether autograd records) and one set of
  input shapes, dtypes and devices; the Parameters are captured at their addresses, so a
  Parameter whose tensor is replaced (``set_data``, a new context) is captured again. A new
  key is captured, up to :data:`MAX_GRAPHS` per block (then the wrapped function runs).
- **Prediction and training without autograd:** the data inputs are copied into static
  buffers, the graph is replayed and its outputs cloned (the next replay overwrites the
  static ones). In-place updates of auxiliary states (BatchNorm's running statistics in
  train mode) are part of the captured kernels, on the Parameters' own tensors.
- **Recorded calls** (``autograd.record()``): ``torch.cuda.make_graphed_callables`` captures
  the forward and the backward graphs; gradients flow to the Parameters' leaf tensors as
  without the graph (so ``grad_req`` 'write'/'add' behave the same); the outputs are cloned.
- **Capture** follows torch's recipe: a few warm-up calls on a side stream (which also runs
  lazy initialisations, cuBLAS workspaces, a compiled backend's compilation), then the
  capture. If capturing fails (an operator that synchronises with the host, such as one
  whose output shape depends on values), a warning is given once and the wrapped function
  runs for that key from then on.

This module was written and tested without a GPU: its bookkeeping (keys, buffers, copies,
fallbacks) is tested with fake graph objects (tests/test_cuda_graph.py); the capture itself
has never run on CUDA hardware.
"""
import os
import warnings

import torch

__all__ = ["CudaGraphed", "wanted", "MAX_GRAPHS", "WARMUP"]

MAX_GRAPHS = 8
WARMUP = 3


def wanted(flags):
    """Whether hybridize's options ask for CUDA graphs (both static flags), torch has CUDA,
    and they are not turned off (``NEOGLUON_CUDA_GRAPH=0``)."""
    if os.environ.get("NEOGLUON_CUDA_GRAPH", "1") == "0" or not torch.cuda.is_available():
        return False
    return bool(flags.get("static_alloc") and flags.get("static_shape"))


class _TorchCuda:
    """The CUDA calls :class:`CudaGraphed` makes, in one place (tests substitute fakes)."""

    @staticmethod
    def usable(device):
        return device.type == "cuda"

    @staticmethod
    def rng_state():
        return torch.cuda.get_rng_state()

    @staticmethod
    def set_rng_state(state):
        torch.cuda.set_rng_state(state)

    @staticmethod
    def graph():
        return torch.cuda.CUDAGraph()

    @staticmethod
    def capture(graph):
        return torch.cuda.graph(graph)

    @staticmethod
    def side_stream():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        return stream

    @staticmethod
    def on_stream(stream):
        return torch.cuda.stream(stream)

    @staticmethod
    def join(stream):
        torch.cuda.current_stream().wait_stream(stream)

    @staticmethod
    def make_graphed(fn, sample_args):
        return torch.cuda.make_graphed_callables(fn, sample_args, num_warmup_iters=WARMUP)


class _Restored:
    """Undo the warm-up calls' side effects: the Parameters' values (BatchNorm's running
    statistics move in train mode) and the CUDA random state (Dropout), so the first call's
    results are those of one call."""

    def __init__(self, cuda, tensors, param_index):
        self.cuda = cuda
        with torch.no_grad():
            self.saved = [(tensors[k], tensors[k].detach().clone()) for k in param_index]
        self.rng = cuda.rng_state()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        with torch.no_grad():
            for t, v in self.saved:
                t.copy_(v)
        self.cuda.set_rng_state(self.rng)
        return False


class _Replay:
    """One captured graph without autograd: static inputs in, cloned outputs out."""

    def __init__(self, cuda, fn, tensors, is_train, data_index, param_index):
        self.data_index = data_index
        self.static = list(tensors)
        for k in data_index:  # the data get buffers of their own; the Parameters are used in place
            self.static[k] = tensors[k].clone()
        with _Restored(cuda, tensors, param_index):
            stream = cuda.side_stream()
            with cuda.on_stream(stream):
                for _ in range(WARMUP):
                    fn(self.static, is_train)
            cuda.join(stream)
        self.graph = cuda.graph()
        with cuda.capture(self.graph):
            self.outs = list(fn(self.static, is_train))

    def __call__(self, tensors):
        for k in self.data_index:
            self.static[k].copy_(tensors[k])
        self.graph.replay()
        return [o.clone() for o in self.outs]


class _Graphed:
    """One recorded mode: forward and backward captured by ``make_graphed_callables``."""

    def __init__(self, cuda, fn, tensors, is_train, param_index):
        def call(*ts):
            return tuple(fn(list(ts), is_train))
        # the sample arguments carry the requires_grad of the real inputs (Parameters are leaves)
        samples = tuple(t if t.requires_grad else t.detach().clone() for t in tensors)
        with _Restored(cuda, tensors, param_index):  # its warm-up runs forward and backward
            self.graphed = cuda.make_graphed(call, samples)

    def __call__(self, tensors):
        return [o.clone() for o in self.graphed(*tensors)]


class CudaGraphed:
    """``fn(tensors, is_train)`` replayed from CUDA graphs when its inputs are on a GPU.

    ``is_param`` marks, in the graph's input order, the inputs that are Parameters (kept in
    place and keyed by address); the others are data (copied into static buffers). Every
    attribute not defined here is the wrapped function's."""

    def __init__(self, fn, is_param, cuda=_TorchCuda):
        self.fn = fn
        self.is_param = list(is_param)
        self.data_index = [k for k, p in enumerate(self.is_param) if not p]
        self.param_index = [k for k, p in enumerate(self.is_param) if p]
        self.cuda = cuda
        self.graphs = {}  # key -> _Replay | _Graphed | None (capturing failed: the wrapped function)
        self.captures = 0
        self._warned = False

    def __getattr__(self, name):
        return getattr(self.__dict__["fn"], name)

    def _key(self, tensors, is_train):
        device = tensors[0].device if tensors else None
        if device is None or not self.cuda.usable(device) or any(t.device != device for t in tensors):
            return None
        recording = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
        return ((is_train, recording, device),
                tuple((t.shape, t.dtype) for t in tensors),
                tuple(tensors[k].data_ptr() for k in self.param_index),
                tuple(tensors[k].requires_grad for k in self.data_index))

    def __call__(self, tensors, is_train=False):
        key = self._key(tensors, is_train)
        if key is None:
            return self.fn(tensors, is_train)
        runner = self.graphs.get(key, False)
        if runner is False:
            runner = self._capture(key, tensors, is_train)
        if runner is None:
            return self.fn(tensors, is_train)
        return runner(tensors)

    def _capture(self, key, tensors, is_train):
        if len(self.graphs) >= MAX_GRAPHS:
            return None  # not stored: a block fed ever new shapes runs the wrapped function
        recording = key[0][1]
        try:
            if recording:
                runner = _Graphed(self.cuda, self.fn, tensors, is_train, self.param_index)
            else:
                runner = _Replay(self.cuda, self.fn, tensors, is_train, self.data_index, self.param_index)
        except Exception as e:  # pylint: disable=broad-except
            if not self._warned:
                self._warned = True
                warnings.warn("static_alloc/static_shape: the graph could not be captured as a CUDA graph (%s: %s); "
                              "it runs without one" % (type(e).__name__, e))
            runner = None
        self.graphs[key] = runner
        self.captures += runner is not None
        return runner
