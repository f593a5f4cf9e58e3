"""Convolution-family and spatial operators beyond the shared fixtures: channel-last
layouts, 3-d, pooling conventions and padding corner cases, Deconvolution's
target_shape, the resize modes, LRN/L2Normalization variants, ROIPooling, im2col/col2im,
weight/bias shape inference and error handling.

Expected values come from MXNet 1.9.1 via tools/make_extra_fixtures_conv.py
(tests/fixtures/extra/conv/).
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "conv")
MANIFEST = json.load(open(os.path.join(HERE, "cases.json")))
ARRAYS = np.load(os.path.join(HERE, "cases.npz"))
RTOL, ATOL = 1e-4, 1e-5


def fixture(case, key):
    return ARRAYS["%s/%s" % (case, key)]


def check(actual, expected, what):
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s: shape %s, MXNet gave %s" % (what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=RTOL, atol=ATOL,
                               err_msg=what)


# ----------------------------------------------------------------------------- values from MXNet
@pytest.mark.parametrize("case", sorted(MANIFEST["cases"]))
def test_values_and_gradients(case):
    spec = MANIFEST["cases"][case]
    inputs = [mx.nd.array(fixture(case, "in:" + n), dtype=fixture(case, "in:" + n).dtype) for n in spec["inputs"]]
    with mx.autograd.predict_mode():
        predicted = invoke(spec["op"], inputs, spec["attrs"])
    check(predicted if not isinstance(predicted, list) else predicted[0], fixture(case, "out:0"), case + " predict")
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            x.attach_grad()
    with mx.autograd.record():
        out = invoke(spec["op"], inputs, spec["attrs"])
    outs = out if isinstance(out, list) else [out]
    assert len(outs) == spec["outputs"]
    for i, o in enumerate(outs):
        check(o, fixture(case, "out:%d" % i), "%s output %d" % (case, i))
    heads = [mx.nd.array(fixture(case, "head:%d" % i), dtype=fixture(case, "head:%d" % i).dtype)
             for i in range(len(outs))]
    mx.autograd.backward(outs, heads)
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            check(x.grad, fixture(case, "grad:" + name), "%s gradient of %s" % (case, name))


# ----------------------------------------------------------------------------- shape inference
@pytest.mark.parametrize("case", sorted(MANIFEST["infer"]))
def test_infer_args_fills_weight_and_bias(case):
    spec = MANIFEST["infer"][case]
    op = registry.get(spec["op"])
    attrs = op.parse_attrs(spec["attrs"])
    names = op.input_names(attrs)
    assert list(names[1:]) == [n.rsplit("_", 1)[1] for n in spec["arg_names"][1:]]
    shapes = op.infer_args(attrs, [tuple(spec["arg_shapes"][0])] + [None] * (len(names) - 1))
    assert [tuple(s) for s in shapes] == [tuple(s) for s in spec["arg_shapes"]]
    out = invoke(op, [mx.nd.zeros(tuple(s)) for s in shapes], spec["attrs"])
    assert out.shape == tuple(spec["out_shape"])


def test_infer_args_leaves_unknown_data_alone():
    op = registry.get("Convolution")
    attrs = op.parse_attrs({"kernel": (3, 3), "num_filter": 4})
    assert op.infer_args(attrs, [None, None, None]) == [None, None, None]
    assert op.infer_args(attrs, [(0, 3, 8, 8), None, None]) == [(0, 3, 8, 8), (4, 3, 3, 3), (4,)]


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("case", sorted(MANIFEST["errors"]))
def test_rejects_what_mxnet_rejects(case):
    spec = MANIFEST["errors"][case]
    inputs = [mx.nd.ones(tuple(s)) for s in spec["shapes"]]
    with pytest.raises(MXNetError) as err:
        invoke(spec["op"], inputs, spec["attrs"]).asnumpy()
    assert spec["op"] in str(err.value)


def test_error_messages_name_argument_and_shapes():
    with pytest.raises(MXNetError, match=r"Convolution.*weight=\(2, 1, 3, 3\).*\(1, 1, 3, 3\).*\(1, 1, 4, 4\)"):
        mx.nd.Convolution(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((2, 1, 3, 3)), kernel=(3, 3), num_filter=1,
                          no_bias=True)
    with pytest.raises(MXNetError, match=r"Pooling: kernel size \(5\) exceeds input \(4 padded to 4\)"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(5, 5))
    with pytest.raises(MXNetError, match=r"Deconvolution: adj=\(2, 2\) must be smaller than stride=\(2, 2\)"):
        mx.nd.Deconvolution(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 3, 3)), kernel=(3, 3), stride=(2, 2),
                            adj=(2, 2), num_filter=1)
    with pytest.raises(MXNetError, match="layout"):
        mx.nd.Convolution(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 3, 3)), kernel=(3, 3), num_filter=1,
                          no_bias=True, layout="NCDHW")


def test_unknown_and_invalid_attributes_are_rejected():
    with pytest.raises(MXNetError, match="Cannot find argument 'kernal'"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernal=(2, 2))
    with pytest.raises(MXNetError, match="pool_type"):
        mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="median")
    with pytest.raises(MXNetError, match="kernel"):
        mx.nd.Convolution(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 3, 3)), num_filter=1, no_bias=True)


# ----------------------------------------------------------------------------- schema
def test_schema_matches_mxnet():
    conv = registry.get("Convolution")
    assert conv.param_names == ("kernel", "stride", "dilate", "pad", "num_filter", "num_group", "workspace",
                                "no_bias", "cudnn_tune", "cudnn_off", "layout")
    deconv = registry.get("Deconvolution")
    assert deconv.input_names(deconv.parse_attrs({"kernel": (2, 2), "num_filter": 1})) == ("data", "weight")
    for alias, name in (("_npx_convolution", "Convolution"), ("_npx_deconvolution", "Deconvolution"),
                        ("_npx_pooling", "Pooling"), ("_npx_roi_pooling", "ROIPooling")):
        assert registry.get(alias) is registry.get(name)


@pytest.mark.parametrize("attrs, total", [({"kernel": (2, 2)}, 2), ({"kernel": (2, 2), "pool_type": "avg"}, 1),
                                          ({"kernel": (2, 2), "layout": "NHWC"}, 1),
                                          ({"global_pool": True}, 1), ({"kernel": (2,), "pool_type": "lp"}, 1)])
def test_pooling_hidden_workspace_output(attrs, total):
    op = registry.get("Pooling")
    parsed = op.parse_attrs(attrs)
    assert (op.num_outputs(parsed), op.num_visible_outputs(parsed)) == (total, 1)


def test_hidden_outputs_and_input_names():
    for name in ("LRN", "L2Normalization", "ROIPooling"):
        op = registry.get(name)
        parsed = op.parse_attrs({"nsize": 3} if name == "LRN" else
                                {"pooled_size": (2, 2), "spatial_scale": 1.0} if name == "ROIPooling" else {})
        assert (op.num_outputs(parsed), op.num_visible_outputs(parsed)) == (2, 1)
    up = registry.get("UpSampling")
    assert up.input_names(up.parse_attrs({"scale": 2, "sample_type": "bilinear", "num_filter": 3,
                                          "num_args": 1})) == ("data", "weight")
    assert up.input_names(up.parse_attrs({"scale": 2, "sample_type": "nearest", "num_args": 2})) == ("arg0", "arg1")
    rz = registry.get("_contrib_BilinearResize2D")
    assert rz.input_names(rz.parse_attrs({"mode": "like"})) == ("data", "like")
    assert rz.input_names(rz.parse_attrs({})) == ("data",)


def test_namespaces():
    x = mx.nd.ones((1, 2, 3, 3))
    assert mx.nd.UpSampling(x, x, scale=2, sample_type="nearest").shape == (1, 4, 6, 6)
    assert mx.nd.contrib.BilinearResize2D(x, height=5, width=4).shape == (1, 2, 5, 4)
    assert mx.nd.contrib.AdaptiveAvgPooling2D(x, output_size=2).shape == (1, 2, 2, 2)


# ----------------------------------------------------------------------------- properties
@pytest.mark.parametrize("shape, kernel, stride, dilate, pad", [
    ((2, 3, 11), (3,), (2,), (2,), (1,)),
    ((1, 2, 5, 6, 4), (2, 3, 2), (1, 2, 1), (2, 1, 1), (1, 1, 0)),
    ((2, 3, 6, 5), (3, 2), (2, 1), (1, 2), (1, 1)),
])
def test_im2col_is_convolution_and_col2im_its_adjoint(shape, kernel, stride, dilate, pad):
    """MXNet documents 1-3 d im2col/col2im but only its 2-d kernels run; others are checked by
    their definition: a convolution is a matmul with im2col's columns; col2im is the adjoint."""
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.randn(*shape))
    w = mx.nd.array(rng.randn(4, shape[1], *kernel))
    geo = dict(kernel=kernel, stride=stride, dilate=dilate, pad=pad)
    cols = mx.nd.im2col(x, **geo)
    conv = mx.nd.Convolution(x, w, num_filter=4, no_bias=True, **geo)
    via_cols = np.einsum("fk,nkl->nfl", w.asnumpy().reshape(4, -1), cols.asnumpy())
    np.testing.assert_allclose(via_cols, conv.asnumpy().reshape(via_cols.shape), rtol=1e-4, atol=1e-5)
    y = mx.nd.array(rng.randn(*cols.shape))
    back = mx.nd.col2im(y, output_size=shape[2:], **geo)
    assert back.shape == x.shape
    np.testing.assert_allclose((cols * y).sum().asscalar(), (x * back).sum().asscalar(), rtol=1e-4)


