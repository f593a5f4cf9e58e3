"""``mx.viz``: MXNet 1.9.1's network summary table and Graphviz drawing of a Symbol.

``print_summary`` prints the same text as MXNet 1.9.1, parameter counts included (which,
like MXNet's, are estimates: a FullyConnected after a convolution counts the channels of
its input, not the flattened size). ``plot_network`` returns a ``graphviz.Digraph`` with
MXNet's node labels, colours and edge labels; its ``render``/``view``/``pipe`` raise a
clear :class:`~neogluon.base.MXNetError` when Graphviz's ``dot`` program is missing.
"""
import copy
import json
import re
import warnings

import numpy as np

from .base import MXNetError
from .symbol import Symbol

__all__ = ["print_summary", "plot_network"]

_BITS_PER_BYTE = 8


def _str2tuple(string):
    """The integers of a shape attribute string such as ``'(5, 5)'``, as strings."""
    return re.findall(r"\d+", string)


def _output_shapes(symbol, shape):
    """``{output name: shape}`` of every internal output, given the input shapes."""
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError("Input shape is incomplete")
    return dict(zip(internals.list_outputs(), out_shapes))


def _output_types(symbol, dtype):
    """``{output name: dtype name}`` of every internal output, given the input dtypes."""
    internals = symbol.get_internals()
    _, out_types, _ = internals.infer_type(**dtype)
    if out_types is None:
        raise ValueError("Input type is incomplete")
    return {name: np.dtype(t).name for name, t in zip(internals.list_outputs(), out_types)}


def _format_row(fields, positions):
    """One table line: each field cut or padded to end at its column position."""
    line = ""
    for field, pos in zip(fields, positions):
        line = (line + str(field))[:pos].ljust(pos)
    return line


def _entry_key(node):
    """The internal output name MXNet looks a node's shape up by."""
    return node["name"] + "_output" if node["op"] != "null" else node["name"]


def _is_true(attrs, key):
    return attrs.get(key) == "True"


def _conv_params(node, in_channels, out_shape):
    attrs = node["attrs"]
    num_filter = int(attrs["num_filter"])
    count = in_channels * num_filter // int(attrs.get("num_group", "1"))
    count *= int(np.prod([int(k) for k in _str2tuple(attrs["kernel"])]))
    return count if _is_true(attrs, "no_bias") else count + num_filter


def _fc_params(node, in_channels, out_shape):
    attrs = node["attrs"]
    num_hidden = int(attrs["num_hidden"])
    return (in_channels if _is_true(attrs, "no_bias") else in_channels + 1) * num_hidden


def _batchnorm_params(node, in_channels, out_shape):
    return 2 * int(out_shape[1]) if out_shape is not None else 0


def _embedding_params(node, in_channels, out_shape):
    return int(node["attrs"]["input_dim"]) * int(node["attrs"]["output_dim"])


# MXNet's per-operator parameter estimates: (node, summed input channels, full output shape)
_PARAM_COUNTERS = {"Convolution": _conv_params, "FullyConnected": _fc_params,
                   "BatchNorm": _batchnorm_params, "Embedding": _embedding_params}


