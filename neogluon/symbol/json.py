"""MXNet 1.x symbol JSON (``-symbol.json``): reading and writing.

The format is nnvm's graph JSON: ``nodes`` in topological order (each with ``op``,
``name``, string ``attrs`` and ``inputs`` as ``[node, output, version]``), ``arg_nodes``
(the variables), ``node_row_ptr`` (the running count of every node's outputs, hidden ones
included), ``heads`` (the outputs) and ``attrs`` with ``mxnet_version``. Files from older
MXNet versions that spell node attributes ``attr`` or ``param`` are read too.
"""
import json

from ..base import MXNetError
from ..operator import registry
from .symbol import Node, Symbol, topo_order

__all__ = ["to_json", "to_dict", "load", "load_json"]

MXNET_VERSION = 10901


def to_dict(symbol):
    """The JSON object MXNet 1.9.1 writes for ``symbol``."""
    order = topo_order(symbol._outputs)
    index = {id(n): i for i, n in enumerate(order)}
    nodes, row_ptr = [], [0]
    for n in order:
        entry = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        if n.attrs:
            entry["attrs"] = dict(sorted(n.attrs.items()))
        entry["inputs"] = [[index[id(src)], i, v] for src, i, v in n.inputs]
        nodes.append(entry)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    return {"nodes": nodes,
            "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
            "node_row_ptr": row_ptr,
            "heads": [[index[id(n)], i, 0] for n, i in symbol._outputs],
            "attrs": {"mxnet_version": ["int", MXNET_VERSION]}}


def to_json(symbol):
    """The JSON text: one node per block, short lists and attribute maps inline, as MXNet lays it out."""
    graph = to_dict(symbol)
    nodes = []
    for n in graph["nodes"]:
        fields = ",\n".join('      "%s": %s' % (k, json.dumps(v)) for k, v in n.items())
        nodes.append("    {\n%s\n    }" % fields)
    rest = ",\n".join('  "%s": %s' % (k, json.dumps(graph[k])) for k in ("arg_nodes", "node_row_ptr", "heads", "attrs"))
    return '{\n  "nodes": [\n%s\n  ],\n%s\n}' % (",\n".join(nodes), rest)


def _graph_error(msg):
    return MXNetError("Invalid symbol JSON: %s" % msg)


def _node_from(entry, built):
    if not isinstance(entry, dict) or "op" not in entry or "name" not in entry:
        raise _graph_error("every node needs 'op' and 'name', got %r" % (entry,))
    attrs = entry.get("attrs", entry.get("attr", entry.get("param", {}))) or {}
    attrs = {str(k): str(v) for k, v in attrs.items()}
    op = None if entry["op"] == "null" else registry.get(entry["op"])
    node = Node(op, entry["name"], attrs)
    for e in entry.get("inputs", []):
        if not 0 <= e[0] < len(built):
            raise _graph_error("node %s has input %r from a later or missing node" % (entry["name"], e))
        src = built[e[0]]
        version = e[2] if len(e) > 2 else 0
        node.inputs.append((src, e[1], version))
        src.version = max(src.version, version)
    if op is not None:
        try:
            node.parsed  # pylint: disable=pointless-statement
        except MXNetError as err:
            raise MXNetError("Invalid symbol JSON, node %s: %s" % (entry["name"], err)) from None
        _check_inputs(node)
    return node


def _check_inputs(node):
    expected = node.op.input_names(node.parsed)
    if len(node.inputs) != len(expected):
        raise _graph_error("operator %s (node %s) takes %d inputs (%s) but the file gives %d"
                           % (node.op.name, node.name, len(expected), ", ".join(expected), len(node.inputs)))


def from_dict(graph):
    """The Symbol of a parsed JSON graph."""
    try:
        entries, heads = graph["nodes"], graph["heads"]
    except (KeyError, TypeError):
        raise _graph_error("expected an object with 'nodes' and 'heads'") from None
    built = []
    for entry in entries:
        built.append(_node_from(entry, built))
    outputs = []
    for h in heads:
        if not 0 <= h[0] < len(built):
            raise _graph_error("head %r refers to a missing node" % (h,))
        outputs.append((built[h[0]], h[1]))
    return Symbol(outputs)


def load_json(json_str):
    """A Symbol from a JSON string (``mx.sym.load_json``)."""
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    try:
        graph = json.loads(json_str)
    except ValueError as e:
        raise _graph_error(str(e)) from None
    return from_dict(graph)


def load(fname):
    """A Symbol from a ``-symbol.json`` file (``mx.sym.load``)."""
    if not isinstance(fname, str):
        raise TypeError("fname required to be string")
    with open(fname) as f:
        return load_json(f.read())
