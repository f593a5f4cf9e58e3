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

import numpy as np
import torch

from ..base import MXNetError, _Null, np_dtype

__all__ = ["Attr", "Int", "Float", "Bool", "Shape", "Str", "Dtype", "Any", "REQUIRED",
           "Operator", "register", "register_operator", "lowering", "shape_rule", "get", "exists", "list_operators", "alias"]


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
                 signature=None, doc=None, infer_inputs=None):
        self.name = name
        self.fn = fn
        self.params = dict(params or {})
        for pname, p in self.params.items():
            p.name = pname
        self.param_names = tuple(self.params)
        self.variadic = variadic          # name of the count attribute ('num_args') or None
        # a variadic op with callable inputs names its own (UpSampling: data, weight when bilinear)
        self._named_variadic = variadic is not None and callable(inputs)
        self._inputs = _static(tuple(inputs)) if not callable(inputs) else inputs
        self._aux = _static(tuple(aux)) if not callable(aux) else aux
        self._num_outputs = _static(num_outputs)
        self._num_visible = _static(num_visible_outputs) if num_visible_outputs is not None else self._num_outputs
        self._output_names = output_names
        self.infer_args = infer_args      # (attrs, in_shapes) -> in_shapes with unknowns filled
        self.infer_inputs = infer_inputs  # (attrs, in_shapes, out_shapes) -> in_shapes, from known outputs
        self.infer_shape_fn = infer_shape  # (attrs, in_shapes) -> out_shapes, instead of a meta run
        self.infer_type_fn = infer_type
        self.mode_dependent = mode_dependent
        self.differentiable = differentiable
        self._signature = tuple(signature) if signature is not None else None
        self.aliases = []
        self.doc = doc if doc is not None else (fn.__doc__ or "")
        self.lowering = None              # attrs -> function of tensors, see lower()
        self._cache = {}
        self._defaults = {k: p.default for k, p in self.params.items() if not p.required}
        # fast paths for imperative calls: the attributes of a call with no keywords (None
        # when some attribute is required) and the input count when it never varies
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
        MXNet does, naming the operator and listing its arguments."""
        try:
            key = tuple(kwargs.items())
            hit = self._cache.get(key)
            if hit is not None:
                return hit
        except TypeError:
            key = None
        attrs = dict(self._defaults)
        for k, v in kwargs.items():
            if v is _Null:
                continue
            p = self.params.get(k)
            if p is None:
                if k.startswith("__") and k.endswith("__"):
                    continue  # symbol attributes such as __layout__, __init__
                raise MXNetError("Cannot find argument '%s', Possible Arguments:\n----------------\n%s\n, in operator %s"
                                 % (k, self.describe_params(), self.call_repr(kwargs)))
            try:
                attrs[k] = p.parse(v)
            except (ValueError, SyntaxError, TypeError) as e:
                raise MXNetError("Invalid Parameter format for %s expect %s but value='%s' (%s), in operator %s"
                                 % (k, p.type_name, v, e, self.call_repr(kwargs))) from None
        if len(attrs) < len(self.params):
            for k, p in self.params.items():
                if k not in attrs:
                    raise MXNetError("Required parameter %s of %s is not presented, in operator %s"
                                     % (k, p.type_name, self.call_repr(kwargs)))
        if key is not None and len(self._cache) < 4096:
            self._cache[key] = attrs
        return attrs

    def lowered(self, kwargs):
        """(parsed attributes, lowered function or None, number of inputs) for a call's
        keywords: what mx.nd's generated functions run on their fast path (they keep it,
        by their attribute arguments)."""
        attrs = self.parse_attrs(kwargs)
        return attrs, self.lower(attrs), len(self.input_names(attrs))

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

        A lowering does the attribute work (geometry, layouts, kernel choice) once, at
        graph-compile time, and leaves per-call checks to torch: the graph executor runs
        lowered functions and re-runs the checked implementation only to explain a failure."""
        if self.lowering is None:
            return None
        return self.lowering(**attrs)

    def __call__(self, *tensors, **attrs):
        """Run the torch implementation on tensors with parsed attributes."""
        return self.fn(*tensors, **attrs)


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
    of the input tensors, or None to keep the generic implementation for those attributes."""
    def deco(factory):
        get(name).lowering = factory
        return factory
    return deco


def shape_rule(name):
    """Decorator: register a forward shape rule for operator ``name``: ``(attrs, input
    shapes) -> visible output shapes``, used by graph inference instead of running the
    operator on meta tensors (see ``shapes.py``)."""
    def deco(rule):
        get(name).infer_shape_fn = rule
        return rule
    return deco


def _add(name, op):
    if name in _REGISTRY:
        raise MXNetError("operator %s is registered twice" % name)
    _REGISTRY[name] = op


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
def run_checked(op, attrs, tensors, fn=None):
    """Call an implementation, turning a torch error into MXNetError naming the op and shapes."""
    try:
        return (fn or op.fn)(*tensors, **attrs)
    except MXNetError:
        raise
    except (RuntimeError, ValueError, IndexError, TypeError) as e:
        raise shape_error(op, attrs, tensors, e) from None


def shape_error(op, attrs, tensors, err):
    names = op.input_names(attrs)
    parts = []
    for i, t in enumerate(tensors):
        nm = names[i] if i < len(names) else "arg%d" % i
        if t is None:
            continue
        parts.append("%s%s" % (nm, tuple(t.shape) if isinstance(t, torch.Tensor) else ""))
    return MXNetError("Error in operator %s: %s (inputs: %s)" % (op.name, str(err).split("\n")[0], ", ".join(parts)))
