"""The methods of a Symbol traced under ``npx.set_np()`` (MXNet's np symbols, ``_Symbol``):
``x.reshape(...)``, ``x.transpose(...)``, ``x.T``, ``x.sum()``/``mean``/``max``/``min``/
``prod``, ``x.flatten()``, ``x.squeeze()``, ``x.argmax()``/``argmin`` run ``mx.np``'s operators
(``_np_reshape``, ``_np_transpose``, ``_np_sum``, ``_np_squeeze``, ...) with the attributes MXNet
writes; outside NumPy mode the legacy methods stand (``astype``, ``swapaxes``, ``clip`` and
``expand_dims`` are the legacy operators in MXNet's np symbols too)."""
from ..np_mode import FLAGS as _FLAGS
from ..symbol import Symbol as _Symbol
from .multiarray import call as _call


def _reshape(self, *args, **kwargs):
    newshape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if not newshape and "newshape" in kwargs:
        newshape = kwargs.pop("newshape")
    newshape = (newshape,) if isinstance(newshape, int) else tuple(newshape)
    return _call("_np_reshape", (self,), dict(newshape=newshape, order=kwargs.get("order", "C")))


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _call("_np_transpose", (self,), dict(axes=tuple(axes) if axes else None))


def _reduction(op, has_dtype):
    def method(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        attrs = dict(axis=axis, keepdims=keepdims)
        if has_dtype and dtype is not None:
            attrs["dtype"] = dtype
        return _call(op, (self,), attrs)
    return method


def _flatten(self, order="C"):
    return _call("_np_reshape", (self,), dict(newshape=(-1,), order=order))


def _squeeze(self, axis=None):
    return _call("_np_squeeze", (self,), dict(axis=axis))


def _arg(op):
    def method(self, axis=None, out=None):
        return _call(op, (self,), dict(axis=axis, keepdims=False))
    return method


def _around(self, decimals=0, out=None, **kwargs):
    return _call("_npi_around", (self,), dict(decimals=decimals))


def _argsort(self, axis=-1, kind=None, order=None):
    return _call("argsort", (self,), dict(axis=axis, is_ascend=True, dtype="int64"))


def _cumsum(self, axis=None, dtype=None, out=None):
    attrs = dict(axis=axis)
    if dtype is not None:
        attrs["dtype"] = dtype
    return _call("_np_cumsum", (self,), attrs)


def _dot(self, b, out=None):
    return _call("_np_dot", (self, b))


def _moment(op):
    def method(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        attrs = dict(axis=axis, ddof=ddof, keepdims=keepdims)
        if dtype is not None:
            attrs["dtype"] = dtype
        return _call(op, (self,), attrs)
    return method


def _take(self, indices, axis=None, mode="raise"):
    """NumPy's take: over the flattened array without an axis (``_npx_reshape(-1)`` first)."""
    if axis is None:
        return _call("take", (_call("_npx_reshape", (self,), dict(newshape=-1)), indices),
                     dict(axis=0, mode=mode))
    return _call("take", (self, indices), dict(axis=axis, mode=mode))


def _repeat(self, repeats, axis=None):
    return _call("repeat", (self,), dict(repeats=repeats, axis=axis))


_NP_METHODS = {"reshape": _reshape, "transpose": _transpose, "sum": _reduction("_np_sum", True),
               "mean": _reduction("_npi_mean", True), "prod": _reduction("_np_prod", True),
               "max": _reduction("_np_max", False), "min": _reduction("_np_min", False),
               "flatten": _flatten, "squeeze": _squeeze, "argmax": _arg("_npi_argmax"),
               "argmin": _arg("_npi_argmin"), "round": _around, "argsort": _argsort, "cumsum": _cumsum,
               "dot": _dot, "std": _moment("_npi_std"), "var": _moment("_npi_var"), "take": _take,
               "repeat": _repeat}


def _either(name, np_method):
    legacy = getattr(_Symbol, name, None)

    def method(self, *args, **kwargs):
        if _FLAGS.array:
            return np_method(self, *args, **kwargs)
        if legacy is None:
            raise AttributeError("'Symbol' object has no attribute '%s'" % name)
        return legacy(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = "Under npx.set_np(): mx.np's %s; else %s" % (name, getattr(legacy, "__doc__", "") or "")
    return method


def _T(self):  # pylint: disable=invalid-name
    """The axes reversed (``_np_transpose``), under npx.set_np() (legacy symbols have no ``T``)."""
    if not _FLAGS.array:
        raise AttributeError("'Symbol' object has no attribute 'T'")
    return _transpose(self)


if not getattr(_Symbol, "_numpy_methods", False):
    for _name, _method in _NP_METHODS.items():
        setattr(_Symbol, _name, _either(_name, _method))
    _Symbol.T = property(_T)
    _Symbol._numpy_methods = True  # pylint: disable=protected-access
