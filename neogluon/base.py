"""Shared foundations: MXNet's error type, the `_Null` sentinel and the dtype tables.

MXNet names every dtype three ways: a numpy type (what ``NDArray.dtype`` returns), an
integer *type flag* (what the binary ``.params`` format and the C API store), and a
string (what ``-symbol.json`` attributes hold). Here each is mapped to a torch dtype.
"""
import numpy as np
import torch

__all__ = ["MXNetError", "NotImplementedForSymbol", "numeric_types", "integer_types",
           "string_types", "np_dtype", "torch_dtype", "dtype_name", "DTYPE_TO_FLAG", "FLAG_TO_DTYPE",
           "data_dir", "data_dir_default"]


class MXNetError(RuntimeError):
    """The error MXNet raises for a user's mistake; its message names the operator or block."""


class ArgumentTypeError(AssertionError, TypeError):
    """An operator function given an argument of the wrong kind (a Symbol, a numpy array or a
    number where an NDArray goes, or the reverse for ``mx.sym``): MXNet's generated functions
    assert their arguments' type, so an AssertionError, and a TypeError as Python has it."""


class _NotForThisKind(MXNetError):
    """MXNet's message for a function used on an array kind it does not take: "Function f
    (namely operator "op") with arguments (...) <WHERE>"."""
    WHERE = ""

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
        return msg + " " + self.WHERE


class NotImplementedForSymbol(_NotForThisKind):
    """Raised when a NDArray-only feature (``.shape``, ``.asnumpy()``) is used on a Symbol."""
    WHERE = "is not implemented for Symbol and only available in NDArray."


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


# ----------------------------------------------------------------------------- MXNet's helpers
# what mxnet.base offers beyond the dtype tables: string helpers, the data directory, small
# class utilities and the ctypes converters that need no C library
import ctypes as _ctypes  # noqa: E402
import inspect as _inspect  # noqa: E402
import os as _os  # noqa: E402
import platform as _platform  # noqa: E402

long = int
basestring = str
mx_uint = _ctypes.c_uint
mx_int = _ctypes.c_int
mx_int64 = _ctypes.c_int64
mx_float = _ctypes.c_float
mx_float_p = _ctypes.POINTER(mx_float)
mx_real_t = np.float32


def py_str(x):
    """bytes from a C string -> str (MXNet's ``py_str``)."""
    return x.decode("utf-8")


def c_str(string):
    """str -> a ``ctypes.c_char_p`` (MXNet's ``c_str``)."""
    return _ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings):
    """A ctypes array of C strings."""
    arr = (_ctypes.c_char_p * len(strings))()
    arr[:] = [s.encode("utf-8") for s in strings]
    return arr


def c_array(ctype, values):
    """A ctypes array of ``ctype`` holding ``values``."""
    out = (ctype * len(values))()
    out[:] = values
    return out


def c_array_buf(ctype, buf):
    """A ctypes array of ``ctype`` sharing the memory of a buffer (``array.array``)."""
    return (ctype * len(buf)).from_buffer(buf)


def ctypes2buffer(cptr, length):
    """A ``bytearray`` copy of ``length`` bytes at a ctypes ``char`` pointer."""
    if not isinstance(cptr, _ctypes.POINTER(_ctypes.c_char)):
        raise TypeError("expected char pointer")
    res = bytearray(length)
    rptr = (_ctypes.c_char * length).from_buffer(res)
    if not _ctypes.memmove(rptr, cptr, length):
        raise RuntimeError("memmove failed")
    return res


def _as_list(obj):
    """``obj`` when it is a list or tuple, else ``[obj]``."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


def register_by_name(registry, klass, kind):
    """Record ``klass`` in ``registry`` under its lower-cased name (MXNet's ``register``
    decorators of optimizers and KVStores), warning when it replaces another class."""
    import warnings
    if not isinstance(klass, type):
        raise AssertionError("%s register takes a class, got %r" % (kind, klass))
    name = klass.__name__.lower()
    if name in registry:
        warnings.warn("WARNING: New %s %s.%s is overriding existing %s %s.%s"
                      % (kind, klass.__module__, klass.__name__, kind, registry[name].__module__,
                         registry[name].__name__))
    registry[name] = klass
    return klass


def data_dir_default():
    """``~/.mxnet`` (``%APPDATA%/mxnet`` on Windows): where MXNet keeps models and data."""
    if _platform.system() == "Windows":
        return _os.path.join(_os.environ.get("APPDATA"), "mxnet")
    return _os.path.join(_os.path.expanduser("~"), ".mxnet")


def data_dir():
    """``$MXNET_HOME``, else :func:`data_dir_default`."""
    return _os.getenv("MXNET_HOME", data_dir_default())


class NotSupportedForSparseNDArray(_NotForThisKind):
    """Raised when a dense-only function is given a sparse array."""
    WHERE = "is not supported for SparseNDArray and only available in NDArray."


error_types = {}


def register_error(func_name=None, cls=None):
    """Register an MXNetError subclass under a name (its class name by default), as MXNet's
    FFI error table does; usable as ``@register_error`` or ``@register_error("Name")``."""
    if callable(func_name):
        cls, func_name = func_name, func_name.__name__

    def register(mycls):
        error_types[func_name or mycls.__name__] = mycls
        return mycls
    return register(cls) if cls is not None else register


class _MXClassPropertyDescriptor:
    """A property of a class (``classproperty``), with an optional class-level setter."""

    def __init__(self, fget, fset=None):
        self.fget = fget
        self.fset = fset

    def __get__(self, obj, clas=None):
        if clas is None:
            clas = type(obj)
        return self.fget.__get__(obj, clas)()

    def __set__(self, obj, value):
        if not self.fset:
            raise MXNetError("cannot use the setter: %s to set attribute" % obj.__name__)
        if _inspect.isclass(obj):
            type_, obj = obj, None
        else:
            type_ = type(obj)
        return self.fset.__get__(obj, type_)(value)

    def setter(self, func):
        if not isinstance(func, (classmethod, staticmethod)):
            func = classmethod(func)
        self.fset = func
        return self


def classproperty(func):
    """Decorator: a read-only property computed from the class."""
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _MXClassPropertyDescriptor(func)


def with_metaclass(meta, *bases):
    """A base class with metaclass ``meta`` (six's recipe, as MXNet uses it)."""
    class metaclass(type):
        def __new__(cls, name, this_bases, d):
            return meta(name, bases, d)

        @classmethod
        def __prepare__(cls, name, this_bases):
            return meta.__prepare__(name, bases)
    return type.__new__(metaclass, "temporary_class", (), {})


def add_fileline_to_docstring(module, incursive=True):
    """MXNet appends the source line to generated docstrings; neogluon's functions are
    Python with their own source locations, so this leaves docstrings as they are."""
    return module


def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """The numpydoc "Parameters" block MXNet builds for generated operator functions."""
    param_keys, param_str = set(), []
    for key, type_info, desc in zip(arg_names, arg_types, arg_descs):
        if key in param_keys and remove_dup:
            continue
        if key == "num_args":
            continue
        param_keys.add(key)
        ret = "%s : %s" % (key, type_info)
        if desc:
            ret += "\n    " + desc
        param_str.append(ret)
    return "Parameters\n----------\n%s\n" % "\n".join(param_str)
