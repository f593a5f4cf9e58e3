"""``Symbol``: MXNet 1.9.1's symbolic graph (``mx.sym.Symbol``).

A graph is made of :class:`Node` objects: variables (``op`` is None) and operator nodes
(a registry :class:`~neogluon.operator.registry.Operator`). A node keeps its attribute
*strings* exactly as given (``str()`` of the Python value, as MXNet's frontend does), so
that JSON is written back as MXNet wrote it; the registry parses them when needed. A
``Symbol`` is a list of output entries ``(node, index)``.
"""
import numbers

import numpy as np

from .. import attribute as _attribute
from .. import name as _name
from ..base import ArgumentTypeError, MXNetError, NotImplementedForSymbol, DTYPE_TO_FLAG
from ..np_mode import FLAGS as _NP_FLAGS
from ..operator import registry

# the operators of Symbol arithmetic under npx.set_np() (MXNet's np symbols: broadcasting,
# NumPy dtype rules), by the legacy operator they replace
_NUMPY_OPS = {
    "_Plus": "_npi_add", "_PlusScalar": "_npi_add_scalar", "_Minus": "_npi_subtract",
    "_MinusScalar": "_npi_subtract_scalar", "_RMinusScalar": "_npi_rsubtract_scalar", "_Mul": "_npi_multiply",
    "_MulScalar": "_npi_multiply_scalar", "_Div": "_npi_true_divide", "_DivScalar": "_npi_true_divide_scalar",
    "_RDivScalar": "_npi_rtrue_divide_scalar", "_Mod": "_npi_mod", "_ModScalar": "_npi_mod_scalar",
    "_RModScalar": "_npi_rmod_scalar", "_Power": "_npi_power", "_PowerScalar": "_npi_power_scalar",
    "_rpower_scalar": "_npi_rpower_scalar", "_equal": "_npi_equal", "_equal_scalar": "_npi_equal_scalar",
    "_not_equal": "_npi_not_equal", "_not_equal_scalar": "_npi_not_equal_scalar", "_greater": "_npi_greater",
    "_greater_scalar": "_npi_greater_scalar", "_greater_equal": "_npi_greater_equal",
    "_greater_equal_scalar": "_npi_greater_equal_scalar", "_lesser": "_npi_less", "_lesser_scalar": "_npi_less_scalar",
    "_lesser_equal": "_npi_less_equal", "_lesser_equal_scalar": "_npi_less_equal_scalar",
}

__all__ = ["Symbol", "Node", "var", "Variable", "Group", "create", "topo_order"]

# attribute keys that MXNet stores as __key__ and also lists under the plain key
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage", "profiler_scope")
STORAGE_TYPES = {"default": 0, "row_sparse": 1, "csr": 2}
# the __init__ attribute MXNet's BatchNorm family puts on its auxiliary variables when composed
AUX_INIT = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}


def _is_hidden(key):
    return key.startswith("__") and key.endswith("__")


def _dunder(attrs):
    """MXNet's attribute keys: ``lr_mult`` and the other hidden keys become ``__lr_mult__``."""
    return {("__%s__" % k if k in HIDDEN_KEYS else k): str(v) for k, v in attrs.items()}


class Node:
    """One graph node: a variable (``op`` None) or an operator application. A control flow
    node (``_foreach``, ``_while_loop``, ``_cond``) also holds the Symbols it runs,
    ``subgraphs``, which its parsed attributes carry to its kernel."""
    __slots__ = ("op", "name", "attrs", "inputs", "version", "_parsed", "subgraphs")

    def __init__(self, op, name, attrs=None, inputs=(), subgraphs=()):
        self.op = op
        self.name = name
        self.attrs = attrs if attrs is not None else {}
        self.inputs = list(inputs)  # (node, output index, version)
        self.version = 0
        self._parsed = None
        self.subgraphs = tuple(subgraphs)

    @property
    def is_variable(self):
        return self.op is None

    @property
    def parsed(self):
        """The operator's attributes parsed by the registry (computed once)."""
        if self._parsed is None:
            self._parsed = self.op.entry(self.attrs).attrs
            if self.subgraphs:
                self._parsed = dict(self._parsed, subgraphs=self.subgraphs)
        return self._parsed

    def set_attr(self, key, value):
        self.attrs[key] = value
        self._parsed = None

    def num_outputs(self):
        """Every output, hidden ones included (MXNet's ``node_row_ptr`` step)."""
        return 1 if self.op is None else self.op.num_outputs(self.parsed)

    def num_visible_outputs(self):
        return 1 if self.op is None else self.op.num_visible_outputs(self.parsed)

    def output_name(self, index):
        if self.op is None:
            return self.name
        return "%s_%s" % (self.name, self.op.output_names(self.parsed)[index])

    def num_args(self):
        """How many of the inputs are arguments; the rest are auxiliary states."""
        return len(self.op.arg_names(self.parsed))


