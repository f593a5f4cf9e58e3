"""``mx.sym.np._Symbol``: MXNet 1.9.1's symbol of the NumPy interface, and the wrapping that
makes ``mx.sym.np``/``mx.sym.npx`` thin frontends over ``mx.np``/``mx.npx``.

A ``_Symbol`` is a :class:`~neogluon.symbol.Symbol` whose arithmetic, ``x[key]``, ``x.T`` and
NumPy methods are those of MXNet's np symbols (``_npi_add``, ``slice`` + ``_npx_reshape``,
``_np_sum``, ...) whether or not ``npx.set_np()`` is on. The functions of ``mx.sym.np`` are
``mx.np``'s own, run so that every call makes a graph node (``Operator.call`` with a
composing hook, the one dispatch path), also for array makers without inputs
(``np.zeros``, ``np.random.uniform``); their results are ``_Symbol``.
"""
import functools
import types

from ...np_mode import FLAGS
from ..symbol import Symbol

__all__ = ["_Symbol", "symbolic", "frontend"]


class _Symbol(Symbol):
    """A symbol of MXNet's NumPy interface (``mx.sym.np._Symbol``)."""
    __slots__ = ()

    def as_nd_ndarray(self):
        """The same graph as a legacy Symbol."""
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        return self


def as_np_symbol(res):
    """Results re-typed as ``_Symbol`` (lists element-wise)."""
    if type(res) is Symbol:  # pylint: disable=unidiomatic-typecheck
        return _Symbol(res._outputs)  # pylint: disable=protected-access
    if isinstance(res, (list, tuple)):
        return type(res)(as_np_symbol(r) for r in res)
    return res


def symbolic(fn, name=None):
    """``fn`` (a function of ``mx.np``/``mx.npx``, or a Symbol method) run in NumPy mode with
    graph nodes for array makers, its results ``_Symbol``."""
    from ...numpy.multiarray import BUILDING

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        before = BUILDING.symbolic, FLAGS.array
        BUILDING.symbolic, FLAGS.array = True, True
        try:
            return as_np_symbol(fn(*args, **kwargs))
        finally:
            BUILDING.symbolic, FLAGS.array = before
    if name:
        wrapper.__name__ = wrapper.__qualname__ = name
    return wrapper


def frontend(namespace, module, mxnet_module):
    """Fill ``namespace`` (a symbolic module's globals) with ``module``'s names that MXNet's
    ``mxnet_module`` has: functions wrapped by :func:`symbolic`, constants and types as they
    are. Returns the names (the module's ``__all__``)."""
    from ... import _names
    info = _names.table()[mxnet_module]
    names = list(info["all"] or info["names"])
    done = []
    for name in names:
        obj = getattr(module, name, None)
        if obj is None or isinstance(obj, types.ModuleType):
            continue
        namespace[name] = symbolic(obj, name) if callable(obj) and not isinstance(obj, type) else obj
        done.append(name)
    return done


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__div__", "__rdiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__eq__", "__ne__",
              "__gt__", "__ge__", "__lt__", "__le__", "__getitem__", "reshape", "transpose", "sum", "mean", "prod",
              "max", "min", "flatten", "squeeze", "argmax", "argmin", "astype", "expand_dims", "clip", "swapaxes"):
    if hasattr(Symbol, _name):
        setattr(_Symbol, _name, symbolic(getattr(Symbol, _name), _name))
# the legacy Symbol's fluent methods that MXNet's _Symbol has not (it defines them to raise)
ABSENT = ("abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax_channel", "broadcast_axes",
          "broadcast_like", "broadcast_to", "cbrt", "ceil", "cos", "cosh", "degrees", "depth_to_space", "diag", "exp",
          "expand_dims", "expm1", "fix", "flip", "floor", "log", "log10", "log1p", "log2", "log_softmax", "nanprod",
          "nansum", "norm", "one_hot", "ones_like", "pad", "pick", "radians", "rcbrt", "reciprocal", "relu",
          "reshape_like", "rint", "rsqrt", "shape_array", "sigmoid", "sign", "sin", "sinh", "size_array", "slice",
          "slice_axis", "slice_like", "softmax", "softmin", "space_to_depth", "split", "split_v2", "sqrt", "square",
          "tan", "tanh", "tile", "topk", "trunc", "zeros_like")


def _absent(name):
    def method(self, *args, **kwargs):
        raise AttributeError("_Symbol object has no attribute %s" % name)
    method.__name__ = name
    return method


for _name in ABSENT:
    setattr(_Symbol, _name, _absent(_name))
for _name in ("round", "argsort", "cumsum", "dot", "std", "var", "take", "repeat"):  # NumPy's, as MXNet's _Symbol
    setattr(_Symbol, _name, symbolic(getattr(Symbol, _name), _name))
_Symbol.T = property(symbolic(lambda self: Symbol.T.fget(self), "T"))
_Symbol.__hash__ = Symbol.__hash__
