"""MXNet 1.9.1's ``mx.onnx.mx2onnx``: the exporter (see ``graph.py`` and the ``ops_*.py`` converters)."""
from ._export_model import export_model, export_block, get_operator_support

__all__ = ["export_model", "export_block", "get_operator_support"]
