"""MXNet's ``mx.util``: GPU queries, environment variables and small decorators.

The GPU functions ask torch (``torch.cuda``); the environment functions read and write the
process environment (MXNet's go through its C runtime, which reads the same one).
The NumPy-mode switches (``set_np``, ``is_np_array``, ``use_np``, ``np_shape``, ...) are
those of :mod:`neogluon.np_mode`, which ``mx.np``/``mx.npx`` read, re-exported here as
MXNet's ``mx.util`` has them.
"""
import os

import torch

from .base import c_str, py_str  # noqa: F401  (MXNet's util re-exports them)
from .np_mode import (set_np, reset_np, is_np_array, is_np_shape, set_np_shape, np_shape,  # noqa: F401
                      np_array, use_np, use_np_array, use_np_shape)

__all__ = ["get_gpu_count", "get_gpu_memory", "get_cuda_compute_capability", "set_module", "getenv",
           "setenv", "set_np", "reset_np", "is_np_array", "is_np_shape", "set_np_shape", "np_shape", "np_array",
           "use_np", "use_np_array", "use_np_shape"]


def get_gpu_count():
    """The number of GPUs torch can use."""
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of GPU ``gpu_dev_id``."""
    if gpu_dev_id >= get_gpu_count():
        from .base import MXNetError
        raise MXNetError("get_gpu_memory: no GPU %d (this machine has %d)" % (gpu_dev_id, get_gpu_count()))
    free, total = torch.cuda.mem_get_info(gpu_dev_id)
    return free, total


def get_cuda_compute_capability(ctx):
    """The compute capability of a GPU context as an int (70 for sm_70)."""
    if ctx.device_type != "gpu":
        raise ValueError("Expecting a gpu context to get cuda compute capability, while received ctx {}"
                         .format(str(ctx)))
    major, minor = torch.cuda.get_device_capability(ctx.device_id)
    return major * 10 + minor


def set_module(module):
    """Decorator setting ``__module__`` of a function or class."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


def getenv(name):
    """The value of an environment variable, or None."""
    return os.environ.get(name)


def setenv(name, value):
    """Set (or, with None, unset) an environment variable."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
