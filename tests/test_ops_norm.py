"""Normalisation, activation-like, softmax and loss/output operators beyond the shared fixtures.

Expected values come from MXNet 1.9.1 (``tools/make_extra_fixtures_norm.py`` writes them
to ``tests/fixtures/extra/norm``): BatchNorm with output_mean_var / use_global_stats /
other axes, LayerNorm/GroupNorm statistics, SoftmaxOutput's options, the regression and
MakeLoss gradients, SVMOutput, CTC losses and their gradients, rrelu in predict mode, and
shape inference. Random behaviour (Dropout, rrelu in train mode) is checked statistically.
"""
import glob
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

EXTRA = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "norm")
CASES = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(EXTRA, "*.npz")))
INFER = json.load(open(os.path.join(EXTRA, "infer.json")))
RTOL, ATOL = 1e-4, 1e-5
TOLERANCE = {"softmax_float16_to_float32": (2e-3, 1e-3)}  # float16 input rounding
# outputs MXNet leaves uninitialised in predict mode (rrelu's mask, SyncBatchNorm's
# statistics): shape only
SHAPE_ONLY = {("rrelu", "out:", 1), ("sync_bn", "out:", 1), ("sync_bn", "out:", 2)}


def load(name):
    """A recorded case: arrays, with the JSON strings (op, attrs, inputs, aux) decoded."""
    rec = dict(np.load(os.path.join(EXTRA, name + ".npz")))
    for k in ("attrs", "inputs", "aux"):
        rec[k] = json.loads(str(rec[k]))
    rec["op"] = str(rec["op"])
    return rec


def close(actual, expected, what, case):
    rtol, atol = TOLERANCE.get(case, (RTOL, ATOL))
    a = actual.asnumpy() if hasattr(actual, "asnumpy") else np.asarray(actual)
    assert a.shape == expected.shape and a.dtype == expected.dtype, \
        "%s %s: %s %s, MXNet gave %s %s" % (case, what, a.shape, a.dtype, expected.shape, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg="%s: %s" % (case, what))


def arrays(rec):
    return {n: mx.nd.array(rec["in:" + n], dtype=rec["in:" + n].dtype) for n in rec["inputs"]}


def outputs(out):
    return out if isinstance(out, list) else [out]


def check_outputs(rec, outs, prefix, case):
    n = len([k for k in rec if k.startswith(prefix)])
    assert len(outs) == n, "%s: %d outputs, MXNet gave %d" % (case, len(outs), n)
    for i, o in enumerate(outs):
        expected = rec["%s%d" % (prefix, i)]
        if (case, prefix, i) in SHAPE_ONLY:
            assert o.shape == expected.shape
        else:
            close(o, expected, "%s%d" % (prefix, i), case)


# ----------------------------------------------------------------------------- against MXNet
@pytest.mark.parametrize("case", CASES)
def test_predict_matches_mxnet(case):
    rec = load(case)
    ins = arrays(rec)
    with mx.autograd.predict_mode():
        outs = outputs(invoke(rec["op"], list(ins.values()), rec["attrs"]))
    check_outputs(rec, outs, "out:", case)
    for a in rec["aux"]:
        close(ins[a], rec["in:" + a], "auxiliary state %s unchanged in predict mode" % a, case)


@pytest.mark.parametrize("case", [c for c in CASES if "head:0" in np.load(os.path.join(EXTRA, c + ".npz"))])
def test_train_and_gradients_match_mxnet(case):
    rec = load(case)
    ins = arrays(rec)
    grads = sorted(k[5:] for k in rec if k.startswith("grad:"))
    for g in grads:
        ins[g].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = outputs(invoke(rec["op"], list(ins.values()), rec["attrs"]))
    check_outputs(rec, outs, "trainout:", case)
    heads = [mx.nd.array(rec["head:%d" % i], dtype=rec["head:%d" % i].dtype) for i in range(len(outs))]
    mx.autograd.backward(outs, heads)
    for g in grads:
        close(ins[g].grad, rec["grad:" + g], "gradient of " + g, case)
    for a in rec["aux"]:  # after backward, where MXNet's BatchNorm updates its moving averages
        close(ins[a], rec["auxafter:" + a], "auxiliary state %s after the train step" % a, case)


