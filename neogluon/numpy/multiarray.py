"""``mx.np.ndarray``: MXNet 1.9.1's NumPy-interface array (``mxnet/numpy/multiarray.py``).

It is an :class:`~neogluon.ndarray.NDArray` over the same torch tensor with NumPy's
semantics as MXNet implements them under ``npx.set_np()``: 0-d arrays (``x[0]`` of a
1-d array and a full reduction give shape ``()``), broadcasting with MXNet's dtype
promotion (the ``_npi_*`` operators), comparisons giving booleans, NumPy's reshape (no
special codes), ``T``/``item``/``tolist`` and a NumPy ``repr``. ``as_np_ndarray`` and
``as_nd_ndarray`` share the tensor: nothing is copied. Every operation runs through
``Operator.call``; the result of the registry's calls is re-typed here (one class
assignment, the layouts are the same).
"""
import threading

import numpy as _onp
import torch

from ..base import MXNetError, numeric_types, np_type, torch_dtype
from ..context import as_context, current_context
from ..ndarray import NDArray
from ..ndarray.ndarray import placed
from ..ndarray import indexing as _indexing
from ..operator import registry
from ..symbol import Symbol as _Symbol
from ..symbol.symbol import compose as _compose

__all__ = ["ndarray", "array", "as_np", "call"]


class ndarray(NDArray):  # pylint: disable=invalid-name
    """An array of MXNet's NumPy interface (``mx.np.ndarray``)."""
    __slots__ = ()
    _SCALAR_KEYS = "`()`"  # the keys a 0-d array's assignment takes (the legacy NDArray's: () and any slice)

    # ------------------------------------------------------------------ properties
    @property
    def dtype(self):
        """A ``numpy.dtype`` (MXNet's NumPy interface gives ``dtype('float32')``, not the type)."""
        return _onp.dtype(np_type(self._t.dtype))

    @property
    def T(self):
        """The transpose (all axes reversed); a 0-d or 1-d array is returned as is."""
        return self if self.ndim < 2 else self.transpose()

    @property
    def grad(self):
        """The gradient buffer, as an ``mx.np.ndarray`` over the same memory."""
        g = getattr(self, "_grad", None)
        return None if g is None else _view(g._t, g)

    def __len__(self):
        """The size of the first axis; a 0-d array has none: TypeError, as NumPy's and MXNet's arrays (so
        matplotlib, which asks ``len()`` of coordinates and catches TypeError, takes 0-d arrays as scalars)."""
        if not self._t.dim():
            raise TypeError("len() of unsized object")
        return self._t.shape[0]

    def __iter__(self):
        """The sub-arrays along the first axis; none for a 0-d array (MXNet's iterates by indexing until
        IndexError)."""
        for i in range(self._t.shape[0] if self._t.dim() else 0):
            yield self[i]

    def __repr__(self):
        s = repr(self.asnumpy())
        if self._t.dtype in (torch.float32, torch.int64, torch.bool):  # numpy does not print these dtypes ...
            if self._t.dtype == torch.float32 and "dtype=float32" in s:  # ... but float32 here: MXNet drops it
                s = s.replace(", dtype=float32", "")
        if self._t.is_cuda:
            s = s[:-1] + ", ctx=%s)" % self.context
        return s

    def __str__(self):
        return str(self.asnumpy())

    def __hash__(self):
        raise TypeError("unhashable type: 'ndarray'")

    # ------------------------------------------------------------------ conversions
    def item(self, *args):
        """The Python scalar of an element (of a one-element array without arguments)."""
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def __float__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self.size != 1 or self._t.is_floating_point():
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def as_nd_ndarray(self):
        """The same data as a legacy ``mx.nd.NDArray`` (no copy)."""
        return NDArray(self._t)

    def as_np_ndarray(self):
        return self

    def astype(self, dtype, copy=True):  # pylint: disable=arguments-renamed
        if not copy and torch_dtype(dtype) == self._t.dtype:
            return self
        return call("Cast", (self,), {"dtype": _onp.dtype(dtype).name if dtype is not None else "float32"})

    def copy(self, order="C"):  # pylint: disable=arguments-differ
        return as_np(NDArray.copy(self))

    def detach(self):
        return _view(self._t.detach(), self)

    def as_in_context(self, context):
        return as_np(NDArray.as_in_context(self, context))

    as_in_ctx = to_device = as_in_context

    def copyto(self, other):
        r = NDArray.copyto(self, other)
        return as_np(r) if type(r) is NDArray else r  # pylint: disable=unidiomatic-typecheck

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        """``x[key]`` with NumPy's rules: an element is a 0-d array."""
        try:
            cls = key.__class__
            ck = key if cls in _INT_KEYS else _indexing.cache_key(key)
            entry = _GETITEM._entries.get((_POS, ck)) or _GETITEM.lookup((ck,), {"key": key})
        except TypeError:  # an advanced index: not cached
            key = _plain_key(key)
            entry = _GETITEM.new_entry({"key": key})
        res = entry.run(self)  # Operator.call's steps for the entry (registry.run_source)
        if res.__class__ is NDArray:
            res.__class__ = ndarray
        return res

    # ------------------------------------------------------------------ arithmetic
    def _inplace(self, other, op_nd, op_scalar):
        res = binary(self, other, op_nd, op_scalar)
        if res.shape != self.shape:
            raise MXNetError("Shape inconsistent in in-place operation: provided %s, inferred shape %s"
                             % (self.shape, res.shape))
        from ..core import STATE, check_assign
        if STATE.recording:
            check_assign(self._t, other._t if isinstance(other, NDArray) else None)
        with torch.no_grad():
            self._t.copy_(res._t)
        return self

    def __iadd__(self, o):
        return self._inplace(o, "_npi_add", "_npi_add_scalar")

    def __isub__(self, o):
        return self._inplace(o, "_npi_subtract", "_npi_subtract_scalar")

    def __imul__(self, o):
        return self._inplace(o, "_npi_multiply", "_npi_multiply_scalar")

    def __itruediv__(self, o):
        return self._inplace(o, "_npi_true_divide", "_npi_true_divide_scalar")

    def __imod__(self, o):
        return self._inplace(o, "_npi_mod", "_npi_mod_scalar")

    def __neg__(self):
        return call("_npi_negative", (self,))

    def __abs__(self):
        return call("_npi_absolute", (self,))

    def __matmul__(self, other):
        from . import matmul
        return matmul(self, other)

    def __invert__(self):
        return call("_npi_logical_not", (self,))

    # ------------------------------------------------------------------ NumPy methods
    def reshape(self, *shape, order="C", **kwargs):  # pylint: disable=arguments-differ
        """NumPy's reshape: ``-1`` infers one dimension; no MXNet special codes."""
        if kwargs:
            raise TypeError("reshape() got an unexpected keyword argument %r" % next(iter(kwargs)))
        from . import reshape
        return reshape(self, shape[0] if len(shape) == 1 else shape, order=order)

    def transpose(self, *axes):  # pylint: disable=arguments-differ
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        from . import transpose
        return transpose(self, axes or None)

    def flatten(self, order="C"):  # pylint: disable=arguments-differ
        return self.reshape(-1)

    def tile(self, reps):  # pylint: disable=arguments-differ
        from . import tile
        return tile(self, reps)

    def repeat(self, repeats, axis=None):  # pylint: disable=arguments-differ
        from . import repeat
        return repeat(self, repeats, axis)

    def broadcast_to(self, shape):
        from . import broadcast_to
        return broadcast_to(self, shape)


