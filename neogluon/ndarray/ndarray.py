"""``NDArray``: MXNet 1.9.1's n-dimensional array, wrapping one ``torch.Tensor``.

Semantics follow MXNet, not torch, where they differ: ``dtype`` is a numpy type,
arithmetic and comparisons keep the input dtype (comparisons give 0/1; a float scalar
meets an integer array as an integer), an integer index of a 1-d array gives shape
``(1,)`` (only ``nd.array`` of a Python scalar is 0-d), operands other than NDArrays and
numbers raise TypeError, and operators are recorded for autograd only inside
``autograd.record()``, where writing into an array that is part of the graph raises.
"""
import threading
import warnings

import numpy as np
import torch
import torch.utils.dlpack

from .. import autograd
from ..base import MXNetError, numeric_types, np_type, torch_dtype, integer_types
from ..context import Context, as_context
from ..operator import registry

__all__ = ["NDArray", "apply_op", "invoke"]

_STATE = autograd.STATE
_new = object.__new__  # NDArray without __init__ (see NDArray)


def _arithmetic(op_nd, op_scalar, reflected=False):
    """The method for ``x <op> y`` (``reflected``: ``y <op> x``). With a plain NDArray or a
    Python number as ``y`` it calls the registry operator's implementation straight on the
    tensors (the hottest path of mx.nd); anything else (a traced array, numpy scalars, an
    error to explain) goes through ``NDArray._binary``."""
    array_fn, scalar_fn = registry.get(op_nd).fn, registry.get(op_scalar).fn
    kernel = getattr(array_fn, "same_dtype_kernel", array_fn)

    def method(self, other):
        cls = type(other)
        if cls is NDArray and not reflected:
            try:  # a traced array has no _t: it goes to its _binary
                a, b = self._t, other._t
                if (a.requires_grad or b.requires_grad) and not _STATE.recording:
                    a, b = a.detach(), b.detach()
                res = _new(NDArray)
                res._t = kernel(a, b) if a.dtype is b.dtype else array_fn(a, b)
                return res
            except Exception:  # pylint: disable=broad-except
                pass  # _binary raises MXNet's error
        elif cls is float or cls is int:
            try:
                a = self._t
                if a.requires_grad and not _STATE.recording:
                    a = a.detach()
                res = _new(NDArray)
                res._t = scalar_fn(a, scalar=float(other))
                return res
            except Exception:  # pylint: disable=broad-except
                pass
        return self._binary(other, op_nd, op_scalar, reflected)
    method.__name__ = "__%s%s__" % ("r" if reflected else "", op_nd.split("_", 1)[1])
    return method


_CONTEXTS = {}  # torch.device -> the Context NDArray.context gives for it
# index types of x[i]'s fast path: Python's int and numpy's (samplers yield numpy.int64)
_INT_KEYS = frozenset([int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8])


