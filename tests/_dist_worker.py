"""Worker script of tests/test_kvstore_dist.py (run by ``neogluon launch`` or directly).

``_dist_worker.py train OUTDIR``: checks the distributed KVStore API (asserting in the
worker), then trains the MLP and the CNN with Trainer(kvstore=...) and an MLP with
Module.fit on this worker's half of every global batch and saves the parameters to
``OUTDIR/rank<r>.npz``. ``_dist_worker.py kill``: rank 1 kills itself inside the training
loop; rank 0 must fail with MXNetError. The functions are also imported by the test to
compute the one-process references.
"""
import os
import sys

import numpy as np

import neogluon as mx
from neogluon import autograd, gluon, nd
from neogluon.base import MXNetError
from neogluon.gluon import nn

STEPS, BATCH = 20, 8
# (network, kvstore, update_on_kvstore, contexts per worker)
GLUON_CASES = (("mlp", "dist_sync", False, 1), ("mlp", "dist_sync", True, 1), ("cnn", "dist_sync", False, 1),
               ("cnn", "dist_device_sync", True, 1), ("mlp", "horovod", None, 1), ("cnn", "dist_sync", None, 2))


def data(kind):
    rs = np.random.RandomState(42 if kind == "mlp" else 43)
    shape = (STEPS, BATCH, 10) if kind == "mlp" else (STEPS, BATCH, 1, 6, 6)
    return rs.randn(*shape).astype("float32"), rs.randint(0, 3, (STEPS, BATCH)).astype("float32")


def build(kind, ctxs):
    mx.random.seed(7)
    net = nn.HybridSequential()
    if kind == "mlp":
        net.add(nn.Dense(16, activation="relu"), nn.Dense(3))
    else:
        net.add(nn.Conv2D(4, 3), nn.BatchNorm(), nn.Activation("relu"), nn.Flatten(), nn.Dense(3))
    net.initialize(mx.init.Xavier(), ctx=ctxs)
    return net


def train_gluon(kind, ctxs, rows, kvstore, update_on_kvstore):
    """Train 20 steps on ``rows`` of each global batch, split over ``ctxs``; the parameters
    (every context's copy) in collect_params order."""
    X, Y = data(kind)
    net = build(kind, ctxs)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3},
                            kvstore=kvstore, update_on_kvstore=update_on_kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for step in range(STEPS):
        xs = gluon.utils.split_and_load(nd.array(X[step][rows]), ctxs)
        ys = gluon.utils.split_and_load(nd.array(Y[step][rows]), ctxs)
        with autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        autograd.backward(losses)
        trainer.step(BATCH)
    return [[p.data(c).asnumpy() for c in ctxs] for p in net.collect_params().values()]


