"""The ONNX export of one Symbol: walk its nodes in graph order, give each to its operator's
converter (``@converter``, in the ``ops_*.py`` files beside this one), collect the ONNX
nodes, the initializers and the graph's inputs and outputs.

Shapes and dtypes of every entry come from neogluon's own graph inference
(``symbol.infer.infer_graph``). A node whose inputs are all parameters (or constants) is
evaluated once by its neogluon kernel and becomes an initializer (``_rnn_param_concat`` of
an LSTM's weights, a ``_zeros`` begin state). Parameters become initializers named as in
MXNet, only when some node uses them. ONNX tensor names are MXNet's node names (output
``i > 0`` of node ``n`` is ``n<i>``, as MXNet's exporter names them).
"""
import logging

import numpy as np
import torch

from ...base import MXNetError, np_dtype
from ...symbol.infer import infer_graph, known
from ...symbol.symbol import topo_order
from .._deps import onnx_module

__all__ = ["CONVERTERS", "converter", "NodeContext", "build_graph", "convert_symbol", "value_info", "MIN_OPSET",
           "MAX_OPSET", "DEFAULT_OPSET"]

MIN_OPSET, MAX_OPSET, DEFAULT_OPSET = 11, 18, 17
CONVERTERS = {}  # MXNet operator name -> converter(NodeContext)
# zero-input creation operators whose shape attribute may hold unknown (0) dims that graph
# inference fills from their consumers (an RNN's begin state): folded at the inferred shape
_FILLS = {"_zeros": lambda a: 0, "_ones": lambda a: 1, "_full": lambda a: a["value"]}


def converter(*names):
    """Register the decorated function as the ONNX converter of MXNet operators ``names``."""
    def deco(fn):
        for name in names:
            CONVERTERS[name] = fn
        return fn
    return deco


def _foldable(op):
    name = op.name
    return not (name.startswith(("_random", "_sample", "random_", "sample_", "_npi_random"))
                or name in ("Dropout", "_shuffle", "Custom"))


