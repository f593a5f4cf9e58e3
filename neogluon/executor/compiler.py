"""The graph compiler: a Symbol becomes a plain Python function of torch tensors, once.

Modelled on torch.fx's ``Graph.python_code()``: the nodes are put in topological order,
their attributes parsed once, and straight-line Python source is generated and
``exec``-ed, one line per operator calling its registry implementation directly with
the attributes written in as literals (or, for operators with a lowering, the function
the lowering made for those attributes, called on the tensors alone)::

    def graph_train(i0, i1, i2):
        v3 = _f3(i0, i1, i2, num_hidden=10, no_bias=False, flatten=True)
        v4 = _f4(v3)
        return (v4,)

There is one variant per mode (``is_train`` is bound into mode-dependent operators such
as Dropout and BatchNorm, which update their auxiliary states in place in train mode).
Gradients come from torch autograd on the tensors passed in. The result serves
``Symbol.bind``'s Executor, and is meant to serve HybridBlock and SymbolBlock too.
"""
import ast
import os

import torch

from ..base import MXNetError
from ..operator import registry
from ..symbol.symbol import topo_order, aux_nodes
from . import combine_dense
from .fold import conv_bn_pairs, folded_kernel

__all__ = ["CompiledGraph", "compile_graph"]

# prediction functions fold each BatchNorm into the convolution before it (fold.py);
# NEOGLUON_FOLD_BATCHNORM=0 keeps them apart
FOLD_BATCHNORM = os.environ.get("NEOGLUON_FOLD_BATCHNORM", "1") != "0"
# an unrolled cell's per-step input products run as one (combine_dense.py); NEOGLUON_COMBINE_DENSE=0 keeps them
COMBINE_DENSE = os.environ.get("NEOGLUON_COMBINE_DENSE", "1") != "0"


def _literal(value):
    """Python source for a value when it reads back equal, else None."""
    try:
        src = repr(value)
        if ast.literal_eval(src) == value and type(ast.literal_eval(src)) is type(value):
            return src
    except (ValueError, SyntaxError, TypeError):
        pass
    return None


