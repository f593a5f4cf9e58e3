"""``mx.sym``: symbolic graphs, with every registry operator as a function.

``mx.sym.<op>`` is generated from the operator registry by the same generator as
``mx.nd.<op>`` (:mod:`neogluon.ndarray.register`), so nothing exists in one namespace and
not the other; ``_contrib_X``/``_linalg_X``/``_random_X``/... also appear as
``mx.sym.contrib.X`` and so on, named after the short name as MXNet does.
"""
import types

import numpy as _np

from .. import operator as _operator  # noqa: F401  (registers the operators)
from ..operator import registry as _registry
from ..ndarray import register as _register
from .symbol import Symbol, var, Variable, Group, compose as _compose, create as _create
from .json import load, load_json
from . import random
from . import control_flow as _control_flow


def _submodule(name, doc):
    return types.ModuleType(__name__ + "." + name, doc)


contrib = _submodule("contrib", "mx.sym.contrib: operators registered as _contrib_*")
linalg = _submodule("linalg", "mx.sym.linalg: operators registered as _linalg_*")
image = _submodule("image", "mx.sym.image: operators registered as _image_*")
sparse = _submodule("sparse", "mx.sym.sparse: operators registered as _sparse_*")
op = _submodule("op", "mx.sym.op: every registry operator")
_internal = _submodule("_internal", "mx.sym._internal: every registry operator, by its full name")
_SUBMODULES = {"contrib": contrib, "linalg": linalg, "image": image, "sparse": sparse, "random": random}


def _add(name, operator):
    """The symbol function of a registered name (and its short name in a sub-namespace)."""
    fn = _register.make_function(operator, name, compose=_compose)
    _internal.__dict__[name] = fn
    op.__dict__[name] = fn
    globals().setdefault(name, fn)
    ns, short = _register.namespace_of(name)
    if ns in _SUBMODULES and short not in _SUBMODULES[ns].__dict__:
        _SUBMODULES[ns].__dict__[short] = _register.make_function(operator, short, compose=_compose)


for _name, _op in _registry.items():
    _add(_name, _op)
_registry.on_register(_add)  # operators registered later get their function too
Custom = op.Custom = _internal.Custom = _operator.custom.symbol_custom(_create)  # inputs named by the prop
contrib.foreach, contrib.while_loop, contrib.cond = _control_flow.foreach, _control_flow.while_loop, _control_flow.cond


def _rand_zipfian(true_classes, num_sampled, range_max):
    """``mx.sym.contrib.rand_zipfian``: the samples of an approximately log-uniform
    distribution on ``[0, range_max)`` and the expected counts of the true and sampled
    classes, as graph nodes (``mx.nd.contrib.rand_zipfian``'s arithmetic)."""
    assert isinstance(true_classes, Symbol), "unexpected type %s" % type(true_classes)
    import sys
    from ..ndarray.contrib_functions import zipfian
    return zipfian(sys.modules[__name__], true_classes, num_sampled, range_max)


_rand_zipfian.__name__ = _rand_zipfian.__qualname__ = "rand_zipfian"
contrib.rand_zipfian = _rand_zipfian
for _name, _count in (("_foreach", 1), ("_while_loop", 2), ("_cond", 3)):  # the subgraphs come first
    op.__dict__[_name] = _internal.__dict__[_name] = _control_flow.node_function(_name, _count)


# ------------------------------------------------------------------------- front functions
def _dtype(dtype):
    return _np.float32 if dtype is None else dtype


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros (float32 unless ``dtype`` is given)."""
    return _internal._zeros(shape=shape, dtype=_dtype(dtype), **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones (float32 unless ``dtype`` is given)."""
    return _internal._ones(shape=shape, dtype=_dtype(dtype), **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with ``val``."""
    return _internal._full(shape=shape, dtype=_dtype(dtype), value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                             name=name, dtype=_dtype(dtype))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """``num`` evenly spaced values over ``[start, stop]``."""
    return _internal._linspace(start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                               dtype=_dtype(dtype))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A 2-d symbol with ones on the k-th diagonal."""
    return _internal._eye(N=N, M=M, k=k, dtype=_dtype(dtype), **kwargs)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """MXNet's ``mx.sym.split_v2``: ``_split_v2`` into ``sections`` equal parts (an int) or at
    the given indices (a tuple; the first part starts at 0), with the attributes MXNet writes."""
    indices, sections = [], 0
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError("indices_or_sections must either int or tuple of ints")
    return _internal._split_v2(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections)


def _binary_front(fname, op_sym, op_scalar, fn):
    def front(left, right):
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return getattr(_internal, op_sym)(left, right)
        if isinstance(left, Symbol) and isinstance(right, (int, float, _np.generic)):
            return getattr(_internal, op_scalar)(left, scalar=right)
        if isinstance(right, Symbol) and isinstance(left, (int, float, _np.generic)):
            return getattr(_internal, op_scalar)(right, scalar=left)
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return fn(left, right)
        raise TypeError("types (%s, %s) not supported" % (type(left).__name__, type(right).__name__))
    front.__name__ = fname
    front.__doc__ = "Element-wise %s of symbols (same shapes) or a symbol and a scalar." % fname
    return front


maximum = _binary_front("maximum", "_Maximum", "_MaximumScalar", max)
minimum = _binary_front("minimum", "_Minimum", "_MinimumScalar", min)
hypot = _binary_front("hypot", "_Hypot", "_HypotScalar", lambda a, b: (a * a + b * b) ** 0.5)


def pow(base, exp):  # pylint: disable=redefined-builtin
    """``base ** exp`` for symbols and/or scalars (``_Power``, ``_PowerScalar``, ``_RPowerScalar``)."""
    if isinstance(base, Symbol) or isinstance(exp, Symbol):
        return base.__pow__(exp) if isinstance(base, Symbol) else exp.__rpow__(base)
    return base ** exp


power = pow

def _install_methods():
    """Symbol's operator methods (``x.sum()``, ``x.relu()``), the same list as NDArray's."""
    from ..ndarray.methods import METHODS

    def method(fn):
        def call(self, *args, **kwargs):
            return fn(self, *args, **kwargs)
        call.__name__, call.__doc__ = fn.__name__, fn.__doc__
        return call

    for meth, fname in METHODS.items():
        fn = globals().get(fname)
        if fn is not None and not hasattr(Symbol, meth):
            setattr(Symbol, meth, method(fn))


_install_methods()

__all__ = [n for n in dir() if not n.startswith("_")] + ["_internal"]
