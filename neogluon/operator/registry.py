"""The operator registry: one definition per MXNet operator name.

An operator is declared once, beside its torch implementation::

    @register("FullyConnected",
              inputs=lambda a: ("data", "weight") if a["no_bias"] else ("data", "weight", "bias"),
              params=dict(num_hidden=Int(), no_bias=Bool(False), flatten=Bool(True)),
              infer_args=fc_infer_args)
    def fully_connected(data, weight, bias=None, *, num_hidden, no_bias, flatten):
        ...

and everything else (``mx.nd.FullyConnected``, ``mx.sym.FullyConnected``, the graph
executor, the JSON reader and writer, shape inference) is generated from, or reads, the
resulting :class:`Operator`. The implementation is a plain function of torch tensors
(inputs, in declared order) and parsed attributes (keywords). Attributes are parsed from
Python values or from the strings found in ``-symbol.json``; a symbol keeps the strings
it was given so that JSON is written back exactly as MXNet wrote it.
"""
import ast
import copy
import functools

import numpy as np
import torch

from ..base import ArgumentTypeError, MXNetError, _Null, np_dtype
from ..context import Context as _Context, as_context as _as_context
from ..core import ACTIVE as _ACTIVE, STATE as _STATE, TRACING as _TRACING

__all__ = ["Attr", "Int", "Float", "Bool", "Shape", "Str", "Dtype", "Any", "REQUIRED",
           "Operator", "Entry", "register", "register_operator", "implementation", "lowering", "shape_rule",
           "check_rule", "into_kernel", "get", "exists",
           "list_operators", "alias", "remember", "NotCovered", "require", "same_shape"]

# the one cache policy of the dispatch path: a cache (an operator's entries, a kernel's
# plans per input shape) remembers this many keys and then stops adding (a program that
# keeps making new attribute values still runs, it only parses them again)
CACHE_SIZE = 4096


# True while TorchDynamo traces (a compiled graph): a kernel's per-shape plan cache is neither
# read nor filled then, since dynamo guards on a dict's contents (every compiled training graph
# with a Reshape was compiled twice: the trace filled the cache, the next call failed the guard)
compiling = torch.compiler.is_compiling


def remember(cache, key, value):
    """Put ``key -> value`` into a dispatch cache unless it is full (see ``CACHE_SIZE``)."""
    if len(cache) < CACHE_SIZE:
        cache[key] = value
    return value


def _hashable(value):
    """A list attribute value (nested lists too) as a hashable key of its own: a tuple
    marked by ``list``, so that the entry keeps its raw list (a traced graph writes it
    into the JSON as MXNet does, ``[0.1, 0.2]``, not as the tuple's ``(0.1, 0.2)``)."""
    return (list,) + tuple(_hashable(v) for v in value) if isinstance(value, list) else value


class _Required:
    __slots__ = ()

    def __repr__(self):
        return "required"


REQUIRED = _Required()


# ----------------------------------------------------------------------------- attributes

MAX_LITERAL = 1 << 16  # characters: no attribute string MXNet writes comes near this


def literal(s):
    """``ast.literal_eval`` of an attribute string, bounded: a string longer than
    MAX_LITERAL or nested past the parser's limits is a ValueError, never a
    MemoryError or RecursionError."""
    if len(s) > MAX_LITERAL:
        raise ValueError("%d characters, more than the %d an attribute may have" % (len(s), MAX_LITERAL))
    try:
        return ast.literal_eval(s)
    except (RecursionError, MemoryError):
        raise ValueError("nested too deeply") from None


class Attr:
    """An attribute's schema: its default and how to read it from Python or a JSON string."""
    type_name = "any"

    def __init__(self, default=REQUIRED, doc="", choices=None):
        self.default = default
        self.doc = doc
        self.choices = choices
        self.name = None  # set by Operator

    @property
    def required(self):
        return self.default is REQUIRED

    def describe(self):
        kind = self.type_name
        if self.choices:
            kind = "{%s}" % ", ".join(repr(c) for c in self.choices)
        if self.default is None and self.type_name != "any":
            kind += " or None"
        if self.required:
            return "%s : %s, required" % (self.name, kind)
        return "%s : %s, optional, default=%s" % (self.name, kind, self.format(self.default))

    def format(self, value):
        """The attribute string MXNet writes for a value (what Python's ``str`` gives)."""
        return str(value)

    def parse(self, value):
        if value is None or (isinstance(value, str) and value == "None"):
            if self.default is None:
                return None
            raise ValueError("None is not allowed")
        if isinstance(value, str):
            value = self.from_str(value.strip())
        else:
            value = self.convert(value)
        if self.choices is not None and value not in self.choices:
            raise ValueError("expected one of {%s}" % ", ".join(repr(c) for c in self.choices))
        return value

    def from_str(self, s):
        return self.convert(literal(s))

    def convert(self, v):
        return v


class Int(Attr):
    type_name = "int"

    def from_str(self, s):
        return int(s.rstrip("L"))

    def convert(self, v):
        if isinstance(v, (bool, np.bool_)) or not float(v).is_integer():
            raise ValueError("expected an integer")
        return int(v)


class Float(Attr):
    type_name = "float"

    def from_str(self, s):
        return float(s)

    def convert(self, v):
        if isinstance(v, (list, tuple, np.ndarray)):
            raise ValueError("expected a number")
        return float(v)


class Bool(Attr):
    type_name = "boolean"
    _STR = {"true": True, "false": False, "1": True, "0": False}

    def from_str(self, s):
        try:
            return self._STR[s.lower()]
        except KeyError:
            raise ValueError("expected True or False") from None

    def convert(self, v):
        if isinstance(v, (bool, np.bool_, int, np.integer)):
            return bool(v)
        raise ValueError("expected a boolean")

    def format(self, value):
        return str(bool(value))


