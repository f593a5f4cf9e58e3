"""Record every module of MXNet 1.9.1's Python package and every public name in it.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_mxnet_names.py

It walks the installed ``mxnet`` package with ``pkgutil.walk_packages``, imports each
module and writes ``neogluon/_mxnet_names.json``: for each module, its ``__all__`` (or
null when it has none, so that ``from m import *`` takes every public name as in MXNet)
and, for each public name (``dir()`` without a leading underscore, ``__all__``, plus the
underscore names clients are known to use, ``KNOWN_PRIVATE``), what it is:

    ["m", "mxnet.x"]          a module of MXNet's package (a submodule or a re-export)
    ["x", "numpy"]            a module from outside (numpy, ctypes, os, ...)
    ["X", "numpy", "float32"] an object from outside, by module and qualified name
    ["c", "mxnet.io.io", "DataIter"]   a class MXNet defines, where it is defined
    ["f", "mxnet.base", "py_str"]      a function MXNet defines, where it is defined
    ["v", 3]                  a constant (JSON data: numbers, strings, None, lists, dicts)
    ["T", [entry, ...]]       a tuple of classes (``string_types``, ``numeric_types``)
    ["o", "typename", "mxnet.mod", "qualname"]  any other object, with its type's name

neogluon's name table (:mod:`neogluon._names`) reads the file: a module neogluon lacks is
synthesised from it, and a name a neogluon module lacks is served from it.
"""
import importlib
import inspect
import json
import os
import pkgutil
import sys
import types

import mxnet

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "neogluon", "_mxnet_names.json")

# files of the package that are not modules of the library: the shared library itself and
# the ONNX exporter's setup script (which runs setuptools when imported)
NOT_MODULES = {"mxnet.libmxnet": "the C++ shared library, not a Python module",
               "mxnet.onnx.setup": "the ONNX exporter's setup.py, not a library module"}

# underscore names that client code bases (GluonCV, GluonNLP, GluonTS, d2l) and MXNet's own
# unit tests import or use from MXNet's modules
KNOWN_PRIVATE = {
    "mxnet.gluon.data.dataloader": ["_as_in_context", "_MultiWorkerIter", "_SingleWorkerIter"],
    "mxnet.base": ["_as_list", "_LIB", "_Null", "_NullType", "_MXClassPropertyDescriptor"],
    "mxnet.gluon.block": ["_flatten", "_regroup", "_BlockScope"],
    "mxnet.gluon.loss": ["_apply_weighting", "_reshape_like"],
    "mxnet.gluon.model_zoo.model_store": ["_model_sha1", "_get_repo_url", "_get_repo_file_url", "_url_format"],
    "mxnet.contrib.amp.amp": ["_amp_initialized", "_amp_loss_scale_initialized", "_loss_scaler"],
    "mxnet.image.image": ["_get_interp_method"],
    "mxnet.gluon.parameter": ["_brief_print_list"],
    "mxnet.gluon.utils": ["_indent", "_brief_print_list", "_get_repo_file_url", "_get_repo_url"],
    "mxnet.ndarray": ["_internal"],
    "mxnet.symbol": ["_internal"],
    "mxnet.ndarray.ndarray": ["_STORAGE_TYPE_STR_TO_ID", "_GRAD_REQ_MAP", "_new_empty_handle"],
    "mxnet.gluon.nn": ["_conv"],
    "mxnet.optimizer.optimizer": ["_flatten_list"],
    "mxnet.gluon.rnn.rnn_cell": ["_format_sequence", "_get_begin_state", "_cells_state_info",
                                 "_cells_begin_state"],
    "mxnet.gluon.rnn.rnn_layer": ["_RNNLayer"],
    "mxnet.gluon.trainer": ["_check_lr"],
}


def _json_value(value, depth=0):
    """(True, value) when the value is JSON data (numbers, strings, None, and lists or
    str-keyed dicts of them, not too large), else (False, None)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True, value
    if depth > 3:
        return False, None
    if isinstance(value, (list, tuple)) and len(value) <= 4096:
        items = [_json_value(v, depth + 1) for v in value]
        return (True, [v for _, v in items]) if all(ok for ok, _ in items) else (False, None)
    if isinstance(value, dict) and len(value) <= 256 and all(isinstance(k, str) for k in value):
        items = {k: _json_value(v, depth + 1) for k, v in value.items()}
        if all(ok for ok, _ in items.values()):
            return True, {k: v for k, (_, v) in items.items()}
    return False, None


def describe(obj):
    """The entry for one name (see the module docstring)."""
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        return ["m", name] if name == "mxnet" or name.startswith("mxnet.") else ["x", name]
    module = getattr(obj, "__module__", None) if isinstance(obj, (type, types.FunctionType,
                                                                      types.BuiltinFunctionType)) else None
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        if module == "mxnet" or module.startswith("mxnet."):
            kind = "c" if isinstance(obj, type) else "f"
            return [kind, module, qualname]
        if "<" not in qualname:
            return ["X", module, qualname]
    ok, value = _json_value(obj)
    if ok:
        return ["v", value]
    if isinstance(obj, tuple) and obj and all(isinstance(v, type) for v in obj):
        items = [describe(v) for v in obj]
        if all(e[0] in "Xc" for e in items):
            return ["T", items]
    if callable(obj) and not isinstance(obj, type):
        # functools.partial, generated operator wrappers, ... : a function to callers
        return ["f", "", getattr(obj, "__name__", "")]
    tp = type(obj)
    return ["o", tp.__name__, tp.__module__, tp.__qualname__]


def record(modname):
    module = importlib.import_module(modname)
    all_ = getattr(module, "__all__", None)
    names = {n for n in dir(module) if not n.startswith("_")}
    names |= set(all_ or ())
    names |= {n for n in KNOWN_PRIVATE.get(modname, ()) if hasattr(module, n)}
    table = {}
    for n in sorted(names):
        try:
            obj = getattr(module, n)
        except AttributeError:  # listed in __all__ but absent (MXNet has a few)
            continue
        table[n] = describe(obj)
    return {"all": None if all_ is None else [str(n) for n in all_], "names": table}


def main():
    modules = {"mxnet": record("mxnet")}
    for info in pkgutil.walk_packages(mxnet.__path__, "mxnet."):
        if info.name in NOT_MODULES:
            continue
        modules[info.name] = record(info.name)
        modules[info.name]["package"] = info.ispkg
    modules["mxnet"]["package"] = True
    data = {"mxnet_version": mxnet.__version__, "python": sys.version.split()[0],
            "not_modules": NOT_MODULES, "modules": modules}
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    count = sum(len(m["names"]) for m in modules.values())
    print("%d modules, %d names -> %s (%d bytes)" % (len(modules), count, os.path.relpath(OUT),
                                                     os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
