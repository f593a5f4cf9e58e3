"""Shape and dtype inference for symbols (``infer_shape``, ``infer_shape_partial``, ``infer_type``).

Forward inference applies the operator's shape rule (``@shape_rule``, beside the operator) when it has
one and the case is covered, else runs its registry implementation on torch ``meta``
tensors (shapes and dtypes, no data).
Backward inference fills argument shapes from data shapes through each operator's
``infer_args`` (a FullyConnected's weight from its data), and the inputs of same-shape
element-wise operators from each other. Unknown dimensions are 0, as in MXNet 1.x.
Passes repeat until nothing changes; a conflict raises MXNetError naming the operator,
its inputs and the shapes.
"""
import warnings

import numpy as np
import torch

from ..base import MXNetError, FLAG_TO_DTYPE, np_dtype, torch_dtype
from ..operator.registry import NotCovered, literal
from .symbol import topo_order, aux_nodes

__all__ = ["infer_shape", "infer_type", "infer_graph", "known"]

# operators whose inputs all have the output's shape (no broadcasting)
SAME_SHAPE = {"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_mod", "_power", "_maximum",
              "_minimum", "_hypot", "_equal", "_not_equal", "_greater", "_greater_equal", "_lesser",
              "_lesser_equal", "_logical_and", "_logical_or", "_logical_xor", "add_n", "_grad_add"}

# operators whose listed inputs and first output share one shape once the other inputs are
# known, merged dimension by dimension so that partial (0) dimensions flow both ways:
# MXNet's WhereOpShape (x, y and the output, once the condition is known)
UNIFIED = {"where": (1, 2)}


def known(shape):
    """True for a shape with no unknown (0) dimension."""
    return shape is not None and all(d > 0 for d in shape)


def _fmt(shape):
    return "None" if shape is None else str(tuple(shape))


def _merge(old, new, what):
    """Combine two partial shapes (0 = unknown); MXNetError when they disagree."""
    if new is None:
        return old
    new = tuple(int(d) for d in new)
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise MXNetError("%s: Shape inconsistent, Provided = %s, inferred shape=%s" % (what, _fmt(old), _fmt(new)))
    return tuple(a or b for a, b in zip(old, new))


def _attr_shape(node):
    """A variable's ``__shape__`` attribute: a tuple of at most 32 dims, each >= 0 (0 unknown)
    or -1 (unknown, numpy semantics)."""
    text = node.attrs["__shape__"]
    try:
        shape = literal(text) if isinstance(text, str) else text
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if len(shape) > 32 or any(not isinstance(d, int) or isinstance(d, bool) or d < -1 for d in shape):
            raise ValueError("expected a tuple of at most 32 dims, each >= -1")
    except (ValueError, SyntaxError, TypeError) as e:
        raise MXNetError("infer_shape: variable %s has a malformed __shape__ attribute %.80r: %s"
                         % (node.name, text, e)) from None
    return tuple(0 if d == -1 else d for d in shape)


def _attr_dtype(node):
    """A variable's ``__dtype__`` attribute: an MXNet type flag."""
    text = node.attrs["__dtype__"]
    try:
        return FLAG_TO_DTYPE[int(text)]
    except (ValueError, TypeError, KeyError):
        raise MXNetError("infer_type: variable %s has a malformed __dtype__ attribute %.80r (expected one of "
                         "the type flags %s)" % (node.name, text, sorted(FLAG_TO_DTYPE))) from None


