"""mx.kv's single-process KVStore and gluon.Trainer on several contexts against MXNet 1.9.1
(tools/make_extra_fixtures_legacy.py, section trainer_multi)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "legacy")


def test_local_kvstore_push_pull_semantics():
    """Values recorded from MXNet 1.9.1's local KVStore."""
    kv = mx.kv.create("local")
    assert (kv.type, kv.rank, kv.num_workers) == ("local", 0, 1)
    kv.init(3, mx.nd.ones((2,)))
    kv.push(3, [mx.nd.ones((2,)) * 2, mx.nd.ones((2,)) * 3])  # summed, replaces the value
    out = mx.nd.zeros((2,))
    kv.pull(3, out=out)
    assert out.asnumpy().tolist() == [5, 5]
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv.push(3, [mx.nd.ones((2,))])
    kv.pull(3, out=out)
    np.testing.assert_allclose(out.asnumpy(), [4.9, 4.9], rtol=1e-6)
    kv.pushpull(3, mx.nd.ones((2,)), out=out)
    np.testing.assert_allclose(out.asnumpy(), [4.8, 4.8], rtol=1e-6)
    outs = [mx.nd.zeros((2,)), mx.nd.zeros((2,))]
    kv.broadcast(7, mx.nd.ones((2,)) * 4, out=outs)
    assert [o.asnumpy().tolist() for o in outs] == [[4, 4], [4, 4]]
    kv.row_sparse_pull(7, out=out, row_ids=mx.nd.array([0]))
    assert out.asnumpy().tolist() == [4, 4]
    kv.init([5, 6], [mx.nd.ones((2,)), mx.nd.zeros((2,))])
    two = [mx.nd.zeros((2,)), mx.nd.zeros((2,))]
    kv.pull([5, 6], out=two)
    assert [o.asnumpy().tolist() for o in two] == [[1, 1], [0, 0]]


def test_kvstore_errors():
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match="duplicate init of key 3"):
        kv.init(3, mx.nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match="key 9 has not been inited"):
        kv.pull(9, out=mx.nd.zeros((2,)))
    with pytest.raises(mx.MXNetError, match="Mixed key types"):
        kv.init("a", mx.nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match="shape"):
        kv.push(3, mx.nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match="Gradient compression is not supported"):
        kv.set_gradient_compression({"type": "2bit"})
    with pytest.raises(mx.MXNetError, match="distributed"):
        mx.kv.create("dist_sync")
    with pytest.raises(mx.MXNetError, match="unknown KVStore type"):
        mx.kv.create("foo")
    with pytest.raises(AssertionError):
        kv.save_optimizer_states("x")


def test_device_kvstore_compression_and_saves_states(tmp_path):
    kv = mx.kvstore.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    assert kv._compression_params == {"type": "2bit", "threshold": 0.5}
    assert mx.kv.create("nccl").type == "nccl"
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv.init("w", mx.nd.ones((3,)))
    kv.push("w", mx.nd.ones((3,)))
    fname = str(tmp_path / "kv.states")
    kv.save_optimizer_states(fname)
    kv2 = mx.kv.create("device")
    kv2.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv2.load_optimizer_states(fname)
    mean, var = kv2._updater.states["w"]
    assert mean.asnumpy().tolist() == pytest.approx([0.05] * 3)  # the push of ones was sent as 0.5


META = json.load(open(os.path.join(FIX, "trainer_multi.json")))
ARR = np.load(os.path.join(FIX, "trainer_multi.npz"))


