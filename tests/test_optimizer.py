"""Optimizer update operators and mx.optimizer against MXNet 1.9.1's recordings
(tools/make_extra_fixtures_train.py): one call of every update operator, and four steps of
every optimizer on two parameters (weight decay, clipping, rescaling, momentum, float16
weights with multi_precision, lr_mult/wd_mult, a scheduler)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.ndarray.ndarray import invoke

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "train")
OPS = json.load(open(os.path.join(FIX, "ops.json")))
OPS_DATA = np.load(os.path.join(FIX, "ops.npz"))
OPTS = json.load(open(os.path.join(FIX, "optimizers.json")))
OPTS_DATA = np.load(os.path.join(FIX, "optimizers.npz"))


def _close(actual, expected, what):
    tol = 2e-3 if expected.dtype == np.float16 else 1e-5
    assert actual.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, actual.dtype, expected.dtype)
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=tol, atol=tol,
                               err_msg=what)


@pytest.mark.parametrize("case", OPS, ids=[c["case"] for c in OPS])
def test_update_operator(case):
    name = case["case"]
    inputs = [mx.nd.array(OPS_DATA["%s/in:%s" % (name, i)], dtype=OPS_DATA["%s/in:%s" % (name, i)].dtype)
              for i in case["inputs"]]
    out = invoke(case["op"], inputs, case["attrs"])
    if name.endswith("_skip"):  # MXNet leaves the output unwritten; neogluon returns the weight
        np.testing.assert_array_equal(out.asnumpy(), OPS_DATA["%s/in:weight" % name])
    else:
        _close(out.asnumpy(), OPS_DATA["%s/out" % name], "%s output" % name)
    for i, arr in zip(case["inputs"], inputs):
        _close(arr.asnumpy(), OPS_DATA["%s/after:%s" % (name, i)], "%s input %s after the call" % (name, i))


def test_update_operator_out_writes_weight():
    w = mx.nd.array([1.0, 2.0])
    mom = mx.nd.zeros(2)
    mx.nd.sgd_mom_update(w, mx.nd.array([1.0, -1.0]), mom, out=w, lr=0.5, momentum=0.9)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 2.5])
    np.testing.assert_allclose(mom.asnumpy(), [-0.5, 0.5])


def test_update_operator_errors():
    with pytest.raises(mx.MXNetError, match="sgd_update.*grad has shape"):
        mx.nd.sgd_update(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), lr=0.1)
    with pytest.raises(mx.MXNetError, match="Required parameter lr"):
        mx.nd.sgd_update(mx.nd.ones(2), mx.nd.ones(2))
    assert mx.nd.sparse.adagrad_update is not None and mx.nd.sparse.sgd_update is not None


def _make_optimizer(case):
    kwargs = dict(case["kwargs"])
    extra = case["extra"]
    if extra.get("idx2name"):
        kwargs["param_idx2name"] = {0: "fc_weight", 1: "fc_bias"}
    if extra.get("sched"):
        cls, skw = extra["sched"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**skw)
    opt = mx.optimizer.create(case["optimizer"], **kwargs)
    if "lr_mult" in extra:
        opt.set_lr_mult(extra["lr_mult"])
    if "wd_mult" in extra:
        opt.set_wd_mult({int(k) if k.isdigit() else k: v for k, v in extra["wd_mult"].items()})
    return opt


@pytest.mark.parametrize("case", OPTS, ids=[c["case"] for c in OPTS])
def test_optimizer_trajectory(case):
    name, dtype = case["case"], case["dtype"]
    opt = _make_optimizer(case)
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(OPTS_DATA["init:%d" % i], dtype=dtype) for i in range(2)]
    for t in range(4):
        for i, w in enumerate(weights):
            updater(i, mx.nd.array(OPTS_DATA["grad:%d:%d" % (t, i)], dtype=dtype), w)
            _close(w.asnumpy(), OPTS_DATA["%s/traj:%d" % (name, i)][t], "%s param %d step %d" % (name, i, t + 1))
    assert opt.num_update == case["num_update"]


def test_an_updater_takes_empty_lists():
    """MXNet 1.9.1's updater does nothing for ``updater([], [], [])`` (checked against it);
    the aggregated path (SGD's) must not look at a first weight that is not there."""
    for name in ("sgd", "adam"):
        opt = mx.optimizer.create(name)
        mx.optimizer.get_updater(opt)([], [], [])
        assert opt.num_update == 0


def test_create_and_register():
    assert isinstance(mx.optimizer.create("SGD", momentum=0.9), mx.optimizer.SGD)
    assert mx.optimizer.create("adam").lr == 0.001
    assert mx.optimizer.create("ftrl").lr == 0.1
    with pytest.raises(ValueError, match="Cannot find optimizer nosuch"):
        mx.optimizer.create("nosuch")

    @mx.optimizer.register
    class MyHalfStep(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight[:] -= 0.5 * grad

    w = mx.nd.ones(2)
    mx.optimizer.get_updater(mx.optimizer.create("myhalfstep"))(0, mx.nd.ones(2), w)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])


