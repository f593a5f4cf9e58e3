"""ONNX converters of MXNet's control flow operators (see ``executor/control_flow.py`` for
their semantics): ``_foreach`` becomes ``Scan``, ``_while_loop`` ``Loop``, ``_cond`` ``If``.

Each body Symbol is converted by the same converters as the main graph
(``graph.convert_symbol``) into an ONNX subgraph; the arrays a body closes over (MXNet's
``remain`` inputs, a loop's inputs that are not loop variables) are read from the enclosing
graph by name, as ONNX allows, and parameters among them are folded like the main graph's.
A while loop's condition is converted twice: once before the ``Loop`` on the initial values,
once at the end of the body on the new ones. MXNet pads a while loop's stacked step outputs
to ``max_iterations`` rows: the export pads ``Loop``'s outputs with zeros the same way.
"""
import contextlib

import numpy as np

from .._deps import onnx_module
from .graph import convert_symbol, converter, value_info

__all__ = []


@contextlib.contextmanager
def _into(c, nodes):
    """Emit ``c``'s nodes into ``nodes`` (a subgraph's) instead of the main graph's."""
    saved, c.graph.nodes = c.graph.nodes, nodes
    try:
        yield
    finally:
        c.graph.nodes = saved


def _shape(c, shape):
    return [None] * len(shape) if c.dynamic else list(shape)


def _outer(c, i):
    """The feed of node input ``i`` to a body: a constant's value, else its ONNX name."""
    value = c.value(i)
    return (None if value is not None else c.input(i), c.shape(i), c.dtype(i), value)


def _formal(c, hint, shape, dtype, formals):
    name = c.fresh(hint)
    formals.append(value_info(name, dtype, _shape(c, shape)))
    return (name, tuple(shape), dtype, None)


def _outputs(c, outs, hint):
    """Value infos of a body's outputs, each through an Identity of a name of its own (an
    output may be an input of the body, a tensor of the enclosing graph or repeated)."""
    infos = []
    for k, (name, shape, dtype) in enumerate(outs):
        fresh = c.emit("Identity", [name], out=c.fresh("%s%d" % (hint, k)))
        infos.append(value_info(fresh, dtype, _shape(c, shape)))
    return infos


def _graph(c, nodes, formals, outputs, hint):
    return onnx_module().helper.make_graph(nodes, c.fresh(hint), formals, outputs)


def _bool_scalar(c, pred):
    """MXNet's test of a condition's output: its first element is nonzero."""
    first = c.emit("Reshape", [c.slice(c.emit("Reshape", [pred, c.ints([-1])]), [0], [1], [0]), c.ints([])])
    return c.cast(first, np.bool_)


@converter("_foreach")
def convert_foreach(c):
    a = c.attrs
    body = a["subgraphs"][0]
    names = body.list_inputs()
    nd, ns, n_out = len(a["in_data_locs"]), len(a["in_state_locs"]), a["num_out_data"]
    nodes, formals, feeds = [], [], {}
    for k, loc in enumerate(a["in_state_locs"]):
        feeds[names[loc]] = _formal(c, "state%d" % k, c.shape(nd + k), c.dtype(nd + k), formals)
    for k, loc in enumerate(a["in_data_locs"]):
        feeds[names[loc]] = _formal(c, "slice%d" % k, c.shape(k)[1:], c.dtype(k), formals)
    for k, loc in enumerate(a["remain_locs"]):
        feeds[names[loc]] = _outer(c, nd + ns + k)
    with _into(c, nodes):
        outs = convert_symbol(c.graph, body, feeds, nodes)
        outputs = _outputs(c, outs[n_out:] + outs[:n_out], "body_out")   # Scan: states, then step outputs
    total = len(outs)
    results = [c.out(j) for j in range(n_out, total)] + [c.out(j) for j in range(n_out)]
    c.emit("Scan", [c.input(nd + k) for k in range(ns)] + [c.input(k) for k in range(nd)], out=results,
           num_scan_inputs=nd, body=_graph(c, nodes, formals, outputs, c.name + "_body"))


