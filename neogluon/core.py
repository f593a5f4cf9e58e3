"""The bottom layer: the per-thread state every operator call reads.

As JAX keeps its trace state in ``core.py``, below every array type and transformation,
neogluon keeps here what decides how an operator runs (see
:meth:`neogluon.operator.registry.Operator.call`):

- ``STATE.recording``: whether results are recorded for autograd (``autograd.record()``);
  outside recording, inputs are detached ("detach unless recording").
- ``STATE.training``: whether mode-dependent operators (Dropout, BatchNorm) run in
  training mode (``autograd.train_mode()``).
- ``TRACING.hook``: while a ``forward``-overriding HybridBlock is traced, the function that
  turns operator calls into Symbol nodes instead of computing them.

``ndarray``, ``autograd``, ``symbol`` and ``gluon`` import this module; it imports nothing
of neogluon but ``base``, so none of them needs another for this state.
"""
import threading

from .base import MXNetError

__all__ = ["STATE", "TRACING", "ACTIVE", "set_tracing", "check_assign"]

ASSIGN_IN_GRAPH = ("Assigning to NDArrays that are already in a computational graph will cause undefined "
                   "behavior when evaluating gradients. Please call backward first to clear the graph or do "
                   "this out of a record section.")
INPLACE_RECORDED = "Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with autograd."


class _State(threading.local):
    recording = False
    training = False


STATE = _State()


class _Tracing(threading.local):
    """``hook(op, inputs, raw_attrs, out)`` while a block's ``forward`` is traced, else None."""
    hook = None


TRACING = _Tracing()


class _Active:
    """How many threads are tracing: a plain (not thread-local) attribute, so the operator
    calls of a program that is not tracing read it, not the thread's hook. An attribute
    of the instance (not of the class): the interpreter reads it the fastest way."""

    def __init__(self):
        self.count = 0
        self.array = None  # the class of operators' results (set by operator.registry)
        # that class while no thread traces, else None: a generated call site that tests
        # its input's class against it (``x.__class__ is ACTIVE.dense``) tests both at once
        self.dense = None


ACTIVE = _Active()


def set_tracing(hook):
    """Install ``hook`` as this thread's tracing hook (None removes it); the previous hook."""
    prev, TRACING.hook = TRACING.hook, hook
    ACTIVE.count += (hook is not None) - (prev is not None)
    ACTIVE.dense = None if ACTIVE.count else ACTIVE.array
    return prev


def check_assign(target, value=None):
    """While recording, MXNet refuses to write into an array that is part of a graph
    (a variable or a recorded result), or to write a recorded value in place."""
    if target.requires_grad:
        raise MXNetError(ASSIGN_IN_GRAPH)
    if value is not None and value.requires_grad:
        raise MXNetError(INPLACE_RECORDED)
