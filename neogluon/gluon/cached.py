"""The hybridization cache behind ``HybridBlock.hybridize()`` and ``SymbolBlock``.

:class:`CachedOp` is MXNet's ``CachedOp`` rebuilt on :func:`neogluon.executor.compile_graph`:
the traced Symbol is compiled once into straight-line Python over torch tensors, and a
call only gathers the input and parameter tensors (in a precomputed order) and runs the
generated function for the current mode (``autograd.is_training()``). While
``autograd.record()`` is on, the graph runs under torch autograd on the parameters' own
leaf tensors, so ``backward`` fills the parameters' gradients exactly as the imperative
path does; auxiliary states (BatchNorm's running statistics) are updated in place by
the operators in train mode.

Blocks that override ``forward`` and call ``mx.nd`` directly are traced with
:class:`Traced` arrays: NDArrays that carry a Symbol. While :func:`tracing` is active,
every operator call (``Operator.call``: the ``mx.nd`` functions, arithmetic, indexing,
``reshape``) builds a Symbol node instead of computing, on the block's inputs and on its
Parameters' data alike, so ``nd.relu(self.dense0(x))`` becomes the same graph that
``F.relu(self.dense0(x))`` gives with ``F = mx.sym``, and ``x * (self.scale.data() * 2)``
multiplies by a graph node, not by the value the parameter had when it was traced.

``_flatten``/``_regroup`` are MXNet's nested-argument helpers.
"""
import contextlib
import operator
import warnings

import torch

from .. import threads as _threads
from ..base import MXNetError, NotImplementedForSymbol
from ..core import STATE as _STATE, TRACING as _TRACING, set_tracing as _set_tracing
from ..executor import compile_graph, cuda_graph, inductor
from ..executor.work import work
from ..ndarray.indexing import GETITEM as _GETITEM, _INT_KEYS
from ..ndarray.ndarray import NDArray
from ..np_mode import FLAGS as _NP_FLAGS
from ..numpy.multiarray import ndarray as _np_ndarray
from ..operator import registry
from ..symbol import Symbol
from ..symbol.symbol import create as _create_symbol

_set_grad_enabled = torch._C._set_grad_enabled  # pylint: disable=protected-access

__all__ = ["CachedOp", "Traced", "tracing", "register_backend", "partition", "flatten", "regroup",
           "wrap_traced", "unwrap_traced", "has_traced", "check_unused"]