for _name in ("sum", "mean", "max", "min", "prod", "argmax", "argmin", "cumsum", "squeeze", "expand_dims",
              "swapaxes", "clip", "split", "take", "sort", "argsort", "exp", "log", "sqrt", "abs", "tanh",
              "sigmoid", "relu", "softmax", "log_softmax", "dot", "round", "zeros_like", "ones_like", "std",
              "var", "any", "all", "nonzero", "diag", "topk", "pick", "flip", "slice", "sign", "square"):
    setattr(ndarray, _name, None)  # filled in by mx.np (the functions bind the array as their first argument)


def _view(t, like=None):
    """An ``mx.np.ndarray`` of tensor ``t``; ``like``: the array whose context it reports
    (a ``cpu(k)`` lives in ``_ctx``, see ``ndarray.placed``)."""
    a = _new(ndarray)
    a._t = t
    ctx = getattr(like, "_ctx", None)
    if ctx is not None:
        a._ctx = ctx
    return a


def as_np(res):
    """The registry's result re-typed as ``mx.np.ndarray`` (lists of results element-wise;
    a traced array, standing for a graph node, is left as it is)."""
    cls = type(res)
    if cls is NDArray:
        res.__class__ = ndarray
        return res
    if cls is list or cls is tuple:
        return [as_np(r) for r in res]
    if hasattr(res, "_viewed"):  # a .grad buffer (autograd.GradBuffer): an np view of its memory
        return _as_np_ndarray(res)
    return res


class _Building(threading.local):
    """Whether ``F.np``'s functions run in a traced ``hybrid_forward(F, ...)`` (set by
    ``npx``'s symbolic ``F.np``): operators without inputs (``zeros``, ``arange``, the
    samplers) then make graph nodes too, as ``mx.sym.np``'s do in MXNet."""
    symbolic = False


BUILDING = _Building()


