"""MXNet 1.9.1's whole module tree and public names, so that every MXNet program gets past
``import``.

``_mxnet_names.json`` (made by ``tools/make_mxnet_names.py`` from the reference package)
lists every module of MXNet's package and every public name in each. From it:

* **a module neogluon has no file for** (``neogluon.io``, ``neogluon.contrib.onnx``, ...)
  is synthesised when imported: its names are served as below;
* **a name a real neogluon module lacks** is served through a module-level ``__getattr__``
  installed after the module runs (PEP 562), so it never hides what the module defines;
* a served name is MXNet's object where one can be had without MXNet: a module of the tree
  (real or synthesised), an object from another package (``np``, ``ctypes``, ``float``),
  a constant recorded in the table, or the real neogluon object the name re-exports
  (``mxnet.ndarray.NDArray`` is ``mxnet.ndarray.ndarray.NDArray``); otherwise a stand-in
  that raises ``MXNetError("<mxnet name> is not implemented yet (...)")`` when called or
  instantiated — a class stand-in can be subclassed, a function stand-in is a function;
* ``__all__`` follows MXNet's, so ``from mxnet.test_utils import *`` brings ``mx`` and ``np``.

Real modules and names always win: a file added under ``neogluon/`` is imported instead of
a synthesised module, and a name a module defines is found before ``__getattr__`` runs.
Stand-ins carry ``_neogluon_not_implemented`` (the MXNet name), which
:func:`coverage` counts.
"""
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
import types

from .base import MXNetError
from neogluon_alias import PatchingLoader  # stdlib-only, shipped with neogluon

PACKAGE = __name__.rpartition(".")[0]  # 'neogluon'
MXNET = "mxnet"
MARK = "_neogluon_not_implemented"
_TABLE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_mxnet_names.json")
_table = None
_served = {}                   # (neogluon module name, name) -> the object served
_lock = threading.RLock()
_resolving = set()             # (module, name) pairs being resolved (re-export cycles)

__all__ = ["table", "mxnet_name", "neogluon_name", "install", "activate", "coverage",
           "not_implemented", "is_stand_in"]


def table():
    """The recorded module table: {mxnet module name: {"all", "names", "package"}}."""
    global _table
    if _table is None:
        with open(_TABLE_FILE) as f:
            _table = json.load(f)["modules"]
    return _table


def mxnet_name(name):
    """'neogluon.io.io' -> 'mxnet.io.io'; None for names outside the package."""
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        return MXNET + name[len(PACKAGE):]
    return None


def neogluon_name(name):
    """'mxnet.io.io' -> 'neogluon.io.io'."""
    return PACKAGE + name[len(MXNET):]


def not_implemented(mxname, detail=None):
    """The error a stand-in raises when used."""
    return MXNetError("%s is not implemented yet (%s)" % (
        mxname, detail or "neogluon has the name so that MXNet code importing it loads; "
                          "what it does is not built yet"))


def is_stand_in(obj):
    """True for a module, class, function or value served only to raise 'not implemented yet'."""
    if isinstance(obj, type):
        return MARK in obj.__dict__
    return getattr(obj, MARK, None) is not None if isinstance(obj, (types.ModuleType, types.FunctionType,
                                                                   _NotImplementedValue)) else False


# ------------------------------------------------------------------------- stand-ins
def _stand_in_class(mxname, qualname, module):
    def __init__(self, *args, **kwargs):
        raise not_implemented(mxname)
    name = qualname.rpartition(".")[2]
    return type(name, (object,), {"__init__": __init__, "__module__": module, "__qualname__": qualname,
                                  "__doc__": "MXNet's %s: not implemented yet in neogluon (a class "
                                             "can derive from it; creating one raises)." % mxname,
                                  MARK: mxname})


def _stand_in_function(mxname, qualname, module):
    def stand_in(*args, **kwargs):
        raise not_implemented(mxname)
    stand_in.__name__ = qualname.rpartition(".")[2] or "stand_in"
    stand_in.__qualname__ = qualname or stand_in.__name__
    stand_in.__module__ = module
    stand_in.__doc__ = "MXNet's %s: not implemented yet in neogluon (calling it raises)." % mxname
    setattr(stand_in, MARK, mxname)
    return stand_in


