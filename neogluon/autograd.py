"""MXNet's autograd API (``mx.autograd``) on top of torch autograd.

MXNet records only inside ``record()``; outside it, operators build no graph even on
arrays with gradients attached. A variable (``attach_grad`` / ``mark_variables``) is a
torch leaf tensor with a post-accumulate hook: each ``backward`` hands the leaf's
gradient to the variable's ``.grad`` buffer according to its ``grad_req`` ('write'
overwrites, 'add' accumulates, 'null' records nothing), and only variables the graph
reaches are touched, as in MXNet. A buffer neogluon made itself (``attach_grad``, Gluon's
Parameters: a :class:`GradBuffer`) takes over the gradient tensor torch computed, as
torch's own ``.grad`` does, until a view or an export of it is taken (indexing,
``reshape``, ``detach``, DLPack): from then on, and for buffers given to
``mark_variables``, gradients are copied into the buffer's memory, so the views see every
new gradient, as MXNet's in-place gradient arrays do. ``backward`` without ``retain_graph`` frees the
graph: backward through the same heads again raises MXNetError. The training flag
(``is_training``) is separate from recording and selects the behaviour of Dropout and
BatchNorm.
"""
import weakref

import torch

from . import threads as _threads
from .base import MXNetError
from .core import STATE, check_assign  # noqa: F401  (the state lives in the bottom layer)
from .ndarray.ndarray import NDArray
from .ndarray import sparse as _sparse
from .operator import storage as _storage
from .operator.registry import Operator, register_operator

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "attach_grads", "backward", "grad", "Function",
           "get_symbol"]

GRAD_REQS = ("write", "add", "null")

_NOT_IN_GRAPH = ("Cannot differentiate node because it is not in a computational graph. You need to set "
                 "is_recording to true or use autograd.record() to save computational graphs for backward. "
                 "If you want to differentiate the same graph twice, you need to pass retain_graph=True to "
                 "backward.")


def is_recording():
    """Whether operators are being recorded for gradient computation."""
    return STATE.recording


def is_training():
    """Whether operators run in training mode (Dropout drops, BatchNorm uses batch statistics)."""
    return STATE.training


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Set recording on or off; returns the previous state."""
    prev, STATE.recording = STATE.recording, bool(is_recording)
    return prev


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Set training mode on or off; returns the previous state."""
    prev, STATE.training = STATE.training, bool(train_mode)
    return prev


class _RecordingStateScope:
    """Scope that sets recording and/or training (None leaves one as is) and restores both on exit."""
    __slots__ = ("_enter_is_record", "_enter_train_mode", "_prev")

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev = []

    def __enter__(self):
        self._prev.append((STATE.recording, STATE.training))
        if self._enter_is_record is not None:
            STATE.recording = self._enter_is_record
        if self._enter_train_mode is not None:
            STATE.training = self._enter_train_mode
        return self

    def __exit__(self, *exc):
        STATE.recording, STATE.training = self._prev.pop()


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Record operators for gradient computation; ``train_mode`` also sets training."""
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Stop recording inside a ``record()`` block."""
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Training behaviour for Dropout/BatchNorm without changing recording."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Inference behaviour for Dropout/BatchNorm without changing recording."""
    return _RecordingStateScope(None, False)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


