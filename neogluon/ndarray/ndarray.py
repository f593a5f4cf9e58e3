"""``NDArray``: MXNet 1.9.1's n-dimensional array, wrapping one ``torch.Tensor``.

Semantics follow MXNet, not torch, where they differ: ``dtype`` is a numpy type,
arithmetic and comparisons keep the input dtype (comparisons give 0/1; a float scalar
meets an integer array as an integer), an integer index of a 1-d array gives shape
``(1,)`` (only ``nd.array`` of a Python scalar is 0-d), operands other than NDArrays and
numbers raise TypeError, and operators are recorded for autograd only inside
``autograd.record()``, where writing into an array that is part of the graph raises.
"""
import contextlib
import ctypes
import warnings

import numpy as np
import torch
import torch.utils.dlpack

from ..base import MXNetError, numeric_types, np_type, torch_dtype, _Null
from ..context import Context, as_context
from ..core import ACTIVE as _ACTIVE, STATE as _STATE, check_assign
from .. import np_mode as _np_mode
from ..operator import registry
from . import indexing as _indexing

__all__ = ["NDArray", "invoke"]

_new = object.__new__  # NDArray without __init__ (see NDArray)


def _arithmetic(op_nd, op_scalar, reflected=False):
    """The method for ``x <op> y`` (``reflected``: ``y <op> x``): the registry's broadcast
    operator for an NDArray ``y``, its scalar operator for a number, both through
    ``Operator.call`` (the scalar operator's cache entry is found by position, as the
    generated ``mx.nd`` functions find theirs)."""
    array_op, scalar_op = registry.get(op_nd), registry.get(op_scalar)
    entries = scalar_op._entries
    assert scalar_op.param_names == ("scalar", "is_int")
    plain = array_op.entry({})  # the broadcast operator's one entry (it has no attributes)

    def method(self, other):
        if isinstance(other, NDArray):
            return plain.run(other, self) if reflected else plain.run(self, other)
        if isinstance(other, numeric_types):
            entry = entries.get((_POS, other, _Null)) or scalar_op.lookup((other, _Null))
            return entry.run(self)
        raise TypeError("type %s not supported" % str(type(other)))
    method.__name__ = "__%s%s__" % ("r" if reflected else "", op_nd.split("_", 1)[1])
    return method


def _writer(op_nd, op_scalar):
    """``x <op>= y`` written by the kernel (``Operator.write_into``): ``x``, or None when the
    operator's kernel cannot write into it (the result is then computed and copied). The
    entries are found as ``_arithmetic``'s method finds them."""
    array_op, scalar_op = registry.get(op_nd), registry.get(op_scalar)
    entries = scalar_op._entries
    plain = array_op.entry({})

    def write(self, other):
        if isinstance(other, NDArray):
            return array_op.write_into(plain, (self, other), self)
        if isinstance(other, numeric_types):
            entry = entries.get((_POS, other, _Null)) or scalar_op.lookup((other, _Null))
            return scalar_op.write_into(entry, (self,), self)
        return None
    return write


_CONTEXTS = {}  # torch.device -> the Context NDArray.context gives for it
_LENT = {}  # handle -> the NDArray it stands for while a callback runs (lend_handle)


@contextlib.contextmanager
def lend_handle(arr):
    """An integer handle standing for ``arr`` while the ``with`` block runs: what MXNet's
    executor passes its monitor callback (a C ``NDArrayHandle``), which the callback turns into
    the array with ``NDArray(ctypes.cast(handle, NDArrayHandle))``."""
    handle = id(arr)
    _LENT[handle] = arr
    try:
        yield handle
    finally:
        _LENT.pop(handle, None)


def _lent(handle):
    """The tensor of the array a handle from :func:`lend_handle` stands for."""
    value = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    arr = _LENT.get(value) if isinstance(value, int) else None
    if arr is None:
        raise MXNetError("NDArray(%r): neither a torch tensor nor the handle of an array lent to a "
                         "callback (neogluon arrays have no C handles)" % (handle,))
    return arr._t


