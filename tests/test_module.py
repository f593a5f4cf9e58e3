"""mx.model / mx.mod / mx.callback against MXNet 1.9.1 (tools/make_extra_fixtures_legacy.py):
checkpoints run through Module, Module.fit's metric trajectory and log lines, BucketingModule."""
import json
import logging
import os
import re
import sys

import numpy as np
import pytest

import neogluon as mx

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "legacy")
sys.path.insert(0, os.path.dirname(__file__))
import legacy_models as lm  # noqa: E402


def _fixture(name):
    with open(os.path.join(FIX, name + ".json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(FIX, name + ".npz"))


# ----------------------------------------------------------------------------- checkpoints
def test_checkpoint_through_module_matches_mxnet():
    meta, arr = _fixture("checkpoint")
    sym, arg, aux = mx.model.load_checkpoint(os.path.join(FIX, "cnn"), 3)
    assert sorted(arg) == meta["cnn_args"] and sorted(aux) == meta["cnn_aux"]
    x = arr["x"]
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(arg, aux)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), arr["softmax"], rtol=1e-5, atol=1e-6)
    assert mod.output_shapes == [("softmax_output", (2, 5))]


def test_insightface_feature_extraction_script_runs_unchanged():
    """The recipe of InsightFace's face_model.py: internal output 'fc1_output', label_names=None."""
    _, arr = _fixture("checkpoint")
    prefix, epoch = os.path.join(FIX, "cnn"), 3
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, epoch)
    all_layers = sym.get_internals()
    sym = all_layers["fc1_output"]
    model = mx.mod.Module(symbol=sym, context=mx.cpu(), label_names=None)
    model.bind(data_shapes=[("data", (1, 3, 8, 8))])
    model.set_params(arg_params, aux_params)
    data = mx.nd.array(arr["x"][:1])
    db = mx.io.DataBatch(data=(data,))
    model.forward(db, is_train=False)
    embedding = model.get_outputs()[0].asnumpy()
    np.testing.assert_allclose(embedding, arr["fc1"], rtol=1e-5, atol=1e-6)


def test_gluon_export_through_module_equals_symbolblock_and_mxnet():
    meta, arr = _fixture("checkpoint")
    prefix = os.path.join(FIX, "gnet")
    sym, arg, aux = mx.model.load_checkpoint(prefix, 0)
    assert sym.list_outputs() == meta["gnet_outputs"]
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", arr["x"].shape)], for_training=False)
    mod.set_params(arg, aux)
    mod.forward(mx.io.DataBatch([mx.nd.array(arr["x"])]))
    out = mod.get_outputs()[0].asnumpy()
    np.testing.assert_allclose(out, arr["gnet"], rtol=1e-5, atol=1e-6)
    block = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    np.testing.assert_allclose(block(mx.nd.array(arr["x"])).asnumpy(), out, rtol=1e-6, atol=1e-7)


def test_save_and_load_checkpoint_roundtrip(tmp_path):
    sym, arg, aux = mx.model.load_checkpoint(os.path.join(FIX, "cnn"), 3)
    prefix = str(tmp_path / "m")
    mx.model.save_checkpoint(prefix, 7, sym, arg, aux)
    with open(prefix + "-symbol.json") as a, open(os.path.join(FIX, "cnn-symbol.json")) as b:
        assert json.load(a) == json.load(b)
    raw = mx.nd.load(prefix + "-0007.params")
    assert sorted(raw) == sorted(["arg:" + k for k in arg] + ["aux:" + k for k in aux])
    arg2, aux2 = mx.model.load_params(prefix, 7)
    for k in arg:
        np.testing.assert_array_equal(arg2[k].asnumpy(), arg[k].asnumpy())
    mod = mx.mod.Module.load(prefix, 7)
    mod.bind(data_shapes=[("data", (1, 3, 8, 8))], for_training=False)
    got, _ = mod.get_params()
    np.testing.assert_array_equal(got["fc1_weight"].asnumpy(), arg["fc1_weight"].asnumpy())


