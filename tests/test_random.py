"""Sampling operators (``_random_*``, ``_random_*_like``, ``_sample_*``, ``_shuffle``),
``mx.nd.random`` and ``mx.random``.

neogluon's generator is not MXNet's, so distributions are checked statistically (means
and variances of large samples within a few standard errors, supports, dtypes, shapes),
and schemas against MXNet 1.9.1's operator table (tests/fixtures/extra/io/random_ops.json,
the relevant part of MXNet's operator dump).
"""
import json
import os

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

N = 200_000
EXTRA = os.path.join(os.path.dirname(__file__), "fixtures", "extra")
SCHEMA = json.load(open(os.path.join(EXTRA, "io", "random_ops.json")))
PDF = np.load(os.path.join(EXTRA, "random", "pdf.npz"))  # tools/make_extra_fixtures_random.py


@pytest.fixture(autouse=True)
def seeded():
    mx.random.seed(1234)


def moments(x):
    v = x.asnumpy().astype(np.float64)
    return v.mean(), v.var()


def assert_moments(x, mean, var, z=6.0):
    """Sample mean and variance within ``z`` standard errors (variance error from the
    kurtosis-free bound ``var * sqrt(2 / n)`` widened by ``z``)."""
    m, v = moments(x)
    n = x.size
    assert abs(m - mean) < z * np.sqrt(var / n) + 1e-12, (m, mean)
    assert abs(v - var) < z * var * np.sqrt(2.0 / n) * 3 + 1e-12, (v, var)


# ------------------------------------------------------------------ schemas
def test_every_mxnet_sampling_op_and_alias_is_registered():
    for name, info in SCHEMA.items():
        op = registry.get(name)
        assert op is registry.get(info["real"]), name


@pytest.mark.parametrize("name", sorted(n for n, info in SCHEMA.items() if n == info["real"]))
def test_params_match_mxnet(name):
    op = registry.get(name)
    args = SCHEMA[name]["args"]
    inputs = [a for a, t in args if t.startswith("NDArray")]
    params = [a for a, t in args if not t.startswith("NDArray")]
    assert list(op.all_input_names()) == inputs
    assert list(op.param_names) == params


# ------------------------------------------------------------------ _random_* distributions
def test_uniform():
    x = mx.nd.random.uniform(-2, 3, shape=(N,))
    assert x.dtype == np.float32 and x.shape == (N,)
    v = x.asnumpy()
    assert v.min() >= -2 and v.max() < 3
    assert_moments(x, 0.5, 25 / 12)


def test_normal():
    assert_moments(mx.nd.random.normal(1.5, 2.0, shape=(N,)), 1.5, 4.0)


def test_gamma():
    assert_moments(mx.nd.random.gamma(2.5, 1.5, shape=(N,)), 2.5 * 1.5, 2.5 * 1.5 ** 2)


def test_small_shape_gamma():
    x = mx.nd.random.gamma(0.3, 2.0, shape=(N,))
    assert x.asnumpy().min() >= 0
    assert_moments(x, 0.6, 0.3 * 4)


def test_exponential_takes_a_scale():
    assert_moments(mx.nd.random.exponential(4.0, shape=(N,)), 4.0, 16.0)


def test_exponential_op_takes_a_rate():
    assert_moments(invoke("_random_exponential", (), dict(lam=4.0, shape=(N,))), 0.25, 1 / 16)


def test_poisson():
    x = mx.nd.random.poisson(3.5, shape=(N,))
    v = x.asnumpy()
    assert x.dtype == np.float32 and np.all(v == np.round(v)) and v.min() >= 0
    assert_moments(x, 3.5, 3.5)


def test_negative_binomial():
    k, p = 3, 0.4
    x = mx.nd.random.negative_binomial(k, p, shape=(N,))
    assert np.all(x.asnumpy() == np.round(x.asnumpy()))
    assert_moments(x, k * (1 - p) / p, k * (1 - p) / p ** 2)