def placed(arr, ctx):
    """``arr`` reporting the Context ``ctx`` it was made for. torch has one CPU device, MXNet
    several CPU contexts: ``cpu(k)``, ``cpu_pinned(0)`` and ``cpu_shared(0)`` (GluonCV's
    batchify stacks its batches into ``cpu_shared``), which MXNet reports as made; an array
    made for one of them keeps it in ``_ctx`` (``cpu(0)`` and GPUs come from the device)."""
    if ctx.device_type != "gpu" and (ctx.device_id or ctx.device_type != "cpu"):
        arr._ctx = ctx  # pylint: disable=protected-access
    return arr


class NDArray:
    """An array on a device (``mx.nd.NDArray``).

    Its state is its tensor, ``_t``. The autograd slots (``_grad``, ``_grad_req``,
    ``_fresh_grad``) are set only when the array becomes a variable (``attach_grad``) and
    are read with defaults, so an array is one assignment: the operators' fast paths
    make their results with ``_new(NDArray)`` and ``._t = tensor``, which skips the
    ``__init__`` call (about 0.15 us, a tenth of a small torch op)."""
    __slots__ = ("_t", "_grad", "_grad_req", "_fresh_grad", "_ctx", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, tensor, writable=True):  # pylint: disable=unused-argument
        if tensor.__class__ is not torch.Tensor and not isinstance(tensor, torch.Tensor):
            tensor = _lent(tensor)  # MXNet's NDArray(handle): a handle given to a monitor callback
        self._t = tensor

    # ------------------------------------------------------------------ properties
    @property
    def shape(self):
        """The shape, a tuple of ints."""
        return tuple(self._t.shape)

    @property
    def dtype(self):
        """The numpy type object of the elements (``numpy.float32``), as MXNet returns."""
        return np_type(self._t.dtype)

    @property
    def size(self):
        """The number of elements."""
        return self._t.numel()

    @property
    def ndim(self):
        """The number of dimensions."""
        return self._t.dim()

    @property
    def context(self):
        """The device the array lives on (``cpu(0)``, ``gpu(i)``), one Context per device.

        torch has one CPU device, MXNet several (``cpu(1)`` is what multi-context training on
        one machine uses): an array copied to ``cpu(k)`` keeps that Context in ``_ctx``, and an
        array made on the CPU while ``with mx.cpu(k):`` is open (as Blocks do around their
        forward when their input is on ``cpu(k)``) reports ``cpu(k)``, so each Block picks its
        Parameters' copy of ``cpu(k)``; a Block's outputs keep it (gluon/block.py), and an
        operator's results their first input's (``registry.placed_like``). An array made on
        ``cpu(0)`` before the ``with`` block reports ``cpu(k)`` inside it (MXNet: ``cpu(0)``)."""
        ctx = getattr(self, "_ctx", None)
        if ctx is not None:
            return ctx
        dev = self._t.device
        ctx = _CONTEXTS.get(dev)
        if ctx is None:
            ctx = _CONTEXTS[dev] = Context("gpu", dev.index or 0) if dev.type == "cuda" else Context("cpu", 0)
        if dev.type == "cpu":
            cur = getattr(Context._default, "value", None)
            if cur is not None and cur.device_id and cur.device_type != "gpu":
                return cur
        return ctx

    ctx = context

    stype = "default"  # the storage type (the sparse arrays of ndarray/sparse.py say theirs)
    _sparse = False

    @property
    def T(self):
        """The transpose (the array itself when it has fewer than 2 dimensions), as MXNet."""
        if self.ndim < 2:
            return self
        return invoke("transpose", (self,), {})

    @property
    def grad(self):
        """The gradient buffer attached by ``attach_grad`` (None without one or with grad_req 'null')."""
        return getattr(self, "_grad", None)

    @property
    def handle(self):
        return self._t

    @property
    def writable(self):
        return True

    def __len__(self):
        if not self._t.dim():
            raise IndexError("len() of a 0-d NDArray: it has no first dimension")
        return self._t.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self):
        shape_info = "x".join(str(d) for d in self.shape)
        return "\n%s\n<%s %s @%s>" % (str(self.asnumpy()), type(self).__name__, shape_info, self.context)

    __str__ = __repr__

    def __bool__(self):
        n = self.size
        if n == 0:
            return False
        if n == 1:
            return bool(self._t.reshape(()).item())
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __hash__(self):
        return id(self)

    def __reduce__(self):
        return (_rebuild, (self.asnumpy(), str(self.context)))

    def __dlpack__(self, *args, **kwargs):
        return self._t.detach().contiguous().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a.astype(dtype) if dtype is not None else a

    # ------------------------------------------------------------------ conversions
    def asnumpy(self):
        """A numpy copy of the contents (blocks until computed). numpy has no bfloat16: such
        an array (as its ``dtype``, float32) comes out as float32, exactly."""
        t = self._t.detach()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.cpu().numpy().copy()

    def asscalar(self):
        """The value of a one-element array as a numpy scalar (``asnumpy()[0]``; MXNet
        returns ``asnumpy()[()]``, the whole numpy array, for other shapes of size 1)."""
        if self.size != 1:
            raise ValueError("The current array is not a scalar")
        a = self.asnumpy()
        return a[0] if a.ndim == 1 else a[()]

    def astype(self, dtype, copy=True):
        """A copy converted to ``dtype``; the array itself when ``copy=False`` and the dtype matches.
        As in MXNet (``np.dtype(dtype)``), anything with a ``dtype`` attribute spells its dtype:
        Sockeye's loss casts ``output.astype(label, copy=False)`` with an NDArray."""
        if not isinstance(dtype, (str, type, np.dtype, torch.dtype)) and hasattr(dtype, "dtype"):
            dtype = dtype.dtype  # numpy 2's np.dtype() no longer reads a type object from .dtype
        dt = torch_dtype(dtype)
        if not copy and dt == self._t.dtype:
            return self
        return invoke("Cast", (self,), {"dtype": dtype})

    def copy(self):
        """A copy on the same device."""
        return self.copyto(self.context)

    def copyto(self, other):
        """Copy into another NDArray (same shape) or onto a Context (a new array)."""
        if isinstance(other, NDArray):
            if other._sparse:  # a sparse target keeps its storage type: cast_storage of this array
                if other.shape != self.shape:
                    raise MXNetError("copyto: shape mismatch, source %s vs target %s" % (self.shape, other.shape))
                return invoke("cast_storage", (self.astype(other.dtype, copy=False),),
                              {"stype": other.stype}).copyto(other)
            if other._t is self._t:
                warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
                return False
            if other.shape != self.shape:
                raise MXNetError("copyto: shape mismatch, source %s vs target %s" % (self.shape, other.shape))
            if _STATE.recording:
                check_assign(other._t)
            with torch.no_grad():
                other._t.copy_(self._t)
            return other
        if isinstance(other, Context):
            res = NDArray(self._t.detach().to(other.torch_device, copy=True))
            if other.device_type != "gpu":
                res._ctx = other  # pylint: disable=protected-access
            return res
        raise TypeError("copyto does not support type " + str(type(other)))

    def as_in_context(self, context):
        """This array if it is already on ``context``, else a copy there."""
        ctx = as_context(context)
        if ctx == self.context:
            return self
        return self.copyto(ctx)

    as_in_ctx = as_in_context

    def tostype(self, stype):
        """A copy on storage ``stype`` ('default', 'csr', 'row_sparse'): ``cast_storage``."""
        if stype == "csr" and len(self.shape) != 2:
            raise ValueError("To convert to a CSR, the NDArray should be 2 Dimensional. Current shape is %s"
                             % str(self.shape))
        return invoke("cast_storage", (self,), {"stype": stype})

    def as_nd_ndarray(self):
        return self

    def wait_to_read(self):
        """Block until pending (CUDA) computation writing this array has finished."""
        if self._t.is_cuda:
            torch.cuda.synchronize(self._t.device)

    def to_dlpack_for_read(self):
        """A DLPack capsule viewing this array, row-major and dense as every MXNet array is
        (DGL's kernels refuse strided tensors): a tensor neogluon holds strided (a transpose
        view, an expanded gradient) is exported as a dense copy."""
        self.wait_to_read()
        return torch.utils.dlpack.to_dlpack(self._t.detach().contiguous())

    def to_dlpack_for_write(self):
        """A DLPack capsule through which this array may be written. A strided tensor is
        first made dense in place, so that what is written through the capsule is this array
        (strided tensors are never views of another array's memory: such results are copies
        in MXNet, and in neogluon)."""
        t = self._t
        if not t.is_contiguous():
            with torch.no_grad():
                t.set_(t.contiguous())
        return torch.utils.dlpack.to_dlpack(t.detach())

    def detach(self):
        """The same data outside any recorded graph (gradients stop here)."""
        return NDArray(self._t.detach())

    # attach_grad and backward are installed by neogluon.autograd (which builds on NDArray)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        """``x[key]`` with numpy's rules and MXNet 1.x's (1,)-shaped elements of 1-d arrays
        (see :mod:`neogluon.ndarray.indexing`), through the indexing operator."""
        cls = key.__class__
        if cls is slice:  # x[a:b]: its entry under (start, stop), x[a:b:c] under (slice, start, stop, step)
            ck = (key.start, key.stop) if key.step is None else (slice, key.start, key.stop, key.step)
            entry = _GETITEMS.get(ck) or _GETITEM.keyed(ck, {"key": key})
        elif cls in _INT_KEYS:  # x[i]: under the integer itself
            entry = _GETITEMS.get(key) or _GETITEM.keyed(key, {"key": key})
        else:
            try:
                ck = _indexing.cache_key(key)
                entry = _GETITEMS.get((_POS, ck)) or _GETITEM.lookup((ck,), {"key": key})
            except TypeError:  # an array, list or boolean index: not cached
                entry = _GETITEM.new_entry({"key": key})
        return entry.run(self)

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)

    # ------------------------------------------------------------------ arithmetic
    def _inplace(self, other, op_nd, op_scalar):
        """``x += y`` and friends: written into ``x``'s memory, by the operator's kernel itself
        when it can (``Operator.write_into``: no result to copy), else computed and copied;
        while recording MXNet refuses it when ``x`` is in a graph or ``y`` is recorded."""
        if _STATE.recording:
            check_assign(self._t, other._t if isinstance(other, NDArray) else None)
        elif self.__class__ is _ACTIVE.dense and _WRITERS[op_nd](self, other) is not None:
            return self
        res = _BINARY[op_nd](self, other)
        if res.shape != self.shape:
            raise MXNetError("Shape inconsistent in in-place operation: provided %s, inferred shape %s"
                             % (self.shape, res.shape))
        with torch.no_grad():
            self._t.copy_(res._t)
        return self

    __add__ = _arithmetic("broadcast_add", "_plus_scalar")
    __radd__ = _arithmetic("broadcast_add", "_plus_scalar", True)
    __sub__ = _arithmetic("broadcast_sub", "_minus_scalar")
    __rsub__ = _arithmetic("broadcast_sub", "_rminus_scalar", True)
    __mul__ = _arithmetic("broadcast_mul", "_mul_scalar")
    __rmul__ = _arithmetic("broadcast_mul", "_mul_scalar", True)
    __truediv__ = __div__ = _arithmetic("broadcast_div", "_div_scalar")
    __rtruediv__ = __rdiv__ = _arithmetic("broadcast_div", "_rdiv_scalar", True)
    __mod__ = _arithmetic("broadcast_mod", "_mod_scalar")
    __rmod__ = _arithmetic("broadcast_mod", "_rmod_scalar", True)
    __pow__ = _arithmetic("broadcast_power", "_power_scalar")
    __rpow__ = _arithmetic("broadcast_power", "_rpower_scalar", True)

    def __iadd__(self, o):
        return self._inplace(o, "broadcast_add", "_plus_scalar")

    def __isub__(self, o):
        return self._inplace(o, "broadcast_sub", "_minus_scalar")

    def __imul__(self, o):
        return self._inplace(o, "broadcast_mul", "_mul_scalar")

    def __itruediv__(self, o):
        return self._inplace(o, "broadcast_div", "_div_scalar")

    __idiv__ = __itruediv__

    def __imod__(self, o):
        return self._inplace(o, "broadcast_mod", "_mod_scalar")

    def __neg__(self):
        return invoke("negative", (self,), {})

    def __abs__(self):
        return invoke("abs", (self,), {})

    __eq__ = _arithmetic("broadcast_equal", "_equal_scalar")
    __ne__ = _arithmetic("broadcast_not_equal", "_not_equal_scalar")
    __gt__ = _arithmetic("broadcast_greater", "_greater_scalar")
    __ge__ = _arithmetic("broadcast_greater_equal", "_greater_equal_scalar")
    __lt__ = _arithmetic("broadcast_lesser", "_lesser_scalar")
    __le__ = _arithmetic("broadcast_lesser_equal", "_lesser_equal_scalar")

    # ------------------------------------------------------------------ methods with special signatures
    def reshape(self, *shape, **kwargs):
        """``x.reshape((0, -1))`` or ``x.reshape(0, -1)``, with MXNet's special codes: a view
        of the array, as in MXNet (``mx.nd.reshape(x, ...)``, an operator, gives new memory)."""
        if not kwargs:  # the common x.reshape((0, -1)): Reshape's entry found by position
            try:
                code = shape[0] if len(shape) == 1 else shape
                if code == ():  # () is the key of Reshape's call without attributes
                    raise TypeError
                entry = _RESHAPES.get(code) or _RESHAPE.keyed(code, {"shape": code}, view=True)
            except (TypeError, IndexError):
                pass  # a list, no shape: the keyword path below
            else:
                res = entry.run(self)
                if entry.view and len(shape) == 1:  # the generated x.reshape(code) takes it from now on
                    registry.remember(_VIEW_KERNELS, code, entry.kernel)
                return res
        unknown = [k for k in kwargs if k not in ("shape", "reverse")]
        if unknown:
            raise TypeError("Got unknown keywords in reshape: %s. Accepted keyword arguments are 'shape' "
                            "and 'reverse'." % ", ".join(unknown))
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
            if not shape:  # x.reshape(()): MXNet's reshape of the NDArray itself gives it no axes
                return self._to_0d()
        elif not shape:
            shape = kwargs.pop("shape", None)
            if shape is None:
                raise TypeError("reshape: the shape must be provided")
            if not shape:
                raise AssertionError("Shape must be provided.")
        raw = dict(kwargs, shape=tuple(shape))
        return _RESHAPE.keyed((_VIEW,) + tuple(raw.items()), raw, view=True).run(self)

    def _to_0d(self):
        """``x.reshape(())``: a 0-d view of a one-element array (MXNDArrayReshape64 with no
        axes, in either shape mode); MXNet's errors for any other size."""
        if self.size != 1:
            if _np_mode.FLAGS.shape:
                raise MXNetError("NDArray.Reshape: Check failed: shape_.Size() == shape.Size() (%d vs. 1) : "
                                 "target shape must have the same size as current shape." % self.size)
            raise ValueError("Cannot reshape array of size %d into shape ()" % self.size)
        return _NP_RESHAPE.keyed((_VIEW, "0-d"), {"newshape": ()}, view=True).run(self)

    def broadcast_to(self, shape):
        """MXNet 1.9.1's method (not the operator): numpy's rule, the array's shape padded with
        leading 1s to the target's length, then the operator; a shape it cannot reach is a
        ValueError (GluonTS broadcasts levels of shape (n,) like a (b, t, d, n) array)."""
        shape = tuple(shape)
        cur = self.shape
        if len(shape) < len(cur) or any(c not in (1, s) for c, s in zip((1,) * (len(shape) - len(cur)) + cur, shape)):
            raise ValueError("operands could not be broadcast together with remapped shapes"
                             "[original->remapped]: {} and requested shape {}".format(cur, shape))
        padded = (1,) * (len(shape) - len(cur)) + cur
        return invoke("broadcast_to", (self.reshape(padded) if padded != cur else self,), {"shape": shape})

    def broadcast_like(self, other):
        """MXNet 1.9.1's method: ``broadcast_to(other.shape)`` (the operator ``broadcast_like``
        needs equal ranks)."""
        return self.broadcast_to(other.shape)

    # MXNet 1.9.1's flatten/expand_dims/squeeze methods: the operator, or with inplace=True a
    # reshaped view sharing this array's memory (Sockeye's batches squeeze(axis=2, inplace=True))
    def flatten(self, inplace=False):
        return invoke("flatten", (self,), {}) if not inplace else self.reshape((0, -1))

    def expand_dims(self, axis, inplace=False):
        if not inplace:
            return invoke("expand_dims", (self,), {"axis": axis})
        new_shape = list(self.shape)
        assert -len(new_shape) - 1 <= axis <= len(new_shape), \
            "axis {} is out of range for {}d array".format(axis, len(new_shape))
        new_shape.insert(axis + len(new_shape) + 1 if axis < 0 else axis, 1)
        return self.reshape(new_shape)

    def squeeze(self, axis=None, inplace=False):
        if not inplace:
            return invoke("squeeze", (self,), {"axis": axis})
        new_shape = list(self.shape)
        axes = [axis] if isinstance(axis, int) else axis
        if axes:
            assert len(axes) == len(set(axes)), "axis {} contains duplicate which is not allowed.".format(axes)
            resolved = [i if i >= 0 else i + len(new_shape) for i in axes]
            for arg_axis, actual in zip(axes, resolved):
                assert -len(new_shape) <= arg_axis < len(new_shape), \
                    "axis {} is out of range for {}d array".format(arg_axis, len(new_shape))
                assert new_shape[actual] == 1, \
                    "Squeeze target axis {} must be size 1, got {}.".format(arg_axis, new_shape[actual])
            for i in sorted(resolved, reverse=True):
                del new_shape[i]
        else:
            new_shape = [s for s in new_shape if s != 1]
        return self.reshape(new_shape or [1])

    def zeros_like(self):
        return invoke("zeros_like", (self,), {})

    def ones_like(self):
        return invoke("ones_like", (self,), {})