class Shape(Attr):
    """A tuple of ints (MXNet's ``Shape(tuple)``); an int means a 1-tuple.

    ``allow_none_items`` admits ``None`` entries, as in ``slice``'s begin/end."""
    type_name = "Shape(tuple)"

    def __init__(self, default=REQUIRED, doc="", allow_none_items=False):
        super().__init__(default, doc)
        self.allow_none_items = allow_none_items

    def from_str(self, s):
        if s in ("", "()", "[]"):
            return ()
        return self.convert(literal(s))

    def convert(self, v):
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return (int(v),)
        if isinstance(v, (tuple, list)):
            out = []
            for x in v:
                if x is None and self.allow_none_items:
                    out.append(None)
                elif isinstance(x, (int, np.integer)) and not isinstance(x, bool):
                    out.append(int(x))
                else:
                    raise ValueError("expected a tuple of integers")
            return tuple(out)
        raise ValueError("expected a tuple of integers")


class Str(Attr):
    type_name = "string"

    def from_str(self, s):
        return s

    def convert(self, v):
        if not isinstance(v, str):
            raise ValueError("expected a string")
        return v


class Dtype(Attr):
    """A dtype name ('float32'); numpy and torch dtypes are accepted and normalised."""
    type_name = "dtype"

    def from_str(self, s):
        return self.convert(s)

    def convert(self, v):
        if v == "bfloat16" or v is torch.bfloat16:  # MXNet's name; numpy has no bfloat16
            return "bfloat16"
        try:
            return np_dtype(v).name
        except TypeError:
            raise ValueError("expected a data type") from None


class Any(Attr):
    """An attribute kept as given (a string from JSON is literal-evaluated when it can be)."""

    def from_str(self, s):
        try:
            return literal(s)
        except (ValueError, SyntaxError):
            return s


# ----------------------------------------------------------------------------- operators
def _static(value):
    return (lambda attrs: value) if not callable(value) else value


