"""MXNet 1.9.1's control flow operators: ``_foreach``, ``_while_loop`` and ``_cond``.

Each node holds its bodies as Symbols (``Node.subgraphs``, MXNet's ``subgraphs`` in the
JSON), which its parsed attributes carry to the kernel as ``subgraphs``. The kernel runs
them through the graph compiler (:mod:`neogluon.executor.compiler`, one compiled graph per
body), so the bodies run the same kernels as any graph, and torch autograd follows the
loop: gradients reach the data, the states and every tensor the bodies close over.

The node's inputs are the outer arrays; the ``*_locs`` attributes say where each goes
among a body's inputs (its ``list_inputs()`` order), exactly as MXNet's frontend
(``mx.sym.contrib.foreach``/``while_loop``/``cond``, :mod:`neogluon.symbol.control_flow`)
writes them:

- ``_foreach(data..., states..., remain...)``: ``in_data_locs``, ``in_state_locs``,
  ``remain_locs`` place them among the body's inputs; the body's first ``num_out_data``
  outputs are stacked along a new axis 0, the others are the next states.
- ``_while_loop(inputs...)``: ``cond_input_locs``/``func_input_locs`` pick the inputs of the
  condition and of the body, ``func_var_locs`` the loop variables among the body's inputs;
  the step outputs are stacked and padded with zeros to ``max_iterations`` rows (MXNet
  leaves the padding uninitialised).
- ``_cond(inputs...)``: the condition's one output (nonzero: true) picks the then or else
  body, each with its own inputs (``then_input_locs``, ``else_input_locs``).

``num_args`` counts the subgraphs too, as MXNet's frontend passes the bodies as the first
inputs: a ``_foreach`` with 7 arrays has ``num_args=8``.

Shapes and dtypes come from inference on the bodies (so a loop's parameters with deferred
shapes get theirs from the body, as in MXNet); the loops need values, not shapes.
"""
import torch

from ..base import MXNetError
from ..operator.registry import Int, Operator, Shape, register_operator, remember
from .compiler import compile_graph

__all__ = ["SubgraphOperator"]

_COMPILED = {}  # id(body Symbol) -> its CompiledGraph (which keeps the Symbol alive)


def _compiled(sym):
    graph = _COMPILED.get(id(sym))
    if graph is None or graph.symbol is not sym:
        graph = remember(_COMPILED, id(sym), compile_graph(sym))
    return graph


def _body(subgraphs, k, op):
    if not subgraphs:
        raise MXNetError("Operator %s runs its subgraphs, which only a graph node holds: build it with "
                         "mx.sym.contrib.%s (mx.nd.contrib.%s runs the loop on NDArrays)"
                         % (op, op.strip("_"), op.strip("_")))
    return _compiled(subgraphs[k])


def _needs_values(tensors, op):
    if any(t.device.type == "meta" for t in tensors):
        raise NotImplementedError("%s decides on values" % op)


def _result(outs):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _locs_error(op, what, locs, n):
    return MXNetError("Operator %s: %s %s do not fit the %d inputs of its subgraph" % (op, what, list(locs), n))


# ----------------------------------------------------------------------------- _foreach
def foreach(*inputs, subgraphs=(), num_args, num_outputs, num_out_data, in_state_locs, in_data_locs, remain_locs,
            is_train=False):
    """Run the body once per slice of the data along axis 0 (see the module docstring)."""
    body = _body(subgraphs, 0, "_foreach")
    nd, ns = len(in_data_locs), len(in_state_locs)
    slots = [None] * len(body.input_names)
    if len(inputs) != len(slots) or sorted(in_data_locs + in_state_locs + remain_locs) != list(range(len(slots))):
        raise _locs_error("_foreach", "in_data_locs, in_state_locs, remain_locs", in_data_locs + in_state_locs +
                          remain_locs, len(slots))
    data, states = inputs[:nd], list(inputs[nd:nd + ns])
    for loc, t in zip(remain_locs, inputs[nd + ns:]):
        slots[loc] = t
    steps = data[0].shape[0] if data else 0
    if any(d.dim() == 0 or d.shape[0] != steps for d in data):
        raise MXNetError("Operator _foreach: every data array needs the same length along axis 0, got shapes %s"
                         % ", ".join(str(tuple(d.shape)) for d in data))
    outputs = []
    for i in range(steps):
        for loc, d in zip(in_data_locs, data):
            slots[loc] = d[i]
        for loc, s in zip(in_state_locs, states):
            slots[loc] = s
        res = body(slots, is_train)
        outputs.append(res[:num_out_data])
        states = list(res[num_out_data:])
    stacked = [torch.stack(col) for col in zip(*outputs)] if outputs else []
    return _result(stacked + states)