def _rebuild(arr, ctx):
    return NDArray(torch.from_numpy(arr).to(as_context(ctx).torch_device))


# ---------------------------------------------------------------------- calling operators
def invoke(op, inputs, kwargs, out=None):
    """Call a registered operator (by name or Operator) on NDArrays with keyword
    attributes: :meth:`Operator.call` (see there)."""
    if type(op) is str:  # pylint: disable=unidiomatic-typecheck
        op = _REGISTRY.get(op) or registry.get(op)
    return op.call(inputs, kwargs, out)


_REGISTRY = registry._REGISTRY
_RESHAPE = registry.get("Reshape")
_NP_RESHAPE = registry.get("_np_reshape")
_GETITEM = _indexing.GETITEM
_POS = registry._POSITIONAL
_VIEW = object()  # marks the keys of NDArray.reshape's keyword calls in Reshape's cache
_RESHAPES, _GETITEMS = _RESHAPE._entries, _GETITEM._entries
# x.reshape(code): the kernel of Reshape's view entry for the code, once it ran (the entry
# itself stays in Reshape's cache, where the generated method finds it to trace or explain)
_VIEW_KERNELS = {}
_INT_KEYS = _indexing._INT_KEYS
_BINARY = {}  # broadcast operator name -> NDArray's method for it (x += y reuses x + y)


