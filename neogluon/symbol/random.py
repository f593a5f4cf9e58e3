"""``mx.sym.random``: sampling front functions, as in MXNet 1.9.1.

With numbers as distribution parameters they create a ``_random_<dist>`` node (a fixed
distribution); with symbols, a ``_sample_<dist>`` node (one distribution per element of
the parameter arrays). Every other ``_random_*``/``_sample_*`` operator of the registry
also appears here under its short name.
"""
from ..base import _Null, numeric_types
from .symbol import Symbol

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint"]


def _internal(name):
    from . import _internal as mod
    from ..operator import registry
    registry.get(name)  # a clear error when the operator is not registered
    return getattr(mod, name)


def _random_helper(dist, params, shape, dtype, kwargs, sampler=True):
    if isinstance(params[0], Symbol):
        if not sampler or not all(isinstance(p, Symbol) for p in params):
            raise ValueError("Distribution parameters must all have the same type, got %s"
                             % ", ".join(type(p).__name__ for p in params))
        return _internal("_sample_" + dist)(*params, shape=shape, dtype=dtype, **kwargs)
    if isinstance(params[0], numeric_types):
        if not all(isinstance(p, numeric_types) for p in params):
            raise ValueError("Distribution parameters must all have the same type, got %s"
                             % ", ".join(type(p).__name__ for p in params))
        return _internal("_random_" + dist)(*params, shape=shape, dtype=dtype, **kwargs)
    raise ValueError("Distribution parameters must be either Symbol or numbers, but got %s." % type(params[0]))


def uniform(low=0, high=1, shape=_Null, dtype=_Null, **kwargs):
    """Uniform samples in ``[low, high)``."""
    return _random_helper("uniform", [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, **kwargs):
    """Normal samples with mean ``loc`` and standard deviation ``scale``."""
    return _random_helper("normal", [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs):
    """Normal samples of the given shape (``loc``/``scale`` as keywords)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    return _random_helper("normal", [loc, scale], shape, dtype, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, **kwargs):
    """Poisson samples with rate ``lam``."""
    return _random_helper("poisson", [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, **kwargs):
    """Exponential samples with scale ``scale`` (rate ``1/scale``)."""
    return _random_helper("exponential", [1.0 / scale], shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, **kwargs):
    """Gamma samples with shape ``alpha`` and scale ``beta``."""
    return _random_helper("gamma", [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, **kwargs):
    """Negative binomial samples."""
    return _random_helper("negative_binomial", [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, **kwargs):
    """Generalized negative binomial samples."""
    return _random_helper("generalized_negative_binomial", [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=_Null, get_prob=True, dtype="int32", **kwargs):
    """Samples from the categorical distributions in the last axis of ``data``."""
    return _internal("_sample_multinomial")(data, shape, get_prob, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """The input with its first axis randomly permuted."""
    return _internal("_shuffle")(data, **kwargs)


def randint(low, high, shape=_Null, dtype=_Null, **kwargs):
    """Integer samples in ``[low, high)``."""
    return _random_helper("randint", [low, high], shape, dtype, kwargs, sampler=False)
