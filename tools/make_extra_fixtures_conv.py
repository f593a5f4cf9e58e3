"""Make the reference data of tests/test_ops_conv.py with the real MXNet 1.9.1.

Run with the side environment that has MXNet (never from the project itself)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_conv.py

It writes tests/fixtures/extra/conv/:

- ``cases.json``: for each value case its operator, attributes (Python values, as a user
  passes them), input names and which inputs have gradients; ``infer`` cases (the
  argument and output shapes MXNet's ``Symbol.infer_shape`` gives for a data shape);
  ``errors`` (calls MXNet rejects, with its message).
- ``cases.npz``: ``<case>/in:<name>``, ``<case>/out:<i>``, ``<case>/head:<i>``,
  ``<case>/grad:<name>``: inputs, outputs in train mode, head gradients and the
  gradients of the inputs.

Two MXNet 1.9.1 CPU defects are worked around, both with MXNet computing the values:

- channel-last layouts (NHWC, ...) are GPU-only for Convolution/Deconvolution in MXNet
  (its oneDNN CPU kernels fail on them; Pooling's work and are used directly).
  ``via_nc`` cases run the channel-first operator on transposed data and weights and
  transpose the results back; the layout's shape rules themselves are checked by the
  ``infer`` cases (MXNet's ``infer_shape``).
- oneDNN's Deconvolution ignores the pad derived from ``target_shape`` and fails;
  ``native`` cases are computed in a child process with ``MXNET_MKLDNN_ENABLED=0``.
"""
import json
import os
import subprocess
import sys
import tempfile

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "conv")
RNG = np.random.RandomState(20240601)

CASES = []
INFER = []
ERRORS = []


def rand(*shape, dtype="float32"):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


def case(name, op, inputs, grads=None, via_nc=False, native=False, **attrs):
    """A value case: ``inputs`` is a list of (name, array); ``grads`` the names to differentiate."""
    CASES.append(dict(name=name, op=op, inputs=inputs, attrs=attrs, via_nc=via_nc, native=native,
                      grads=[n for n, _ in inputs] if grads is None else grads))


def mx_function(op):
    if op.startswith("_contrib_"):
        return getattr(mx.nd.contrib, op[len("_contrib_"):])
    return getattr(mx.nd, op)


def sym_function(op):
    if op.startswith("_contrib_"):
        return getattr(mx.sym.contrib, op[len("_contrib_"):])
    return getattr(mx.sym, op)


# ----------------------------------------------------------------------------- value cases
def convolution_cases():
    case("conv2d_nhwc", "Convolution", [("x", rand(2, 7, 6, 3)), ("w", rand(4, 3, 2, 3)), ("b", rand(4))],
         via_nc=True, kernel=(3, 2), stride=(2, 1), pad=(1, 1), num_filter=4, layout="NHWC")
    case("conv2d_nhwc_groups", "Convolution", [("x", rand(1, 5, 5, 4)), ("w", rand(6, 3, 3, 2))],
         via_nc=True, kernel=(3, 3), num_filter=6, num_group=2, no_bias=True, layout="NHWC")
    case("conv3d_ndhwc", "Convolution", [("x", rand(1, 5, 6, 4, 2)), ("w", rand(3, 2, 3, 2, 2)), ("b", rand(3))],
         via_nc=True, kernel=(2, 3, 2), stride=(1, 2, 1), pad=(1, 0, 1), num_filter=3, layout="NDHWC")
    case("conv3d_groups_dilate", "Convolution", [("x", rand(2, 4, 6, 7, 5)), ("w", rand(4, 2, 2, 2, 2)),
                                                  ("b", rand(4))],
         kernel=(2, 2, 2), stride=(2, 1, 1), dilate=(1, 2, 2), pad=(0, 1, 1), num_filter=4, num_group=2)
    case("conv1d_stride_dilate", "Convolution", [("x", rand(2, 2, 11)), ("w", rand(4, 1, 3))],
         kernel=(3,), stride=(2,), dilate=(2,), pad=(2,), num_filter=4, num_group=2, no_bias=True)
    case("conv2d_float64", "Convolution", [("x", rand(1, 2, 5, 5, dtype="float64")),
                                            ("w", rand(3, 2, 3, 3, dtype="float64")), ("b", rand(3, dtype="float64"))],
         kernel=(3, 3), pad=(1, 1), num_filter=3, cudnn_tune="fastest", workspace=256)


