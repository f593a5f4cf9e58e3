"""MXNet's ``mx.util``: GPU queries, environment variables and small decorators.

The GPU functions ask torch (``torch.cuda``); the environment functions read and write the
process environment (MXNet's go through its C runtime, which reads the same one).
The NumPy-mode switches (``set_np``, ``is_np_array``, ``use_np``, ``np_shape``, ...) are
those of :mod:`neogluon.np_mode`, which ``mx.np``/``mx.npx`` read, re-exported here as
MXNet's ``mx.util`` has them.
"""
import functools
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


# ---------------------------------------------------------------------- NumPy ufunc keywords
_np_ufunc_default_kwargs = {"where": True, "casting": "same_kind", "order": "K", "dtype": None, "subok": True}
_LEGAL_DTYPES = ("int8", "uint8", "int32", "int64", "float16", "float32", "float64")


def np_ufunc_legal_option(key, value):
    """Whether ``key=value`` is a legal NumPy ufunc keyword (MXNet's ``where``, ``casting``,
    ``order``, ``dtype``, ``subok`` checks)."""
    import numpy
    if key == "where":
        return True
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        return value in _LEGAL_DTYPES or value in tuple(getattr(numpy, d) for d in _LEGAL_DTYPES)
    if key == "subok":
        return isinstance(value, bool)
    return False


def check_np_ufunc_kwargs(name, kwargs, unary):
    """MXNet's errors for the NumPy ufunc keywords of ``mx.np.<name>``: a keyword ufuncs do
    not take is a TypeError; one at its default value passes; a legal other value is not
    implemented (NotImplementedError); an illegal one is a TypeError."""
    for key, value in kwargs.items():
        if key not in _np_ufunc_default_kwargs:
            raise TypeError("{} is an invalid keyword to function '{}'".format(key, name))
        if value != _np_ufunc_default_kwargs[key]:
            if np_ufunc_legal_option(key, value):
                raise NotImplementedError("{}={} is not implemented yet{}".format(
                    key, str(value), " for operator " + name if unary else ""))
            raise TypeError("{}={} not understood for operator {}".format(key, value, name) if unary
                            else "{} {} not understood".format(key, value))


def wrap_np_unary_func(func):
    """Decorate a NumPy-style unary function ``func(x, out=None)`` so that it takes the
    ufunc keywords with MXNet's errors (see :func:`check_np_ufunc_kwargs`)."""
    @functools.wraps(func)
    def _wrap_np_unary_func(x, out=None, **kwargs):
        if kwargs:
            check_np_ufunc_kwargs(func.__name__, kwargs, unary=True)
        return func(x, out=out)
    return _wrap_np_unary_func


def wrap_np_binary_func(func):
    """Decorate a NumPy-style binary function ``func(x1, x2, out=None)`` so that it takes
    the ufunc keywords with MXNet's errors."""
    @functools.wraps(func)
    def _wrap_np_binary_func(x1, x2, out=None, **kwargs):
        if kwargs:
            check_np_ufunc_kwargs(func.__name__, kwargs, unary=False)
        return func(x1, x2, out=out)
    return _wrap_np_binary_func
