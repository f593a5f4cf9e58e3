"""gluon.Trainer against MXNet 1.9.1's trajectories (tools/make_extra_fixtures_train.py):
three steps of a Dense layer's parameters (lr_mult/wd_mult set, a scheduler in one case),
plus stale gradients, ignore_stale_grad, set_learning_rate and save/load_states."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "train")
CASES = json.load(open(os.path.join(FIX, "trainer.json")))
DATA = np.load(os.path.join(FIX, "trainer.npz"))


def _params(weight, bias):
    params = gluon.ParameterDict()
    w = params.get("dense0_weight", shape=weight.shape, lr_mult=0.5)
    b = params.get("dense0_bias", shape=bias.shape, wd_mult=2.0)
    params.initialize(mx.init.Zero())
    w.set_data(mx.nd.array(weight))
    b.set_data(mx.nd.array(bias))
    return params, w, b


def _loss_step(w, b, x, y):
    with mx.autograd.record():
        out = mx.nd.FullyConnected(mx.nd.array(x), w.data(), b.data(), num_hidden=w.shape[0])
        loss = ((out - mx.nd.array(y)) ** 2).sum()
    loss.backward()


def _optimizer_params(case):
    params = dict(case["params"])
    if "lr_scheduler" in params:
        cls, kwargs = params["lr_scheduler"]
        params["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**kwargs)
    return params


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_trainer_matches_mxnet(case):
    params, w, b = _params(DATA["w0"], DATA["b0"])
    trainer = gluon.Trainer(params, case["optimizer"], _optimizer_params(case))
    for j in range(3):
        _loss_step(w, b, DATA["x:%d" % j], DATA["y:%d" % j])
        trainer.step(5)
        assert trainer.learning_rate == pytest.approx(case["lrs"][j])
        name = case["case"]
        np.testing.assert_allclose(w.data().asnumpy(), DATA["%s/weight:%d" % (name, j)], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.data().asnumpy(), DATA["%s/bias:%d" % (name, j)], rtol=1e-5, atol=1e-6)


def test_stale_gradient():
    params, w, b = _params(DATA["w0"], DATA["b0"])
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    _loss_step(w, b, DATA["x:0"], DATA["y:0"])
    trainer.step(5)
    before = w.data().asnumpy()
    with pytest.raises(UserWarning, match="Gradient of Parameter `dense0_bias` on context cpu\\(0\\) has not been "
                                          "updated by backward since last `step`"):
        trainer.step(5)
    trainer.step(5, ignore_stale_grad=True)  # both stale: nothing changes
    np.testing.assert_array_equal(w.data().asnumpy(), before)


def test_learning_rate_and_errors():
    params, w, _ = _params(DATA["w0"], DATA["b0"])
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.1})
    assert trainer.learning_rate == 0.1
    trainer.set_learning_rate(0.5)
    assert trainer.learning_rate == 0.5 and trainer.optimizer.lr == 0.5
    with pytest.raises(ValueError, match="list or dict of Parameters"):
        gluon.Trainer(w, "sgd")
    with pytest.raises(AssertionError, match="optimizer_params must be None"):
        gluon.Trainer(params, mx.optimizer.SGD(), {"learning_rate": 0.1})
    sched = mx.lr_scheduler.FactorScheduler(step=10, base_lr=0.1)
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been defined"):
        gluon.Trainer(params, "sgd", {"lr_scheduler": sched}).set_learning_rate(0.2)


def test_save_and_load_states(tmp_path):
    fname = str(tmp_path / "trainer.states")
    params, w, b = _params(DATA["w0"], DATA["b0"])
    trainer = gluon.Trainer(params, "adam", {"learning_rate": 0.01})
    _loss_step(w, b, DATA["x:0"], DATA["y:0"])
    trainer.step(5)
    trainer.save_states(fname)
    params2, w2, b2 = _params(w.data().asnumpy(), b.data().asnumpy())
    trainer2 = gluon.Trainer(params2, "sgd", {"learning_rate": 1.0})
    trainer2.load_states(fname)
    assert isinstance(trainer2.optimizer, mx.optimizer.Adam) and trainer2.learning_rate == 0.01
    for ws, bs, tr in ((w, b, trainer), (w2, b2, trainer2)):
        _loss_step(ws, bs, DATA["x:1"], DATA["y:1"])
        tr.step(5)
    np.testing.assert_allclose(w2.data().asnumpy(), w.data().asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(b2.data().asnumpy(), b.data().asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("kvstore", ["device", "local", None])
def test_local_kvstores_train_in_process(kvstore):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore=kvstore)
    before = net.weight.data().asnumpy()
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)
    assert not np.array_equal(before, net.weight.data().asnumpy())


@pytest.mark.parametrize("kvstore", ["dist_sync", "dist_async", "dist_device_sync", "horovod"])
def test_distributed_kvstores_without_workers_are_an_error_not_local_training(kvstore, monkeypatch):
    for var in ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "DMLC_PS_ROOT_URI", "DMLC_PS_ROOT_PORT",
                "DMLC_NUM_WORKER", "DMLC_WORKER_ID"):
        monkeypatch.delenv(var, raising=False)
    net = gluon.nn.Dense(2)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore=kvstore)
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    with pytest.raises(mx.MXNetError, match="%s.*neogluon launch" % kvstore):
        trainer.step(1)


NETS = json.load(open(os.path.join(FIX, "nets.json")))
NET_DATA = np.load(os.path.join(FIX, "nets.npz"))


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("name", sorted(NETS))
def test_network_training_matches_mxnet(name, hybridize):
    """Five training steps from MXNet's initial weights give MXNet 1.9.1's losses, weights
    and moving averages (tools/make_extra_fixtures_train.py): a residual CNN with BatchNorm
    under momentum SGD with weight decay, and an LSTM language model under Adam with
    clip_global_norm."""
    import train_nets
    case = NETS[name]
    net = getattr(train_nets, name)(mx)
    net.initialize()
    x, y = mx.nd.array(NET_DATA[name + "/x"]), mx.nd.array(NET_DATA[name + "/y"])
    net(x)
    params = net.collect_params()
    init = name + "/init/"
    assert sorted(params.keys()) == sorted(k[len(init):] for k in NET_DATA.files if k.startswith(init))
    for key, p in params.items():
        p.set_data(mx.nd.array(NET_DATA[init + key]))
    if hybridize:
        net.hybridize()
    losses = train_nets.train(mx, net, x, y, case["optimizer"], case["clip"], case["batch_axis"])
    assert losses == pytest.approx(case["losses"], rel=1e-5)
    for key, p in params.items():
        np.testing.assert_allclose(p.data().asnumpy(), NET_DATA[name + "/final/" + key], rtol=1e-4, atol=1e-5,
                                   err_msg=key)


class _WithConstant(gluon.HybridBlock):
    """A Dense layer plus a Constant, as GluonCV's SSD anchors (``params.get_constant``)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(2, in_units=3, weight_initializer=mx.init.Constant(0.5))
            self.offset = self.params.get_constant("offset", [[1.0, -1.0]])

    def hybrid_forward(self, F, x, offset):  # pylint: disable=arguments-differ
        return self.dense(x) + offset


