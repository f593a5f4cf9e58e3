"""mx.init against MXNet 1.9.1: dumps(), the scales random initializers sample with,
deterministic initializations and the name-suffix dispatch (recorded by
tools/make_extra_fixtures_param.py), and the distributions of the random ones."""
import json
import logging
import os
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import initializer as init_mod

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "param")


def _json(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


DUMPS = _json("dumps.json")
SCALES = _json("scales.json")
VALUES = dict(np.load(os.path.join(FIX, "values.npz")))


def _build(expr):
    return eval(expr, {"mx": mx, "np": np, **{k: getattr(mx.init, k) for k in init_mod.__all__}})  # noqa: S307


@pytest.mark.parametrize("expr", sorted(DUMPS))
def test_dumps_matches_mxnet(expr):
    assert _build(expr).dumps() == DUMPS[expr]


@pytest.mark.parametrize("expr", sorted(DUMPS))
def test_dumps_round_trips_through_create(expr):
    ini = _build(expr)
    assert mx.init.create(ini.dumps()).dumps() == ini.dumps()


def _scale_cases():
    for key in SCALES:
        name, shape = key.split("|")
        yield pytest.param(name, tuple(int(d) for d in shape.split(",")), SCALES[key], id=key)


def _initializer(name):
    if name == "uniform":
        return mx.init.Uniform(0.2)
    if name == "normal":
        return mx.init.Normal(0.5)
    kind, *args = name.split("_")
    if kind == "xavier":
        return mx.init.Xavier(args[0], args[1], float(args[2]))
    return mx.init.MSRAPrelu(args[0], float(args[1]))


@pytest.mark.parametrize("name,shape,expected", list(_scale_cases()))
def test_sampler_arguments_match_mxnet(monkeypatch, name, shape, expected):
    """The distribution and its bounds/std (MXNet's fan computation incl. kernels)."""
    calls = []
    monkeypatch.setattr(init_mod, "_draw", lambda arr, dist, a, b: calls.append((arr.shape, dist, a, b)))
    _initializer(name)(mx.init.InitDesc("w_weight"), mx.nd.zeros(shape))
    (got_shape, dist, a, b), = calls
    assert got_shape == shape
    assert dist == expected[0]
    np.testing.assert_allclose([a, b], expected[1:], rtol=1e-12)


def test_uniform_and_normal_distributions():
    mx.random.seed(3)
    a = mx.nd.zeros((200, 500))
    mx.init.Uniform(0.3)(mx.init.InitDesc("x_weight"), a)
    v = a.asnumpy()
    assert -0.3 <= v.min() < -0.299 and 0.299 < v.max() <= 0.3
    assert abs(v.mean()) < 3e-3 and abs(v.std() - 0.3 / np.sqrt(3)) < 2e-3
    mx.init.Normal(2.0)(mx.init.InitDesc("x_weight"), a)
    v = a.asnumpy()
    assert abs(v.mean()) < 0.02 and abs(v.std() - 2.0) < 0.02


def test_xavier_gaussian_conv_std():
    mx.random.seed(4)
    a = mx.nd.zeros((64, 32, 3, 3))
    mx.init.Xavier("gaussian", "in", 2)(mx.init.InitDesc("conv_weight"), a)
    assert abs(a.asnumpy().std() - np.sqrt(2.0 / (32 * 9))) < 2e-3


def test_seed_makes_draws_repeatable_and_keeps_dtype():
    arrays = []
    for _ in range(2):
        mx.random.seed(11)
        a = mx.nd.zeros((3, 4), dtype="float64")
        mx.init.Xavier()(mx.init.InitDesc("w_weight"), a)
        arrays.append(a)
    assert arrays[0].dtype == np.float64
    np.testing.assert_array_equal(arrays[0].asnumpy(), arrays[1].asnumpy())


@pytest.mark.parametrize("shape", ["2x1x4x4", "1x3x5x3", "2x2x3x6"])
def test_bilinear_matches_mxnet(shape):
    a = mx.nd.zeros(tuple(int(d) for d in shape.split("x")))
    mx.init.Bilinear()(mx.init.InitDesc("up_weight"), a)
    np.testing.assert_array_equal(a.asnumpy(), VALUES["bilinear_" + shape])


@pytest.mark.parametrize("n,forget_bias", [(8, 1.0), (12, 2.5)])
def test_lstm_bias_matches_mxnet(n, forget_bias):
    a = mx.nd.full((n,), 9.0)
    ini = mx.init.LSTMBias(forget_bias)
    mx.init.Uniform()(mx.init.InitDesc("lstm_i2h_bias", {"__init__": ini.dumps()}), a)
    np.testing.assert_array_equal(a.asnumpy(), VALUES["lstmbias_%d" % n])


def test_constant_scalar_and_broadcast_array():
    a = mx.nd.zeros((2, 3))
    mx.init.Constant(mx.nd.array([1, 2, 3]))(mx.init.InitDesc("c_weight"), a)
    np.testing.assert_array_equal(a.asnumpy(), VALUES["constant_broadcast"])
    mx.init.Constant(-1.5)(mx.init.InitDesc("c_weight"), a)
    assert (a.asnumpy() == -1.5).all()


@pytest.mark.parametrize("shape", ["3x5", "5x3", "4x2x3", "6x6"])
def test_orthogonal_matches_mxnet_for_the_same_random_matrix(monkeypatch, shape):
    tmp = VALUES["orthogonal_tmp_" + shape]

    def draw(arr, dist, a, b):
        assert (dist, a, b) == ("uniform", -1.0, 1.0) and arr.shape == tmp.shape
        arr[:] = tmp
    monkeypatch.setattr(init_mod, "_draw", draw)
    a = mx.nd.zeros(tuple(int(d) for d in shape.split("x")))
    mx.init.Orthogonal(scale=1.5)(mx.init.InitDesc("w_weight"), a)
    got, want = (x.reshape(len(tmp), -1) for x in (a.asnumpy(), VALUES["orthogonal_" + shape]))
    # singular vectors are unique up to sign (LAPACK builds may differ): align each vector
    axis = 0 if got.shape[0] >= got.shape[1] else 1
    signs = np.sign(np.sum(got * want, axis=axis, keepdims=True))
    np.testing.assert_allclose(got * signs, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal_rows_are_orthogonal(rand_type):
    a = mx.nd.zeros((4, 2, 5))
    mx.init.Orthogonal(scale=2.0, rand_type=rand_type)(mx.init.InitDesc("w_weight"), a)
    m = a.asnumpy().reshape(4, 10)
    np.testing.assert_allclose(m @ m.T, 4.0 * np.eye(4), atol=1e-4)


@pytest.mark.parametrize("name", ["fc_weight", "fc_bias", "bn_gamma", "bn_beta", "q_min", "q_max"])
def test_suffix_dispatch_matches_mxnet(name):
    a = mx.nd.full((2, 2), 5.0)
    mx.init.One()(mx.init.InitDesc(name), a)
    np.testing.assert_array_equal(a.asnumpy(), VALUES["dispatch_" + name])


@pytest.mark.parametrize("name", ["bn_moving_mean", "bn_moving_var", "x_moving_inv_var", "x_moving_avg",
                                  "stn_loc_bias", "stn_loc_weight", "fc_bias", "fc_weight", "upsampling0_weight"])
def test_legacy_string_dispatch_matches_mxnet(name):
    a = mx.nd.full((6, 1, 2, 2) if "upsampling" in name else (6,), 5.0)
    with pytest.warns(DeprecationWarning):
        mx.init.One()(name, a)
    np.testing.assert_array_equal(a.asnumpy(), VALUES["legacy_" + name])


def test_init_attribute_takes_precedence_over_suffix():
    a = mx.nd.zeros((2, 2))
    mx.init.Zero()(mx.init.InitDesc("fc_bias", {"__init__": '["constant", {"value": 2}]'}), a)
    assert (a.asnumpy() == 2).all()
    desc = mx.init.InitDesc("fc_bias", {"__init__": "ones"})
    mx.init.Zero()(desc, a)
    assert (a.asnumpy() == 1).all() and isinstance(desc.global_init, mx.init.Zero)


def test_init_desc_is_a_string_with_attrs():
    desc = mx.init.InitDesc("w", {"a": "1"})
    assert desc == "w" and isinstance(desc, str) and desc.attrs == {"a": "1"} and desc.global_init is None


def test_create_by_name_alias_json_and_instance():
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    assert isinstance(mx.init.create("ONES"), mx.init.One)
    assert isinstance(mx.initializer.create("Xavier", magnitude=2), mx.init.Xavier)
    x = mx.init.create('["xavier", {"magnitude": 2}]')
    assert x.magnitude == 2.0 and x == mx.init.Xavier(magnitude=2)
    assert mx.init.create('{"initializer": "normal", "sigma": 0.2}').sigma == 0.2
    assert mx.init.create({"initializer": "uniform", "scale": 0.3}).scale == 0.3
    n = mx.init.Normal()
    assert mx.init.create(n) is n
    with pytest.raises(AssertionError, match="already an instance"):
        mx.init.create(n, 1)


def test_register_custom_initializer_and_alias():
    @mx.init.register
    @mx.init.alias("paramtestinit")
    class ParamTestCustom(mx.init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 0.5

    a = mx.nd.zeros((2,))
    for name in ("paramtestcustom", "paramtestinit"):
        mx.init.create(name)(mx.init.InitDesc("x_weight"), a)
        assert (a.asnumpy() == 0.5).all()
    with pytest.raises(AssertionError, match="Can only register subclass"):
        mx.init.register(dict)
    with pytest.warns(UserWarning, match="overriding"):
        mx.init.register(ParamTestCustom)


def test_base_initializer_without_init_weight_raises_value_error():
    with pytest.raises(ValueError, match="does not define _init_weight"):
        mx.init.Initializer()(mx.init.InitDesc("fc_weight"), mx.nd.zeros((2,)))


def test_mixed_picks_first_matching_pattern():
    mixed = mx.init.Mixed([".*bias", ".*"], [mx.init.Constant(7), mx.init.Constant(3)])
    a, b = mx.nd.ones((2,)), mx.nd.zeros((2,))
    mixed(mx.init.InitDesc("fc_bias"), a)
    mixed(mx.init.InitDesc("fc_weight"), b)
    # a bias matched by '.*bias' still takes the suffix pattern of Constant: zeros
    assert (a.asnumpy() == 0).all() and (b.asnumpy() == 3).all()
    with pytest.raises(ValueError, match="did not match any pattern"):
        mx.init.Mixed(["a"], [mx.init.One()])("b", a)
    with pytest.raises(AssertionError):
        mx.init.Mixed(["a", "b"], [mx.init.One()])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_load_from_dict_and_file_with_default(tmp_path, caplog):
    path = str(tmp_path / "w.params")
    mx.nd.save(path, {"arg:fc_weight": mx.nd.full((2, 2), 4.0), "aux:bn_moving_var": mx.nd.full((3,), 2.0)})
    for source in (path, mx.nd.load(path)):
        load = mx.init.Load(source, default_init=mx.init.Constant(-1), verbose=True)
        w, v, other = mx.nd.zeros((2, 2)), mx.nd.zeros((3,)), mx.nd.zeros((2,))
        with caplog.at_level(logging.INFO):
            load("fc_weight", w)
            load("bn_moving_var", v)
            load("other_weight", other)
        assert (w.asnumpy() == 4).all() and (v.asnumpy() == 2).all() and (other.asnumpy() == -1).all()
    assert "Initialized fc_weight by loading" in caplog.text and "other_weight by default" in caplog.text


def test_verbose_logs_each_initialization(caplog):
    ini = mx.init.One().set_verbosity(True)
    with caplog.at_level(logging.INFO):
        ini(mx.init.InitDesc("fc_weight"), mx.nd.zeros((4,)))
    assert "Initialized fc_weight as weight: 1.0" in caplog.text


def test_quantized_patterns():
    a = mx.nd.full((50,), 300.0, dtype="int32")
    mx.init.One()(mx.init.InitDesc("fc_weight_quantize"), a)
    assert -127 <= a.asnumpy().min() and a.asnumpy().max() < 127
    mx.init.One()(mx.init.InitDesc("fc_bias_quantize"), a)
    assert (a.asnumpy() == 0).all()


def test_equality():
    assert mx.init.Uniform() == mx.init.Uniform(0.07)
    assert mx.init.Uniform() != mx.init.Normal()
    assert mx.init.Xavier(magnitude=2) != mx.init.Xavier()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len({mx.init.Uniform(), mx.init.Uniform()}) == 2