def test_learning_rate_and_scheduler():
    opt = mx.optimizer.SGD(learning_rate=0.3)
    assert opt.learning_rate == 0.3
    opt.set_learning_rate(0.2)
    assert opt.learning_rate == 0.2
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been defined"):
        opt.set_learning_rate(0.1)
    opt.num_update = 3
    assert opt.learning_rate == 0.25


def test_wd_mult_defaults_from_names():
    opt = mx.optimizer.SGD(wd=0.1, param_idx2name={0: "fc_weight", 1: "fc_bias", 2: "bn_gamma", 3: "bn_beta"})
    assert [opt._get_wd(i) for i in range(4)] == [0.1, 0.0, 0.1, 0.0]
    opt.set_lr_mult({"fc_bias": 3.0})
    assert opt._get_lr(1) == pytest.approx(0.03)


def test_states_round_trip():
    opt = mx.optimizer.Adam(learning_rate=0.1)
    upd = mx.optimizer.get_updater(opt)
    w = mx.nd.array([1.0, -1.0])
    for _ in range(2):
        upd(0, mx.nd.array([0.5, 0.25]), w)
    blob = upd.get_states(dump_optimizer=True)
    other = mx.optimizer.get_updater(mx.optimizer.Adam())
    other.set_states(blob)
    assert other.optimizer.lr == 0.1 and other.optimizer.num_update == 2
    w2 = w.copy()
    upd(0, mx.nd.array([0.5, 0.25]), w)
    other(0, mx.nd.array([0.5, 0.25]), w2)
    np.testing.assert_allclose(w2.asnumpy(), w.asnumpy())
    states_only = mx.optimizer.states.loads(upd.get_states())  # MXNet's pickle: mxnet.* class names
    assert set(states_only) == {0} and len(states_only[0]) == 2


def test_adam_update_complements_betas_in_float32():
    """MXNet's Adam kernel computes ``1.f - beta2`` on the float32 parameter (0.00099998713,
    not 0.001): three ``adam_update`` steps give MXNet 1.9.1's numbers to the last bit."""
    w = mx.nd.array([[0.5, -0.25, 1.0]])
    g = mx.nd.array([[2.0, -3.0, 0.125]])
    m, v = mx.nd.zeros((1, 3)), mx.nd.zeros((1, 3))
    for _ in range(3):
        mx.nd.adam_update(w, g, m, v, out=w, lr=0.01, wd=0.1, rescale_grad=0.5)
    np.testing.assert_array_equal(w.asnumpy(), np.array(
        [[0.3763939440250397, -0.12638896703720093, 0.8764914274215698]], np.float32))
    np.testing.assert_array_equal(v.asnumpy(), np.array(
        [[0.0032820175401866436, 0.006937635131180286, 7.576865755254403e-05]], np.float32))