def topo_order(outputs):
    """Nodes reachable from output entries in MXNet's DFS post-order (inputs first, in order)."""
    order, seen = [], set()
    for head, _ in outputs:
        if id(head) in seen:
            continue
        stack = [(head, 0)]
        seen.add(id(head))
        while stack:
            node, i = stack.pop()
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child = node.inputs[i][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


def aux_nodes(order):
    """The variable nodes used as auxiliary states (mutated inputs) by some operator."""
    aux = set()
    for node in order:
        if node.op is not None:
            for entry in node.inputs[node.num_args():]:
                aux.add(id(entry[0]))
    return aux


class Symbol:
    """A symbolic graph with one or more outputs (``mx.sym.Symbol``)."""
    __slots__ = ("_outputs", "__weakref__")

    def __init__(self, outputs):
        self._outputs = list(outputs)  # (node, index)

    # ------------------------------------------------------------------ structure
    @property
    def name(self):
        """The name of the node all outputs come from; None for a group of several nodes."""
        node = self._outputs[0][0]
        return node.name if all(n is node for n, _ in self._outputs) else None

    def _order(self):
        return topo_order(self._outputs)

    def list_outputs(self):
        return [node.output_name(i) for node, i in self._outputs]

    def list_inputs(self):
        """Every variable (arguments and auxiliary states), in graph order."""
        return [n.name for n in self._order() if n.op is None]

    def list_arguments(self):
        order = self._order()
        aux = aux_nodes(order)
        return [n.name for n in order if n.op is None and id(n) not in aux]

    def list_auxiliary_states(self):
        order = self._order()
        aux = aux_nodes(order)
        return [n.name for n in order if n.op is None and id(n) in aux]

    def get_internals(self):
        """A group of every visible output of every node, in graph order."""
        return Symbol([(n, i) for n in self._order() for i in range(n.num_visible_outputs())])

    def as_np_ndarray(self):
        """The same graph as a symbol of MXNet's NumPy interface (``mx.sym.np._Symbol``)."""
        from .numpy import _Symbol
        return _Symbol(self._outputs)

    def as_nd_ndarray(self):
        return self

    def get_children(self):
        """A group of the inputs of this symbol's node(s); None for a variable."""
        entries = [(e[0], e[1]) for node, _ in self._outputs for e in node.inputs]
        return Symbol(entries) if entries else None

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def __getitem__(self, index):
        if _NP_FLAGS.array and len(self._outputs) == 1 and isinstance(index, (numbers.Integral, slice, tuple)):
            return self._np_getitem(index)
        if isinstance(index, slice):  # MXNet's range over the outputs, not Python's slice rules:
            # a negative bound fails, a stop past the end raises IndexError, an empty range is an
            # empty Group (TypeError), as e.g. GluonNLP's hybridized TAR loss meets them
            start = 0 if index.start is None else index.start
            stop = len(self._outputs) if index.stop is None else index.stop
            step = 1 if index.step is None else index.step
            return Group([self[i] for i in range(start, stop, step)])
        if isinstance(index, str):
            names = self.list_outputs()
            hits = [i for i, n in enumerate(names) if n == index]
            if not hits:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            if len(hits) > 1:
                raise ValueError('There are multiple outputs with name "%s"' % index)
            index = hits[0]
        if not isinstance(index, numbers.Integral):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index < 0:
            raise MXNetError("Symbol only accept nonnegative index (got %d for a symbol with %d outputs)"
                             % (index, len(self._outputs)))
        if index >= len(self._outputs):  # (a bare IndexError ends Python's iteration over the outputs)
            raise IndexError("Symbol index %d out of range: the symbol has %d outputs" % (index, len(self._outputs)))
        return Symbol([self._outputs[index]])

    def _np_getitem(self, key):
        """``x[key]`` of a one-output symbol under ``npx.set_np()`` (MXNet's np symbols): basic
        indexing by ints, slices and tuples of them, as ``slice`` and ``_npx_reshape`` nodes."""
        from . import _internal
        if isinstance(key, numbers.Integral):  # (x[-1] slices to the end: MXNet's [-1, 0) fails)
            end = int(key) + 1 if key != -1 else None
            return _internal._npx_reshape(_internal.slice(self, begin=[int(key)], end=[end]), newshape=(-3, -4))
        if isinstance(key, slice):
            if key.step == 0:
                raise ValueError("slice step cannot be zero")
            return _internal.slice(self, begin=[None] if key.start is None else key.start,  # as MXNet writes them
                                   end=[None] if key.stop is None else key.stop, step=key.step)
        if not key:
            return self
        begin, end, step, new_shape = [], [], [], ()
        for index in key:
            if isinstance(index, slice):
                if index.step == 0:
                    raise ValueError("slice step cannot be zero")
                begin.append(index.start)
                end.append(index.stop)
                step.append(index.step)
                new_shape += (-2,)
            elif isinstance(index, numbers.Integral):
                begin.append(int(index))
                end.append(int(index) + 1 if index >= 0 else int(index) - 1)
                step.append(1 if index >= 0 else -1)
                new_shape += (-3,)
            else:
                raise IndexError("Only integer, slice, or tuple of these types are supported! Received key={}"
                                 .format(key))
        sliced = _internal.slice(self, begin=begin, end=end, step=step)
        return _internal._npx_reshape(sliced, newshape=new_shape + (-4,))

    def __repr__(self):
        if self.name is not None:
            return "<Symbol %s>" % self.name
        return "<Symbol group [%s]>" % ", ".join(str(s.name) for s in self)

    __str__ = __repr__

    def __hash__(self):
        return id(self)

    def __copy__(self):
        return self.__deepcopy__(None)

    def __deepcopy__(self, memo):
        """A copy of the whole graph (new nodes), as MXNet's ``MXSymbolCopy``."""
        new = {}
        for n in self._order():
            m = Node(n.op, n.name, dict(n.attrs), [(new[id(e[0])], e[1], e[2]) for e in n.inputs], n.subgraphs)
            m.version = n.version
            new[id(n)] = m
        return Symbol([(new[id(n)], i) for n, i in self._outputs])

    def __reduce__(self):
        return (_from_json, (self.tojson(),))

    # ------------------------------------------------------------------ attributes
    def attr(self, key):
        """The attribute string ``key`` of this (single-output) symbol's node, or None."""
        if len(self._outputs) != 1:
            return None
        attrs = self._outputs[0][0].attrs
        if key in HIDDEN_KEYS:
            key = "__%s__" % key
        return attrs.get(key)

    def list_attr(self, recursive=False):
        """The attributes of this symbol's node (hidden keys also under their plain name)."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        return _listed(self._outputs[0][0].attrs)

    def attr_dict(self):
        """``{node name: attributes}`` for every node with attributes."""
        return {n.name: _listed(n.attrs) for n in self._order() if n.attrs}

    def _set_attr(self, **kwargs):
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise ValueError("Set Attr only accepts string values")
            for node, _ in self._outputs:
                node.set_attr(*next(iter(_dunder({key: value}).items())))

    # ------------------------------------------------------------------ composition
    def __call__(self, *args, **kwargs):
        """A copy of the graph with its variables replaced by the given symbols (by name)."""
        s = self.__deepcopy__(None)
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, name=None, **kwargs):
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or keyword arguments, not both")
        if args:  # MXNet's symbols are graphs with their variables made: nnvm composes them by name only
            raise MXNetError("Check failed: args.size() == 0U (%d vs. 0) : General composition only support kwargs "
                             "for now" % len(args))
        inputs = self.list_inputs()
        unknown = [k for k in kwargs if k not in inputs]
        if unknown:  # MXNet's nnvm Symbol::Compose: keywords name the graph's variables
            raise MXNetError("Symbol.ComposeKeyword argument name %s not found.\nCandidate arguments:\n%s"
                             % (unknown[0], "\n".join("\t[%d]%s" % (i, n) for i, n in enumerate(inputs))))
        subst = {k: _single(v, "compose") for k, v in kwargs.items()}
        for node in self._order():
            node.inputs = [(subst[e[0].name][0], subst[e[0].name][1], 0)
                           if e[0].op is None and e[0].name in subst else e for e in node.inputs]
        self._outputs = [subst[n.name] if n.op is None and n.name in subst else (n, i) for n, i in self._outputs]
        if name is not None and len(self._outputs) == 1:
            self._outputs[0][0].name = name

    def debug_str(self):
        """The graph as MXNet's ``Symbol.debug_str`` prints it: the outputs, then each variable and
        operator node in topological order with its inputs (a variable's with its version) and attributes."""
        lines = ["Symbol Outputs:"]
        lines += ["\toutput[%d]=%s(%d)" % (k, n.name, i) for k, (n, i) in enumerate(self._outputs)]
        for node in self._order():
            if node.op is None:
                lines.append("Variable:%s" % node.name)
                continue
            lines += ["--------------------", "Op:%s, Name=%s" % (node.op.name, node.name), "Inputs:"]
            lines += ["\targ[%d]=%s(%d)%s" % (k, src.name, i, " version=%d" % v if src.op is None else "")
                      for k, (src, i, v) in enumerate(node.inputs)]
            if node.attrs:
                lines.append("Attrs:")
                lines += ["\t%s=%s" % kv for kv in node.attrs.items()]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ serialisation, inference, binding
    def tojson(self, remove_amp_cast=True):
        """MXNet's JSON text; with ``remove_amp_cast`` (the default, as MXNet's) nodes read
        around the ``amp_cast``/``amp_multicast`` nodes AMP inserted."""
        from .json import to_json
        return to_json(self, remove_amp_cast)

    def save(self, fname, remove_amp_cast=True):
        from ..fileio import atomic_write
        atomic_write(fname, self.tojson(remove_amp_cast), "Symbol.save")

    def infer_shape(self, *args, **kwargs):
        from .infer import infer_shape
        return infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        from .infer import infer_shape
        return infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        from .infer import infer_type
        return infer_type(self, args, kwargs)

    # bind and simple_bind are installed by neogluon.executor (which builds on Symbol)

    def eval(self, ctx=None, **kwargs):
        """Bind the given arrays, run forward in predict mode and return the outputs."""
        from ..context import current_context
        ex = self.bind(ctx or current_context(), kwargs, grad_req="null")
        return ex.forward()

    def optimize_for(self, backend, args=None, aux=None, ctx=None, **kwargs):
        """No graph partitioning backends exist here: the symbol is returned unchanged."""
        return self

    # ------------------------------------------------------------------ operators (no broadcasting;
    # under npx.set_np() the broadcasting _npi_* operators of MXNet's np symbols)
    def _binary(self, other, op_sym, op_scalar, reflected=False):
        from . import _internal
        numpy_mode = _NP_FLAGS.array  # traced under npx.set_np(): MXNet's np symbols, broadcasting _npi_* ops
        if numpy_mode:
            op_sym, op_scalar = _NUMPY_OPS[op_sym], _NUMPY_OPS[op_scalar]
        if isinstance(other, Symbol):
            lhs, rhs = (other, self) if reflected else (self, other)
            return getattr(_internal, op_sym)(lhs, rhs)
        if isinstance(other, numbers.Number) and not isinstance(other, bool) or isinstance(other, np.generic):
            if numpy_mode:  # MXNet's np symbols say is_int=False whenever the scalar is on the left
                return getattr(_internal, op_scalar)(self, scalar=float(other),
                                                     is_int=not reflected and isinstance(other, (int, np.integer)))
            return getattr(_internal, op_scalar)(self, scalar=other)
        raise TypeError("type %s not supported" % str(type(other)))

    def __add__(self, other):
        return self._binary(other, "_Plus", "_PlusScalar")

    def __radd__(self, other):
        return self._binary(other, "_Plus", "_PlusScalar", True)

    def __sub__(self, other):
        return self._binary(other, "_Minus", "_MinusScalar")

    def __rsub__(self, other):
        return self._binary(other, "_Minus", "_RMinusScalar", True)

    def __mul__(self, other):
        return self._binary(other, "_Mul", "_MulScalar")

    def __rmul__(self, other):
        return self._binary(other, "_Mul", "_MulScalar", True)

    def __truediv__(self, other):
        return self._binary(other, "_Div", "_DivScalar")

    def __rtruediv__(self, other):
        return self._binary(other, "_Div", "_RDivScalar", True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __mod__(self, other):
        return self._binary(other, "_Mod", "_ModScalar")

    def __rmod__(self, other):
        return self._binary(other, "_Mod", "_RModScalar", True)

    def __pow__(self, other):
        return self._binary(other, "_Power", "_PowerScalar")

    def __rpow__(self, other):
        return self._binary(other, "_Power", "_rpower_scalar", True)

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        from . import abs as _abs
        return _abs(self)

    def __eq__(self, other):
        return self._binary(other, "_equal", "_equal_scalar")

    def __ne__(self, other):
        return self._binary(other, "_not_equal", "_not_equal_scalar")

    def __gt__(self, other):
        return self._binary(other, "_greater", "_greater_scalar")

    def __ge__(self, other):
        return self._binary(other, "_greater_equal", "_greater_equal_scalar")

    def __lt__(self, other):
        return self._binary(other, "_lesser", "_lesser_scalar")

    def __le__(self, other):
        return self._binary(other, "_lesser_equal", "_lesser_equal_scalar")

    def _inplace(self, other, what):
        raise NotImplementedForSymbol(getattr(self, what), what, other, 1)

    def __iadd__(self, other):
        return self._inplace(other, "__iadd__")

    def __isub__(self, other):
        return self._inplace(other, "__isub__")

    def __imul__(self, other):
        return self._inplace(other, "__imul__")

    def __itruediv__(self, other):
        return self._inplace(other, "__itruediv__")

    __idiv__ = __itruediv__

    def __imod__(self, other):
        return self._inplace(other, "__imod__")

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    # ------------------------------------------------------------------ NDArray-only functions
    def asnumpy(self):
        raise NotImplementedForSymbol(self.asnumpy, None)

    def asscalar(self):
        raise NotImplementedForSymbol(self.asscalar, None)

    def wait_to_read(self):
        raise NotImplementedForSymbol(self.wait_to_read, None)

    def copyto(self, other):
        raise NotImplementedForSymbol(self.copyto, None, other)

    def as_in_context(self, context):
        raise NotImplementedForSymbol(self.as_in_context, None, context)

    def attach_grad(self, grad_req="write", stype=None):
        raise NotImplementedForSymbol(self.attach_grad, None)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        raise NotImplementedForSymbol(self.backward, None)

    # ------------------------------------------------------------------ methods with special signatures
    def reshape(self, *shape, **kwargs):
        """``x.reshape((0, -1))`` or ``x.reshape(-1)``, with MXNet's special codes. As in MXNet
        (whose method passes its arguments on to the operator), further positional arguments
        are the operator's next parameters: ``x.reshape(0, -1)`` is ``shape=0, reverse=-1``,
        an error (GluonNLP's hybridized CacheCell meets it), unlike ``NDArray.reshape``."""
        from . import reshape as _reshape
        if len(shape) > 1:
            kwargs.update(zip(("reverse", "target_shape", "keep_highest"), shape[1:]))
            shape = shape[:1]
        if len(shape) == 1 and isinstance(shape[0], (list, tuple, int)):
            shape = shape[0]   # an int stays one, written '-1' in the JSON as MXNet does
        elif not shape:
            shape = kwargs.pop("shape")
        return _reshape(self, shape=shape if isinstance(shape, int) else tuple(shape), **kwargs)

    def astype(self, dtype, copy=True):
        from . import cast
        return cast(self, dtype=dtype)

    def broadcast_to(self, shape):
        from . import broadcast_to
        return broadcast_to(self, shape=tuple(shape))

    def zeros_like(self, **kwargs):
        from . import zeros_like
        return zeros_like(self, **kwargs)

    def ones_like(self, **kwargs):
        from . import ones_like
        return ones_like(self, **kwargs)


def _listed(attrs):
    out = {}
    for k, v in attrs.items():
        out[k] = v
        if _is_hidden(k) and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    return out


def _single(s, what):
    if not isinstance(s, Symbol):
        raise TypeError("%s: inputs must be Symbols, got %s" % (what, type(s).__name__))
    if len(s._outputs) != 1:
        raise MXNetError("%s: cannot use a grouped symbol with %d outputs (%s) as one input"
                         % (what, len(s._outputs), ", ".join(s.list_outputs())))
    return s._outputs[0]


def _from_json(text):
    from .json import load_json
    return load_json(text)


# ---------------------------------------------------------------------- creation
def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None, **kwargs):
    """A variable: an input of the graph (data, a parameter, an auxiliary state)."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    attrs = _dunder(_attribute.current().get(attr))
    if shape is not None:
        attrs["__shape__"] = str(shape)
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        attrs["__dtype__"] = str(DTYPE_TO_FLAG[np.dtype(dtype)])
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        attrs["__storage_type__"] = str(STORAGE_TYPES[stype])
    for k, v in kwargs.items():
        if not _is_hidden(k):
            raise ValueError("Attribute name=%s is not supported. Additional attributes must start and "
                             "end with double underscores, e.g, __yourattr__" % k)
        attrs[k] = str(v)
    return Symbol([(Node(None, name, attrs), 0)])


Variable = var


def Group(symbols):
    """One symbol whose outputs are the outputs of all ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([o for s in symbols for o in s._outputs])


def _attr_string(key, value):
    if key == "dtype" and value is not None and not isinstance(value, str):
        return np.dtype(value).name
    return str(value)


def compose(name, attr, hint):
    """The tracing hook a generated ``mx.sym.<op>`` function gives ``Operator.call``: the
    call becomes a Symbol node (see :func:`create`) named after ``name`` or ``hint``."""
    def hook(op, inputs, kwargs, out):  # pylint: disable=unused-argument
        return create(op, inputs, kwargs, name, attr, hint)
    return hook


def create(op, inputs, kwargs, name, attr, hint):
    """Apply ``op`` to symbols: what every generated ``mx.sym.<op>`` function calls.

    ``inputs`` holds the symbols given positionally (or the variadic ``*data``); symbols
    may also come as keywords. Missing inputs become variables ``<name>_<input>`` that
    carry the node's attributes, as MXNet's compose does."""
    sym_kwargs = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
    strings = _dunder(_attribute.current().get(attr))
    # a hidden key given as an operator keyword (lr_mult=0) is an attribute (__lr_mult__), as in MXNet
    strings.update(_dunder({k: _attr_string(k, v) for k, v in kwargs.items() if k not in sym_kwargs}))
    parsed = op.entry(strings).attrs
    node = Node(op, _name.current().get(name, hint.lower()), strings)
    node._parsed = parsed
    if op.variadic:
        given = list(inputs) + list(sym_kwargs.values())
        wrong = [s for s in given if not isinstance(s, Symbol)]
        if wrong:
            raise ArgumentTypeError("Positional arguments must be Symbol instances, but got %s (operator %s)"
                                    % (wrong[0], op.name))
        entries = [_single(s, op.name) for s in given]
        # inputs the node declares beyond those given (num_args=3 with two symbols, bilinear
        # UpSampling's weight) become variables, as MXNet's compose makes them
        entries += [(Node(None, "%s_%s" % (node.name, nm), dict(node.attrs)), 0)
                    for nm in op.input_names(parsed)[len(given):]]
    else:
        entries = _named_inputs(op, node, inputs, sym_kwargs)
    n_args = len(op.arg_names(parsed))
    for i, (src, index) in enumerate(entries):
        version = 0
        if i >= n_args and src.op is None:
            src.version += 1
            version = src.version
            if op.input_names(parsed)[i] in AUX_INIT and "__init__" not in src.attrs:
                src.attrs["__init__"] = AUX_INIT[op.input_names(parsed)[i]]
        node.inputs.append((src, index, version))
    return Symbol([(node, i) for i in range(node.num_visible_outputs())])


def _named_inputs(op, node, inputs, sym_kwargs):
    """The entries for the operator's declared inputs, creating variables for missing ones."""
    names = op.input_names(node.parsed)
    given = dict(zip(op.all_input_names(), inputs))
    given.update(sym_kwargs)
    unknown = [k for k, v in given.items() if v is not None and k not in names]
    if unknown:
        raise MXNetError("Operator %s: keyword argument name %s not found.\nCandidate arguments:\n%s"
                         % (op.name, unknown[0], "\n".join("\t[%d]%s" % (i, n) for i, n in enumerate(names))))
    entries = []
    for nm in names:
        s = given.get(nm)
        if s is None:
            attrs = dict(node.attrs)
            entries.append((Node(None, "%s_%s" % (node.name, nm), attrs), 0))
        elif not isinstance(s, Symbol):
            raise ArgumentTypeError("Argument %s must be Symbol instances, but got %s" % (nm, s))
        else:
            entries.append(_single(s, "%s input %s" % (op.name, nm)))
    return entries
