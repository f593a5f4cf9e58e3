"""Optimizer states files (``Trainer.save_states``/``load_states``, ``Updater.get_states``/``set_states``).

MXNet 1.9.1 writes a pickle of ``(states, optimizer)`` (or ``states`` alone): ``states`` maps
a parameter index to ``None``, an NDArray or a tuple of them, and each NDArray is pickled as
``mxnet.ndarray.ndarray.NDArray`` whose state ``{'handle': bytearray}`` holds the array's
record in the ``.params`` format. MXNet reads these files with ``pickle.loads``, so a states
file can run any code. neogluon writes the same pickle (under MXNet's class names, so MXNet
reads neogluon's files) and reads with :class:`_StatesUnpickler`, which admits only
optimizer-state types: numbers, strings, bytes, tuples, lists, dicts, sets, numerical numpy
arrays and scalars, NDArrays, and the optimizer and learning-rate scheduler classes that
neogluon has registered. Any other global, such as ``os.system`` named by a ``__reduce__``,
is an MXNetError before anything is called.

Before unpickling, the whole file is walked opcode by opcode (``pickletools.genops``), so
every length the file claims is checked against the bytes that follow, and every memo index
against the opcodes before it: nothing is allocated beyond a constant times the file's size.
"""
import collections
import io
import numbers
import pickle
import pickletools

import numpy as np
import torch

from ..base import MXNetError
from ..ndarray import serialization
from ..ndarray.ndarray import NDArray
from .. import lr_scheduler as _lr_scheduler

__all__ = ["dumps", "loads"]

_MXNET_NDARRAY = ("mxnet.ndarray.ndarray", "NDArray")
_MAX_DEPTH = 64
_NUMERIC_KINDS = "biufc"


# ----------------------------------------------------------------------------- writing
class _NDArrayName:
    """Stands for ``mxnet.ndarray.ndarray.NDArray`` in the pickles neogluon writes."""


def _export_name(obj):
    """The (module, name) under which MXNet 1.9.1 knows a neogluon class, or None."""
    from .optimizer import Optimizer
    if obj is _NDArrayName:
        return _MXNET_NDARRAY
    if not isinstance(obj, type):
        return None
    if issubclass(obj, Optimizer) and obj.__module__.startswith("neogluon.optimizer"):
        return ("mxnet.optimizer.optimizer", obj.__name__)
    if issubclass(obj, _lr_scheduler.LRScheduler) and obj.__module__ == _lr_scheduler.__name__:
        return ("mxnet.lr_scheduler", obj.__name__)
    return None


class _StatesPickler(pickle._Pickler):  # pylint: disable=protected-access
    """A pickler writing NDArrays, optimizers and schedulers as MXNet 1.9.1 pickles them."""

    def reducer_override(self, obj):
        if isinstance(obj, NDArray):
            return (_NDArrayName, (None,), {"handle": bytearray(serialization.dumps_array(obj))})
        return NotImplemented

    def save_global(self, obj, name=None):
        exported = _export_name(obj)
        if exported is None:
            super().save_global(obj, name)
            return
        self.save(exported[0])
        self.save(exported[1])
        self.write(pickle.STACK_GLOBAL)
        self.memoize(obj)


def dumps(obj):
    """The pickle MXNet 1.9.1's ``Updater.get_states`` writes for ``obj``."""
    buf = io.BytesIO()
    _StatesPickler(buf, protocol=4).dump(obj)
    return buf.getvalue()


# ----------------------------------------------------------------------------- reading
class _PendingNDArray:
    """An NDArray being unpickled: MXNet pickles it as ``NDArray(None)`` then ``{'handle': bytes}``."""

    def __init__(self, *args):
        if args not in ((), (None,)):
            raise pickle.UnpicklingError("NDArray is rebuilt from its state only, not from %r" % (args,))
        self.array = None

    def __setstate__(self, state):
        if not isinstance(state, dict) or not isinstance(state.get("handle"), (bytes, bytearray)):
            raise pickle.UnpicklingError("an NDArray's state must be {'handle': bytes}")
        self.array = serialization.loads_array(state["handle"], "a pickled NDArray")


class _NumpyArrayType:
    """Stands for ``numpy.ndarray`` (never called: calling it could allocate any size)."""