class Operator:
    """Everything neogluon knows about one MXNet operator."""

    def __init__(self, name, fn, *, inputs=("data",), aux=(), params=None, num_outputs=1,
                 num_visible_outputs=None, output_names=None, variadic=None, infer_args=None,
                 infer_shape=None, infer_type=None, mode_dependent=False, differentiable=True,
                 signature=None, doc=None, infer_inputs=None, check=None, aliasing=False, attr_parser=None):
        self.name = name
        self.fn = fn if fn is not None else self._lowered  # None: the lowering is the implementation
        self.check = check                # (attrs, tensors) -> None, raising MXNetError; see explain
        self.params = dict(params or {})
        for pname, p in self.params.items():
            p.name = pname
        self.param_names = tuple(self.params)
        # MXNet parses (and rejects unknown) attributes only of an operator with an attribute
        # parser: every operator with parameters, and a few without (linalg_potrf); any other
        # ignores whatever it is given (GluonTS's ``F.broadcast_mul(a, b, axis=-1)``)
        self.attr_parser = bool(self.params) if attr_parser is None else attr_parser
        self.variadic = variadic          # name of the count attribute ('num_args') or None
        # a variadic op with callable inputs names its own (UpSampling: data, weight when bilinear)
        self._named_variadic = variadic is not None and callable(inputs)
        self._inputs = _static(tuple(inputs)) if not callable(inputs) else inputs
        self._aux = _static(tuple(aux)) if not callable(aux) else aux
        self._num_outputs = _static(num_outputs)
        self._num_visible = _static(num_visible_outputs) if num_visible_outputs is not None else self._num_outputs
        # one output for any attributes: the kernel gives one tensor (as a compiled graph's line
        # takes it), so a generated mx.nd function writes it straight into the new array
        self.one_output = num_outputs == 1 and num_visible_outputs in (None, 1)
        self._output_names = output_names
        self.infer_args = infer_args      # (attrs, in_shapes) -> in_shapes with unknowns filled
        self.infer_inputs = infer_inputs  # (attrs, in_shapes, out_shapes) -> in_shapes, from known outputs
        self.infer_shape_fn = infer_shape  # (attrs, in_shapes) -> out_shapes, instead of a meta run
        self.infer_type_fn = infer_type
        self.mode_dependent = mode_dependent
        # the kernel may return an input or a view of one (torch's reshape, permute, split):
        # an imperative call copies such a result, as every MXNet operator writes new memory
        # (NDArray.reshape and basic indexing keep views: in MXNet they are no operators)
        self.aliasing = aliasing
        self.differentiable = differentiable
        self._signature = tuple(signature) if signature is not None else None
        self.aliases = []
        self.doc = doc if doc is not None else (getattr(fn, "__doc__", None) or "")
        self.lowering = None              # attrs -> function of tensors, see lower()
        # a binary operator whose inputs must share one dtype (MXNet's ElemwiseType) may name
        # the torch function its kernel runs once that holds: ``entry.run`` calls it directly
        # when the dtypes are the same object, else the kernel (which raises MXNet's error)
        self.same_dtype_kernel = getattr(fn, "same_dtype_kernel", None)
        # the kernel's form that writes its one result into a given tensor (an ``out=`` array,
        # ``x -= y``): ``into(**attrs)`` -> ``fn(out, *tensors)``, True once written, False when
        # it cannot (the result is then computed and copied); None: always computed and copied
        self.into = None
        # MXNet's FInferStorageType + FComputeEx: (attrs, input arrays, out) -> the result on
        # sparse storage, or None for the dense kernel (see storage_rule); asked when an
        # input is sparse, or on every call when storage_dense (cast_storage)
        self.storage = None
        self.storage_dense = False
        # the operator's one cache: raw attributes (keywords, or the generated functions'
        # positional values) -> Entry(attributes, kernels, input count)
        self._entries = {}
        self._plain = None                # the Entry of a call without attributes
        self._defaults = {k: p.default for k, p in self.params.items() if not p.required}
        self.default_attrs = None if len(self._defaults) < len(self.params) else dict(self._defaults)
        self.arity = None
        if not callable(inputs) and not callable(aux) and not variadic:
            self.arity = len(inputs) + len(aux)

    def __repr__(self):
        return "<Operator %s>" % self.name

    # -- the schema, as functions of the parsed attributes
    def input_names(self, attrs):
        """Names of the arguments, then of the auxiliary states (MXNet's ListInputNames)."""
        return self.arg_names(attrs) + self.aux_names(attrs)

    def arg_names(self, attrs):
        if self.variadic and not self._named_variadic:
            return tuple("arg%d" % i for i in range(attrs[self.variadic]))
        return self._inputs(attrs)

    def aux_names(self, attrs):
        return self._aux(attrs)

    def all_input_names(self):
        """Every input the operator can take, in order (the generated functions' signature)."""
        if self._signature is not None:
            return self._signature
        if self.variadic:
            return ()
        try:
            return self.input_names(self._defaults)
        except KeyError:
            raise MXNetError("operator %s: inputs depend on a required attribute; declare signature="
                             % self.name) from None

    def num_outputs(self, attrs):
        return self._num_outputs(attrs)

    def num_visible_outputs(self, attrs):
        return self._num_visible(attrs)

    def output_names(self, attrs):
        """Name suffixes of the visible outputs. MXNet's default counts *all* outputs: 'output'
        for an operator with one output in total, else 'output0', 'output1'... (``sort`` gives
        'output0'); operators that name theirs (Dropout's 'output') declare output_names."""
        if self._output_names is not None:
            return list(self._output_names(attrs))
        n = self.num_outputs(attrs)
        return ["output"] if n == 1 else ["output%d" % i for i in range(n)]

    # -- attributes
    def parse_attrs(self, kwargs):
        """Parse keyword attributes (Python values or JSON strings) into a full dict.

        Unknown names, missing required ones and unreadable values raise MXNetError as
        MXNet does, naming the operator and listing its arguments. Not cached: callers use
        :meth:`entry`, which calls this for attributes it has not seen (an Operator
        subclass with free-form attributes, such as ``Custom``, overrides this)."""
        attrs = dict(self._defaults)
        for k, v in kwargs.items():
            if v is _Null:
                continue
            p = self.params.get(k)
            if p is None:
                if (k.startswith("__") and k.endswith("__")) or not self.attr_parser:
                    continue  # symbol attributes such as __layout__, __init__; no parser: ignored
                raise MXNetError("Cannot find argument '%s', Possible Arguments:\n----------------\n%s\n, in operator %s"
                                 % (k, self.describe_params(), self.call_repr(kwargs)))
            attrs[k] = self._parse_attr(p, k, v, kwargs)
        if len(attrs) < len(self.params):
            for k, p in self.params.items():
                if k not in attrs:
                    raise MXNetError("Required parameter %s of %s is not presented, in operator %s"
                                     % (k, p.type_name, self.call_repr(kwargs)))
        return attrs

    def _parse_attr(self, p, k, v, kwargs):
        try:
            return p.parse(v)
        except (ValueError, SyntaxError, TypeError) as e:
            raise MXNetError("Invalid Parameter format for %s expect %s but value='%s' (%s), in operator %s"
                             % (k, p.type_name, v, e, self.call_repr(kwargs))) from None

    def parse_attr(self, name, value):
        """One attribute read as a call would read it (MXNet passes attributes as strings: a
        0-d ``mx.np`` array is its number, a legacy NDArray does not parse)."""
        return self._parse_attr(self.params[name], name, value, {name: value})

    # -- the cache of calls
    def entry(self, raw):
        """The :class:`Entry` for raw keyword attributes (Python values or JSON strings),
        from the operator's cache when it has seen them (lists too, see :func:`_hashable`:
        ``normalize(x, mean=[...])`` parsed its attributes and built its constants at every
        call; other unhashable values are parsed each time)."""
        try:
            key = tuple(raw.items())
            hit = self._entries.get(key)
        except TypeError:
            try:
                key = tuple((k, _hashable(v)) for k, v in raw.items())
                hit = self._entries.get(key)
            except TypeError:
                return self.new_entry(raw)
            if hit is None:  # the entry keeps copies: the caller may change its lists later
                return remember(self._entries, key, self.new_entry(copy.deepcopy(raw)))
        if hit is None:
            hit = remember(self._entries, key, self.new_entry(raw))
        return hit

    def lookup(self, values, raw=None):
        """The :class:`Entry` for the attribute arguments of a generated ``mx.nd`` function,
        by position (``_Null`` for those not given): its fast path keeps no keyword dict.
        TypeError for an unhashable value (the caller passes keywords instead). A caller
        whose values are hashable stand-ins of the attributes gives the keywords as ``raw``."""
        key = (_POSITIONAL,) + values
        hit = self._entries.get(key)
        if hit is None:
            if raw is None:
                names = [p for p in self.param_names if p != self.variadic]
                hit = self.entry({k: v for k, v in zip(names, values) if v is not _Null})
            else:
                hit = self.new_entry(raw)
            remember(self._entries, key, hit)
        return hit

    def keyed(self, key, raw, view=False):
        """The :class:`Entry` for raw attributes, cached under a caller's own hashable
        stand-in for them (``x[2:10]``'s ``(2, 10)``, ``x[i]``'s ``i``, ``x.reshape``'s shape
        code): one dict lookup of a key the caller has at hand. The key must not be a tuple
        of (name, value) pairs, ``()`` or start with the positional marker (the other key
        forms).
        ``view``: an entry of its own whose results may be views of the input (see
        ``aliasing``; ``x.reshape`` is a view in MXNet)."""
        hit = self._entries.get(key)
        if hit is None:
            if view:
                hit = self.new_entry(raw)
                hit.view = True
            else:
                hit = self.entry(raw)
            remember(self._entries, key, hit)
        return hit

    def new_entry(self, raw):
        """A new :class:`Entry` for raw attributes, not cached."""
        attrs = self.parse_attrs(raw)
        entry = Entry(raw, attrs, len(self.input_names(attrs)))
        entry.run = self._first_run(entry)
        return entry

    def _plain_entry(self):
        self._plain = self.entry({})
        return self._plain

    def kernel(self, attrs, is_train=False):
        """The operator's kernel for fixed attributes: a function of the input tensors.

        It is the lowering for those attributes when the operator has one (the attribute
        work done once, see :meth:`lower`), else the implementation with the attributes
        bound; mode-dependent operators get ``is_train`` bound too."""
        if self.mode_dependent:
            attrs = dict(attrs, is_train=bool(is_train))
        low = self.lower(attrs)
        if low is not None:
            return low
        if not attrs:
            return self.fn
        return functools.partial(self.fn, **attrs)

    def _build(self, entry):
        """Fill ``entry.kernels``, (predict-mode kernel, train-mode kernel), and for an
        operator that does not depend on the mode, ``entry.kernel``, its one kernel."""
        k = self.kernel(entry.attrs, False)
        entry.kernels = (k, self.kernel(entry.attrs, True) if self.mode_dependent else k)
        if self.aliasing and not entry.view:
            entry.kernels = tuple(_fresh(f) for f in entry.kernels)
            k = entry.kernels[0]
        if not self.mode_dependent:
            entry.kernel = k
        return entry.kernels

    def lowered(self, kwargs):
        """(parsed attributes, lowered function or None, number of inputs) for a call's keywords."""
        e = self.entry(kwargs)
        return e.attrs, self.lower(e.attrs), e.n

    def format_attrs(self, attrs):
        """Attribute strings as MXNet writes them into JSON, for the given (non-default) values."""
        out = {}
        for k, v in attrs.items():
            p = self.params.get(k)
            out[k] = p.format(v) if p is not None else str(v)
        return out

    def describe_params(self):
        return "\n".join(p.describe() for p in self.params.values())

    def call_repr(self, kwargs, name=""):
        items = ", ".join('%s="%s"' % (k, v) for k, v in kwargs.items() if v is not _Null)
        return '%s(name="%s"%s)' % (self.name, name, (", " + items) if items else "")

    # -- running
    def lower(self, attrs):
        """The operator specialised to fixed attributes: a function of the input tensors
        alone, or None when the operator has no lowering for them.

        A kernel factory (:func:`implementation`) does the attribute work (geometry,
        layouts, kernel choice) once, when an entry or a graph is built, and leaves per-call
        checks to torch: a failure is explained by the operator's check rule."""
        if self.lowering is None:
            return None
        return self.lowering(**attrs)

    def _lowered(self, *tensors, **attrs):
        """The implementation of an operator registered with :func:`implementation`: its
        kernel for the attributes, run on the tensors."""
        return self.lowering(**attrs)(*tensors)

    def __call__(self, *tensors, **attrs):
        """Run the torch implementation on tensors with parsed attributes."""
        return self.fn(*tensors, **attrs)

    def call(self, inputs, raw=None, out=None, entry=None, trace=None):
        """Run the operator on arrays: the one way an operator runs on NDArrays.

        ``mx.nd.<op>``, ``mx.sym.<op>``, NDArray's arithmetic, indexing and ``reshape``
        all come here. In order:

        1. the tracing hook (``trace``, else ``core.TRACING.hook`` while a block is traced)
           gets the call and makes a graph node instead;
        2. the cache entry for the raw attributes gives (attributes, kernels, input count);
        3. the recording rule: outside ``autograd.record()`` inputs are detached;
        4. the kernel runs (the train-mode one when training); if it fails, the check rule
           explains the failure (:meth:`explain`) and one error is raised.

        ``raw`` holds keyword attributes (Python values or JSON strings); ``entry`` a
        cache entry already found (by position, see :meth:`lookup`). Steps 1, 3 and 4 for
        an entry's own input count are ``entry.run(*arrays)`` (see :func:`_bind`), which
        the generated functions, the dunders, ``x[key]`` and ``x.reshape`` call directly
        once they hold the entry."""
        if trace is not None:
            return trace(self, inputs, (raw or {}) if entry is None else entry.raw, out)
        if entry is None:
            if raw:
                try:
                    entry = self._entries[tuple(raw.items())]
                except (KeyError, TypeError):
                    entry = self.entry(raw)
            else:
                entry = self._plain or self._plain_entry()
        if out is None and len(inputs) == entry.n:
            return entry.run(*inputs)
        return self._general(entry, inputs, out)

    def _general(self, entry, inputs, out):
        """``call`` for any other input list (optional inputs left out, wrong types
        explained) or an ``out=`` array: the same steps, on a list."""
        if _ACTIVE.count:
            hook = _TRACING.hook
            if hook is not None:
                return hook(self, inputs, entry.raw, out)
        if self.storage is not None and (self.storage_dense or _has_sparse(inputs)):
            res = self._storage_call(entry, inputs, out)
            if res is not None:
                return res
        if out is not None and self.into is not None and self.write_into(entry, inputs, out) is not None:
            return out
        kernel = entry.kernel or self._mode_kernel(entry)
        res = self._run(entry, kernel, self._tensors(entry, inputs))
        if out is None and type(res) is _Tensor:  # pylint: disable=unidiomatic-typecheck
            arr = _new(_ARRAY)
            arr._t = res
            res = arr
        else:
            res = _WRAP(res, out)
        if _Context.several_cpus and out is None:
            return placed_like(res, inputs, entry)
        return res

    def write_into(self, entry, inputs, out):
        """The kernel writing its result into ``out``'s memory itself (``Operator.into``), as
        MXNet's kernels write an ``out=`` array: ``out``, or None when it cannot (no such form,
        an input or ``out`` that is not a dense array, recording, a tensor that requires a
        gradient, or a case the form declines: other dtypes, shapes, overlapping memory). The
        caller has sent traced calls to the tracing hook; with None it computes the result
        and copies it, which gives the same values."""
        into = entry.into
        if into is None:
            into = entry.into = (self.into(**entry.attrs) if self.into is not None else None) or False
        if into is False or _STATE.recording or out.__class__ is not _ARRAY or len(inputs) != entry.n:
            return None
        o = out._t
        ts = [o]
        for x in inputs:
            if x.__class__ is not _ARRAY:
                return None
            ts.append(x._t)
        for t in ts:
            if t.requires_grad:
                return None
        return out if into(*ts) else None

    def _storage_call(self, entry, inputs, out):
        """The storage rule's result when an input is sparse (or for an operator that
        chooses storage from its attributes), written into ``out`` when given; None
        leaves the call to the dense kernel (a sparse input is then read densely, as
        MXNet's storage fallback does)."""
        try:
            res = self.storage(entry.attrs, inputs, out)
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError, TypeError) as err:  # torch's, in MXNet's words
            raise shape_error(self, entry.attrs, inputs, err) from None
        if res is None:
            return None
        res = _STORED(res)
        return res if out is None or res is out else res.copyto(out)

    def _first_run(self, entry):
        """``entry.run`` until the entry first runs: it builds the kernels and the runner
        for the entry's input count (:func:`_bind`), which replaces it; once a call gave one
        array, by the runner that does not test the kernel's result."""
        def run(*inputs):
            if entry.kernels is None:
                self._build(entry)
            entry.run = _bind(self, entry)
            res = entry.run(*inputs)
            if type(res) is _ARRAY and self.one_result(entry.attrs):  # pylint: disable=unidiomatic-typecheck
                entry.run = _bind(self, entry, True)  # the kernel gives a tensor: no test of its result
            return res
        return run

    def one_result(self, attrs):
        """Whether a call with these attributes has one output (of one in all)."""
        return self.num_outputs(attrs) == 1 and self.num_visible_outputs(attrs) == 1

    def _run(self, entry, kernel, ts):
        """The kernel on tensors gathered by the general path (the recording rule applied)."""
        if not _STATE.recording:
            for t in ts:
                if t is not None and t.requires_grad:
                    ts = [None if x is None else x.detach() for x in ts]
                    break
        try:
            return kernel(*ts)
        except Exception as err:  # pylint: disable=broad-except
            raise self.explain(entry.attrs, ts, err) from None

    def _mode_kernel(self, entry):
        """The kernel of an entry of a mode-dependent operator, for the current mode (and
        the kernels of a new entry)."""
        kernels = entry.kernels or self._build(entry)
        return kernels[_STATE.training]

    def run(self, attrs, tensors, is_train=False):
        """Run the kernel for ``attrs`` on tensors (a graph's node-by-node modes), with a
        failure explained as :meth:`call` does."""
        try:
            return self.kernel(attrs, is_train)(*tensors)
        except Exception as err:  # pylint: disable=broad-except
            raise self.explain(attrs, tensors, err) from None

    def _tensors(self, entry, inputs):
        """The torch tensors of the declared inputs, checking their count and types."""
        n = entry.n
        names = self.input_names(entry.attrs)
        if len(inputs) > n:  # optional inputs not given are dropped, as MXNet's generated functions do
            inputs = tuple(x for x in inputs if x is not None)
        if len(inputs) < n:
            inputs = tuple(inputs) + (None,) * (n - len(inputs))
        ts = []
        for i in range(n):
            x = inputs[i]
            if isinstance(x, _ARRAY):
                ts.append(x._t)
            elif x is None:
                raise MXNetError("Operator %s expects %d inputs (%s) but input '%s' was not given"
                                 % (self.name, n, ", ".join(names), names[i]))
            elif self.variadic and not self._named_variadic:
                raise ArgumentTypeError("Positional arguments must have NDArray type, but got %s (operator %s)"
                                        % (x, self.name))
            else:
                raise ArgumentTypeError("Argument %s must have NDArray type, but got %s (operator %s)"
                                        % (names[i], x, self.name))
        extra = [x for x in inputs[n:] if x is not None]
        if extra:
            raise MXNetError("Operator %s expects %d inputs (%s) but %d were given"
                             % (self.name, n, ", ".join(names), n + len(extra)))
        return ts

    # -- errors
    def explain(self, attrs, tensors, err):
        """The one error to report when a kernel failed with ``err``.

        The kernel is not run again: the operator's check rule looks at the inputs'
        shapes and dtypes only (by default the implementation runs on shape-only 'meta'
        copies of them, so nothing is computed and no state, such as BatchNorm's running
        statistics, is written) and gives MXNet's message when it finds the mistake.
        Otherwise the kernel's own MXNetError stands, and a torch error becomes an
        MXNetError naming the operator and the input shapes."""
        if self.mode_dependent and "is_train" not in attrs:
            attrs = dict(attrs, is_train=_STATE.training)
        if self.lowering is not None or self.check is not None:
            try:
                self.check_inputs(attrs, tensors)
            except MXNetError as e:
                return e
            if self.check is not None and not isinstance(err, RuntimeError):
                return err  # the operator's own rule found nothing: its kernel's error stands
        if isinstance(err, MXNetError):
            return err
        if isinstance(err, (RuntimeError, ValueError, IndexError, TypeError)):
            return shape_error(self, attrs, tensors, err)
        return err

    def check_inputs(self, attrs, tensors):
        """Run the check rule on input tensors: MXNetError when they do not fit ``attrs``.

        Without a registered rule the implementation runs on meta tensors (shapes and
        dtypes, no data): it raises MXNet's errors where the implementation checks, and
        an operator that needs values cannot be checked this way (nothing is raised)."""
        if self.check is not None:
            self.check(attrs, tensors)
            return
        metas = [t if not isinstance(t, torch.Tensor) else torch.empty_like(t, device="meta") for t in tensors]
        try:
            with torch.no_grad():
                self.fn(*metas, **attrs)
        except MXNetError:
            raise
        except (RuntimeError, ValueError, IndexError, TypeError, NotImplementedError):
            return  # the meta run cannot tell (values needed, or torch's own check): the kernel's error stands