@pytest.mark.parametrize("hybridize", [False, True])
def test_trainer_skips_constants_in_collect_params(hybridize):
    """``Trainer(net.collect_params())`` with a Constant among them (GluonCV's SSD training
    script does this): the constant is left alone, the rest trains. Recorded from MXNet 1.9.1
    (two SGD steps, lr 0.1, loss sum(out**2), x = [[1, 2, 3]]; hybridize() plain: MXNet's
    static_alloc graph fails its own storage-type check on this block)."""
    net = _WithConstant()
    net.initialize()
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = mx.nd.array([[1, 2, 3]])
    for _ in range(2):
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(1)
    np.testing.assert_allclose(net.dense.weight.data().asnumpy(), [[1.3, 2.1, 2.9], [0.9, 1.3, 1.7]], rtol=1e-6)
    np.testing.assert_allclose(net.dense.bias.data().asnumpy(), [0.8, 0.4], rtol=1e-6)
    assert net.offset.data().asnumpy().tolist() == [[1.0, -1.0]] and net.offset.grad_req == "null"


@pytest.mark.parametrize("opt,weight,bias", [
    ("sgd", [0.31062501668930054, 0.12125000357627869, -0.06812500953674316], -0.18937499821186066),
    ("adam", [0.3015424609184265, 0.3015424609184265, 0.3015424311161041], -0.1984575241804123)])
