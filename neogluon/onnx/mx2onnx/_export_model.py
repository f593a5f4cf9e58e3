"""``mx.onnx.export_model`` (MXNet 1.9.1's signature), ``export_block`` (a hybridized
HybridBlock in one call) and ``get_operator_support``."""
import logging

import numpy as np

from ...base import MXNetError
from .._deps import onnx_module
from ._export_helper import load_module
from .graph import CONVERTERS, DEFAULT_OPSET, MAX_OPSET, MIN_OPSET, build_graph
from . import ops_nn, ops_elemwise, ops_shape, ops_rnn, ops_attention, ops_detection  # noqa: F401
from . import ops_control_flow  # noqa: F401  (the converters)

__all__ = ["export_model", "export_block", "get_operator_support"]


def get_operator_support(opset_version=None):
    """The sorted names of the MXNet operators the exporter converts (every supported opset)."""
    onnx_module()
    return sorted(CONVERTERS)


def _numpy(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)


def _load(sym, params):
    """(Symbol, {name: numpy array}) from objects or file paths (MXNet's accepted forms)."""
    from ... import symbol as _symbol, ndarray as _nd  # pylint: disable=import-outside-toplevel
    if isinstance(sym, str) and isinstance(params, str):
        logging.info("Converting json and weight file to sym and params")
        sym, params = load_module(sym, params)
    elif isinstance(sym, str):
        sym = _symbol.load(sym)
    elif isinstance(params, str):
        params = _nd.load(params)
    if isinstance(params, (list, tuple)) and len(params) == 2 and all(isinstance(p, dict) for p in params):
        params = dict(params[0], **params[1])
    if not isinstance(sym, _symbol.Symbol) or not isinstance(params, dict):
        raise ValueError("Input sym and params should either be files or objects")
    out = {}
    for key, value in params.items():
        name = key[4:] if key.startswith(("arg:", "aux:")) else key
        out[name] = _numpy(value)
    return sym, out


def _opset(opset_version):
    onnx = onnx_module()
    if opset_version is None:
        return min(DEFAULT_OPSET, onnx.defs.onnx_opset_version())
    if not MIN_OPSET <= int(opset_version) <= MAX_OPSET:
        raise MXNetError("ONNX export: opset_version %s is not supported (neogluon exports opsets %d to %d)"
                         % (opset_version, MIN_OPSET, MAX_OPSET))
    return int(opset_version)


def export_model(sym, params, in_shapes=None, in_types=np.float32, onnx_file_path="model.onnx", verbose=False,
                 dynamic=False, dynamic_input_shapes=None, run_shape_inference=False, input_type=None,
                 input_shape=None, opset_version=None):
    """Export an MXNet model to an ONNX file; returns ``onnx_file_path``.

    Parameters
    ----------
    sym : str or Symbol
        The path of a ``-symbol.json`` file, or a Symbol.
    params : str, dict or list of two dicts
        The path of a ``.params`` file, a dict of parameters (arguments and auxiliary states,
        keys optionally prefixed ``arg:``/``aux:``), or ``[arg_params, aux_params]``.
    in_shapes : list of tuple
        The shapes of the graph's inputs (those not in ``params``), in graph order.
    in_types : dtype or list of dtypes
        Their dtypes (one for all, or one per input).
    onnx_file_path : str
        Where to write the model.
    verbose : bool
        Log each node converted.
    dynamic : bool
        Leave the inputs' and outputs' dimensions free (``dynamic_input_shapes`` gives the
        inputs' shapes with ``None`` for free dimensions; default all free).
    run_shape_inference : bool
        Add ONNX's inferred shapes of the intermediate values to the model.
    input_type, input_shape :
        The old names of ``in_types`` and ``in_shapes``.
    opset_version : int
        The ONNX opset to target (11 to 18; default 17). neogluon's addition to the signature.
    """
    onnx = onnx_module()
    if input_type is not None:
        in_types = input_type
    if input_shape is not None:
        in_shapes = input_shape
    if in_shapes is None:
        raise ValueError("export_model needs in_shapes, the shapes of the model's inputs")
    if not isinstance(in_types, (list, tuple)):
        in_types = [in_types] * len(in_shapes)
    if len(in_types) != len(in_shapes):
        raise ValueError("The lengths of in_types and in_shapes must equal")
    opset = _opset(opset_version)
    sym, params = _load(sym, params)
    graph = build_graph(sym, params, in_shapes, in_types, opset, dynamic=dynamic,
                        dynamic_input_shapes=dynamic_input_shapes, verbose=verbose)
    model = onnx.helper.make_model(graph, producer_name="neogluon",
                                   opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 8 if opset <= 17 else 9)
    if run_shape_inference:
        try:
            model = onnx.shape_inference.infer_shapes(model)
        except Exception:  # pylint: disable=broad-except  (as MXNet: the export is kept without them)
            logging.info("Shape inference failed, original export is kept.")
    with open(onnx_file_path, "wb") as f:
        f.write(model.SerializeToString())
    logging.info("Input shape of the model %s ", in_shapes)
    logging.info("Exported ONNX file %s saved to disk", onnx_file_path)
    return onnx_file_path


def export_block(block, onnx_file_path="model.onnx", in_shapes=None, in_types=np.float32, **kwargs):
    """Export a HybridBlock to ONNX in one call. A block not yet run hybridized is hybridized
    and run once on zeros of ``in_shapes``; ``in_shapes`` defaults to the shapes of its last
    hybridized call. Other keywords go to :func:`export_model`."""
    from ... import ndarray as _nd  # pylint: disable=import-outside-toplevel
    if not block._cached_graph:
        if in_shapes is None:
            raise MXNetError("export_block: the block has not run hybridized; give in_shapes to run it once")
        types = in_types if isinstance(in_types, (list, tuple)) else [in_types] * len(in_shapes)
        block.hybridize()
        block(*[_nd.zeros(s, dtype=t) for s, t in zip(in_shapes, types)])
    inputs, sym = block._cached_graph
    if in_shapes is None:
        raise MXNetError("export_block: give in_shapes, the shapes of the inputs %s" % [s.name for s in inputs])
    params = {p.name: p._reduce() for p in block.collect_params().values() if p._data is not None}
    # in_shapes follow the block's arguments; export_model takes them in the graph's input order
    names = [s.name for s in inputs]
    types = list(in_types) if isinstance(in_types, (list, tuple)) else [in_types] * len(in_shapes)
    if len(in_shapes) != len(names) or len(types) != len(names):
        raise MXNetError("export_block: the block takes %d input(s) (%s), got %d shape(s) and %d dtype(s)"
                         % (len(names), ", ".join(names), len(in_shapes), len(types)))
    order = [n for n in sym.list_inputs() if n in names]
    in_shapes = [in_shapes[names.index(n)] for n in order]
    in_types = [types[names.index(n)] for n in order]
    return export_model(sym, params, in_shapes, in_types, onnx_file_path, **kwargs)