def train_module(ctxs, rows, kvstore):
    """Module.fit of an MLP for 20 batches of ``rows`` of each global batch; arg params by name."""
    X, Y = data("mlp")
    x = X[:, rows].reshape(-1, 10)
    y = Y[:, rows].reshape(-1)
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    it = mx.io.NDArrayIter(x, y, batch_size=len(range(BATCH)[rows]), label_name="softmax_label")
    mod = mx.mod.Module(net, context=ctxs)
    mx.random.seed(7)
    mod.fit(it, num_epoch=1, kvstore=kvstore, optimizer="sgd", initializer=mx.init.Xavier(),
            optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    args, _ = mod.get_params()
    return {k: v.asnumpy() for k, v in args.items()}


def check_api():
    """The KVStore API across workers, asserted on every worker."""
    kv = mx.kv.create("dist_sync")
    rank, n = kv.rank, kv.num_workers
    assert (rank, n) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])) and kv.type == "dist_sync"
    assert os.environ["DMLC_NUM_WORKER"] == str(n) and os.environ["DMLC_WORKER_ID"] == str(rank)
    kv.init(3, nd.full((2, 3), rank + 1))  # rank 0's value wins
    out = nd.zeros((2, 3))
    kv.pull(3, out=out)
    assert (out.asnumpy() == 1).all(), out
    kv.push(3, [nd.full((2, 3), rank + 1)] * 2)  # each worker sums its devices, then the workers are summed
    kv.pull(3, out=out)
    assert (out.asnumpy() == 2 * sum(range(1, n + 1))).all(), out
    kv.init([4, 5], [nd.zeros(2), nd.zeros(2)])
    outs = [nd.zeros(2), nd.zeros(2)]
    kv.pushpull([4, 5], [nd.full(2, rank), nd.full(2, 10 * rank)], out=outs)
    assert outs[0].asnumpy().tolist() == [sum(range(n))] * 2 and outs[1].asnumpy()[0] == 10 * sum(range(n))
    got = nd.zeros(3)
    kv.broadcast(6, nd.full(3, rank + 10), out=got)
    assert (got.asnumpy() == 10).all()
    kv.barrier()
    try:
        kv.init(6, nd.zeros(3))
        raise AssertionError("duplicate init accepted")
    except MXNetError as err:
        assert "duplicate init" in str(err)
    # the optimizer runs on the all-reduced gradient; its states can be saved and loaded
    kvo = mx.kv.create("dist_sync")
    kvo.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, rescale_grad=1.0))
    kvo.init("w", nd.ones(4))
    kvo.push("w", nd.full(4, rank + 1))
    w = nd.zeros(4)
    kvo.pull("w", out=w)
    g = sum(range(1, n + 1))
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.1 * g, rtol=1e-6)
    path = os.path.join(os.environ["NEOGLUON_TEST_OUT"], "states%d" % rank)
    kvo.save_optimizer_states(path)
    kvo.push("w", nd.full(4, rank + 1))
    kvo.load_optimizer_states(path)  # momentum back to its value after the first push
    kvo.push("w", nd.full(4, rank + 1))
    kvo.pull("w", out=w)
    mom = -0.1 * g
    expect = 1 - 0.1 * g
    mom = 0.9 * mom - 0.1 * g
    expect = expect + mom  # second push
    mom2 = 0.9 * (-0.1 * g) - 0.1 * g
    expect = expect + mom2  # third push, after the reload
    np.testing.assert_allclose(w.asnumpy(), expect, rtol=1e-5)
    # 2-bit compression: each worker quantizes its push with its own residual
    kvc = mx.kv.create("dist_sync")
    kvc.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kvc.init(0, nd.zeros(4))
    grad = np.array([0.3, 0.6, -0.7, -0.2], dtype="float32") * (rank + 1)
    sums = []
    for _ in range(2):
        kvc.push(0, nd.array(grad))
        kvc.pull(0, out=w)
        sums.append(w.asnumpy())
    expect = [np.zeros(4, "float32"), np.zeros(4, "float32")]
    for r in range(n):
        residual = np.zeros(4, "float32")
        for i in range(2):
            residual += np.array([0.3, 0.6, -0.7, -0.2], dtype="float32") * (r + 1)
            q = np.where(residual >= 0.5, 0.5, np.where(residual <= -0.5, -0.5, 0)).astype("float32")
            residual -= q
            expect[i] += q
    np.testing.assert_allclose(sums[0], expect[0])
    np.testing.assert_allclose(sums[1], expect[1])
    # dist_async: each worker's gradient applied in turn (rank order), never without an optimizer
    kva = mx.kv.create("dist_async")
    kva.init(1, nd.ones(2))
    try:
        kva.push(1, nd.ones(2))
        raise AssertionError("async push without optimizer accepted")
    except MXNetError as err:
        assert "set_optimizer" in str(err)
    kva.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kva.push(1, nd.full(2, rank + 1))
    kva.pull(1, out=outs[0])
    ref = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    wr = nd.ones(2)
    for r in range(n):
        ref(1, nd.full(2, r + 1), wr)
    np.testing.assert_allclose(outs[0].asnumpy(), wr.asnumpy(), rtol=1e-6)
    # horovod/byteps: pushpull and broadcast only, no optimizer
    hv = mx.kv.create("horovod")
    assert not hv.is_capable("optimizer")
    hv.pushpull("g", nd.full(2, rank + 1), out=outs[1])
    assert outs[1].asnumpy().tolist() == [float(g)] * 2
    hv.broadcast("b", nd.full(2, rank + 5), out=outs[1])
    assert outs[1].asnumpy().tolist() == [5.0, 5.0]
    try:
        hv.push("g", nd.ones(2))
        raise AssertionError("horovod push accepted")
    except MXNetError as err:
        assert "pushpull" in str(err)
    # Trainer on a distributed store with update_on_kvstore keeps the first step's batch size
    net = build("mlp", [mx.cpu()])
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore="dist_sync",
                            update_on_kvstore=True)
    for batch in (BATCH, BATCH // 2):
        with autograd.record():
            loss = net(nd.ones((2, 10))).sum()
        loss.backward()
        try:
            trainer.step(batch)
        except UserWarning as err:
            assert batch != BATCH and "batch_size" in str(err)
        else:
            assert batch == BATCH


def main():
    mode = sys.argv[1]
    if mode == "kill":
        kv = mx.kv.create("dist_sync")
        kv.init(0, nd.zeros(1000))
        out = nd.zeros(1000)
        for step in range(10 ** 6):
            if kv.rank == 1 and step == 3:
                os.kill(os.getpid(), 9)
            kv.pushpull(0, nd.ones(1000), out=out)
        return
    outdir = sys.argv[2]
    os.environ["NEOGLUON_TEST_OUT"] = outdir
    check_api()
    rank = int(os.environ["RANK"])
    half = BATCH // int(os.environ["WORLD_SIZE"])
    rows = slice(rank * half, (rank + 1) * half)
    saved = {}
    for i, (kind, kvstore, uok, ndev) in enumerate(GLUON_CASES):
        for j, arrays in enumerate(train_gluon(kind, [mx.cpu(k) for k in range(ndev)], rows, kvstore, uok)):
            for k, array in enumerate(arrays):
                saved["gluon%d_%d_%d" % (i, j, k)] = array
    for name, value in train_module([mx.cpu()], rows, "dist_sync").items():
        saved["module_" + name] = value
    np.savez(os.path.join(outdir, "rank%d.npz" % rank), **saved)
    print("worker %d done" % rank)


if __name__ == "__main__":
    main()
