"""Record MXNet 1.9.1's CPU quantization operators (quantize, quantize_v2, dequantize,
requantize, calibrate_entropy) on random data with exact ties and saturating values: each case's operator,
keyword arguments and outputs.

Run with the MXNet venv:  /work/mxvenv/bin/python tools/make_extra_fixtures_quantization.py
Writes tests/fixtures/extra/quantization/: cases.json (each case's operator, function, input,
ranges and keywords) and cases.npz (the inputs, each case's output, and the min/max outputs
of all cases in one array "ranges", NaN for dequantize); and layers.json / layers.npz for the
quantized layers (quantized_fully_connected, _conv, _pooling, _act, _flatten): each case's
operator, keywords and input arrays (by name), with its output (under the case's key) and
min/max outputs (its row of "layer_ranges"), or the error MXNet raised.
"""
import json
import os
import re

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "quantization")
RANGES = ((-1.0, 1.5), (-3.0, 1.0), (0.5, 1.0), (-2.0, -0.5))
CALIB = (dict(), dict(min_calib_range=-0.3, max_calib_range=0.7), dict(min_calib_range=0.1, max_calib_range=0.7),
         dict(min_calib_range=-0.9, max_calib_range=0.7))


def main():
    rng = np.random.RandomState(0)
    x = (rng.randn(64) * 1.5).astype("float32")
    x[:10] = [0.5, -0.5, 0.25, 1.5, -1.5, 3.0, -3.0, 0.0, 0.75, -0.25]  # ties at the scales below
    inputs = {"x": x, "int8": rng.randint(-128, 128, 64).astype("int8"),
              "uint8": rng.randint(0, 256, 64).astype("uint8"),
              "int32": np.concatenate([[2147483647, -2147483647, 0], (rng.randn(61) * 3e7)]).astype("int32")}
    cases, arrays, ranges_out = [], dict(inputs), []

    def record(op, data, ranges, kwargs):
        args = [mx.nd.array(inputs[data], dtype=inputs[data].dtype)] + [mx.nd.array([v]) for v in ranges]
        out = getattr(mx.nd.contrib, op)(*args, **kwargs)
        out = out if isinstance(out, list) else [out]
        key = "case%d" % len(cases)
        cases.append(dict(key=key, op="_contrib_" + op, function=op, data=data, ranges=list(ranges),
                          kwargs=kwargs))
        arrays[key] = out[0].asnumpy()
        ranges_out.append([o.asscalar() for o in out[1:]] or [np.nan, np.nan])

    for lo, hi in RANGES:
        for t in ("uint8", "int8"):
            record("quantize", "x", (lo, hi), dict(out_type=t))
        for t in ("uint8", "int8", "auto"):
            record("quantize_v2", "x", (), dict(out_type=t, min_calib_range=lo, max_calib_range=hi))
        for data in ("int8", "uint8"):
            record("dequantize", data, (lo, hi), {})
    for t in ("uint8", "int8", "auto"):
        record("quantize_v2", "x", (), dict(out_type=t))
    for calib in CALIB:
        for t in ("int8", "uint8", "auto"):
            record("requantize", "int32", (-2.0, 3.0), dict(calib, out_type=t))
    for n_bins, bins_q, scale in ((201, 51, 1.0), (301, 101, 0.3), (511, 255, 2.0)):
        data = np.concatenate([rng.randn(3000) * scale, rng.standard_cauchy(100) * 0.1])
        th = np.abs(data).max()
        hist, edges = np.histogram(data, bins=n_bins, range=(-th, th))
        name = "hist%d" % n_bins
        inputs[name], inputs[name + "_edges"] = hist.astype("float32"), edges.astype("float32")
        arrays[name], arrays[name + "_edges"] = inputs[name], inputs[name + "_edges"]
        out = mx.nd.contrib.calibrate_entropy(mx.nd.array(hist), mx.nd.array(edges), num_quantized_bins=bins_q)
        key = "case%d" % len(cases)
        cases.append(dict(key=key, op="_contrib_calibrate_entropy", function="calibrate_entropy", data=name,
                          ranges=[], kwargs=dict(num_quantized_bins=bins_q)))
        arrays[key] = np.concatenate([o.asnumpy() for o in out])  # (threshold, divergence)
        ranges_out.append([np.nan, np.nan])
    arrays["ranges"] = np.array(ranges_out, dtype="float32")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=0)
    np.savez_compressed(os.path.join(OUT, "cases.npz"), **arrays)
    layers()
    quantized_model()


