"""mx.np's split family against MXNet 1.9.1's recorded answers
(``tools/make_extra_fixtures_np_split.py``): the parts of ``_npi_split`` (``_split_v2``),
MXNet's uneven ``hsplit``/``array_split``, and its errors. That the parts are new memory,
not numpy's views, is in ``tests/test_views.py`` (``np_split`` ...)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx

_PATH = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "np_split", "cases.json")
CASES = json.load(open(_PATH))["cases"]
_ERRORS = {"MXNetError": mx.base.MXNetError, "ValueError": ValueError}


def _squash(text):
    return "".join(text.split())


@pytest.mark.parametrize("name", sorted(CASES))
def test_split_as_mxnet(name):
    case = CASES[name]
    npx = mx.npx
    npx.set_np()
    try:
        scope = {"np": mx.np, "npx": npx, "nd": mx.nd, "a": mx.np.arange(6).reshape(2, 3), "b": mx.np.arange(5),
                 "c": mx.np.arange(12).reshape(1, 2, 6)}
        if "error" in case:
            with pytest.raises(_ERRORS[case["error"]]) as info:
                eval(case["expr"], scope)  # pylint: disable=eval-used
            # MXNet's words after its "Check failed: <condition>: " (spaces aside: MXNet writes "1for")
            want = case["message"].split(": ")[-1]
            assert _squash(want) in _squash(str(info.value))
            return
        res = eval(case["expr"], scope)  # pylint: disable=eval-used
    finally:
        npx.reset_np()
    assert isinstance(res, list) and len(res) == len(case["parts"])
    for got, want in zip(res, case["parts"]):
        assert isinstance(got, mx.np.ndarray)
        assert list(got.shape) == want["shape"]
        np.testing.assert_array_equal(got.asnumpy(), np.array(want["value"], dtype=np.float32).reshape(want["shape"]))
