"""MXNet's first autograd API (``mx.contrib.autograd``, before ``mx.autograd``): training
sections that also record, ``mark_variables``, ``backward`` and the function
transformers ``grad``/``grad_and_loss``. A thin layer over :mod:`neogluon.autograd`."""
import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section", "mark_variables",
           "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Turn training mode and recording on or off together; returns the previous state."""
    prev = _ag.set_training(bool(is_train))
    _ag.set_recording(bool(is_train))
    return bool(prev)


class TrainingStateScope:
    """A scope with training and recording set to ``enter_state``, restored on exit."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """A scope that records and runs in training mode."""
    return TrainingStateScope(True)


def test_section():
    """A scope that neither records nor trains."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark NDArrays as variables whose gradients go into ``gradients``."""
    _ag.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Backpropagate from a list of outputs (``out_grads`` entries may be None: ones)."""
    assert isinstance(outputs, (list, tuple)), "outputs must be a list or tuple of NDArrays"
    if out_grads is not None:
        assert len(out_grads) == len(outputs), "outputs and out_grads must have the same length"
    _ag.backward(list(outputs), out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)``."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """``func`` turned into a function returning ``(gradients of the arguments (or those in
    argnum), func's outputs)``."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            variables = [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in variables:
            assert isinstance(x, NDArray), "type of autograd input should NDArray."
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """``func`` turned into a function returning the gradients of its arguments."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
