"""Record MXNet 1.9.1's legacy training/deployment APIs (mx.io, mx.model, mx.mod, mx.callback,
mx.kv, multi-context Trainer) for tests/test_io_iters.py, tests/test_module.py, tests/test_kvstore.py.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_legacy.py [NAME ...]
Writes tests/fixtures/extra/legacy/<NAME>.{json,npz} (with NAMEs, only those sections).
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import legacy_models as lm  # noqa: E402  (the networks and data the tests build too)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "legacy")


def _save(name, meta, arrays):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrays)


# ----------------------------------------------------------------------------- mx.io core
# (case, kwargs for NDArrayIter other than data/label, data kind, epochs)
NDITER_CASES = [
    ("pad", dict(batch_size=3, last_batch_handle="pad"), "single", 2),
    ("pad_bigger_than_data", dict(batch_size=7, last_batch_handle="pad"), "small", 1),
    ("discard", dict(batch_size=3, last_batch_handle="discard"), "single", 2),
    ("roll_over", dict(batch_size=3, last_batch_handle="roll_over"), "single", 3),
    ("shuffle_pad", dict(batch_size=4, shuffle=True, last_batch_handle="pad"), "single", 2),
    ("shuffle_roll", dict(batch_size=4, shuffle=True, last_batch_handle="roll_over"), "single", 3),
    ("dict_inputs", dict(batch_size=4, last_batch_handle="pad"), "dict", 1),
    ("list_inputs", dict(batch_size=5, shuffle=True, last_batch_handle="discard"), "list", 2),
    ("int_data", dict(batch_size=4), "int", 1),
    ("int_shuffled", dict(batch_size=4, shuffle=True), "int", 1),
    ("layout_tnc", dict(batch_size=2, layout="TNC", data_name="seq", label_name="lab"), "tnc", 1),
    ("no_label", dict(batch_size=4), "nolabel", 1),
]


def _iter_inputs(kind):
    x = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.float32)
    if kind == "single":
        return x, y
    if kind == "small":
        return x[:3], y[:3]
    if kind == "dict":
        return {"b_data": x, "a_data": x * 2}, {"lab": y}
    if kind == "list":
        return [x, x + 100], [y, y * 3]
    if kind == "int":
        return mx.nd.array(x, dtype="int32"), np.arange(10, dtype=np.int64)
    if kind == "tnc":
        return np.arange(4 * 6 * 2, dtype=np.float32).reshape(4, 6, 2), np.arange(4 * 6).reshape(4, 6)
    if kind == "nolabel":
        return x, None
    raise ValueError(kind)


def io_core():
    meta, arrays = {}, {}
    for case, kwargs, kind, epochs in NDITER_CASES:
        np.random.seed(7)
        data, label = _iter_inputs(kind)
        it = mx.io.NDArrayIter(data, label, **kwargs)
        rec = dict(kwargs=kwargs, kind=kind, epochs=epochs,
                   provide_data=[[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in it.provide_data],
                   provide_label=[[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
                                  for d in it.provide_label], batches=[])
        for ep in range(epochs):
            for b, batch in enumerate(it):
                key = "%s/%d/%d" % (case, ep, b)
                rec["batches"].append(dict(epoch=ep, pad=batch.pad, n_data=len(batch.data),
                                           n_label=len(batch.label)))
                for i, d in enumerate(batch.data):
                    arrays["%s/d%d" % (key, i)] = d.asnumpy()
                for i, d in enumerate(batch.label):
                    arrays["%s/l%d" % (key, i)] = d.asnumpy()
            it.reset()
        meta[case] = rec
    _save("io_core", meta, arrays)


# ----------------------------------------------------------------------------- checkpoints and Module
def _cnn_symbol():
    """A small face-embedding style network: conv/BN/relu/pool, then 'fc1' (the embedding), 'fc2'."""
    data = mx.sym.var("data")
    x = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv0")
    x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name="bn0")
    x = mx.sym.Activation(x, act_type="relu", name="relu0")
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool0")
    x = mx.sym.Flatten(x, name="flat0")
    fc1 = mx.sym.FullyConnected(x, num_hidden=8, name="fc1")
    fc2 = mx.sym.FullyConnected(fc1, num_hidden=5, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def checkpoint():
    """save_checkpoint of a symbolic CNN and of a Gluon export; Module and internal-output results."""
    rs = np.random.RandomState(3)
    net = _cnn_symbol()
    arg_shapes, _, aux_shapes = net.infer_shape(data=(2, 3, 8, 8))
    arg = {n: mx.nd.array(rs.normal(0, 0.3, s)) for n, s in zip(net.list_arguments(), arg_shapes)
           if n not in ("data", "softmax_label")}
    aux = {n: mx.nd.array(rs.uniform(0.5, 1.5, s)) for n, s in zip(net.list_auxiliary_states(), aux_shapes)}
    prefix = os.path.join(OUT, "cnn")
    os.makedirs(OUT, exist_ok=True)
    mx.model.save_checkpoint(prefix, 3, net, arg, aux)
    x = rs.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
    arrays = {"x": x}
    sym, a, b = mx.model.load_checkpoint(prefix, 3)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(a, b)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    arrays["softmax"] = mod.get_outputs()[0].asnumpy()
    # the InsightFace feature-extraction recipe
    fsym = sym.get_internals()["fc1_output"]
    model = mx.mod.Module(symbol=fsym, context=mx.cpu(), label_names=None)
    model.bind(data_shapes=[("data", (1, 3, 8, 8))])
    model.set_params(a, b)
    model.forward(mx.io.DataBatch(data=(mx.nd.array(x[:1]),)), is_train=False)
    arrays["fc1"] = model.get_outputs()[0].asnumpy()
    # a Gluon network exported, loaded back as a checkpoint
    mx.random.seed(5)
    gnet = mx.gluon.nn.HybridSequential(prefix="gnet_")
    with gnet.name_scope():
        gnet.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Activation("relu"),
                 mx.gluon.nn.GlobalAvgPool2D(), mx.gluon.nn.Dense(6))
    gnet.initialize(mx.init.Xavier())
    gnet.hybridize()
    gnet(mx.nd.array(x))
    for p in gnet.collect_params().values():
        if p.name.endswith(("running_mean", "running_var")):
            p.set_data(mx.nd.array(rs.uniform(0.5, 1.5, p.shape)))
    gnet.export(os.path.join(OUT, "gnet"), epoch=0)
    sym, a, b = mx.model.load_checkpoint(os.path.join(OUT, "gnet"), 0)
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(a, b)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]))
    arrays["gnet"] = mod.get_outputs()[0].asnumpy()
    _save("checkpoint", {"gnet_outputs": sym.list_outputs(), "cnn_args": sorted(arg), "cnn_aux": sorted(aux)},
          arrays)


class _Recorder:
    def __init__(self):
        self.values = []

    def __call__(self, param):
        self.values.append([param.epoch, param.nbatch] + [float(v) for _, v in param.eval_metric.get_name_value()])


def mlp_fit():
    """Module.fit of the MNIST MLP on NDArrayIter from recorded initial parameters."""
    import logging
    x, y = lm.mnist_like(600, 1)
    vx, vy = lm.mnist_like(200, 2)
    net = lm.mlp_symbol(mx)
    init = lm.init_params(net, dict(data=(100, 1, 28, 28)), 11, 0.05)
    meta, arrays = {}, {}  # inputs and initial parameters are re-made by the test (RandomState is stable)
    sgd = dict(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4})
    for case, ndev, kw in (("sgd_mom", 1, sgd), ("adam", 1, dict(optimizer="adam",
                                                                    optimizer_params={"learning_rate": 0.002})),
                           ("sgd_mom_two_cpus", 2, sgd)):
        np.random.seed(42)
        train = mx.io.NDArrayIter(x, y, batch_size=100, shuffle=True)
        val = mx.io.NDArrayIter(vx, vy, batch_size=100)
        rec, logs = _Recorder(), []
        handler = logging.Handler()
        handler.emit = lambda r: logs.append(r.getMessage())
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(logging.INFO)
        mod = mx.mod.Module(net, context=[mx.cpu(i) for i in range(ndev)])
        mod.fit(train, eval_data=val, eval_metric=["acc", "ce"], num_epoch=3,
                arg_params={k: mx.nd.array(v) for k, v in init.items()},
                batch_end_callback=[rec, mx.callback.Speedometer(100, 2)], **kw)
        logging.getLogger().removeHandler(handler)
        score = mod.score(val, ["acc", "ce"])
        pred = mod.predict(val)
        arg, _ = mod.get_params()
        arrays.update({"%s/final/%s" % (case, k): v.asnumpy() for k, v in arg.items()
                       if case == "sgd_mom" or k.startswith("fc3")})
        arrays["%s/pred" % case] = pred.asnumpy()
        import re
        meta[case] = dict(kwargs=kw, devices=ndev, batches=rec.values, score=[[n, float(v)] for n, v in score],
                          logs=[re.sub(r"Speed: [0-9.]+", "Speed: <S>", re.sub(r"cost=[0-9.]+", "cost=<T>", m))
                                for m in logs])
    _save("mlp_fit", meta, arrays)


# ----------------------------------------------------------------------------- BucketingModule
def bucketing():
    """BucketingModule.fit of the unrolled LSTM from recorded initial parameters."""
    sym, _, _ = lm.lstm_symbol(mx, 7)
    init = lm.init_params(sym, dict(data=(5, 7), softmax_label=(5, 7)), 21, 0.3)
    it = lm.bucket_iter(mx, 4)
    rec = _Recorder()
    mod = mx.mod.BucketingModule(lambda n: lm.lstm_symbol(mx, n), default_bucket_key=7, context=mx.cpu())
    mod.fit(it, eval_metric="ce", num_epoch=4, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.5},
            arg_params={k: mx.nd.array(v) for k, v in init.items()}, batch_end_callback=rec)
    arg, _ = mod.get_params()
    arrays = {"init/" + k: v for k, v in init.items()}
    arrays.update({"final/" + k: v.asnumpy() for k, v in arg.items()})
    score = mod.score(it, "ce")
    _save("bucketing", {"batches": rec.values, "score": [[n, float(v)] for n, v in score]}, arrays)


# ----------------------------------------------------------------------------- Trainer on [cpu(0), cpu(1)]
def trainer_multi():
    """Gluon training with parameters on two CPU contexts and split_and_load, for several KVStore setups."""
    rs = np.random.RandomState(8)
    x = rs.uniform(-1, 1, (12, 5)).astype(np.float32)
    y = rs.randint(0, 3, 12).astype(np.float32)
    meta, arrays = {}, {"x": x, "y": y}
    ctxs = [mx.cpu(0), mx.cpu(1)]
    cases = {"device_default": dict(kvstore="device"),
             "device_no_update_on_kv": dict(kvstore="device", update_on_kvstore=False),
             "local_update_on_kv": dict(kvstore="local", update_on_kvstore=True),
             "kv_object": dict(kvstore="KV")}
    for case, kw in sorted(cases.items()):
        mx.random.seed(1)
        net = mx.gluon.nn.HybridSequential(prefix="net_")
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(7, activation="relu", in_units=5), mx.gluon.nn.BatchNorm(in_channels=7),
                    mx.gluon.nn.Dense(3, in_units=7))
        net.initialize(mx.init.Xavier(), ctx=ctxs)
        net.hybridize()
        if kw.get("kvstore") == "KV":
            kw = dict(kw, kvstore=mx.kv.create("device"))
        trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05}, **kw)
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        if case == "device_default":
            arrays.update({"init/" + k: v.data(ctxs[0]).asnumpy() for k, v in net.collect_params().items()})
        losses = []
        for step in range(4):
            xs = mx.gluon.utils.split_and_load(x, ctxs)
            ys = mx.gluon.utils.split_and_load(y, ctxs)
            with mx.autograd.record():
                ls = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
            for l in ls:
                l.backward()
            trainer.step(12)
            losses.append([float(l.sum().asscalar()) for l in ls])
        meta[case] = dict(losses=losses, update_on_kvstore=trainer._update_on_kvstore,
                          kvstore_type=trainer._kvstore.type if trainer._kvstore else None)
        for k, v in net.collect_params().items():
            for i, c in enumerate(ctxs):
                arrays["%s/%s/%d" % (case, k, i)] = v.data(c).asnumpy()
    _save("trainer_multi", meta, arrays)


# ----------------------------------------------------------------------------- CSV, LibSVM, MNIST, wrappers
def _descs(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in descs]


def iters():
    """Batches of CSVIter, LibSVMIter (densified), MNISTIter, ResizeIter and PrefetchingIter."""
    import tempfile
    meta, arrays = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = lm.write_iter_inputs(tmp)
        for case, cls, kwargs, epochs in lm.ITER_CASES:
            it = lm.make_iter(mx, cls, kwargs, paths)
            rec = dict(provide_data=_descs(it.provide_data), provide_label=_descs(it.provide_label), batches=[])
            for ep in range(epochs):
                for b, batch in enumerate(it):
                    rec["batches"].append([ep, batch.pad])
                    arrays["%s/%d/%d/d" % (case, ep, b)] = batch.data[0].asnumpy()
                    arrays["%s/%d/%d/l" % (case, ep, b)] = batch.label[0].asnumpy()
                it.reset()
            meta[case] = rec
        # the order of MNISTIter's shuffle: 250 examples labelled by their index
        import struct
        with open(os.path.join(tmp, "img250"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, 250, 28, 28))
            f.write(np.zeros((250, 28, 28), np.uint8).tobytes())
        with open(os.path.join(tmp, "lab250"), "wb") as f:
            f.write(struct.pack(">II", 2049, 250))
            f.write(np.arange(250).astype(np.uint8).tobytes())
        meta["std_shuffle_250"] = {}
        for seed in (0, 3):
            it = mx.io.MNISTIter(image=os.path.join(tmp, "img250"), label=os.path.join(tmp, "lab250"),
                                 batch_size=250, seed=seed)
            meta["std_shuffle_250"][seed] = [int(v) for v in it.next().label[0].asnumpy()]
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(x, np.arange(10), batch_size=3), 5)
    meta["resize"] = [[b.data[0].asnumpy().tolist(), b.pad] for b in it]
    it.reset()
    meta["resize_again"] = [[b.data[0].asnumpy().tolist(), b.pad] for b in it]
    it = mx.io.PrefetchingIter([mx.io.NDArrayIter({"data": x}, np.arange(10), batch_size=4),
                                mx.io.NDArrayIter({"data": x * 2}, np.arange(10) + 1, batch_size=4)],
                               rename_data=[{"data": "a"}, {"data": "b"}])
    meta["prefetch_provide"] = [[d.name, list(d.shape)] for d in it.provide_data + it.provide_label]
    meta["prefetch"] = [[[d.asnumpy().tolist() for d in b.data], [l.asnumpy().tolist() for l in b.label], b.pad]
                        for b in it]
    _save("iters", meta, arrays)


# ----------------------------------------------------------------------------- SequentialModule
def sequential():
    """SequentialModule.fit of two Modules, and of a Module with a PythonLossModule."""
    rs = np.random.RandomState(9)
    x = rs.uniform(-1, 1, (24, 5)).astype(np.float32)
    y = rs.randint(0, 3, 24).astype(np.float32)
    init = {"fc1_weight": rs.normal(0, 0.5, (6, 5)), "fc1_bias": rs.normal(0, 0.1, 6),
            "fc2_weight": rs.normal(0, 0.5, (3, 6)), "fc2_bias": rs.normal(0, 0.1, 3),
            "fc3_weight": rs.normal(0, 0.5, (3, 5)), "fc3_bias": rs.normal(0, 0.1, 3)}
    meta, arrays = {}, {"x": x, "y": y}
    arrays.update({"init/" + k: v.astype(np.float32) for k, v in init.items()})
    for case, mod in sorted(lm.sequential_modules(mx).items()):
        it = mx.io.NDArrayIter(x, y, batch_size=8)
        rec = _Recorder()
        mod.fit(it, num_epoch=3, optimizer_params={"learning_rate": 0.3}, eval_metric="acc",
                arg_params={k: mx.nd.array(v) for k, v in init.items()}, allow_missing=False,
                batch_end_callback=rec, initializer=None)
        arg, _ = mod.get_params()
        arrays.update({"%s/%s" % (case, k): v.asnumpy() for k, v in arg.items()})
        meta[case] = dict(batches=rec.values, outputs=mod.output_shapes)
    _save("sequential", meta, arrays)


SECTIONS = {"sequential": sequential, "io_core": io_core, "iters": iters, "checkpoint": checkpoint, "mlp_fit": mlp_fit, "bucketing": bucketing,
            "trainer_multi": trainer_multi}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
        print("wrote", name)
