"""MXNet 1.9.1's ``import_to_gluon`` (``mx.contrib.onnx``)."""
from .import_model import _load, _opset
from .import_onnx import GraphProto

__all__ = ["import_to_gluon"]


def import_to_gluon(model_file, ctx):
    """A ``gluon.SymbolBlock`` of an ONNX model file, its parameters loaded on ``ctx``."""
    model = _load(model_file)
    return GraphProto().graph_to_gluon(model.graph, ctx, _opset(model))
