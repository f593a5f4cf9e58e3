"""Record MXNet 1.9.1's fused attention operators (``contrib.div_sqrt_dim`` and the
``interleaved_matmul_*`` family GluonNLP's BERT and Transformer call).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_attention.py

It writes ``tests/fixtures/extra/attention`` (format: ``tools/mxcases.py``);
``tests/test_ops_attention.py`` replays the cases imperatively and through ``bind``.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mxcases import Recorder  # noqa: E402

R = Recorder("attention")
RNG = np.random.RandomState(7)


def U(*shape, dtype="float32"):
    return RNG.uniform(-1, 1, size=shape).astype(dtype)


R.case("div_sqrt_dim", "_contrib_div_sqrt_dim", [("data", U(2, 3, 16))], grad=["data"])
R.case("div_sqrt_dim_float64", "_contrib_div_sqrt_dim", [("data", U(4, 5, dtype="float64"))], grad=["data"])
for heads, (length, batch, dim) in [(2, (4, 3, 5)), (1, (3, 2, 4)), (3, (5, 1, 2))]:
    tag = "h%d" % heads
    R.case("selfatt_qk_" + tag, "_contrib_interleaved_matmul_selfatt_qk",
           [("queries_keys_values", U(length, batch, heads * dim * 3))], dict(heads=heads),
           grad=["queries_keys_values"])
    R.case("selfatt_valatt_" + tag, "_contrib_interleaved_matmul_selfatt_valatt",
           [("queries_keys_values", U(length, batch, heads * dim * 3)),
            ("attention", U(batch * heads, length, length))], dict(heads=heads),
           grad=["queries_keys_values", "attention"])
    lq = length + 2
    R.case("encdec_qk_" + tag, "_contrib_interleaved_matmul_encdec_qk",
           [("queries", U(lq, batch, heads * dim)), ("keys_values", U(length, batch, heads * dim * 2))],
           dict(heads=heads), grad=["queries", "keys_values"])
    R.case("encdec_valatt_" + tag, "_contrib_interleaved_matmul_encdec_valatt",
           [("keys_values", U(length, batch, heads * dim * 2)), ("attention", U(batch * heads, lq, length))],
           dict(heads=heads), grad=["keys_values", "attention"])

if __name__ == "__main__":
    R.write()
