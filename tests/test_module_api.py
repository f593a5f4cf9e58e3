"""mx.mod.Module's API beyond fit: binding options, input gradients, reshaping, prediction with
padding, optimizer states and checkpoints, errors (values checked against closed forms)."""
import os

import numpy as np
import pytest

import neogluon as mx


def _fc_module(num_hidden=2, **kwargs):
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=num_hidden, name="fc")
    return mx.mod.Module(net, label_names=None, **kwargs)


def _ones_module(batch=3, **bind):
    mod = _fc_module()
    mod.bind([("data", (batch, 4))], **bind)
    mod.init_params(mx.init.One())
    return mod


def test_input_grads_and_grad_req_add():
    mod = _ones_module(inputs_need_grad=True)
    x = mx.nd.array(np.arange(12).reshape(3, 4))
    mod.forward(mx.io.DataBatch([x]), is_train=True)
    # One() sets weights to 1 and, as every initializer, biases to 0
    np.testing.assert_array_equal(mod.get_outputs()[0].asnumpy(), np.arange(12).reshape(3, 4).sum(1, keepdims=True)
                                  .repeat(2, 1))
    mod.backward([mx.nd.ones((3, 2))])
    np.testing.assert_array_equal(mod.get_input_grads()[0].asnumpy(), np.full((3, 4), 2.0))
    mod = _ones_module(grad_req="add")
    for _ in range(2):
        mod.forward(mx.io.DataBatch([x]), is_train=True)
        mod.backward([mx.nd.ones((3, 2))])
    weight_grad = dict(zip(mod._exec_group.param_names, mod._exec_group.grad_arrays))["fc_weight"][0]
    np.testing.assert_array_equal(weight_grad.asnumpy(), 2 * np.arange(12).reshape(3, 4).sum(0)[None].repeat(2, 0))
    with pytest.raises(AssertionError):
        mod.get_input_grads()


def test_fixed_params_are_not_updated():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    net = mx.sym.LinearRegressionOutput(net, name="lro")
    mod = mx.mod.Module(net, label_names=["lro_label"], fixed_param_names=["fc_bias"])
    it = mx.io.NDArrayIter(np.ones((4, 3)), np.zeros((4, 2)), batch_size=2, label_name="lro_label")
    mod.fit(it, num_epoch=1, initializer=mx.init.One(), eval_metric="mse")
    arg, _ = mod.get_params()
    assert arg["fc_bias"].asnumpy().tolist() == [0, 0]
    assert not np.allclose(arg["fc_weight"].asnumpy(), 1)


def test_forward_with_another_batch_size_reshapes():
    mod = _ones_module(batch=3, for_training=False)
    mod.forward(mx.io.DataBatch([mx.nd.ones((5, 4))]))
    assert mod.get_outputs()[0].shape == (5, 2)
    assert mod.data_shapes[0].shape == (5, 4) and mod.output_shapes == [("fc_output", (5, 2))]
    mod.reshape([("data", (2, 4))])
    assert mod.output_shapes == [("fc_output", (2, 2))]


def test_predict_removes_padding_and_iter_predict():
    mod = _ones_module(batch=4, for_training=False)
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    it = mx.io.NDArrayIter(x, batch_size=4)
    out = mod.predict(it)
    np.testing.assert_array_equal(out.asnumpy(), x.sum(1, keepdims=True).repeat(2, 1))
    batches = list(mod.iter_predict(it))
    assert [o[0].shape for o, _, _ in batches] == [(4, 2), (4, 2), (2, 2)]
    assert [b.pad for _, _, b in batches] == [0, 0, 2]
    assert len(mod.predict(it, merge_batches=False)) == 3
    assert mod.predict(mx.nd.ones((4, 4))).shape == (4, 2)
    assert mod.predict(it, num_batch=1).shape == (4, 2)
    assert isinstance(mod.predict(it, always_output_list=True), list)


def test_two_contexts_split_the_batch_by_workload():
    mod = _fc_module(context=[mx.cpu(0), mx.cpu(1)], work_load_list=[3, 1])
    mod.bind([("data", (8, 4))], for_training=False)
    mod.init_params(mx.init.One())
    assert [e.arg_dict["data"].shape for e in mod._exec_group.execs] == [(6, 4), (2, 4)]
    mod.forward(mx.io.DataBatch([mx.nd.array(np.arange(32).reshape(8, 4))]))
    np.testing.assert_array_equal(mod.get_outputs()[0].asnumpy()[:, 0], np.arange(32).reshape(8, 4).sum(1))
    assert [o.shape for o in mod.get_outputs(merge_multi_context=False)[0]] == [(6, 2), (2, 2)]


