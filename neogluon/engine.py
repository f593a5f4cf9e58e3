"""MXNet's ``mx.engine``: operator bulking for its asynchronous engine.

MXNet groups consecutive operators into one engine task (``bulk(size)``). neogluon has no
asynchronous engine: each operator is a torch call made when it is reached, so bulking has
nothing to group. ``set_bulk_size`` and ``bulk`` keep MXNet's interface (the previous size
is returned and restored) and change nothing else; they are documented no-ops.
"""
import contextlib

__all__ = ["set_bulk_size", "bulk"]

_BULK_SIZE = [15]  # MXNet's default MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD


def set_bulk_size(size):
    """Record the bulk size; returns the previous one (a no-op: see the module docstring)."""
    prev, _BULK_SIZE[0] = _BULK_SIZE[0], int(size)
    return prev


@contextlib.contextmanager
def bulk(size):
    """Scope with bulk size ``size``, restored on exit (a no-op: see the module docstring)."""
    prev = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(prev)