def quantized_model():
    """A small float network quantized by MXNet's own quantize_model (naive calibration):
    model-symbol.json and model.params (its int8 parameters), and model.npz: an input and
    MXNet's output of the quantized graph on it."""
    import logging
    from mxnet.contrib import quantization
    rng = np.random.RandomState(2)
    net = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    net = mx.sym.Activation(net, act_type="relu", name="relu")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    net = mx.sym.FullyConnected(mx.sym.flatten(net, name="flat"), num_hidden=3, name="fc")
    shapes = net.infer_shape(data=(2, 3, 6, 6))[0]
    params = {n: mx.nd.array(rng.randn(*s) * 0.3) for n, s in zip(net.list_arguments(), shapes) if n != "data"}
    calib = mx.io.NDArrayIter(mx.nd.array(np.abs(rng.randn(8, 3, 6, 6))), batch_size=2)
    qsym, qargs, _ = quantization.quantize_model(net, params, {}, ctx=mx.cpu(), calib_mode="naive", calib_data=calib,
                                                  num_calib_examples=8, quantized_dtype="auto",
                                                  logger=logging.getLogger("quiet"))
    x = np.abs(rng.randn(2, 3, 6, 6)).astype("float32")
    out = qsym.bind(mx.cpu(), args=dict(qargs, data=mx.nd.array(x))).forward()[0].asnumpy()
    qsym.save(os.path.join(OUT, "model-symbol.json"))
    mx.nd.save(os.path.join(OUT, "model.params"), {"arg:" + k: v for k, v in qargs.items()})
    np.savez_compressed(os.path.join(OUT, "model.npz"), x=x, y=out)


def _message(err):
    """MXNet's error sentence, without the log line's time and source location."""
    return re.sub(r"^\[[0-9:]+\] \S+: ", "", str(err).strip().splitlines()[-1])


