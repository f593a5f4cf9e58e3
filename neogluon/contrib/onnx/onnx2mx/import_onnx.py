"""``GraphProto``: an ONNX graph translated to an MXNet Symbol and its parameters.

One translator per ONNX operator (``_op_translations.py``, ``@translator``) builds ``mx.sym``
nodes named as the ONNX nodes. Initializers become variables with their values in
``arg_params``/``aux_params``. A node whose inputs are all constants (``Shape`` of a tensor
of known shape included) is evaluated once by onnx's reference evaluator and stays a
constant: the shape arithmetic an exporter writes for a Reshape, a Range or a
ConstantOfShape becomes the attribute values MXNet's operators take.
"""
import numpy as np

from .... import ndarray as nd
from .... import symbol
from ....base import MXNetError
from ....onnx._deps import onnx_module
from . import _op_translations  # noqa: F401  (registers the translators)
from ._shape_values import evaluate, materialize
from ._op_translations import TRANSLATORS

__all__ = ["GraphProto"]

_PROBES = (60, 120)   # small: shape inference of some operators runs them on arrays of these sizes


class GraphProto:  # pylint: disable=too-many-instance-attributes
    """The state of one import: tensors by ONNX name, as symbols or as constant values."""

    def __init__(self):
        self._nodes = {}    # ONNX tensor name -> Symbol
        self._values = {}   # ONNX tensor name -> numpy value of a constant tensor
        self._dims = {}     # ONNX tensor name -> Dims: a shape vector holding run-time dimensions
        self._params = {}   # variable name -> numpy value (initializers used by operators)
        self._shapes = {}   # graph input name -> static shape
        self._partial = {}  # graph input name -> shape, 0 for a free dimension
        self._inputs = {}   # graph input name -> Symbol variable
        self.opset_version = None
        self.model_metadata = None
        self._names = set()

    # ------------------------------------------------------------------ what translators use
    def value(self, name):
        """The value of a constant tensor (initializer, Constant, folded), else None."""
        return self._values.get(name) if name else None

    def dims(self, name):
        """The Dims of a shape vector holding run-time dimensions (see _shape_values), else None."""
        return self._dims.get(name) if name else None

    def sym(self, name):
        """The Symbol of a tensor; a constant becomes a variable holding it as a parameter, a
        shape vector with run-time dimensions is computed in the graph."""
        if name in self._nodes:
            return self._nodes[name]
        if name in self._dims:
            self._nodes[name] = materialize(self, self._dims[name], self.unique(name))
            return self._nodes[name]
        if name in self._values:
            if self._values[name].dtype == np.bool_:  # MXNet has no booleans: 1.0/0.0
                self._values[name] = self._values[name].astype(np.float32)
            var = symbol.var(name, shape=self._values[name].shape, dtype=self._values[name].dtype)
            self._params[name] = self._values[name]
            self._nodes[name] = var
            return var
        raise MXNetError("ONNX import: tensor %r is used before any node computes it" % name)

    def param(self, hint, value):
        """A new variable holding ``value`` (a parameter the translation computes, as an RNN's flat vector)."""
        name = self.unique(hint)
        self._values[name] = np.asarray(value)
        return self.sym(name)

    def shape(self, name):
        """The static shape of a tensor (from the graph inputs' shapes)."""
        if name in self._values:
            return tuple(self._values[name].shape)
        s = self.sym(name)
        known = {k: v for k, v in self._shapes.items() if k in s.list_inputs()}
        known.update({k: v.shape for k, v in self._params.items() if k in s.list_inputs()})
        _, out, _ = s.infer_shape_partial(**known)
        shape = tuple(out[0])
        if not shape or any(d == 0 for d in shape):
            raise MXNetError("ONNX import: the shape of tensor %r is not static (inputs %s)" % (name, self._shapes))
        return shape

    def partial_shape(self, name):
        """The shape of a tensor with 0 for the dimensions only known at run time."""
        if name in self._values:
            return tuple(self._values[name].shape)
        s = self.sym(name)
        names = s.list_inputs()
        params = {k: v.shape for k, v in self._params.items() if k in names}
        # the free dimensions set to two numbers that most splits divide: the dimensions that
        # differ between the two inferences depend on them
        runs = []
        for size in _PROBES:
            known = {k: tuple(d or size for d in v) for k, v in self._partial.items() if k in names}
            _, out, _ = s.infer_shape(**known, **params)
            runs.append(tuple(out[0]))
        return tuple(a if a == b else 0 for a, b in zip(*runs))

    def _symbolic(self, node):
        """Shape arithmetic on run-time dimensions, evaluated on expressions (True when done)."""
        ins = [i for i in node.input if i]
        if node.op_type == "Shape":
            if node.input[0] in self._values or all(d > 0 for d in self.partial_shape(node.input[0])):
                return False
        elif not any(i in self._dims for i in ins):
            return False
        attrs = {a.name: onnx_module().helper.get_attribute_value(a) for a in node.attribute}
        outs = evaluate(self, node, attrs)
        if outs is None:
            return False
        for o, v in zip(node.output, outs):
            if v.static():
                self._values[o] = v.value()
            else:
                self._dims[o] = v
        return True

    def unique(self, name):
        base, k = name, 0
        while name in self._names or name in self._values and name not in self._nodes:
            k += 1
            name = "%s_%d" % (base, k)
        self._names.add(name)
        return name

    # ------------------------------------------------------------------ the walk
    def _fold(self, node):
        """Evaluate a node on constant inputs with onnx's reference evaluator."""
        onnx = onnx_module()
        from onnx.reference import ReferenceEvaluator  # pylint: disable=import-outside-toplevel
        helper = onnx.helper
        if node.op_type == "Shape" and node.input[0] not in self._values:
            node = helper.make_node("Shape", [node.input[0] + " (shape only)"], list(node.output),
                                    **{a.name: helper.get_attribute_value(a) for a in node.attribute})
        ins = [i for i in node.input if i]
        feeds = {i: self._values[i] for i in ins}
        graph = helper.make_graph(
            [node], "fold",
            [helper.make_tensor_value_info(i, helper.np_dtype_to_tensor_dtype(feeds[i].dtype), feeds[i].shape)
             for i in ins],
            [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in node.output if o])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset_version)])
        outs = ReferenceEvaluator(model).run(None, feeds)
        for o, v in zip([o for o in node.output if o], outs):
            self._values[o] = np.asarray(v)

    def _constant(self, node):
        if node.op_type == "Constant":
            return True
        if node.op_type == "Shape" and node.input[0] not in self._values:  # fed to the evaluator as a constant
            self._values[node.input[0] + " (shape only)"] = np.zeros(self.shape(node.input[0]), dtype=np.int8)
            return True
        if node.op_type in ("RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial"):
            return False
        return all(i in self._values for i in node.input if i)

    def from_onnx(self, graph, opset_version):
        """(sym, arg_params, aux_params) of an ONNX GraphProto."""
        numpy_helper = onnx_module().numpy_helper
        self.opset_version = opset_version
        self.model_metadata = self.get_graph_metadata(graph)
        for init in graph.initializer:
            if not init.name.strip():
                raise ValueError("Tensor's name is required.")
            self._values[init.name] = np.array(numpy_helper.to_array(init))
            self._names.add(init.name)
        for name, shape, _ in self.model_metadata["input_tensor_data"]:
            var = symbol.var(name)
            self._nodes[name] = self._inputs[name] = var
            self._names.add(name)
            self._partial[name] = shape
            if all(d > 0 for d in shape):
                self._shapes[name] = shape
        self.translate_nodes(graph.node)
        outs = [self.sym(o.name) for o in graph.output]
        out = outs[0] if len(outs) == 1 else symbol.Group(outs)
        arg = {n: nd.array(self._params[n], dtype=self._params[n].dtype) for n in out.list_arguments()
               if n in self._params}
        aux = {n: nd.array(self._params[n], dtype=self._params[n].dtype) for n in out.list_auxiliary_states()
               if n in self._params}
        return out, arg, aux

    def translate_nodes(self, nodes):
        """Translate ONNX nodes in order (a control flow body's too: its tensors join the
        same tables, and it reads the enclosing graph's by name)."""
        for node in nodes:
            if self._symbolic(node):
                continue
            if self._constant(node) and not any(a.type == a.GRAPH for a in node.attribute):
                try:
                    self._fold(node)
                    continue
                except MXNetError:
                    raise
                except Exception:  # pylint: disable=broad-except  (the reference evaluator lacks it: translate)
                    if node.op_type == "Constant":
                        raise
            self._translate(node)

    def _translate(self, node):
        fn = TRANSLATORS.get(node.op_type)
        if fn is None or node.domain not in ("", "ai.onnx"):
            raise NotImplementedError("Operator {} not implemented.".format(node.op_type))
        attrs = {a.name: onnx_module().helper.get_attribute_value(a) for a in node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        name = self.unique(node.name.strip() or node.output[0])
        res = fn(self, node, attrs, name)
        res = [res] if isinstance(res, symbol.Symbol) and len(res.list_outputs()) == 1 else list(res)
        for out, s in zip([o for o in node.output], res):
            if out:
                self._nodes[out] = s

    def get_graph_metadata(self, graph):
        """{'input_tensor_data': [(name, shape, elem_type)], 'output_tensor_data': [(name, shape)]}."""
        params = {t.name for t in graph.initializer}
        inputs = []
        for i in graph.input:
            if i.name not in params:
                shape = tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
                inputs.append((i.name, shape, i.type.tensor_type.elem_type))
        outputs = [(o.name, tuple(d.dim_value for d in o.type.tensor_type.shape.dim)) for o in graph.output]
        return {"input_tensor_data": inputs, "output_tensor_data": outputs}

    def graph_to_gluon(self, graph, ctx, opset_version):
        """A SymbolBlock of the graph with its parameters loaded on ``ctx``."""
        from ....gluon import SymbolBlock  # pylint: disable=import-outside-toplevel
        sym, arg_params, aux_params = self.from_onnx(graph, opset_version)
        data = [symbol.var(n) for n, _, _ in self.model_metadata["input_tensor_data"]]
        net = SymbolBlock(outputs=sym, inputs=data)
        params = net.collect_params()
        for name, value in list(arg_params.items()) + list(aux_params.items()):
            if name in params:
                params[name].shape = value.shape
                params[name].dtype = value.dtype   # int64 constants of shape arithmetic stay int64
                params[name]._load_init(value, ctx=ctx)
        return net
