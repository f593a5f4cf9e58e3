"""MXNet 1.9.1's ``load_module``: a ``-symbol.json`` and a ``.params`` file as (Symbol, params)."""
import os

from ... import ndarray as _nd
from ... import symbol as _symbol

__all__ = ["load_module"]


def load_module(sym_filepath, params_filepath):
    """(Symbol, {name: NDArray}) of a model's files; the parameters' ``arg:``/``aux:``
    prefixes are dropped (arguments and auxiliary states in one dict). Unlike MXNet, the
    files need not follow the ``prefix-symbol.json``/``prefix-epoch.params`` naming."""
    if not (os.path.isfile(sym_filepath) and os.path.isfile(params_filepath)):
        raise ValueError("Symbol and params files provided are invalid")
    sym = _symbol.load(sym_filepath)
    saved = _nd.load(params_filepath)
    if not isinstance(saved, dict):
        raise ValueError("%s holds a list of arrays, not the named parameters of a model" % params_filepath)
    return sym, {(k[4:] if k.startswith(("arg:", "aux:")) else k): v for k, v in saved.items()}