def _infer(sym, shapes, dtypes=None):
    from ..symbol.infer import infer_graph
    return infer_graph(sym, {k: tuple(v) for k, v in shapes.items() if v is not None}, dtypes)


def _foreach_args(attrs, shapes):
    """The shapes of every input, those of the parameters a body closes over included,
    from inference on the body."""
    body = attrs["subgraphs"][0]
    names = body.list_inputs()
    nd = len(attrs["in_data_locs"])
    locs = list(attrs["in_data_locs"]) + list(attrs["in_state_locs"]) + list(attrs["remain_locs"])
    given = {}
    for k, loc in enumerate(locs):
        s = shapes[k]
        given[names[loc]] = (s[1:] if s else None) if k < nd else s
    g = _infer(body, given)
    by_name = {n.name: g.entry(n, 0)[0] for n in g.variables()}
    out = []
    for k, loc in enumerate(locs):
        s = by_name.get(names[loc])
        if k < nd:
            out.append(shapes[k] if shapes[k] is not None or s is None else (0,) + tuple(s))
        else:
            out.append(tuple(s) if s is not None else shapes[k])
    return out


def _foreach_shapes(attrs, shapes):
    body = attrs["subgraphs"][0]
    names = body.list_inputs()
    nd = len(attrs["in_data_locs"])
    locs = list(attrs["in_data_locs"]) + list(attrs["in_state_locs"]) + list(attrs["remain_locs"])
    given = {names[loc]: (shapes[k][1:] if k < nd else shapes[k]) for k, loc in enumerate(locs)}
    g = _infer(body, given)
    outs = [tuple(g.entry(n, i)[0]) for n, i in body._outputs]
    steps = shapes[0][0] if nd else 0
    return [(steps,) + s for s in outs[:attrs["num_out_data"]]] + outs[attrs["num_out_data"]:]


def _body_dtypes(body, names, dtypes):
    g = _infer(body, {}, {n: d for n, d in zip(names, dtypes) if d is not None})
    return [g.entry(n, i)[1] for n, i in body._outputs]


def _foreach_dtypes(attrs, dtypes):
    body = attrs["subgraphs"][0]
    names = body.list_inputs()
    locs = list(attrs["in_data_locs"]) + list(attrs["in_state_locs"]) + list(attrs["remain_locs"])
    return _body_dtypes(body, [names[loc] for loc in locs], dtypes)


# ----------------------------------------------------------------------------- _while_loop
def while_loop(*inputs, subgraphs=(), num_args, num_outputs, num_out_data, max_iterations, cond_input_locs,
               func_input_locs, func_var_locs, is_train=False):
    """Run the body while the condition holds, at most ``max_iterations`` times."""
    cond, func = _body(subgraphs, 0, "_while_loop"), _body(subgraphs, 1, "_while_loop")
    _needs_values(inputs, "_while_loop")
    current = list(inputs)
    var_pos = [func_input_locs[loc] for loc in func_var_locs]  # the loop variables among the node's inputs
    outputs = []
    while len(outputs) < max_iterations:
        pred = cond([current[i] for i in cond_input_locs], is_train)[0]
        if not bool(pred.reshape(-1)[0]):
            break
        res = func([current[i] for i in func_input_locs], is_train)
        outputs.append(res[:num_out_data])
        for pos, value in zip(var_pos, res[num_out_data:]):
            current[pos] = value
    if outputs:
        steps = [[t.unsqueeze(0) for t in col] for col in zip(*outputs)]
        like = [col[0][0] for col in steps]
    else:  # no step ran: a step's shapes and dtypes from a shape-only run of the body
        like = func([torch.empty_like(current[i], device="meta") for i in func_input_locs], is_train)[:num_out_data]
        steps = [[] for _ in like]
    pad = max_iterations - len(outputs)
    device = inputs[0].device if inputs else None
    stacked = [torch.cat(col + ([torch.zeros((pad,) + tuple(t.shape), dtype=t.dtype, device=device)] if pad else []))
               for col, t in zip(steps, like)]
    return _result(stacked + [current[p] for p in var_pos])


