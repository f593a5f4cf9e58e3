"""MXNet 1.x symbol JSON (``-symbol.json``): reading and writing.

The format is nnvm's graph JSON: ``nodes`` in topological order (each with ``op``,
``name``, string ``attrs`` and ``inputs`` as ``[node, output, version]``), ``arg_nodes``
(the variables), ``node_row_ptr`` (the running count of every node's outputs, hidden ones
included), ``heads`` (the outputs) and ``attrs`` with ``mxnet_version``. Files from older
MXNet versions that spell node attributes ``attr`` or ``param`` are read too.

Reading checks every field's type and every entry (a node index before the node, an output
the node has), and bounds what attributes ask for before any name is built: ``num_args``
by the inputs the node lists, a node's outputs by the file's size. Every problem is an
MXNetError naming the node (and, from ``sym.load``, the file).
"""
import json

from ..base import MXNetError
from ..fileio import read_file
from ..operator import registry
from .symbol import AUX_INIT, HIDDEN_KEYS, Node, Symbol, topo_order

__all__ = ["to_json", "to_dict", "load", "load_json"]

MXNET_VERSION = 10901


def to_dict(symbol, top=True):
    """The JSON object MXNet 1.9.1 writes for ``symbol`` (a node's subgraphs nested in its
    ``subgraphs`` list, without the ``attrs`` a top-level graph has)."""
    order = topo_order(symbol._outputs)
    index = {id(n): i for i, n in enumerate(order)}
    nodes, row_ptr = [], [0]
    for n in order:
        entry = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        if n.attrs:
            entry["attrs"] = dict(sorted(n.attrs.items()))
        entry["inputs"] = [[index[id(src)], i, v] for src, i, v in n.inputs]
        if n.subgraphs:
            entry["subgraphs"] = [to_dict(g, top=False) for g in n.subgraphs]
        nodes.append(entry)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    graph = {"nodes": nodes,
             "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
             "node_row_ptr": row_ptr,
             "heads": [[index[id(n)], i, 0] for n, i in symbol._outputs]}
    if top:
        graph["attrs"] = {"mxnet_version": ["int", MXNET_VERSION]}
    return graph


_ESCAPES = {"\r": "\\r", "\n": "\\n", "\\": "\\\\", "\t": "\\t", '"': '\\"'}


def _string(s):
    """A JSON string as dmlc's JSONWriter writes it: only CR, LF, tab, backslash and the
    quote are escaped; other characters (non-ASCII ones too) are written as they are."""
    return '"%s"' % "".join(_ESCAPES.get(c, c) for c in s)


def _write(value, depth, key=None):
    """dmlc's JSONWriter layout, which nnvm's graph JSON uses: an object or array begins a
    new line per item when it is multi-line (graphs and nodes; an attribute map of more than
    one key; a list of more than 10 items or of objects), items are separated by ", " (before
    the line break), and indentation is two spaces per open scope."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, bool) or not isinstance(value, (dict, list, int)):
        raise TypeError("graph JSON holds strings, integers, lists and objects, not %r" % (value,))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        multi = key != "attrs" or len(value) > 1
        items = ["%s: %s" % (_string(k), _write(v, depth + 1, k)) for k, v in value.items()]
        opening, closing = "{", "}"
    else:
        multi = len(value) > 10 or any(isinstance(v, dict) for v in value)
        items = [_write(v, depth + 1) for v in value]
        opening, closing = "[", "]"
    if not items:
        return opening + closing
    if not multi:
        return opening + ", ".join(items) + closing
    pad = "\n" + "  " * (depth + 1)
    return opening + pad + (", " + pad).join(items) + "\n" + "  " * depth + closing


def to_json(symbol, remove_amp_cast=False):
    """The JSON text, byte for byte as MXNet 1.9.1 writes it (``tojson``, ``save``, ``export``).
    With ``remove_amp_cast``, nodes read around AMP's casts (:func:`remove_amp_casts`)."""
    if remove_amp_cast and any(n.op is not None and n.op.name in _AMP_CASTS for n in symbol._order()):
        symbol = remove_amp_casts(symbol)
    return _write(to_dict(symbol), 0)


_AMP_CASTS = ("amp_cast", "amp_multicast")


def remove_amp_casts(symbol):
    """A copy of ``symbol`` whose nodes read around ``amp_cast``/``amp_multicast`` nodes (what
    MXNet's ``tojson(remove_amp_cast=True)`` writes); casts that are graph outputs stay."""
    mirror = {}

    def source(entry):
        while entry[0].op is not None and entry[0].op.name in _AMP_CASTS:
            entry = entry[0].inputs[entry[1] if entry[0].op.name == "amp_multicast" else 0]
        return mirror[id(entry[0])], entry[1], entry[2]

    for node in symbol._order():  # pylint: disable=protected-access
        new = Node(node.op, node.name, node.attrs, subgraphs=node.subgraphs)
        new.version = node.version
        mirror[id(node)] = new
        new.inputs = [source(e) for e in node.inputs]
    return Symbol([(mirror[id(n)], i) for n, i in symbol._outputs])  # pylint: disable=protected-access


