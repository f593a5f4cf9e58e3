"""MXNet 1.9.1's ``mx.onnx``: export a Symbol (or a hybridized HybridBlock) to an ONNX model.

The export translates the graph node by node: one converter per MXNet operator
(``mx2onnx/ops_*.py``), shapes and dtypes from neogluon's own graph inference, MXNet's node
names kept. Needs the ``neogluon[onnx]`` extra (onnx; onnxruntime to run the models).
"""
from .mx2onnx import export_model, export_block, get_operator_support
from . import mx2onnx

__all__ = ["export_model", "export_block", "get_operator_support", "mx2onnx"]