class _Graph:
    """Entry shapes and dtypes of one symbol's graph, filled by repeated passes."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.order = topo_order(symbol._outputs)
        self.shapes = {}   # (id(node), index) -> tuple (0 = unknown dim) or None
        self.dtypes = {}   # (id(node), index) -> np.dtype or None
        self.done = set()  # ids of operator nodes whose outputs are computed
        self.links = {}    # id(node) -> [(output, dim, input, dim)] found by probing partial shapes

    def variables(self):
        return [n for n in self.order if n.op is None]

    def set_var(self, node, shape, dtype):
        key = (id(node), 0)
        if shape is None and "__shape__" in node.attrs:
            shape = _attr_shape(node)
        if dtype is None and "__dtype__" in node.attrs:
            dtype = _attr_dtype(node)
        self.shapes[key] = None if shape is None else tuple(int(d) for d in shape)
        self.dtypes[key] = None if dtype is None else np_dtype(dtype)

    def run(self):
        changed = True
        while changed:
            changed = False
            for node in self.order:
                if node.op is not None and id(node) not in self.done:
                    changed |= self._visit(node)

    def _in_keys(self, node):
        return [(id(src), i) for src, i, _ in node.inputs]

    def _visit(self, node):
        keys = self._in_keys(node)
        watched = keys + [(id(node), i) for i in range(node.num_visible_outputs())]
        before = [(self.shapes.get(k), self.dtypes.get(k)) for k in watched]
        self._backward(node, keys)
        self._unlink(node, keys)
        dtypes = self._fill_dtypes(node, keys)
        shapes = [self.shapes.get(k) for k in keys]
        if all(known(s) for s in shapes):
            self._forward(node, shapes, dtypes)
            self.done.add(id(node))
            return True
        if all(s is not None for s in shapes) and id(node) not in self.links:
            self._probe(node, shapes, dtypes)
        self._forward_dtypes(node, dtypes)
        return before != [(self.shapes.get(k), self.dtypes.get(k)) for k in watched]

    def _probe(self, node, shapes, dtypes):
        """Forward inference of partial shapes: run twice with unknown dims set to two sets of
        distinct sizes. Output dims that change are unknown; those equal to one probe are
        linked to that input dim, so that knowing the output later gives the input."""
        unknown = [(i, d) for i, s in enumerate(shapes) for d, n in enumerate(s) if n == 0]
        runs = []
        for base in (1009, 2003):
            sizes = {u: base + 2 * k for k, u in enumerate(unknown)}
            probe = [tuple(sizes.get((i, d), n) for d, n in enumerate(s)) for i, s in enumerate(shapes)]
            try:
                outs = abstract_outputs(node, probe, dtypes)[0]
            except MXNetError:  # the probe sizes do not fit the operator: no links, the dims stay unknown
                self.links[id(node)] = []
                return
            runs.append((outs, {v: u for u, v in sizes.items()}))
        (first, probes), (second, _) = runs
        links = []
        for o, (a, b) in enumerate(zip(first, second)):
            if len(a) != len(b):
                continue
            out = tuple(x if x == y else 0 for x, y in zip(a, b))
            links += [(o, d) + probes[x] for d, x in enumerate(a) if x != b[d] and x in probes]
            key = (id(node), o)
            self.shapes[key] = _merge(self.shapes.get(key), out, "Error in operator %s: output %d" % (node.name, o))
        self.links[id(node)] = links

    def _unlink(self, node, keys):
        """Fill input dims from output dims they were linked to by :meth:`_probe`."""
        for o, od, i, idim in self.links.get(id(node), ()):
            out = self.shapes.get((id(node), o))
            inp = self.shapes.get(keys[i])
            if out and out[od] and inp is not None and inp[idim] == 0:
                self.shapes[keys[i]] = inp[:idim] + (out[od],) + inp[idim + 1:]

    def _unify(self, node, keys):
        """Merge the shapes of ``UNIFIED`` inputs and the output (see ``UNIFIED``)."""
        shared = UNIFIED.get(node.op.name)
        if shared is None or not all(known(self.shapes.get(k)) for i, k in enumerate(keys) if i not in shared):
            return
        entries = [keys[i] for i in shared] + [(id(node), 0)]
        merged = None
        for k in entries:
            merged = _merge(merged, self.shapes.get(k), "Error in operator %s" % node.name)
        if merged is not None:
            for k in entries:
                self.shapes[k] = _merge(self.shapes.get(k), merged, "Error in operator %s" % node.name)

    def _backward(self, node, keys):
        op, attrs = node.op, node.parsed
        self._unify(node, keys)
        names = op.input_names(attrs)
        shapes = [self.shapes.get(k) for k in keys]
        filled = None
        if op.infer_args is not None and not all(known(s) for s in shapes):
            filled = op.infer_args(attrs, [s if known(s) else None for s in shapes])
            if shapes and shapes[0] is not None and not known(shapes[0]) and 0 < len(shapes[0]):
                filled = self._probe_args(op, attrs, shapes, filled)
        elif op.name in SAME_SHAPE and not all(known(s) for s in shapes):
            ref = next((s for s in shapes if known(s)), None)
            filled = [ref] * len(shapes) if ref is not None else None
        if op.infer_inputs is not None and not all(known(s) for s in (filled or shapes)):
            outs = [self.shapes.get((id(node), i)) for i in range(node.num_visible_outputs())]
            if all(known(s) for s in outs):
                filled = op.infer_inputs(attrs, filled or shapes, outs)
        if filled is None:
            return
        for i, (k, s) in enumerate(zip(keys, filled)):
            what = "Error in operator %s: input %s" % (node.name, names[i] if i < len(names) else i)
            self.shapes[k] = _merge(self.shapes.get(k), s, what)

    @staticmethod
    def _probe_args(op, attrs, shapes, filled):
        """``infer_args`` from partially known data (a (0, 6) input of a FullyConnected), as
        MXNet derives parameter shapes from the known dimensions: run it with the unknown
        dimensions set to two different sizes; parameter dimensions equal in both runs are
        known, the others stay 0."""
        runs = []
        for size in (1009, 2003):
            data = tuple(d or size for d in shapes[0])
            try:
                runs.append(op.infer_args(attrs, [data] + [s if known(s) else None for s in shapes[1:]]))
            except MXNetError:  # the probe sizes do not fit the operator: nothing learnt
                return filled
        out = list(filled) if filled is not None else [None] * len(shapes)
        for i, (a, b) in enumerate(zip(*runs)):
            if i == 0 or a is None or b is None or len(a) != len(b) or out[i] is not None and known(out[i]):
                continue
            out[i] = tuple(x if x == y else 0 for x, y in zip(a, b))
        return out

    def _fill_dtypes(self, node, keys):
        """Unknown input dtypes take the first known floating input dtype (else float32);
        a ``weight`` takes the operator's ``dtype`` attribute when it has one (Embedding)."""
        dtypes = [self.dtypes.get(k) for k in keys]
        ref = next((d for d in dtypes if d is not None and d.kind == "f"), np.dtype(np.float32))
        attr = node.parsed.get("dtype")
        names = node.op.input_names(node.parsed)
        for i, (k, d) in enumerate(zip(keys, dtypes)):
            if d is None:
                own = isinstance(attr, str) and i < len(names) and names[i] == "weight"
                self.dtypes[k] = np_dtype(attr) if own else ref
        return [self.dtypes[k] for k in keys]

    def _forward(self, node, shapes, dtypes):
        out_shapes, out_dtypes = abstract_outputs(node, shapes, dtypes)
        for i, (s, d) in enumerate(zip(out_shapes, out_dtypes)):
            key = (id(node), i)
            self.shapes[key] = _merge(self.shapes.get(key), s, "Error in operator %s: output %d" % (node.name, i))
            self.dtypes[key] = np_dtype(d)

    def _forward_dtypes(self, node, dtypes):
        """Output dtypes without shapes (see ``_out_dtypes``)."""
        if (id(node), 0) in self.dtypes:
            return
        for i, d in enumerate(_out_dtypes(node, dtypes, node.num_visible_outputs())):
            self.dtypes[(id(node), i)] = d

    def entry(self, node, index):
        return self.shapes.get((id(node), index)), self.dtypes.get((id(node), index))


