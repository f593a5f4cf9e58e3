"""``mx.np``'s arrays made from nothing but sizes: the windows ``blackman``, ``hamming``,
``hanning`` and the index grid ``indices`` (operators of ``neogluon/operator/numpy_windows.py``)."""
from ..context import as_context as _as_context, current_context as _current
from .multiarray import call as _call

__all__ = ["blackman", "hamming", "hanning", "indices"]


def _ctx(ctx, device):
    return str(_as_context(device or ctx or _current()))


def _window(name):
    def fn(M, dtype=None, ctx=None, device=None):
        return _call("_npi_" + name, (), dict(M=M, dtype=dtype or "float32", ctx=_ctx(ctx, device)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "``np.%s(M)``: the %s window of M points (float32 unless ``dtype``)." % (name, name)
    return fn


blackman = _window("blackman")
hamming = _window("hamming")
hanning = _window("hanning")


def indices(dimensions, dtype=None, ctx=None, device=None):
    """The grid of indices of an array of shape ``dimensions``: int32 unless ``dtype``."""
    return _call("_npi_indices", (), dict(dimensions=tuple(dimensions), dtype=dtype or "int32",
                                          ctx=_ctx(ctx, device)))