class NDArray:
    """An array on a device (``mx.nd.NDArray``).

    Its state is its tensor, ``_t``. The autograd slots (``_grad``, ``_grad_req``,
    ``_fresh_grad``) are set only when the array becomes a variable (``attach_grad``) and
    are read with defaults, so an array is one assignment: the operators' fast paths
    make their results with ``_new(NDArray)`` and ``._t = tensor``, which skips the
    ``__init__`` call (about 0.15 us, a tenth of a small torch op)."""
    __slots__ = ("_t", "_grad", "_grad_req", "_fresh_grad", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, tensor):
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
        """The device the array lives on (``cpu(0)``, ``gpu(i)``), one Context per device."""
        dev = self._t.device
        ctx = _CONTEXTS.get(dev)
        if ctx is None:
            ctx = _CONTEXTS[dev] = Context("gpu", dev.index or 0) if dev.type == "cuda" else Context("cpu", 0)
        return ctx

    ctx = context

    @property
    def stype(self):
        """The storage type: always 'default' (dense) in neogluon."""
        return "default"

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
        return self._t.detach().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        return a.astype(dtype) if dtype is not None else a

    # ------------------------------------------------------------------ conversions
    def asnumpy(self):
        """A numpy copy of the contents (blocks until computed); bfloat16 contents (AMP)
        come as float32, numpy having no bfloat16."""
        t = self._t.detach().cpu()
        return (t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()

    def asscalar(self):
        """The value of a one-element array as a numpy scalar (``asnumpy()[0]``; MXNet
        returns ``asnumpy()[()]``, the whole numpy array, for other shapes of size 1)."""
        if self.size != 1:
            raise ValueError("The current array is not a scalar")
        a = self.asnumpy()
        return a[0] if a.ndim == 1 else a[()]

    def astype(self, dtype, copy=True):
        """A copy converted to ``dtype``; the array itself when ``copy=False`` and the dtype matches."""
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
            if other._t is self._t:
                warnings.warn("You are attempting to copy an array to itself", RuntimeWarning)
                return False
            if other.shape != self.shape:
                raise MXNetError("copyto: shape mismatch, source %s vs target %s" % (self.shape, other.shape))
            if _STATE.recording:
                autograd.check_assign(other._t)
            with torch.no_grad():
                other._t.copy_(self._t)
            return other
        if isinstance(other, Context):
            return NDArray(self._t.detach().to(other.torch_device, copy=True))
        raise TypeError("copyto does not support type " + str(type(other)))

    def as_in_context(self, context):
        """This array if it is already on ``context``, else a copy there."""
        ctx = as_context(context)
        if ctx.torch_device == self._t.device:
            return self
        return self.copyto(ctx)

    as_in_ctx = as_in_context

    def tostype(self, stype):
        """A dense copy; neogluon has no sparse storage, so other stypes raise MXNetError."""
        if stype != "default":
            raise MXNetError("tostype(%r): neogluon stores arrays densely; only 'default' is supported" % stype)
        return self.copy()

    def as_nd_ndarray(self):
        return self

    def wait_to_read(self):
        """Block until pending (CUDA) computation writing this array has finished."""
        if self._t.is_cuda:
            torch.cuda.synchronize(self._t.device)

    def to_dlpack_for_read(self):
        """A DLPack capsule viewing this array."""
        self.wait_to_read()
        return torch.utils.dlpack.to_dlpack(self._t.detach())

    def to_dlpack_for_write(self):
        """A DLPack capsule through which this array may be written."""
        return torch.utils.dlpack.to_dlpack(self._t.detach())

    def detach(self):
        """The same data outside any recorded graph (gradients stop here)."""
        return NDArray(self._t.detach())

    # ------------------------------------------------------------------ autograd
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate a zero gradient buffer (``.grad``) and mark this array as a variable;
        ``grad_req`` is 'write' (each backward overwrites), 'add' (accumulates) or 'null'."""
        autograd.attach_grads([self], grad_req)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Backpropagate from this array (``out_grad`` defaults to ones); see ``autograd.backward``."""
        autograd.backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        cls = key.__class__
        if (cls is slice and key.step is None) or cls in _INT_KEYS:  # x[a:b], x[i]: views, as torch and MXNet give
            try:
                t = self._t
                if t.requires_grad and not _STATE.recording:
                    t = t.detach()
                if cls is not slice and t.dim() == 1:  # MXNet gives shape (1,) for an element of a 1-d array
                    i = key + t.shape[0] if key < 0 else key
                    if not 0 <= i < t.shape[0]:
                        raise IndexError(key)  # the general path words the error
                    key = slice(i, i + 1)
                res = _new(NDArray)
                res._t = t[key]
                return res
            except Exception:  # pylint: disable=broad-except
                pass  # a 0-d array, an index out of bounds: the general path explains it
        return _getitem(self, key)

    def __setitem__(self, key, value):
        _setitem(self, key, value)

    # ------------------------------------------------------------------ arithmetic
    def _binary(self, other, op_nd, op_scalar, reflected=False):
        """``self <op> other``: the registry's broadcast op for two arrays, its scalar op for a
        number. The operator's implementation is called directly (the hottest path)."""
        if isinstance(other, NDArray):
            op = _OPS[op_nd]
            a, b = (other._t, self._t) if reflected else (self._t, other._t)
            if not _STATE.recording and (a.requires_grad or b.requires_grad):
                a, b = a.detach(), b.detach()
            try:
                return NDArray(op.fn(a, b))
            except MXNetError:
                raise
            except (RuntimeError, ValueError, IndexError, TypeError) as e:
                raise registry.shape_error(op, {}, (a, b), e) from None
        if isinstance(other, numeric_types):
            a = self._t
            if not _STATE.recording and a.requires_grad:
                a = a.detach()
            return NDArray(_OPS[op_scalar].fn(a, scalar=float(other)))
        raise TypeError("type %s not supported" % str(type(other)))

    def _inplace(self, other, op_nd, op_scalar):
        """``x += y`` and friends: written into ``x``'s memory; while recording MXNet
        refuses it when ``x`` is in a graph or ``y`` is recorded."""
        if _STATE.recording:
            autograd.check_assign(self._t, other._t if isinstance(other, NDArray) else None)
        res = self._binary(other, op_nd, op_scalar)
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
        """``x.reshape((0, -1))`` or ``x.reshape(0, -1)``, with MXNet's special codes."""
        if not kwargs:  # the common x.reshape((0, -1)): the lowered Reshape, cached per shape code
            try:
                low = _RESHAPES[shape[0] if len(shape) == 1 else shape]
                t = self._t
            except (KeyError, TypeError, IndexError, AttributeError):
                pass  # first use of this code, a list, a traced array: the checked path below
            else:
                if t.requires_grad and not _STATE.recording:
                    t = t.detach()
                try:
                    res = _new(NDArray)
                    res._t = low(t)
                    return res
                except Exception:  # pylint: disable=broad-except
                    pass  # an error: the generated function explains it
        unknown = [k for k in kwargs if k not in ("shape", "reverse")]
        if unknown:
            raise TypeError("Got unknown keywords in reshape: %s. Accepted keyword arguments are 'shape' "
                            "and 'reverse'." % ", ".join(unknown))
        key = shape[0] if len(shape) == 1 else shape
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        elif not shape:
            shape = kwargs.pop("shape", None)
            if shape is None:
                raise TypeError("reshape: the shape must be provided")
        shape = tuple(shape)
        if not kwargs and isinstance(key, (tuple, int)) and len(_RESHAPES) < 1024:
            _RESHAPES[key] = registry.get("Reshape").lowered({"shape": shape})[1]
        return GENERATED["Reshape"](self, shape=shape, **kwargs)

    def broadcast_to(self, shape):
        return invoke("broadcast_to", (self,), {"shape": tuple(shape)})

    def zeros_like(self):
        return invoke("zeros_like", (self,), {})

    def ones_like(self):
        return invoke("ones_like", (self,), {})


def _rebuild(arr, ctx):
    return NDArray(torch.from_numpy(arr).to(as_context(ctx).torch_device))


# ---------------------------------------------------------------------- calling operators
def apply_op(op, tensors, attrs):
    """Run ``op`` on torch tensors with parsed attributes, as MXNet's imperative mode does.

    Outside ``autograd.record()`` inputs are detached, so no graph is built; a torch
    error becomes an MXNetError naming the operator and the input shapes."""
    if not _STATE.recording:
        for t in tensors:
            if t is not None and t.requires_grad:
                tensors = [None if x is None else x.detach() for x in tensors]
                break
    if op.mode_dependent:
        attrs = dict(attrs, is_train=_STATE.training)
    try:
        return op.fn(*tensors, **attrs)
    except MXNetError:
        raise
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        raise registry.shape_error(op, attrs, tensors, e) from None


def _tensors(op, attrs, inputs):
    """The torch tensors of the declared inputs, checking their count and types."""
    n = op.arity
    if n is None:
        n = len(op.input_names(attrs))
    if len(inputs) == n:
        try:
            return [x._t for x in inputs]
        except AttributeError:
            pass  # a None or a non-NDArray input: explained below
    names = op.input_names(attrs)
    if len(inputs) > n:  # optional inputs not given are dropped, as MXNet's generated functions do
        inputs = tuple(x for x in inputs if x is not None)
    if len(inputs) < n:
        inputs = tuple(inputs) + (None,) * (n - len(inputs))
    ts = []
    for i in range(n):
        x = inputs[i]
        if isinstance(x, NDArray):
            ts.append(x._t)
        elif x is None:
            raise MXNetError("Operator %s expects %d inputs (%s) but input '%s' was not given"
                             % (op.name, n, ", ".join(names), names[i]))
        else:
            raise TypeError("Operator %s: input '%s' must be an NDArray, got %s"
                            % (op.name, names[i], type(x).__name__))
    extra = [x for x in inputs[n:] if x is not None]
    if extra:
        raise MXNetError("Operator %s expects %d inputs (%s) but %d were given"
                         % (op.name, n, ", ".join(names), n + len(extra)))
    return ts


_REGISTRY = registry._REGISTRY
# the generated mx.nd functions by operator name (filled by neogluon.ndarray), for methods
# that call an operator with a fixed name on their fast path
GENERATED = {}
_RESHAPES = {}  # NDArray.reshape's lowered Reshape per shape code


class _Tracing(threading.local):
    """While a HybridBlock that overrides ``forward`` is traced, ``hook`` turns operator
    calls into Symbol nodes (see :mod:`neogluon.gluon.cached`)."""
    hook = None


TRACING = _Tracing()


def invoke(op, inputs, kwargs, out=None):
    """Call a registered operator (by name or Operator) on NDArrays with keyword attributes.

    This is ``mx.nd.<op>``'s body, so it is written for speed: attributes come from the
    operator's parse cache, and the common input counts avoid any loop."""
    if type(op) is str:  # pylint: disable=unidiomatic-typecheck
        op = _REGISTRY.get(op) or registry.get(op)
    if TRACING.hook is not None:
        return TRACING.hook(op, inputs, kwargs, out)
    if kwargs:
        attrs = op.parse_attrs(kwargs)
    else:
        attrs = op.default_attrs
        if attrs is None:
            attrs = op.parse_attrs(kwargs)
    n = op.arity
    try:
        if n == 1 and len(inputs) == 1:
            ts = (inputs[0]._t,)
        elif n == 2 and len(inputs) == 2:
            ts = (inputs[0]._t, inputs[1]._t)
        else:
            ts = _tensors(op, attrs, inputs)
    except AttributeError:
        ts = _tensors(op, attrs, inputs)
    # apply_op, inlined: this is the hottest path of imperative code
    if not _STATE.recording:
        for t in ts:
            if t is not None and t.requires_grad:
                ts = [None if x is None else x.detach() for x in ts]
                break
    if op.mode_dependent:
        attrs = dict(attrs, is_train=_STATE.training)
    try:
        res = op.fn(*ts, **attrs)
    except MXNetError:
        raise
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        raise registry.shape_error(op, attrs, ts, e) from None
    if out is None and type(res) is torch.Tensor:  # pylint: disable=unidiomatic-typecheck
        return NDArray(res)
    return wrap_outputs(res, out)


from .indexing import getitem as _getitem, setitem as _setitem  # noqa: E402  (needs NDArray defined)


class _OpTable(dict):
    """Operators by name, resolved on first use (the registry is filled at import time)."""

    def __missing__(self, name):
        op = self[name] = registry.get(name)
        return op


_OPS = _OpTable()


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


def is_int_index(k):
    return isinstance(k, integer_types) and not isinstance(k, bool)
