"""``mx.np``'s hot call sites generated from the registry's one template.

``a + b``, ``a * 2``, ``np.exp(a)``, ``a.sum()`` and ``a[i]``/``a[i:j]`` run
:meth:`Operator.call`'s steps (the tracing hook, the recording rule, the kernel, its
explained failure) in their own frame, as ``mx.nd``'s functions and ``NDArray``'s dunders
do: the source is ``registry.run_source``'s, compiled with ``mx.np.ndarray`` as the result
type, so a call does no more Python work than the ``mx.nd`` one (no re-typing of the
result, no second frame). Anything the generated site does not cover (``out=``, keyword
attributes, a NumPy scalar, a list, a Symbol, a subclass) goes to the general function it
replaces, which ends in the same ``Operator.call``.

The dtype work is the operators' own (``operator/numpy_elemwise.py``): two arrays of one
dtype run the torch function directly (``same_dtype_kernel``), others are promoted by the
precomputed table there.
"""
from ..ndarray import NDArray
from ..operator import registry
from .multiarray import ndarray, as_np

__all__ = ["binary_method", "unary_function", "reduce_function", "getitem_method"]

_POS = registry._POSITIONAL  # pylint: disable=protected-access


def _scope(**names):
    """The template's globals with ``mx.np.ndarray`` results (several outputs re-typed too)."""
    scope = registry.run_scope()
    wrap = scope["_WRAP"]
    scope.update(_ARRAY=ndarray, _WRAP=lambda res, out: as_np(wrap(res, out)), _NP=ndarray, _ND=NDArray,
                 _POS=_POS, **names)
    return scope


def _compile(src, name, scope):
    exec(compile(src, "<neogluon.numpy.%s>" % name, "exec"), scope)  # pylint: disable=exec-used
    return scope[name]


def _array_kernel(op, prefix):
    """The kernel expression for two arrays: the same-dtype torch function when there is one."""
    expr = registry.same_dtype_kernel(op, 2) or "_kernel"
    return expr.replace("_fast", prefix + "fast").replace("_kernel", prefix + "kernel")


def _entry_kernel(op, entry):
    return (entry.kernels or op._build(entry))[0]  # pylint: disable=protected-access


_BINARY_SOURCE = '''
def method(x0, x1):
    cls = x1.__class__
    if cls is _NP or cls is _ND:
        if x0.__class__ is _NP:{array}
    elif cls is float or cls is int:
        if x0.__class__ is _NP:
            _entry = _sentries.get((_POS, float(x1), cls is int)) or _sop.lookup((float(x1), cls is int))
            _kernel = _entry.kernel or _sop._mode_kernel(_entry){scalar}
    return _method(x0, x1)
'''


def binary_method(name, op, scalar_op, general, reflected=False):
    """``ndarray.__<name>__``: ``op`` for two arrays (``x1 <op> x0`` when ``reflected``),
    ``scalar_op``'s entry for a Python number; ``general(x0, x1)`` for anything else."""
    aop, sop = registry.get(op), registry.get(scalar_op)
    aentry = aop.entry({})
    args = ["x1", "x0"] if reflected else ["x0", "x1"]
    src = _BINARY_SOURCE.format(
        array=registry.run_source(args, "            ", _array_kernel(aop, "_a"), True, "_aop", "_aentry"),
        scalar=registry.run_source(["x0"], "            ", op="_sop"))
    scope = _scope(_aop=aop, _aentry=aentry, _akernel=_entry_kernel(aop, aentry), _afast=aop.same_dtype_kernel,
                   _sop=sop, _sentries=sop._entries, _method=general)  # pylint: disable=protected-access
    fn = _compile(src, "method", scope)
    fn.__name__ = fn.__qualname__ = "__%s__" % name
    fn.__doc__ = "``%s`` (operator %s, or %s with a number)." % (
        "y %s x" % name if reflected else "x %s y" % name, op, scalar_op)
    return fn


_UNARY_SOURCE = '''
def fn(x, out=None, **kwargs):
    if x.__class__ is _NP and out is None and not kwargs:
        _x = x{run}
    return _general(x, out, **kwargs)
'''


