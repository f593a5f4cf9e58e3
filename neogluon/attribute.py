"""Attribute scopes (``mx.attribute.AttrScope``, ``mx.AttrScope``), as in MXNet 1.9.1.

Inside ``with AttrScope(ctx_group='dev1'):`` every symbol created gets those attributes
(explicit ``attr=`` values win). Values must be strings.
"""
import collections
import threading

__all__ = ["AttrScope", "current"]


class AttrScope:
    """Attributes added to every symbol created inside the scope; scopes nest."""
    _current = threading.local()
    # how many control flow subgraphs of each name this process made (foreach0, foreach1, ...)
    _subgraph_names = collections.defaultdict(int)

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs
        self._old_scope = None

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (the user's, which take priority)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return dict(attr) if attr else {}

    def __enter__(self):
        self._old_scope = current()
        attr = self._old_scope._attr.copy()
        attr.update(self._attr)
        self._attr = attr
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        AttrScope._current.value = self._old_scope


def current():
    """The attribute scope in effect in this thread."""
    scope = getattr(AttrScope._current, "value", None)
    if scope is None:
        scope = AttrScope._current.value = AttrScope()
    return scope