def _graph_error(msg):
    return MXNetError("Invalid symbol JSON: %s" % msg)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _entry(e, where, built):
    """A checked ``[node, output, version]`` entry: the node exists (and comes before), the
    output is one the node has."""
    if not isinstance(e, (list, tuple)) or len(e) not in (2, 3) or not all(_is_int(x) for x in e):
        raise _graph_error("%s: expected [node, output, version] of integers, got %.100r" % (where, e))
    if not 0 <= e[0] < len(built):
        raise _graph_error("%s: entry %r refers to a later or missing node (there are %d before it)"
                           % (where, list(e), len(built)))
    src = built[e[0]]
    if not 0 <= e[1] < src.num_outputs():
        raise _graph_error("%s: entry %r asks for output %d of node %s, which has %d"
                           % (where, list(e), e[1], src.name, src.num_outputs()))
    if len(e) > 2 and e[2] < 0:
        raise _graph_error("%s: entry %r has a negative version" % (where, list(e)))
    return src, e[1], e[2] if len(e) > 2 else 0


def _attrs_of(entry, where):
    attrs = {}
    for field in ("param", "attr", "attrs"):  # files before MXNet 0.9 keep both "param" and "attr": merged
        part = entry.get(field) or {}
        if not isinstance(part, dict):
            raise _graph_error("%s: '%s' must be an object of strings, got %.100r" % (where, field, part))
        attrs.update(part)
    for k, v in attrs.items():
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            raise _graph_error("%s: attribute %s must be a string, got %.100r" % (where, k, v))
    out = {str(k): str(v) for k, v in attrs.items()}
    # MXNet's reader (legacy_json_util.cc) turns a plain hidden key (lr_mult, as files before 0.9
    # and hand-written ones spell it) into its __lr_mult__ form, over a dunder one already there
    for key in _JSON_HIDDEN_KEYS:
        if key in out:
            out["__%s__" % key] = out.pop(key)
    return out


_JSON_HIDDEN_KEYS = tuple(k for k in HIDDEN_KEYS if k != "profiler_scope")  # the keys MXNet's reader renames


def _node_from(index, entry, built, max_count):
    if not isinstance(entry, dict) or "op" not in entry or "name" not in entry:
        raise _graph_error("node %d: every node needs 'op' and 'name', got %.100r" % (index, entry))
    name, op_name = entry["name"], entry["op"]
    if not isinstance(name, str) or not isinstance(op_name, str):
        raise _graph_error("node %d: 'op' and 'name' must be strings, got %.100r and %.100r" % (index, op_name, name))
    where = "node %d (%s)" % (index, name)
    attrs = _attrs_of(entry, where)
    inputs = entry.get("inputs", [])
    if not isinstance(inputs, list):
        raise _graph_error("%s: 'inputs' must be a list, got %.100r" % (where, inputs))
    try:
        op = None if op_name == "null" else registry.get(op_name)
    except MXNetError as err:
        raise _graph_error("%s: %s" % (where, err)) from None
    node = Node(op, name, attrs, subgraphs=_subgraphs_of(entry, where, op))
    for e in inputs:
        src, out, version = _entry(e, where, built)
        node.inputs.append((src, out, version))
        src.version = max(src.version, version)
    if op is not None:
        _check_variadic_count(node, where)
        try:
            node.parsed  # pylint: disable=pointless-statement
        except MXNetError as err:
            raise MXNetError("Invalid symbol JSON, node %s: %s" % (name, err)) from None
        _check_counts(node, where, max_count)
        _check_inputs(node)
    return node


def _subgraphs_of(entry, where, op):
    """The Symbols of a node's ``subgraphs`` (the bodies of ``_foreach``, ``_while_loop``,
    ``_cond``), each read and checked as a graph of its own."""
    graphs = entry.get("subgraphs", [])
    if not isinstance(graphs, list):
        raise _graph_error("%s: 'subgraphs' must be a list of graphs, got %.100r" % (where, graphs))
    if len(graphs) != getattr(op, "num_subgraphs", 0):
        raise _graph_error("%s: operator %s takes %d subgraphs but the file gives %d"
                           % (where, "null" if op is None else op.name, getattr(op, "num_subgraphs", 0), len(graphs)))
    out = []
    for k, g in enumerate(graphs):
        try:
            out.append(from_dict(g))
        except MXNetError as err:
            raise _graph_error("%s, subgraph %d: %s" % (where, k, str(err).replace("Invalid symbol JSON: ", ""))) \
                from None
    return out