class Entry:
    """One cached call form of an operator: the raw attributes it was called with, the
    parsed attributes, the number of inputs they give, and the kernels (predict, train),
    made on first run (``kernel``: the one kernel of an operator that has no modes)."""
    __slots__ = ("raw", "attrs", "n", "kernels", "kernel", "run", "view", "into")

    def __init__(self, raw, attrs, n):
        self.raw = dict(raw)
        self.attrs = attrs
        self.n = n
        self.kernels = None
        self.kernel = None
        self.into = None  # the operator's ``into`` form for these attributes (False: none), once asked
        self.run = None  # Operator.call on exactly n arrays (set by Operator.new_entry)
        self.view = False  # results may be views of the inputs (see Operator.aliasing)

    def __repr__(self):
        return "<Entry %r>" % (self.attrs,)


def _fresh(kernel):
    """``kernel`` with its results copied: the imperative kernel of an aliasing operator."""
    def run(*tensors):
        res = kernel(*tensors)
        if type(res) is _Tensor:  # pylint: disable=unidiomatic-typecheck
            return res.clone()
        return type(res)(r.clone() for r in res)
    return run


_POSITIONAL = object()  # marks the keys of Operator.lookup
_new = object.__new__
_Tensor = torch.Tensor
_ARRAY = None  # the array type of Operator.call's results and how to wrap several (set_array_type)
_WRAP = None
_STORED = None  # storage rules' results (tensors, sparse storages) -> arrays (set_storage_wrap)


