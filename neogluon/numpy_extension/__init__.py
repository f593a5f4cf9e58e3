"""``mx.npx``: MXNet 1.9.1's NumPy-interface extensions (``mxnet/numpy_extension``).

The switches (``set_np``, ``reset_np``, ``is_np_array``, ... from :mod:`neogluon.np_mode`),
contexts, ``waitall``, ``save``/``load``, and the neural-network operators. Each operator
function has the signature of the legacy ``mx.nd`` operator it runs (MXNet's npx
functions are generated from the same operators): it is that generated function, its
results given as ``mx.np.ndarray``.
"""
import functools as _functools
import types as _types

from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..np_mode import (set_np, reset_np, is_np_array, is_np_shape, use_np, use_np_array,  # noqa: F401
                    use_np_shape, np_array, np_shape, set_np_shape)
from ..base import classproperty, with_metaclass  # noqa: F401  (MXNet's npx has them from mxnet.base)
from ..context import gpu_memory_info  # noqa: F401
from ..util import get_cuda_compute_capability  # noqa: F401
from .. import ndarray as _nd
from .. import symbol as _sym
from ..symbol import Symbol as _Symbol
from ..ndarray import NDArray as _NDArray
from ..numpy.multiarray import as_np as _np, call as _call, BUILDING as _BUILDING

__all__ = ["set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "use_np_array", "use_np_shape",
           "cpu", "gpu", "num_gpus", "current_context", "waitall", "save", "load", "reshape"]


def waitall():
    """Wait for all pending computation (``mx.nd.waitall``)."""
    _nd.waitall()


def save(file, arr):
    """Save an array, a list or a dict of str -> array in MXNet's NDArray file format."""
    if isinstance(arr, _NDArray):
        arr = [arr]
    _nd.save(file, arr)


def load(file):
    """Load what ``save`` wrote: a list or dict of ``mx.np.ndarray``."""
    res = _nd.load(file)
    if isinstance(res, dict):
        return {k: _np(v) for k, v in res.items()}
    return [_np(v) for v in res]


def _npx(name, op):
    fn = getattr(_nd, op, None) or getattr(_nd.contrib, op[len("_contrib_"):])
    sym_fn = getattr(_sym, op, None) or getattr(_sym.contrib, op[len("_contrib_"):], None)

    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if args and isinstance(args[0], _Symbol):  # F.npx.<op> in a hybridized hybrid_forward
            return sym_fn(*args, **kwargs)
        return _np(fn(*args, **kwargs))
    wrapper.__name__ = name
    wrapper.__doc__ = "``npx.%s``: the ``%s`` operator, with mx.np arrays.\n\n%s" % (name, op, fn.__doc__ or "")
    return wrapper


# npx name -> the registry operator MXNet 1.9.1's npx function runs
_OPERATORS = {
    "activation": "Activation", "softmax": "softmax",
    "log_softmax": "log_softmax", "batch_norm": "BatchNorm", "layer_norm": "LayerNorm",
    "convolution": "Convolution", "deconvolution": "Deconvolution", "fully_connected": "FullyConnected",
    "pooling": "Pooling", "dropout": "Dropout", "embedding": "Embedding", "one_hot": "one_hot",
    "pick": "pick", "topk": "topk", "batch_dot": "batch_dot", "batch_flatten": "Flatten",
    "sequence_mask": "SequenceMask", "rnn": "RNN", "arange_like": "_contrib_arange_like",
    "gather_nd": "gather_nd", "smooth_l1": "smooth_l1", "leaky_relu": "LeakyReLU", "erf": "erf",
    "erfinv": "erfinv", "gamma": "gamma", "gammaln": "gammaln", "reshape_like": "reshape_like",
    "shape_array": "shape_array", "slice": "slice", "roi_pooling": "ROIPooling", "cast": "Cast",
    "multibox_prior": "_contrib_MultiBoxPrior", "multibox_target": "_contrib_MultiBoxTarget",
    "multibox_detection": "_contrib_MultiBoxDetection",
}
for _name, _op in _OPERATORS.items():
    if hasattr(_nd, _op) or _op.startswith("_contrib_") and hasattr(_nd.contrib, _op[len("_contrib_"):]):
        globals()[_name] = _npx(_name, _op)
        __all__.append(_name)


def relu(data, **kwargs):
    """``npx.relu``: ``max(x, 0)`` (operator ``_npx_relu``)."""
    return _call("_npx_relu", (data,), kwargs or None)


def sigmoid(data, **kwargs):
    """``npx.sigmoid``: ``1 / (1 + exp(-x))`` (operator ``_npx_sigmoid``)."""
    return _call("_npx_sigmoid", (data,), kwargs or None)


__all__ += ["relu", "sigmoid"]


def constraint_check(x, msg):
    """A 0-d ``True`` when every element of the boolean ``x`` is true, else ``ValueError(msg)``."""
    return _call("_npx_constraint_check", (x,), dict(msg=msg))


__all__.append("constraint_check")


def reshape(a, newshape, reverse=False, order="C"):
    """``npx.reshape`` with MXNet's NumPy-extension codes (-1 infer, -2 copy, -3 drop a 1,
    -4 copy the rest, -5 merge two, -6 split one), the ``_npx_reshape`` operator."""
    if order != "C":
        raise NotImplementedError("npx.reshape: only order='C' is supported")
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    attrs = dict(newshape=newshape, reverse=True) if reverse else dict(newshape=newshape)  # as MXNet writes it
    return _call("_npx_reshape", (a,), attrs)


def nonzero(a):
    """The indices of the non-zero elements, shape (count, ndim), int64."""
    from .. import numpy as _mxnp
    idx = _mxnp.nonzero(a)
    return _mxnp.stack(idx, axis=1) if idx else idx


from . import random, image  # noqa: E402,F401


class _WithNumpy:
    """``F`` of ``hybrid_forward(self, F, x)`` under ``npx.set_np()``: ``mx.nd`` or ``mx.sym``
    with ``F.np`` and ``F.npx`` (MXNet 1.9.1's ``mx.nd.np``/``mx.sym.np``), which are
    ``mx.np``/``mx.npx`` here: their functions take arrays or Symbols (for ``mx.sym``, the
    functions without array inputs make graph nodes, see :class:`_Symbolic`)."""

    def __init__(self, base, symbolic=False):
        from .. import numpy as _mxnp
        import sys
        self._base = base
        self.np = _Symbolic(_mxnp) if symbolic else _mxnp
        self.npx = _Symbolic(sys.modules[__name__]) if symbolic else sys.modules[__name__]

    def __getattr__(self, name):
        return getattr(self._base, name)

    def __repr__(self):  # d2l prints F: MXNet shows the module, <module 'mxnet.ndarray' ...>
        return repr(self._base)


class _Symbolic:
    """``F.np`` (``F.np.random``, ``F.npx``, ...) of a traced ``hybrid_forward``: the module's
    functions, run so that array makers without array inputs (``F.np.zeros((2, 3))``,
    ``F.np.random.uniform(size=...)``) give graph nodes rather than constant arrays."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        if isinstance(obj, _types.ModuleType):
            return _Symbolic(obj)
        if not callable(obj) or isinstance(obj, type):
            return obj

        @_functools.wraps(obj)
        def symbolic(*args, **kwargs):
            before = _BUILDING.symbolic
            _BUILDING.symbolic = True
            try:
                return obj(*args, **kwargs)
            finally:
                _BUILDING.symbolic = before
        return symbolic


_ND_F, _SYM_F = _WithNumpy(_nd), _WithNumpy(_sym, symbolic=True)
