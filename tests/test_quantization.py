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