def _reconstruct(subtype, shape, dtype):
    """numpy's ``_reconstruct``, which pickles always call with an empty shape."""
    if subtype is not _NumpyArrayType or tuple(shape) != (0,) or dtype not in (b"b", "b"):
        raise pickle.UnpicklingError("numpy arrays are rebuilt from their state only")
    return np.ndarray((0,), np.uint8)


def _numeric_dtype(spec, align=False, copy=False):
    if not isinstance(spec, str) or len(spec) > 4:
        raise pickle.UnpicklingError("dtype %r is not a numerical dtype" % (spec,))
    dtype = np.dtype(spec, align=bool(align), copy=bool(copy))
    if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise pickle.UnpicklingError("dtype %r is not a numerical dtype" % (spec,))
    return dtype


def _scalar(dtype, data):
    if not isinstance(dtype, np.dtype) or dtype.kind not in _NUMERIC_KINDS or not isinstance(data, bytes) \
            or len(data) != dtype.itemsize:
        raise pickle.UnpicklingError("bad numpy scalar")
    return np.frombuffer(data, dtype=dtype)[0]


def _bytearray(*args):
    """``bytearray(bytes)`` as pickles write it; the bytes themselves stand in (no copy)."""
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray)):
        return args[0]
    if len(args) == 2 and isinstance(args[0], str) and args[1] == "latin-1":  # protocol < 3
        return args[0].encode("latin-1")
    raise pickle.UnpicklingError("bytearray is rebuilt from bytes only")


def _rebuild(value, ctx="cpu(0)"):
    """neogluon's former NDArray pickle: ``_rebuild(numpy array, context string)``."""
    if not isinstance(value, np.ndarray) or not isinstance(ctx, str):
        raise pickle.UnpicklingError("a neogluon NDArray is rebuilt from a numpy array")
    pending = _PendingNDArray()
    pending.array = NDArray(torch.from_numpy(np.array(value)))  # states move to their weight's context on use
    return pending


_BUILTINS = {
    ("builtins", "bytearray"): _bytearray,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("numpy", "ndarray"): _NumpyArrayType,
    ("numpy", "dtype"): _numeric_dtype,
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy.core.multiarray", "scalar"): _scalar,
    ("numpy._core.multiarray", "scalar"): _scalar,
    _MXNET_NDARRAY: _PendingNDArray,
    ("neogluon.ndarray.ndarray", "NDArray"): _PendingNDArray,
    ("neogluon.ndarray.ndarray", "_rebuild"): _rebuild,
}


def _admitted_class(module, name):
    """A registered optimizer or a neogluon lr_scheduler class named (module, name), or None."""
    from .optimizer import Optimizer
    if module in ("mxnet.optimizer.optimizer", "mxnet.optimizer", "neogluon.optimizer.optimizer",
                  "neogluon.optimizer"):
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is not None and klass.__name__ == name:
            return klass
    for klass in Optimizer.opt_registry.values():  # a user's registered optimizer, under its own name
        if (klass.__module__, klass.__qualname__) == (module, name):
            return klass
    if module in ("mxnet.lr_scheduler", "neogluon.lr_scheduler"):
        klass = getattr(_lr_scheduler, name, None)
        if isinstance(klass, type) and issubclass(klass, _lr_scheduler.LRScheduler):
            return klass
    return None


class _StatesUnpickler(pickle.Unpickler):
    """Unpickles optimizer-state types only; any other global is refused."""

    def find_class(self, module, name):
        found = _BUILTINS.get((module, name)) or _admitted_class(module, name)
        if found is None:
            raise _Refused("%s.%s" % (module, name))
        return found

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("persistent ids are not allowed")


class _Refused(pickle.UnpicklingError):
    """A global outside the optimizer-state types."""


def _prescan(blob):
    """Walk every opcode: a length past the end, a bad opcode or a frame longer than the
    file raise ValueError before the unpickler allocates anything."""
    count = 0
    for op, arg, pos in pickletools.genops(blob):
        count += 1
        if op.name == "FRAME" and arg > len(blob) - pos:
            raise ValueError("a frame of %d bytes at byte %d runs past the end" % (arg, pos))
        if op.name in ("PUT", "BINPUT", "LONG_BINPUT") and int(arg) > count:
            # the unpickler sizes its memo by the largest index: pickles number them 0, 1, 2...
            raise ValueError("memo index %s at byte %d is past the %d opcodes so far" % (arg, pos, count))


