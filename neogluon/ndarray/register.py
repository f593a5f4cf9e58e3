"""Generate the ``mx.nd.<op>`` and ``mx.sym.<op>`` functions from the operator registry.

Each function has MXNet's signature (inputs as keywords defaulting to None, attributes
defaulting to ``_Null``, then ``out=None, name=None, **kwargs``; variadic operators take
``*data`` and fill in ``num_args``) and its body is one call of ``Operator.call``. An
imperative call finds its cache entry by its raw attribute arguments, by position
(``Operator.lookup``: one dict lookup, no keyword dict built); any other call (unknown
keywords, unhashable values) passes its keywords. With ``symbolic=True`` (``mx.sym``)
the function also takes ``attr=None`` and gives ``Operator.call`` the symbol composer as
its tracing hook (a symbol needs its name, attributes and naming hint).
The source is generated and ``exec``-ed once, as torch.fx does.
"""
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
    if op.variadic:
        sig = ["*data"] + ["%s=_Null" % p for p in params] + tail
        # as MXNet's C API: the count attribute is the number of inputs unless given
        lines.append("    if %r not in kwargs: kwargs[%r] = len(data)" % (op.variadic, op.variadic))
        inputs = "data"
    else:
        names = op.all_input_names()
        sig = ["%s=None" % n for n in names] + ["%s=_Null" % p for p in params] + tail
        inputs = "(%s)" % "".join("%s, " % n for n in names)
    if symbolic:
        for p in params:
            lines.append("    if %s is not _Null: kwargs[%r] = %s" % (p, p, p))
        lines.append("    return _op.call(%s, kwargs, out, None, _compose(name, attr, %r))" % (inputs, fname))
    else:
        keywords = ["    if %s is not _Null: kwargs[%r] = %s" % (p, p, p) for p in params]
        keywords.append("    return _op.call(%s, kwargs, out)" % inputs)
        if not op.variadic:
            stored = op.storage is not None and ("always" if op.storage_dense else True)
            lines += _lookup(params, op.all_input_names(), op.arity is not None, stored, op.one_output, keywords)
        lines += keywords
    return "def %s(%s):\n%s\n" % (fname, ", ".join(sig), "\n".join(lines))


def _lookup(params, names, op_fixed=True, stored=False, one=False, keywords=()):
    """Source finding the call's cache entry by its raw attribute arguments, by position,
    without building the keyword dict (see ``Operator.lookup``), then running it: the
    steps of ``Operator.call`` from the registry's one template (``registry.run_source``),
    in this function's frame (also without an optional last input when ``op_fixed`` is
    false: the inputs depend on the attributes, as a layer's bias). With ``stored`` (an
    operator with a storage rule), sparse inputs take ``Operator.call``, which asks it.
    With ``one`` (an operator with one output whatever its attributes), the kernel's
    tensor goes straight into the new array, untested. ``keywords``: the source lines of
    the keyword path, which an unhashable attribute value takes at once."""
    key = "(_POS, %s)" % "".join("%s, " % p for p in params) if params else "_KEY0"  # (_POS,), made once
    values = "(%s)" % "".join("%s, " % p for p in params)
    inputs = "(%s)" % "".join("%s, " % n for n in names)
    lines = ["    if not kwargs:",
            "        try:",
            "            _entry = _entries[%s]" % key,
            "        except KeyError:",
            "            _entry = _op.lookup(%s)" % values,
            "        except TypeError:  # an unhashable attribute value: the keyword path"]
    lines += ["        " + line for line in keywords]
    if not names:  # a creation operator: Operator.call's general path
        return lines + ["        return _op.call((), None, out, _entry)"]
    # a fixed-arity operator's entries all take len(names) inputs: no count to compare
    count = "" if op_fixed else " and _entry.n == %d" % len(names)
    lines += ["        if out is None%s%s:" % (count, _dense(names, stored)),
              "            _kernel = _entry.kernel or _op._mode_kernel(_entry)"
              + registry.run_source(list(names), "            ", one=one, traced=stored is not True)]
    if len(names) > 1 and not op_fixed:  # an optional last input left out (a layer without bias)
        lines += ["        if out is None and _entry.n == %d and %s is None%s:"
                  % (len(names) - 1, names[-1], _dense(names[:-1], stored)),
                  "            _kernel = _entry.kernel or _op._mode_kernel(_entry)"
                  + registry.run_source(list(names[:-1]), "            ", one=one, traced=stored is not True)]
    return lines + ["        return _op.call(%s, None, out, _entry)" % inputs]


def _dense(names, stored):
    """The condition (source) under which a call of an operator with a storage rule
    (``stored``; ``"always"`` when the rule is asked on every call, as cast_storage's)
    skips the rule: every input an exact NDArray (sparse arrays are subclasses of it) and
    no thread tracing (``_ACTIVE.dense`` is then None), so the site skips the tracing
    check too: the general path (``Operator.call``) runs both."""
    if not stored:
        return ""
    if stored == "always":
        return " and False"
    return "".join(" and %s.__class__ is _ACTIVE.dense" % n for n in names)


def make_function(op, fname, invoke=None, symbolic=False, *, compose=None):
    """The Python function ``mx.nd.<fname>`` for ``op``; with ``compose`` (a factory
    ``(name, attr, hint) -> tracing hook``), the function ``mx.sym.<fname>``.

    The earlier form ``make_function(op, fname, invoke)`` / ``(op, fname, create,
    symbolic=True)`` still works: ``invoke`` is not needed (``Operator.call`` runs the
    operator) and ``create`` becomes the composer."""
    if symbolic and compose is None:
        def compose(name, attr, hint, create=invoke):  # pylint: disable=function-redefined
            return lambda o, inputs, kwargs, out: create(o, inputs, kwargs, name, attr, hint)
    src = _source(op, fname, compose is not None)
    scope = dict(registry.run_scope(), _Null=_Null, _op=op, _entries=op._entries, _POS=registry._POSITIONAL,
                 _KEY0=(registry._POSITIONAL,), _compose=compose)
    exec(compile(src, "<neogluon.%s>" % fname, "exec"), scope)  # pylint: disable=exec-used
    fn = scope[fname]
    fn.__doc__ = "%s\n\nParameters\n----------\n%s\n" % (op.doc.strip(), op.describe_params())
    return fn


def populate(module_dict, submodules, invoke=None):  # pylint: disable=unused-argument
    """Put a function for every registered name into a namespace and its sub-namespaces,
    now and for operators registered later.

    Names already in the namespace (hand-written helpers) are kept. Returns every
    generated function by its registered name (the dict grows with later registrations)."""
    made = {}

    def add(name, op):
        ns, short = namespace_of(name)
        fn = make_function(op, name if name.isidentifier() else "_generated")
        made[name] = fn
        module_dict.setdefault(name, fn)
        if ns is not None and ns in submodules:
            submodules[ns].__dict__.setdefault(short, fn)
        return fn
    for name, op in registry.items():
        add(name, op)
    registry.on_register(add)
    return made