def set_array_type(array_type, wrap):
    """Called once by ``neogluon.ndarray``: the class of the arrays operators return (an
    array is an object holding a torch tensor as ``_t``) and ``wrap(result, out)`` for
    results with several outputs or an ``out=`` array."""
    global _ARRAY, _WRAP  # pylint: disable=global-statement
    _ARRAY, _WRAP = array_type, wrap
    _ACTIVE.array = array_type
    _ACTIVE.dense = None if _ACTIVE.count else array_type
    _BINDERS.clear()


def set_storage_wrap(wrap):
    """Called once by ``neogluon.ndarray.sparse``: ``wrap(result)`` makes arrays of what a
    storage rule returns (a dense tensor, a sparse storage, or a tuple of them)."""
    global _STORED  # pylint: disable=global-statement
    _STORED = wrap


# ``entry.run``: Operator.call's steps for one entry on its own number of arrays, bound once
# (the entry's kernel, its attributes), so that a call is one Python frame over the kernel.
# One template, generated per input count as the mx.nd functions are (see ndarray/register.py).
_HOOK = """
    if _ACTIVE.count:  # 1. the tracing hook (only a program that traces reads the thread's)
        _hook = _TRACING.hook
        if _hook is not None:
            return _hook(_op, ({args},), _entry.raw, None)"""
