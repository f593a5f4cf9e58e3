"""Generate the ``mx.nd.<op>`` functions from the operator registry.

Each function has MXNet's signature (inputs as keywords defaulting to None, attributes
defaulting to ``_Null``, then ``out=None, name=None, **kwargs``; variadic operators take
``*data`` and fill in ``num_args``). With ``symbolic=True`` (``mx.sym``) the function also
takes ``attr=None`` and calls ``invoke(op, inputs, kwargs, name, attr, fname)`` instead of
``invoke(op, inputs, kwargs, out)``: a symbol needs its name, attributes and naming hint.
The source is generated and ``exec``-ed once, as torch.fx does; an imperative call finds
its parsed attributes and lowering by its raw attribute arguments and calls them straight
on the input tensors, so it costs one dict lookup and the torch kernel.
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
        # as MXNet's C API: the count attribute is the number of inputs unless given
        lines.append("    if %r not in kwargs: kwargs[%r] = len(data)" % (op.variadic, op.variadic))
        inputs = "data"
    else:
        names = op.all_input_names()
        sig = ["%s=None" % n for n in names] + ["%s=_Null" % p for p in params] + tail
        inputs = "(%s)" % "".join("%s, " % n for n in names)
    counts = None if symbolic else _input_counts(op)
    if counts:
        lines += _lookup(params) + _fast_path(op.all_input_names(), counts)
    for p in params:
        lines.append("    if %s is not _Null: kwargs[%r] = %s" % (p, p, p))
    lines.append("    return _invoke(_op, %s, kwargs, %s)" % (inputs, call))
    return "def %s(%s):\n%s\n" % (fname, ", ".join(sig), "\n".join(lines))


def _lookup(params):
    """Source finding the call's (attributes, lowering, input count) by its raw attribute
    arguments (``_hits``), without building the keyword dict: ``hit`` is None for a call
    the fast path does not take (``out=``, unknown keywords, unhashable values)."""
    key = "(%s)" % "".join("%s, " % p for p in params)
    given = "(%s)" % "".join("(%r, %s), " % (p, p) for p in params)
    return ["    hit = None",
            "    if out is None and not kwargs:",
            "        try:",
            "            hit = _hits[%s]" % key,
            "        except KeyError:",
            "            hit = _fill(_op, _hits, %s, %s)" % (key, given),
            "        except TypeError:",
            "            pass"]


def _fill(op, hits, key, given):
    """Parse and lower a new attribute combination for ``_lookup`` and remember it."""
    attrs, low, n = hit = op.lowered({k: v for k, v in given if v is not _Null})
    if low is None and not attrs:  # nothing to bind: the implementation is its own lowering
        hit = attrs, op.fn, n
    if len(hits) < 4096:
        hits[key] = hit
    return hit


def _input_counts(op):
    """The input counts the imperative fast path handles: the operator's fixed arity, or
    for operators whose inputs depend on attributes (FullyConnected's bias, Convolution's)
    every count up to their signature's; None when it has no fast path."""
    if op.mode_dependent or op.variadic:
        return None
    if op.arity is not None:
        return [op.arity] if 0 < op.arity <= 4 else None
    n = len(op.all_input_names())
    return list(range(n, 0, -1)) if 0 < n <= 4 else None


def _fast_path(names, counts):
    """Source of the imperative fast path: the implementation (or its lowering for these
    attributes, see Operator.lower) called straight on the input tensors. With several
    possible input counts, one branch per count takes the first inputs (the rest must be
    None). Anything unusual (a non-NDArray input, an error to explain) falls through to
    the checked ``invoke``."""
    lines = ["    if hit is not None:",
             "        attrs, low, n = hit",
             "        try:"]
    for n in counts:
        ts = ["t%d" % i for i in range(n)]
        pad = "            "
        if len(counts) > 1:
            lines.append(pad + "if n == %d%s:" % (n, "".join(" and %s is None" % m for m in names[n:])))
            pad += "    "
        lines += [
            pad + "%s, = %s," % (", ".join(ts), ", ".join("%s._t" % m for m in names[:n])),
            pad + "if (%s) and not _STATE.recording:" % " or ".join("%s.requires_grad" % t for t in ts),
            pad + "    %s, = %s," % (", ".join(ts), ", ".join("%s.detach()" % t for t in ts)),
            pad + "r = low(%s) if low is not None else _op.fn(%s, **attrs)" % (", ".join(ts), ", ".join(ts)),
            pad + "if type(r) is not _Tensor:",
            pad + "    return [_NDArray(x) for x in r]",
            pad + "res = _new(_NDArray)  # NDArray(r) without the __init__ call",
            pad + "res._t = r",
            pad + "return res",
        ]
    lines += ["        except Exception:  # pylint: disable=broad-except",
              "            pass  # a non-NDArray input or an error: the checked invoke explains it"]
    return lines


def make_function(op, fname, invoke, symbolic=False):
    """The Python function ``mx.nd.<fname>`` (or, with ``symbolic``, ``mx.sym.<fname>``) for ``op``."""
    src = _source(op, fname, symbolic)
    from .ndarray import NDArray, _STATE
    scope = {"_Null": _Null, "_op": op, "_invoke": invoke, "_NDArray": NDArray, "_STATE": _STATE,
             "_Tensor": torch.Tensor, "_hits": {}, "_fill": _fill, "_new": object.__new__}
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