class _NotImplementedValue:
    """A value MXNet has (a ctypes handle, a table of its C library) that neogluon cannot
    give: it says so when called or when one of its attributes is used."""

    def __init__(self, mxname, what):
        object.__setattr__(self, MARK, mxname)
        object.__setattr__(self, "_what", what)

    def __repr__(self):
        return "<%s (%s): not implemented yet in neogluon>" % (getattr(self, MARK), self._what)

    def __call__(self, *args, **kwargs):
        raise not_implemented(getattr(self, MARK))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise not_implemented(getattr(self, MARK))

    def __bool__(self):
        return False


def _external(module, qualname=None):
    """An object of another package (numpy, ctypes, builtins) by module and qualified name."""
    obj = importlib.import_module(module)
    for part in (qualname.split(".") if qualname else ()):
        obj = getattr(obj, part)
    return obj


def _resolve(entry, mxname, modname):
    """The object for one table entry (see tools/make_mxnet_names.py)."""
    kind = entry[0]
    if kind == "v":
        return entry[1]
    if kind == "m":
        target = entry[1]
        if target == MXNET:
            alias = sys.modules.get(MXNET)
            return alias if getattr(alias, "__neogluon__", None) is not None else importlib.import_module(PACKAGE)
        return importlib.import_module(neogluon_name(target))
    if kind in "xX":
        if entry[1] in ("ndarray", "symbol"):  # MXNet's generated operator functions say module 'ndarray'
            generated = _operator_function(entry[1], entry[2] if kind == "X" else mxname.rpartition(".")[2],
                                           modname)
            if generated is not None:
                return generated
        try:
            return _external(entry[1], entry[2] if kind == "X" else None)
        except (ImportError, AttributeError) as err:
            return _NotImplementedValue(mxname, "needs %s: %s" % (entry[1], err))
    if kind == "T":
        return tuple(_resolve(e, mxname, modname) for e in entry[1])
    if kind in "cf":
        origin, qualname = entry[1], entry[2]
        origin_mod = neogluon_name(origin) if origin and origin.startswith(MXNET) else None
        if origin_mod and origin_mod != modname and origin in table() and "." not in qualname \
                and qualname in table()[origin]["names"]:
            # a re-export: the object of the module that defines it (real there, or its stand-in)
            key = (origin_mod, qualname)
            if key not in _resolving:
                _resolving.add(key)
                try:
                    return getattr(importlib.import_module(origin_mod), qualname)
                except (ImportError, AttributeError):
                    pass
                finally:
                    _resolving.discard(key)
        generated = _generated_function(origin, qualname)
        if generated is not None:
            return generated
        if kind == "c":
            return _stand_in_class(mxname, qualname or mxname.rpartition(".")[2], modname)
        return _stand_in_function(mxname, qualname or mxname.rpartition(".")[2], modname)
    return _NotImplementedValue(mxname, "an object of type %s" % entry[1])


# MXNet's generated operator modules -> the neogluon namespace generated from the same registry
_GENERATED = {"gen_op": "op", "gen__internal": "_internal", "gen_contrib": "contrib", "gen_linalg": "linalg",
              "gen_random": "random", "gen_image": "image", "gen_sparse": "sparse"}


def _generated_function(origin, qualname):
    """The operator function neogluon generates for a name of MXNet's ``ndarray.gen_*`` /
    ``symbol.gen_*`` modules (``mxnet.ndarray.gen_op.Activation`` is ``mx.nd.op.Activation``),
    or None when neogluon has not registered that operator."""
    package, _, gen = (origin or "").rpartition(".")
    if package == MXNET + ".contrib" and gen in ("ndarray", "symbol"):  # mx.contrib.ndarray is mx.nd.contrib
        package, gen = MXNET + "." + gen, "gen_contrib"
    if package not in (MXNET + ".ndarray", MXNET + ".symbol") or gen not in _GENERATED or "." in qualname:
        return None
    namespace = getattr(importlib.import_module(neogluon_name(package)), _GENERATED[gen], None)
    obj = getattr(namespace, "__dict__", {}).get(qualname)
    return obj if callable(obj) and not is_stand_in(obj) else None