def call(name, inputs, attrs=None, out=None):
    """Run the registered operator ``name`` (``Operator.call``) and give ``mx.np`` arrays;
    on Symbols (``hybrid_forward(F, ...)`` with ``F.np``) the call makes a graph node."""
    op = _REG.get(name)
    if not inputs and BUILDING.symbolic:
        return op.call(inputs, attrs, out, None, _compose(None, None, op.name))
    for x in inputs:
        if isinstance(x, _Symbol):
            return op.call(inputs, attrs, out, None, _compose(None, None, op.name))
    return as_np(op.call(inputs, attrs, out))


def _plain_key(key):
    if isinstance(key, NDArray):
        return key._t
    if isinstance(key, tuple):
        return tuple(k._t if isinstance(k, NDArray) else k for k in key)
    return key


def _np_getitem(t, key):
    """``t[key]`` with NumPy's rules (0-d elements), negative steps as in the legacy indexing."""
    if key.__class__ in _indexing._INT_KEYS and t.dim():
        n = t.shape[0]
        if -n <= key < n:
            return t[key]
    elif key.__class__ is slice and t.dim() and (key.step is None or key.step > 0):
        return t[key]
    if isinstance(key, torch.Tensor) or (isinstance(key, tuple) and any(isinstance(k, torch.Tensor) for k in key)):
        keys = key if isinstance(key, tuple) else (key,)
        key = tuple(k if not isinstance(k, torch.Tensor) or k.dtype == torch.bool else k.long() for k in keys)
    pre, flips, k = _indexing._convert_key(key, tuple(t.shape), t.device)
    try:
        return _indexing._flipped(t, pre, flips)[k]
    except (IndexError, RuntimeError) as e:
        raise IndexError("ndarray index %r on shape %s: %s" % (key, tuple(t.shape), e)) from None


def _lower_getitem(*, key):
    """The kernel for one key: ``x[i]`` and ``x[a:b]`` take a view straight away."""
    cls = key.__class__
    if cls in _indexing._INT_KEYS or cls is slice and (key.step is None or key.step > 0):
        def basic(data):
            try:
                return data[key]  # a view, NumPy's element or slice (torch's IndexError: 0-d, out of range)
            except IndexError:
                return _np_getitem(data, key)  # NumPy's error
        return basic
    return lambda data: _np_getitem(data, key)


_GETITEM = registry.Operator("_npi_getitem", None, params=dict(key=registry.Any()),  # the factory is its kernel
                             check=_indexing._no_check,
                             doc="``x[key]`` of an mx.np.ndarray (NumPy's rules), an operator of neogluon only.")
_GETITEM.lowering = _lower_getitem
_POS = registry._POSITIONAL
_INT_KEYS = _indexing._INT_KEYS
_REG = registry
_new = object.__new__


# ---------------------------------------------------------------------- arithmetic
def binary(lhs, rhs, op, op_scalar, rop_scalar=None):
    """``lhs <op> rhs`` for arrays and Python/NumPy scalars: the ``_npi_`` operator, or its
    scalar form (``rop_scalar`` when the scalar is on the left)."""
    if isinstance(lhs, _Symbol) or isinstance(rhs, _Symbol):
        op, op_scalar, rop_scalar = (_GRAPH_NAMES.get(o, o) for o in (op, op_scalar, rop_scalar))
        if isinstance(lhs, _Symbol) and isinstance(rhs, _Symbol):
            return call(op, (lhs, rhs))
        sym, value = (lhs, rhs) if isinstance(lhs, _Symbol) else (rhs, lhs)
        name = op_scalar if sym is lhs else (rop_scalar or op_scalar)
        return call(name, (sym,), dict(scalar=float(value), is_int=isinstance(value, (int, _onp.integer))))
    if isinstance(lhs, NDArray):
        if isinstance(rhs, NDArray):
            return as_np(_REG.get(op).call((lhs, rhs)))
        if isinstance(rhs, numeric_types) or isinstance(rhs, _onp.generic):
            return _scalar(op_scalar, lhs, rhs)
        if isinstance(rhs, (list, tuple, _onp.ndarray)):
            return binary(lhs, array(rhs, dtype=getattr(rhs, "dtype", None), ctx=lhs.context), op, op_scalar)
    elif isinstance(rhs, NDArray):
        if isinstance(lhs, numeric_types) or isinstance(lhs, _onp.generic):
            return _scalar(rop_scalar or op_scalar, rhs, lhs)
        if isinstance(lhs, (list, tuple, _onp.ndarray)):
            return binary(array(lhs, dtype=getattr(lhs, "dtype", None), ctx=rhs.context), rhs, op, op_scalar)
    elif isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return binary(array(lhs), rhs, op, op_scalar)
    raise TypeError("%s: unsupported operand types %s and %s" % (op, type(lhs).__name__, type(rhs).__name__))