def wrap_outputs(res, out=None):
    if isinstance(res, torch.Tensor):
        if out is not None:
            return _write_out(out, res)
        return NDArray(res)
    res = [NDArray(r) for r in res]
    if out is not None:
        outs = out if isinstance(out, (list, tuple)) else [out]
        for o, r in zip(outs, res):
            _write_out(o, r._t)
        return out
    return res


def _write_out(out, t):
    if not isinstance(out, NDArray):
        raise TypeError("out must be an NDArray, got %s" % type(out).__name__)
    if _STATE.recording and t.requires_grad:
        out._t = t
    else:
        if tuple(out._t.shape) != tuple(t.shape):
            raise MXNetError("out= has shape %s but the result has shape %s" % (out.shape, tuple(t.shape)))
        with torch.no_grad():
            out._t.copy_(t)
    return out


registry.set_array_type(NDArray, wrap_outputs)
# x <op> y with an NDArray or a Python number: the steps of Operator.call from the registry's
# one template (registry.run_source), in the method's own frame, for the broadcast operator's
# one entry or the scalar operator's entry for the number; the methods above stay for any
# other operand (an NDArray subclass, numpy scalars, an error)
_BINARY_SOURCE = '''
def method(x0, x1):
    if x0.__class__ is not _ACTIVE.dense:  # a sparse array or another subclass, or a thread
        return _method(x0, x1)            # traces (dense is None): the general method
    cls = x1.__class__
    if cls is _ARRAY:{array}
    if cls is float or cls is int:
        try:
            _entry = _sentries[(_POS, x1, _Null)]
        except KeyError:
            _entry = _sop.lookup((x1, _Null))
        _kernel = _entry.kernel or _sop._mode_kernel(_entry){scalar}
    return _method(x0, x1)
'''
for _name, (_nd, _scalar) in {
        "add": ("broadcast_add", "_plus_scalar"), "sub": ("broadcast_sub", "_minus_scalar"),
        "mul": ("broadcast_mul", "_mul_scalar"), "truediv": ("broadcast_div", "_div_scalar"),
        "div": ("broadcast_div", "_div_scalar"), "mod": ("broadcast_mod", "_mod_scalar"),
        "pow": ("broadcast_power", "_power_scalar"), "eq": ("broadcast_equal", "_equal_scalar"),
        "ne": ("broadcast_not_equal", "_not_equal_scalar"), "gt": ("broadcast_greater", "_greater_scalar"),
        "ge": ("broadcast_greater_equal", "_greater_equal_scalar"), "lt": ("broadcast_lesser", "_lesser_scalar"),
        "le": ("broadcast_lesser_equal", "_lesser_equal_scalar")}.items():
    _aop, _sop = registry.get(_nd), registry.get(_scalar)
    _aentry = _aop.entry({})
    _src = _BINARY_SOURCE.format(
        array=registry.run_source(["x0", "x1"], "        ", (registry.same_dtype_kernel(_aop, 2) or "_kernel").replace(
            "_fast", "_afast").replace("_kernel", "_akernel"), True, "_aop", "_aentry", traced=False),
        scalar=registry.run_source(["x0"], "        ", one=True, op="_sop", traced=False))  # one tensor: a scalar operator's
    _scope = dict(registry.run_scope(), _aop=_aop, _aentry=_aentry,
                  _akernel=(_aentry.kernels or _aop._build(_aentry))[0],
                  _afast=_aop.same_dtype_kernel, _sop=_sop, _sentries=_sop._entries, _POS=_POS, _Null=_Null,
                  _method=getattr(NDArray, "__%s__" % _name))
    exec(compile(_src, "<neogluon.NDArray.__%s__>" % _name, "exec"), _scope)  # pylint: disable=exec-used
    _m = _scope["method"]
    _m.__name__ = _m.__qualname__ = "__%s__" % _name
    setattr(NDArray, "__%s__" % _name, _m)

