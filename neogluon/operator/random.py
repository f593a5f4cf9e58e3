"""Sampling operators: ``_random_*`` (scalar parameters and a ``shape``), ``_random_*_like``
(the shape and dtype of an input), ``_sample_*`` (one distribution per element of parameter
arrays), ``_sample_multinomial`` and ``_shuffle``; and the densities ``_random_pdf_*``.

Every sampler draws from torch's global generator of the output's device, so
``mx.random.seed`` makes runs repeatable. The numbers differ from MXNet's (another RNG); the
distributions, shapes, dtypes and parameter checks are MXNet's. MXNet's samplers give their
parameters a zero gradient (only ``_sample_multinomial``'s log-likelihood output is
differentiable), and ``_shuffle`` has no gradient at all.
"""
import math

import torch

from ..base import MXNetError, torch_dtype
from ..np_mode import FLAGS as _NP_FLAGS
from .creation import device_of
from .registry import Bool, Dtype, Float, Int, Shape, Str, register

_FLOAT_DTYPES = ("float16", "float32", "float64")


def _compute_dtype(dtype):
    """Samples are drawn in float64 for float64 outputs and in float32 otherwise."""
    return torch.float64 if dtype in ("float64", torch.float64) else torch.float32


def _out_dtype(dtype):
    return torch_dtype(dtype or "float32")


def _check(cond, op, message):
    if not bool(cond):
        raise MXNetError("Operator %s: %s" % (op, message))


# ----------------------------------------------------------------------------- draws
# Each draw takes parameter tensors already broadcast to the output shape.
def _draw_uniform(low, high):
    return torch.rand_like(low) * (high - low) + low


def _draw_normal(mu, sigma):
    return torch.randn_like(mu) * sigma + mu


def _draw_gamma(alpha, beta):
    return torch._standard_gamma(alpha) * beta  # pylint: disable=protected-access


def _draw_exponential(lam):
    return torch.empty_like(lam).exponential_() / lam


def _draw_poisson(lam):
    return torch.poisson(lam)


def _draw_negative_binomial(k, p):
    """MXNet's construction: ``Poisson(Gamma(k, (1 - p) / p))``, failures before k successes."""
    return torch.poisson(_draw_gamma(k, (1 - p) / p))


def _draw_generalized_negative_binomial(mu, alpha):
    """``Poisson(Gamma(1 / alpha, alpha * mu))``; plain ``Poisson(mu)`` where alpha is 0."""
    safe_alpha = torch.where(alpha == 0, torch.ones_like(alpha), alpha)
    lam = torch.where(alpha == 0, mu, _draw_gamma(1 / safe_alpha, safe_alpha * mu))
    return torch.poisson(lam)


class _ZeroGradSample(torch.autograd.Function):
    """A sample that stays in the autograd graph and gives its parameters a zero gradient,
    as MXNet's sampling operators do."""

    @staticmethod
    def forward(ctx, draw, *params):  # pylint: disable=arguments-differ
        ctx.specs = [(p.shape, p.dtype, p.device) for p in params]
        return draw(*params)

    @staticmethod
    def backward(ctx, grad):  # pylint: disable=arguments-differ
        return (None,) + tuple(torch.zeros(s, dtype=d, device=v) for s, d, v in ctx.specs)


def _sample_with_zero_grad(draw, *params):
    if torch.is_grad_enabled() and any(p.requires_grad for p in params):
        return _ZeroGradSample.apply(draw, *params)
    return draw(*params)


# ----------------------------------------------------------------------------- _random_* (scalar parameters)
def _random_shape(op, shape):
    """The samples' shape: () is a 0-d array with NumPy shape semantics on, as in MXNet
    (``mx.set_np_shape(True)``, which DGL calls), else an unknown shape."""
    if shape is None or (shape == () and not _NP_FLAGS.shape):
        raise MXNetError("Operator %s: the output shape is unknown: give shape= (got %s)" % (op, shape))
    return shape


def _filled(shape, dtype, ctx, *values):
    """Parameter tensors of the output's shape, in the dtype the samples are drawn in."""
    dev = device_of(ctx)
    return [torch.full(shape, float(v), dtype=_compute_dtype(dtype), device=dev) for v in values]


def _random_params(**extra):
    return dict(extra, shape=Shape(None), ctx=Str(""), dtype=Dtype(None, choices=_FLOAT_DTYPES))