@pytest.mark.parametrize("row", INFER, ids=lambda r: "%s-%s" % (r["op"], "-".join(map(str, r["data"]))))
def test_shape_inference_matches_mxnet(row):
    op = registry.get(row["op"])
    attrs = op.parse_attrs(row["attrs"])
    names = op.input_names(attrs)
    shapes = op.infer_args(attrs, [tuple(row["data"])] + [None] * (len(names) - 1)) if op.infer_args \
        else [tuple(row["data"])] + [None] * (len(names) - 1)
    expected = [s for _, s in row["args"]] + [s for _, s in row["aux"]]
    assert [list(s) if s is not None else None for s in shapes] == expected
    assert op.output_names(attrs) == [n[len("x_"):] for n in row["outputs"]]


# ----------------------------------------------------------------------------- Dropout
def _dropout(x, train=True, **attrs):
    with mx.autograd.record(train_mode=train):
        return mx.nd.Dropout(x, **attrs)


def test_dropout_train_zero_rate_and_scaling():
    out = _dropout(mx.nd.ones((200, 100)), p=0.3).asnumpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((out == 0).mean() - 0.3) < 0.02


def test_dropout_gradient_is_the_mask():
    x = mx.nd.ones((50, 40))
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.Dropout(x, p=0.5)
    out.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), out.asnumpy())


def test_dropout_axes_share_the_mask():
    out = _dropout(mx.nd.ones((3, 40, 5)), p=0.5, axes=(0, 2)).asnumpy()
    np.testing.assert_array_equal(out, np.broadcast_to(out[:1, :, :1], out.shape))
    assert 0 < (out[0, :, 0] == 0).sum() < 40


def test_dropout_negative_axis():
    out = _dropout(mx.nd.ones((30, 4)), p=0.5, axes=(-1,)).asnumpy()
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1], out.shape))


def test_dropout_identity_in_predict_mode():
    x = mx.nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_array_equal(_dropout(x, train=False, p=0.9).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(mx.nd.Dropout(x, p=0.9).asnumpy(), x.asnumpy())


def test_dropout_mode_always_drops_in_predict_mode():
    out = _dropout(mx.nd.ones((100, 100)), train=False, p=0.5, mode="always").asnumpy()
    assert set(np.unique(out)) == {0.0, 2.0}


def test_dropout_p_zero_is_identity():
    x = mx.nd.array(np.random.RandomState(0).randn(4, 5))
    np.testing.assert_array_equal(_dropout(x, p=0.0).asnumpy(), x.asnumpy())


def test_dropout_outputs():
    op = registry.get("Dropout")
    attrs = op.parse_attrs({})
    assert (op.num_outputs(attrs), op.num_visible_outputs(attrs)) == (2, 1)


# ----------------------------------------------------------------------------- rrelu
def test_rrelu_train_slopes_within_bounds():
    x = mx.nd.array(-np.ones((50, 40), np.float32))
    x.attach_grad()
    with mx.autograd.record():
        out, mask = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
    out.backward()
    slopes = -out.asnumpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(mask.asnumpy(), slopes)
    np.testing.assert_allclose(x.grad.asnumpy(), slopes)


def test_rrelu_passes_positive_values():
    x = mx.nd.array(np.linspace(0.1, 2, 20))
    with mx.autograd.record():
        out, _ = mx.nd.LeakyReLU(x, act_type="rrelu")
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())


# ----------------------------------------------------------------------------- BatchNorm behaviour
def _bn_args(c=3):
    rng = np.random.RandomState(0)
    return [mx.nd.array(rng.randn(4, c, 5)), mx.nd.ones(c), mx.nd.zeros(c), mx.nd.zeros(c), mx.nd.ones(c)]


def test_batchnorm_global_stats_keeps_moving_stats():
    args = _bn_args()
    with mx.autograd.record():
        mx.nd.BatchNorm(*args, use_global_stats=True)
    np.testing.assert_array_equal(args[3].asnumpy(), 0)
    np.testing.assert_array_equal(args[4].asnumpy(), 1)