class NodeContext:
    """What a converter sees of one MXNet node: its parsed attributes, its inputs' ONNX names,
    shapes, dtypes and constant values, and ``emit`` to add ONNX nodes."""

    def __init__(self, graph, node, name):
        self.graph, self.node, self.name = graph, node, name
        self.attrs = node.parsed
        self.opset = graph.opset
        self.dynamic = graph.dynamic  # free input dimensions: shapes computed in the graph, not written in
        self._entries = [(src, i) for src, i, _ in node.inputs]
        self.nin = len(self._entries)

    # ---------------------------------------------------------------- inputs and outputs
    def input(self, i):
        """The ONNX name of input ``i`` (a constant input becomes an initializer when asked for)."""
        return self.graph.tensor(*self._entries[i])

    @property
    def inputs(self):
        return [self.input(i) for i in range(self.nin)]

    def value(self, i):
        """Input ``i``'s value as a numpy array when it is a constant (a parameter), else None."""
        return self.graph.consts.get(self.graph.key(*self._entries[i]))

    def shape(self, i):
        return self.graph.shape(*self._entries[i])

    def dtype(self, i):
        return self.graph.dtype(*self._entries[i])

    def out(self, j=0):
        """The ONNX name the converter must give visible output ``j``."""
        return self.graph.out_name(self.node, j, self.name)

    def out_shape(self, j=0):
        return self.graph.shape(self.node, j)

    def out_dtype(self, j=0):
        return self.graph.dtype(self.node, j)

    # ---------------------------------------------------------------- building
    def fresh(self, hint):
        return self.graph.fresh("%s_%s" % (self.name, hint))

    def emit(self, op_type, inputs, out=None, n_out=1, **attrs):
        """Add an ONNX node; returns its output name (a list when ``n_out`` > 1).
        ``out`` names the output(s), else fresh names derived from the node's name."""
        if out is None:
            out = [self.fresh(op_type.lower()) for _ in range(n_out)]
        outs = [out] if isinstance(out, str) else list(out)
        helper = onnx_module().helper
        self.graph.nodes.append(helper.make_node(op_type, list(inputs), outs, name=outs[0], **attrs))
        return outs[0] if isinstance(out, str) or n_out == 1 and len(outs) == 1 else outs

    def const(self, value, hint="const", dtype=None):
        """An initializer holding ``value`` (numpy dtype ``dtype``, else the value's own)."""
        arr = np.asarray(value, dtype=dtype)
        return self.graph.initializer(self.fresh(hint), arr)

    def ints(self, values, hint="shape"):
        """A 1-D int64 initializer (a Reshape's shape, Slice's starts, ...)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1), hint)

    def scalar(self, value, like=0, hint="scalar"):
        """A 0-d initializer of ``value`` in the dtype of input ``like``."""
        return self.const(np.asarray(value, dtype=self.dtype(like)), hint)

    # ---------------------------------------------------------------- ONNX ops whose form depends on the opset
    def unsqueeze(self, x, axes, out=None):
        if self.opset >= 13:
            return self.emit("Unsqueeze", [x, self.ints(axes, "axes")], out=out)
        return self.emit("Unsqueeze", [x], out=out, axes=list(axes))

    def squeeze(self, x, axes, out=None):
        if self.opset >= 13:
            return self.emit("Squeeze", [x, self.ints(axes, "axes")], out=out)
        return self.emit("Squeeze", [x], out=out, axes=list(axes))

    def reduce(self, op_type, x, axes, keepdims, out=None):
        """``ReduceSum``/``ReduceMean``/...: axes as an input from opset 13 (ReduceSum) or 18 (the others)."""
        if axes is not None and (self.opset >= 18 or op_type == "ReduceSum" and self.opset >= 13):
            return self.emit(op_type, [x, self.ints(axes, "axes")], out=out, keepdims=int(keepdims))
        extra = {} if axes is None else {"axes": list(axes)}
        return self.emit(op_type, [x], out=out, keepdims=int(keepdims), **extra)

    def slice(self, x, starts, ends, axes, steps=None, out=None):
        ins = [x, self.ints(starts, "starts"), self.ints(ends, "ends"), self.ints(axes, "axes")]
        if steps is not None:
            ins.append(self.ints(steps, "steps"))
        return self.emit("Slice", ins, out=out)

    def cast(self, x, dtype, out=None):
        to = onnx_module().helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        return self.emit("Cast", [x], out=out, to=to)

    def dims(self, i, start, stop=None):
        """Dimensions ``start:stop`` of input ``i`` as a 1-D int64 tensor computed in the graph."""
        shape = self.emit("Shape", [self.input(i)])
        stop = len(self.shape(i)) if stop is None else stop
        return self.slice(shape, [start], [stop], [0])

    def fail(self, why):
        """MXNetError naming the node, the operator and the reason it cannot be exported."""
        return MXNetError("ONNX export: operator %s (node %s): %s" % (self.node.op.name, self.node.name, why))


class _Graph:
    """The ONNX graph under construction."""

    def __init__(self, sym, inferred, consts, opset, verbose, dynamic=False):
        self.sym, self.g, self.consts, self.opset, self.verbose = sym, inferred, consts, opset, verbose
        self.dynamic = dynamic
        self.nodes, self.initializers = [], []
        self.names = {}       # (id(node), index) -> ONNX tensor name
        self.taken = set()
        self.node_names = {}  # id(node) -> unique ONNX base name

    @staticmethod
    def key(node, index):
        return id(node), index

    def shape(self, node, index):
        return self.g.entry(node, index)[0]

    def dtype(self, node, index):
        return self.g.entry(node, index)[1]

    def fresh(self, base):
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = "%s%d" % (base, k)
        self.taken.add(name)
        return name

    def initializer(self, name, arr):
        numpy_helper = onnx_module().numpy_helper
        self.initializers.append(numpy_helper.from_array(np.array(arr, order="C"), name))
        return name

    def base_name(self, node, idx):
        """The node's own name, or ``idx_<i>_<name>`` for a name used before (as MXNet's exporter)."""
        name = self.node_names.get(id(node))
        if name is None:
            name = node.name if node.name not in self.taken else "idx_%d_%s" % (idx, node.name)
            name = self.fresh(name)
            self.node_names[id(node)] = name
        return name

    def out_name(self, node, index, base):
        key = (id(node), index)
        if key not in self.names:
            self.names[key] = base if index == 0 else self.fresh("%s%d" % (base, index))
        return self.names[key]

    def tensor(self, node, index):
        """The ONNX name of an entry; a constant entry becomes an initializer on first use."""
        key = (id(node), index)
        if key not in self.names:
            if key not in self.consts:
                raise MXNetError("ONNX export: entry %d of node %s is used before it is computed" % (index, node.name))
            name = self.fresh(node.name if index == 0 else "%s%d" % (node.name, index))
            self.initializer(name, self.consts[key])
            self.names[key] = name
        return self.names[key]


def _fold(node, g, consts):
    """Evaluate a node whose inputs are all constants; returns False when it cannot be folded."""
    if not _foldable(node.op) or not all((id(s), i) in consts for s, i, _ in node.inputs):
        return False
    n_out = node.num_visible_outputs()
    inferred = [g.entry(node, j)[0] for j in range(n_out)]
    if node.op.name in _FILLS and not node.inputs:
        if not known(inferred[0]):
            return False
        consts[(id(node), 0)] = np.full(inferred[0], _FILLS[node.op.name](node.parsed), dtype=g.entry(node, 0)[1])
        return True
    tensors = [torch.from_numpy(np.array(consts[(id(s), i)], order="C")) for s, i, _ in node.inputs]
    with torch.no_grad():
        res = node.op.run(node.parsed, tensors, is_train=False)
    res = [res] if isinstance(res, torch.Tensor) else list(res)
    for j in range(n_out):
        consts[(id(node), j)] = res[j].detach().cpu().numpy()
    return True


def _convert_nodes(graph, order, in_shapes):
    """Give each operator node of ``order`` to its converter (or fold it into a constant)."""
    g, consts = graph.g, graph.consts
    for idx, node in enumerate(order):
        if node.op is None:
            continue
        if g.entry(node, 0)[0] is None:
            raise MXNetError("ONNX export: the shape of the output of node %s (%s) cannot be inferred from "
                             "in_shapes %s" % (node.name, node.op.name, list(in_shapes)))
        if _fold(node, g, consts):
            continue
        fn = CONVERTERS.get(node.op.name)
        if fn is None:
            raise MXNetError("ONNX export: no converter for operator %s (node %s); the operators neogluon exports "
                             "are listed by mx.onnx.get_operator_support()" % (node.op.name, node.name))
        if graph.verbose:
            logging.info("Converting idx: %d, op: %s, name: %s", idx, node.op.name, node.name)
        fn(NodeContext(graph, node, graph.base_name(node, idx)))


def convert_symbol(parent, sym, feeds, nodes):
    """Convert ``sym`` (a control flow body) into ``nodes``, within the model ``parent``
    belongs to (the same initializers and tensor names). ``feeds`` maps each of its input
    variables to (ONNX name, shape, dtype, constant value or None); a constant input is
    folded where it can be. Returns each output's (ONNX name, shape, dtype)."""
    order = topo_order(sym._outputs)
    g = infer_graph(sym, {k: v[1] for k, v in feeds.items()}, {k: v[2] for k, v in feeds.items()})
    child = _Graph(sym, g, {}, parent.opset, parent.verbose, parent.dynamic)
    child.taken, child.initializers, child.nodes = parent.taken, parent.initializers, nodes
    for n in order:
        if n.op is None:
            if n.name not in feeds:
                raise MXNetError("ONNX export: input %s of a subgraph is not given by its node" % n.name)
            name, _, _, value = feeds[n.name]
            if value is not None:
                child.consts[(id(n), 0)] = value
            else:
                child.names[(id(n), 0)] = name
    _convert_nodes(child, order, [v[1] for v in feeds.values()])
    return [(child.tensor(n, j), g.entry(n, j)[0], g.entry(n, j)[1]) for n, j in sym._outputs]