# ----------------------------------------------------------------------------- variables
def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables whose gradients are written to ``gradients`` by ``backward``."""
    variables, gradients = _as_list(variables), _as_list(gradients)
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if not len(variables) == len(gradients) == len(grad_reqs):
        raise MXNetError("mark_variables: %d variables, %d gradients and %d grad_reqs must match"
                         % (len(variables), len(gradients), len(grad_reqs)))
    for var, g, req in zip(variables, gradients, grad_reqs):
        _mark(var, g, req, False)


def attach_grads(variables, grad_req="write", stype=None):
    """Give each array a new zero gradient buffer and mark it a variable (``attach_grad``
    and Gluon's Parameters); returns the buffers. With ``stype='row_sparse'`` the buffer is
    a RowSparseNDArray: each backward stores the rows the gradient has (an Embedding with
    ``sparse_grad``, ``dot(csr, w)``: the rows the input names; a dense gradient: its
    non-zero rows)."""
    if grad_req not in GRAD_REQS:
        raise MXNetError("grad_req must be one of %s, got %r" % (", ".join(map(repr, GRAD_REQS)), grad_req))
    if stype not in (None, "default", "row_sparse"):
        raise MXNetError("attach_grad: a gradient is stored 'default' or 'row_sparse', not %r" % (stype,))
    for v in variables:
        if v._sparse:
            raise MXNetError("attach_grad: a %s of shape %s cannot be a variable in neogluon (gradients reach "
                             "dense arrays; MXNet gives a sparse variable a gradient of its storage type)"
                             % (type(v).__name__, v.shape))
    if stype == "row_sparse":
        buffers = [_sparse.zeros("row_sparse", v.shape, dtype=v.dtype) for v in variables]
    else:
        buffers = [GradBuffer(torch.zeros_like(v._t.detach())) for v in variables]
    for var, g in zip(variables, buffers):
        ctx = getattr(var, "_ctx", None)
        if ctx is not None:  # a buffer on cpu(k) says so, as its variable (torch has one CPU)
            g._ctx = ctx
        _mark(var, g, grad_req, True)
    return buffers


def _mark(var, grad_buf, grad_req, own_buffer):
    """Make ``var`` a fresh leaf (same storage) whose gradients go to ``grad_buf``."""
    if grad_req not in GRAD_REQS:
        raise MXNetError("grad_req must be one of %s, got %r" % (", ".join(map(repr, GRAD_REQS)), grad_req))
    t = var._t.detach()
    if grad_req != "null" and t.is_floating_point():
        t.requires_grad_(True)
        if getattr(grad_buf, "stype", "default") == "row_sparse":
            t._row_sparse_grad = True  # sparse kernels (dot of a csr) give it a sparse gradient
        t.register_post_accumulate_grad_hook(_grad_hook(weakref.ref(var), own_buffer))
    var._t = t
    var._grad = None if grad_req == "null" else grad_buf
    var._grad_req = grad_req
    var._fresh_grad = False  # set when backward writes .grad; Trainer clears it


def _grad_hook(var_ref, own_buffer):
    """Called by torch once a backward pass has summed a leaf's gradient into ``leaf.grad``
    (a tensor torch made for this leaf alone): 'add' adds it to the buffer; 'write' hands
    it to a buffer of ours that nothing views (no copy), else copies it in. ``leaf.grad``
    is cleared, so the next pass gives a new tensor again."""
    def deliver(leaf):
        g, leaf.grad = leaf.grad, None
        var = var_ref()
        if var is None or var._t is not leaf or var._grad is None:
            return
        buf = var._grad
        if buf._sparse:
            _deliver_row_sparse(buf, g, var._grad_req == "add")
        elif g.is_sparse:
            g = g.to_dense()
        if buf._sparse:
            pass
        elif var._grad_req == "add":
            with torch.no_grad():
                buf._t.add_(g)
        elif own_buffer and not buf._viewed:
            buf._t = g
        else:
            with torch.no_grad():
                buf._t.copy_(g)
        var._fresh_grad = True  # Trainer.step's stale-gradient check reads it
    return deliver


def _deliver_row_sparse(buf, g, add):
    """Write (or add) a gradient into a row_sparse buffer: a torch sparse COO gradient
    keeps its rows, a dense one stores its non-zero rows."""
    with torch.no_grad():
        if g.is_sparse:
            g = g.coalesce()
            new = _storage.RowSparse(buf.shape, g.values().to(buf._storage.data.dtype),
                                     g.indices()[0].to(_storage.INDEX_DTYPE))
        else:
            new = _storage.to_row_sparse(g)
        if add and buf._storage.indices.numel():
            new = (buf + _sparse.wrap_stored(new))._storage
        buf._set(new)


def _viewing(method):
    def viewed(self, *args, **kwargs):
        self._viewed = True
        return method(self, *args, **kwargs)
    viewed.__name__, viewed.__doc__ = method.__name__, method.__doc__
    return viewed


class GradBuffer(NDArray):
    """The ``.grad`` array of ``attach_grad`` and of Gluon's Parameters: an NDArray that
    remembers whether a view or an export of its memory was taken through its own methods
    (indexing, ``reshape``, ``detach``, DLPack). Until then a backward may give it torch's
    gradient tensor instead of copying into it (the ownership test is ours, not torch's).
    An ``mx.nd`` function of the buffer, such as ``nd.transpose(x.grad)``, is an operator:
    its result is new memory and keeps the gradient it was taken from, as in MXNet (see
    ``Operator.aliasing``, tests/test_views.py)."""
    __slots__ = ("_viewed",)

    def __init__(self, tensor):  # pylint: disable=super-init-not-called
        self._t = tensor
        self._viewed = False

    __getitem__ = _viewing(NDArray.__getitem__)
    reshape = _viewing(NDArray.reshape)
    detach = _viewing(NDArray.detach)
    __dlpack__ = _viewing(NDArray.__dlpack__)
    to_dlpack_for_read = _viewing(NDArray.to_dlpack_for_read)
    to_dlpack_for_write = _viewing(NDArray.to_dlpack_for_write)


GradBuffer.__name__ = GradBuffer.__qualname__ = "NDArray"  # it prints, pickles and compares as one


# ----------------------------------------------------------------------------- backward
def _heads_and_grads(heads, head_grads):
    heads = _as_list(heads)
    head_grads = [None] * len(heads) if head_grads is None else _as_list(head_grads)
    if len(head_grads) != len(heads):
        raise MXNetError("heads and head_grads must be lists of the same length: %d heads, %d head gradients"
                         % (len(heads), len(head_grads)))
    ts, gs = [], []
    for h, g in zip(heads, head_grads):
        t = h._t
        if not t.requires_grad:
            raise MXNetError(_NOT_IN_GRAPH)
        if g is not None and g._t.shape != t.shape:
            raise MXNetError("backward: the head gradient has shape %s but the head has shape %s"
                             % (tuple(g._t.shape), tuple(t.shape)))
        ts.append(t)
        gs.append(torch.ones_like(t) if g is None else g._t.detach().to(t.dtype))
    return heads, ts, gs


def _backward_error(err):
    msg = str(err).split("\n")[0]
    if "second time" in msg or "freed" in msg:
        return MXNetError(_NOT_IN_GRAPH)
    return MXNetError("autograd backward failed: %s" % msg)


# torch.autograd.backward's engine call. backward() checks and makes the head gradients itself
# (shapes, dtypes, ones), so for plain tensors it calls the engine as torch.autograd.backward
# does after its own checks (no tensor subclass to dispatch, no grad_tensors to make).
_ENGINE_BACKWARD = getattr(getattr(torch.autograd, "graph", None), "_engine_run_backward", None)


def _run_backward(ts, gs, retain_graph):
    if _ENGINE_BACKWARD is not None and all(type(t) is torch.Tensor for t in ts) \
            and all(type(g) is torch.Tensor for g in gs):  # noqa: E721
        _ENGINE_BACKWARD(tuple(ts), tuple(gs), retain_graph, False, (), allow_unreachable=True, accumulate_grad=True)
    else:
        torch.autograd.backward(ts, gs, retain_graph=retain_graph)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute the gradients of ``heads`` and deliver them to the ``.grad`` of every
    variable the graph reaches; without ``retain_graph`` the graph is freed."""
    _threads.adapt()  # intra-op threads for the cores free now: imperative loops have no graph call
    heads, ts, gs = _heads_and_grads(heads, head_grads)
    with _RecordingStateScope(False, train_mode):
        try:
            _run_backward(ts, gs, retain_graph)
        except RuntimeError as e:
            raise _backward_error(e) from None
    _threads.release()  # a tiny graph's work is done: the load's number again (neogluon/threads.py)
    if not retain_graph:
        for h in heads:
            if not h._t.is_leaf:
                h._t = h._t.detach()


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # pylint: disable=redefined-outer-name
    """Gradients of ``heads`` with respect to ``variables``, returned as a list of new
    arrays (``.grad`` buffers are untouched). With ``create_graph=True`` the gradients
    are themselves recorded, for higher-order gradients."""
    variables = _as_list(variables)
    if not variables:
        raise MXNetError("autograd.grad: variables cannot be an empty list")
    _, ts, gs = _heads_and_grads(heads, head_grads)
    if retain_graph is None:
        retain_graph = create_graph
    with _RecordingStateScope(False, train_mode):
        try:
            grads = torch.autograd.grad(ts, [v._t for v in variables], gs, retain_graph=retain_graph,
                                        create_graph=create_graph, allow_unused=True)
        except RuntimeError as e:
            raise _backward_error(e) from None
    _threads.release()  # as backward()
    return [NDArray(torch.zeros_like(v._t) if g is None else g) for v, g in zip(variables, grads)]


def get_symbol(x):
    """MXNet returns the recorded graph of ``x`` as a Symbol; torch autograd keeps no
    symbolic graph, so neogluon raises MXNetError and points to ``hybridize``."""
    raise MXNetError("autograd.get_symbol is not supported: neogluon records with torch autograd, "
                     "which keeps no symbolic graph; hybridize a HybridBlock to get a Symbol")


# ----------------------------------------------------------------------------- Function
class FunctionReuseError(MXNetError, AssertionError):
    """An ``autograd.Function`` instance was called twice (MXNet asserts)."""


class _FunctionBridge(torch.autograd.Function):
    """Runs a user ``autograd.Function``'s forward and backward on NDArrays inside torch autograd."""

    @staticmethod
    def forward(ctx, func, *ts):  # pylint: disable=arguments-differ
        with pause(train_mode=STATE.training):
            outs = func.forward(*[NDArray(t) for t in ts])
        func._single_output = isinstance(outs, NDArray)
        outs = [outs] if func._single_output else list(outs)
        ctx.func, ctx.num_inputs = func, len(ts)
        return tuple(_fresh(o._t, ts) for o in outs)

    @staticmethod
    def backward(ctx, *gs):  # pylint: disable=arguments-differ
        func = ctx.func
        with pause(train_mode=STATE.training):
            res = func.backward(*[NDArray(g) for g in gs])
        res = [res] if isinstance(res, NDArray) else list(res)
        if len(res) != ctx.num_inputs:
            raise MXNetError("%s.backward must return exactly the same number of NDArrays as the number of "
                             "NDArrays arguments to forward. Expecting %d got %d"
                             % (type(func).__name__, ctx.num_inputs, len(res)))
        for r in res:
            if not isinstance(r, NDArray):
                raise MXNetError("autograd.Function.backward must return NDArrays, not %s" % type(r).__name__)
        return (None,) + tuple(r._t for r in res)


def _fresh(t, inputs):
    """An output tensor distinct from the inputs (torch needs a returned input copied)."""
    return t.clone() if any(t is x for x in inputs) else t


class Function:
    """A user-defined differentiable function (MXNet's ``autograd.Function``).

    Subclass it with ``forward(self, *inputs)`` and ``backward(self, *output_grads)``
    working on NDArrays; ``save_for_backward`` keeps arrays for ``backward``. Each
    instance may be called once. Outside ``record()`` the call is just ``forward``."""

    def __init__(self):
        self._used = False
        self._single_output = True
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        """Compute the outputs from the input NDArrays (override this)."""
        raise MXNetError("%s must override forward" % type(self).__name__)

    def backward(self, *output_grads):
        """Return one input gradient per forward input (override this)."""
        raise MXNetError("%s must override backward" % type(self).__name__)

    def __call__(self, *inputs):
        if self._used:
            raise FunctionReuseError("Each Function instance can only be called once. Please create another instance.")
        self._used = True
        if not STATE.recording:
            with pause(train_mode=STATE.training):
                return self.forward(*inputs)
        op = _CUSTOM_FUNCTION  # the node MXNet records; a fresh entry: each instance runs once
        outs = op.call(list(inputs), entry=op.new_entry({"function": self, "num_args": len(inputs)}))
        return outs if self._single_output else tuple(outs)


class _CustomFunctionOperator(Operator):
    """``_CustomFunction``: the operator of an ``autograd.Function`` call while recording.
    Its attributes are the Function instance itself, which no JSON or Python value names:
    as in MXNet 1.9.1, it runs only from that call (MXNet's recorded graph writes the node
    without attributes and can neither run it nor load it back)."""

    def parse_attrs(self, kwargs):
        function = kwargs.get("function")
        if not isinstance(function, Function):
            raise MXNetError("Check failed: type_ != nullptr: The any container is empty "
                             "requested=N5mxnet15custom_function19CustomFunctionParamE (operator _CustomFunction is "
                             "the node of an autograd.Function call and runs only from that call)")
        return {"function": function, "num_args": int(kwargs["num_args"])}


def _custom_function(*ts, function, num_args):  # pylint: disable=unused-argument
    """Run the Function's forward now and its backward in torch's backward pass."""
    outs = _FunctionBridge.apply(function, *ts)
    return outs[0] if function._single_output else outs


_CUSTOM_FUNCTION = register_operator(_CustomFunctionOperator(
    "_CustomFunction", _custom_function, variadic="num_args", signature=(),
    inputs=lambda a: tuple("data%d" % i for i in range(a["num_args"]))))


# ----------------------------------------------------------------------------- NDArray's methods
def _attach_grad(self, grad_req="write", stype=None):
    """Allocate a zero gradient buffer (``.grad``) and mark this array as a variable;
    ``grad_req`` is 'write' (each backward overwrites), 'add' (accumulates) or 'null';
    ``stype='row_sparse'`` gives a RowSparseNDArray buffer."""
    attach_grads([self], grad_req, stype)


def _backward(self, out_grad=None, retain_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Backpropagate from this array (``out_grad`` defaults to ones); see ``autograd.backward``."""
    backward([self], None if out_grad is None else [out_grad], retain_graph, train_mode)


# autograd builds on NDArray (not the other way round): it gives NDArray these two methods
_attach_grad.__name__, _backward.__name__ = "attach_grad", "backward"
NDArray.attach_grad = _attach_grad
NDArray.backward = _backward