@register("_random_uniform", inputs=(), params=_random_params(low=Float(0.0), high=Float(1.0)),
          aliases=["uniform", "random_uniform"])
def random_uniform(*, low, high, shape, ctx, dtype):
    """Samples from the uniform distribution on ``[low, high)``."""
    _check(high >= low, "_random_uniform",
           "low must be less or equal to high in uniform distribution (low=%s, high=%s)" % (low, high))
    shape = _random_shape("_random_uniform", shape)
    return torch.empty(shape, dtype=_out_dtype(dtype), device=device_of(ctx)).uniform_(low, high)


@register("_random_normal", inputs=(), params=_random_params(loc=Float(0.0), scale=Float(1.0)),
          aliases=["normal", "random_normal"])
def random_normal(*, loc, scale, shape, ctx, dtype):
    """Samples from the normal distribution with mean ``loc`` and standard deviation ``scale``."""
    _check(scale > 0, "_random_normal", "scale parameter in gaussian has to be positive (scale=%s)" % scale)
    shape = _random_shape("_random_normal", shape)
    return torch.empty(shape, dtype=_out_dtype(dtype), device=device_of(ctx)).normal_(loc, scale)


@register("_random_gamma", inputs=(), params=_random_params(alpha=Float(1.0), beta=Float(1.0)),
          aliases=["random_gamma"])
def random_gamma(*, alpha, beta, shape, ctx, dtype):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    _check(alpha > 0, "_random_gamma", "alpha parameter in gamma distribution has to be positive (alpha=%s)" % alpha)
    _check(beta > 0, "_random_gamma", "beta parameter in gamma distribution has to be positive (beta=%s)" % beta)
    params = _filled(_random_shape("_random_gamma", shape), dtype, ctx, alpha, beta)
    return _draw_gamma(*params).to(_out_dtype(dtype))


@register("_random_exponential", inputs=(), params=_random_params(lam=Float(1.0)),
          aliases=["random_exponential"])
def random_exponential(*, lam, shape, ctx, dtype):
    """Samples from the exponential distribution with rate ``lam`` (mean ``1 / lam``)."""
    _check(lam > 0, "_random_exponential",
           "lambda parameter in exponential distribution has to be positive (lam=%s)" % lam)
    shape = _random_shape("_random_exponential", shape)
    return torch.empty(shape, dtype=_out_dtype(dtype), device=device_of(ctx)).exponential_(lam)


@register("_random_poisson", inputs=(), params=_random_params(lam=Float(1.0)), aliases=["random_poisson"])
def random_poisson(*, lam, shape, ctx, dtype):
    """Samples from the Poisson distribution with rate ``lam``, as floating-point numbers."""
    _check(lam >= 0, "_random_poisson",
           "lambda parameter in poisson distribution has to be non-negative (lam=%s)" % lam)
    params = _filled(_random_shape("_random_poisson", shape), dtype, ctx, lam)
    return _draw_poisson(*params).to(_out_dtype(dtype))


@register("_random_negative_binomial", inputs=(), params=_random_params(k=Int(1), p=Float(1.0)),
          aliases=["random_negative_binomial"])
def random_negative_binomial(*, k, p, shape, ctx, dtype):
    """Samples from the negative binomial distribution: failures before ``k`` successes of
    probability ``p`` (mean ``k (1 - p) / p``), as floating-point numbers."""
    _check(k >= 0, "_random_negative_binomial",
           "k parameter in negative binomial distribution has to be non-negative (k=%s)" % k)
    _check(0 < p <= 1, "_random_negative_binomial",
           "p parameter in negative binomial distribution has to be in (0, 1] (p=%s)" % p)
    params = _filled(_random_shape("_random_negative_binomial", shape), dtype, ctx, k, p)
    return _draw_negative_binomial(*params).to(_out_dtype(dtype))


@register("_random_generalized_negative_binomial", inputs=(),
          params=_random_params(mu=Float(1.0), alpha=Float(1.0)), aliases=["random_generalized_negative_binomial"])
def random_generalized_negative_binomial(*, mu, alpha, shape, ctx, dtype):
    """Samples from the generalized negative binomial distribution with mean ``mu`` and
    dispersion ``alpha`` (variance ``mu + alpha mu^2``), as floating-point numbers."""
    _check(mu >= 0, "_random_generalized_negative_binomial",
           "mu parameter in generalized negative binomial distribution has to be non-negative (mu=%s)" % mu)
    _check(alpha >= 0, "_random_generalized_negative_binomial",
           "alpha parameter in generalized negative binomial distribution has to be non-negative (alpha=%s)" % alpha)
    params = _filled(_random_shape("_random_generalized_negative_binomial", shape), dtype, ctx, mu, alpha)
    return _draw_generalized_negative_binomial(*params).to(_out_dtype(dtype))


