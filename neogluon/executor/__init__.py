"""The graph executor: compiles a Symbol once into a fast callable, and MXNet's ``Executor``.

:func:`compile_graph` (Symbol -> functions of torch tensors, one per mode) is the reusable
part, for ``Symbol.bind`` here and for HybridBlock/SymbolBlock; :class:`Executor` is
MXNet's API around it; :func:`export_torch` writes a compiled graph out as a standalone
PyTorch module (:mod:`.torch_export`).
"""
from .compiler import CompiledGraph, compile_graph
from .executor import Executor, bind, simple_bind
from . import control_flow  # registers _foreach, _while_loop, _cond
from .torch_export import export_torch

__all__ = ["CompiledGraph", "compile_graph", "Executor", "bind", "simple_bind", "export_torch"]
