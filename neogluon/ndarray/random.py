"""``mx.nd.random``: MXNet 1.9.1's sampling functions.

Scalar distribution parameters call the ``_random_*`` operators (``shape`` samples,
``ctx`` and ``dtype`` as given); NDArray parameters call the ``_sample_*`` operators (for
parameters of shape S, ``shape`` samples each: an output of shape ``S + shape``).
``uniform_like``, ``normal_like``, ... are added from the registry by ``mx.nd``.
"""
import numpy as np

from ..base import _Null, numeric_types
from ..context import as_context
from ..operator import registry
from .ndarray import NDArray, invoke

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "multinomial",
           "negative_binomial", "generalized_negative_binomial", "shuffle", "randint"]


def _dtype_from_out(op_name, dtype, out):
    """MXNet infers an unspecified dtype from ``out=``, when it is one the operator makes."""
    if dtype is not _Null or out is None:
        return dtype
    name = np.dtype(out.dtype).name
    return name if name in registry.get(op_name).params["dtype"].choices else _Null


def _random_helper(random_op, sample_op, names, params, shape, dtype, ctx, out, kwargs):
    """Dispatch to ``random_op`` for scalar parameters, ``sample_op`` for NDArray ones."""
    kwargs.pop("name", None)
    if isinstance(params[0], NDArray):
        if any(not isinstance(p, NDArray) for p in params[1:]):
            raise TypeError("Distribution parameters must all have the same type, but got both %s and %s."
                            % (type(params[0]).__name__, ", ".join(type(p).__name__ for p in params[1:])))
        if sample_op is None:
            raise TypeError("%s takes numbers as parameters, not NDArrays" % random_op)
        attrs = dict(kwargs, shape=shape, dtype=_dtype_from_out(sample_op, dtype, out))
        return invoke(sample_op, params, attrs, out)
    if isinstance(params[0], numeric_types):
        if any(not isinstance(p, numeric_types) for p in params[1:]):
            raise TypeError("Distribution parameters must all have the same type, but got both %s and %s."
                            % (type(params[0]).__name__, ", ".join(type(p).__name__ for p in params[1:])))
        if shape is _Null:
            shape = 1 if out is None else out.shape
        attrs = dict(kwargs, shape=shape, dtype=_dtype_from_out(random_op, dtype, out), ctx=str(as_context(ctx)))
        attrs.update(zip(names, params))
        return invoke(random_op, (), attrs, out)
    raise ValueError("Distribution parameters must be either NDArray or numbers, but got %s."
                     % type(params[0]).__name__)


def uniform(low=0, high=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the uniform distribution on ``[low, high)`` (float32 unless ``dtype``)."""
    return _random_helper("_random_uniform", "_sample_uniform", ("low", "high"), [low, high],
                          shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the normal distribution with mean ``loc`` and standard deviation ``scale``."""
    return _random_helper("_random_normal", "_sample_normal", ("loc", "scale"), [loc, scale],
                          shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Standard normal samples of shape ``shape`` (``loc``, ``scale``, ``dtype``, ``ctx``,
    ``out`` as keywords)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    ctx = kwargs.pop("ctx", None)
    out = kwargs.pop("out", None)
    return _random_helper("_random_normal", "_sample_normal", ("loc", "scale"), [loc, scale],
                          shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution with rate ``lam``, as floating-point numbers."""
    return _random_helper("_random_poisson", "_sample_poisson", ("lam",), [lam],
                          shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with scale ``scale`` (rate ``1 / scale``)."""
    return _random_helper("_random_exponential", "_sample_exponential", ("lam",), [1.0 / scale],
                          shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _random_helper("_random_gamma", "_sample_gamma", ("alpha", "beta"), [alpha, beta],
                          shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the negative binomial distribution: failures before ``k`` successes of
    probability ``p``, as floating-point numbers."""
    return _random_helper("_random_negative_binomial", "_sample_negative_binomial", ("k", "p"), [k, p],
                          shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the generalized negative binomial distribution with mean ``mu`` and
    dispersion ``alpha``, as floating-point numbers."""
    return _random_helper("_random_generalized_negative_binomial", "_sample_generalized_negative_binomial",
                          ("mu", "alpha"), [mu, alpha], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=_Null, get_prob=False, out=None, dtype="int32", **kwargs):
    """Indices sampled from the categorical distributions along ``data``'s last axis; with
    ``get_prob`` also their log-likelihoods (a list of two arrays)."""
    kwargs.pop("name", None)
    return invoke("_sample_multinomial", (data,), dict(kwargs, shape=shape, get_prob=get_prob, dtype=dtype), out)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    return invoke("_shuffle", (data,), kwargs, out)


def randint(low, high, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from ``[low, high)`` (int32 unless ``dtype='int64'``)."""
    return _random_helper("_random_randint", None, ("low", "high"), [low, high],
                          shape, dtype, ctx, out, kwargs)