class _Summary:
    """The rows of MXNet's summary table for one symbol's JSON graph."""

    def __init__(self, conf, shapes):
        self.nodes = conf["nodes"]
        # MXNet takes the first head's (node, index, version) triple as the set of "heads"
        self.heads = set(conf["heads"][0])
        self.shapes = shapes

    def shown(self, index):
        """Whether a node gets a row: every operator, and the first node."""
        return index == 0 or self.nodes[index]["op"] != "null"

    def full_shape(self, node):
        if self.shapes is None:
            return None
        return self.shapes.get(_entry_key(node))

    def previous(self, node):
        """Names of the operator inputs listed as previous layers, and their channel sum."""
        names, channels = [], 0
        for entry in node["inputs"] if node["op"] != "null" else ():
            source = self.nodes[entry[0]]
            if source["op"] == "null" and entry[0] not in self.heads:
                continue
            names.append(source["name"])
            shape = self.full_shape(source)
            if shape is not None and len(shape) > 1:
                channels += int(shape[1])
        return names, channels

    def rows(self, index):
        """The table rows of node ``index`` and its parameter count."""
        node = self.nodes[index]
        names, channels = self.previous(node)
        full = self.full_shape(node)
        counter = _PARAM_COUNTERS.get(node["op"])
        params = counter(node, channels, full) if counter is not None else 0
        out_shape = "x".join(str(d) for d in full[1:]) if full is not None else ""
        rows = [[node["name"] + "(" + node["op"] + ")", out_shape, params, names[0] if names else ""]]
        rows += [["", "", "", name] for name in names[1:]]
        return rows, params


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.),
                  quantized_bitwidth=None):
    """Print MXNet 1.9.1's layer table of ``symbol``: each operator's name and type, output
    shape (without the batch axis, when ``shape`` gives the input shapes), parameter count
    and previous layers, then the total.

    ``positions`` are the columns' right edges, as fractions of ``line_length`` when the
    last one is at most 1. ``quantized_bitwidth`` (not in MXNet 1.9.1) adds a line with the
    parameters' size in bytes at that many bits each.
    """
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shapes = _output_shapes(symbol, shape) if shape is not None else None
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    summary = _Summary(json.loads(symbol.tojson()), shapes)
    print("_" * line_length)
    print(_format_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"], positions))
    print("=" * line_length)
    total = 0
    shown = [i for i in range(len(summary.nodes)) if summary.shown(i)]
    for i in shown:
        rows, params = summary.rows(i)
        total += params
        for row in rows:
            print(_format_row(row, positions))
        print(("=" if i == len(summary.nodes) - 1 else "_") * line_length)
    print("Total params: {params}".format(params=total))
    print("_" * line_length)
    if quantized_bitwidth is not None:
        size = -(-total * int(quantized_bitwidth) // _BITS_PER_BYTE)
        print("Params size: {} bytes at {} bits per parameter".format(size, quantized_bitwidth))
        print("_" * line_length)


# ---------------------------------------------------------------------------------------
# plot_network

_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")
_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                    "_running_var", "_running_mean")
_DEFAULT_NODE_ATTRS = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
                       "style": "filled"}
_DOT_MISSING = ("plot_network: rendering the graph needs Graphviz's `dot` program, which was "
                "not found on the PATH ({err}). Install Graphviz (apt-get install graphviz, "
                "brew install graphviz or conda install graphviz), or use the Digraph's .source "
                "text without rendering.")
_DIGRAPH = []


