"""``mx.sym.contrib.foreach``, ``while_loop`` and ``cond``: a Python body becomes a
subgraph of one ``_foreach``/``_while_loop``/``_cond`` node, as MXNet 1.9.1 builds it.

The body runs once on fresh variables inside ``AttrScope(__subgraph_name__=<name>)``, so
every node it makes carries the subgraph's name (``foreach0``, ``while_loop_cond0``, ...,
counted per process as MXNet's ``AttrScope._subgraph_names``). Then the subgraph is cut
out of the graph (MXNet's ``MXSymbolCutSubgraph``): each edge from a node outside it (a
symbol the body closes over) is replaced by a new variable named after that symbol's
output, one per outer entry, and the outer symbol becomes an input of the node. Variables
made inside the body (a Gluon parameter first used there) stay in the subgraph and are
copied as inputs. The node's ``*_locs`` attributes say where each input goes among the
subgraph's inputs. Names, attribute strings, input order and subgraph layout follow
MXNet's ``python/mxnet/symbol/contrib.py`` step by step, so the JSON is MXNet's, byte for
byte. The operators that run the subgraphs are in :mod:`neogluon.executor.control_flow`.
"""
import copy

from .. import attribute as _attribute
from .. import name as _name
from ..attribute import AttrScope
from ..operator import registry
from .symbol import Node, Symbol, Group, var, create, topo_order, _dunder, _single

__all__ = ["foreach", "while_loop", "cond"]