# ---------------------------------------------------------------------- nested arguments
def flatten(args, inout_str):
    """``(flat list, format)`` of a nested list of NDArrays/Symbols (None allowed), as MXNet."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], length if length > 1 else 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError("When hybridized, the input of HybridBlock {} must be (nested) list of Symbol"
                         " or NDArray, but got {} of type {}".format(inout_str, str(args), str(type(args))))
    flat, fmts = [], []
    for i in args:
        arg, fmt = flatten(i, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def regroup(args, fmt):
    """Rebuild the nested structure described by ``fmt`` from a flat list."""
    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError("Unsupported encoded format {}.".format(fmt))
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError("We do not support passing types that are not None when the initial "
                                     "HybridBlock has received NoneType and has been hybridized. "
                                     "Received arg = {}, fmt = {}.".format(args[0], fmt))
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError("When hybridized, the output of HybridBlock must be (nested) list of Symbol"
                             " or NDArray, but got {} of type {}".format(args, type(args)))
        ret = []
        for i in fmt:
            res, args = merge(args, i)
            ret.append(res)
        return ret, args
    return merge(args, fmt)[0]


# ---------------------------------------------------------------------- backends
def _default_backend(sym, arg_dict, aux_dict, **options):
    """The default backend: the graph runs as compiled, unpartitioned."""
    return sym


# MXNet 1.9.1's CPU fusion backend, under both its names: its fusions (conv + bn + relu, ...)
# change no result beyond rounding, and torch's CPU kernels are oneDNN's already, so the
# graph runs as compiled. Unknown names raise (MXNet logs them and runs the plain graph).
# "inductor" and these two names also run the graph through torch.compile (executor/inductor.py).
_BACKENDS = {"default": _default_backend, "MKLDNN": _default_backend, "ONEDNN": _default_backend,
             "inductor": _default_backend}


def register_backend(name, partition):
    """Register ``partition(symbol, arg_dict, aux_dict, **backend_opts) -> symbol`` as a
    graph backend usable with ``hybridize(backend=name)`` and ``optimize_for``."""
    _BACKENDS[name] = partition


def partition(block_name, backend, sym, arg_dict, aux_dict, options):
    """Apply a registered backend to a traced graph; MXNetError for an unknown one."""
    fn = _BACKENDS.get(backend)
    if fn is None:
        raise MXNetError("HybridBlock %s: backend %r is not registered (available: %s); register one with "
                         "neogluon.gluon.block.register_backend" % (block_name, backend, ", ".join(sorted(_BACKENDS))))
    return fn(sym, arg_dict, aux_dict, **options)


# ---------------------------------------------------------------------- the cached graph
class CachedOp:
    """A traced Symbol compiled once, with the source of every graph input.

    ``sources`` gives, for each graph input in the compiled function's order, either
    ``(True, i)`` (the i-th non-None data argument) or ``(False, param)`` (a Parameter);
    ``flags`` are hybridize's options (``static_alloc``, ``static_shape``, ``backend``, ...):
    ``backend='inductor'``/``'MKLDNN'``/``'ONEDNN'`` or both static flags compile the graph
    with ``torch.compile`` (executor/inductor.py); else the graph serves every shape as is.
    ``num_data`` is how many non-None data arguments a call passes (default: those the graph
    reads); the parameters follow all of them, also the ones the graph does not use."""

    def __init__(self, sym, sources, flags=(), num_data=None):
        self.symbol = sym
        self.compiled = compile_graph(sym)
        self.sources = list(sources)
        self.flags = dict(flags)
        if inductor.wanted(self.flags):
            self.compiled = inductor.InductorGraph(self.compiled, [not d for d, _ in self.sources],
                                                   self.flags.get("static_shape"))
        if cuda_graph.wanted(self.flags):  # on a GPU, calls replay CUDA graphs (executor/cuda_graph.py)
            self.compiled = cuda_graph.CudaGraphed(self.compiled, [not d for d, _ in self.sources])
        self.params = [p for is_data, p in self.sources if not is_data]
        if num_data is None:
            num_data = sum(1 for is_data, _ in self.sources if is_data)
        # graph input k reads entry perm[k] of  data tensors + parameter tensors
        self.perm = []
        k_param = num_data
        for is_data, src in self.sources:
            if is_data:
                self.perm.append(src)
            else:
                self.perm.append(k_param)
                k_param += 1
        # the usual order (data first, then parameters) needs no permutation
        self.in_order = self.perm == list(range(len(self.perm)))
        self._arrays = {}
        self._tiny = {}  # data shapes -> whether the graph is tiny for them (threads.is_tiny)
        self.callback = None
        self.monitor_all = False

    def param_arrays(self, ctx):
        """The parameters' NDArrays on Context ``ctx`` (cached; refreshed when a parameter's data changes)."""
        cached = self._arrays.get(ctx)
        if cached is not None:
            owners, arrays = cached
            if all(map(operator.is_, map(_DATA, self.params), owners)):
                return arrays
        arrays = [p.data(ctx) for p in self.params]
        self._arrays[ctx] = ([p._data for p in self.params], arrays)
        return arrays

    def __call__(self, args):
        """Run on a list of NDArrays (the non-None data arguments); a list of NDArrays."""
        arrays = self.param_arrays(args[0].context)
        tensors = [a._t for a in args]
        key = tensors[0].shape if len(tensors) == 1 else tuple(t.shape for t in tensors)
        tiny = self._tiny.get(key)
        tensors.extend([a._t for a in arrays])
        if not self.in_order:
            tensors = [tensors[k] for k in self.perm]
        if tiny is None and _threads.adapting():  # the work estimate only when the policy uses it
            tiny = self._is_tiny(key, tensors)
        # intra-op threads: one for a tiny graph, else the cores free now; a prediction that set one
        # thread gives the load's number back when it returns (backward() does after a recorded call)
        began = _threads.adapt(tiny, id(self))
        is_train = _STATE.training
        try:
            if self.callback is not None:
                outs = self._monitored(tensors, is_train)
            else:  # torch's grad mode as recording says (what enable_grad()/no_grad() set, without their objects)
                previous = torch.is_grad_enabled()
                _set_grad_enabled(_STATE.recording)
                try:
                    outs = self.compiled(tensors, is_train)
                finally:
                    _set_grad_enabled(previous)
        finally:  # a prediction's one thread ends with it, also when it raises
            if began and not _STATE.recording:
                _threads.release()
        return [NDArray(o) for o in outs]

    def _is_tiny(self, key, tensors):
        """Whether the graph is tiny for these input tensors (in graph order): estimated once
        per data shape, for at most :data:`_SHAPES_ESTIMATED` shapes (then: not tiny)."""
        if len(self._tiny) >= _SHAPES_ESTIMATED:
            return False
        shapes = {n.name: tuple(t.shape) for n, t in zip(self.compiled.inputs, tensors)}
        tiny = self._tiny[key] = _threads.is_tiny(*work(self.symbol, shapes))
        return tiny

    def _monitored(self, tensors, is_train):
        """Node-by-node execution calling the op hook on each node's outputs (and inputs)."""
        callback, monitor_all = self.callback, self.monitor_all

        def before(node, ins):
            if monitor_all:
                for name, t in zip(node.op.input_names(node.parsed), ins):
                    callback("%s_%s" % (node.name, name), node.op.name, NDArray(t))
            return ins

        def after(node, outs):
            for i, r in enumerate(outs):
                callback(node.output_name(i), node.op.name, NDArray(r))
        with torch.enable_grad() if _STATE.recording else torch.no_grad():
            return self.compiled.run_nodes(tensors, is_train, before, after)


