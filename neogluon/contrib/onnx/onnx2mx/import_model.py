"""MXNet 1.9.1's ``import_model`` and ``get_model_metadata`` (``mx.contrib.onnx``)."""
from ....onnx._deps import onnx_module
from .import_onnx import GraphProto

__all__ = ["import_model", "get_model_metadata"]


def _load(model_file):
    onnx = onnx_module()
    try:
        return onnx.load_model(model_file)
    except (OSError, ValueError) as err:
        raise type(err)("ONNX import: cannot read %s: %s" % (model_file, err)) from None
    except Exception as err:  # pylint: disable=broad-except  (protobuf's DecodeError)
        raise ValueError("ONNX import: %s is not an ONNX model (%s)" % (model_file, err)) from None


def _opset(model):
    return max(x.version for x in model.opset_import if x.domain in ("", "ai.onnx"))


def import_model(model_file):
    """(sym, arg_params, aux_params) of an ONNX model file: the graph as an MXNet Symbol and
    its initializers as NDArrays (auxiliary states: BatchNorm's moving statistics)."""
    model = _load(model_file)
    return GraphProto().from_onnx(model.graph, opset_version=_opset(model))


def get_model_metadata(model_file):
    """{'input_tensor_data': [(name, shape, elem_type)], 'output_tensor_data': [(name, shape)]}
    of an ONNX model file (its inputs other than initializers)."""
    return GraphProto().get_graph_metadata(_load(model_file).graph)