def value_info(name, dtype, shape):
    onnx = onnx_module()
    elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def build_graph(sym, params, in_shapes, in_types, opset, dynamic=False, dynamic_input_shapes=None,
                verbose=False, graph_name="mxnet_converted_model"):
    """The ONNX ``GraphProto`` of ``sym`` with ``params`` (name -> numpy array) as initializers;
    ``in_shapes``/``in_types`` give the other inputs' shapes and dtypes, in graph order."""
    onnx = onnx_module()
    order = topo_order(sym._outputs)
    label = sym.get_internals()[len(sym.get_internals()) - 1].name + "_label"
    data_vars = [n for n in order if n.op is None and n.name not in params and n.name != label]
    if len(in_shapes) != len(data_vars):
        raise MXNetError("ONNX export: the graph has %d input(s) besides its parameters (%s) but in_shapes has "
                         "%d shape(s)" % (len(data_vars), ", ".join(n.name for n in data_vars), len(in_shapes)))
    shapes = {n.name: tuple(int(d) for d in s) for n, s in zip(data_vars, in_shapes)}
    dtypes = {n.name: np_dtype(t) for n, t in zip(data_vars, in_types)}
    for n in order:
        if n.op is None and n.name in params:
            shapes[n.name], dtypes[n.name] = params[n.name].shape, params[n.name].dtype
    g = infer_graph(sym, shapes, dtypes)
    consts = {(id(n), 0): params[n.name] for n in order if n.op is None and n.name in params}
    graph = _Graph(sym, g, consts, opset, verbose, dynamic)
    if dynamic:
        if dynamic_input_shapes is None:
            dynamic_input_shapes = [tuple(None for _ in s) for s in in_shapes]
        if len(dynamic_input_shapes) != len(in_shapes) or any(
                len(a) != len(b) for a, b in zip(dynamic_input_shapes, in_shapes)):
            raise MXNetError("ONNX export: dynamic_input_shapes must have one shape per input, each with the "
                             "dimensionality of its in_shapes entry")
    elif dynamic_input_shapes is not None:
        raise MXNetError("ONNX export: dynamic_input_shapes is specified; set dynamic=True to enable dynamic "
                         "input shapes")
    inputs = []
    for k, n in enumerate(data_vars):
        graph.names[(id(n), 0)] = graph.fresh(n.name)
        shape = dynamic_input_shapes[k] if dynamic else shapes[n.name]
        inputs.append(value_info(n.name, dtypes[n.name], shape))
    _convert_nodes(graph, order, in_shapes)
    outputs = []
    for node, j in sym._outputs:
        name = graph.tensor(node, j)
        if node.op is None and name in {i.name for i in inputs}:
            name = NodeContext(graph, node, node.name).emit("Identity", [name], out=graph.fresh(node.name + "_output"))
        shape = g.entry(node, j)[0]
        outputs.append(value_info(name, g.entry(node, j)[1], [None] * len(shape) if dynamic else shape))
    result = onnx.helper.make_graph(graph.nodes, graph_name, inputs, outputs, initializer=graph.initializers)
    return result
