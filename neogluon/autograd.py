"""MXNet's autograd API (``mx.autograd``) on top of torch autograd.

MXNet records only inside ``record()``; outside it, operators build no graph even on
arrays with gradients attached. Gradients land in each variable's ``.grad`` buffer
according to its ``grad_req``: 'write' overwrites, 'add' accumulates, 'null' skips.
The training flag (``is_training``) is separate from recording and selects the
behaviour of Dropout and BatchNorm.
"""
import threading
import weakref

import torch

from .base import MXNetError

__all__ = ["record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "mark_variables", "backward", "grad", "Function",
           "get_symbol"]


class _State(threading.local):
    recording = False
    training = False


STATE = _State()
# every array with a gradient buffer (attach_grad / mark_variables), to deliver gradients to
_VARIABLES = weakref.WeakSet()


def is_recording():
    return STATE.recording


def is_training():
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
    """Scope that sets recording and/or training and restores them on exit."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev = None

    def __enter__(self):
        self._prev = (STATE.recording, STATE.training)
        if self._enter_is_record is not None:
            STATE.recording = self._enter_is_record
        if self._enter_train_mode is not None:
            STATE.training = self._enter_train_mode
        return self

    def __exit__(self, *exc):
        STATE.recording, STATE.training = self._prev


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


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark arrays as variables whose gradients are written to ``gradients``."""
    variables, gradients = _as_list(variables), _as_list(gradients)
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if not len(variables) == len(gradients) == len(grad_reqs):
        raise MXNetError("mark_variables: %d variables, %d gradients and %d grad_reqs must match"
                         % (len(variables), len(gradients), len(grad_reqs)))
    for var, g, req in zip(variables, gradients, grad_reqs):
        var._mark_variable(g, req)


def _variables():
    return [v for v in list(_VARIABLES) if v._grad_req != "null" and v._t.requires_grad]


def _heads_and_grads(heads, head_grads):
    heads = _as_list(heads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    else:
        head_grads = _as_list(head_grads)
        if len(head_grads) != len(heads):
            raise MXNetError("backward: %d heads but %d head gradients" % (len(heads), len(head_grads)))
    ts, gs = [], []
    for h, g in zip(heads, head_grads):
        t = h._t
        if not t.requires_grad:
            raise MXNetError("Cannot differentiate node because it is not in a computational graph. "
                             "You need to set is_recording to true or use autograd.record() to save "
                             "computational graphs for backward. If you want to differentiate the same "
                             "graph twice, you need to pass retain_graph=True to backward.")
        ts.append(t)
        gs.append(torch.ones_like(t) if g is None else g._t.to(t.dtype))
    return ts, gs


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute gradients of ``heads`` and deliver them to every marked variable's ``.grad``."""
    ts, gs = _heads_and_grads(heads, head_grads)
    variables = _variables()
    if not variables:
        return
    prev = set_training(train_mode)
    try:
        grads = torch.autograd.grad(ts, [v._t for v in variables], gs, retain_graph=retain_graph,
                                    allow_unused=True)
    except RuntimeError as e:
        raise MXNetError("backward failed: %s" % str(e).split("\n")[0]) from None
    finally:
        set_training(prev)
    for v, g in zip(variables, grads):
        v._deliver_grad(g)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Gradients of ``heads`` with respect to ``variables``, returned (not stored).

    With ``create_graph=True`` the result is itself recorded, for higher-order gradients."""
    from .ndarray.ndarray import NDArray
    single = not isinstance(variables, (list, tuple))
    variables = _as_list(variables)
    ts, gs = _heads_and_grads(heads, head_grads)
    if retain_graph is None:
        retain_graph = create_graph
    prev = set_training(train_mode)
    try:
        grads = torch.autograd.grad(ts, [v._t for v in variables], gs, retain_graph=retain_graph,
                                    create_graph=create_graph, allow_unused=True)
    except RuntimeError as e:
        raise MXNetError("autograd.grad failed: %s" % str(e).split("\n")[0]) from None
    finally:
        set_training(prev)
    out = [NDArray(torch.zeros_like(v._t) if g is None else g) for v, g in zip(variables, grads)]
    return out[0] if single else out


def get_symbol(x):
    raise MXNetError("autograd.get_symbol is not supported: neogluon records with torch autograd, "
                     "which keeps no symbolic graph; hybridize a HybridBlock to get a Symbol")


class Function:
    """A user-defined differentiable function (MXNet's ``autograd.Function``).

    Subclass it with ``forward(self, *inputs)`` and ``backward(self, *output_grads)``
    working on NDArrays; ``save_for_backward`` keeps arrays for ``backward``."""

    def __init__(self):
        self.saved_tensors = ()
        self._used = False

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        raise MXNetError("%s must define forward" % type(self).__name__)

    def backward(self, *output_grads):
        raise MXNetError("%s must define backward" % type(self).__name__)

    def __call__(self, *inputs):
        from .ndarray.ndarray import NDArray
        if self._used:
            raise MXNetError("Each autograd.Function object can only be called once: create a new one per call")
        self._used = True
        func = self

        class _Bridge(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *ts):  # pylint: disable=arguments-differ
                with _RecordingStateScope(False, None):
                    outs = func.forward(*[NDArray(t.detach()) for t in ts])
                single = isinstance(outs, NDArray)
                ctx.single = single
                outs = [outs] if single else list(outs)
                return tuple(o._t.clone() for o in outs)

            @staticmethod
            def backward(ctx, *gs):  # pylint: disable=arguments-differ
                with _RecordingStateScope(False, None):
                    res = func.backward(*[NDArray(g) for g in gs])
                res = [res] if isinstance(res, NDArray) else list(res)
                if len(res) != len(inputs):
                    raise MXNetError("%s.backward returned %d gradients for %d inputs"
                                     % (type(func).__name__, len(res), len(inputs)))
                return tuple(None if r is None else r._t for r in res)

        ts = [x._t for x in inputs]
        if not STATE.recording:
            ts = [t.detach() for t in ts]
        outs = _Bridge.apply(*ts)
        outs = [NDArray(o) for o in outs]
        return outs[0] if len(outs) == 1 else outs