def _out_dtypes(node, dtypes, count):
    """Output dtypes from input dtypes alone: the operator's ``infer_type``, else its
    ``dtype`` attribute when set (Embedding, softmax), else its first input's dtype."""
    if node.op.infer_type_fn is not None:
        return [np_dtype(d) for d in node.op.infer_type_fn(node.parsed, dtypes)]
    dt = node.parsed.get("dtype") if isinstance(node.parsed.get("dtype"), str) else None
    return [np_dtype(dt) if dt else (dtypes[0] if dtypes else np.dtype(np.float32))] * count


def abstract_outputs(node, shapes, dtypes):
    """(output shapes, output dtypes) of an operator node for known input shapes: its shape
    rule when it has one that covers the case and the other inputs have the shapes its
    ``infer_args`` derives from the first (a layer's weight from its data), else a meta run
    (which also explains errors)."""
    op, attrs = node.op, node.parsed
    rule = op.infer_shape_fn
    if rule is not None:
        try:
            out_shapes = _ruled(op, attrs, shapes)
        except MXNetError as e:  # the rule found the user's mistake: reported once, as the meta run would
            raise _node_error(node, shapes, e) from None
        if out_shapes is not None:
            return out_shapes, _out_dtypes(node, dtypes, len(out_shapes))
    outs = run_abstract(node, shapes, dtypes)
    return [tuple(o.shape) for o in outs], [np_dtype(o.dtype) for o in outs]


def _ruled(op, attrs, shapes):
    """The output shapes by the operator's shape rule, or None for a case the rule does not
    cover (its error, or inputs other than those its infer_args derives): the meta run of
    the implementation then decides, and explains an error in MXNet's words."""
    try:
        derived = (op.infer_args(attrs, [shapes[0]] + [None] * (len(shapes) - 1))
                   if op.infer_args is not None and shapes else [None] * len(shapes))
        if not all(e is None or tuple(e) == tuple(s) for e, s in zip(derived[1:], shapes[1:])):
            return None
        return [tuple(int(d) for d in s) for s in op.infer_shape_fn(attrs, [tuple(s) for s in shapes])]
    except NotCovered:
        return None  # a case the rule leaves to the meta run below, which also words errors