def test_feedforward_needs_a_symbol_or_sym_gen():
    # MXNet 1.9.1: ``assert(callable(symbol))``; FeedForward's training is in test_legacy_programs.py
    with pytest.raises(AssertionError), pytest.warns(DeprecationWarning):
        mx.model.FeedForward(None)
    p = mx.model.BatchEndParam(epoch=1, nbatch=2, eval_metric=None, locals={})
    assert type(p).__name__ == "BatchEndParams" and p.nbatch == 2


# ----------------------------------------------------------------------------- Module.fit on the MNIST MLP
MLP_META, MLP_ARR = _fixture("mlp_fit")


class _Recorder:
    def __init__(self):
        self.values = []

    def __call__(self, param):
        self.values.append([param.epoch, param.nbatch] + [float(v) for _, v in param.eval_metric.get_name_value()])


@pytest.mark.parametrize("case", sorted(MLP_META))
def test_module_fit_mnist_mlp_matches_mxnet(case):
    rec_meta = MLP_META[case]
    x, y = lm.mnist_like(600, 1)
    vx, vy = lm.mnist_like(200, 2)
    net = lm.mlp_symbol(mx)
    init = lm.init_params(net, dict(data=(100, 1, 28, 28)), 11, 0.05)
    np.random.seed(42)
    train = mx.io.NDArrayIter(x, y, batch_size=100, shuffle=True)
    val = mx.io.NDArrayIter(vx, vy, batch_size=100)
    rec, logs = _Recorder(), []
    handler = logging.Handler()
    handler.emit = lambda r: logs.append(r.getMessage())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        mod = mx.mod.Module(net, context=[mx.cpu(i) for i in range(rec_meta["devices"])])
        mod.fit(train, eval_data=val, eval_metric=["acc", "ce"], num_epoch=3,
                arg_params={k: mx.nd.array(v) for k, v in init.items()},
                batch_end_callback=[rec, mx.callback.Speedometer(100, 2)], **rec_meta["kwargs"])
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    want = np.array(rec_meta["batches"])
    got = np.array(rec.values)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got[:, :2], want[:, :2])
    np.testing.assert_allclose(got[:, 2], want[:, 2], atol=0.011)  # accuracy: at most one sample in 100 flips
    np.testing.assert_allclose(got[:, 3], want[:, 3], rtol=2e-4)  # cross-entropy
    scrub = [re.sub(r"Speed: [0-9.]+", "Speed: <S>", re.sub(r"cost=[0-9.]+", "cost=<T>", m)) for m in logs]
    fmt = [re.sub(r"=[0-9.]+", "=<V>", m) for m in scrub]
    assert fmt == [re.sub(r"=[0-9.]+", "=<V>", m) for m in rec_meta["logs"]]
    score = mod.score(val, ["acc", "ce"])
    assert [n for n, _ in score] == [n for n, _ in rec_meta["score"]]
    np.testing.assert_allclose([v for _, v in score], [v for _, v in rec_meta["score"]], rtol=2e-4, atol=0.006)
    np.testing.assert_allclose(mod.predict(val).asnumpy(), MLP_ARR["%s/pred" % case], rtol=2e-3, atol=2e-5)
    arg, _ = mod.get_params()
    for key in MLP_ARR.files:
        if key.startswith(case + "/final/"):
            np.testing.assert_allclose(arg[key.split("/")[-1]].asnumpy(), MLP_ARR[key], rtol=2e-3, atol=2e-5)


def test_speedometer_line_format(monkeypatch, caplog):
    clock = iter([100.0, 102.0] + [103.0] * 50)  # logging reads the clock too
    monkeypatch.setattr(mx.callback.time, "time", lambda: next(clock))
    metric = mx.metric.create("acc")
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.2, 0.8]])])
    spd = mx.callback.Speedometer(batch_size=10, frequent=2, auto_reset=False)
    with caplog.at_level(logging.INFO):
        for n in range(3):
            spd(mx.model.BatchEndParam(epoch=1, nbatch=n, eval_metric=metric, locals=None))
        mx.callback.Speedometer(10, 2)(mx.model.BatchEndParam(1, 0, None, None))
    assert caplog.messages == ["Epoch[1] Batch [0-2]\tSpeed: 10.00 samples/sec\taccuracy=1.000000"]