_RUN_BODY = """{hook}
    try:
        {ts} = {get}
    except AttributeError:  # an input that is not an array: the general path explains it
        return _op._general(_entry, ({args},), None)
    if ({grad}) and not _STATE.recording:  # 3. the recording rule
        {ts} = {detach}{result}"""
_KERNEL = """
    try:  # 4. the kernel; a failure explained by the check rule
        {target} = {call}
    except Exception as _err:  # pylint: disable=broad-except
        raise _op.explain(_entry.attrs, [{ts}], _err) from None"""
# a kernel known to give one tensor: it goes straight into the new array
# (a result of arrays on ``cpu(k)``, k > 0, reports ``cpu(k)``: see :func:`placed_like`)
_PLACED = """
    if _Context.several_cpus:
        return _placed_like({res}, ({args},))"""
_ONE_RESULT = """
    _arr = _new(_ARRAY)""" + _KERNEL.format(target="_arr._t", call="{call}", ts="{ts}") + _PLACED.format(
    res="_arr", args="{args}") + """
    return _arr"""
_ANY_RESULT = _KERNEL.format(target="_res", call="{call}", ts="{ts}") + """
    if _res.__class__ is _Tensor:  # a tensor (no type() call), else several outputs
        _arr = _new(_ARRAY)
        _arr._t = _res""" + _PLACED.format(res="_arr", args="{args}").replace("\n    ", "\n        ") + """
        return _arr""" + _PLACED.format(res="_WRAP(_res, None)", args="{args}") + """
    return _WRAP(_res, None)"""


def placed_like(res, inputs, entry=None):
    """``res`` (an array or a list of them) reporting the context MXNet gives an operator's
    results: the first input's, when it is a CPU context the input holds (``cpu(k)``: torch has
    one CPU, the Context lives in the array's ``_ctx``, see ``ndarray.placed``), or for an operator
    without inputs the ``ctx`` attribute it was called with (``mx.np.ones(..., ctx=cpu(1))``).
    Results of ``cpu_shared``/``cpu_pinned`` inputs are ``cpu(0)``, as MXNet's. Only called
    once a ``cpu(k)`` exists (``Context.several_cpus``)."""
    ctx = getattr(inputs[0], "_ctx", None) if inputs else None
    if ctx is None and not inputs and entry is not None:
        name = entry.attrs.get("ctx") if isinstance(entry.attrs, dict) else None
        if isinstance(name, str) and name.startswith("cpu(") and name != "cpu(0)":
            ctx = _as_context(name)
    if ctx is None or ctx.device_type != "cpu":  # (an input's cpu(0) too: not the ``with`` block's)
        return res
    for r in (res if res.__class__ is list or res.__class__ is tuple else (res,)):
        try:
            r._ctx = ctx  # pylint: disable=protected-access
        except AttributeError:  # a result that is not an array (a shape, a number)
            pass
    return res