# x[a:b], x[i] and x.reshape(code) once their entry is cached: the steps of Operator.call
# from the registry's one template (registry.run_source), in the method's own frame; the
# methods above stay for every other key, shape or first call. No test of the array's class:
# sparse and mx.np arrays have methods of their own, and the subclasses that keep these (the
# .grad buffer, a traced array) get from the template what the general method's entry.run gives
_SITES = {
    "__getitem__": (_GETITEM, '''
def __getitem__(self, key):
    cls = key.__class__
    if cls is slice:
        if key.step is None:  # x[a:b]: the kernel is t[key] for every a, b (no entry to look up)
            {slice}
        _key = (slice, key.start, key.stop, key.step)
    elif cls in _INT_KEYS:  # x[i]: the kernel is element(i, t) for every i (no entry to look up)
        {int}
    elif cls is tuple and _plain_slices(key):  # x[a:b, c:d] (a crop): slices(key, t) for every such key
        {slices}
    else:
        return _method(self, key)
    try:
        _entry = _GETITEMS[_key]
    except KeyError:
        _entry = _op.keyed(_key, {"key": key})
    _kernel = _entry.kernel or _op._mode_kernel(_entry)'''),
    "reshape": (_RESHAPE, '''
def reshape(self, *shape, **kwargs):
    if kwargs:
        return _method(self, *shape, **kwargs)
    try:
        _code, = shape
        _kernel = _VIEW_KERNELS[_code]
    except (ValueError, KeyError, TypeError):  # not one code, a first call (it makes the view entry), a list
        return _method(self, *shape)'''),
}