# ----------------------------------------------------------------------------- MXNet's helpers
def _flatten(args, inout_str):
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], length if length > 1 else 0
    assert isinstance(args, (list, tuple)), \
        "%s must be (nested) list of Symbol, but got %s of type %s" % (inout_str, str(args), str(type(args)))
    flat, fmts = [], []
    for i in args:
        arg, fmt = _flatten(i, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    assert isinstance(args, (list, tuple)), \
        "output must be (nested) list of Symbol, but got %s of type %s" % (str(args), str(type(args)))
    ret = []
    for i in fmt:
        res, args = _regroup(args, i)
        ret.append(res)
    return ret, args


def _check_data(inputs, msg):
    ok = all(isinstance(i, Symbol) for i in inputs) if isinstance(inputs, list) else isinstance(inputs, Symbol)
    assert ok, msg


def _uniq_name(sym):
    """``<name>-<output index>``: the name of the variable standing for ``sym`` in a body."""
    return "%s-%d" % (sym.name, sym._outputs[0][1])


def _unique_subgraph_name(subgraph_name):
    attrs = _attribute.current()._attr
    if attrs.get("__subgraph_name__", "") != "":
        subgraph_name = "".join([attrs["__subgraph_name__"], "$", subgraph_name])
    AttrScope._subgraph_names[subgraph_name] += 1
    return subgraph_name + str(AttrScope._subgraph_names[subgraph_name] - 1)


def _subgraph_of(node):
    return node.attrs.get("__subgraph_name__", "")


def _identity(sym):
    return create(registry.get("identity"), [sym], {}, None, None, "identity")


def _graph_inputs(g):
    """The variables of ``g``, as Symbols (MXNet's ``MXSymbolGetInputSymbols``)."""
    return [Symbol([(n, 0)]) for n in topo_order(g._outputs) if n.op is None]


def _cut_subgraph(g):
    """Replace every edge from outside the subgraph (the nodes without ``g``'s subgraph
    name) by a variable named after the outer output; the outer symbols, one per outer
    entry, in the order the edges are met (MXNet's ``MXSymbolCutSubgraph``)."""
    name = _subgraph_of(g._outputs[0][0])
    if not name:
        return []
    made, outer = {}, []
    for node in topo_order(g._outputs):
        if _subgraph_of(node) != name:
            continue
        for j, (src, index, _) in enumerate(node.inputs):
            if _subgraph_of(src) == name:
                continue
            key = (id(src), index)
            if key not in made:
                sym = Symbol([(src, index)])
                made[key] = Node(None, sym.list_outputs()[0])
                outer.append(sym)
            node.inputs[j] = (made[key], 0, 0)
    return outer


def _node(op_name, subgraphs, inputs, name=None, attr=None, **attrs):
    """The control flow node on ``inputs`` with its ``subgraphs``: its Symbol (all outputs)."""
    op = registry.get(op_name)
    if any(not isinstance(g, Symbol) for g in subgraphs):
        raise TypeError("Operator %s: its first %d arguments must be the subgraph Symbols" % (op_name, len(subgraphs)))
    strings = _dunder(_attribute.current().get(attr))
    strings.update((k, str(v)) for k, v in attrs.items())
    strings["num_args"] = str(len(inputs) + len(subgraphs))
    entries = [_single(s, op_name) + (0,) for s in inputs]
    node = Node(op, _name.current().get(name, op_name.lower()), strings, entries, subgraphs)
    return Symbol([(node, i) for i in range(node.num_outputs())])


def node_function(op_name, count):
    """``mx.sym._internal._foreach(g, *inputs, **attrs)`` and the others: MXNet's generated
    functions of the control flow operators, which take the subgraphs as the first inputs."""
    def fn(*args, name=None, attr=None, **attrs):
        attrs.pop("num_args", None)
        return _node(op_name, list(args[:count]), list(args[count:]), name=name, attr=attr, **attrs)
    fn.__name__ = op_name
    fn.__doc__ = "The %s node on %d subgraph Symbols and its input Symbols." % (op_name, count)
    return fn


# ----------------------------------------------------------------------------- foreach
def _construct_subgraph(sym_out, sym_states, name):
    g = Group(sym_out + sym_states)
    all_input_names = g.list_inputs()
    output_names = {o.name for o in sym_out}
    flat_out = []
    for o in sym_out:
        if o.name in all_input_names or o.list_attr().get("__subgraph_name__", "") != name:
            flat_out.append(_identity(o))
        else:
            flat_out.append(o)
    for s in sym_states:
        if s.name in all_input_names or s.name in output_names or \
                s.list_attr().get("__subgraph_name__", "") != name:
            flat_out.append(_identity(s))
        else:
            flat_out.append(s)
    return Group(flat_out)


def foreach(body, data, init_states, name="foreach"):
    """Run ``out, states = body(data[i], states)`` over axis 0 of ``data`` as one ``_foreach``
    node; returns the stacked outputs and the last states (nested as ``body`` gives them)."""
    flatten_data, data_fmt = _flatten(data, "foreach input")
    _check_data(flatten_data, "data should be a symbol or a nested list of symbols")
    init_flatten_states, init_state_fmt = _flatten(init_states, "foreach states")
    _check_data(init_flatten_states, "init_states should be a symbol or a nested list of symbols")
    name = _unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=name):
        in_eles = [var(_uniq_name(s)) for s in flatten_data]
        in_eles, _ = _regroup(in_eles, data_fmt)
        states = [var(_uniq_name(s)) for s in init_flatten_states]
        states, _ = _regroup(states, copy.deepcopy(init_state_fmt))
        sym_out, sym_states = body(in_eles, states)
        sym_out, out_fmt = _flatten(sym_out, "foreach output")
        sym_states, state_fmt = _flatten(sym_states, "foreach loop_vars")
        assert init_state_fmt == state_fmt, "The input and output loop_vars have different format"
        _check_data(sym_out, "the output should be an NDArray or a nested list of NDArrays")
        _check_data(sym_states, "the output states should be an NDArray or a nested list of NDArrays")
        num_out_data, num_states = len(sym_out), len(sym_states)
        num_outputs = num_out_data + num_states
        g = _construct_subgraph(sym_out, sym_states, name)
    cut_var_map = {s.list_outputs()[0]: s for s in _cut_subgraph(g)}
    input_syms = {s.name: s for s in _graph_inputs(g)}
    state_names = [_uniq_name(s) for s in init_flatten_states]
    data_names = [_uniq_name(s) for s in flatten_data]
    subg_input_names = g.list_inputs()
    assert len(set(subg_input_names)) == len(subg_input_names), \
        "The inputs of the subgraph don't have unique names: " + str(subg_input_names)
    ordered_ins = list(flatten_data)
    in_data_locs = []
    for dname in data_names:
        if dname not in subg_input_names:
            raise AssertionError("the data arrays have to be used in the loop body")
        in_data_locs.append(subg_input_names.index(dname))
    ordered_ins.extend(init_flatten_states)
    in_state_locs = []
    for sname in state_names:
        if sname not in subg_input_names:
            raise AssertionError("the state arrays have to be used in the loop body")
        in_state_locs.append(subg_input_names.index(sname))
    remain_locs = []
    for in_name in subg_input_names:
        if in_name in cut_var_map:
            ordered_ins.append(cut_var_map[in_name])
            remain_locs.append(subg_input_names.index(in_name))
        elif in_name not in data_names and in_name not in state_names:
            ordered_ins.append(copy.deepcopy(input_syms[in_name]))
            remain_locs.append(subg_input_names.index(in_name))
    ret = _node("_foreach", [g], ordered_ins, num_outputs=num_outputs, num_out_data=num_out_data,
                in_state_locs=in_state_locs, in_data_locs=in_data_locs, remain_locs=remain_locs)
    outs, _ = _regroup([ret[i] for i in range(num_out_data)], out_fmt)
    states, _ = _regroup([ret[num_out_data + i] for i in range(num_states)], state_fmt)
    return outs, states