@register("_random_randint", inputs=(),
          params=dict(low=Int(), high=Int(), shape=Shape(None), ctx=Str(""),
                      dtype=Dtype(None, choices=("int32", "int64"))),
          aliases=["random_randint"])
def random_randint(*, low, high, shape, ctx, dtype):
    """Integers drawn uniformly from ``[low, high)`` (int32 unless ``dtype='int64'``)."""
    _check(high > low, "_random_randint", "low must be less than high (low=%s, high=%s)" % (low, high))
    shape = _random_shape("_random_randint", shape)
    return torch.randint(low, high, shape, dtype=torch_dtype(dtype or "int32"), device=device_of(ctx))


# ----------------------------------------------------------------------------- _random_*_like
def _register_like(name, draw, params, doc):
    """``_random_X_like``: samples of ``data``'s shape and dtype with scalar parameters."""
    pnames = tuple(params)

    def impl(data, **attrs):
        if not data.is_floating_point():
            raise MXNetError("Operator %s: This operation only support floating point types, not %s"
                             % (name, str(data.dtype).replace("torch.", "")))

        def draw_like(d):
            values = [torch.full(d.shape, float(attrs[p]), dtype=_compute_dtype(d.dtype), device=d.device)
                      for p in pnames]
            return draw(*values).to(d.dtype)
        return _sample_with_zero_grad(draw_like, data)
    impl.__name__ = name
    impl.__doc__ = doc
    register(name, inputs=("data",), params=params)(impl)


_register_like("_random_uniform_like", _draw_uniform, dict(low=Float(0.0), high=Float(1.0)),
               "Samples from the uniform distribution on ``[low, high)``, of ``data``'s shape and dtype.")
_register_like("_random_normal_like", _draw_normal, dict(loc=Float(0.0), scale=Float(1.0)),
               "Samples from the normal distribution, of ``data``'s shape and dtype.")
_register_like("_random_gamma_like", _draw_gamma, dict(alpha=Float(1.0), beta=Float(1.0)),
               "Samples from the gamma distribution (shape ``alpha``, scale ``beta``), of ``data``'s shape and dtype.")
_register_like("_random_exponential_like", _draw_exponential, dict(lam=Float(1.0)),
               "Samples from the exponential distribution with rate ``lam``, of ``data``'s shape and dtype.")
_register_like("_random_poisson_like", _draw_poisson, dict(lam=Float(1.0)),
               "Samples from the Poisson distribution with rate ``lam``, of ``data``'s shape and dtype.")
_register_like("_random_negative_binomial_like", _draw_negative_binomial, dict(k=Int(1), p=Float(1.0)),
               "Samples from the negative binomial distribution, of ``data``'s shape and dtype.")
_register_like("_random_generalized_negative_binomial_like", _draw_generalized_negative_binomial,
               dict(mu=Float(1.0), alpha=Float(1.0)),
               "Samples from the generalized negative binomial distribution, of ``data``'s shape and dtype.")


# ----------------------------------------------------------------------------- _sample_* (parameter arrays)
def _check_same_shape(op, names, params):
    first = params[0]
    for n, p in zip(names[1:], params[1:]):
        if p.shape != first.shape:
            raise MXNetError("Operator %s: %s and %s must have the same shape, got %s and %s"
                             % (op, names[0], n, tuple(first.shape), tuple(p.shape)))


def _broadcast_params(params, shape, dtype):
    """The parameter arrays (all of one shape S) broadcast to the output shape ``S + shape``."""
    first = params[0]
    out_shape = tuple(first.shape) + tuple(shape)
    view = tuple(first.shape) + (1,) * len(shape)
    cdt = _compute_dtype(dtype)
    return [p.detach().to(cdt).reshape(view).expand(out_shape).contiguous() for p in params]