def _check_variadic_count(node, where):
    """``num_args`` (or the operator's other count attribute) against the inputs the node
    lists, read from the raw string before the attributes are parsed: parsing builds the
    node's input names, so a count of 10^8 must be refused first."""
    variadic = node.op.variadic
    raw = node.attrs.get(variadic) if variadic else None
    if raw is None:
        return
    try:
        count = int(str(raw).strip().rstrip("L"))
    except ValueError:
        return  # not a number: parsing reports it
    if not 0 <= count <= len(node.inputs) + len(node.subgraphs):
        raise _graph_error("%s: %s=%s but the node has %d inputs" % (where, variadic, raw, len(node.inputs)))


def _check_counts(node, where, max_count):
    """Bound what the attributes ask for by what the graph has, before any name is built:
    ``num_args`` by the inputs the node lists, the outputs by the file's size."""
    variadic = node.op.variadic
    if variadic and not _is_int(node.parsed.get(variadic)):
        return
    if variadic and not 0 <= node.parsed[variadic] <= len(node.inputs) + len(node.subgraphs):
        raise _graph_error("%s: %s=%s but the node has %d inputs"
                           % (where, variadic, node.parsed[variadic], len(node.inputs)))
    n = node.num_outputs()
    if not 0 <= n <= max_count:
        raise _graph_error("%s: operator %s would have %d outputs, more than a file of this size can describe"
                           % (where, node.op.name, n))


def _check_inputs(node):
    expected = node.op.input_names(node.parsed)
    if len(node.inputs) != len(expected):
        raise _graph_error("operator %s (node %s) takes %d inputs (%s) but the file gives %d"
                           % (node.op.name, node.name, len(expected), ", ".join(expected), len(node.inputs)))


def from_dict(graph, max_count=None):
    """The Symbol of a parsed JSON graph; every field is checked (MXNetError naming the
    node and what is wrong). ``max_count`` bounds any node's number of outputs (by default
    the number of nodes plus 1024)."""
    if not isinstance(graph, dict) or "nodes" not in graph or "heads" not in graph:
        raise _graph_error("expected an object with 'nodes' and 'heads'")
    entries, heads = graph["nodes"], graph["heads"]
    if not isinstance(entries, list) or not isinstance(heads, list):
        raise _graph_error("'nodes' and 'heads' must be lists, got %.100r and %.100r" % (entries, heads))
    if max_count is None:
        max_count = len(entries) + 1024
    built = []
    for i, entry in enumerate(entries):
        built.append(_node_from(i, entry, built, max_count))
    if _version(graph) < 904:
        _init_aux_variables(built)
    if not heads:
        raise _graph_error("'heads' is empty: the graph has no output")
    outputs = [_entry(h, "head %d" % i, built)[:2] for i, h in enumerate(heads)]
    return Symbol(outputs)


def _version(graph):
    """The file's ``mxnet_version`` (0 for files older than MXNet 0.9, which have none)."""
    attrs = graph.get("attrs")
    version = attrs.get("mxnet_version") if isinstance(attrs, dict) else None
    if isinstance(version, list) and len(version) == 2 and _is_int(version[1]):
        return version[1]
    return 0


def _init_aux_variables(nodes):
    """MXNet's upgrade of files before 0.9.4: a variable feeding an auxiliary state (BatchNorm's
    moving_mean, moving_var) gets that state's ``__init__`` (zero, one) unless it has one."""
    for node in nodes:
        if node.op is None:
            continue
        names = node.op.input_names(node.parsed)
        for k, (src, _, _) in enumerate(node.inputs):
            if src.op is None and k < len(names) and names[k] in AUX_INIT and "__init__" not in src.attrs:
                src.attrs["__init__"] = AUX_INIT[names[k]]


def load_json(json_str):
    """A Symbol from a JSON string (``mx.sym.load_json``)."""
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    try:
        graph = json.loads(json_str)
    except ValueError as e:
        raise _graph_error(str(e)) from None
    except RecursionError:
        raise _graph_error("nested too deeply") from None
    return from_dict(graph, max_count=max(1024, len(json_str)))


def load(fname):
    """A Symbol from a ``-symbol.json`` file (``mx.sym.load``); errors name the file."""
    if not isinstance(fname, str):
        raise TypeError("fname required to be string")
    text = read_file(fname, "sym.load", text=True)
    try:
        return load_json(text)
    except MXNetError as e:
        raise MXNetError("sym.load(%r): %s" % (fname, e)) from None