def deconvolution_cases():
    case("deconv2d_target_shape", "Deconvolution", [("x", rand(1, 2, 4, 5)), ("w", rand(2, 3, 3, 3))],
         native=True, kernel=(3, 3), stride=(2, 2), target_shape=(8, 10), num_filter=3)
    case("deconv1d_target_shape_odd", "Deconvolution", [("x", rand(2, 3, 5)), ("w", rand(3, 2, 4))],
         native=True, kernel=(4,), stride=(3,), target_shape=(14,), num_filter=2)
    case("deconv3d_bias", "Deconvolution", [("x", rand(1, 2, 3, 4, 3)), ("w", rand(2, 2, 2, 3, 2)),
                                             ("b", rand(2))],
         kernel=(2, 3, 2), stride=(2, 2, 1), pad=(1, 1, 0), adj=(1, 0, 0), num_filter=2, no_bias=False)
    case("deconv2d_groups_dilate", "Deconvolution", [("x", rand(2, 4, 4, 3)), ("w", rand(4, 3, 2, 3))],
         kernel=(2, 3), stride=(2, 1), dilate=(2, 1), pad=(1, 1), num_filter=6, num_group=2)
    case("deconv2d_nhwc", "Deconvolution", [("x", rand(1, 3, 4, 2)), ("w", rand(2, 3, 3, 3)), ("b", rand(3))],
         via_nc=True, kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3, no_bias=False, layout="NHWC")


def pooling_cases():
    x = rand(2, 3, 7, 8)
    for pool_type in ("max", "avg", "sum"):
        case("pool_full_pad_%s" % pool_type, "Pooling", [("x", x)], kernel=(2, 3), stride=(2, 2), pad=(1, 1),
             pool_type=pool_type, pooling_convention="full")
    case("pool_full_pad_window_in_pad", "Pooling", [("x", rand(1, 2, 5, 5))], kernel=(2, 2), stride=(2, 2),
         pad=(1, 1), pool_type="avg", pooling_convention="full")
    case("pool_full_pad_window_in_pad_max", "Pooling", [("x", rand(1, 2, 5, 5))], kernel=(2, 2), stride=(2, 2),
         pad=(1, 1), pool_type="max", pooling_convention="full")
    case("pool_full_avg_exclude", "Pooling", [("x", x)], kernel=(3, 3), stride=(2, 3), pad=(1, 1),
         pool_type="avg", pooling_convention="full", count_include_pad=False)
    case("pool_big_pad_avg", "Pooling", [("x", rand(1, 2, 6, 6))], kernel=(3, 3), stride=(2, 2), pad=(2, 2),
         pool_type="avg")
    case("pool_big_pad_max", "Pooling", [("x", rand(1, 2, 6, 6))], kernel=(3, 3), stride=(2, 2), pad=(2, 2),
         pool_type="max")
    case("pool_nhwc_max", "Pooling", [("x", rand(2, 6, 5, 3))], kernel=(3, 2), stride=(2, 2), pad=(1, 0),
         layout="NHWC")
    case("pool_nwc_avg", "Pooling", [("x", rand(2, 9, 3))], kernel=(3,), stride=(2,), pad=(1,), pool_type="avg",
         layout="NWC")
    case("pool_ndhwc_sum", "Pooling", [("x", rand(1, 4, 4, 5, 2))], kernel=(2, 2, 3), stride=(2, 2, 1),
         pool_type="sum", layout="NDHWC")
    case("pool3d_max_pad", "Pooling", [("x", rand(1, 2, 5, 4, 6))], kernel=(3, 2, 3), stride=(2, 2, 2),
         pad=(1, 1, 1), pool_type="max")
    case("pool3d_avg_full", "Pooling", [("x", rand(1, 2, 5, 4, 6))], kernel=(2, 2, 2), stride=(2, 2, 2),
         pool_type="avg", pooling_convention="full")
    case("pool1d_lp1", "Pooling", [("x", rand(2, 3, 9))], kernel=(3,), stride=(2,), pool_type="lp", p_value=1)
    case("pool1d_lp3", "Pooling", [("x", rand(2, 3, 9))], kernel=(3,), stride=(2,), pad=(1,), pool_type="lp",
         p_value=3)
    case("pool2d_lp2_pad", "Pooling", [("x", rand(1, 2, 6, 5))], kernel=(3, 3), stride=(2, 2), pad=(1, 1),
         pool_type="lp", p_value=2)
    case("pool1d_global_avg", "Pooling", [("x", rand(2, 3, 7))], global_pool=True, pool_type="avg")
    case("pool3d_global_max", "Pooling", [("x", rand(1, 2, 3, 4, 5))], global_pool=True, pool_type="max")
    case("pool_global_nhwc_sum", "Pooling", [("x", rand(2, 3, 4, 5))], global_pool=True, pool_type="sum",
         layout="NHWC", kernel=(2, 2), pad=(1, 1))
    case("pool_float64_avg", "Pooling", [("x", rand(1, 2, 6, 6, dtype="float64"))], kernel=(2, 2),
         stride=(2, 2), pool_type="avg")


