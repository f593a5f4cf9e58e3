"""The CPU quantization operators (``mx.nd.contrib.quantize``, ``quantize_v2``, ``dequantize``,
``requantize``, ``calibrate_entropy``) against MXNet 1.9.1's recorded outputs
(tools/make_extra_fixtures_quantization.py):
equal to the bit, dtypes and min/max outputs included; and their schema in graphs."""
import json
import os

import numpy as np
import pytest

import neogluon as mx

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "quantization")
FIX = np.load(os.path.join(HERE, "cases.npz"))
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%s-%s-%s" % (c["key"], c["function"], c["data"],
                                                                       sorted(c["kwargs"].items())))
def test_matches_mxnet(case):
    data = FIX[case["data"]]
    if case["function"] == "calibrate_entropy":
        args = [mx.nd.array(data), mx.nd.array(FIX[case["data"] + "_edges"])]
        threshold, divergence = mx.nd.contrib.calibrate_entropy(*args, **case["kwargs"])
        assert threshold.shape == divergence.shape == (1,) and threshold.dtype == np.float32
        # the threshold exactly; the divergence to float32's last bits (the order of MXNet's log and sums)
        assert threshold.asscalar() == FIX[case["key"]][0]
        np.testing.assert_allclose(divergence.asscalar(), FIX[case["key"]][1], rtol=1e-6)
        return
    args = [mx.nd.array(data, dtype=data.dtype)] + [mx.nd.array([v]) for v in case["ranges"]]
    out = getattr(mx.nd.contrib, case["function"])(*args, **case["kwargs"])
    expected = FIX[case["key"]]
    i = int(case["key"][4:])
    if case["function"] == "dequantize":
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out.asnumpy(), expected)
        return
    assert [o.dtype for o in out] == [expected.dtype, np.float32, np.float32]
    np.testing.assert_array_equal(out[0].asnumpy(), expected)
    assert [o.shape for o in out[1:]] == [(1,), (1,)]
    np.testing.assert_array_equal([out[1].asscalar(), out[2].asscalar()], FIX["ranges"][i])


def test_symbols_infer_and_errors_as_mxnet():
    s = mx.sym.contrib.quantize_v2(mx.sym.var("d"), min_calib_range=-1.0, max_calib_range=1.0)
    assert s.list_outputs() == ["quantize_v20_output0", "quantize_v20_output1", "quantize_v20_output2"]
    assert s.infer_type(d="float32")[1] == [np.int8, np.float32, np.float32]
    assert s.infer_shape(d=(2, 3)) == ([(2, 3)], [(2, 3), (1,), (1,)], [])
    auto = mx.sym.contrib.quantize_v2(mx.sym.var("d"), out_type="auto", min_calib_range=0.0, max_calib_range=1.0)
    assert auto.infer_type(d="float32")[1][0] == np.uint8
    assert mx.sym.contrib.quantize(mx.sym.var("d"), mx.sym.var("lo"), mx.sym.var("hi")).list_arguments() == \
        ["d", "lo", "hi"]
    # quantized data passes through quantize_v2 with MXNet's ranges
    r = mx.nd.contrib.quantize_v2(mx.nd.array([1, 5, 100], dtype="uint8"))
    assert r[0].dtype == np.int8 and r[0].asnumpy().tolist() == [1, 5, 100]
    assert (r[1].asscalar(), r[2].asscalar()) == (0.0, 255.5)
    with pytest.raises(mx.MXNetError, match="Type inconsistent, Provided = float64, inferred type = float32"):
        mx.nd.contrib.quantize(mx.nd.array([1.], dtype="float64"), mx.nd.array([0.]), mx.nd.array([1.]))
    with pytest.raises(mx.MXNetError, match="Type inconsistent, Provided = float32, inferred type = int32"):
        mx.nd.contrib.requantize(mx.nd.array([1.]), mx.nd.array([0.]), mx.nd.array([1.]))
    with pytest.raises(mx.MXNetError, match="dequantize only supports int8/uint8"):
        mx.nd.contrib.dequantize(mx.nd.array([1], dtype="int32"), mx.nd.array([0.]), mx.nd.array([1.]))
    # a graph round trip: quantize, dequantize
    d = mx.sym.var("d")
    q = mx.sym.contrib.quantize_v2(d, min_calib_range=-2.0, max_calib_range=2.0)
    back = mx.sym.contrib.dequantize(q[0], q[1], q[2])
    out = back.bind(mx.cpu(), args={"d": mx.nd.array([0.5, -1.0, 1.99])}).forward()[0]
    np.testing.assert_allclose(out.asnumpy(), [0.5, -1.0, 1.99], atol=2 / 127.5)