def test_other_callbacks(tmp_path, caplog):
    metric = mx.metric.create("acc")
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[0.9, 0.1], [0.8, 0.2]])])
    with caplog.at_level(logging.INFO):
        mx.callback.log_train_metric(2)(mx.model.BatchEndParam(3, 4, metric, None))
        mx.callback.ProgressBar(total=4, length=8)(mx.model.BatchEndParam(0, 2, None, None))
        mx.callback.LogValidationMetricsCallback()(mx.model.BatchEndParam(5, 0, metric, None))
    assert caplog.messages == ["Iter[3] Batch[4] Train-accuracy=0.500000", "[====----] 50%\r",
                               "Epoch[5] Validation-accuracy=0.500000"]
    sym, arg, aux = mx.model.load_checkpoint(os.path.join(FIX, "cnn"), 3)
    cb = mx.callback.do_checkpoint(str(tmp_path / "ck"), period=2)
    cb(0, sym, arg, aux)
    assert not os.path.exists(str(tmp_path / "ck-0001.params"))
    cb(1, sym, arg, aux)
    assert os.path.exists(str(tmp_path / "ck-0002.params")) and os.path.exists(str(tmp_path / "ck-symbol.json"))


# ----------------------------------------------------------------------------- BucketingModule
def test_bucketing_module_lstm_matches_mxnet():
    meta, arr = _fixture("bucketing")

    def sym_gen(seq_len):
        return lm.lstm_symbol(mx, seq_len)
    sym, _, _ = sym_gen(7)
    init = lm.init_params(sym, dict(data=(5, 7), softmax_label=(5, 7)), 21, 0.3)
    it = lm.bucket_iter(mx, 4)
    rec = _Recorder()
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=7, context=mx.cpu())
    mod.fit(it, eval_metric="ce", num_epoch=4, optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.5},
            arg_params={k: mx.nd.array(v) for k, v in init.items()}, batch_end_callback=rec)
    np.testing.assert_allclose(np.array(rec.values), np.array(meta["batches"]), rtol=1e-4)
    losses = np.array(meta["batches"])[:, 2]
    assert losses[-1] < losses[0] / 2  # it learns
    assert sorted(mod._buckets) == [4, 7]
    arg, _ = mod.get_params()
    for k in arg:
        np.testing.assert_allclose(arg[k].asnumpy(), arr["final/" + k], rtol=1e-4, atol=1e-5)
    # every bucket's executor uses the default bucket's weight arrays
    w4 = mod._buckets[4]._exec_group.execs[0].arg_dict["lstm_i2h_weight"]
    w7 = mod._buckets[7]._exec_group.execs[0].arg_dict["lstm_i2h_weight"]
    assert w4 is w7
    score = mod.score(it, "ce")
    np.testing.assert_allclose(score[0][1], meta["score"][0][1], rtol=1e-4)


# ----------------------------------------------------------------------------- Monitor
def _small_module():
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    net = mx.sym.SoftmaxOutput(act, name="softmax")
    mod = mx.mod.Module(net)
    mod.bind([("data", (2, 4))], [("softmax_label", (2,))])
    mod.init_params(mx.init.One())
    return mod


def test_monitor_rows_match_mxnet(caplog):
    """The rows MXNet 1.9.1 gives for this module (Monitor(1, sort=True) around one forward)."""
    mod = _small_module()
    mon = mx.mon.Monitor(1, sort=True)
    mod.install_monitor(mon)
    mon.tic()
    batch = mx.io.DataBatch([mx.nd.ones((2, 4))], [mx.nd.zeros((2,))])
    mod.forward(batch, is_train=True)
    assert mon.toc() == [(1, "data", "1.0\t"), (1, "fc1_bias", "0.0\t"), (1, "fc1_output", "4.0\t"),
                         (1, "fc1_weight", "1.0\t"), (1, "relu1_output", "4.0\t"), (1, "softmax_label", "0.0\t"),
                         (1, "softmax_output", "0.33333334\t")]
    assert mon.toc() == []
    mon = mx.monitor.Monitor(2, stat_func=lambda x: x.max(), pattern=".*output")
    mod.install_monitor(mon)
    with caplog.at_level(logging.INFO):
        for _ in range(3):
            mon.tic()
            mod.forward(batch, is_train=False)
            mon.toc_print()
    assert caplog.messages == ["Batch:       1 fc1_output                     4.0\t",
                               "Batch:       1 relu1_output                   4.0\t",
                               "Batch:       1 softmax_output                 0.33333334\t",
                               "Batch:       3 fc1_output                     4.0\t",
                               "Batch:       3 relu1_output                   4.0\t",
                               "Batch:       3 softmax_output                 0.33333334\t"]


