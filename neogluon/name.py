"""Automatic naming of symbols (``mx.name``), as in MXNet 1.9.1.

An operator created without ``name=`` is named ``<hint><n>``: the hint is the lower-cased
function name (``fullyconnected``, ``_plusscalar``) and ``n`` counts per hint within the
current :class:`NameManager`. :class:`Prefix` prepends a string to every name it makes.
"""
import threading

__all__ = ["NameManager", "Prefix", "current"]


class NameManager:
    """Gives unique names to symbols created without one; usable as a ``with`` scope."""
    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """``name`` when given, else ``hint`` followed by its next counter value."""
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    def __enter__(self):
        self._old_manager = current()
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """A name manager that prepends ``prefix`` to every name (given or automatic)."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    """The name manager in effect in this thread."""
    mgr = getattr(NameManager._current, "value", None)
    if mgr is None:
        mgr = NameManager._current.value = NameManager()
    return mgr