# MXNet's np symbols write these operators under their legacy names (in MXNet 1.9.1 the _npi_
# names are aliases of them)
_GRAPH_NAMES = {"_npi_maximum": "broadcast_maximum", "_npi_minimum": "broadcast_minimum",
                "_npi_maximum_scalar": "_maximum_scalar", "_npi_minimum_scalar": "_minimum_scalar"}


def _scalar(name, arr, value):
    op = _REG.get(name)
    is_int = isinstance(value, (int, _onp.integer)) and not isinstance(value, bool) or isinstance(value, bool)
    value = float(value)
    entry = op._entries.get((_POS, value, is_int)) or op.lookup((value, is_int))
    return as_np(op.call((arr,), None, None, entry))


def _dunder(op, op_scalar, rop_scalar=None, reflected=False):
    array_op = _REG.get(op)
    scalar_op = _REG.get((rop_scalar or op_scalar) if reflected else op_scalar)
    entries = scalar_op._entries
    plain = array_op.entry({})

    def method(self, other):
        cls = other.__class__
        if cls is float or cls is int:  # the common scalar: its cache entry by position
            entry = entries.get((_POS, float(other), cls is int)) or scalar_op.lookup((float(other), cls is int))
            res = entry.run(self)
        elif isinstance(other, NDArray):
            res = plain.run(other, self) if reflected else plain.run(self, other)
        elif reflected:
            return binary(other, self, op, op_scalar, rop_scalar)
        else:
            return binary(self, other, op, op_scalar, rop_scalar)
        if res.__class__ is NDArray:
            res.__class__ = ndarray
        return res
    return method


ARITHMETIC = {  # dunder: (operator of two arrays, of array <op> scalar, of scalar <op> array)
    "add": ("_npi_add", "_npi_add_scalar", "_npi_add_scalar"),
    "sub": ("_npi_subtract", "_npi_subtract_scalar", "_npi_rsubtract_scalar"),
    "mul": ("_npi_multiply", "_npi_multiply_scalar", "_npi_multiply_scalar"),
    "truediv": ("_npi_true_divide", "_npi_true_divide_scalar", "_npi_rtrue_divide_scalar"),
    "mod": ("_npi_mod", "_npi_mod_scalar", "_npi_rmod_scalar"),
    "pow": ("_npi_power", "_npi_power_scalar", "_npi_rpower_scalar")}
COMPARISONS = {n: ("_npi_" + o, "_npi_%s_scalar" % o) for n, o in {
    "eq": "equal", "ne": "not_equal", "gt": "greater", "ge": "greater_equal", "lt": "less", "le": "less_equal"}.items()}
for _n, (_op, _s, _r) in ARITHMETIC.items():
    setattr(ndarray, "__%s__" % _n, _dunder(_op, _s, _r))
    setattr(ndarray, "__r%s__" % _n, _dunder(_op, _s, _r, reflected=True))
for _n, (_op, _s) in COMPARISONS.items():
    setattr(ndarray, "__%s__" % _n, _dunder(_op, _s))
ndarray.__div__, ndarray.__rdiv__ = ndarray.__truediv__, ndarray.__rtruediv__


# ---------------------------------------------------------------------- array()
def array(object, dtype=None, ctx=None, device=None):  # pylint: disable=redefined-builtin
    """``mx.np.array``: a copy of any array-like; Python numbers and lists give float32
    (MXNet's default dtype), a NumPy array or an ``mx`` array keeps its dtype."""
    ctx = as_context(device or ctx or current_context())
    dev = ctx.torch_device
    if isinstance(object, NDArray):
        t = object._t.detach()
        dt = t.dtype if dtype is None else torch_dtype(dtype)
    else:
        src = _onp.asarray(object)
        if src.dtype.kind not in "biuf":
            raise TypeError("mx.np.array: cannot make an array of %r" % (object,))
        if dtype is None:
            dtype = src.dtype if isinstance(object, (_onp.ndarray, _onp.generic)) else "float32"
            if src.dtype == _onp.float64 and not isinstance(object, (_onp.ndarray, _onp.generic)):
                dtype = "float32"
        dt = torch_dtype(dtype)
        t = torch.from_numpy(_onp.ascontiguousarray(src).reshape(src.shape))
    return placed(_view(t.to(device=dev, dtype=dt, copy=True)), ctx)


def _as_np_ndarray(self):
    """``NDArray.as_np_ndarray()``: the same data as an ``mx.np.ndarray`` (no copy). A
    ``.grad`` buffer learns that a view of it exists, so later gradients are copied into
    this memory rather than handed over (see ``autograd.GradBuffer``)."""
    if hasattr(self, "_viewed"):
        self._viewed = True
    return _view(self._t, self)


NDArray.as_np_ndarray = _as_np_ndarray
