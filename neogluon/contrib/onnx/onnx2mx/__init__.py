"""MXNet 1.9.1's ``mx.contrib.onnx.onnx2mx``: ONNX models to MXNet Symbols."""
from . import import_model
from . import import_onnx
from . import import_to_gluon
