"""Generate the ``mx.nd.<op>`` functions from the operator registry.

Each function has MXNet's signature (inputs as keywords defaulting to None, attributes
defaulting to ``_Null``, then ``out=None, name=None, **kwargs``; variadic operators take
``*data`` and fill in ``num_args``). With ``symbolic=True`` (``mx.sym``) the function also
takes ``attr=None`` and calls ``invoke(op, inputs, kwargs, name, attr, fname)`` instead of
``invoke(op, inputs, kwargs, out)``: a symbol needs its name, attributes and naming hint.
The source is generated and ``exec``-ed once, as torch.fx does; for operators with a fixed
number of inputs it calls the implementation directly, so a call costs one attribute-dict
lookup and the torch kernel.
"""
import torch

from ..base import _Null
from ..operator import registry

# names under which MXNet exposes registry operators in sub-namespaces of mx.nd / mx.sym
NAMESPACE_PREFIXES = (("_contrib_", "contrib"), ("_linalg_", "linalg"), ("_random_", "random"),
                      ("_sample_", "random"), ("_image_", "image"), ("_sparse_", "sparse"))


def namespace_of(name):
    """('contrib', 'BilinearResize2D') for '_contrib_BilinearResize2D'; (None, name) otherwise."""
    for prefix, ns in NAMESPACE_PREFIXES:
        if name.startswith(prefix):
            return ns, name[len(prefix):]
    return None, name


def _source(op, fname, symbolic=False):
    params = [p for p in op.param_names if p != op.variadic]
    lines = []
    tail = ["out=None", "name=None", "attr=None", "**kwargs"] if symbolic else ["out=None", "name=None", "**kwargs"]
    call = "name, attr, %r" % fname if symbolic else "out"
    if op.variadic:
        sig = ["*data"] + ["%s=_Null" % p for p in params] + tail
        lines.append("    kwargs[%r] = len(data)" % op.variadic)
        inputs = "data"
    else:
        names = op.all_input_names()
        sig = ["%s=None" % n for n in names] + ["%s=_Null" % p for p in params] + tail
        inputs = "(%s)" % "".join("%s, " % n for n in names)
    for p in params:
        lines.append("    if %s is not _Null: kwargs[%r] = %s" % (p, p, p))
    if not symbolic and _has_fast_path(op):
        lines += _fast_path(op.all_input_names(), inputs)
    elif not symbolic and _has_dynamic_fast_path(op):
        lines += _dynamic_fast_path(op.all_input_names(), inputs)
    lines.append("    return _invoke(_op, %s, kwargs, %s)" % (inputs, call))
    return "def %s(%s):\n%s\n" % (fname, ", ".join(sig), "\n".join(lines))


def _has_fast_path(op):
    return op.arity is not None and 0 < op.arity <= 4 and not op.mode_dependent and not op.variadic


def _has_dynamic_fast_path(op):
    """Operators whose inputs depend on attributes (FullyConnected's bias, Convolution's)."""
    return (op.arity is None and not op.mode_dependent and not op.variadic
            and 0 < len(op.all_input_names()) <= 4)


def _dynamic_fast_path(names, inputs):
    """Like _fast_path, for operators whose input list depends on the attributes: one
    branch per possible input count, each taking the first inputs (the rest must be None)."""
    lines = ["    if out is None:",
             "        attrs, low, n = (not kwargs and _op.lowered_noargs) or _op.lowered(kwargs)",
             "        try:"]
    for n in range(len(names), 0, -1):
        ts = ["t%d" % i for i in range(n)]
        rest = "".join(" and %s is None" % m for m in names[n:])
        lines += [
            "            if n == %d%s:" % (n, rest),
            "                %s, = %s," % (", ".join(ts), ", ".join("%s._t" % m for m in names[:n])),
            "                if not _STATE.recording and (%s):" % " or ".join("%s.requires_grad" % t for t in ts),
            "                    %s, = %s," % (", ".join(ts), ", ".join("%s.detach()" % t for t in ts)),
            "                r = low(%s) if low is not None else _op.fn(%s, **attrs)" % (", ".join(ts), ", ".join(ts)),
            "                return _NDArray(r) if type(r) is _Tensor else [_NDArray(x) for x in r]",
        ]
    lines += ["        except Exception:  # pylint: disable=broad-except",
              "            pass  # a non-NDArray input or an error: the checked invoke explains it"]
    return lines


def _fast_path(names, inputs):
    """Source of the imperative fast path, for operators with a fixed number of inputs:
    the implementation (or its lowering for these attributes, see Operator.lower) is
    called straight from the generated function. Anything unusual
    (``out=``, a non-NDArray input, an error to explain) goes to the checked ``invoke``."""
    ts = ["t%d" % i for i in range(len(names))]
    grads = " or ".join("%s.requires_grad" % t for t in ts)
    return [
        "    if out is None:",
        "        try:",
        "            %s, = %s," % (", ".join(ts), ", ".join("%s._t" % n for n in names)),
        "        except AttributeError:",
        "            return _invoke(_op, %s, kwargs, out)" % inputs,
        "        if not _STATE.recording and (%s):" % grads,
        "            %s, = %s," % (", ".join(ts), ", ".join("%s.detach()" % t for t in ts)),
        "        attrs, low, _ = (not kwargs and _op.lowered_noargs) or _op.lowered(kwargs)",
        "        try:",
        "            r = low(%s) if low is not None else _op.fn(%s, **attrs)" % (", ".join(ts), ", ".join(ts)),
        "        except Exception:  # pylint: disable=broad-except",
        "            return _invoke(_op, %s, kwargs, out)  # re-run checked, for MXNet's error" % inputs,
        "        if type(r) is _Tensor:",
        "            return _NDArray(r)",
        "        return [_NDArray(x) for x in r]",
    ]


def make_function(op, fname, invoke, symbolic=False):
    """The Python function ``mx.nd.<fname>`` (or, with ``symbolic``, ``mx.sym.<fname>``) for ``op``."""
    src = _source(op, fname, symbolic)
    from .ndarray import NDArray, _STATE
    scope = {"_Null": _Null, "_op": op, "_invoke": invoke, "_NDArray": NDArray, "_STATE": _STATE,
             "_Tensor": torch.Tensor}
    exec(compile(src, "<neogluon.%s>" % fname, "exec"), scope)  # pylint: disable=exec-used
    fn = scope[fname]
    fn.__doc__ = "%s\n\nParameters\n----------\n%s\n" % (op.doc.strip(), op.describe_params())
    return fn


def populate(module_dict, submodules, invoke):
    """Put a function for every registered name into a namespace and its sub-namespaces.

    Names already in the namespace (hand-written helpers) are kept. Returns every
    generated function by its registered name."""
    made = {}
    for name, op in registry.items():
        ns, short = namespace_of(name)
        fn = make_function(op, name if name.isidentifier() else "_op", invoke)
        made[name] = fn
        module_dict.setdefault(name, fn)
        if ns is not None and ns in submodules:
            submodules[ns].__dict__.setdefault(short, fn)
    return made