def _finish(obj, depth=0):
    """``obj`` with every pending NDArray replaced by its NDArray, checked to hold only
    optimizer-state types."""
    if depth > _MAX_DEPTH:
        raise ValueError("nested deeper than %d levels" % _MAX_DEPTH)
    if isinstance(obj, _PendingNDArray):
        if obj.array is None:
            raise ValueError("an NDArray without its state")
        return obj.array
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in _NUMERIC_KINDS or obj.dtype.fields is not None:
            raise ValueError("a numpy array of dtype %s" % obj.dtype)
        return obj
    if obj is None or isinstance(obj, (numbers.Number, str, bytes, bytearray, np.generic)):
        return obj
    if isinstance(obj, (list, tuple, set, frozenset)):
        return type(obj)(_finish(v, depth + 1) for v in obj)
    if isinstance(obj, dict):
        finished = type(obj)()
        for k, v in obj.items():
            finished[_finish(k, depth + 1)] = _finish(v, depth + 1)
        return finished
    if isinstance(obj, _lr_scheduler.LRScheduler) or _is_optimizer(obj):
        obj.__dict__.update(_finish(vars(obj), depth + 1))
        return obj
    raise ValueError("unexpected %s" % type(obj).__name__)


def _is_optimizer(obj):
    from .optimizer import Optimizer
    return isinstance(obj, Optimizer)


def _check_optimizer(optimizer):
    """Fill in what an older file lacks from a default instance of the same class, and
    refuse attributes whose kind (number, dict, ...) differs from the default's."""
    try:
        default = type(optimizer)()
    except Exception:  # pylint: disable=broad-except
        return
    state = vars(optimizer)
    for key, value in vars(default).items():
        if key == "param_dict":
            continue
        if key not in state:
            state[key] = value
            continue
        got = state[key]
        for kind in (numbers.Number, dict, str):
            if isinstance(value, kind) and not isinstance(value, bool) and not isinstance(got, kind) \
                    and not (got is None and kind is numbers.Number):
                raise ValueError("optimizer attribute %r is %r, expected a %s" % (key, got, kind.__name__))
    if optimizer.lr_scheduler is not None and not isinstance(optimizer.lr_scheduler, _lr_scheduler.LRScheduler):
        raise ValueError("lr_scheduler is a %s" % type(optimizer.lr_scheduler).__name__)


def _check_states(states):
    if not isinstance(states, dict):
        raise ValueError("the states are a %s, not a dict index -> state" % type(states).__name__)
    for key, state in states.items():
        if not isinstance(key, (int, str)) or isinstance(key, bool):
            raise ValueError("state key %r is not a parameter index or name" % (key,))
        _check_state(key, state)


def _check_state(key, state):
    if state is None or isinstance(state, NDArray):
        return
    if isinstance(state, (tuple, list)):
        for s in state:
            _check_state(key, s)
        return
    raise ValueError("the state of parameter %r holds a %s" % (key, type(state).__name__))


def loads(blob, source="optimizer states"):
    """``states`` or ``(states, optimizer)`` from a pickle written by MXNet 1.9.1's or
    neogluon's ``get_states``; MXNetError naming ``source`` for anything else."""
    from .optimizer import Optimizer
    try:
        _prescan(blob)
        obj = _finish(_StatesUnpickler(io.BytesIO(blob)).load())
        if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], Optimizer):
            _check_states(obj[0])
            _check_optimizer(obj[1])
        else:
            _check_states(obj)
    except _Refused as e:
        raise MXNetError("%s: refused: the file asks for %s, which is not an optimizer-state type "
                         "(states files are never allowed to run code)" % (source, e)) from None
    except MXNetError as e:
        raise MXNetError("%s: %s" % (source, e)) from None
    except MemoryError:
        raise  # never expected: every size is checked first; hiding it would hide that bug
    except Exception as e:  # pylint: disable=broad-except
        raise MXNetError("%s: not a valid optimizer states file: %s: %s" % (source, type(e).__name__, e)) from None
    return obj