def test_batchnorm_train_updates_with_momentum_and_biased_variance():
    args = _bn_args()
    x = args[0].asnumpy()
    args[0].attach_grad()
    with mx.autograd.record():
        out = mx.nd.BatchNorm(*args, momentum=0.75)
    out.backward()
    np.testing.assert_allclose(args[3].asnumpy(), 0.25 * x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(args[4].asnumpy(), 0.75 + 0.25 * x.var((0, 2)), rtol=1e-5)


def test_batchnorm_moving_averages_change_in_backward_only():
    """As MXNet 1.9.1 (checked in the side venv): a recorded train-mode forward that is never
    differentiated, or a train_mode() forward, leaves the moving averages unchanged, in
    Gluon imperatively and hybridized."""
    args = _bn_args()
    args[0].attach_grad()
    with mx.autograd.record():
        mx.nd.BatchNorm(*args)
    with mx.autograd.train_mode():
        mx.nd.BatchNorm(*args)
    assert not args[3].asnumpy().any()
    for hybridize in (False, True):
        net = mx.gluon.nn.BatchNorm()
        net.initialize()
        if hybridize:
            net.hybridize()
        x = mx.nd.random.uniform(shape=(4, 3))
        with mx.autograd.record():
            y = net(x)
        assert not net.running_mean.data().asnumpy().any()
        y.backward()
        np.testing.assert_allclose(net.running_mean.data().asnumpy(), 0.1 * x.asnumpy().mean(0), rtol=1e-5)


def test_batchnorm_output_names():
    op = registry.get("BatchNorm")
    assert op.output_names(op.parse_attrs({"output_mean_var": "True"})) == ["output", "mean", "var"]
    assert op.aux_names(op.parse_attrs({})) == ("moving_mean", "moving_var")


# ----------------------------------------------------------------------------- names and errors
@pytest.mark.parametrize("alias, real", [("Softmax", "SoftmaxOutput"), ("ctc_loss", "CTCLoss"),
                                         ("_contrib_CTCLoss", "CTCLoss"), ("_contrib_ctc_loss", "CTCLoss")])
def test_aliases(alias, real):
    assert registry.get(alias) is registry.get(real)


def test_make_loss_and_MakeLoss_are_distinct():
    assert registry.get("make_loss") is not registry.get("MakeLoss")
    assert registry.get("make_loss").output_names({}) == ["loss"]


@pytest.mark.parametrize("call, words", [
    (lambda: mx.nd.BatchNorm(*_bn_args()[:1], mx.nd.ones(2), *_bn_args()[2:]), ["BatchNorm", "gamma", "(2,)"]),
    (lambda: mx.nd.GroupNorm(mx.nd.ones((2, 5, 3)), mx.nd.ones(2), mx.nd.ones(2), num_groups=2),
     ["GroupNorm", "num_groups", "(2, 5, 3)"]),
    (lambda: mx.nd.LayerNorm(mx.nd.ones((2, 5)), mx.nd.ones(4), mx.nd.ones(4)), ["LayerNorm", "gamma", "(4,)"]),
    (lambda: mx.nd.softmax(mx.nd.ones((2, 3)), mx.nd.array([1, 2]), use_length=True), ["softmax", "length", "integer"]),
    (lambda: mx.nd.log_softmax(mx.nd.ones((2, 3)), use_length=True), ["log_softmax", "use_length"]),
    (lambda: mx.nd.Activation(mx.nd.ones(2), act_type="mish"), ["act_type", "mish"]),
    (lambda: mx.nd.SoftmaxOutput(mx.nd.ones((4, 3)), mx.nd.ones(2)), ["SoftmaxOutput", "(2,)", "(4, 3)"]),
    (lambda: mx.nd.LinearRegressionOutput(mx.nd.ones((4, 3)), mx.nd.ones(4)), ["RegressionOutput", "(4,)"]),
    (lambda: mx.nd.CTCLoss(mx.nd.ones((4, 3)), mx.nd.ones((3, 2))), ["CTCLoss", "(4, 3)"]),
    (lambda: mx.nd.SoftmaxActivation(mx.nd.ones((2, 3)), mode="channel"), ["SoftmaxActivation", "channel"]),
])
def test_user_mistakes_raise_mxnet_error(call, words):
    with pytest.raises(MXNetError) as info:
        call()
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("output_mean_var", [False, True])
def test_batchnorm_with_relu_is_relu_of_batchnorm(output_mean_var):
    """MXNet 1.9.1's _contrib_BatchNormWithReLU gives exactly relu(BatchNorm(...)): outputs,
    mean/var outputs, gradients and moving averages (checked in the side venv)."""
    results = []
    for fused in (True, False):
        args = _bn_args()
        args[1] = mx.nd.array([1.0, 2.0, 3.0])
        for a in args[:3]:
            a.attach_grad()
        with mx.autograd.record():
            if fused:
                outs = mx.nd.contrib.BatchNormWithReLU(*args, fix_gamma=False, output_mean_var=output_mean_var)
            else:
                outs = mx.nd.BatchNorm(*args, fix_gamma=False, output_mean_var=output_mean_var)
                outs = [mx.nd.relu(outs[0])] + list(outs[1:]) if output_mean_var else mx.nd.relu(outs)
            head = outs[0] if output_mean_var else outs
        head.backward()
        results.append([o.asnumpy() for o in (outs if output_mean_var else [outs])] +
                       [a.grad.asnumpy() for a in args[:3]] + [a.asnumpy() for a in args[3:]])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
