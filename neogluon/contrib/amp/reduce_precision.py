"""MXNet 1.9.1's AMP graph pass (``ReducePrecision``): a float32 graph rewritten to run in
float16 or bfloat16 by inserting ``amp_cast`` nodes, as ``amp.convert_symbol`` does.

The rules, read off MXNet 1.9.1's converted graphs (``tests/fixtures/extra/amp``):

- Each operator node gets a mode: *float32* (in the float32 list, a conditional float32
  operator whose attribute has one of the listed values, or excluded by name), *target*
  (in the target list), *widest* (in the widest-type list) or *other*.
- The pass remembers which outputs are known to be float32 and which known to be in the
  target type: a float32 node's outputs and every cast to float32; a target node's outputs
  and every cast to the target type; an *other* node's outputs take the kind of its inputs.
- A float32 node reads float32: an input not known as float32 is cast (``amp_cast``),
  except a variable, which is taken as float32 already.
- A target node reads the target type: an input not known as such is cast; a model
  parameter (a variable that is not a data input) is left uncast and marked with the
  target type instead when ``cast_optional_params``.
- A widest-type node with a float32 input reads float32: its other non-variable inputs are
  cast. Else, when its first input is not known in the target type but another is, it
  reads all of them through one ``amp_multicast`` (named after the first input) and counts
  as a target node. Otherwise it runs on what it gets (where its inputs then differ,
  MXNet's type inference rejects the graph, and so does neogluon's).
- A graph output in the target type is cast back to float32.
- One cast per output and type, shared by every reader. A cast is named
  ``<node>_<output>_amp_cast_<type>``: ``<output>`` is the output's name for operators
  that name their outputs in MXNet (``fc0_output``, ``split0_output1``), else its index
  (``exp0_0``); a variable's cast is ``<variable>_amp_cast_<type>``.
- Every parameter gets ``__dtype__``: the target type's flag where it was marked, else
  float32's.
"""
import json
import os

from ...base import MXNetError
from ...operator import registry
from ...symbol.symbol import Node, Symbol

FLAGS = {"float32": "0", "float16": "2", "bfloat16": "12"}
_NAMED_OUTPUTS = None


def named_outputs():
    """The operators whose outputs MXNet 1.9.1 names (FListOutputNames), probed from its AMP
    pass by tools/make_extra_fixtures_amp.py; a cast of their output uses the name."""
    global _NAMED_OUTPUTS  # pylint: disable=global-statement
    if _NAMED_OUTPUTS is None:
        with open(os.path.join(os.path.dirname(__file__), "named_outputs.json")) as f:
            _NAMED_OUTPUTS = frozenset(json.load(f))
    return _NAMED_OUTPUTS


def _suffix(node, index):
    if node.op is None:
        return ""
    if node.op.name in named_outputs():
        return "_" + node.op.output_names(node.parsed)[index]
    return "_%d" % index


