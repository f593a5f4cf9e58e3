"""Devices: MXNet's ``Context`` (``mx.cpu()``, ``mx.gpu(i)``) mapped onto ``torch.device``."""
import threading

import torch

from .base import MXNetError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info"]


class Context:
    """A device. Usable as a ``with`` block that makes it the default for new arrays."""

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    _default = threading.local()
    # True once a cpu(k), k > 0, was made: torch has one CPU, so such a context lives only in
    # the arrays' ``_ctx`` and in Blocks' ``with ctx`` (gluon/block.py); until then Blocks skip it
    several_cpus = False

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        elif isinstance(device_type, torch.device):
            device_type, device_id = ("gpu" if device_type.type == "cuda" else "cpu"), (device_type.index or 0)
        if isinstance(device_type, int):
            device_type = self.devtype2str[device_type]
        if device_type not in self.devstr2type:
            raise MXNetError("unknown device type %r; expected one of %s" % (device_type, sorted(self.devstr2type)))
        self.device_type = device_type
        self.device_id = int(device_id)
        # a CPU context other than the first (cpu(1), ...), which torch's one CPU cannot tell apart
        self.numbered_cpu = bool(self.device_id) and device_type != "gpu"
        if self.numbered_cpu:
            Context.several_cpus = True
        self._torch_device = (torch.device("cuda", self.device_id) if device_type == "gpu"
                              else torch.device("cpu"))

    @property
    def torch_device(self):
        """The ``torch.device`` arrays of this context live on. A GPU the machine does not
        have is an MXNetError on first use (creating the Context itself works, as in MXNet)."""
        dev = self._torch_device
        if dev.type == "cuda" and self.device_id >= num_gpus():
            raise MXNetError("%s is not available: this machine has %d GPU(s) that torch can use "
                             "(torch.cuda.is_available() is %s)" % (self, num_gpus(), torch.cuda.is_available()))
        return dev

    @property
    def device_typeid(self):
        return self.devstr2type[self.device_type]

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __str__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    __repr__ = __str__

    def __enter__(self):
        old = current_context()
        stack = getattr(Context._default, "stack", None)
        if stack is None:
            stack = Context._default.stack = []
        stack.append(old)  # per thread: one Context may be entered by several threads at once
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = Context._default.stack.pop()

    def empty_cache(self):
        if self.device_type == "gpu" and torch.cuda.is_available():
            torch.cuda.empty_cache()


def cpu(device_id=0):
    """The CPU context (``device_id`` is kept for MXNet compatibility and ignored)."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """The GPU context ``device_id``; arrays made on it live on ``cuda:device_id``."""
    return Context("gpu", device_id)


def current_context():
    """The default context of this thread (``cpu(0)`` unless a ``with ctx:`` block is open)."""
    ctx = getattr(Context._default, "value", None)
    if ctx is None:
        ctx = Context._default.value = Context("cpu", 0)
    return ctx


def num_gpus():
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def gpu_memory_info(device_id=0):
    """(free, total) bytes of a GPU, as ``mx.context.gpu_memory_info``."""
    if device_id >= num_gpus():
        raise MXNetError("gpu(%d) is not available: %d GPUs found" % (device_id, num_gpus()))
    return torch.cuda.mem_get_info(device_id)


def as_context(ctx):
    """Accept a Context, a device string ('cpu', 'gpu(1)', 'cuda:0'), a torch.device or None."""
    if ctx is None:
        return current_context()
    if isinstance(ctx, Context):
        return ctx
    if isinstance(ctx, str):
        s = ctx.strip()
        if "(" in s and s.endswith(")"):
            kind, idx = s[:-1].split("(", 1)
            return Context(kind, int(idx))
        return Context(torch.device(s))
    if isinstance(ctx, torch.device):
        return Context(ctx)
    raise MXNetError("expected a Context such as mx.cpu() or mx.gpu(0), got %r" % (ctx,))