class CompiledGraph:
    """A symbol compiled to Python functions of its input tensors (one per mode).

    ``input_names`` lists the graph's variables (arguments and auxiliary states) in the
    order the functions take them; ``arg_names``/``aux_names`` split them as
    ``list_arguments``/``list_auxiliary_states`` do. Calling ``fn(is_train)`` gives the
    function, returning a tuple of the symbol's output tensors."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.order = topo_order(symbol._outputs)
        aux = aux_nodes(self.order)
        self.inputs = [n for n in self.order if n.op is None]
        self.input_names = [n.name for n in self.inputs]
        self.arg_names = [n.name for n in self.inputs if id(n) not in aux]
        self.aux_names = [n.name for n in self.inputs if id(n) in aux]
        self.output_names = symbol.list_outputs()
        # creation operators whose shape has unknown (0) dimensions, such as the begin
        # states F.zeros((0, 8)) of an unrolled RNN cell: the shape comes from inference
        self.deferred = [n for n in self.order if n.op is not None and not n.inputs
                         and 0 in (n.parsed.get("shape") or (1,))]
        self._fns = {}
        self.sources = {}

    def fn(self, is_train, tensors=None, fold=True):
        """The generated function for a mode (and, with deferred shapes, for the input shapes);
        ``fold=False``: BatchNorm is not folded into convolutions by fold.py (a graph
        compiler given the function folds them itself)."""
        key = (is_train, fold)
        if self.deferred:
            key += tuple(tuple(t.shape) for t in tensors)
        f = self._fns.get(key)
        if f is None:
            overrides = self._infer_deferred(tensors) if self.deferred else {}
            f = registry.remember(self._fns, key, self._build(is_train, overrides, fold))
        return f

    def _infer_deferred(self, tensors):
        from ..symbol.infer import infer_graph, known
        g = infer_graph(self.symbol, {n.name: tuple(t.shape) for n, t in zip(self.inputs, tensors)},
                        {n.name: t.dtype for n, t in zip(self.inputs, tensors)})
        overrides = {}
        for node in self.deferred:
            shape = g.entry(node, 0)[0]
            if not known(shape):
                raise MXNetError("Operator %s (node %s): cannot infer the unknown dimensions of shape %s"
                                 % (node.op.name, node.name, node.parsed["shape"]))
            overrides[id(node)] = dict(node.parsed, shape=tuple(shape))
        return overrides

    def __call__(self, tensors, is_train=False):
        """Run the graph on input tensors (in ``input_names`` order); a tuple of outputs."""
        f = self.fn(is_train, tensors)
        try:
            return f(*tensors)
        except Exception as e:  # pylint: disable=broad-except
            raise self.diagnose(tensors, is_train, e) from None

    def run_nodes(self, tensors, is_train, before=None, after=None):
        """The graph run node by node, as MXNet's executor runs it with a monitor callback or
        op hook installed (the generated function runs it in one piece): ``before(node, ins)``
        is called with each operator node's input tensors and returns the ones to use (the
        same list, or aliases of them), ``after(node, outs)`` with its output tensors. The
        caller sets torch's grad mode. Returns the graph's output tensors."""
        overrides = self._infer_deferred(tensors) if self.deferred else {}
        values = {(id(n), 0): t for n, t in zip(self.inputs, tensors)}
        for node in self.order:
            if node.op is None:
                continue
            ins = [values[(id(s), i)] for s, i, _ in node.inputs]
            if before is not None:
                ins = before(node, ins)
            res = node.op.run(overrides.get(id(node), node.parsed), ins, is_train)
            res = [res] if isinstance(res, torch.Tensor) else list(res)
            for i, r in enumerate(res):
                values[(id(node), i)] = r
            if after is not None:
                after(node, res)
        return [values[(id(n), i)] for n, i in self.symbol._outputs]

    # ------------------------------------------------------------------ code generation
    def _build(self, is_train, overrides, fold=True):
        scope = {}
        var = {}
        params = []
        for k, n in enumerate(self.inputs):
            var[(id(n), 0)] = "i%d" % k
            params.append("i%d" % k)
        lines = []
        pairs = {} if is_train or not fold or not FOLD_BATCHNORM else conv_bn_pairs(self.order, self.symbol._outputs)
        steps = combine_dense.groups(self.order) if COMBINE_DENSE else {}
        # a group's line reads its SliceChannel's input where its first product stands
        position = {id(n): k for k, n in enumerate(self.order)}
        last_use = self._last_uses({(id(split.inputs[0][0]), split.inputs[0][1]): position[first]
                                    for first, (split, _) in steps.items()})
        folded, made = set(), set()  # BatchNorms folded away; products made by their group's line
        for k, node in enumerate(self.order):
            if node.op is None:
                continue
            attrs = overrides.get(id(node), node.parsed)
            bn = pairs.get(id(node))
            line = None if bn is None else self._folded_line(k, node, attrs, bn, scope, var)
            if line is not None:
                folded.add(id(bn))
            elif id(node) in folded or id(node) in made:
                continue  # the BatchNorm folded into its convolution, or a step's product made by its group
            elif id(node) in steps:
                line = self._combined_line(k, attrs, *steps[id(node)], scope, var)
                made.update(id(fc) for fc in steps[id(node)][1])
            else:
                line = self._line(k, node, attrs, is_train, scope, var)
            lines.append("    " + line)
            dead = [var[e] for e in last_use.get(k, ()) if not var[e].startswith("i")]
            if dead:
                lines.append("    del %s" % ", ".join(sorted(set(dead))))
        outs = [self._entry(var, n, i) for n, i in self.symbol._outputs]
        if folded:  # channels-last feature maps (fold.py) leave the graph in the usual layout
            scope["_contiguous"] = torch.Tensor.contiguous
            outs = ["_contiguous(%s)" % o for o in outs]
        lines.append("    return (%s)" % "".join(o + ", " for o in outs))
        name = "graph_train" if is_train else "graph_predict"
        src = "def %s(%s):\n%s\n" % (name, ", ".join(params), "\n".join(lines))
        self.sources[is_train if fold else (is_train, fold)] = src
        exec(compile(src, "<neogluon.executor %s>" % name, "exec"), scope)  # pylint: disable=exec-used
        return scope[name]

    @staticmethod
    def _entry(var, node, index):
        try:
            return var[(id(node), index)]
        except KeyError:
            raise MXNetError("graph output %d of node %s is not produced (the operator %s has %d visible outputs)"
                             % (index, node.name, node.op.name, node.num_visible_outputs())) from None

    def _line(self, k, node, attrs, is_train, scope, var):
        fname = "_f%d" % k
        args = [self._entry(var, src, i) for src, i, _ in node.inputs]
        attrs = dict(attrs)
        if node.op.mode_dependent:
            attrs["is_train"] = is_train
        lowered = node.op.lower(attrs)
        scope[fname] = node.op.fn if lowered is None else lowered
        for key, value in ({} if lowered is not None else attrs).items():
            src = _literal(value)
            if src is None:
                const = "_c%d_%s" % (k, key)
                scope[const] = value
                src = const
            args.append("%s=%s" % (key, src))
        n = node.num_visible_outputs()
        outs = ["v%d_%d" % (k, i) for i in range(n)]
        for i, o in enumerate(outs):
            var[(id(node), i)] = o
        if n == 1:
            return "%s = %s(%s)" % (outs[0], fname, ", ".join(args))
        return "%s, = %s(%s)" % (", ".join(outs), fname, ", ".join(args))

    def _folded_line(self, k, conv, attrs, bn, scope, var):
        """The line running a convolution with the BatchNorm after it folded in (fold.py),
        naming its output as the BatchNorm's; None when the convolution cannot take it."""
        kernel = folded_kernel(attrs, bn.parsed, conv.op, bn.op)
        if kernel is None:
            return None
        fname = "_f%d" % k
        scope[fname] = kernel
        args = [self._entry(var, src, i) for src, i, _ in conv.inputs + bn.inputs[1:]]
        out = "v%d_0" % k
        var[(id(conv), 0)] = var[(id(bn), 0)] = out
        return "%s = %s(%s)  # %s folded in" % (out, fname, ", ".join(args), bn.name)

    def _combined_line(self, k, attrs, split, fcs, scope, var):
        """The line running a group's FullyConnected products as one over the whole sequence
        (combine_dense.py), naming each step's output as its FullyConnected's."""
        fname = "_f%d" % k
        scope[fname] = combine_dense.combined_kernel(fcs[0].op, attrs)
        src, index, _ = split.inputs[0]
        args = [self._entry(var, src, index)] + [self._entry(var, s, i) for s, i, _ in fcs[0].inputs[1:]]
        outs = []
        for fc in fcs:
            outs.append("v%d_%d" % (k, len(outs)))
            var[(id(fc), 0)] = outs[-1]
        return "%s, = %s(%s)  # %d steps' %s in one" % (", ".join(outs), fname, ", ".join(args), len(fcs),
                                                        fcs[0].op.name)

    def _last_uses(self, extra=None):
        """For each node position, the entries whose last reader it is (freed after it runs);
        ``extra``: {entry: position} of reads the nodes' inputs do not show."""
        last = {}
        heads = {(id(n), i) for n, i in self.symbol._outputs}
        for k, node in enumerate(self.order):
            for src, i, _ in node.inputs:
                last[(id(src), i)] = k
        for e, k in (extra or {}).items():
            last[e] = max(last.get(e, k), k)
        uses = {}
        for e, k in last.items():
            if e not in heads:
                uses.setdefault(k, []).append(e)
        return uses

    # ------------------------------------------------------------------ errors
    def diagnose(self, tensors, is_train, err):
        """The error to raise after the compiled graph failed with ``err``: the node that
        failed, named with its shapes. The graph is not run again: the nodes are checked in
        order on meta tensors (shapes and dtypes, no data), so nothing is computed twice and
        no state (BatchNorm's running statistics in train mode) is updated twice."""
        values = {(id(n), 0): _meta(t) for n, t in zip(self.inputs, tensors)}
        for node in self.order:
            if node.op is None:
                continue
            ins = [values.get((id(s), i)) for s, i, _ in node.inputs]
            attrs = dict(node.parsed, is_train=is_train) if node.op.mode_dependent else node.parsed
            try:
                if node.op.check is not None:
                    node.op.check(attrs, ins)
                with torch.no_grad():
                    res = node.op.fn(*ins, **attrs)
            except MXNetError as e:
                return MXNetError("Error in node %s: %s" % (node.name, e))
            except NotImplementedError:
                return _values_needed(err)
            except (RuntimeError, ValueError, IndexError, TypeError) as e:
                if isinstance(e, RuntimeError) and "on meta tensors" in str(e):  # it reads values
                    return _values_needed(err)
                return MXNetError("Error in node %s: %s" % (node.name, registry.shape_error(node.op, attrs, ins, e)))
            res = [res] if isinstance(res, torch.Tensor) else list(res)
            for i, r in enumerate(res):
                values[(id(node), i)] = r
        return _running_error(err)


def _values_needed(err):
    """The error of :meth:`CompiledGraph.diagnose` where the meta run meets a node that
    reads values (gather_nd's bounds check, box_nms) and cannot follow the graph further:
    the graph's own error if an operator raised it (an index out of bounds stays MXNet's
    IndexError, with its operator's message), else a generic one."""
    return err if isinstance(err, MXNetError) else _running_error(err)


def _running_error(err):
    return MXNetError("Error while running the graph: %s" % str(err).split("\n")[0])


def _meta(t):
    """A shape-only copy of a tensor (the inputs of :meth:`CompiledGraph.diagnose`)."""
    return torch.empty_like(t, device="meta") if isinstance(t, torch.Tensor) else t


def compile_graph(symbol):
    """Compile ``symbol`` into a :class:`CompiledGraph` (functions of torch tensors)."""
    return CompiledGraph(symbol)