def test_generalized_negative_binomial():
    mu, alpha = 2.0, 0.5
    assert_moments(mx.nd.random.generalized_negative_binomial(mu, alpha, shape=(N,)), mu, mu + alpha * mu ** 2)
    # alpha = 0 is the Poisson distribution
    assert_moments(mx.nd.random.generalized_negative_binomial(mu, 0.0, shape=(N,)), mu, mu)


def test_randint():
    x = mx.nd.random.randint(-3, 7, shape=(N,))
    v = x.asnumpy()
    assert x.dtype == np.int32 and v.min() == -3 and v.max() == 6
    assert_moments(x, 1.5, (10 ** 2 - 1) / 12)
    assert mx.nd.random.randint(0, 2 ** 40, shape=(3,), dtype="int64").dtype == np.int64


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name,params", [("_random_uniform", {}), ("_random_normal", {}), ("_random_gamma", {}),
                                         ("_random_exponential", {}), ("_random_poisson", {"lam": 2.0}),
                                         ("_random_negative_binomial", {"k": 2, "p": 0.5}),
                                         ("_random_generalized_negative_binomial", {})])
def test_random_ops_shapes_and_dtypes(name, params, dtype):
    x = invoke(name, (), dict(params, shape=(3, 4), dtype=dtype))
    assert x.shape == (3, 4) and x.dtype == np.dtype(dtype)
    assert np.isfinite(x.asnumpy()).all()
    assert invoke(name, (), dict(params, shape=5)).dtype == np.float32  # dtype None -> float32


@pytest.mark.parametrize("name,params,message", [
    ("_random_uniform", dict(low=2.0, high=1.0), "low must be less or equal to high"),
    ("_random_normal", dict(scale=0.0), "scale parameter in gaussian has to be positive"),
    ("_random_gamma", dict(alpha=-1.0), "alpha parameter in gamma distribution has to be positive"),
    ("_random_gamma", dict(beta=0.0), "beta parameter in gamma distribution has to be positive"),
    ("_random_exponential", dict(lam=0.0), "lambda parameter in exponential distribution has to be positive"),
    ("_random_poisson", dict(lam=-1.0), "lambda parameter in poisson distribution has to be non-negative"),
    ("_random_negative_binomial", dict(k=-1), "k parameter in negative binomial"),
    ("_random_negative_binomial", dict(p=1.5), "p parameter in negative binomial"),
    ("_random_generalized_negative_binomial", dict(mu=-1.0), "mu parameter"),
    ("_random_generalized_negative_binomial", dict(alpha=-1.0), "alpha parameter"),
    ("_random_randint", dict(low=5, high=5), "low must be less than high"),
    ("_random_uniform", dict(dtype="int32"), "dtype"),
    ("_random_randint", dict(low=0, high=5, dtype="float32"), "dtype"),
])
def test_invalid_parameters_raise(name, params, message):
    with pytest.raises(MXNetError, match=message):
        invoke(name, (), dict(params, shape=(2,)))


def test_missing_shape_raises():
    with pytest.raises(MXNetError, match="_random_uniform: the output shape is unknown"):
        invoke("_random_uniform", (), {})


# ------------------------------------------------------------------ _random_*_like
@pytest.mark.parametrize("name", sorted(n for n in SCHEMA if n.endswith("_like") and n == SCHEMA[n]["real"]))
def test_like_ops_take_shape_and_dtype(name):
    data = mx.nd.zeros((4, 5), dtype="float64")
    x = invoke(name, (data,), {"p": 0.5} if "_negative_binomial" in name and "generalized" not in name else {})
    assert x.shape == (4, 5) and x.dtype == np.float64
    with pytest.raises(MXNetError, match="only support floating point types, not int32"):
        invoke(name, (mx.nd.zeros((2,), dtype="int32"),), {})