@pytest.mark.parametrize("case", sorted(META))
def test_trainer_on_two_cpu_contexts_matches_mxnet(case):
    """Parameters on [cpu(0), cpu(1)], split_and_load, four Adam steps: MXNet's losses and, on
    each context, MXNet's weights (BatchNorm's running statistics differ per context)."""
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(gluon.nn.Dense(7, activation="relu", in_units=5), gluon.nn.BatchNorm(in_channels=7),
                gluon.nn.Dense(3, in_units=7))
    net.initialize(mx.init.Xavier(), ctx=ctxs)
    for k, v in net.collect_params().items():
        v.set_data(mx.nd.array(ARR["init/" + k]))
    net.hybridize()
    kw = {"device_default": dict(kvstore="device"),
          "device_no_update_on_kv": dict(kvstore="device", update_on_kvstore=False),
          "local_update_on_kv": dict(kvstore="local", update_on_kvstore=True),
          "kv_object": dict(kvstore=mx.kv.create("device"))}[case]
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05}, **kw)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(4):
        xs = gluon.utils.split_and_load(ARR["x"], ctxs)
        ys = gluon.utils.split_and_load(ARR["y"], ctxs)
        assert [a.context for a in xs] == ctxs
        with mx.autograd.record():
            ls = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
        for loss in ls:
            loss.backward()
        trainer.step(12)
        losses.append([float(loss.sum().asscalar()) for loss in ls])
    np.testing.assert_allclose(losses, META[case]["losses"], rtol=1e-5)
    assert trainer._update_on_kvstore == META[case]["update_on_kvstore"]
    assert (trainer._kvstore.type if trainer._kvstore else None) == META[case]["kvstore_type"]
    for k, v in net.collect_params().items():
        for i, c in enumerate(ctxs):
            np.testing.assert_allclose(v.data(c).asnumpy(), ARR["%s/%s/%d" % (case, k, i)], rtol=1e-4, atol=1e-5)


def test_trainer_update_on_kvstore_refuses_update_and_saves_states(tmp_path):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    for x in gluon.utils.split_and_load(mx.nd.ones((4, 3)), [mx.cpu(0), mx.cpu(1)]):
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
    trainer.step(4)
    assert trainer._update_on_kvstore
    with pytest.raises(AssertionError, match="update_on_kvstore"):
        trainer.update(4)
    with pytest.raises(AssertionError, match="update_on_kvstore"):
        trainer.allreduce_grads()
    fname = str(tmp_path / "t.states")
    trainer.save_states(fname)
    trainer.load_states(fname)
    assert trainer.learning_rate == 0.1


def test_arrays_keep_their_cpu_device_id():
    """torch has one CPU device; MXNet's cpu(k) contexts stay distinct as they are in MXNet."""
    a = mx.nd.array([1, 2], ctx=mx.cpu(1))
    assert a.context == mx.cpu(1) and a.copy().context == mx.cpu(1)
    b = a.as_in_context(mx.cpu(0))
    assert b.context == mx.cpu(0) and b is not a and a.as_in_context(mx.cpu(1)) is a
    assert (a + 1).context == mx.cpu(1)  # an operator's result: its first input's context (MXNet 1.9.1)
    with mx.cpu(1):
        assert (b + 1).context == mx.cpu(0) and mx.nd.zeros((2,)).context == mx.cpu(1)
        assert b.context == mx.cpu(0)  # a copy made for cpu(0) says so
    assert [x.context for x in gluon.utils.split_and_load(np.ones((4, 2)), [mx.cpu(0), mx.cpu(1)])] == \
        [mx.cpu(0), mx.cpu(1)]
    p = gluon.Parameter("w", shape=(2,))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert [d.context for d in p.list_data()] == [mx.cpu(0), mx.cpu(1)]


def test_operator_results_keep_cpu_k():
    """An operator's result reports its first input's ``cpu(k)``, and creation functions their
    ``ctx``, imperative and through mx.np (each context below is what MXNet 1.9.1 printed);
    results of ``cpu_shared``/``cpu_pinned`` arrays are ``cpu(0)`` there."""
    from neogluon import autograd, npx
    a = mx.nd.ones((2, 3), ctx=mx.cpu(1))
    got = [a + 1, mx.nd.relu(a), a.sum(), a * a, a.T, a[0], a.reshape((3, 2)), a.copy(), mx.nd.dot(a, a.T),
           mx.nd.split(a, 3, axis=1)[0], mx.nd.zeros_like(a), mx.nd.concat(a, a, a, a, dim=0),
           a + mx.nd.ones((2, 3)), mx.nd.random.uniform(shape=(2,), ctx=mx.cpu(1))]
    assert [str(x.context) for x in got] == ["cpu(1)"] * len(got)
    assert mx.nd.random.normal(0, 1, shape=(2,), ctx=mx.cpu(3)).context == mx.cpu(3)
    s = mx.nd.ones((2, 3), ctx=mx.Context("cpu_shared", 0))
    p = mx.nd.ones((2, 3), ctx=mx.cpu_pinned(0))
    assert [str(x.context) for x in (s, s + 1, s.sum(), p, p + 1)] == \
        ["cpu_shared(0)", "cpu(0)", "cpu(0)", "cpu_pinned(0)", "cpu(0)"]
    with mx.cpu(2):
        b = mx.nd.ones((2,))
        assert b.context == mx.cpu(2) and (a + 1).context == mx.cpu(1)
    assert b.context == mx.cpu(2) and (b + 1).context == mx.cpu(2)
    npx.set_np()
    try:
        x = mx.np.ones((2, 3), ctx=mx.cpu(1))
        got = [x, x + 1, mx.np.exp(x), x.sum(), x[0], x.reshape(3, 2), mx.np.dot(x, x.T),
               mx.np.zeros((2,), ctx=mx.cpu(1)), mx.np.arange(3, ctx=mx.cpu(1)), mx.np.array([1, 2], ctx=mx.cpu(1)),
               mx.np.split(x, 3, axis=1)[1], npx.relu(x), mx.np.full((2,), 3, ctx=mx.cpu(1)),
               mx.np.eye(2, ctx=mx.cpu(1)), mx.np.random.uniform(size=(2,), ctx=mx.cpu(1)), x.detach()]
        assert [str(y.context) for y in got] == ["cpu(1)"] * len(got)
        x.attach_grad()
        with autograd.record():
            y = (x * 2).sum()
        y.backward()
        assert x.grad.ctx == mx.cpu(1) and y.ctx == mx.cpu(1)
    finally:
        npx.reset_np()