with open(os.path.join(HERE, "layers.json")) as _f:
    LAYERS = json.load(_f)
LAYER_FIX = np.load(os.path.join(HERE, "layers.npz"))


def _mxnet_message(text):
    """The sentence of MXNet's error as neogluon words it: no class prefix, ``mshadow::`` as written."""
    text = text.replace("mshadow: :", "mshadow::")
    return text[len("MXNetError: "):] if text.startswith("MXNetError: ") else text


@pytest.mark.parametrize("case", LAYERS, ids=lambda c: "%s-%s-%s" % (c["key"], c["function"], c["inputs"][0]))
def test_quantized_layers_match_mxnet(case):
    """The quantized layers (fully_connected, conv, pooling, act, flatten, concat, elemwise_add,
    embedding, batch_norm, elemwise_mul) as MXNet 1.9.1 computes them
    (tools/make_extra_fixtures_quantization.py): int32 sums exactly, averages rounded as
    its oneDNN kernels, ranges to the bit; or its error for what its CPU build refuses."""
    args = [mx.nd.array(LAYER_FIX[n], dtype=LAYER_FIX[n].dtype) for n in case["inputs"]]
    fn = getattr(mx.nd.contrib, case["function"])
    if "error" in case:
        with pytest.raises(mx.MXNetError) as err:
            fn(*args, **case["kwargs"])[0].asnumpy()
        assert _mxnet_message(case["error"]) in str(err.value)
        return
    out = fn(*args, **case["kwargs"])
    assert len(out) == case["outputs"]
    expected = LAYER_FIX[case["key"]]
    assert out[0].dtype == expected.dtype and out[0].shape == expected.shape
    np.testing.assert_array_equal(out[0].asnumpy(), expected)
    if case["outputs"] == 3:
        assert [o.dtype for o in out[1:]] == [np.float32] * 2 and [o.shape for o in out[1:]] == [(1,)] * 2
        np.testing.assert_array_equal([out[1].asscalar(), out[2].asscalar()],
                                      LAYER_FIX["layer_ranges"][case["range_row"]])


