"""``mx.np.random``: MXNet 1.9.1's NumPy-interface sampling (``size=``, ``dtype=``,
``ctx=``/``device=``), over the registry's random operators; ``mx.random.seed`` seeds it.
Draws come from torch's generators: distributions, shapes and dtypes are MXNet's, the
numbers are not."""
import numpy as _onp

from ..context import as_context as _as_context, current_context as _current
from ..ndarray import NDArray as _NDArray
from ..symbol import Symbol as _Symbol
from .multiarray import call as _call, array as _array

__all__ = ["uniform", "normal", "randn", "rand", "randint", "choice", "shuffle", "multinomial",
           "multivariate_normal"]


def _size(size):
    if size is None:
        return ()
    return (int(size),) if isinstance(size, (int, _onp.integer)) else tuple(size)


def _ctx(ctx, device):
    return str(_as_context(device or ctx or _current()))


def _scalar_draw(op, size, attrs):
    shape = _size(size)
    r = _call(op, (), dict(attrs, shape=shape or (1,)))
    return r if shape else r.reshape(())  # size=None: a 0-d array, as MXNet gives


def _draw(op, names, values, size, dtype, ctx, device):
    """MXNet's ``_npi_uniform``/``_npi_normal``: a parameter given as an array (or a Symbol)
    is an input, its attribute None; ``size`` draws (the parameters' broadcast shape without)."""
    arrays = tuple(v for v in values if isinstance(v, (_NDArray, _Symbol)))
    attrs = {n: (None if isinstance(v, (_NDArray, _Symbol)) else v) for n, v in zip(names, values)}
    attrs.update(size=_size(size) or None, ctx=_ctx(ctx, device), dtype=_onp.dtype(dtype or "float32").name)
    return _call(op, arrays, attrs)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from ``[low, high)``, float32 by default (array bounds broadcast)."""
    return _draw("_npi_uniform", ("low", "high"), (low, high), size, dtype, ctx, device)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples from N(loc, scale^2), float32 by default (array parameters broadcast)."""
    return _draw("_npi_normal", ("loc", "scale"), (loc, scale), size, dtype, ctx, device)


def randn(*size, **kwargs):
    return normal(0.0, 1.0, size, **kwargs)


def rand(*size, **kwargs):
    return uniform(0.0, 1.0, size, **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, device=None, out=None):
    """Integers from ``[low, high)``: int64 by default, as MXNet's NumPy interface."""
    if high is None:
        low, high = 0, low
    return _scalar_draw("_random_randint", size, dict(low=low, high=high, ctx=_ctx(ctx, device),
                                                      dtype=_onp.dtype(dtype or "int64").name))


def choice(a, size=None, replace=True, p=None, ctx=None, device=None, out=None):
    """Samples of ``range(a)`` (an int) or of a 1-d array, with or without replacement, with
    probabilities ``p``: the ``_sample_multinomial`` and ``_shuffle`` operators."""
    n = a if isinstance(a, (int, _onp.integer)) else a.shape[0]
    shape = _size(size)
    count = int(_onp.prod(shape)) if shape else 1
    if replace:
        probs = p if p is not None else _array(_onp.full((n,), 1.0 / n, dtype="float32"), ctx=ctx or device)
        idx = _call("_sample_multinomial", (probs,), dict(shape=(count,), dtype="int32")).astype("int64")
    else:
        if count > n:
            raise ValueError("Cannot take a larger sample than population when 'replace=False'")
        if p is not None:
            raise NotImplementedError("np.random.choice: replace=False with p is not supported")
        perm = _call("_shuffle", (_call("_arange", (), dict(start=0, stop=n, dtype="int64",
                                                              ctx=_ctx(ctx, device))),))
        idx = perm[:count]
    idx = idx.reshape(shape) if shape else idx.reshape(())
    if isinstance(a, (int, _onp.integer)):
        return idx
    return _call("take", (a, idx.reshape(-1)), dict(axis=0)).reshape(shape + a.shape[1:])


def shuffle(x):
    """Shuffle ``x`` along its first axis, in place (the ``_shuffle`` operator)."""
    x[...] = _call("_shuffle", (x,))


def _dt(dtype):
    return _onp.dtype(dtype or "float32").name


def exponential(scale=1.0, size=None, ctx=None, device=None, out=None):
    """Samples of the exponential distribution with mean ``scale`` (``_random_exponential``)."""
    return _scalar_draw("_random_exponential", size, dict(lam=1.0 / scale, ctx=_ctx(ctx, device), dtype="float32"))


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """Samples of the gamma distribution (shape ``shape``, scale ``scale``): ``_random_gamma``."""
    return _scalar_draw("_random_gamma", size, dict(alpha=shape, beta=scale, ctx=_ctx(ctx, device),
                                                    dtype=_dt(dtype)))