def test_group_adagrad_matches_mxnet():
    """``mx.optimizer.contrib.GroupAdaGrad`` (registered as 'groupadagrad'): one history per
    row; dense and row_sparse gradients. Expected values from MXNet 1.9.1."""
    rng = np.random.RandomState(0)
    w0, g1, g2 = (rng.randn(3, 2).astype("float32") for _ in range(3))
    opt = mx.optimizer.create("groupadagrad", learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.6)
    assert type(opt) is mx.optimizer.contrib.GroupAdaGrad
    w = mx.nd.array(w0)
    st = opt.create_state(0, w)
    for g in (g1, g2):
        opt.update(0, w, mx.nd.array(g), st)
    np.testing.assert_allclose(w.asnumpy(), [[1.5370908975601196, 0.40844660997390747],
                                             [0.9233218431472778, 2.0361971855163574],
                                             [1.751778483390808, -1.1007746458053589]], rtol=1e-6)
    np.testing.assert_allclose(st.asnumpy(), [[0.1899450272321701], [0.06094980239868164], [0.3678548336029053]],
                               rtol=1e-6)
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1, eps=1e-3)
    w = mx.nd.array(w0)
    st = opt.create_state(0, w)
    opt.update(0, w, mx.nd.sparse.row_sparse_array((g1[[0, 2]], [0, 2]), shape=(3, 2)), st)
    np.testing.assert_allclose(w.asnumpy(), [[1.6245428323745728, 0.42238229513168335],
                                             [0.978738009929657, 2.2408931255340576],
                                             [1.8536251783370972, -1.1179447174072266]], rtol=1e-6)
    np.testing.assert_allclose(st.asnumpy(), [[0.46278852224349976], [0.0], [1.067829966545105]], rtol=1e-6)
    with pytest.raises(AssertionError, match="Weight decay is not supported"):
        mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(0, w, mx.nd.array(g1), st)
    with pytest.raises(AssertionError):
        mx.optimizer.contrib.GroupAdaGrad().create_state(0, mx.nd.ones((3,)))


@pytest.mark.parametrize("sparse", [False, True])
def test_group_adagrad_dense_and_row_sparse(sparse):
    """mx.optimizer.contrib.GroupAdaGrad ('groupadagrad', GluonNLP's embedding scripts):
    one history value per row; a row_sparse gradient leaves the other rows alone. Values from
    MXNet 1.9.1 (two steps, rescaled and clipped)."""
    opt = mx.optimizer.create("groupadagrad", learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.6)
    weight = mx.nd.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.5, 0.5, 0.5]])
    state = opt.create_state(0, weight)
    if sparse:
        grad = mx.nd.sparse.row_sparse_array((mx.nd.array([[0.4, -2.0, 1.0], [3.0, 0.2, -0.1]]), mx.nd.array([0, 2])),
                                             shape=(3, 3))
    else:
        grad = mx.nd.array([[0.4, -2.0, 1.0], [0.0, 0.0, 0.0], [3.0, 0.2, -0.1]])
    for _ in range(2):
        opt.update(0, weight, grad, state)
    np.testing.assert_allclose(weight.asnumpy().ravel(), [0.9266522526741028, 2.220043182373047, 2.8166306018829346,
                                                          -1.0, 0.0, 1.0, 0.20933309197425842, 0.4515555202960968,
                                                          0.5242222547531128], rtol=1e-6)
    np.testing.assert_allclose(state.asnumpy().ravel(), [0.43333330750465393, 0.0, 0.24833333492279053], rtol=1e-6)
    assert isinstance(opt, mx.optimizer.contrib.GroupAdaGrad)
    with pytest.raises(AssertionError, match="Weight decay"):
        mx.optimizer.create("groupadagrad", wd=0.1).update(0, weight, grad, state)