@converter("_while_loop")
def convert_while_loop(c):
    a = c.attrs
    cond_g, func_g = a["subgraphs"][0], a["subgraphs"][1]
    cond_names, func_names = cond_g.list_inputs(), func_g.list_inputs()
    n_out = a["num_out_data"]
    var_pos = [a["func_input_locs"][loc] for loc in a["func_var_locs"]]
    outer = {i: _outer(c, i) for i in range(c.nin)}
    pred = convert_symbol(c.graph, cond_g, {cond_names[j]: outer[i] for j, i in enumerate(a["cond_input_locs"])},
                          c.graph.nodes)[0][0]
    first = _bool_scalar(c, pred)
    nodes, formals = [], []
    _formal(c, "iter", (), np.int64, formals)
    _formal(c, "cond_in", (), np.bool_, formals)
    current = dict(outer)
    for k, p in enumerate(var_pos):
        current[p] = _formal(c, "var%d" % k, c.shape(p), c.dtype(p), formals)
    with _into(c, nodes):
        outs = convert_symbol(c.graph, func_g, {func_names[j]: current[i] for j, i in enumerate(a["func_input_locs"])},
                              nodes)
        for p, (name, shape, dtype) in zip(var_pos, outs[n_out:]):
            current[p] = (name, shape, dtype, None)
        pred = convert_symbol(c.graph, cond_g, {cond_names[j]: current[i] for j, i in enumerate(a["cond_input_locs"])},
                              nodes)[0][0]
        keep_going = c.emit("Identity", [_bool_scalar(c, pred)], out=c.fresh("cond_out"))
        outputs = [value_info(keep_going, np.bool_, [])] + _outputs(c, outs[n_out:] + outs[:n_out], "body_out")
    steps = [c.fresh("steps%d" % j) for j in range(n_out)]
    finals = [c.out(n_out + k) for k in range(len(var_pos))]
    trips = c.const(np.array(a["max_iterations"], np.int64), "max_iterations")
    c.emit("Loop", [trips, first] + [c.input(p) for p in var_pos], out=finals + steps,
           body=_graph(c, nodes, formals, outputs, c.name + "_body"))
    for j, name in enumerate(steps):   # MXNet's rows past the last step: zeros up to max_iterations
        ndim = len(c.out_shape(j))
        done = c.slice(c.emit("Shape", [name]), [0], [1], [0])
        missing = c.emit("Sub", [c.ints([a["max_iterations"]]), done])
        pads = c.emit("Concat", [c.ints([0] * ndim), missing, c.ints([0] * (ndim - 1))], axis=0)
        c.emit("Pad", [name, pads, c.const(np.array(0, c.out_dtype(j)), "zero")], out=c.out(j), mode="constant")


@converter("_cond")
def convert_cond(c):
    a = c.attrs
    cond_g = a["subgraphs"][0]
    outer = {i: _outer(c, i) for i in range(c.nin)}
    names = cond_g.list_inputs()
    pred = convert_symbol(c.graph, cond_g, {names[j]: outer[i] for j, i in enumerate(a["cond_input_locs"])},
                          c.graph.nodes)[0][0]
    branches = []
    for k, key in ((1, "then_input_locs"), (2, "else_input_locs")):
        body, nodes = a["subgraphs"][k], []
        names = body.list_inputs()
        with _into(c, nodes):
            outs = convert_symbol(c.graph, body, {names[j]: outer[i] for j, i in enumerate(a[key])}, nodes)
            outputs = _outputs(c, outs, "branch_out")
        branches.append(_graph(c, nodes, [], outputs, c.name + ("_then" if k == 1 else "_else")))
    c.emit("If", [_bool_scalar(c, pred)], out=[c.out(j) for j in range(c.node.num_visible_outputs())],
           then_branch=branches[0], else_branch=branches[1])