def test_quantized_layer_symbols_as_mxnet():
    """Argument and output names, shapes and dtypes of the quantized layers in graphs (MXNet 1.9.1's)."""
    fc = mx.sym.contrib.quantized_fully_connected(mx.sym.var("d"), mx.sym.var("w"), mx.sym.var("b"), num_hidden=3,
                                                  name="fc")
    assert fc.list_arguments() == ["d", "w", "b", "fc_min_data", "fc_max_data", "fc_min_weight", "fc_max_weight",
                                   "fc_min_bias", "fc_max_bias"]
    assert fc.list_outputs() == ["fc_output", "fc_min_output", "fc_max_output"]
    assert fc.infer_shape(d=(2, 5)) == ([(2, 5), (3, 5), (3,)] + [(1,)] * 6, [(2, 3), (1,), (1,)], [])
    assert fc.infer_type(d="uint8")[1] == [np.int32, np.float32, np.float32]
    conv = mx.sym.contrib.quantized_conv(mx.sym.var("d"), mx.sym.var("w"), kernel=(3, 3), num_filter=4,
                                         no_bias=True, pad=(1, 1))
    assert conv.infer_shape(d=(1, 2, 5, 5))[:2] == ([(1, 2, 5, 5), (4, 2, 3, 3)] + [(1,)] * 4,
                                                    [(1, 4, 5, 5), (1,), (1,)])
    pool = mx.sym.contrib.quantized_pooling(mx.sym.var("d"), kernel=(2, 2), stride=(2, 2), name="p")
    assert pool.list_arguments() == ["d", "p_min_data", "p_max_data"]
    assert pool.infer_shape(d=(1, 2, 6, 5))[1] == [(1, 2, 3, 2), (1,), (1,)]
    assert pool.infer_type(d="uint8")[1] == [np.uint8, np.float32, np.float32]
    act = mx.sym.contrib.quantized_act(mx.sym.var("d"), act_type="relu")
    assert act.infer_type(d="uint8")[1] == [np.int8, np.float32, np.float32]  # int8 whatever the input
    flat = mx.sym.contrib.quantized_flatten(mx.sym.var("d"))
    assert flat.infer_shape(d=(2, 3, 4))[1] == [(2, 12), (1,), (1,)]
    assert flat.infer_type(d="float32")[1] == [np.float32] * 3
    cat = mx.sym.contrib.quantized_concat(mx.sym.var("a"), mx.sym.var("b"), num_args=2, name="c")
    assert cat.list_arguments() == ["a", "b", "c_arg0_min", "c_arg0_max", "c_arg1_min", "c_arg1_max"]
    assert cat.infer_shape(a=(2, 3), b=(2, 4))[1] == [(2, 7), (1,), (1,)]
    assert cat.infer_type(a="uint8", b="int8")[1] == [np.int8, np.float32, np.float32]
    add = mx.sym.contrib.quantized_elemwise_add(mx.sym.var("a"), mx.sym.var("b"), name="s")
    assert add.list_arguments() == ["a", "b", "s_lhs_min", "s_lhs_max", "s_rhs_min", "s_rhs_max"]
    assert add.list_outputs() == ["s_output", "s_min_output", "s_max_output"]
    assert add.infer_type(a="uint8", b="uint8")[1][0] == np.int32
    calibrated = mx.sym.contrib.quantized_elemwise_add(mx.sym.var("a"), mx.sym.var("b"), min_calib_range=-1.0,
                                                       max_calib_range=1.0)
    assert calibrated.infer_type(a="uint8", b="uint8")[1][0] == np.uint8
    assert calibrated.infer_type(a="uint8", b="int8")[1][0] == np.int8
    bn = mx.sym.contrib.quantized_batch_norm(mx.sym.var("d"), min_calib_range=-1.0, max_calib_range=1.0, name="bn")
    # MXNet lists moving_mean/moving_var as auxiliary states; its input order (the JSON's) is this one
    assert bn.list_inputs() == ["d", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_min_data",
                                "bn_max_data"]
    assert bn.infer_shape(d=(2, 3, 4))[1] == [(2, 3, 4), (1,), (1,)]
    assert bn.infer_type(d="uint8")[1] == [np.int8, np.float32, np.float32]
    # float data: the layers MXNet still runs (pooling, flatten) and the one it refuses (act)
    x = mx.nd.array(np.arange(16, dtype="float32").reshape(1, 1, 4, 4))
    lo, hi = mx.nd.array([0.0]), mx.nd.array([1.0])
    pooled = mx.nd.contrib.quantized_pooling(x, lo, hi, kernel=(2, 2), stride=(2, 2))[0]
    assert pooled.dtype == np.float32 and pooled.asnumpy().ravel().tolist() == [5.0, 7.0, 13.0, 15.0]
    with pytest.raises(mx.MXNetError, match="only supports uint8 and int8 as input type"):
        mx.nd.contrib.quantized_act(x, lo, hi, act_type="relu")
    # a quantized graph: quantize, FullyConnected, requantize, dequantize
    d = mx.sym.var("d")
    q = mx.sym.contrib.quantize_v2(d, min_calib_range=-1.0, max_calib_range=1.0)
    with pytest.raises(mx.MXNetError, match="argument name bias not found"):  # positions are the full
        mx.sym.contrib.quantized_fully_connected(q[0], mx.sym.var("w"), q[1], q[2], num_hidden=2, no_bias=True)
    y = mx.sym.contrib.quantized_fully_connected(q[0], mx.sym.var("w"), min_data=q[1], max_data=q[2],
                                                 min_weight=mx.sym.var("wlo"), max_weight=mx.sym.var("whi"),
                                                 num_hidden=2, no_bias=True)
    r = mx.sym.contrib.requantize(y[0], y[1], y[2], min_calib_range=-2.0, max_calib_range=2.0)
    out = mx.sym.contrib.dequantize(r[0], r[1], r[2])
    ex = out.bind(mx.cpu(), args={"d": mx.nd.array([[0.5, -1.0, 0.25]]),
                                  "w": mx.nd.array([[127, 0, 0], [0, 127, 127]], dtype="int8"),
                                  "wlo": mx.nd.array([-1.0]), "whi": mx.nd.array([1.0])})
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), [[0.5, -0.75]], atol=0.03)


def test_mxnet_quantized_model_runs_as_in_mxnet():
    """A network quantized by MXNet 1.9.1's quantize_model (quantize_v2, quantized conv, act,
    pooling, flatten and fully_connected, requantize, dequantize: model-symbol.json with its
    int8 parameters) loads and gives MXNet's output to the bit."""
    sym = mx.sym.load(os.path.join(HERE, "model-symbol.json"))
    params = mx.nd.load(os.path.join(HERE, "model.params"))
    args = {k[4:]: v for k, v in params.items()}
    fix = np.load(os.path.join(HERE, "model.npz"))
    out = sym.bind(mx.cpu(), args=dict(args, data=mx.nd.array(fix["x"]))).forward()[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), fix["y"])
