"""``Executor``: a bound symbol (MXNet 1.9.1's ``Symbol.bind``/``simple_bind`` result).

The executor holds the argument, gradient and auxiliary arrays, and runs the symbol's
compiled graph (:mod:`neogluon.executor.compiler`) on their tensors. ``forward(is_train=True)``
records with torch autograd for the arguments whose ``grad_req`` is not 'null';
``backward`` delivers the gradients: 'write' overwrites, 'add' accumulates.
"""
import numpy as np
import torch

from .. import threads as _threads
from ..base import MXNetError, torch_dtype
from ..context import as_context, current_context
from ..ndarray.ndarray import NDArray
from ..symbol.symbol import Symbol
from .compiler import compile_graph
from .monitored import MonitoredRun
from .work import work

__all__ = ["Executor", "bind", "simple_bind"]

GRAD_REQS = ("write", "add", "null")


class Executor:
    """Runs a symbol on bound arrays; see :func:`bind` and :func:`simple_bind`."""

    def __init__(self, symbol, ctx, arg_arrays, grad_arrays, grad_reqs, aux_arrays, compiled=None):
        self._symbol = symbol
        self._ctx = ctx
        self._compiled = compiled or compile_graph(symbol)
        self._arg_names = self._compiled.arg_names
        self._aux_names = self._compiled.aux_names
        self.arg_arrays = list(arg_arrays)
        self.grad_arrays = list(grad_arrays)
        self.aux_arrays = list(aux_arrays)
        self._grad_req = dict(zip(self._arg_names, grad_reqs))
        self.arg_dict = dict(zip(self._arg_names, self.arg_arrays))
        self.grad_dict = dict(zip(self._arg_names, self.grad_arrays))  # None for grad_req 'null', as MXNet
        self.aux_dict = dict(zip(self._aux_names, self.aux_arrays))
        every = dict(self.arg_dict, **self.aux_dict)
        self._inputs = [every[n] for n in self._compiled.input_names]
        self._grad_pos = [k for k, n in enumerate(self._compiled.input_names)
                          if self._grad_req.get(n, "null") != "null" and self.grad_dict.get(n) is not None]
        self._outputs = None
        self._leaves = None
        self._tiny = None
        self._output_arrays = None
        self._monitor = None  # (callback, monitor_all): set_monitor_callback
        self._monitored = None  # the MonitoredRun of the last forward, while a monitor is set

    @property
    def outputs(self):
        """The output arrays. As MXNet's, they exist from the bind on (zeros of the inferred
        shapes until the first forward) and are the same arrays after every forward, so a
        reference taken once (``out = exe.outputs[0]``) reads each forward's result."""
        if self._output_arrays is None:
            self._output_arrays = self._allocate_outputs()
        return self._output_arrays

    def _allocate_outputs(self):
        shapes = {n: tuple(a.shape) for n, a in self.arg_dict.items()}
        try:
            _, out_shapes, _ = self._symbol.infer_shape(**shapes)
            _, out_types, _ = self._symbol.infer_type(**{n: a.dtype for n, a in self.arg_dict.items()})
        except MXNetError:
            return []
        if out_shapes is None or out_types is None:
            return []
        device = self.arg_arrays[0]._t.device if self.arg_arrays else None
        return [NDArray(torch.zeros(s, dtype=torch_dtype(t), device=device)) for s, t in zip(out_shapes, out_types)]

    @property
    def output_dict(self):
        return dict(zip(self._compiled.output_names, self.outputs))

    def forward(self, is_train=False, **kwargs):
        """Run the graph; keywords are copied into the bound argument arrays first."""
        if self._tiny is None and _threads.adapting():  # the bound shapes' work, once (neogluon/executor/work.py)
            self._tiny = _threads.is_tiny(*work(self._symbol, {n: tuple(a.shape) for n, a in zip(
                self._compiled.input_names, self._inputs)}))
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise MXNetError("forward: unknown argument %s (arguments: %s)" % (name, ", ".join(self._arg_names)))
            _copy_into(self.arg_dict[name], value, name)
        # intra-op threads as a block's call: one for a tiny graph, else the free cores; given back
        # after a forward that records nothing (also when it raises), else after backward
        began = _threads.adapt(self._tiny, id(self))
        tensors = [a._t for a in self._inputs]
        self._monitored = None if self._monitor is None else MonitoredRun(self._compiled, *self._monitor)
        if is_train and self._grad_pos:
            tensors = [t.detach() for t in tensors]
            for k in self._grad_pos:
                tensors[k].requires_grad_(True)
            if self._monitored is not None:
                outs = self._monitored.forward(tensors, True, record=True)
            else:
                with torch.enable_grad():
                    outs = self._compiled(tensors, True)
            self._leaves = [tensors[k] for k in self._grad_pos]
        else:
            try:
                if self._monitored is not None:
                    outs = self._monitored.forward(tensors, bool(is_train), record=False)
                else:
                    with torch.no_grad():
                        outs = self._compiled(tensors, bool(is_train))
            finally:
                if began:
                    _threads.release()
            self._leaves = None
        self._outputs = outs
        arrays = self._output_arrays
        if arrays is not None and len(arrays) == len(outs):
            for arr, o in zip(arrays, outs):
                arr._t = o
        else:
            self._output_arrays = [NDArray(o) for o in outs]
        return self._output_arrays

    def backward(self, out_grads=None, is_train=True):
        """Gradients of the outputs (weighted by ``out_grads``, ones by default) into ``grad_arrays``."""
        if not self._grad_pos:
            return
        if self._leaves is None:
            raise MXNetError("backward: call forward(is_train=True) first; the last forward did not record "
                             "a graph for gradients")
        heads, grads = self._heads(out_grads)
        names = [self._compiled.input_names[k] for k in self._grad_pos]
        if heads:
            try:
                if self._monitored is not None:
                    res = self._monitored.backward(heads, grads, self._leaves)
                else:
                    res = torch.autograd.grad(heads, self._leaves, grads, retain_graph=True, allow_unused=True)
            except RuntimeError as e:
                raise MXNetError("backward failed: %s" % str(e).split("\n")[0]) from None
        else:
            res = [None] * len(names)
        with torch.no_grad():
            for name, g in zip(names, res):
                _deliver(self.grad_dict[name], g, self._grad_req[name])
        _threads.release()  # a tiny graph's work is done: the load's number of threads again

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, handle)`` after each node of every later forward and backward,
        as MXNet's executor does (``name`` as bytes, ``handle`` standing for the array:
        ``NDArray(ctypes.cast(handle, NDArrayHandle))`` while the callback runs): each operator's
        outputs, with ``monitor_all`` also its inputs, and in the backward the gradients it
        hands its arguments (see executor/monitored.py). The graph then runs node by node."""
        self._monitor = None if callback is None else (callback, bool(monitor_all))

    def _heads(self, out_grads):
        outs = self._outputs
        if out_grads is None:
            out_grads = [None] * len(outs)
        elif isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        elif isinstance(out_grads, dict):
            out_grads = [out_grads.get(n) for n in self._compiled.output_names]
        if len(out_grads) != len(outs):
            raise MXNetError("backward: %d head gradients for %d outputs" % (len(out_grads), len(outs)))
        # MXNet: an output listed twice in a Group (one graph entry) takes the last of its
        # head gradients, not their sum
        entries = [(id(n), i) for n, i in self._compiled.symbol._outputs]
        last = {e: k for k, e in enumerate(entries)}
        heads, grads = [], []
        for k, (o, g) in enumerate(zip(outs, out_grads)):
            if not o.requires_grad or last[entries[k]] != k:
                continue
            if g is not None and tuple(g.shape) != tuple(o.shape):
                raise MXNetError("backward: head gradient of shape %s for an output of shape %s"
                                 % (tuple(g.shape), tuple(o.shape)))
            heads.append(o)
            grads.append(torch.ones_like(o) if g is None else g._t.to(device=o.device, dtype=o.dtype))
        return heads, grads

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy parameter values into the bound arrays (by name)."""
        for params, target, kind in ((arg_params, self.arg_dict, "argument"), (aux_params or {}, self.aux_dict, "aux")):
            for name, value in params.items():
                if name in target:
                    _copy_into(target[name], value, name)
                elif not allow_extra_params:
                    raise ValueError("Find name \"%s\" that is not in the %ss" % (name, kind))

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes, sharing the arrays whose shape is unchanged. As
        MXNet's: an array that shrinks is a view of the first elements of the old one (shared
        memory), one that grows needs ``allow_up_sizing`` (a new array), and an array not named in
        ``kwargs`` may change shape only with ``partial_shaping``."""
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError("reshape: cannot infer every shape from %s" % kwargs)
        sizing = dict(given=kwargs, partial_shaping=partial_shaping, allow_up_sizing=allow_up_sizing)
        args = [_resized("arg", n, a, s, **sizing)
                for n, a, s in zip(self._arg_names, self.arg_arrays, arg_shapes)]
        grads = [None if g is None else _resized("arg", n, g, s, **sizing)
                 for n, g, s in zip(self._arg_names, self.grad_arrays, arg_shapes)]
        auxs = [_resized("aux", n, a, s, **sizing)
                for n, a, s in zip(self._aux_names, self.aux_arrays, aux_shapes)]
        reqs = [self._grad_req[n] for n in self._arg_names]
        return Executor(self._symbol, self._ctx, args, grads, reqs, auxs, self._compiled)

    def debug_str(self):
        """The generated Python source of the compiled graph."""
        return "\n".join(self._compiled.sources.values()) or "<not run yet>"


def _resized(kind, name, arr, shape, given, partial_shaping, allow_up_sizing):
    """``arr`` for the new ``shape`` in ``Executor.reshape`` (graph_executor.cc's rules and messages)."""
    shape = tuple(shape)
    if arr.shape == shape:
        return arr
    if name not in given and not partial_shaping:
        raise MXNetError("Shape of unspecifie %s: %s changed. This can cause the new executor to not share "
                         "parameters with the old one. Please check for error in network.If this is intended, "
                         "set partial_shaping=True to suppress this warning." % (kind, name))
    size = int(np.prod(shape))
    if size > arr.size:
        if not allow_up_sizing:
            raise MXNetError("Check failed: allow_up_sizing: New shape of %s: %s is larger than original.First "
                             "making a big executor and then down sizing it is more efficient than the reverse."
                             "If you really want to up size, set allow_up_sizing=True to enable allocation of "
                             "new arrays." % (kind, name))
        return NDArray(torch.zeros(shape, dtype=arr._t.dtype, device=arr._t.device))
    return NDArray(arr._t.reshape(-1)[:size].view(shape))


def _copy_into(target, value, name):
    src = value._t if isinstance(value, NDArray) else torch.as_tensor(np.asarray(value))
    if tuple(src.shape) != tuple(target._t.shape):
        raise MXNetError("Shape of %s does not match: bound array %s, given %s"
                         % (name, tuple(target._t.shape), tuple(src.shape)))
    with torch.no_grad():
        target._t.copy_(src)


def _deliver(buf, g, req):
    if g is None:
        if req == "write":
            buf._t.zero_()
    elif req == "add":
        buf._t.add_(g)
    else:
        buf._t.copy_(g)


# ---------------------------------------------------------------------- binding
def _as_list(values, names, what, required=True):
    """Arrays in ``names`` order from a list or a dict (None where a dict lacks a name)."""
    if values is None:
        if required and names:
            raise MXNetError("bind: %s must be given for %s" % (what, ", ".join(names)))
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and required:
            raise MXNetError("bind: %s is missing %s (needed: %s)" % (what, ", ".join(missing), ", ".join(names)))
        out = [values.get(n) for n in names]
    else:
        out = list(values)
        if len(out) != len(names):
            raise MXNetError("bind: %d %s given but the symbol has %d (%s)" % (len(out), what, len(names), ", ".join(names)))
    for n, a in zip(names, out):
        if a is not None and not isinstance(a, NDArray):
            raise TypeError("bind: %s %s must be an NDArray, got %s" % (what, n, type(a).__name__))
    return out


def _grad_reqs(grad_req, names):
    if isinstance(grad_req, str):
        reqs = [grad_req] * len(names)
    elif isinstance(grad_req, dict):
        reqs = [grad_req.get(n, "null") for n in names]
    else:
        reqs = list(grad_req)
        if len(reqs) != len(names):
            raise MXNetError("bind: %d grad_req values for %d arguments" % (len(reqs), len(names)))
    bad = [r for r in reqs if r not in GRAD_REQS]
    if bad:
        raise MXNetError("grad_req must be one of 'write', 'add', 'null', got %r" % (bad[0],))
    return reqs


def bind(symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None):
    """Bind arrays to a symbol's arguments (and gradient buffers, auxiliary states)."""
    compiled = compile_graph(symbol)
    arg_arrays = _as_list(args, compiled.arg_names, "args")
    grad_arrays = _as_list(args_grad, compiled.arg_names, "args_grad", required=False)
    aux_arrays = _as_list(aux_states or ([] if not compiled.aux_names else None), compiled.aux_names, "aux_states")
    reqs = _grad_reqs(grad_req, compiled.arg_names)
    reqs = [r if g is not None else "null" for r, g in zip(reqs, grad_arrays)]
    return Executor(symbol, ctx, arg_arrays, grad_arrays, reqs, aux_arrays, compiled)


def simple_bind(symbol, ctx, grad_req="write", type_dict=None, shapes=None):
    """Bind with zero arrays allocated from the inferred shapes and types."""
    from ..symbol.infer import infer_graph, known
    compiled = compile_graph(symbol)
    given = {k: tuple(v) for k, v in (shapes or {}).items()}
    g = infer_graph(symbol, given, type_dict or {})
    entries = {n.name: g.entry(n, 0) for n in compiled.inputs}
    unknown = ["%s: %s" % (n, entries[n][0]) for n in compiled.input_names if not known(entries[n][0])]
    if unknown:
        raise MXNetError("simple_bind: cannot infer the shapes of %s from %s" % (", ".join(unknown), given))
    device = as_context(ctx or current_context()).torch_device
    reqs = _grad_reqs(grad_req, compiled.arg_names)

    def zeros(name):
        shape, dtype = entries[name]
        return NDArray(torch.zeros(shape, dtype=torch_dtype(dtype or np.float32), device=device))
    args = [zeros(n) for n in compiled.arg_names]
    grads = [None if r == "null" else zeros(n) for n, r in zip(compiled.arg_names, reqs)]
    auxs = [zeros(n) for n in compiled.aux_names]
    return Executor(symbol, ctx, args, grads, reqs, auxs, compiled)


# ---------------------------------------------------------------------- Symbol's methods
def _symbol_bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
                 shared_exec=None):  # pylint: disable=unused-argument
    """Bind arrays to the symbol's arguments: an :class:`Executor` (see :func:`bind`)."""
    return bind(self, ctx, args, args_grad, grad_req, aux_states)


def _symbol_simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                        shared_arg_names=None, shared_exec=None, shared_buffer=None,
                        **kwargs):  # pylint: disable=unused-argument
    """Bind zero arrays of the inferred shapes (see :func:`simple_bind`)."""
    return simple_bind(self, ctx, grad_req, type_dict, kwargs)


# the executor builds on Symbol (not the other way round): it gives Symbol these two methods
_symbol_bind.__name__, _symbol_simple_bind.__name__ = "bind", "simple_bind"
Symbol.bind = _symbol_bind
Symbol.simple_bind = _symbol_simple_bind