def _while_shapes(attrs, shapes):
    func = attrs["subgraphs"][1]
    names = func.list_inputs()
    g = _infer(func, {names[j]: shapes[i] for j, i in enumerate(attrs["func_input_locs"])})
    outs = [tuple(g.entry(n, i)[0]) for n, i in func._outputs]
    n = attrs["num_out_data"]
    return [(attrs["max_iterations"],) + s for s in outs[:n]] + outs[n:]


def _while_args(attrs, shapes):
    out = list(shapes)
    for k, locs in ((0, attrs["cond_input_locs"]), (1, attrs["func_input_locs"])):
        body = attrs["subgraphs"][k]
        names = body.list_inputs()
        g = _infer(body, {names[j]: out[i] for j, i in enumerate(locs)})
        by_name = {n.name: g.entry(n, 0)[0] for n in g.variables()}
        for j, i in enumerate(locs):
            if out[i] is None and by_name.get(names[j]) is not None:
                out[i] = tuple(by_name[names[j]])
    return out


def _while_dtypes(attrs, dtypes):
    func = attrs["subgraphs"][1]
    return _body_dtypes(func, func.list_inputs(), [dtypes[i] for i in attrs["func_input_locs"]])


# ----------------------------------------------------------------------------- _cond
def cond(*inputs, subgraphs=(), num_args, num_outputs, cond_input_locs, then_input_locs, else_input_locs,
         is_train=False):
    """Run the then body when the condition's output is nonzero, else the else body."""
    pred_g = _body(subgraphs, 0, "_cond")
    _needs_values(inputs, "_cond")
    pred = pred_g([inputs[i] for i in cond_input_locs], is_train)[0]
    k, locs = (1, then_input_locs) if bool(pred.reshape(-1)[0]) else (2, else_input_locs)
    return _result(list(_compiled(subgraphs[k])([inputs[i] for i in locs], is_train)))


def _cond_shapes(attrs, shapes):
    then = attrs["subgraphs"][1]
    names = then.list_inputs()
    g = _infer(then, {names[j]: shapes[i] for j, i in enumerate(attrs["then_input_locs"])})
    return [tuple(g.entry(n, i)[0]) for n, i in then._outputs]


def _cond_args(attrs, shapes):
    out = list(shapes)
    for k, key in enumerate(("cond_input_locs", "then_input_locs", "else_input_locs")):
        body = attrs["subgraphs"][k]
        names = body.list_inputs()
        g = _infer(body, {names[j]: out[i] for j, i in enumerate(attrs[key])})
        by_name = {n.name: g.entry(n, 0)[0] for n in g.variables()}
        for j, i in enumerate(attrs[key]):
            if out[i] is None and by_name.get(names[j]) is not None:
                out[i] = tuple(by_name[names[j]])
    return out


def _cond_dtypes(attrs, dtypes):
    then = attrs["subgraphs"][1]
    return _body_dtypes(then, then.list_inputs(), [dtypes[i] for i in attrs["then_input_locs"]])


# ----------------------------------------------------------------------------- registration
class SubgraphOperator(Operator):
    """An operator whose node holds ``num_subgraphs`` Symbols (MXNet passes them as the first
    inputs, counted by ``num_args``); its array inputs are ``data0``, ``data1``, ..."""

    def __init__(self, name, fn, num_subgraphs, params, **schema):
        self.num_subgraphs = num_subgraphs
        params = dict(num_args=Int(), num_outputs=Int(), **params)
        super().__init__(name, fn, params=params, variadic="num_args", signature=(), mode_dependent=True,
                         inputs=lambda a: tuple("data%d" % i for i in range(a["num_args"] - num_subgraphs)),
                         num_outputs=lambda a: a["num_outputs"], **schema)


register_operator(SubgraphOperator(
    "_foreach", foreach, 1, dict(num_out_data=Int(), in_state_locs=Shape(), in_data_locs=Shape(),
                                 remain_locs=Shape()),
    infer_shape=_foreach_shapes, infer_args=_foreach_args, infer_type=_foreach_dtypes))
register_operator(SubgraphOperator(
    "_while_loop", while_loop, 2, dict(num_out_data=Int(), max_iterations=Int(), cond_input_locs=Shape(),
                                       func_input_locs=Shape(), func_var_locs=Shape()),
    infer_shape=_while_shapes, infer_args=_while_args, infer_type=_while_dtypes))
register_operator(SubgraphOperator(
    "_cond", cond, 3, dict(cond_input_locs=Shape(), then_input_locs=Shape(), else_input_locs=Shape()),
    infer_shape=_cond_shapes, infer_args=_cond_args, infer_type=_cond_dtypes))
