"""Record MXNet 1.9.1's aggregated optimizer operators: ``multi_sgd_*``,
``multi_mp_sgd_*``, ``preloaded_multi_*``, ``_multi_adamw_update``,
``_multi_mp_adamw_update``, ``_multi_lamb_update``, ``_multi_mp_lamb_update``,
``multi_sum_sq``, ``multi_lars``, ``all_finite``, ``multi_all_finite``, ``reset_arrays``.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_multi_optimizer.py

It writes ``tests/fixtures/extra/multi_optimizer`` (format: ``tools/mxcases.py``): the
new weights, and the states each operator updates in place (``after:``);
``tests/test_ops_multi_optimizer.py`` replays them imperatively and through ``bind``.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxcases import Recorder  # noqa: E402

R = Recorder("multi_optimizer")
RNG = np.random.RandomState(3)
SHAPES = [(3, 4), (5,), (2, 1, 3)]


def U(*shape, lo=-1.0, hi=1.0, dtype="float32"):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def group(kinds, n=2, half=False):
    """Named inputs, weight by weight (``kinds`` such as ('weight', 'grad', 'mom')), and
    the names of the states updated in place. A master weight (``weight32``) equals the
    float16 weight it shadows."""
    out, mutated = [], []
    for i in range(n):
        values = {}
        for kind in kinds:
            dtype = "float16" if half and kind in ("weight", "grad") else "float32"
            if kind == "weight32":
                values[kind] = values["weight"].astype("float32")
            else:
                values[kind] = U(*SHAPES[i], lo=0.0 if kind == "var" else -1.0, dtype=dtype) * (3 if kind == "grad" else 1)
            out.append(("%s%d" % (kind, i), values[kind]))
        mutated += ["%s%d" % (k, i) for k in kinds if k not in ("weight", "grad")]
    return out, mutated


def weights(inputs):
    return [n for n, _ in inputs if n.startswith("weight") and not n.startswith("weight32")]


SGD = dict(lrs=(0.1, 0.05), wds=(0.01, 0.002), rescale_grad=0.5)
for clip in (-1.0, 0.4):
    tag = "_clip" if clip > 0 else ""
    for op, kinds, half, extra in [
            ("multi_sgd_update", ("weight", "grad"), False, {}),
            ("multi_sgd_mom_update", ("weight", "grad", "mom"), False, dict(momentum=0.9)),
            ("multi_mp_sgd_update", ("weight", "grad", "weight32"), True, {}),
            ("multi_mp_sgd_mom_update", ("weight", "grad", "mom", "weight32"), True, dict(momentum=0.9))]:
        inputs, mutated = group(kinds, half=half)
        R.case(op + tag, op, inputs, dict(SGD, clip_gradient=clip, num_weights=2, **extra), mutates=mutated,
               out_like=weights(inputs))
        pre = "preloaded_" + op
        inputs, mutated = group(kinds, half=half)
        inputs += [("lrs", np.array([0.1, 0.05], "float32")), ("wds", np.array([0.01, 0.002], "float32"))]
        R.case(pre + tag, pre, inputs, dict(rescale_grad=0.5, clip_gradient=clip, num_weights=2, **extra),
               mutates=mutated, out_like=weights(inputs))

ADAMW = dict(lrs=(0.01, 0.02), wds=(0.1, 0.0), etas=(1.0, 0.5), beta1=0.8, beta2=0.99, epsilon=1e-6)
for scale, tag in ((0.5, ""), (0.0, "_skip")):
    inputs, mutated = group(("weight", "grad", "mean", "var"))
    R.case("multi_adamw" + tag, "_multi_adamw_update", inputs + [("rescale_grad", np.array([scale], "float32"))],
           dict(ADAMW, clip_gradient=0.7, num_weights=2), mutates=mutated, out_like=weights(inputs))
inputs, mutated = group(("weight", "grad", "mean", "var", "weight32"), half=True)
R.case("multi_mp_adamw", "_multi_mp_adamw_update", inputs + [("rescale_grad", np.array([0.5], "float32"))],
       dict(ADAMW, num_weights=2), mutates=mutated, out_like=weights(inputs))

LAMB = dict(learning_rates=(0.01, 0.02), wds=(0.1, 0.01), step_count=(1, 3), beta1=0.8, beta2=0.99,
            epsilon=1e-6, rescale_grad=0.5, num_tensors=2)
inputs, mutated = group(("weight", "grad", "mean", "var"))
R.case("multi_lamb", "_multi_lamb_update", inputs, LAMB, mutates=mutated, out_like=weights(inputs))
inputs, mutated = group(("weight", "grad", "mean", "var"))
R.case("multi_lamb_bounds_clip", "_multi_lamb_update", inputs,
       dict(LAMB, lower_bound=0.5, upper_bound=1.2, clip_gradient=0.3, bias_correction=False), mutates=mutated,
       out_like=weights(inputs))
inputs, mutated = group(("weight", "grad", "mean", "var", "weight32"), half=True)
R.case("multi_mp_lamb", "_multi_mp_lamb_update", inputs, LAMB, mutates=mutated, out_like=weights(inputs))

R.case("multi_sum_sq", "multi_sum_sq", [("a", U(3, 4)), ("b", U(7)), ("c", U(2, 2, 2))], dict(num_arrays=3))
R.case("multi_sum_sq_float16", "multi_sum_sq", [("a", U(3, 4, dtype="float16")), ("b", U(5, dtype="float16"))],
       dict(num_arrays=2))
R.case("multi_lars", "multi_lars",
       [("lrs", np.array([0.1, 0.2, 0.3, 0.4], "float32")), ("weights_sum_sq", np.array([4.0, 0.0, 2.5, 1.0], "float32")),
        ("grads_sum_sq", np.array([1.0, 3.0, 0.0, 0.25], "float32")), ("wds", np.array([0.01, 0.0, 0.1, 0.5], "float32"))],
       dict(eta=0.001, eps=1e-8, rescale_grad=0.5))
BAD = U(3, 4)
BAD[1, 2] = np.inf
NAN = U(5)
NAN[0] = np.nan
R.case("all_finite", "all_finite", [("data", U(3, 4))])
R.case("all_finite_inf", "all_finite", [("data", BAD)])
R.case("all_finite_nan_float16", "all_finite", [("data", NAN.astype("float16"))])
R.case("multi_all_finite", "multi_all_finite", [("a", U(3)), ("b", U(2, 2))], dict(num_arrays=2))
R.case("multi_all_finite_bad", "multi_all_finite", [("a", U(3)), ("b", BAD), ("c", NAN)], dict(num_arrays=3))
# an operator without outputs: MXNet crashes on its symbol (list_outputs, tojson)
R.case("reset_arrays", "reset_arrays", [("a", U(3, 4)), ("b", U(5, dtype="float16"))], dict(num_arrays=2),
       mutates=["a", "b"], symbolic=False)

if __name__ == "__main__":
    R.write()