class _Pass:
    """One run of the pass over a graph (the state the rules above speak of)."""

    def __init__(self, target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names,
                 cast_optional_params):
        self.target = target
        self.target_ops, self.fp32_ops, self.widest_ops = set(target_ops), set(fp32_ops), set(widest_ops)
        self.conditional = [(op, param, set(values)) for op, param, values in conditional]
        self.excluded, self.data_names = set(excluded), set(data_names)
        self.cast_optional_params = cast_optional_params
        self.amp_cast, self.amp_multicast = registry.get("amp_cast"), registry.get("amp_multicast")
        self.mirror = {}          # id(old node) -> new node
        self.known = {"float32": {}, target: {}}   # (id(old node), index) -> new entry of that type
        self.marked = set()       # names of parameters marked with the target type

    def mode(self, node):
        name = node.op.name
        if node.name in self.excluded or name in self.fp32_ops:
            return "float32"
        for op, param, values in self.conditional:
            if name == op and node.attrs.get(param) in values:
                return "float32"
        if name in self.target_ops:
            return self.target
        return "widest" if name in self.widest_ops else "other"

    def cast(self, entry, dtype):
        """The new entry of ``entry`` (an old one) in ``dtype``: a shared ``amp_cast`` node."""
        node, index = entry[0], entry[1]
        key = (id(node), index)
        known = self.known[dtype]
        if key not in known:
            name = "%s%s_amp_cast_%s" % (node.name, _suffix(node, index), dtype)
            known[key] = (Node(self.amp_cast, name, {"dtype": dtype}, [self.new(entry)]), 0, 0)
        return known[key]

    def new(self, entry):
        return self.mirror[id(entry[0])], entry[1], entry[2]

    def read(self, entry, dtype):
        """How a node that runs in ``dtype`` reads an old input entry."""
        node = entry[0]
        key = (id(node), entry[1])
        if key in self.known[dtype]:
            return self.known[dtype][key]
        if node.op is None:
            if dtype == "float32":
                return self.new(entry)  # variables are float32 already
            if self.cast_optional_params and node.name not in self.data_names:
                self.marked.add(node.name)
                return self.new(entry)
        return self.cast(entry, dtype)

    def visit(self, node):
        new = Node(node.op, node.name, dict(node.attrs), subgraphs=node.subgraphs)
        new.version = node.version
        self.mirror[id(node)] = new
        if node.op is None:
            return
        mode = self.mode(node)
        keys = [(id(e[0]), e[1]) for e in node.inputs]
        if mode == "widest":
            if any(k in self.known["float32"] for k in keys):
                mode = "float32"
            elif keys[0] not in self.known[self.target] and any(k in self.known[self.target] for k in keys):
                self.multicast(node, new)
                return
            else:
                mode = "other"
        if mode == "other":
            new.inputs = [self.new(e) for e in node.inputs]
            mode = next((t for t in (self.target, "float32") if any(k in self.known[t] for k in keys)), None)
        else:
            new.inputs = [self.read(e, mode) for e in node.inputs]
        if mode is not None:
            for i in range(node.num_visible_outputs()):
                self.known[mode].setdefault((id(node), i), (new, i, 0))

    def multicast(self, node, new):
        """``node`` reads its inputs through one ``amp_multicast`` (named after the first input)
        and counts as running in the target type."""
        first = node.inputs[0][0]
        name = "%s%s_amp_multicast" % (first.name, _suffix(first, node.inputs[0][1]))
        cast = Node(self.amp_multicast, name, {"num_outputs": str(len(node.inputs))},
                    [self.new(e) for e in node.inputs])
        new.inputs = [(cast, i, 0) for i in range(len(node.inputs))]
        for i in range(node.num_visible_outputs()):
            self.known[self.target].setdefault((id(node), i), (new, i, 0))

    def run(self, symbol):
        for node in symbol._order():  # pylint: disable=protected-access
            self.visit(node)
        heads = []
        for node, index in symbol._outputs:  # pylint: disable=protected-access
            key = (id(node), index)
            if key in self.known["float32"]:
                entry = self.known["float32"][key]
            elif key in self.known[self.target]:
                entry = self.cast((node, index, 0), "float32")
            else:
                entry = self.new((node, index, 0))
            heads.append((entry[0], entry[1]))
        result = Symbol(heads)
        for node in result._order():  # pylint: disable=protected-access
            if node.op is None and node.name not in self.data_names:
                node.attrs["__dtype__"] = FLAGS[self.target if node.name in self.marked else "float32"]
        return result


def reduce_precision(symbol, target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names,
                     cast_optional_params=False):
    """``symbol`` with MXNet's AMP casts for ``target`` ('float16' or 'bfloat16'); see the
    module docstring. The given symbol is not changed."""
    if target not in ("float16", "bfloat16"):
        raise MXNetError("reduce_precision: target must be float16 or bfloat16, got %r" % (target,))
    return _Pass(target, target_ops, fp32_ops, widest_ops, conditional, excluded, data_names,
                 cast_optional_params).run(symbol)