def test_pooling_keeps_dtype_and_meta_shapes():
    half = mx.nd.Pooling(mx.nd.ones((1, 1, 4, 4), dtype="float16"), kernel=(2, 2), stride=(2, 2), pool_type="avg")
    assert half.dtype == np.float16 and half.shape == (1, 1, 2, 2)
    import torch
    op = registry.get("Pooling")
    attrs = op.parse_attrs({"kernel": (3, 3), "stride": (2, 2), "pad": (2, 2), "pooling_convention": "full",
                            "pool_type": "avg"})
    assert op.fn(torch.empty(2, 3, 7, 8, device="meta"), **attrs).shape == (2, 3, 5, 6)


def test_nearest_upsampling_keeps_integer_dtype():
    x = mx.nd.array([[[[1, 2], [3, 4]]]], dtype="int32")
    y = mx.nd.UpSampling(x, scale=2, sample_type="nearest")
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y.asnumpy()[0, 0], np.kron([[1, 2], [3, 4]], np.ones((2, 2), np.int32)))


def test_recorded_convolution_runs_the_chosen_kernel_with_the_same_gradients():
    """A recorded plain 2-d convolution runs the faster of oneDNN's and the GEMM kernel for
    its shapes (operator/conv_choice.py): each gives torch's conv2d values and gradients, and
    the choice is made once per shape."""
    import torch
    import torch.nn.functional as F
    from neogluon.operator import conv_choice
    rng = np.random.RandomState(3)
    x, w, b = (rng.uniform(-1, 1, s).astype("float32") for s in ((2, 3, 9, 9), (4, 3, 3, 3), (4,)))
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    F.conv2d(xt, wt, bt, 2, 1).pow(2).sum().backward()
    for kernel in (conv_choice._onednn, conv_choice.gemm):  # pylint: disable=protected-access
        args = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        out = kernel(args[0], args[1], args[2], (2, 2), (1, 1))
        out.pow(2).sum().backward()
        for got, want in zip(args, (xt, wt, bt)):
            np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(), rtol=1e-4, atol=1e-5)
    arrays = [mx.nd.array(a) for a in (x, w, b)]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Convolution(*arrays, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=4)
        (y * y).sum().backward()
    for got, want in zip(arrays, (xt, wt, bt)):
        np.testing.assert_allclose(got.grad.asnumpy(), want.grad.numpy(), rtol=1e-4, atol=1e-5)
    key = ((2, 3, 9, 9), (4, 3, 3, 3), torch.float32, False, (2, 2), (1, 1))
    assert conv_choice.choices()[key] in ("gemm", "onednn")