def test_like_moments():
    assert_moments(mx.nd.random.normal_like(mx.nd.zeros((N,)), loc=1.0, scale=3.0), 1.0, 9.0)
    assert_moments(mx.nd.random.uniform_like(mx.nd.zeros((N,)), low=0.0, high=2.0), 1.0, 4 / 12)


# ------------------------------------------------------------------ _sample_* (parameter arrays)
def test_sample_shapes_and_per_element_parameters():
    mu = mx.nd.array([[0.0, 10.0], [-5.0, 100.0]])
    sigma = mx.nd.array([[1.0, 0.5], [2.0, 3.0]])
    x = mx.nd.random.normal(mu, sigma, shape=(N // 4,))
    assert x.shape == (2, 2, N // 4) and x.dtype == np.float32
    v = x.asnumpy().astype(np.float64)
    np.testing.assert_allclose(v.mean(-1), mu.asnumpy(), atol=0.05)
    np.testing.assert_allclose(v.std(-1), sigma.asnumpy(), rtol=0.02)
    assert mx.nd.random.normal(mu, sigma).shape == (2, 2)


@pytest.mark.parametrize("fn,params,mean", [
    (mx.nd.random.uniform, ([1.0, 4.0], [3.0, 5.0]), [2.0, 4.5]),
    (mx.nd.random.gamma, ([2.0, 5.0], [1.0, 0.5]), [2.0, 2.5]),
    (mx.nd.random.exponential, ([2.0, 0.5],), [2.0, 0.5]),
    (mx.nd.random.poisson, ([1.0, 6.0],), [1.0, 6.0]),
    (mx.nd.random.negative_binomial, ([2.0, 4.0], [0.5, 0.8]), [2.0, 1.0]),
    (mx.nd.random.generalized_negative_binomial, ([2.0, 3.0], [0.0, 0.5]), [2.0, 3.0]),
])
def test_sample_means(fn, params, mean):
    arrays = [mx.nd.array(p, dtype="float64") for p in params]
    x = fn(*arrays, shape=(N // 2,), dtype="float64")
    assert x.shape == (2, N // 2) and x.dtype == np.float64
    np.testing.assert_allclose(x.asnumpy().mean(-1), mean, rtol=0.03)


def test_sample_dtype_defaults_to_float32_and_checks_shapes():
    low = mx.nd.zeros((3,), dtype="float64")
    assert mx.nd.random.uniform(low, low + 1, shape=2).dtype == np.float32
    assert mx.nd.random.uniform(low, low + 1, dtype="float16").dtype == np.float16
    with pytest.raises(MXNetError, match="low and high must have the same shape"):
        mx.nd.random.uniform(low, mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="alpha and beta of the gamma distribution"):
        mx.nd.random.gamma(mx.nd.array([-1.0]), mx.nd.array([1.0]))
    with pytest.raises(MXNetError, match="lambda of the poisson distribution"):
        mx.nd.random.poisson(mx.nd.array([-1.0]))


def test_sampling_gives_parameters_zero_gradients():
    mu, sigma = mx.nd.array([1.0, 2.0]), mx.nd.array([1.0, 2.0])
    data = mx.nd.ones((2, 3))
    for x in (mu, sigma, data):
        x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.random.normal(mu, sigma, shape=3) + mx.nd.random.normal_like(data)
    y.backward()
    for x in (mu, sigma, data):
        np.testing.assert_array_equal(x.grad.asnumpy(), 0)


# ------------------------------------------------------------------ multinomial
def test_multinomial_frequencies_and_shapes():
    probs = mx.nd.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    x = mx.nd.random.multinomial(probs, shape=N // 2)
    assert x.shape == (2, N // 2) and x.dtype == np.int32
    counts = np.stack([np.bincount(r, minlength=3) for r in x.asnumpy()]) / (N // 2)
    np.testing.assert_allclose(counts, probs.asnumpy(), atol=0.01)
    assert mx.nd.random.multinomial(mx.nd.array([0.2, 0.8])).shape == (1,)
    assert mx.nd.random.multinomial(probs).shape == (2,)
    assert mx.nd.random.multinomial(probs, shape=(2, 3), dtype="float32").dtype == np.float32


def test_multinomial_log_likelihood_and_its_gradient():
    probs = mx.nd.array([[0.2, 0.8], [0.7, 0.3]], dtype="float64")
    probs.attach_grad()
    with mx.autograd.record():
        sample, logp = mx.nd.random.multinomial(probs, shape=4, get_prob=True)
    assert logp.dtype == np.float64 and logp.shape == (2, 4)
    idx = sample.asnumpy()
    p = probs.asnumpy()
    np.testing.assert_allclose(logp.asnumpy(), np.log(np.take_along_axis(p, idx, 1)))
    logp.backward()
    counts = np.stack([np.bincount(r, minlength=2) for r in idx])
    np.testing.assert_allclose(probs.grad.asnumpy(), counts / p)


# ------------------------------------------------------------------ shuffle
def test_shuffle_permutes_rows():
    data = mx.nd.array(np.arange(200).reshape(100, 2), dtype="int32")
    out = mx.nd.random.shuffle(data)
    assert out.dtype == np.int32 and out.shape == (100, 2)
    rows = out.asnumpy()
    np.testing.assert_array_equal(rows[:, 1] - rows[:, 0], 1)
    assert sorted(rows[:, 0]) == list(range(0, 200, 2)) and not np.array_equal(rows, data.asnumpy())
    np.testing.assert_array_equal(data.asnumpy(), np.arange(200).reshape(100, 2))
    assert sorted(mx.nd.shuffle(mx.nd.arange(5)).asnumpy()) == [0, 1, 2, 3, 4]


def test_shuffle_has_no_gradient():
    x = mx.nd.ones((3,))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.random.shuffle(x * 2)
    with pytest.raises(MXNetError, match="_shuffle is non-differentiable"):
        y.backward()


# ------------------------------------------------------------------ front functions and seeding
def test_front_function_defaults_and_dispatch():
    assert mx.random.uniform().shape == (1,)
    assert mx.random.randn(2, 3).shape == (2, 3)
    assert mx.random.randn(2, loc=5.0, scale=0.001).asnumpy().round().tolist() == [5.0, 5.0]
    assert mx.random.normal(shape=(2, 2), dtype="float64").dtype == np.float64
    assert mx.random.uniform(ctx=mx.cpu()).context == mx.cpu()
    with pytest.raises(TypeError, match="same type"):
        mx.random.uniform(mx.nd.zeros((1,)), 1.0)
    with pytest.raises(TypeError, match="same type"):
        mx.random.uniform(0.0, mx.nd.ones((1,)))
    with pytest.raises(ValueError, match="either NDArray or numbers"):
        mx.random.uniform("0", 1)


def test_out_gives_shape_and_dtype():
    out = mx.nd.zeros((3, 2), dtype="float64")
    res = mx.random.normal(10.0, 1.0, out=out)
    assert res is out and out.dtype == np.float64 and abs(out.asnumpy().mean() - 10) < 3
    ints = mx.nd.zeros((4,), dtype="int64")
    mx.random.randint(0, 3, out=ints)
    assert set(ints.asnumpy()) <= {0, 1, 2}


SAMPLERS = [
    lambda: mx.random.uniform(shape=5), lambda: mx.random.normal(shape=5), lambda: mx.random.randn(5),
    lambda: mx.random.randint(0, 100, shape=5), lambda: mx.random.exponential(shape=5),
    lambda: mx.random.gamma(2.0, shape=5), lambda: mx.random.poisson(3.0, shape=5),
    lambda: mx.random.negative_binomial(3, 0.5, shape=5), lambda: mx.random.generalized_negative_binomial(shape=5),
    lambda: mx.random.multinomial(mx.nd.array([0.3, 0.7]), shape=5), lambda: mx.random.shuffle(mx.nd.arange(5)),
    lambda: mx.random.normal(mx.nd.zeros((2,)), mx.nd.ones((2,)), shape=3),
]


def test_seed_makes_runs_repeatable():
    def run():
        return [f().asnumpy() for f in SAMPLERS]
    mx.random.seed(7)
    first = run()
    mx.random.seed(7)
    for a, b in zip(first, run()):
        np.testing.assert_array_equal(a, b)
    mx.random.seed(8)
    assert not np.array_equal(first[0], SAMPLERS[0]().asnumpy())


def test_seed_one_device_and_argument_checks():
    mx.random.seed(3, ctx=mx.cpu())
    a = mx.random.uniform(shape=4).asnumpy()
    mx.random.seed(3, ctx="cpu(0)")
    np.testing.assert_array_equal(a, mx.random.uniform(shape=4).asnumpy())
    mx.random.seed(3 + 2 ** 32)  # taken as a C int, as in MXNet
    np.testing.assert_array_equal(a, mx.random.uniform(shape=4).asnumpy())
    with pytest.raises(ValueError, match="seed_state must be int"):
        mx.random.seed(1.5)


def test_namespaces():
    # MXNet's mx.random has no __all__: 'from mxnet.random import *' takes every public name
    assert set(mx.random.__all__) >= {"seed", "uniform", "normal", "randn", "poisson", "exponential", "gamma",
                                      "multinomial", "negative_binomial", "generalized_negative_binomial",
                                      "shuffle", "randint"}
    for name in ("uniform_like", "normal_like", "gamma_like", "exponential_like", "poisson_like",
                 "negative_binomial_like", "generalized_negative_binomial_like"):
        assert callable(getattr(mx.nd.random, name))
    assert mx.nd.random_uniform is not None and mx.nd.sample_normal is not None


# ------------------------------------------------------------------ densities
@pytest.mark.parametrize("case", sorted({k.split("/")[0] for k in PDF.files}))
def test_pdf_values_and_gradients_match_mxnet(case):
    dist = case[:-len("_log")] if case.endswith("_log") else case
    names = [k.split(":")[1] for k in PDF.files if k.startswith(case + "/in:")]
    arrays = [mx.nd.array(PDF["%s/in:%s" % (case, n)], dtype="float64") for n in names]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = invoke("_random_pdf_" + dist, arrays, {"is_log": case.endswith("_log")})
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), PDF[case + "/out"], rtol=1e-6, atol=1e-10)
    for n, a in zip(names, arrays):
        np.testing.assert_allclose(a.grad.asnumpy(), PDF["%s/grad:%s" % (case, n)], rtol=1e-5, atol=1e-9,
                                   err_msg="gradient of " + n)


def test_pdf_shape_errors():
    with pytest.raises(MXNetError, match="leading shape"):
        mx.nd.random_pdf_normal(mx.nd.ones((3, 4)), mx.nd.zeros((2,)), mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="mu and sigma must have the same shape"):
        mx.nd.random_pdf_normal(mx.nd.ones((2, 4)), mx.nd.zeros((2,)), mx.nd.ones((2, 1)))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_gpu_sampling_and_seeding():
    ctx = mx.gpu(0)
    mx.random.seed(11)
    a = mx.random.normal(shape=(1000,), ctx=ctx)
    assert a.context == ctx
    mx.random.seed(11, ctx=ctx)
    np.testing.assert_array_equal(a.asnumpy(), mx.random.normal(shape=(1000,), ctx=ctx).asnumpy())
    params = mx.nd.array([1.0, 2.0], ctx=ctx)
    assert mx.random.gamma(params, params, shape=10).context == ctx
    probs = mx.nd.array([[0.5, 0.5]], ctx=ctx)
    assert mx.random.multinomial(probs, shape=4).context == ctx
    assert mx.random.shuffle(mx.nd.arange(10, ctx=ctx)).context == ctx
