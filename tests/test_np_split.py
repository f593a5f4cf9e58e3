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
BLOCKS = {k: CASES.pop(k) for k in [k for k in CASES if k.startswith("block_")]}
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


def _block(kind, body):
    """The recorded block: ``hybrid_forward(self, F, x)`` (F.np.split on Symbols) or
    ``forward(self, x)`` (mx.np.split on traced arrays, no shapes) with the recorded body."""
    src = "def %s(self, %sx):\n%s\n" % (kind, "F, " if kind == "hybrid_forward" else "",
                                      "\n".join("    " + line for line in body.split("\n")))
    scope = {"mx": mx}
    exec(src, scope)  # pylint: disable=exec-used
    return type("Split", (mx.gluon.HybridBlock,), {kind: scope[kind]})()


@pytest.mark.parametrize("kind", ["hybrid_forward", "forward"])
def test_split_hybridized_as_imperative(kind):
    """MXNet's results for both blocks, imperatively and hybridized; the graph holds a
    split node (MXNet's symbolic split), not slices."""
    case = BLOCKS["block_" + kind]
    mx.npx.set_np()
    try:
        block = _block(kind, case["body"])
        block.initialize()
        x = mx.np.arange(8).reshape(2, 4)
        np.testing.assert_array_equal(block(x).asnumpy(), case["imperative"])
        block.hybridize()
        np.testing.assert_array_equal(block(x).asnumpy(), case["hybridized"])
        assert '"_split_v2"' in block._cached_graph[1].tojson()  # pylint: disable=protected-access
    finally:
        mx.npx.reset_np()