def _digraph_class():
    """``graphviz.Digraph`` with rendering errors turned into a clear MXNetError."""
    if _DIGRAPH:
        return _DIGRAPH[0]
    try:
        import graphviz
    except ImportError as err:
        raise ImportError("Draw network requires graphviz library "
                          "(pip install graphviz, or pip install neogluon[viz])") from err

    def _guard(method):
        def wrapped(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except graphviz.ExecutableNotFound as err:
                raise MXNetError(_DOT_MISSING.format(err=err)) from err
        wrapped.__name__, wrapped.__doc__ = method.__name__, method.__doc__
        return wrapped

    class Digraph(graphviz.Digraph):
        """A graphviz.Digraph whose rendering says clearly when ``dot`` is missing."""
        render = _guard(graphviz.Digraph.render)
        view = _guard(graphviz.Digraph.view)
        pipe = _guard(graphviz.Digraph.pipe)

    _DIGRAPH.append(Digraph)
    return Digraph


def _attr_shape(attrs, key, default):
    """A shape attribute as MXNet's labels write it (``'5x5'``), or ``default``."""
    return "x".join(_str2tuple(attrs[key])) if key in attrs else default


def _node_style(node):
    """(label, fill colour) of an operator node, as MXNet draws it."""
    op, attrs = node["op"], node.get("attrs") or {}
    if op == "Convolution":
        return ("Convolution\n{}/{}, {}".format(_attr_shape(attrs, "kernel", ""), _attr_shape(attrs, "stride", "1"),
                                                 attrs["num_filter"]), _COLORS[1])
    if op == "FullyConnected":
        return "FullyConnected\n{}".format(attrs["num_hidden"]), _COLORS[1]
    if op == "BatchNorm":
        return node["name"], _COLORS[3]
    if op == "Activation":
        return "Activation\n{}".format(attrs["act_type"]), _COLORS[2]
    if op == "LeakyReLU":
        return "LeakyReLU\n{}".format(attrs.get("act_type", "Leaky")), _COLORS[2]
    if op == "Pooling":
        return ("Pooling\n{}, {}/{}".format(attrs.get("pool_type", "max"), _attr_shape(attrs, "kernel", "[]"),
                                            _attr_shape(attrs, "stride", "1")), _COLORS[4])
    if op in ("Concat", "Flatten", "Reshape"):
        return node["name"], _COLORS[5]
    if op == "Softmax":
        return node["name"], _COLORS[6]
    if op == "Custom":
        return attrs["op_type"], _COLORS[7]
    return node["name"], _COLORS[7]


def _warn_repeated_names(nodes):
    names = [node["name"] for node in nodes]
    repeated = {name for name in names if names.count(name) > 1}
    if repeated:
        warnings.warn("There are multiple variables with the same name in your graph, "
                      "this may result in cyclic graph. Repeated names: " + ",".join(repeated),
                      RuntimeWarning)


def _edge_key(node):
    """The internal output name of the edge leaving ``node`` (MXNet labels edges from a
    multi-output node with its last output)."""
    key = _entry_key(node)
    if node["op"] != "null" and "num_outputs" in node.get("attrs", {}):
        key += str(int(node["attrs"]["num_outputs"]) - 1)
    return key


def _edge_label(source, shapes, types):
    key = _edge_key(source)
    label = ""
    if shapes is not None and key in shapes:
        label = "x".join(str(d) for d in shapes[key][1:])
    if types is not None and key in types:
        label += "(" + types[key] + ")"
    return label


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs=None,
                 hide_weights=True):
    """Draw ``symbol`` as MXNet 1.9.1 does: a ``graphviz.Digraph`` named ``title`` with one
    box per operator (labelled and coloured by type), an oval per input variable, and edges
    pointing from each operator back to its inputs, labelled with the tensor's shape
    (``shape``: input shapes) and dtype (``dtype``: input dtypes). ``hide_weights`` leaves
    out weights, biases and BatchNorm statistics; ``node_attrs`` overrides Graphviz node
    attributes. Call ``.render()`` on the result to write a ``save_format`` file.
    """
    digraph = _digraph_class()
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shapes = _output_shapes(symbol, shape) if shape is not None else None
    types = _output_types(symbol, dtype) if dtype is not None else None
    nodes = json.loads(symbol.tojson())["nodes"]
    _warn_repeated_names(nodes)
    base_attrs = dict(_DEFAULT_NODE_ATTRS, **(node_attrs or {}))
    dot = digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attrs = copy.deepcopy(base_attrs)
        if node["op"] == "null":
            if node["name"].endswith(_WEIGHT_SUFFIXES):
                # shown weights get no node of their own: Graphviz draws them as plain ovals
                if hide_weights:
                    hidden.add(node["name"])
                continue
            attrs.update(shape="oval", fillcolor=_COLORS[0])
            label = node["name"]
        else:
            label, attrs["fillcolor"] = _node_style(node)
        dot.node(name=node["name"], label=label, **attrs)
    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"][:1] if node["op"] == "_contrib_BilinearResize2D" else node["inputs"]
        for entry in inputs:
            source = nodes[entry[0]]
            if source["name"] in hidden:
                continue
            dot.edge(tail_name=node["name"], head_name=source["name"], dir="back", arrowtail="open",
                     label=_edge_label(source, shapes, types))
    return dot