def _monitored_net():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, no_bias=True, name="conv1")
    bn = mx.sym.BatchNorm(c, name="bn1")
    a = mx.sym.Activation(bn, act_type="relu", name="relu1")
    s = mx.sym.elemwise_add(a, c, name="add1")
    p = mx.sym.Pooling(s, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    fc = mx.sym.FullyConnected(mx.sym.Flatten(p, name="flat1"), num_hidden=3, name="fc1")
    net = mx.sym.SoftmaxOutput(fc, name="softmax")
    rng = np.random.RandomState(0)
    x, y = rng.rand(4, 2, 6, 6).astype("float32"), np.arange(4) % 3
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([("data", x.shape)], [("softmax_label", y.shape)], inputs_need_grad=True)
    mod.init_params(mx.init.Constant(0.1))
    args, auxs = mod.get_params()
    mod.set_params({k: mx.nd.array(rng.uniform(-0.5, 0.5, v.shape)) for k, v in args.items()}, auxs)
    mod.init_optimizer()
    return mod, mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])


# Monitor(1) around forward_backward + update of _monitored_net, MXNet 1.9.1 (`/tmp/mon4.py` of the
# 2026-12-07 session); left out: its graph-internal rows (bn1_mean, bn1_var, pool1_workspace,
# zeros_without_dtype_output) and softmax_backward_output1, the label's unwritten gradient (5.07e-43)
_MONITOR_ROWS = [
    ("conv1_output", 0.81439936), ("bn1_output", 1.0211785), ("relu1_output", 0.78207624),
    ("add1_output", 1.1077698), ("pool1_output", 1.505514), ("flat1_output", 1.505514),
    ("fc1_output", 2.4694219), ("softmax_output", 0.53871226), ("softmax_backward_output0", 0.5726672),
    ("fc1_backward_output0", 0.29565778), ("fc1_backward_output1", 1.8416754),
    ("fc1_backward_output2", 1.2084265), ("flat1_backward_output", 0.29565778),
    ("pool1_backward_output", 0.14782889), ("relu1_backward_output", 0.14742054),
    ("bn1_backward_output0", 0.426177), ("bn1_backward_output1", 0.0), ("bn1_backward_output2", 2.0999475),
    ("sum_grad_output", 0.56436646), ("conv1_backward_output0", 0.63498324),
    ("conv1_backward_output1", 1.6034659), ("data", 0.57982653), ("conv1_weight", 0.28859958),
    ("bn1_gamma", 1.0), ("bn1_beta", 0.22762352), ("fc1_weight", 0.30535433), ("fc1_bias", 0.41697523),
    ("softmax_label", 1.118034), ("bn1_moving_mean", 0.074208), ("bn1_moving_var", 0.9112596)]


def test_monitor_reports_backward_gradients_as_mxnet():
    """Forward outputs, each operator's argument gradients (elemwise_add has no gradient node in
    MXNet's graph; conv1's output, used twice, adds its gradients in ``sum_grad``), then the
    arguments and auxiliary states, in MXNet 1.9.1's order and values; the monitored step trains
    as an unmonitored one."""
    mod, batch = _monitored_net()
    plain, _ = _monitored_net()
    mon = mx.mon.Monitor(1, pattern=".*")
    mod.install_monitor(mon)
    mon.tic()
    mod.forward_backward(batch)
    plain.forward_backward(batch)
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), plain.get_input_grads()[0].asnumpy(), rtol=1e-5,
                               atol=1e-7)
    mod.update()
    rows = [(k, float(v)) for _, k, v in mon.toc()]
    assert [k for k, _ in rows if k != "softmax_backward_output1"] == [k for k, _ in _MONITOR_ROWS]
    np.testing.assert_allclose([v for k, v in rows if k != "softmax_backward_output1"],
                               [v for _, v in _MONITOR_ROWS], rtol=2e-5, atol=1e-7)
    plain.update()
    for (name, a), b in zip(sorted(mod.get_params()[0].items()), (v for _, v in sorted(plain.get_params()[0].items()))):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7, err_msg=name)


