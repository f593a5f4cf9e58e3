"""``import mxnet`` resolving to neogluon: the import hook behind ``neogluon run`` and
``neogluon alias install``.

This package uses the standard library only, so that a ``.pth`` file can load it at every
interpreter start without importing neogluon (or torch): neogluon is imported the first
time something imports ``mxnet``.

* ``mxnet`` itself is a small module of its own that shows neogluon's top-level names, with
  ``__version__ == "1.9.1"`` (the MXNet API level clients check; ``neogluon.__version__``
  stays neogluon's) and ``__neogluon__`` pointing at the neogluon package.
* ``mxnet.x.y`` is the module ``neogluon.x.y`` itself (one module object under two names),
  so ``mxnet.gluon.nn.Dense is neogluon.gluon.nn.Dense``; a module neogluon has no file for
  comes from MXNet's recorded module table (see ``neogluon._names``).
* Two ways in: :func:`alias_mxnet` (``neogluon run``) gives ``mxnet`` to neogluon, for a
  script that asked for neogluon; :func:`activate` (the ``.pth`` file of ``neogluon alias
  install``) gives it only when no other finder has a real MXNet, so a real MXNet
  installed in the environment always wins.
* A known third-party check is adjusted, without touching the package's files: GluonCV
  0.10.5's ``_require_pytorch_version`` raises ``RuntimeError`` when torch >= 2 is
  importable, which stops ``import gluoncv`` although GluonCV would use its MXNet backend.
  Under the alias that error becomes the ``ImportError`` GluonCV expects for "no usable
  torch backend", so ``import gluoncv`` proceeds with the MXNet (neogluon) backend.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

ALIAS = "mxnet"
TARGET = "neogluon"
MXNET_API_VERSION = "1.9.1"
PTH_NAME = "neogluon-mxnet-alias.pth"
# one line: site executes lines starting with 'import'; it does nothing once neogluon is gone
PTH_LINE = ("import importlib.util; importlib.util.find_spec('neogluon_alias') and "
            "__import__('neogluon_alias').activate()\n")
# names whose module-level dunders are the module's identity, not neogluon's API
_IDENTITY = {"__name__", "__spec__", "__loader__", "__path__", "__package__", "__getattr__",
             "__cached__", "__builtins__"}

__all__ = ["alias_mxnet", "unalias_mxnet", "is_aliased", "activate", "MXNetAliasFinder",
           "find_real_mxnet", "is_neogluon_view"]


def _target_name(fullname):
    """'mxnet.gluon.nn' -> 'neogluon.gluon.nn'; None for names outside the alias."""
    if fullname == ALIAS or fullname.startswith(ALIAS + "."):
        return TARGET + fullname[len(ALIAS):]
    return None


def is_neogluon_view(module):
    """True for the ``mxnet`` module this hook makes."""
    return isinstance(getattr(module, "__neogluon__", None), types.ModuleType)


class _ViewLoader(importlib.abc.Loader):
    """Makes the top-level ``mxnet`` module: neogluon's names, MXNet's version."""

    def create_module(self, spec):
        neogluon = importlib.import_module(TARGET)
        view = types.ModuleType(ALIAS, neogluon.__doc__)
        view.__dict__.update({k: v for k, v in neogluon.__dict__.items() if k not in _IDENTITY})
        view.__version__ = getattr(neogluon, "mxnet_version", MXNET_API_VERSION)
        view.__neogluon__ = neogluon
        view.__path__ = []  # submodules come from the finder, never from neogluon's directory twice

        def __getattr__(name):  # names neogluon gains later, and MXNet's table
            return getattr(neogluon, name)
        view.__getattr__ = __getattr__
        return view

    def exec_module(self, module):
        pass


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
    """The neogluon module called ``real`` (a module of the package, one synthesised from
    MXNet's table, or a module attribute such as ``neogluon.nd``); None when there is none."""
    try:
        return importlib.import_module(real)
    except ModuleNotFoundError as err:
        if err.name is None or not real.startswith(err.name):
            raise  # a module that exists failed inside: the user must see that error
    parent, _, name = real.rpartition(".")
    attr = getattr(sys.modules.get(parent), "__dict__", {}).get(name)
    return attr if isinstance(attr, types.ModuleType) else None


class MXNetAliasFinder(importlib.abc.MetaPathFinder):
    """``sys.meta_path`` finder mapping ``mxnet[.x.y]`` to neogluon. It sits first (the
    submodules of the ``mxnet`` it made must never be found again in neogluon's directory);
    with ``defer`` it gives ``mxnet`` itself only when no other finder has a real MXNet."""

    def __init__(self, defer=False):
        self.defer = defer

    def find_spec(self, fullname, path=None, target=None):
        real = _target_name(fullname)
        if real is None:
            return None
        if fullname == ALIAS:
            if self.defer and find_real_mxnet() is not None:
                return None
            spec = importlib.machinery.ModuleSpec(ALIAS, _ViewLoader(), is_package=True)
            spec.submodule_search_locations = []
            return spec
        if not is_neogluon_view(sys.modules.get(ALIAS)):
            return None  # the submodules of a real MXNet are its own
        module = _resolve(real)
        if module is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))