def upsampling_cases():
    a, b = rand(1, 2, 2, 3), rand(1, 3, 4, 6)
    case("upsampling_nearest_scale3", "UpSampling", [("a", rand(2, 2, 3, 2))], scale=3, sample_type="nearest",
         num_args=1)
    case("upsampling_nearest_concat", "UpSampling", [("a", a), ("b", b)], scale=4, sample_type="nearest",
         num_args=2)
    case("upsampling_nearest_sum", "UpSampling", [("a", a), ("b", rand(1, 2, 4, 6))], scale=2,
         sample_type="nearest", multi_input_mode="sum", num_args=2)
    for scale in (2, 3):
        case("upsampling_bilinear_scale%d" % scale, "UpSampling",
             [("x", rand(1, 3, 3, 4)), ("w", rand(3, 1, 2 * scale - scale % 2, 2 * scale - scale % 2))],
             scale=scale, sample_type="bilinear", num_filter=3, num_args=2)


def resize_cases():
    x = rand(1, 2, 5, 7)
    even = rand(2, 1, 4, 6)
    rz = "_contrib_BilinearResize2D"
    case("resize_scale", rz, [("x", x)], scale_height=1.5, scale_width=2.5)
    case("resize_down_no_align", rz, [("x", x)], height=3, width=4, align_corners=False)
    case("resize_up_no_align", rz, [("x", x)], height=8, width=11, align_corners=False)
    case("resize_like", rz, [("x", x), ("like", rand(3, 3, 2, 9))], grads=["x"], mode="like")
    for data_name, data in (("odd", x), ("even", even)):
        for mode in ("odd_scale", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"):
            case("resize_%s_%s" % (mode, data_name), rz, [("x", data)], mode=mode, scale_height=1.5,
                 scale_width=2.5)
    case("resize_float64", rz, [("x", rand(1, 1, 3, 3, dtype="float64"))], height=4, width=5)
    ad = "_contrib_AdaptiveAvgPooling2D"
    for size in ((), (2,), (3, 5), (9, 11)):
        case("adaptive_%s" % "x".join(map(str, size or ("default",))), ad, [("x", x)], output_size=size)


def norm_cases():
    x = rand(2, 6, 3, 4)
    for nsize in (2, 4, 5):
        case("lrn_nsize%d" % nsize, "LRN", [("x", x)], nsize=nsize, alpha=0.5, beta=0.6, knorm=1.5)
    case("l2norm_spatial", "L2Normalization", [("x", x)], mode="spatial")
    case("l2norm_channel_5d", "L2Normalization", [("x", rand(2, 3, 2, 2, 2))], mode="channel", eps=1e-3)
    case("l2norm_instance_2d", "L2Normalization", [("x", rand(3, 5))])
    case("l2norm_instance_1d", "L2Normalization", [("x", rand(4))], eps=0.5)


def roi_and_im2col_cases():
    rois = np.array([[0, 0, 0, 7, 5], [1, 2.4, 1.6, 5.5, 6.5], [0, 6, 6, 3, 2], [1, -3, -2, 20, 20],
                     [0, 3.5, 2.5, 4.2, 2.9]], dtype="float32")
    data = rand(2, 3, 8, 9)
    case("roi_pooling", "ROIPooling", [("x", data), ("rois", rois)], grads=["x"], pooled_size=(3, 2),
         spatial_scale=1.0)
    scaled = (rois * [1, 2, 2, 2, 2]).astype("float32")
    case("roi_pooling_scaled", "ROIPooling", [("x", data), ("rois", scaled)], grads=["x"],
         pooled_size=(2, 4), spatial_scale=0.5)
    case("im2col_2d", "im2col", [("x", rand(2, 3, 6, 5))], kernel=(3, 2), stride=(2, 1), dilate=(1, 2),
         pad=(1, 1))
    case("col2im_2d", "col2im", [("x", rand(2, 3 * 6, 3 * 5))], output_size=(6, 5), kernel=(3, 2),
         stride=(2, 1), dilate=(1, 2), pad=(1, 1))


# ----------------------------------------------------------------------------- shape inference
def infer(name, op, data_shape, **attrs):
    INFER.append(dict(name=name, op=op, data_shape=data_shape, attrs=attrs))


def infer_cases():
    infer("conv2d", "Convolution", (2, 3, 9, 9), kernel=(3, 3), num_filter=8)
    infer("conv2d_groups_nobias", "Convolution", (2, 4, 9, 9), kernel=(3, 1), num_filter=6, num_group=2,
          no_bias=True)
    infer("conv2d_nhwc", "Convolution", (2, 9, 9, 4), kernel=(3, 2), num_filter=6, num_group=2, layout="NHWC")
    infer("conv3d_ndhwc", "Convolution", (1, 5, 6, 7, 3), kernel=(2, 3, 1), num_filter=5, layout="NDHWC")
    infer("conv1d", "Convolution", (1, 3, 10), kernel=(4,), stride=(2,), num_filter=2)
    infer("deconv2d_default_nobias", "Deconvolution", (1, 4, 5, 5), kernel=(3, 3), num_filter=6, num_group=2)
    infer("deconv2d_bias", "Deconvolution", (1, 4, 5, 5), kernel=(4, 4), stride=(2, 2), pad=(1, 1),
          num_filter=3, no_bias=False)
    infer("deconv2d_nhwc", "Deconvolution", (1, 5, 5, 3), kernel=(3, 3), num_filter=4, no_bias=False,
          layout="NHWC")
    infer("deconv3d_target", "Deconvolution", (1, 2, 3, 4, 5), kernel=(3, 3, 3), stride=(2, 2, 2),
          target_shape=(6, 8, 10), num_filter=2)
    infer("upsampling_bilinear", "UpSampling", (1, 3, 5, 5), scale=2, sample_type="bilinear", num_filter=3,
          num_args=1)
    infer("upsampling_bilinear_scale3", "UpSampling", (2, 4, 3, 3), scale=3, sample_type="bilinear",
          num_filter=4, num_args=1)


# ----------------------------------------------------------------------------- errors
def error(name, op, shapes, **attrs):
    ERRORS.append(dict(name=name, op=op, shapes=shapes, attrs=attrs))


def error_cases():
    error("conv_kernel_exceeds_input", "Convolution", [(1, 1, 4, 4), (1, 1, 5, 5)], kernel=(5, 5), num_filter=1,
          no_bias=True)
    error("conv_wrong_weight", "Convolution", [(1, 1, 4, 4), (2, 1, 3, 3)], kernel=(3, 3), num_filter=1,
          no_bias=True)
    error("conv_wrong_bias", "Convolution", [(1, 1, 4, 4), (1, 1, 3, 3), (3,)], kernel=(3, 3), num_filter=1)
    error("conv_data_dims", "Convolution", [(1, 1, 4), (1, 1, 3, 3)], kernel=(3, 3), num_filter=1, no_bias=True)
    error("conv_groups", "Convolution", [(1, 3, 4, 4), (2, 1, 3, 3)], kernel=(3, 3), num_filter=2, num_group=2,
          no_bias=True)
    error("conv_4d_kernel", "Convolution", [(1, 1, 4, 4, 4, 4), (1, 1, 2, 2, 2, 2)], kernel=(2, 2, 2, 2),
          num_filter=1, no_bias=True)
    error("conv_stride_zero", "Convolution", [(1, 1, 4, 4), (1, 1, 3, 3)], kernel=(3, 3), stride=(0, 0),
          num_filter=1, no_bias=True)
    error("conv_stride_len", "Convolution", [(1, 1, 4, 4), (1, 1, 3, 3)], kernel=(3, 3), stride=(1,),
          num_filter=1, no_bias=True)
    error("deconv_adj_not_below_stride", "Deconvolution", [(1, 1, 4, 4), (1, 1, 3, 3)], kernel=(3, 3),
          stride=(2, 2), adj=(2, 2), num_filter=1)
    error("deconv_target_too_big", "Deconvolution", [(1, 1, 4, 4), (1, 1, 3, 3)], kernel=(3, 3), stride=(2, 2),
          target_shape=(12, 12), num_filter=1)
    error("deconv_target_odd_stride1", "Deconvolution", [(1, 1, 4, 4), (1, 1, 3, 3)], kernel=(3, 3),
          target_shape=(5, 5), num_filter=1)
    error("deconv_wrong_weight", "Deconvolution", [(1, 2, 4, 4), (1, 2, 3, 3)], kernel=(3, 3), num_filter=2)
    error("pool_kernel_exceeds_input", "Pooling", [(1, 1, 4, 4)], kernel=(5, 5))
    error("pool_no_kernel", "Pooling", [(1, 1, 4, 4)])
    error("pool_kernel_dims", "Pooling", [(1, 1, 4, 4)], kernel=(2, 2, 2))
    error("pool_pad_not_below_kernel", "Pooling", [(1, 1, 4, 4)], kernel=(2, 2), pad=(2, 2), pool_type="avg")
    error("pool_lp_without_p", "Pooling", [(1, 1, 4, 4)], kernel=(2, 2), pool_type="lp")
    error("pool_lp_p4", "Pooling", [(1, 1, 4, 4)], kernel=(2, 2), pool_type="lp", p_value=4)
    error("pool_same_2d", "Pooling", [(1, 1, 5, 5)], kernel=(3, 3), pooling_convention="same")
    error("pool_same_1d", "Pooling", [(1, 1, 7)], kernel=(3,), pooling_convention="same")
    error("upsampling_3d_data", "UpSampling", [(1, 2, 3)], scale=2, sample_type="nearest", num_args=1)
    error("upsampling_not_divisible", "UpSampling", [(1, 1, 2, 2), (1, 1, 3, 3)], scale=4,
          sample_type="nearest", num_args=2)
    error("upsampling_sum_channels", "UpSampling", [(1, 1, 2, 2), (1, 2, 4, 4)], scale=4,
          sample_type="nearest", multi_input_mode="sum", num_args=2)
    error("resize_3d_data", "_contrib_BilinearResize2D", [(2, 3, 4)], height=3, width=9)
    error("resize_height_zero", "_contrib_BilinearResize2D", [(1, 1, 4, 4)], height=0, width=2)
    error("resize_odd_scale_without_scales", "_contrib_BilinearResize2D", [(1, 1, 4, 4)], mode="odd_scale")
    error("lrn_3d_data", "LRN", [(2, 3, 4)], nsize=3)
    error("l2norm_channel_2d", "L2Normalization", [(2, 3)], mode="channel")
    error("adaptive_3d_data", "_contrib_AdaptiveAvgPooling2D", [(2, 3, 4)], output_size=(2,))


# ----------------------------------------------------------------------------- running
def channel_first(a):
    return np.moveaxis(a, -1, 1) if a.ndim >= 3 else a


def channel_last(a):
    return np.moveaxis(a, 1, -1)


def compute(c):
    """Train-mode outputs, head gradients and input gradients of a case, computed by MXNet."""
    arrays = [a for _, a in c["inputs"]]
    attrs = dict(c["attrs"])
    if c["via_nc"]:
        arrays = [channel_first(a) for a in arrays]
        del attrs["layout"]
    values = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for (name, _), v in zip(c["inputs"], values):
        if name in c["grads"]:
            v.attach_grad()
    with mx.autograd.record(train_mode=True):
        out = mx_function(c["op"])(*values, **attrs)
    outs = out if isinstance(out, list) else [out]
    heads = [mx.nd.array(RNG.uniform(-1, 1, o.shape), dtype=o.dtype) for o in outs]
    mx.autograd.backward(outs, heads)
    back = channel_last if c["via_nc"] else (lambda a: a)
    res = {}
    for (name, a), v in zip(c["inputs"], values):
        res["in:" + name] = a
        if name in c["grads"]:
            res["grad:" + name] = back(v.grad.asnumpy()) if v.ndim >= 3 else v.grad.asnumpy()
    for i, (o, h) in enumerate(zip(outs, heads)):
        res["out:%d" % i] = back(o.asnumpy())
        res["head:%d" % i] = back(h.asnumpy())
    return res


def compute_native(cases):
    """Compute the ``native`` cases in a child process that has oneDNN switched off."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "native.npz")
        env = dict(os.environ, MXNET_MKLDNN_ENABLED="0", MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--native", path], env=env, check=True)
        data = dict(np.load(path))
    results = {c["name"]: {} for c in cases if c["native"]}
    for key, value in data.items():
        name, k = key.split("/", 1)
        results[name][k] = value
    return results


def describe_case(c, res):
    return dict(op=c["op"], attrs=c["attrs"], inputs=[n for n, _ in c["inputs"]], grads=c["grads"],
                outputs=len([k for k in res if k.startswith("out:")]))


def run_infer(c):
    s = sym_function(c["op"])(mx.sym.var("data"), **c["attrs"])
    args, outs, _ = s.infer_shape(data=tuple(c["data_shape"]))
    return dict(op=c["op"], attrs=c["attrs"], arg_names=s.list_arguments(), arg_shapes=args, out_shape=outs[0])


def run_error(c):
    inputs = [mx.nd.array(RNG.uniform(-1, 1, s)) for s in c["shapes"]]
    try:
        mx_function(c["op"])(*inputs, **c["attrs"]).wait_to_read()
    except mx.base.MXNetError as e:
        return dict(op=c["op"], attrs=c["attrs"], shapes=c["shapes"], mxnet_message=str(e).strip().splitlines()[-1])
    raise AssertionError("MXNet accepted error case %s" % c["name"])


def main():
    for make in (convolution_cases, deconvolution_cases, pooling_cases, upsampling_cases, resize_cases,
                 norm_cases, roi_and_im2col_cases, infer_cases, error_cases):
        make()
    if len(sys.argv) == 3 and sys.argv[1] == "--native":
        np.savez(sys.argv[2], **{"%s/%s" % (c["name"], k): v
                                 for c in CASES if c["native"] for k, v in compute(c).items()})
        return
    native = compute_native(CASES)
    arrays, cases = {}, {}
    for c in CASES:
        res = native[c["name"]] if c["native"] else compute(c)
        arrays.update(("%s/%s" % (c["name"], k), v) for k, v in res.items())
        cases[c["name"]] = describe_case(c, res)
    manifest = {"generator": "tools/make_extra_fixtures_conv.py", "mxnet": mx.__version__, "cases": cases,
                "infer": {c["name"]: run_infer(c) for c in INFER},
                "errors": {c["name"]: run_error(c) for c in ERRORS}}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, "cases.npz"), **arrays)
    print("%d value cases, %d shape cases, %d error cases -> %s"
          % (len(CASES), len(INFER), len(ERRORS), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