def test_kvstore_base_registry_and_test_store_train_as_mxnet():
    """MXNet 1.9.1's plugin interface: ``@KVStoreBase.register`` makes ``mx.kv.create(name)``
    build the class; its ``TestStore`` sums in Python and cannot update, so a Trainer on two
    contexts updates locally (weights recorded from MXNet 1.9.1)."""
    import neogluon as mx
    from neogluon import autograd, gluon
    kv = mx.kv.create("TestStore")
    assert (type(kv).__name__, kv.type, kv.rank, kv.num_workers, kv.is_capable("optimizer")) == \
        ("TestStore", "teststore", 0, 1, False)
    assert isinstance(kv, mx.kv.KVStoreBase) and isinstance(mx.kv.create("local"), mx.kv.KVStoreBase)
    with pytest.raises(ValueError, match="Unknown capability: foo"):
        kv.is_capable("foo")

    @mx.kv.KVStoreBase.register
    class MyStore(mx.kvstore.base.TestStore):
        pass
    assert type(mx.kv.create("mystore")) is MyStore
    out = [mx.nd.zeros((2,)) for _ in range(2)]
    kv.pushpull(3, [mx.nd.ones((2,)), mx.nd.ones((2,)) * 2], out=out)
    assert [o.asnumpy().tolist() for o in out] == [[3.0, 3.0], [3.0, 3.0]]

    ctxs = [mx.cpu(0), mx.cpu(1)]
    rng = np.random.RandomState(0)
    W, X, Y = rng.randn(2, 3).astype("float32"), rng.randn(4, 3).astype("float32"), rng.randn(4, 2).astype("float32")
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize(ctx=ctxs)
    net.weight.set_data(mx.nd.array(W))
    net.bias.set_data(mx.nd.zeros(2))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9},
                            kvstore=mx.kv.create("teststore"))
    loss = gluon.loss.L2Loss()
    for _ in range(3):
        xs, ys = gluon.utils.split_and_load(mx.nd.array(X), ctxs), gluon.utils.split_and_load(mx.nd.array(Y), ctxs)
        with autograd.record():
            losses = [loss(net(x), y) for x, y in zip(xs, ys)]
        for item in losses:
            item.backward()
        trainer.step(4)
    assert trainer._update_on_kvstore is False
    for ctx in ctxs:
        np.testing.assert_allclose(net.weight.data(ctx).asnumpy(), [[1.5441142320632935, 0.4966992735862732,
                                                                     0.4754699468612671],
                                                                    [1.864866852760315, 1.3690067529678345,
                                                                     -0.8506527543067932]], rtol=1e-6)
    np.testing.assert_allclose(net.bias.data(mx.cpu(1)).asnumpy(), [-0.3653028905391693, -0.6107685565948486],
                               rtol=1e-6)
    with pytest.raises(ValueError, match="Please set update_on_kvstore=False"):
        gluon.Trainer(net.collect_params(), "sgd", kvstore=mx.kv.create("teststore"),
                      update_on_kvstore=True)._init_kvstore()
