"""MXNet 1.9.1's ``mx.contrib.onnx``: ``import_model``, ``get_model_metadata``,
``import_to_gluon`` (ONNX to MXNet) and ``export_model`` (the older path of
``mx.onnx.export_model``), each printing MXNet 1.9.1's deprecation notice as MXNet does."""
from .onnx2mx.import_model import import_model as import_model_
from .onnx2mx.import_model import get_model_metadata as get_model_metadata_
from .onnx2mx.import_to_gluon import import_to_gluon as import_to_gluon_
from ...onnx import export_model as export_model_

__all__ = ["import_model", "get_model_metadata", "import_to_gluon", "export_model"]

_IMPORT_NOTICE = ("Please be advised that importing ONNX models into MXNet is going to be deprecated in the upcoming "
                  "MXNet v1.10 release. The following apis will be deleted: "
                  "mxnet.contrib.onnx.import_model/get_model_metadata/import_to_gluon.")


def import_model(*args, **kwargs):
    print("Calling mxnet.contrib.onnx.import_model...")
    print(_IMPORT_NOTICE)
    return import_model_(*args, **kwargs)


def get_model_metadata(*args, **kwargs):
    print("Calling mxnet.contrib.onnx.get_model_metadata...")
    print(_IMPORT_NOTICE)
    return get_model_metadata_(*args, **kwargs)


def import_to_gluon(*args, **kwargs):
    print("Calling mxnet.contrib.onnx.import_to_gluon...")
    print(_IMPORT_NOTICE)
    return import_to_gluon_(*args, **kwargs)


def export_model(*args, **kwargs):
    print("Calling mxnet.contrib.onnx.export_model...")
    print("Please be advised that the ONNX module has been moved to mxnet.onnx and mxnet.onnx.export_model is the "
          "preferred path. The current path will be deprecated in the upcoming MXNet v1.10 release.")
    return export_model_(*args, **kwargs)