def run_source(args, indent="    ", kernel="_kernel", one=False, op="_op", entry="_entry", call=None,
               traced=True):
    """The source of :meth:`Operator.call`'s steps 1, 3 and 4 on the arrays named ``args``
    for the entry ``_entry`` of the operator ``_op``, with the kernel ``kernel`` (an
    expression of the tensors' names ``_t0``, ...): the one template every call site's
    code is generated from (``entry.run``, the mx.nd functions, ``x[key]``, ``x.reshape``).
    ``one``: the kernel is known to give one tensor; ``op`` and ``entry``: other names for
    ``_op`` and ``_entry`` (``entry`` may be an expression: it is only evaluated when the
    call is traced or fails); ``call``: the kernel's call itself, an expression of ``_t0``,
    ... (``x[a:b]``'s ``_t0[key]``, the same for every key), instead of
    ``kernel(_t0, ...)``; ``traced=False``: the site has already sent every call made
    while a thread traces elsewhere (it tested ``x.__class__ is _ACTIVE.dense``). Its names (see :func:`run_scope`) start with an underscore, so
    they never meet an operator's argument names."""
    ts = ["_t%d" % i for i in range(len(args))]
    result = (_ONE_RESULT if one else _ANY_RESULT).format(
        call=call or "%s(%s)" % (kernel, ", ".join(ts)), ts=", ".join(ts), args=", ".join(args))
    src = _RUN_BODY.format(
        hook=_HOOK.format(args=", ".join(args)) if traced else "", args=", ".join(args), ts=", ".join(ts), get=", ".join("%s._t" % x for x in args),
        grad=" or ".join("%s.requires_grad" % t for t in ts), detach=", ".join("%s.detach()" % t for t in ts),
        result=result)
    src = src.replace("_op.", op + ".").replace("(_op,", "(%s," % op).replace("_entry.", entry + ".")
    src = src.replace("(_entry,", "(%s," % entry)
    return src.replace("\n    ", "\n" + indent)


def run_scope():
    """The globals :func:`run_source`'s code reads (call after :func:`set_array_type`)."""
    return {"_ACTIVE": _ACTIVE, "_TRACING": _TRACING, "_STATE": _STATE, "_Tensor": _Tensor, "_type": type,
            "_new": _new, "_ARRAY": _ARRAY, "_WRAP": _WRAP, "_Context": _Context, "_placed_like": placed_like}


_BINDERS = {}  # (input count, mode-dependent, same-dtype kernel, one result) -> bind


def same_dtype_kernel(op, n):
    """The kernel expression of :func:`run_source` for ``op`` on ``n`` inputs: its
    ``same_dtype_kernel`` (``_fast``) when the two dtypes are the same, else ``_kernel``."""
    if n == 2 and op.same_dtype_kernel is not None and op.lowering is None and not op.mode_dependent:
        return "(_fast if _t0.dtype is _t1.dtype else _kernel)"
    return None


def _bind(op, entry, one=False):
    """The function running ``op`` for ``entry`` on ``entry.n`` arrays (``entry.run``);
    ``one``: the kernel is known to give one tensor (see ``Operator._first_run``). An
    operator with a storage rule first asks it when an input is sparse (after the tracing
    hook); the others pay nothing for sparse storage."""
    run = _bind_dense(op, entry, one)
    if op.storage is None:
        return run

    def run_stored(*inputs):
        if not (_ACTIVE.count and _TRACING.hook is not None) and (op.storage_dense or _has_sparse(inputs)):
            res = op._storage_call(entry, inputs, None)  # pylint: disable=protected-access
            if res is not None:
                return res
        return run(*inputs)
    return run_stored


def _bind_dense(op, entry, one):
    """:func:`_bind`'s function for dense arrays: :func:`run_source`'s template for the
    entry's input count."""
    n = entry.n
    if not 1 <= n <= 3:
        return functools.partial(_run_list, op, entry)
    fast = same_dtype_kernel(op, n)
    key = (n, op.mode_dependent, fast is not None, one)
    binder = _BINDERS.get(key)
    if binder is None:
        kernel = "_kernels[_STATE.training]" if op.mode_dependent else fast or "_kernel"
        args = ["x%d" % i for i in range(n)]
        src = "def bind(_op, _entry, _kernel, _kernels, _fast):\n    def run(%s):%s\n    return run\n" % (
            ", ".join(args), run_source(args, "        ", kernel, one))
        scope = run_scope()
        exec(compile(src, "<neogluon.operator.run%d>" % n, "exec"), scope)  # pylint: disable=exec-used
        binder = _BINDERS[key] = scope["bind"]
    return binder(op, entry, entry.kernel, entry.kernels, op.same_dtype_kernel)


def _run_list(op, entry, *inputs):
    """``entry.run`` for an operator without inputs or with more than three."""
    return op._general(entry, inputs, None)  # pylint: disable=protected-access


def _has_sparse(inputs):
    """Whether an input of a call is a sparse array (``_sparse``, a class attribute)."""
    try:
        for x in inputs:
            if x._sparse:
                return True
    except AttributeError:  # None or a non-array: the general path explains it
        return any(getattr(x, "_sparse", False) for x in inputs)
    return False