_DATA = operator.attrgetter("_data")
_SHAPES_ESTIMATED = 64  # a graph called with ever new shapes stops estimating its work after these


# ---------------------------------------------------------------------- tracing mx.nd code
def _not_for_symbol(what):
    def fail(self, *args, **kwargs):
        raise NotImplementedForSymbol(what, None)
    fail.__name__ = what
    return fail


class Traced(NDArray):
    """An NDArray standing for a Symbol while a ``forward``-overriding HybridBlock is traced.

    Operators applied to it (``mx.nd.*``, arithmetic, basic indexing, ``reshape``) build
    graph nodes; anything that needs values or shapes (``.shape``, ``.asnumpy()``,
    assignment) raises NotImplementedForSymbol, as it does on a Symbol."""
    __slots__ = ("_sym",)

    def __init__(self, sym):  # pylint: disable=super-init-not-called
        self._sym = sym

    @property
    def _t(self):
        """No tensor: the imperative fast paths of ``mx.nd`` fall back to ``invoke``, which traces."""
        raise AttributeError("a traced array has no tensor")

    shape = property(_not_for_symbol("shape"))
    dtype = property(_not_for_symbol("dtype"))
    size = property(_not_for_symbol("size"))
    ndim = property(_not_for_symbol("ndim"))
    context = ctx = property(_not_for_symbol("context"))
    asnumpy = _not_for_symbol("asnumpy")
    asscalar = _not_for_symbol("asscalar")
    __setitem__ = _not_for_symbol("__setitem__")
    __len__ = _not_for_symbol("__len__")
    __bool__ = _not_for_symbol("__bool__")
    attach_grad = _not_for_symbol("attach_grad")
    backward = _not_for_symbol("backward")
    copyto = _not_for_symbol("copyto")
    as_in_context = _not_for_symbol("as_in_context")

    def __repr__(self):
        return repr(self._sym)

    __str__ = __repr__

    def _inplace(self, other, op_nd, op_scalar):
        raise NotImplementedForSymbol(op_nd, None, other)


class TracedNp(Traced, _np_ndarray):
    """A :class:`Traced` array under ``npx.set_np()``: an ``mx.np.ndarray`` standing for a
    Symbol. Its arithmetic, ``x[key]`` and NumPy methods are those of MXNet's np symbols
    (the Symbol's own, see ``symbol.py`` and ``numpy/_symbol_methods.py``: ``_npi_add``,
    ``slice`` + ``_npx_reshape``, ``_np_sum``, ...), so a traced ``forward`` exports the graph
    ``hybrid_forward(F, ...)`` gives in MXNet 1.9.1; ``mx.np``/``mx.npx`` functions on it trace
    through ``Operator.call`` as on any Traced array."""
    __slots__ = ()


def _via_symbol(name):
    def method(self, *args, **kwargs):
        hook = _TRACING.hook
        args = [a._sym if isinstance(a, Traced) else hook.symbol_of(a, _NAMED(name))
                if isinstance(a, NDArray) and hook is not None else a for a in args]
        return wrap_traced(getattr(self._sym, name)(*args, **kwargs))
    method.__name__ = name
    return method


class _NAMED:  # pylint: disable=too-few-public-methods
    """A stand-in operator for symbol_of's error message."""
    def __init__(self, name):
        self.name = name


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__div__", "__rdiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__eq__", "__ne__",
              "__gt__", "__ge__", "__lt__", "__le__", "__getitem__", "reshape", "transpose", "sum", "mean", "prod",
              "max", "min", "flatten", "squeeze", "argmax", "argmin"):
    setattr(TracedNp, _name, _via_symbol(_name))
TracedNp.T = property(lambda self: wrap_traced(self._sym.T))
TracedNp.__hash__ = NDArray.__hash__  # hashable as a Traced array is (mx.np.ndarray is not)