_NAMESPACE_PREFIXES = {"contrib": ("_contrib_",), "linalg": ("_linalg_",), "random": ("_random_", "_sample_"),
                       "image": ("_image_",), "sparse": ("_sparse_",)}


def _operator_function(package, name, modname):
    """neogluon's generated function for an MXNet operator function ``name`` served in
    ``modname`` (``mxnet.ndarray.contrib.box_nms`` is the operator ``_contrib_box_nms``), or
    None when neogluon has not registered it."""
    internal = getattr(importlib.import_module("%s.%s" % (PACKAGE, package)), "_internal", None)
    found = getattr(internal, "__dict__", {})
    namespace = modname.rpartition(".")[2]
    for full in [p + name for p in _NAMESPACE_PREFIXES.get(namespace, ())] + [name]:
        obj = found.get(full)
        if callable(obj) and not is_stand_in(obj):
            return obj
    return None


def serve(module, name):
    """The object MXNet's table gives for ``module.name`` when the module itself lacks it."""
    modname = module.__name__
    key = (modname, name)
    served = _served.get(key)
    if served is not None and not is_stand_in(served):
        return served
    mxmod = mxnet_name(modname)
    entry = table().get(mxmod, {}).get("names", {}).get(name) if mxmod else None
    if entry is None:
        raise AttributeError("module %r has no attribute %r" % (modname, name))
    with _lock:
        if key not in _served:
            obj = _resolve(entry, mxmod + "." + name, modname)
            if entry[0] == "m":
                return obj  # modules live in sys.modules; a real one may replace a stand-in
            _served[key] = obj
        obj = _served[key]
        if entry[0] in "cf" and is_stand_in(obj):
            real = _defined_nearby(modname, name)
            if real is not None:
                _served[key] = obj = real
    return obj


def _defined_nearby(modname, name):
    """A real neogluon class or function called ``name`` that neogluon defines in another
    file of the same package than MXNet did (MXNet's ``image.image.RandomOrderAug`` is
    ``neogluon.image.augmenters.RandomOrderAug``), or None. Searched from the module's own
    package outwards, never above ``neogluon.<top-level package>``; only modules already
    imported are looked at, so a later access finds what a later import defines."""
    parts = modname.split(".")
    for depth in range(len(parts) - 1, 1, -1):
        prefix = ".".join(parts[:depth])
        for other, module in list(sys.modules.items()):
            if module is None or not (other == prefix or other.startswith(prefix + ".")):
                continue
            obj = getattr(module, "__dict__", {}).get(name)
            if (isinstance(obj, (type, types.FunctionType)) and not is_stand_in(obj)
                    and (getattr(obj, "__module__", None) or "").startswith(PACKAGE + ".")):
                return obj
    return None


# ------------------------------------------------------------------------- modules
def forwarding(namespace, modname):
    """A module ``__getattr__`` giving ``namespace``'s attributes: for a module of MXNet's tree
    whose names neogluon defines in another one (``mx.contrib.ndarray`` is ``mx.nd.contrib``'s
    functions)."""
    def __getattr__(name):
        try:
            return getattr(namespace, name)
        except AttributeError:
            raise AttributeError("module %r has no attribute %r" % (modname, name)) from None
    return __getattr__


def _star_names(module, info):
    """``__all__`` for a module: MXNet's own, or (MXNet has none) every public name, as
    ``from m import *`` gives in MXNet; the module's own exports are kept."""
    own = module.__dict__.get("__all__")
    if info["all"] is not None:  # (a few MXNet modules list names they lack: left out)
        names = [n for n in info["all"] if n in info["names"] or n in module.__dict__]
        extra = own or ()
    else:
        names = sorted(info["names"])
        extra = own if own is not None else [n for n in module.__dict__ if not n.startswith("_")]
    seen = set(names)
    return names + [n for n in extra if n not in seen and not seen.add(n)]