class PatchingLoader(importlib.abc.Loader):
    """Runs a module's own loader, then ``patch(module)``; everything else (``get_source``,
    ``get_filename``, ...) is the own loader's. neogluon's name table uses it too."""

    def __init__(self, loader, patch):
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _patch_gluoncv_check(module):
    """Make ``gluoncv.check``'s torch-version check say "no usable torch backend"
    (ImportError) instead of stopping the import (RuntimeError)."""
    check = getattr(module, "_require_pytorch_version", None)
    if check is None:
        return

    def _require_pytorch_version(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        except RuntimeError as err:
            raise ImportError("GluonCV's PyTorch backend does not support this torch (%s); "
                              "GluonCV uses its MXNet backend (neogluon)" % err) from err
    _require_pytorch_version.__wrapped__ = check
    module._require_pytorch_version = _require_pytorch_version


class ThirdPartyChecksFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path`` for the few modules whose version checks need adjusting."""

    MODULES = {"gluoncv.check": _patch_gluoncv_check}

    def find_spec(self, fullname, path=None, target=None):
        patch = self.MODULES.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:  # another instance too: two would ask each other forever
            if isinstance(finder, ThirdPartyChecksFinder) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = PatchingLoader(spec.loader, patch)
                return spec
        return None


def _installed(kind):
    return [f for f in sys.meta_path if isinstance(f, kind)]


def is_aliased():
    """True while ``import mxnet`` can resolve to neogluon in this interpreter."""
    return bool(_installed(MXNetAliasFinder))


def find_real_mxnet():
    """Where a real MXNet would be imported from (its ``__init__.py``), or None: every
    finder but this hook's is asked."""
    for finder in sys.meta_path:
        if isinstance(finder, (MXNetAliasFinder, ThirdPartyChecksFinder)) or not hasattr(finder, "find_spec"):
            continue
        try:
            spec = finder.find_spec(ALIAS, None)
        except (ImportError, ValueError):
            continue
        if spec is not None:
            return spec.origin or (list(spec.submodule_search_locations or []) or ["?"])[0]
    return None


def _add_checks_finder():
    if not _installed(ThirdPartyChecksFinder):
        sys.meta_path.insert(0, ThirdPartyChecksFinder())


def activate():
    """What the ``.pth`` file runs: ``import mxnet`` gives neogluon only where no real
    MXNet is installed (the finder defers to every other one for ``mxnet``); idempotent."""
    if not is_aliased():
        sys.meta_path.insert(0, MXNetAliasFinder(defer=True))
    _add_checks_finder()
    return _installed(MXNetAliasFinder)[0]


def alias_mxnet():
    """Make ``import mxnet`` (and its submodules) give neogluon in this interpreter, ahead
    of any installed MXNet (``neogluon run``); idempotent.

    Raises ``ImportError`` when a real ``mxnet`` was imported already: two packages cannot
    share the name in one interpreter.
    """
    current = sys.modules.get(ALIAS)
    if current is not None and not is_neogluon_view(current):
        raise ImportError("the real mxnet package (%s) is already imported; call alias_mxnet() before "
                          "anything imports mxnet" % getattr(current, "__file__", "?"))
    finders = _installed(MXNetAliasFinder)
    if not finders:
        sys.meta_path.insert(0, MXNetAliasFinder())
    else:
        finders[0].defer = False
    _add_checks_finder()
    return _installed(MXNetAliasFinder)[0]


def unalias_mxnet():
    """Undo :func:`alias_mxnet`/:func:`activate`: remove the hooks and the ``mxnet*`` names
    they put in ``sys.modules``."""
    for finder in _installed(MXNetAliasFinder) + _installed(ThirdPartyChecksFinder):
        sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if _target_name(n) is not None]:
        module = sys.modules[name]
        if is_neogluon_view(module) or getattr(module, "__name__", "").startswith(TARGET):
            del sys.modules[name]


def pth_path(site_dir):
    return os.path.join(site_dir, PTH_NAME)
