"""``mx.contrib.svrg_optimization``: SVRGModule training a linear regression (fit with a
padded last batch, the intermediate-level loop with momentum, two devices through a local
KVStore). Expected numbers recorded from MXNet 1.9.1 running the same code."""
import numpy as np
import pytest

import neogluon as mx
from neogluon.contrib.svrg_optimization.svrg_module import SVRGModule


def _problem(noise=True):
    rng = np.random.RandomState(3)
    X = rng.randn(20, 4).astype("float32")
    Y = X @ np.array([1., -2., 0.5, 3.], "float32")
    if noise:
        Y = Y + 0.1 * rng.randn(20)
    W0 = (0.1 * rng.randn(1, 4)).astype("float32")
    lro = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.var("data"), name="fc1", num_hidden=1),
                                        mx.sym.var("lin_reg_label"), name="lro")
    return X, Y.astype("float32"), W0, lro


def test_fit_matches_mxnet():
    X, Y, W0, lro = _problem()
    di = mx.io.NDArrayIter(X, Y, batch_size=6, shuffle=False, label_name="lin_reg_label")  # 20 = 3 * 6 + 2
    mod = SVRGModule(symbol=lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    seen = []
    mod.fit(di, eval_metric="mse", optimizer="sgd", optimizer_params=(("learning_rate", 0.025),), num_epoch=3,
            arg_params={"fc1_weight": mx.nd.array(W0), "fc1_bias": mx.nd.zeros(1)},
            batch_end_callback=lambda p: seen.append(float(p.eval_metric.get()[1])),
            epoch_end_callback=lambda e, s, a, x: seen.append(float(a["fc1_weight"][0, 0].asscalar())))
    opt = mod._optimizer
    assert (type(opt).__name__, type(opt.default_opt).__name__) == ("_SVRGOptimizer", "SGD")
    assert sorted(opt.idx2name.items()) == [(0, "fc1_weight"), (1, "fc1_bias"), (2, "fc1_weight_full"),
                                            (3, "fc1_bias_full")]
    assert opt.rescale_grad == pytest.approx(1 / 6)
    arg, _ = mod.get_params()
    np.testing.assert_allclose(arg["fc1_weight"].asnumpy(),
                               [[0.030936438590288162, -0.4703826904296875, -0.011274607852101326,
                                 1.3212878704071045]], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(arg["fc1_bias"].asnumpy(), [-0.31354984641075134], rtol=1e-5)
    # the full gradient last computed (epoch 2), a padded batch counted as 2/6 of one
    np.testing.assert_allclose(mod._param_dict[0]["fc1_weight"].asnumpy(),
                               [[1.0762956142425537, 7.9866251945495605, 0.06994085758924484,
                                 -27.704082489013672]], rtol=1e-5)
    np.testing.assert_allclose(mod._param_dict[0]["fc1_bias"].asnumpy(), [6.594484329223633], rtol=1e-5)
    np.testing.assert_allclose(seen, [
        7.836240291595459, 16.454801321029663, 13.114305973052979, 11.802826404571533, 0.059318605810403824,
        5.310429096221924, 12.175302743911743, 9.574792544047037, 8.562554597854614, 0.04256065934896469,
        3.618908166885376, 8.974802136421204, 6.932621081670125, 6.090985357761383, 0.030936438590288162],
        rtol=1e-5)


def test_intermediate_api_with_momentum_matches_mxnet():
    X, Y, W0, lro = _problem()
    di = mx.io.NDArrayIter(X, Y, batch_size=5, shuffle=False, label_name="lin_reg_label")
    mod = SVRGModule(symbol=lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=1)
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label)
    mod.init_params(arg_params={"fc1_weight": mx.nd.array(W0), "fc1_bias": mx.nd.array([0.2])})
    mod.init_optimizer(kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.02), ("momentum", 0.9)))
    metric, losses = mx.metric.create("mse"), []
    for epoch in range(3):
        if epoch % mod.update_freq == 0:
            mod.update_full_grads(di)
        di.reset()
        metric.reset()
        for batch in di:
            mod.forward(data_batch=batch, is_train=True)
            mod.update_metric(metric, batch.label)
            mod.backward()
            mod.update()
        losses.append(float(metric.get()[1]))
    arg, _ = mod.get_params()
    np.testing.assert_allclose(arg["fc1_weight"].asnumpy(),
                               [[0.2767165005207062, -1.140456199645996, 0.1950296014547348, 3.5872018337249756]],
                               rtol=1e-5)
    np.testing.assert_allclose(arg["fc1_bias"].asnumpy(), [-0.7404190301895142], rtol=1e-5)
    np.testing.assert_allclose(losses, [12.501221656799316, 5.804887533187866, 1.5575908422470093], rtol=1e-5)


def test_two_devices_through_a_local_kvstore_match_mxnet():
    X, Y, W0, lro = _problem(noise=False)
    di = mx.io.NDArrayIter(X, Y, batch_size=4, label_name="lin_reg_label")
    mod = SVRGModule(symbol=lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=2,
                     context=[mx.cpu(0), mx.cpu(1)])
    mod.fit(di, eval_metric="mse", optimizer="sgd", optimizer_params=(("learning_rate", 0.05),), num_epoch=3,
            arg_params={"fc1_weight": mx.nd.array(W0), "fc1_bias": mx.nd.zeros(1)}, kvstore="local")
    assert mod._update_on_kvstore
    arg, _ = mod.get_params()
    np.testing.assert_allclose(arg["fc1_weight"].asnumpy(),
                               [[0.07727760076522827, -0.6254264116287231, 0.14077936112880707, 1.9850866794586182]],
                               rtol=1e-5)
    np.testing.assert_allclose(arg["fc1_bias"].asnumpy(), [-0.41754311323165894], rtol=1e-5)
    np.testing.assert_allclose(mod._param_dict[1]["fc1_weight"].asnumpy(),
                               [[-0.8450918197631836, 1.8317325115203857, -0.2072484791278839, -5.438282489776611]],
                               rtol=1e-5)


def test_update_freq_must_be_a_positive_int():
    lro = _problem()[3]
    with pytest.raises(ValueError, match="must be a positive integer"):
        SVRGModule(symbol=lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=0)
    with pytest.raises(TypeError, match="must be an integer"):
        SVRGModule(symbol=lro, data_names=["data"], label_names=["lin_reg_label"], update_freq=1.5)
    import neogluon.contrib.svrg_optimization as svrg
    assert svrg.svrg_module.SVRGModule is SVRGModule
    assert mx.optimizer.create("_svrgoptimizer", default_optimizer="adam").default_opt.__class__ is mx.optimizer.Adam
