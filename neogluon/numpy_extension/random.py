"""``mx.npx.random``: ``seed`` and MXNet 1.9.1's samplers beyond NumPy's: ``bernoulli`` and
the batch samplers ``uniform_n``/``normal_n`` (operators of ``neogluon/operator/numpy_random.py``;
the other samplers are in ``mx.np.random``)."""
from ..context import as_context as _as_context, current_context as _current
from ..ndarray import NDArray as _NDArray
from ..numpy.multiarray import call as _call
from ..random import seed  # noqa: F401
from ..symbol import Symbol as _Symbol

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]

_ARRAY = (_NDArray, _Symbol)


def _ctx(ctx):
    return str(_as_context(ctx or _current()))


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Draws of 1 with probability ``prob`` (or ``sigmoid(logit)``): exactly one of them,
    a number or an array."""
    if (prob is None) == (logit is None):
        raise ValueError("Either `prob` or `logit` must be specified, but not both. "
                         "Received prob={}, logit={}".format(prob, logit))
    attrs = dict(size=size or None, ctx=_ctx(ctx), dtype=dtype or "float32", is_logit=prob is None)
    value = prob if prob is not None else logit
    if isinstance(value, _ARRAY):
        return _call("_npi_bernoulli", (value,), dict(attrs, prob=None, logit=None), out)
    return _call("_npi_bernoulli", (), dict(attrs, prob=prob, logit=logit), out)


def _batch(name, first, second):
    def sampler(a, b, batch_shape=None, dtype=None, ctx=None):
        attrs = dict(size=batch_shape or None, ctx=_ctx(ctx), dtype=dtype or "float32")
        inputs = tuple(v for v in (a, b) if isinstance(v, _ARRAY))
        attrs[first] = None if isinstance(a, _ARRAY) else a
        attrs[second] = None if isinstance(b, _ARRAY) else b
        return _call("_npi_" + name, inputs, attrs)
    return sampler


_uniform_n, _normal_n = _batch("uniform_n", "low", "high"), _batch("normal_n", "loc", "scale")


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform draws in ``[low, high)``: shape ``batch_shape + broadcast(low, high)``."""
    return _uniform_n(low, high, batch_shape, dtype, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal draws: shape ``batch_shape + broadcast(loc, scale)``."""
    return _normal_n(loc, scale, batch_shape, dtype, ctx)