# ----------------------------------------------------------------------------- while_loop and cond
def _make_identity(subgraph_name, all_input_names):
    def make(x):
        if x.name in all_input_names or x.list_attr().get("__subgraph_name__", "") != subgraph_name:
            return _identity(x)
        return x
    return make


def _union_inputs(graphs, loop_vars=None):
    """The union of the graphs' inputs (outer symbols, deduplicated by object as MXNet's
    frontend does) and, per graph, where its inputs are in it (and, for ``while_loop``,
    where each loop variable is among the graph's inputs)."""
    inputs, locs, input_id_to_loc = [], [], {}
    for graph in graphs:
        if loop_vars is not None:
            name_to_vars = {_uniq_name(s): s for s in loop_vars}
            name_to_var_locs = {_uniq_name(s): i for i, s in enumerate(loop_vars)}
        else:
            name_to_vars = {s.name: s for s in inputs}
            name_to_var_locs = {}
        name_to_cut = {s.list_outputs()[0]: s for s in _cut_subgraph(graph)}
        name_to_input = {s.name: s for s in _graph_inputs(graph)}
        input_locs, var_locs = [], [-1] * len(loop_vars or ())
        subg_input_names = graph.list_inputs()
        assert len(set(subg_input_names)) == len(subg_input_names), \
            "The inputs of the subgraph don't have unique names: " + str(subg_input_names)
        for name in subg_input_names:
            if name in name_to_vars:
                sym = name_to_vars[name]
            elif name in name_to_cut:
                sym = name_to_cut[name]
            else:
                sym = copy.deepcopy(name_to_input[name])
            if id(sym) not in input_id_to_loc:
                input_id_to_loc[id(sym)] = len(inputs)
                inputs.append(sym)
            input_locs.append(input_id_to_loc[id(sym)])
            if name in name_to_var_locs:
                var_locs[name_to_var_locs[name]] = len(input_locs) - 1
        locs.append((input_locs, var_locs))
    return inputs, locs