def test_executor_monitor_callback_gets_mxnet_handles():
    """``set_monitor_callback(cb)``: ``cb(name_bytes, handle)``, the array read as MXNet's callbacks
    read it (``NDArray(ctypes.cast(handle, NDArrayHandle))``), valid while the callback runs; with
    ``monitor_all`` each node's inputs come first."""
    import ctypes
    data = mx.sym.var("data")
    net = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), act_type="tanh", name="act")
    exe = net.simple_bind(mx.cpu(), data=(3, 4))
    for k, arr in enumerate(exe.arg_arrays):
        arr[:] = np.arange(arr.size).reshape(arr.shape) / (10.0 + k)
    seen = []

    def callback(name, handle):
        arr = mx.nd.NDArray(ctypes.cast(handle, mx.base.NDArrayHandle), writable=False)
        seen.append((mx.base.py_str(name), arr.asnumpy().copy()))
    exe.set_monitor_callback(callback, monitor_all=True)
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward(mx.nd.ones((3, 2)))
    assert [n for n, _ in seen] == ["fc_data", "fc_weight", "fc_bias", "fc_output", "act_data", "act_output",
                                    "act_backward_output", "fc_backward_output0", "fc_backward_output1",
                                    "fc_backward_output2"]
    got = dict(seen)
    np.testing.assert_allclose(got["act_output"], out)
    np.testing.assert_allclose(got["act_backward_output"], 1 - out ** 2, rtol=1e-6)
    np.testing.assert_allclose(got["fc_backward_output1"], exe.grad_dict["fc_weight"].asnumpy(), rtol=1e-6)
    with pytest.raises(mx.base.MXNetError, match="handle"):
        mx.nd.NDArray(ctypes.c_void_p(12345))
    exe.set_monitor_callback(None)
    seen.clear()
    exe.forward()
    assert seen == []


# ----------------------------------------------------------------------------- SequentialModule, PythonLossModule
@pytest.mark.parametrize("case", ["python_loss", "two_modules"])
def test_sequential_module_fit_matches_mxnet(case):
    meta, arr = _fixture("sequential")
    mod = lm.sequential_modules(mx)[case]
    it = mx.io.NDArrayIter(arr["x"], arr["y"], batch_size=8)
    rec = _Recorder()
    init = {k[5:]: mx.nd.array(arr[k]) for k in arr.files if k.startswith("init/")}
    mod.fit(it, num_epoch=3, optimizer_params={"learning_rate": 0.3}, eval_metric="acc", arg_params=init,
            allow_missing=False, batch_end_callback=rec, initializer=None)
    np.testing.assert_allclose(np.array(rec.values), np.array(meta[case]["batches"]), rtol=1e-6)
    assert [[n, list(s)] for n, s in mod.output_shapes] == meta[case]["outputs"]
    arg, _ = mod.get_params()
    for k, v in arg.items():
        np.testing.assert_allclose(v.asnumpy(), arr["%s/%s" % (case, k)], rtol=1e-4, atol=1e-6)


def test_sequential_module_rejects_duplicate_parameter_names():
    net = mx.sym.FullyConnected(mx.sym.var("data"), name="fc", num_hidden=2)
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(net, label_names=None)).add(mx.mod.Module(net, label_names=None), auto_wiring=True)
    seq.bind([("data", (2, 2))])
    with pytest.raises(AssertionError, match="Duplicated parameter names"):
        seq.init_params()
    with pytest.raises(AssertionError, match="Unknown meta"):
        seq.add(mx.mod.Module(net), take_label=True)
