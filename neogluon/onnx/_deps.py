"""onnx and onnxruntime, the optional dependencies of ``mx.onnx`` (the ``neogluon[onnx]`` extra).

Nothing imports them until an export or an import runs; a missing one raises MXNet's
ImportError, naming the extra to install.
"""
__all__ = ["onnx_module"]


def onnx_module():
    """The ``onnx`` package; ImportError naming the ``neogluon[onnx]`` extra when it is missing."""
    try:
        import onnx  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise ImportError("Onnx and protobuf need to be installed: pip install 'neogluon[onnx]' "
                          "(onnx, onnxruntime)") from None
    return onnx