def beta(a, b, size=None, dtype=None, ctx=None, device=None):
    """``X / (X + Y)`` with ``X ~ Gamma(a)``, ``Y ~ Gamma(b)``."""
    x, y = gamma(a, 1.0, size, dtype, ctx, device), gamma(b, 1.0, size, dtype, ctx, device)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None, device=None):
    """A chi-square sample is ``Gamma(df / 2, 2)``."""
    return gamma(df / 2.0, 2.0, size, dtype, ctx, device)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    from . import exp
    return exp(normal(mean, sigma, size, dtype, ctx, device))


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, device=None, out=None):
    """``loc - scale * log(-log(U))``."""
    from . import log
    return loc - scale * log(-log(uniform(1e-12, 1.0, size, ctx=ctx, device=device)))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, device=None, out=None):
    """``loc + scale * log(U / (1 - U))``."""
    from . import log
    u = uniform(1e-12, 1.0 - 1e-7, size, ctx=ctx, device=device)
    return loc + scale * log(u / (1 - u))


def rayleigh(scale=1.0, size=None, ctx=None, device=None, out=None):
    """``scale * sqrt(-2 log(1 - U))``."""
    from . import log, sqrt
    return scale * sqrt(-2 * log(1 - uniform(0.0, 1.0 - 1e-7, size, ctx=ctx, device=device)))


def weibull(a, size=None, ctx=None, device=None, out=None):
    """``(-log(1 - U)) ** (1 / a)``."""
    from . import log
    return (-log(1 - uniform(0.0, 1.0 - 1e-7, size, ctx=ctx, device=device))) ** (1.0 / a)


def pareto(a, size=None, ctx=None, device=None, out=None):
    """NumPy's Pareto II (Lomax): ``(1 - U) ** (-1 / a) - 1``."""
    return (1 - uniform(0.0, 1.0 - 1e-7, size, ctx=ctx, device=device)) ** (-1.0 / a) - 1


def power(a, size=None, ctx=None, device=None, out=None):
    """``U ** (1 / a)``."""
    return uniform(0.0, 1.0, size, ctx=ctx, device=device) ** (1.0 / a)


__all__ += ["exponential", "gamma", "beta", "chisquare", "lognormal", "gumbel", "logistic", "rayleigh",
            "weibull", "pareto", "power"]


def multinomial(n, pvals, size=None, **kwargs):
    """Counts of ``n`` draws over the outcomes of ``pvals`` (a list, or an ``mx.np`` array):
    shape ``size + (len(pvals),)``, int64."""
    if isinstance(pvals, _NDArray):
        return _call("_npi_multinomial", (pvals,), dict(pvals=None, n=n, size=_size(size) if size else None))
    if isinstance(pvals, _onp.ndarray):
        raise ValueError("numpy ndarray is not supported!")
    if any(isinstance(i, list) for i in pvals):
        raise ValueError("object too deep for desired array")
    return _call("_npi_multinomial", (), dict(n=n, pvals=[float(p) for p in pvals],
                                              size=_size(size) if size else None))


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of the normal distribution of ``mean`` (..., k) and covariance ``cov`` (..., k, k),
    as MXNet draws them: ``mean + einsum('...jk,...j->...k', cholesky(cov), noise)``; shape
    ``size + mean.shape`` (size=None: broadcast of mean and cov's batch)."""
    from . import einsum, linalg, broadcast_to
    if check_valid is not None:
        raise NotImplementedError("Parameter `check_valid` is not supported")
    if tol is not None:
        raise NotImplementedError("Parameter `tol` is not supported")
    if mean.ndim < 1:
        raise ValueError("mean must be at least 1 dimensional")
    if cov.ndim < 2:
        raise ValueError("cov must be at least 2 dimensional")
    if cov.shape[-1] != cov.shape[-2] or cov.shape[-1] != mean.shape[-1]:
        raise ValueError("the shapes of mean %s and cov %s do not match" % (mean.shape, cov.shape))
    batch = _onp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = _size(size) + tuple(batch) + mean.shape[-1:]
    if cov.dtype == _onp.float16:
        scale = linalg.cholesky(cov.astype("float32")).astype("float16")
    else:
        scale = linalg.cholesky(cov)
    noise = normal(size=shape, dtype=mean.dtype, ctx=mean.context)
    return broadcast_to(mean, shape) + einsum("...jk,...j->...k", scale, noise)
