"""MXNet 1.9.1's NumPy-mode switches (``mx.util``'s and ``mx.npx``'s) (``set_np``, ``reset_np``,
``is_np_array``, ``is_np_shape``, ``use_np``, ``use_np_array``, ``use_np_shape``,
``np_array``, ``np_shape``, ``set_np_shape``).

Both flags are per thread, as in MXNet. With ``is_np_array()`` Gluon hands out and
returns ``mx.np.ndarray`` (``Parameter.data()``, block outputs). neogluon supports
zero-size and 0-d shapes in either mode, so ``is_np_shape`` only reports the switch.
"""
import functools
import inspect
import threading

__all__ = ["set_np", "reset_np", "is_np_array", "is_np_shape", "set_np_shape", "np_shape", "np_array",
           "use_np", "use_np_array", "use_np_shape"]


class _Flags(threading.local):
    def __init__(self):
        super().__init__()
        self.shape = False
        self.array = False


FLAGS = _Flags()


def is_np_shape():
    """Whether NumPy shape semantics are on (``npx.set_np()`` or ``set_np_shape(True)``)."""
    return FLAGS.shape


def is_np_array():
    """Whether NumPy array semantics are on: Gluon gives ``mx.np.ndarray``."""
    return FLAGS.array


def set_np_shape(active):
    """Turn NumPy shape semantics on or off; returns the previous state."""
    if not active and FLAGS.array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics. Please set "
                         "`array` to `False` before setting `shape` to `False`.")
    prev, FLAGS.shape = FLAGS.shape, bool(active)
    return prev


def set_np(shape=True, array=True):
    """``npx.set_np()``: NumPy shape and array semantics on (array requires shape, as in MXNet)."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    FLAGS.array = bool(array)
    FLAGS.shape = bool(shape)


def reset_np():
    """``npx.reset_np()``: both semantics off."""
    FLAGS.array = False
    FLAGS.shape = False


class _Scope:
    def __init__(self, shape=None, array=None):
        self.want = (shape, array)
        self.prev = None

    def __enter__(self):
        self.prev = (FLAGS.shape, FLAGS.array)
        shape, array = self.want
        if shape is not None:
            FLAGS.shape = shape
        if array is not None:
            FLAGS.array = array
        return self

    def __exit__(self, *exc):
        FLAGS.shape, FLAGS.array = self.prev


def np_shape(active=True):
    """A scope (``with np_shape():``) with NumPy shape semantics on or off."""
    return _Scope(shape=active)


def np_array(active=True):
    """A scope (``with np_array():``) with NumPy array semantics on or off."""
    return _Scope(array=active)


def _decorator(shape, array):
    def deco(obj):
        if inspect.isclass(obj):
            for name in ("__init__", "forward", "hybrid_forward", "__call__"):
                fn = obj.__dict__.get(name)
                if fn is not None:
                    setattr(obj, name, deco(fn))
            return obj

        @functools.wraps(obj)
        def wrapper(*args, **kwargs):
            with _Scope(shape, array):
                return obj(*args, **kwargs)
        return wrapper
    return deco


def use_np_shape(func):
    """Decorator: the function (or every method of a class' forward) runs with NumPy shapes."""
    return _decorator(True, None)(func)


def use_np_array(func):
    """Decorator: the function (or class) runs with NumPy array semantics."""
    return _decorator(None, True)(func)


def use_np(func):
    """Decorator: ``use_np_shape`` and ``use_np_array`` together (MXNet's ``@use_np``)."""
    return _decorator(True, True)(func)