def _view_entry(code):
    """Reshape's view entry for ``x.reshape(code)``: asked by the generated method only when
    the call is traced or fails."""
    return _RESHAPES.get(code) or _RESHAPE.keyed(code, {"shape": code}, view=True)


def _basic_entry(key):
    """GETITEM's entry for ``x[a:b]`` (``key`` a slice without a step) or ``x[i]``, as
    ``__getitem__`` keys it: asked by the generated method only when the call is traced or fails."""
    ck = (key.start, key.stop) if key.__class__ is slice else key
    return _GETITEMS.get(ck) or _GETITEM.keyed(ck, {"key": key})


def _slices_entry(key):
    """GETITEM's entry for ``x[a:b, c:d]`` (a tuple of slices without a step), as
    ``__getitem__`` keys it: asked by the generated method only when the call is traced or
    fails (a random crop's keys are many: one entry each would cost more than the crop)."""
    ck = _indexing.cache_key(key)
    return _GETITEMS.get((_POS, ck)) or _GETITEM.lookup((ck,), {"key": key})


for _name, (_op, _src) in _SITES.items():
    _method = getattr(NDArray, _name)
    _scope = dict(registry.run_scope(), _op=_op, _method=_method, _GETITEMS=_GETITEMS, _RESHAPES=_RESHAPES,
                  _INT_KEYS=_INT_KEYS, _basic_entry=_basic_entry, _view_entry=_view_entry, _element=_indexing.element,
                  _plain_slices=_indexing.plain_slices, _slices=_indexing.slices, _slices_entry=_slices_entry,
                  _VIEW_KERNELS=_VIEW_KERNELS)
    if _name == "__getitem__":  # x[a:b]'s kernel call, GETITEM's kernel for every such key
        _src = _src.replace("{slice}", registry.run_source(
            ["self"], "            ", one=True, entry="_basic_entry(key)", call="_t0[key]").lstrip())
        _src = _src.replace("{int}", registry.run_source(
            ["self"], "        ", one=True, entry="_basic_entry(key)", call="_element(key, _t0)").lstrip())
        _src = _src.replace("{slices}", registry.run_source(
            ["self"], "        ", one=True, entry="_slices_entry(key)", call="_slices(key, _t0)").lstrip())
    entry = "_view_entry(_code)" if _name == "reshape" else "_entry"
    _src += registry.run_source(["self"], one=True, entry=entry) + "\n"  # one tensor from both: its type is not tested
    exec(compile(_src, "<neogluon.NDArray.%s>" % _name, "exec"), _scope)  # pylint: disable=exec-used
    _scope[_name].__doc__ = _method.__doc__
    setattr(NDArray, _name, _scope[_name])
for _name in ("add", "sub", "mul", "truediv", "mod"):
    _m = getattr(NDArray, "__%s__" % _name)
    _BINARY[{"truediv": "broadcast_div"}.get(_name, "broadcast_" + _name)] = _m
_WRITERS = {op_nd: _writer(op_nd, op_scalar) for op_nd, op_scalar in (
    ("broadcast_add", "_plus_scalar"), ("broadcast_sub", "_minus_scalar"), ("broadcast_mul", "_mul_scalar"),
    ("broadcast_div", "_div_scalar"), ("broadcast_mod", "_mod_scalar"))}