_REGISTRY = {}


def register(name, **schema):
    """Decorator: register ``fn`` as the torch implementation of MXNet operator ``name``.

    ``aliases=[...]`` registers further names for the same operator (``Reshape``/``reshape``)."""
    aliases = schema.pop("aliases", ())

    def deco(fn):
        register_operator(Operator(name, fn, **schema), aliases)
        return fn
    return deco


def register_operator(op, aliases=()):
    """Register an Operator built by the caller (a subclass with its own attribute rules,
    such as ``Custom``), under its name and ``aliases``."""
    _add(op.name, op)
    for a in aliases:
        alias(a, op)
    return op


def lowering(name):
    """Decorator: register a lowering for operator ``name`` (see :meth:`Operator.lower`).

    The decorated factory takes the parsed attributes as keywords and returns a function
    of the input tensors, or None to keep the generic implementation for those attributes.
    neogluon's own operators no longer use it: an operator whose kernel factory is its
    implementation registers with :func:`implementation` and a :func:`check_rule`."""
    def deco(factory):
        get(name).lowering = factory
        return factory
    return deco


def implementation(name, **schema):
    """Decorator: register MXNet operator ``name`` whose one implementation is the decorated
    kernel factory: ``factory(**attrs)`` gives the function of the input tensors (the
    attribute work done once, as a lowering does); the argument and shape checks live in
    its check rule (:func:`check_rule`), registered beside it. Takes :func:`register`'s
    keywords (``aliases``, ``params``, ...)."""
    aliases = schema.pop("aliases", ())

    def deco(factory):
        op = Operator(name, None, **dict(schema, doc=schema.get("doc", factory.__doc__ or "")))
        op.lowering = factory
        register_operator(op, aliases)
        return factory
    return deco


def into_kernel(name):
    """Decorator: register the form of operator ``name``'s kernel that writes its result into a
    given tensor (see :meth:`Operator.write_into`): ``factory(**attrs)`` -> ``fn(out,
    *tensors)`` returning True once it wrote the values the kernel gives, False (before
    writing anything) for a case it leaves to the kernel; or None for attributes without one."""
    def deco(factory):
        get(name).into = factory
        return factory
    return deco


def check_rule(name):
    """Decorator: register the check rule of operator ``name``: ``(attrs, input tensors)
    -> None``, raising MXNetError with MXNet's message when the inputs do not fit. It runs
    when a kernel fails (see :meth:`Operator.explain`); without one the implementation
    is run on meta tensors instead. Equivalent to ``register(..., check=rule)``."""
    def deco(rule):
        get(name).check = rule
        return rule
    return deco


def storage_rule(name, dense=False):
    """Decorator: register the storage rule of operator ``name`` (MXNet's
    FInferStorageType with its sparse FComputeEx): ``(attrs, input arrays, out) -> result``
    on the storage MXNet gives (``out`` itself when the rule wrote into it, as an in-place
    optimizer update does), or None to run the dense kernel. It is asked when an
    input is sparse; with ``dense=True`` on every call (an operator whose attributes
    choose the output storage, as cast_storage)."""
    def deco(rule):
        op = get(name)
        op.storage, op.storage_dense = rule, dense
        return rule
    return deco


class NotCovered(Exception):
    """Raised by a shape rule for a case it leaves to the meta run (unusual attributes, an
    error to explain in MXNet's words)."""


def require(condition):
    """In a shape rule: NotCovered unless ``condition`` holds."""
    if not condition:
        raise NotCovered()


def same_shape(attrs, shapes):
    """The shape rule of an operator with one output of the data's shape (a norm only
    without its mean/var outputs)."""
    require(not attrs.get("output_mean_var"))
    return [shapes[0]]


def shape_rule(name):
    """Decorator: register a forward shape rule for operator ``name``: ``(attrs, input
    shapes) -> visible output shapes``, used by graph inference instead of running the
    operator on meta tensors; a rule lives beside its operator and raises NotCovered (``require``)
    for a case it leaves to the meta run."""
    def deco(rule):
        get(name).infer_shape_fn = rule
        return rule
    return deco


_LISTENERS = []  # functions (name, op) told of every registration: mx.nd and mx.sym generate theirs


def on_register(listener):
    """Call ``listener(name, op)`` for every operator name registered from now on (after
    import, too: an operator registered late still gets its mx.nd and mx.sym functions)."""
    _LISTENERS.append(listener)


def _add(name, op):
    if name in _REGISTRY:
        raise MXNetError("operator %s is registered twice" % name)
    _REGISTRY[name] = op
    for listener in _LISTENERS:
        listener(name, op)


def alias(name, op):
    """Make ``name`` another name of ``op`` (an Operator or a registered name)."""
    if isinstance(op, str):
        op = _REGISTRY[op]
    _add(name, op)
    op.aliases.append(name)


def get(name):
    """The Operator registered under ``name``; MXNetError naming it when there is none."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise MXNetError("Cannot find operator '%s': it is not an MXNet 1.9.1 operator known to neogluon"
                         % name) from None


def exists(name):
    return name in _REGISTRY


def list_operators():
    """All registered names (canonical names and aliases)."""
    return sorted(_REGISTRY)


def items():
    return _REGISTRY.items()


# ----------------------------------------------------------------------------- helpers for implementations
def shape_error(op, attrs, tensors, err):
    names = op.input_names(attrs)
    parts = []
    for i, t in enumerate(tensors):
        nm = names[i] if i < len(names) else "arg%d" % i
        if t is None:
            continue
        parts.append("%s%s" % (nm, tuple(t.shape) if isinstance(t, torch.Tensor) or hasattr(t, "stype") else ""))
    return MXNetError("Error in operator %s: %s (inputs: %s)" % (op.name, str(err).split("\n")[0], ", ".join(parts)))
