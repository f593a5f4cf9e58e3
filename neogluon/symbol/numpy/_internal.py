"""``mx.sym.np._internal``: MXNet 1.9.1's generated functions of the NumPy interface's
operators, by the name after ``_npi_`` (``_internal.add`` makes an ``_npi_add`` node). Each is
the registry's generated ``mx.sym`` function for the operator, its results ``_Symbol``; names
of operators neogluon has not registered are served by the name table."""
from ... import _names
from ...operator import registry as _registry
from .. import _internal as _sym_internal
from ._symbol import symbolic as _symbolic

__all__ = []
for _name in _names.table()["mxnet.symbol.numpy._internal"]["names"]:
    if _registry.exists("_npi_" + _name) and hasattr(_sym_internal, "_npi_" + _name):
        globals()[_name] = _symbolic(getattr(_sym_internal, "_npi_" + _name), _name)
        __all__.append(_name)
