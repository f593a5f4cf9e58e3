"""Record MXNet 1.9.1's CPU quantization operators (quantize, quantize_v2, dequantize,
requantize, calibrate_entropy) on random data with exact ties and saturating values: each case's operator,
keyword arguments and outputs.

Run with the MXNet venv:  /work/mxvenv/bin/python tools/make_extra_fixtures_quantization.py
Writes tests/fixtures/extra/quantization/: cases.json (each case's operator, function, input,
ranges and keywords) and cases.npz (the inputs, each case's output, and the min/max outputs
of all cases in one array "ranges", NaN for dequantize).
"""
import json
import os

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


if __name__ == "__main__":
    main()