def test_predicted_convolution_runs_the_kernel_chosen_by_its_forward():
    """A plain 2-d convolution that records no backward (a prediction, a hybridized graph's
    inference) runs the faster kernel for its shapes too, chosen by the forward under a key
    of its own; the values are torch's conv2d's, in and outside a hybridized graph."""
    import torch
    import torch.nn.functional as F
    from neogluon.operator import conv_choice
    rng = np.random.RandomState(4)
    x, w, b = (rng.uniform(-1, 1, s).astype("float32") for s in ((1, 3, 11, 7), (5, 3, 3, 2), (5,)))
    want = F.conv2d(*(torch.tensor(a) for a in (x, w, b)), stride=(1, 2), padding=(1, 0)).numpy()
    got = mx.nd.Convolution(*(mx.nd.array(a) for a in (x, w, b)), kernel=(3, 2), stride=(1, 2), pad=(1, 0),
                            num_filter=5)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    key = ((1, 3, 11, 7), (5, 3, 3, 2), torch.float32, False, (1, 2), (1, 0), "predict")
    assert conv_choice.choices()[key] in ("gemm", "onednn")
    for kernel in (conv_choice._onednn, conv_choice.gemm):  # pylint: disable=protected-access
        with torch.no_grad():
            out = kernel(*(torch.tensor(a) for a in (x, w, b)), (1, 2), (1, 0))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    net = mx.gluon.nn.Conv2D(5, (3, 2), strides=(1, 2), padding=(1, 0), in_channels=3)
    net.initialize()
    net.weight.set_data(mx.nd.array(w))
    net.bias.set_data(mx.nd.array(b))
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    big = [mx.nd.ones((1, 64, 32, 32)), mx.nd.ones((64, 64, 3, 3))]  # 37.7 M multiply-adds: oneDNN's, untimed
    before = len(conv_choice.choices())
    y = mx.nd.Convolution(*big, kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True)
    assert len(conv_choice.choices()) == before and float(y[0, 0, 5, 5].asscalar()) == 64 * 9
