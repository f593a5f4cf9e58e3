"""``image.normalize`` on integer images gives MXNet 1.9.1's recorded values and dtype
(``tools/make_extra_fixtures_image_normalize_int.py``): computed in float, cast back to the
input's type truncated toward zero and wrapped; imperatively and hybridized."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.gluon.data.vision import transforms

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "image_normalize_int",
                    "cases.json")
with open(PATH) as _f:
    CASES = json.load(_f)


@pytest.mark.parametrize("i", range(len(CASES)), ids=["%s-%dd" % (c["dtype"], np.ndim(c["input"])) for c in CASES])
def test_integer_normalize_as_mxnet(i):
    c = CASES[i]
    x = mx.nd.array(np.array(c["input"]), dtype=c["dtype"])
    y = mx.nd.image.normalize(x, mean=tuple(c["mean"]), std=tuple(c["std"]))
    assert np.dtype(y.dtype).name == c["out_dtype"]
    np.testing.assert_array_equal(y.asnumpy(), np.array(c["output"], dtype=c["out_dtype"]))


def test_integer_normalize_hybridized():
    c = CASES[0]
    x = mx.nd.array(np.array(c["input"]), dtype=c["dtype"])
    block = transforms.Normalize(mean=tuple(c["mean"]), std=tuple(c["std"]))
    block.hybridize()
    np.testing.assert_array_equal(block(x).asnumpy(), np.array(c["output"], dtype=c["out_dtype"]))
