"""Record MXNet 1.9.1's ``image.normalize`` on integer images: it computes ``(x - mean) / std``
in float and casts the result back to the input's integer type (truncated toward zero,
wrapped), where neogluon once refused non-float input.

    /work/mxref/bin/python tools/make_extra_fixtures_image_normalize_int.py

Writes ``tests/fixtures/extra/image_normalize_int/cases.json``: per dtype, the input (as
given to ``mx.nd.array``), mean, std, and MXNet's output dtype and values;
``tests/test_image_normalize_int.py`` replays them."""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra",
                   "image_normalize_int", "cases.json")
RNG = np.random.RandomState(77)
CASES = []
for dtype in ("uint8", "int8", "int32", "int64"):
    lo, hi = (0, 256) if dtype == "uint8" else (-128, 128) if dtype == "int8" else (-1000, 1000)
    for shape, mean, std in (((3, 4, 5), (10.0, 20.5, 30.0), (2.0, 3.0, 4.5)), ((2, 1, 3, 4), (7.0,), (3.0,))):
        x = RNG.randint(lo, hi, size=shape)
        y = mx.nd.image.normalize(mx.nd.array(x, dtype=dtype), mean=mean, std=std)
        CASES.append(dict(dtype=dtype, input=x.tolist(), mean=mean, std=std, out_dtype=np.dtype(y.dtype).name,
                          output=y.asnumpy().tolist()))
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump(CASES, f)
print(len(CASES), "cases")
