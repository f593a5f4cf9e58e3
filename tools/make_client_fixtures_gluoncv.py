"""Record GluonCV 0.10.5's training/evaluation workflows (tests/gluoncv_client_cases.py) on
MXNet 1.9.1 for tests/test_client_gluoncv.py.

Run it in the MXNet venv that has GluonCV (``/work/mxclients/bin/python``)::

    /work/mxclients/bin/python tools/make_client_fixtures_gluoncv.py

Writes tests/fixtures/extra/gluoncv_client/expected.npz: ``<case>/<name>`` for every result
(``digest``: larger arrays by their sums and a sample).
"""
import os
import sys
import warnings

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import gluoncv_client_cases  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "gluoncv_client", "expected.npz")


def main():
    assert "neogluon" not in mx.__file__, "run this in MXNet 1.9.1's venv"
    arrays = {}
    for case, fn in gluoncv_client_cases.CASES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, value in fn().items():
                arrays["%s/%s" % (case, name)] = gluoncv_client_cases.digest(value)
        print(case, "done")
    np.savez_compressed(OUT, **arrays)
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