def _call(node, tensors):
    attrs = node.parsed
    if node.op.mode_dependent:
        attrs = dict(attrs, is_train=False)
    try:
        res = node.op.fn(*tensors, **attrs)
    except (NotImplementedError, RuntimeError, ValueError, IndexError, TypeError):
        if node.op.check is not None:  # the operator's check rule words the user's mistake
            node.op.check(attrs, tensors)
        raise
    return [res] if isinstance(res, torch.Tensor) else list(res)


def run_abstract(node, shapes, dtypes):
    """The outputs of an operator node on ``meta`` tensors (on zeros when an operator needs values)."""
    try:
        return _call(node, [torch.empty(s, dtype=torch_dtype(d), device="meta") for s, d in zip(shapes, dtypes)])
    except MXNetError as e:
        raise _node_error(node, shapes, e) from None
    except (NotImplementedError, RuntimeError, ValueError, IndexError, TypeError):
        pass  # the operator needs values (or has no meta kernel): it runs on zeros below
    try:
        with torch.no_grad():
            return _call(node, [torch.zeros(s, dtype=torch_dtype(d)) for s, d in zip(shapes, dtypes)])
    except (MXNetError, NotImplementedError, RuntimeError, ValueError, IndexError, TypeError) as e:
        raise _node_error(node, shapes, e) from None


def _node_error(node, shapes, err):
    names = node.op.input_names(node.parsed)
    ins = ", ".join("%s%s" % (n, _fmt(s)) for n, s in zip(names, shapes))
    msg = str(err).split("\n")[0]
    return MXNetError("Error in operator %s (%s): %s (input shapes: %s)" % (node.name, node.op.name, msg, ins))


def infer_graph(symbol, shapes=None, dtypes=None):
    """Run inference with the given variable shapes/dtypes (dicts by name); returns the graph."""
    g = _Graph(symbol)
    shapes, dtypes = shapes or {}, dtypes or {}
    for n in g.variables():
        g.set_var(n, shapes.get(n.name), dtypes.get(n.name))
    g.run()
    return g


def _named(symbol, args, kwargs, what):
    """Positional values (in list_arguments order) or keywords, as a dict by name."""
    if args and kwargs:
        raise ValueError("Can only specify known argument %s either positionally or by name" % what)
    if args:
        names = symbol.list_arguments()
        return {n: v for n, v in zip(names, args) if v is not None}
    inputs = set(symbol.list_inputs())
    unknown = [k for k in kwargs if k not in inputs]
    if unknown:
        raise MXNetError("infer_%s: %s is not an input of the symbol (inputs: %s)"
                         % (what, unknown[0], ", ".join(sorted(inputs))))
    return {k: v for k, v in kwargs.items() if v is not None}


def _split(symbol, g, pick):
    order = g.order
    aux = aux_nodes(order)
    args = [pick(g.entry(n, 0)) for n in order if n.op is None and id(n) not in aux]
    auxs = [pick(g.entry(n, 0)) for n in order if n.op is None and id(n) in aux]
    outs = [pick(g.entry(n, i)) for n, i in symbol._outputs]
    return args, outs, auxs


def infer_shape(symbol, args, kwargs, partial=False):
    """(arg_shapes, out_shapes, aux_shapes); unknown dims are 0 (None triple if incomplete)."""
    given = _named(symbol, args, kwargs, "shape")
    g = infer_graph(symbol, shapes={k: tuple(v) for k, v in given.items()})
    res = _split(symbol, g, lambda e: e[0] if e[0] is not None else ())
    if partial:
        return res
    unknown = [(n.name, g.entry(n, 0)[0]) for n in g.variables() if not known(g.entry(n, 0)[0])]
    if unknown or not all(known(s) for s in res[1]):
        warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
                      "Consider providing them as input:\n" +
                      "\n".join("\t%s: %s" % (n, _fmt(s or ())) for n, s in unknown), stacklevel=3)
        return None, None, None
    return res


def infer_type(symbol, args, kwargs):
    """(arg_types, out_types, aux_types) as numpy types; None triple if incomplete."""
    given = _named(symbol, args, kwargs, "type")
    g = infer_graph(symbol, dtypes=given)
    res = _split(symbol, g, lambda e: None if e[1] is None else e[1].type)
    if any(t is None for part in res for t in part):
        return None, None, None
    return res
