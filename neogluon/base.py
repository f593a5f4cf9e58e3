"""Shared foundations: MXNet's error type, the `_Null` sentinel and the dtype tables.

MXNet names every dtype three ways: a numpy type (what ``NDArray.dtype`` returns), an
integer *type flag* (what the binary ``.params`` format and the C API store), and a
string (what ``-symbol.json`` attributes hold). Here each is mapped to a torch dtype.
"""
import os
import platform

import numpy as np
import torch

__all__ = ["MXNetError", "NotImplementedForSymbol", "numeric_types", "integer_types",
           "string_types", "np_dtype", "torch_dtype", "dtype_name", "DTYPE_TO_FLAG", "FLAG_TO_DTYPE",
           "data_dir", "data_dir_default"]


class MXNetError(RuntimeError):
    """The error MXNet raises for a user's mistake; its message names the operator or block."""


class NotImplementedForSymbol(MXNetError):
    """Raised when a NDArray-only feature (``.shape``, ``.asnumpy()``) is used on a Symbol."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += " (namely operator \"{}\")".format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        return msg + " is not implemented for Symbol and only available in NDArray."


class _NullType:
    """Placeholder for arguments the caller did not give (MXNet's ``_Null``)."""
    __slots__ = ()

    def __repr__(self):
        return "_Null"

    def __bool__(self):
        return False


_Null = _NullType()

numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
string_types = (str,)

# name, numpy type, MXNet type flag, torch dtype
_DTYPES = [
    ("float32", np.float32, 0, torch.float32),
    ("float64", np.float64, 1, torch.float64),
    ("float16", np.float16, 2, torch.float16),
    ("uint8", np.uint8, 3, torch.uint8),
    ("int32", np.int32, 4, torch.int32),
    ("int8", np.int8, 5, torch.int8),
    ("int64", np.int64, 6, torch.int64),
    ("bool", np.bool_, 7, torch.bool),
    ("int16", np.int16, 8, torch.int16),
    ("uint16", np.uint16, 9, torch.uint16),
    ("uint32", np.uint32, 10, torch.uint32),
    ("uint64", np.uint64, 11, torch.uint64),
]

DTYPE_TO_FLAG = {np.dtype(n): f for n, _, f, _ in _DTYPES}
FLAG_TO_DTYPE = {f: np.dtype(n) for n, _, f, _ in _DTYPES}
_NP_TO_TORCH = {np.dtype(n): t for n, _, _, t in _DTYPES}
_TORCH_TO_NP = {t: npt for _, npt, _, t in _DTYPES}
_TORCH_TO_NP[torch.bfloat16] = np.float32  # never produced by neogluon itself; shown as float32


def np_dtype(dtype):
    """Normalise any dtype spelling (str, numpy type, np.dtype, torch dtype, None) to np.dtype."""
    if dtype is None:
        return np.dtype(np.float32)
    if isinstance(dtype, torch.dtype):
        return np.dtype(_TORCH_TO_NP[dtype])
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError("data type %r not understood" % (dtype,)) from None


def torch_dtype(dtype):
    """The torch dtype for any dtype spelling; float32 for None, as MXNet defaults."""
    if isinstance(dtype, torch.dtype):
        return dtype
    dt = np_dtype(dtype)
    try:
        return _NP_TO_TORCH[dt]
    except KeyError:
        raise MXNetError("unsupported data type %s" % dt) from None


def dtype_name(dtype):
    """MXNet's string for a dtype, as written in attributes ('float32')."""
    return np_dtype(dtype).name


def np_type(torch_dt):
    """The numpy type object (``np.float32``) that ``NDArray.dtype`` returns, as in MXNet."""
    return _TORCH_TO_NP[torch_dt]


def data_dir_default():
    """MXNet's default data directory: ``%APPDATA%\\mxnet`` on Windows, ``~/.mxnet`` elsewhere."""
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA"), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """Where MXNet keeps downloaded models and data sets: ``$MXNET_HOME``, else
    ``data_dir_default()``."""
    return os.getenv("MXNET_HOME", data_dir_default())