def unary_function(op, general):
    """``np.<name>(x)``: the operator's plain entry on an array; ``general`` otherwise."""
    uop = registry.get(op)
    entry = uop.entry({})
    fast = getattr(uop.fn, "float_kernel", None)  # the torch function for a floating-point input
    kernel = "(_fast if _t0.is_floating_point() else _kernel)" if fast is not None else "_kernel"
    src = _UNARY_SOURCE.format(run=registry.run_source(["_x"], "        ", kernel, True))
    return _compile(src, "fn", _scope(_op=uop, _entry=entry, _kernel=_entry_kernel(uop, entry), _fast=fast,
                                      _general=general))


_REDUCE_SOURCE = '''
def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    if a.__class__ is _NP and axis is None and dtype is None and out is None and initial is None \\
            and keepdims is False:{run}
    return _general(a, axis, dtype, out, keepdims, initial)
'''


def reduce_function(op, general):
    """``np.<name>(a)``/``a.<name>()`` over all axes: the operator's plain entry (a 0-d
    array); ``general`` for any argument."""
    rop = registry.get(op)
    entry = rop.entry({})
    kernel = _entry_kernel(rop, entry)
    fast = getattr(kernel, "float_kernel", None)  # the torch function for a floating-point input
    src = _REDUCE_SOURCE.format(run=registry.run_source(
        ["a"], "        ", "(_fast if _t0.is_floating_point() else _kernel)" if fast is not None else "_kernel", True))
    return _compile(src, "fn", _scope(_op=rop, _entry=entry, _kernel=kernel, _fast=fast, _general=general))


_GETITEM_SOURCE = '''
def __getitem__(self, key):
    if self.__class__ is _NP:
        cls = key.__class__
        if cls is int:
            _entry = _entries.get(key) or _op.keyed(key, dict(key=key))
        elif cls is slice and key.step is None:
            try:
                _key = (key.start, key.stop)
                _entry = _entries.get(_key) or _op.keyed(_key, dict(key=key))
            except TypeError:  # an array as a bound
                return _general(self, key)
        else:
            return _general(self, key)
        _kernel = _entry.kernel or _op._mode_kernel(_entry){run}
    return _general(self, key)
'''


def getitem_method(op, general):
    """``x[i]``/``x[a:b]``: the entry cached under the int or ``(a, b)`` (``Operator.keyed``);
    the general method for any other key."""
    src = _GETITEM_SOURCE.format(run=registry.run_source(["self"], "        ", "_kernel", True))
    fn = _compile(src, "__getitem__", _scope(_op=op, _entries=op._entries, _general=general))  # pylint: disable=protected-access
    fn.__doc__ = general.__doc__
    return fn


def install(namespace):
    """Replace ``mx.np``'s general call sites (in ``namespace``, ``mx.np``'s globals, and on
    ``ndarray``) by the generated ones, each falling back to the one it replaces."""
    from . import multiarray
    for name, (op, scalar, rscalar) in multiarray.ARITHMETIC.items():
        for dunder, sop, refl in (("__%s__" % name, scalar, False), ("__r%s__" % name, rscalar, True)):
            setattr(ndarray, dunder, binary_method(("r" if refl else "") + name, op, sop,
                                                   getattr(ndarray, dunder), refl))
    for name, (op, scalar) in multiarray.COMPARISONS.items():
        setattr(ndarray, "__%s__" % name, binary_method(name, op, scalar, getattr(ndarray, "__%s__" % name)))
    ndarray.__div__, ndarray.__rdiv__ = ndarray.__truediv__, ndarray.__rtruediv__
    ndarray.__getitem__ = getitem_method(multiarray._GETITEM, ndarray.__getitem__)  # pylint: disable=protected-access
    generated = {}  # general function -> its generated site
    for name in UNARY:
        fn = generated[namespace[name]] = unary_function("_npi_" + name, namespace[name])
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = namespace[name].__doc__
    for name, op in REDUCTIONS.items():
        fn = generated[namespace[name]] = reduce_function(op, namespace[name])
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = namespace[name].__doc__
    for table in (namespace, ndarray.__dict__):  # every name of the general function (abs, deg2rad, ...)
        for name, value in list(table.items()):
            if callable(value) and value in generated:
                if table is namespace:
                    namespace[name] = generated[value]
                else:
                    setattr(ndarray, name, generated[value])

UNARY = ("exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "arcsin",
         "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "degrees", "radians",
         "reciprocal", "absolute", "negative", "sign", "square", "ceil", "floor", "trunc", "rint", "fix",
         "logical_not")
REDUCTIONS = {"sum": "_np_sum", "prod": "_np_prod", "mean": "_npi_mean"}