def _to_python_scalar(inputs, type_, name):
    if hasattr(inputs, "asscalar"):
        inputs = inputs.asscalar()
    try:
        return type_(inputs)
    except Exception:  # pylint: disable=broad-except
        raise ValueError("Cannot convert %s to python %s" % (name, type_.__name__)) from None


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):  # pylint: disable=redefined-outer-name
    """``step_output, loop_vars = func(*loop_vars)`` while ``cond(*loop_vars)``, at most
    ``max_iterations`` times, as one ``_while_loop`` node; the step outputs are stacked to
    ``max_iterations`` rows."""
    def _cond_wrapper(vars_):
        result = cond(*vars_)
        if not isinstance(result, Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [], [result], [], []

    def _func_wrapper(vars_):
        step_output, new_loop_vars = func(*vars_)
        step_output = [] if step_output is None else step_output
        new_loop_vars = [] if new_loop_vars is None else new_loop_vars
        if isinstance(step_output, tuple):
            step_output = list(step_output)
        if isinstance(new_loop_vars, tuple):
            new_loop_vars = list(new_loop_vars)
        step_output, out_fmt = _flatten(step_output, "while output")
        new_loop_vars, var_fmt = _flatten(new_loop_vars, "while loop_vars")
        if len(vars_) != len(new_loop_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return step_output, new_loop_vars, out_fmt, var_fmt

    def _create_subgraph(graph_vars, graph_func, subgraph_name):
        subgraph_name = _unique_subgraph_name(subgraph_name)
        with AttrScope(__subgraph_name__=subgraph_name):
            graph_vars, var_fmt = _flatten(graph_vars, "while loop_vars")
            new_graph_vars = [var(_uniq_name(s)) for s in graph_vars]
            new_graph_vars, _ = _regroup(new_graph_vars, var_fmt)
            outputs, final_state, out_fmt, var_fmt = graph_func(new_graph_vars)
            num_out_data = len(outputs)
            num_outputs = len(outputs) + len(final_state)
            all_input_names = Group(outputs + final_state).list_inputs()
            graph = Group(list(map(_make_identity(subgraph_name, all_input_names), outputs + final_state)))
        return graph, num_out_data, num_outputs, out_fmt, var_fmt

    flatten_loop_vars, init_loop_var_fmt = _flatten(loop_vars, "while loop_vars")
    _check_data(flatten_loop_vars, "loop_vars should be a symbol or a nested list of symbols")
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_python_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    cond_g, num_out_data, num_outputs, _, _ = _create_subgraph(loop_vars, _cond_wrapper, name + "_cond")
    assert num_out_data == 0
    assert num_outputs == 1
    func_g, num_out_data, num_outputs, out_fmt, _ = _create_subgraph(loop_vars, _func_wrapper, name + "_func")
    input_syms, ((cond_input_locs, _), (func_input_locs, func_var_locs)) = \
        _union_inputs([cond_g, func_g], flatten_loop_vars)
    for i_th, loc in enumerate(func_var_locs, 1):
        if loc == -1:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i_th)
    result = _node("_while_loop", [cond_g, func_g], input_syms, max_iterations=max_iterations,
                   cond_input_locs=cond_input_locs, func_input_locs=func_input_locs, func_var_locs=func_var_locs,
                   num_out_data=num_out_data, num_outputs=num_outputs)
    outputs, _ = _regroup([result[i] for i in range(num_out_data)], out_fmt)
    final_loop_vars, _ = _regroup([result[i] for i in range(num_out_data, num_outputs)], init_loop_var_fmt)
    return outputs, final_loop_vars


def cond(pred, then_func, else_func, name="cond"):
    """``then_func()`` if ``pred`` (a scalar symbol) is nonzero, else ``else_func()``, as one
    ``_cond`` node."""
    def _create_subgraph(graph_func, subgraph_name):
        subgraph_name = _unique_subgraph_name(subgraph_name)
        with AttrScope(__subgraph_name__=subgraph_name):
            outputs, out_fmt = _flatten(graph_func(), "cond outputs")
            all_input_names = Group(outputs).list_inputs()
            graph = Group(list(map(_make_identity(subgraph_name, all_input_names), outputs)))
        return graph, len(outputs), out_fmt

    cond_g, cond_num_outputs, _ = _create_subgraph(lambda: pred, name + "_pred")
    if cond_num_outputs != 1:
        raise ValueError("pred should always be a single output")
    then_g, then_num_outputs, then_fmt = _create_subgraph(then_func, name + "_then")
    else_g, else_num_outputs, _ = _create_subgraph(else_func, name + "_else")
    if then_num_outputs != else_num_outputs:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    input_syms, locs = _union_inputs([cond_g, then_g, else_g])
    result = _node("_cond", [cond_g, then_g, else_g], input_syms, cond_input_locs=locs[0][0],
                   then_input_locs=locs[1][0], else_input_locs=locs[2][0], num_outputs=then_num_outputs)
    outputs, _ = _regroup([result[i] for i in range(then_num_outputs)], then_fmt)
    return outputs