def layers():
    """The quantized layers on int8/uint8 data over random ranges; exact ties in the averages."""
    rng = np.random.RandomState(1)
    arrays, cases = {}, []

    def put(name, value):
        arrays[name] = value
        return name

    def ints(name, dtype, shape):
        lo, hi = (0, 256) if dtype == "uint8" else (-128, 128)
        return put(name, rng.randint(lo, hi, shape).astype(dtype))

    for i, r in enumerate([(-1.0, 2.0), (-0.5, 0.3), (-0.7, 0.2), (0.0, 3.5), (-0.02, 0.01), (-4.0, 1.0)]):
        put("lo%d" % i, np.array([r[0]], "float32"))
        put("hi%d" % i, np.array([r[1]], "float32"))

    ranges_out = []

    def keep(case, out):
        """The first output under the case's key; the (min, max) outputs as the case's row of
        "layer_ranges" (one array: fewer entries in the file)."""
        arrays[case["key"]] = out[0].asnumpy()
        case["outputs"] = len(out)
        case["range_row"] = len(ranges_out)
        ranges_out.append([o.asscalar() for o in out[1:]] or [np.nan, np.nan])

    def record(function, inputs, kwargs):
        key = "layer%d" % len(cases)
        case = dict(key=key, op="_contrib_" + function, function=function, inputs=inputs, kwargs=kwargs)
        try:
            out = getattr(mx.nd.contrib, function)(*[mx.nd.array(arrays[n], dtype=arrays[n].dtype)
                                                     for n in inputs], **kwargs)
            keep(case, out)
        except mx.MXNetError as err:
            case["error"] = _message(err)
        cases.append(case)

    rngs = ["lo0", "hi0", "lo1", "hi1"]
    fc_w = ints("fc_w", "int8", (6, 12))
    fc_b = ints("fc_b", "int8", (6,))
    for dt in ("int8", "uint8"):
        x = ints("fc_x_" + dt, dt, (4, 12))
        x3 = ints("fc_x3_" + dt, dt, (2, 3, 12))
        for lo, hi in (("lo0", "hi0"), ("lo3", "hi3"), ("lo4", "hi4")):
            record("quantized_fully_connected", [x, fc_w, fc_b, lo, hi, "lo1", "hi1", "lo2", "hi2"],
                   dict(num_hidden=6))
            record("quantized_fully_connected", [x, fc_w, fc_b, lo, hi, "lo5", "hi5", "lo4", "hi4"],
                   dict(num_hidden=6))
        record("quantized_fully_connected", [x, fc_w] + rngs, dict(num_hidden=6, no_bias=True))
        record("quantized_fully_connected", [x3, fc_w] + rngs, dict(num_hidden=6, no_bias=True, flatten=False))
    record("quantized_fully_connected", [put("fc_xf", rng.randn(4, 12).astype("float32")), fc_w] + rngs,
           dict(num_hidden=6, no_bias=True))
    record("quantized_fully_connected", ["fc_x_int8", put("fc_wu", arrays[fc_w].view(
        "uint8"))] + rngs, dict(num_hidden=6, no_bias=True))

    cx = ints("conv_x", "uint8", (2, 4, 7, 6))
    cw = ints("conv_w", "int8", (6, 4, 3, 3))
    cb = ints("conv_b", "int8", (6,))
    for kw in (dict(kernel=(3, 3), num_filter=6), dict(kernel=(3, 3), num_filter=6, pad=(1, 1), stride=(2, 1)),
               dict(kernel=(3, 3), num_filter=6, dilate=(2, 2), pad=(2, 1))):
        record("quantized_conv", [cx, cw, cb, "lo0", "hi0", "lo1", "hi1", "lo2", "hi2"], kw)
        record("quantized_conv", [cx, cw, "lo3", "hi3", "lo5", "hi5"], dict(kw, no_bias=True))
    record("quantized_conv", [cx, ints("conv_wg", "int8", (6, 2, 3, 3)), "lo0", "hi0", "lo1", "hi1"],
           dict(kernel=(3, 3), num_filter=6, num_group=2, no_bias=True))
    record("quantized_conv", [ints("conv_x8", "int8", (2, 4, 7, 6)), cw, "lo0", "hi0", "lo1", "hi1"],
           dict(kernel=(3, 3), num_filter=6, no_bias=True))

    pool_kw = [dict(kernel=(2, 2), stride=(2, 2)), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
               dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), count_include_pad=False),
               dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full"),
               dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), pooling_convention="full", count_include_pad=False),
               dict(global_pool=True, kernel=(1, 1)), dict(kernel=(2, 2), stride=(1, 1))]
    for dt in ("int8", "uint8"):
        x = ints("pool_x_" + dt, dt, (2, 3, 7, 5))
        for pool_type in ("max", "avg"):
            for kw in pool_kw:
                record("quantized_pooling", [x, "lo0", "hi0"], dict(kw, pool_type=pool_type))
        record("quantized_act", [x, "lo0", "hi0"], dict(act_type="relu"))
        record("quantized_flatten", [x, "lo3", "hi3"], {})
    x = "pool_x_int8"
    record("quantized_pooling", [ints("pool_x5", "int8", (1, 2, 3, 4, 5)), "lo0", "hi0"],
           dict(kernel=(2, 2, 2), pool_type="avg"))
    record("quantized_pooling", [x, "lo0", "hi0"], dict(kernel=(2, 2), pool_type="sum"))
    record("quantized_pooling", [put("pool_x3", arrays[x][0]), "lo0", "hi0"], dict(kernel=(2,), pool_type="max"))
    record("quantized_act", [x, "lo0", "hi0"], dict(act_type="tanh"))

    pairs = [(("int8", "lo0", "hi0"), ("int8", "lo1", "hi1")), (("uint8", "lo3", "hi3"), ("uint8", "lo3", "hi3")),
             (("uint8", "lo3", "hi3"), ("uint8", "lo1", "hi1")), (("uint8", "lo3", "hi3"), ("int8", "lo5", "hi5")),
             (("int8", "lo4", "hi4"), ("uint8", "lo0", "hi0")), (("int8", "lo0", "hi0"), ("int8", "lo0", "hi0"))]
    for i, ((ta, la, ha), (tb, lb, hb)) in enumerate(pairs):
        a, b = ints("cat_a%d" % i, ta, (2, 3, 4)), ints("cat_b%d" % i, tb, (2, 5, 4))
        record("quantized_concat", [a, b, la, ha, lb, hb], dict(num_args=2, dim=1))
        b2 = ints("add_b%d" % i, tb, (2, 3, 4))
        for calib in (dict(), dict(min_calib_range=-3.0, max_calib_range=2.5),
                      dict(min_calib_range=0.0, max_calib_range=0.7)):
            record("quantized_elemwise_add", [a, b2, la, ha, lb, hb], calib)
    record("quantized_concat", ["cat_a0", "cat_a1", "cat_b0", "lo0", "hi0", "lo3", "hi3", "lo2", "hi2"],
           dict(num_args=3, dim=1))
    record("quantized_concat", ["cat_a0", put("cat_c", arrays["cat_a0"][:, :2]), "lo5", "hi5", "lo5", "hi5"],
           dict(num_args=2, dim=-2))
    record("quantized_concat", [put("cat_f", arrays["cat_a0"].astype("float32")), "cat_a0", "lo0", "hi0", "lo1",
                                "hi1"], dict(num_args=2, dim=0))

    emb_w = ints("emb_w", "int8", (7, 4))
    emb_i = put("emb_i", np.array([[0, 6, 3], [2, 2, 5]], "float32"))
    record("quantized_embedding", [emb_i, emb_w, "lo0", "hi0"], dict(input_dim=7, output_dim=4))
    record("quantized_embedding", [emb_i, put("emb_wu", arrays[emb_w].view("uint8")), "lo0", "hi0"],
           dict(input_dim=7, output_dim=4))

    bn = [put("bn_" + k, v.astype("float32")) for k, v in (
        ("gamma", rng.rand(3) + 0.5), ("beta", rng.randn(3)), ("mean", rng.randn(3) * 0.3), ("var", rng.rand(3) + 0.5))]
    for dt in ("int8", "uint8"):
        x = ints("bn_x_" + dt, dt, (2, 3, 4, 5))
        for kw in (dict(min_calib_range=-3.0, max_calib_range=3.0), dict(min_calib_range=-1.5, max_calib_range=4.0,
                                                                         fix_gamma=False, eps=1e-5), {}):
            record("quantized_batch_norm", [x] + bn + ["lo0", "hi0"], kw)
            record("quantized_batch_norm", [x] + bn + ["lo3", "hi3"], dict(kw, fix_gamma=False, eps=0.01))
    record("quantized_batch_norm", [put("bn_xf", rng.randn(2, 3).astype("float32"))] + bn + ["lo0", "hi0"],
           dict(min_calib_range=-3.0, max_calib_range=3.0))

    def record_graph(function, inputs, kwargs):
        """Through a bound graph: MXNet 1.9.1 runs quantized_elemwise_mul only there (called
        imperatively it fails its own output count check)."""
        key = "layer%d" % len(cases)
        names = ["v%d" % i for i in range(len(inputs))]
        sym = getattr(mx.sym.contrib, function)(*[mx.sym.var(n) for n in names[:2]], **dict(
            kwargs, **{k: mx.sym.var(n) for k, n in zip(("lhs_min", "lhs_max", "rhs_min", "rhs_max"), names[2:])}))
        args = {n: mx.nd.array(arrays[i], dtype=arrays[i].dtype) for n, i in zip(names, inputs)}
        case = dict(key=key, op="_contrib_" + function, function=function, inputs=inputs, kwargs=kwargs)
        try:
            keep(case, sym.bind(mx.cpu(), args).forward())
        except mx.MXNetError as err:
            case["error"] = _message(err)
        cases.append(case)

    for i, ((ta, la, ha), (tb, lb, hb)) in enumerate(pairs):
        for kw in (dict(), dict(min_calib_range=-3.0, max_calib_range=2.5), dict(min_calib_range=0.0,
                   max_calib_range=0.7), dict(enable_float_output=True)):
            record_graph("quantized_elemwise_mul", ["cat_a%d" % i, "add_b%d" % i, la, ha, lb, hb], kw)
    with open(os.path.join(OUT, "layers.json"), "w") as f:
        json.dump(cases, f, indent=0)
    arrays["layer_ranges"] = np.array(ranges_out, dtype="float32")
    np.savez_compressed(os.path.join(OUT, "layers.npz"), **arrays)


if __name__ == "__main__":
    main()