def test_optimizer_states_and_checkpoint_with_states(tmp_path):
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=1, name="fc"),
                                        name="lro")
    it = mx.io.NDArrayIter(np.ones((4, 3)), np.ones((4, 1)), batch_size=2, label_name="lro_label")
    mod = mx.mod.Module(net, label_names=["lro_label"])
    sgd = {"learning_rate": 0.1, "momentum": 0.9}
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params=sgd, initializer=mx.init.Zero(), eval_metric="mse")
    prefix = str(tmp_path / "reg")
    mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
    assert os.path.exists(prefix + "-0002.states")
    loaded = mx.mod.Module.load(prefix, 2, load_optimizer_states=True, label_names=["lro_label"])
    loaded.bind(it.provide_data, it.provide_label)
    loaded.init_optimizer(optimizer="sgd", optimizer_params=sgd)
    assert sorted(loaded._updater.states) == sorted(mod._updater.states)
    np.testing.assert_array_equal(loaded._updater.states[0].asnumpy(), mod._updater.states[0].asnumpy())
    # fit continues from the checkpoint exactly like the original module
    it.reset()
    for m in (mod, loaded):
        it.reset()
        m.fit(it, num_epoch=3, begin_epoch=2, optimizer="sgd", optimizer_params=sgd, eval_metric="mse")
    np.testing.assert_allclose(loaded.get_params()[0]["fc_weight"].asnumpy(),
                               mod.get_params()[0]["fc_weight"].asnumpy(), rtol=1e-6)
    cb = mx.callback.module_checkpoint(mod, str(tmp_path / "cb"), save_optimizer_states=True)
    cb(0)
    assert os.path.exists(str(tmp_path / "cb-0001.states"))


def test_module_errors():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    with pytest.raises(ValueError, match="data_names"):
        mx.mod.Module(net, data_names=["x"])
    mod = mx.mod.Module(net, label_names=None)
    with pytest.raises(AssertionError, match="bind"):
        mod.forward(mx.io.DataBatch([mx.nd.ones((1, 2))]))
    with pytest.raises(ValueError, match="don't match"):
        mod.bind([("x", (1, 2))])
    mod.bind([("data", (1, 2))], for_training=False)
    with pytest.raises(AssertionError):
        mod.init_optimizer()
    mod.init_params()
    with pytest.raises(RuntimeError, match="fc_bias is not presented"):
        mod.set_params({}, {})
    with pytest.raises(AssertionError, match="for_training"):
        mod.backward()
    with pytest.raises(mx.MXNetError, match="x-symbol.json"):  # as MXNet: the checkpoint is not there
        mx.model.FeedForward.load("x", 1)


def test_state_inputs():
    data, state = mx.sym.var("data"), mx.sym.var("h")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc") + state  # the shape of h is inferred
    mod = mx.mod.Module(net, label_names=None, state_names=["h"])
    assert mod._param_names == ["fc_weight", "fc_bias"]
    mod.bind([("data", (3, 4))], for_training=False)
    mod.init_params(mx.init.One())
    mod.set_states(value=5)
    mod.forward(mx.io.DataBatch([mx.nd.zeros((3, 4))]))
    assert mod.get_outputs()[0].asnumpy().tolist() == [[5, 5]] * 3
    (h,), = mod.get_states(merge_multi_context=False)
    mod.set_states(states=[[mx.nd.ones(h.shape) * 2]])
    mod.forward(mx.io.DataBatch([mx.nd.zeros((3, 4))]))
    assert mod.get_outputs()[0].asnumpy().tolist() == [[2, 2]] * 3
    with pytest.raises(AssertionError):
        mod.get_states()


def test_fit_callbacks(tmp_path, caplog):
    import logging
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc"), name="sm")
    mod = mx.mod.Module(net, label_names=["sm_label"])
    x, y = np.random.RandomState(0).uniform(size=(8, 3)), np.arange(8) % 2
    train = mx.io.NDArrayIter(x, y, batch_size=4, label_name="sm_label")
    val = mx.io.NDArrayIter(x, y, batch_size=4, label_name="sm_label")
    seen = []
    with caplog.at_level(logging.INFO):
        mod.fit(train, eval_data=val, num_epoch=2, epoch_end_callback=mx.callback.do_checkpoint(str(tmp_path / "m")),
                batch_end_callback=lambda p: seen.append(("train", p.epoch, p.nbatch)),
                eval_batch_end_callback=lambda p: seen.append(("eval", p.epoch, p.nbatch)),
                eval_end_callback=mx.callback.LogValidationMetricsCallback())
    assert seen == [("train", 0, 0), ("train", 0, 1), ("eval", 0, 0), ("eval", 0, 1),
                    ("train", 1, 0), ("train", 1, 1), ("eval", 1, 0), ("eval", 1, 1)]
    assert os.path.exists(str(tmp_path / "m-0002.params"))
    msgs = [m for m in caplog.messages if not m.startswith(("Epoch[0] Time", "Epoch[1] Time"))]
    assert [m.split("=")[0] for m in msgs] == [
        "Epoch[0] Train-accuracy", 'Saved checkpoint to "%s-0001.params"' % (tmp_path / "m"),
        "Epoch[0] Validation-accuracy", "Epoch[0] Validation-accuracy",
        "Epoch[1] Train-accuracy", 'Saved checkpoint to "%s-0002.params"' % (tmp_path / "m"),
        "Epoch[1] Validation-accuracy", "Epoch[1] Validation-accuracy"]