_VALIDITY = {
    "gamma": (lambda alpha, beta: bool((alpha > 0).all() and (beta > 0).all()),
              "alpha and beta of the gamma distribution have to be positive"),
    "exponential": (lambda lam: bool((lam > 0).all()),
                    "lambda of the exponential distribution has to be positive"),
    "poisson": (lambda lam: bool((lam >= 0).all()),
                "lambda of the poisson distribution has to be non-negative"),
    "negative_binomial": (lambda k, p: bool((k >= 0).all() and (p > 0).all() and (p <= 1).all()),
                          "k of the negative binomial distribution has to be non-negative and p in (0, 1]"),
    "generalized_negative_binomial": (lambda mu, alpha: bool((mu >= 0).all() and (alpha >= 0).all()),
                                      "mu and alpha of the generalized negative binomial distribution "
                                      "have to be non-negative"),
}


def _register_sample(dist, draw, names):
    """``_sample_<dist>``: for parameter arrays of shape S, samples of shape ``S + shape``."""
    name = "_sample_" + dist
    check = _VALIDITY.get(dist)

    def impl(*params, shape, dtype):
        _check_same_shape(name, names, params)
        if check is not None and not check[0](*params):
            raise MXNetError("Operator %s: %s" % (name, check[1]))

        def draw_all(*ps):
            return draw(*_broadcast_params(ps, shape, dtype)).to(_out_dtype(dtype))
        return _sample_with_zero_grad(draw_all, *params)
    impl.__name__ = name
    impl.__doc__ = ("Samples from %s distributions, one per element of the parameter arrays (%s): for "
                    "parameters of shape S the output has shape ``S + shape``; the parameters get zero "
                    "gradients, as in MXNet." % (dist.replace("_", " "), ", ".join(names)))
    register(name, inputs=names, params=dict(shape=Shape(()), dtype=Dtype(None, choices=_FLOAT_DTYPES)),
             aliases=["sample_" + dist])(impl)


_register_sample("uniform", _draw_uniform, ("low", "high"))
_register_sample("normal", _draw_normal, ("mu", "sigma"))
_register_sample("gamma", _draw_gamma, ("alpha", "beta"))
_register_sample("exponential", _draw_exponential, ("lam",))
_register_sample("poisson", _draw_poisson, ("lam",))
_register_sample("negative_binomial", _draw_negative_binomial, ("k", "p"))
_register_sample("generalized_negative_binomial", _draw_generalized_negative_binomial, ("mu", "alpha"))


# ----------------------------------------------------------------------------- multinomial, shuffle
def _multinomial_outputs(attrs):
    return 2 if attrs["get_prob"] else 1


@register("_sample_multinomial", inputs=("data",), num_outputs=_multinomial_outputs,
          params=dict(shape=Shape(()), get_prob=Bool(False),
                      dtype=Dtype("int32", choices=("float16", "float32", "float64", "int32", "uint8"))),
          aliases=["sample_multinomial"])
def sample_multinomial(data, *, shape, get_prob, dtype):
    """Indices drawn from the categorical distributions along ``data``'s last axis (shape
    ``data.shape[:-1] + shape``, ``(1,)`` when both are empty), by MXNet's inverse-CDF rule:
    the first index whose cumulative probability exceeds a uniform draw. With ``get_prob``
    also the log-likelihoods of the draws (data's dtype), whose gradient reaches ``data``."""
    if data.dim() == 0 or data.shape[-1] == 0:
        raise MXNetError("Operator _sample_multinomial: data must have a non-empty last axis, got shape %s"
                         % (tuple(data.shape),))
    k = data.shape[-1]
    probs = data.reshape(-1, k)
    draws = max(math.prod(shape), 1)
    with torch.no_grad():
        cdf = probs.to(torch.float64 if data.dtype == torch.float64 else torch.float32).cumsum(-1)
        u = torch.rand(probs.shape[0], draws, dtype=cdf.dtype, device=data.device)
        idx = torch.searchsorted(cdf, u, right=True).clamp_(max=k - 1)
    out_shape = (tuple(data.shape[:-1]) + tuple(shape)) or (1,)
    sample = idx.reshape(out_shape).to(torch_dtype(dtype))
    if not get_prob:
        return sample
    logp = torch.log(torch.gather(probs, 1, idx)).reshape(out_shape)
    return sample, logp


class _NonDifferentiable(torch.autograd.Function):
    """Runs ``fn``; a backward pass through it raises MXNet's error for an operator without
    a gradient."""

    @staticmethod
    def forward(ctx, op_name, fn, x):  # pylint: disable=arguments-differ
        ctx.op_name = op_name
        return fn(x)

    @staticmethod
    def backward(ctx, grad):  # pylint: disable=arguments-differ
        raise MXNetError("Operator %s is non-differentiable because it didn't register FGradient attribute."
                         % ctx.op_name)