def _traced(sym):
    """The Traced array of a Symbol: an ``mx.np`` one under ``npx.set_np()``."""
    return TracedNp(sym) if _NP_FLAGS.array else Traced(sym)


class _Tracer:
    """The tracing hook of ``Operator.call``: operator calls become Symbol nodes."""

    def __init__(self, block_name, param_vars):
        self.block_name = block_name
        self.param_vars = param_vars  # id(NDArray of a Parameter's data) -> Symbol variable

    def symbol_of(self, x, op):
        if x is None or isinstance(x, Symbol):
            return x
        if isinstance(x, Traced):
            return x._sym
        if isinstance(x, NDArray):
            var = self.param_vars.get(id(x))
            if var is not None:
                return var
        raise MXNetError("HybridBlock %s: operator %s got %s while hybridized forward was traced; only the "
                         "block's inputs, results of operators on them and Parameters' data() can be used"
                         % (self.block_name, op.name, type(x).__name__))

    def __call__(self, op, inputs, kwargs, out=None):
        if op is _GETITEM:
            return self.getitem(inputs[0], kwargs["key"])
        if out is not None:
            raise MXNetError("HybridBlock %s: out= is not supported while hybridized (operator %s)"
                             % (self.block_name, op.name))
        syms = [self.symbol_of(x, op) for x in inputs]
        res = _create_symbol(op, syms, dict(kwargs), None, None, op.name)
        outs = [_traced(s) for s in res]
        return outs[0] if len(outs) == 1 else outs


    def getitem(self, x, key):
        """``x[key]`` for a basic key (integers and slices, one per leading axis) as a
        ``slice`` node, then ``squeeze`` of the integer axes (an element of a 1-d array
        keeps shape (1,), as MXNet 1.x gives)."""
        keys = key if isinstance(key, tuple) else (key,)
        begin, end, step, ints = [], [], [], []
        for axis, k in enumerate(keys):
            if k.__class__ in _INT_KEYS:
                k = int(k)
                begin.append(k)
                end.append(k + 1 if k != -1 else None)
                step.append(None)
                ints.append(axis)
            elif isinstance(k, slice):
                begin.append(k.start)
                end.append(k.stop)
                step.append(k.step)
            else:
                raise NotImplementedForSymbol("__getitem__ with the index %r (only integers and slices can be "
                                              "traced) in HybridBlock %s" % (key, self.block_name), None)
        out = _SLICE.call((x,), {"begin": tuple(begin), "end": tuple(end), "step": tuple(step)})
        if ints:
            out = _SQUEEZE.call((out,), {"axis": tuple(ints)})
        return out


_SLICE = registry.get("slice")
_SQUEEZE = registry.get("squeeze")


@contextlib.contextmanager
def tracing(block_name, params):
    """Within this scope ``mx.nd`` operators build Symbols from :class:`Traced` arrays;
    ``params`` (Parameters) map their data arrays to their variables."""
    param_vars = {}
    for p in params:
        try:
            arrays = p.list_data()
        except (RuntimeError, MXNetError):  # DeferredInitializationError is an MXNetError
            continue  # not initialised yet: its data() cannot be reached by forward either
        var = p.var()
        for a in arrays:
            param_vars[id(a)] = var
    prev = _set_tracing(_Tracer(block_name, param_vars))
    try:
        yield
    finally:
        _set_tracing(prev)


def wrap_traced(out):
    """Symbols (nested) -> Traced arrays."""
    if isinstance(out, Symbol):
        return _traced(out)
    if isinstance(out, (list, tuple)):
        return type(out)(wrap_traced(o) for o in out)
    return out


def unwrap_traced(out):
    """Traced arrays (nested) -> Symbols."""
    if isinstance(out, Traced):
        return out._sym
    if isinstance(out, (list, tuple)):
        return type(out)(unwrap_traced(o) for o in out)
    return out


def has_traced(args):
    """Whether a (nested) argument list holds a Traced array."""
    for a in args:
        if isinstance(a, Traced) or isinstance(a, (list, tuple)) and has_traced(a):
            return True
    return False


def check_unused(data_names, expected, params):
    """MXNet's warnings for data inputs and parameters the graph does not use."""
    unused_data = [i for name, i in data_names.items() if name not in expected]
    if unused_data:
        warnings.warn("The %s input to HybridBlock is not used by any computation. Is this intended?"
                      % ", ".join("%d-th" % i for i in unused_data), stacklevel=5)
    unused = [name for name in params if name not in expected]
    if unused:
        warnings.warn("Parameter %s is not used by any computation. Is this intended?" % ", ".join(unused),
                      stacklevel=5)

