"""Run MXNet 1.x code unchanged: make ``import mxnet`` resolve to neogluon.

``alias_mxnet()`` puts an import hook first on ``sys.meta_path`` that serves the name
``mxnet`` and every dotted name under it (``mxnet.gluon``, ``mxnet.gluon.nn``,
``mxnet.ndarray``, ...) with the neogluon module of the same path, the way Pillow serves
``import PIL``. Nothing named ``mxnet`` is installed or written anywhere: the hook only
lives in the current interpreter, and ``unalias_mxnet()`` takes it out again.

    >>> from neogluon.compat import alias_mxnet
    >>> alias_mxnet()
    >>> import mxnet as mx              # neogluon
    >>> from mxnet.gluon import nn      # neogluon.gluon.nn

A name MXNet has but neogluon does not (``mxnet.rtc``, say) raises the usual
``ModuleNotFoundError`` naming ``mxnet.<that name>``.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

ALIAS = "mxnet"
TARGET = "neogluon"

__all__ = ["alias_mxnet", "unalias_mxnet", "is_aliased", "MXNetAliasFinder"]


def _target_name(fullname):
    """'mxnet.gluon.nn' -> 'neogluon.gluon.nn'; None for names outside the alias."""
    if fullname == ALIAS or fullname.startswith(ALIAS + "."):
        return TARGET + fullname[len(ALIAS):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Hands out an already imported neogluon module instead of creating a new one."""

    def __init__(self, module):
        self.module = module
        self.target_spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # the import machinery stamped the alias spec on the shared module: give it back
        # its own, so that reload() and pickling keep seeing 'neogluon...'
        module.__spec__ = self.target_spec


def _resolve(real):
    """The neogluon module called ``real`` (a submodule, or a module attribute such as
    ``neogluon.nd``), or None when neogluon has no such module."""
    try:
        if importlib.util.find_spec(real) is not None:
            return importlib.import_module(real)
    except (ImportError, ValueError):
        return None
    parent, _, name = real.rpartition(".")
    attr = getattr(sys.modules.get(parent), name, None)
    return attr if isinstance(attr, types.ModuleType) else None


class MXNetAliasFinder(importlib.abc.MetaPathFinder):
    """``sys.meta_path`` finder mapping ``mxnet[.x.y]`` to ``neogluon[.x.y]``."""

    def find_spec(self, fullname, path=None, target=None):
        real = _target_name(fullname)
        module = None if real is None else _resolve(real)
        if module is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))


def _installed_finder():
    return next((f for f in sys.meta_path if isinstance(f, MXNetAliasFinder)), None)


def is_aliased():
    """True while ``import mxnet`` resolves to neogluon in this interpreter."""
    return _installed_finder() is not None


def alias_mxnet():
    """Make ``import mxnet`` (and its submodules) give neogluon's modules; idempotent.

    Raises ``ImportError`` when a real ``mxnet`` was imported already: two packages cannot
    share the name in one interpreter.
    """
    current = sys.modules.get(ALIAS)
    if current is not None and current is not importlib.import_module(TARGET):
        raise ImportError("the real mxnet package (%s) is already imported; call alias_mxnet() before "
                          "anything imports mxnet" % getattr(current, "__file__", "?"))
    finder = _installed_finder()
    if finder is None:
        finder = MXNetAliasFinder()
        sys.meta_path.insert(0, finder)
    return finder


def unalias_mxnet():
    """Undo ``alias_mxnet()``: remove the hook and the ``mxnet*`` names it put in ``sys.modules``."""
    finder = _installed_finder()
    if finder is None:
        return
    sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if _target_name(n) is not None]:
        if getattr(sys.modules[name], "__name__", "").startswith(TARGET):
            del sys.modules[name]