def test_step_with_np_array_batch_size(opt, weight, bias):
    """d2l's ``train_seq2seq`` calls ``trainer.step(Y_valid_len.sum())``: ``rescale_grad``
    becomes a 0-d ``mx.np`` array, which MXNet's update operators read as its number (the
    fused paths took it to torch and raised). Values from MXNet 1.9.1; a legacy NDArray
    batch size does not parse there, as in MXNet."""
    from neogluon import autograd, npx
    npx.set_np()
    try:
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        kwargs = {"learning_rate": 0.1, "momentum": 0.9} if opt == "sgd" else {"learning_rate": 0.1}
        trainer = gluon.Trainer(net.collect_params(), opt, kwargs)
        for _ in range(2):
            with autograd.record():
                loss = (net(mx.np.array([[1., 2., 3.]])) ** 2).sum()
            loss.backward()
            trainer.step(mx.np.array([1, 3, 4], dtype="int32").sum())
        assert isinstance(trainer.optimizer.rescale_grad, mx.np.ndarray)
        np.testing.assert_allclose(net.weight.data().asnumpy(), np.array([weight, weight], np.float32), rtol=1e-7)
        np.testing.assert_allclose(net.bias.data().asnumpy(), np.array([bias, bias], np.float32), rtol=1e-7)
    finally:
        npx.reset_np()
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), opt, {"learning_rate": 0.1})
    with mx.autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    with pytest.raises(mx.MXNetError, match="rescale_grad"):
        trainer.step(mx.nd.array([8]))


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("container", ["Sequential", "HybridSequential"])
def test_data_parallel_on_two_cpu_contexts(container, hybridize):
    """Conv -> BatchNorm -> Dense replicated on cpu(0) and cpu(1), one shard of the batch on
    each (d2l's split_batch / train_batch_ch13 on CPU contexts): each block after the first
    uses its own context's parameters, so each context's running statistics and gradients
    are its shard's. Before, a block's output reported cpu(0) once the block returned, the
    BatchNorm of the cpu(1) shard used cpu(0)'s copy, and Trainer.step raised on cpu(1)'s
    stale beta gradient. Expected values recorded from MXNet 1.9.1."""
    devices = [mx.cpu(0), mx.cpu(1)]
    net = getattr(gluon.nn, container)()
    net.add(gluon.nn.Conv2D(2, kernel_size=3, padding=1), gluon.nn.BatchNorm(), gluon.nn.Dense(3))
    net.initialize(ctx=devices)
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(4, 1, 4, 4)))
    net(x)
    rng = np.random.RandomState(1)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(0.5, 1, size=p.shape)))
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        outs = [net(shard) for shard in gluon.utils.split_and_load(x, devices)]
        losses = [out.sum() for out in outs]
    for loss in losses:
        loss.backward()
    assert [o.context for o in outs] == devices
    bn, conv = net[1], net[0]
    np.testing.assert_allclose(bn.running_mean.data(devices[0]).asnumpy(), [1.1346163, 1.1822281], rtol=1e-5)
    np.testing.assert_allclose(bn.running_mean.data(devices[1]).asnumpy(), [1.076837, 1.1148375], rtol=1e-5)
    np.testing.assert_allclose([conv.weight.grad(d).asnumpy().sum() for d in devices], [-0.075802624, 0.10304958],
                               atol=1e-4)  # elements (up to 0.92) agree to 6e-6: BatchNorm over 2 images
    assert [bn.beta.grad(d).context for d in devices] == devices
    trainer.step(4)
    np.testing.assert_allclose(bn.beta.data(devices[1]).asnumpy(), [-2.9921887, -2.7263515], rtol=1e-5)
    np.testing.assert_allclose(net[2].weight.data(devices[0]).asnumpy().sum(), 65.00035, rtol=1e-5)