def install(module):
    """Give a neogluon module MXNet's missing names and ``__all__``; idempotent. Modules
    held as attributes (``nd.contrib``, ``sym.op``) get the same."""
    mxmod = mxnet_name(module.__name__)
    info = table().get(mxmod) if mxmod else None
    if info is None:
        return module
    own = module.__dict__.get("__getattr__")
    if not getattr(own, "_neogluon_fallback", False):
        def __getattr__(name, _own=own, _module=module):
            if _own is not None:
                try:
                    return _own(name)
                except AttributeError:
                    pass
            return serve(_module, name)
        __getattr__._neogluon_fallback = True
        module.__getattr__ = __getattr__
        module.__all__ = _star_names(module, info)
        if info.get("package") and not hasattr(module, "__path__"):
            # a module here, a package in MXNet (gluon.contrib.data): its submodules can load
            module.__path__ = []
    for attr, value in list(module.__dict__.items()):
        if isinstance(value, types.ModuleType) and value.__name__ == module.__name__ + "." + attr \
                and value.__name__ not in sys.modules:
            install(value)
    return module


def _synthesise(name, info):
    mxmod = mxnet_name(name)
    module = types.ModuleType(name, "MXNet's %s: not implemented yet in neogluon. Its names exist so "
                                    "that code importing them loads; using one raises MXNetError." % mxmod)
    setattr(module, MARK, mxmod)
    return module


class _GivenLoader(importlib.abc.Loader):
    """Hands out a module object that exists already (``nd.contrib``), or a synthesised one."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        install(module)


class NeogluonFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path`` for ``neogluon.*``: real files through the other finders
    (their modules then get :func:`install`), else a module held as an attribute of its
    parent, else a module synthesised from MXNet's table."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(PACKAGE + "."):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and not isinstance(spec.loader, (PatchingLoader, _GivenLoader)):
                    spec.loader = PatchingLoader(spec.loader, install)
                return spec
        parent, _, child = fullname.rpartition(".")
        held = getattr(sys.modules.get(parent), "__dict__", {}).get(child)
        if isinstance(held, types.ModuleType) and held.__name__ == fullname:
            return importlib.machinery.ModuleSpec(fullname, _GivenLoader(held))
        info = table().get(mxnet_name(fullname))
        if info is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _GivenLoader(_synthesise(fullname, info)),
                                              is_package=bool(info.get("package")))
        if info.get("package"):
            spec.submodule_search_locations = []
        return spec


def activate():
    """Put :class:`NeogluonFinder` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, NeogluonFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, NeogluonFinder())


def install_loaded():
    """:func:`install` on every neogluon module imported before the finder was active."""
    for name, module in list(sys.modules.items()):
        if mxnet_name(name) is not None and isinstance(module, types.ModuleType):
            install(module)


# ------------------------------------------------------------------------- coverage
def coverage():
    """Import every module of MXNet's table and sort each recorded name into
    ``implemented`` (neogluon defines it, or it is a real module, an outside object or a
    recorded constant) or ``not_implemented`` (a stand-in). Returns
    ``{"modules": {"real": [...], "synthesised": [...]}, "names": {"implemented": [...],
    "not_implemented": [...]}, "missing": [...], "failed": {module: error}}``."""
    result = {"modules": {"real": [], "synthesised": []},
              "names": {"implemented": [], "not_implemented": []}, "missing": [], "failed": {}}
    for mxmod in sorted(table()):
        try:
            module = importlib.import_module(neogluon_name(mxmod))
        except Exception as err:  # noqa: BLE001  (reported, and the test fails on it)
            result["failed"][mxmod] = "%s: %s" % (type(err).__name__, err)
            continue
        result["modules"]["synthesised" if is_stand_in(module) else "real"].append(mxmod)
        for name in sorted(table()[mxmod]["names"]):
            try:
                obj = getattr(module, name)
            except Exception as err:  # noqa: BLE001
                result["missing"].append("%s.%s (%s: %s)" % (mxmod, name, type(err).__name__, err))
                continue
            kind = "not_implemented" if is_stand_in(obj) else "implemented"
            result["names"][kind].append(mxmod + "." + name)
    return result