def _permute_rows(data):
    return data[torch.randperm(data.shape[0], device=data.device)] if data.dim() else data.clone()


@register("_shuffle", differentiable=False, aliases=["shuffle"])
def shuffle(data):
    """A copy of ``data`` with its first axis randomly permuted (rows keep their contents)."""
    if torch.is_grad_enabled() and data.requires_grad:
        return _NonDifferentiable.apply("_shuffle", _permute_rows, data)
    return _permute_rows(data)


# ----------------------------------------------------------------------------- _random_pdf_* (densities)
def _log_pdf_uniform(x, low, high):
    """MXNet's uniform density ignores the support: ``1 / (high - low)`` everywhere."""
    return torch.zeros_like(x) - torch.log(high - low)


def _log_pdf_normal(x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - torch.log(sigma) - 0.5 * math.log(2 * math.pi)


def _log_pdf_gamma(x, alpha, beta):
    """``beta`` is the rate here (MXNet's pdf_gamma), unlike the samplers' scale."""
    return alpha * torch.log(beta) + (alpha - 1) * torch.log(x) - beta * x - torch.lgamma(alpha)


def _log_pdf_exponential(x, lam):
    return torch.log(lam) - lam * x


def _log_pdf_poisson(x, lam):
    return x * torch.log(lam) - torch.lgamma(x + 1) - lam


def _log_pdf_negative_binomial(x, k, p):
    return (torch.lgamma(x + k) - torch.lgamma(x + 1) - torch.lgamma(k)
            + k * torch.log(p) + x * torch.log1p(-p))


def _log_pdf_generalized_negative_binomial(x, mu, alpha):
    """The negative binomial with ``k = 1 / alpha`` and ``p = 1 / (1 + alpha mu)``."""
    return _log_pdf_negative_binomial(x, 1 / alpha, 1 / (1 + alpha * mu))


def _log_pdf_dirichlet(x, alpha):
    return (((alpha - 1) * torch.log(x)).sum(-1) + torch.lgamma(alpha.sum(-1))
            - torch.lgamma(alpha).sum(-1))


def _register_pdf(dist, log_pdf, params, discrete=False):
    """``_random_pdf_<dist>``: densities of ``sample`` (shape ``S + (n,)``, or ``S + (n, k)``
    for the Dirichlet) under the distributions of the parameter arrays (shape S, or
    ``S + (k,)``); the gradient reaches the parameters and, for continuous distributions,
    the sample."""
    name = "_random_pdf_" + dist
    event_dims = 1 if dist == "dirichlet" else 0

    def impl(sample, *values, is_log):
        lead = values[0].dim() - event_dims
        extra = sample.dim() - lead - event_dims
        if extra < 0 or tuple(sample.shape[:lead]) != tuple(values[0].shape[:lead]):
            raise MXNetError("Operator %s: sample %s must have the parameters' leading shape %s"
                             % (name, tuple(sample.shape), tuple(values[0].shape[:lead])))
        _check_same_shape(name, params, values)
        view = [v.reshape(v.shape[:lead] + (1,) * extra + v.shape[lead:]) for v in values]
        out = log_pdf(sample.detach() if discrete else sample, *view)
        return out if is_log else torch.exp(out)
    impl.__name__ = name
    impl.__doc__ = ("The %s density (log-density with ``is_log``) of each sample under the distribution "
                    "of its parameters, as MXNet's %s." % (dist.replace("_", " "), name))
    register(name, inputs=("sample",) + params, params=dict(is_log=Bool(False)),
             aliases=["random_pdf_" + dist])(impl)


_register_pdf("uniform", _log_pdf_uniform, ("low", "high"))
_register_pdf("normal", _log_pdf_normal, ("mu", "sigma"))
_register_pdf("gamma", _log_pdf_gamma, ("alpha", "beta"))
_register_pdf("exponential", _log_pdf_exponential, ("lam",))
_register_pdf("poisson", _log_pdf_poisson, ("lam",), discrete=True)
_register_pdf("negative_binomial", _log_pdf_negative_binomial, ("k", "p"), discrete=True)
_register_pdf("generalized_negative_binomial", _log_pdf_generalized_negative_binomial, ("mu", "alpha"),
              discrete=True)
_register_pdf("dirichlet", _log_pdf_dirichlet, ("alpha",))
