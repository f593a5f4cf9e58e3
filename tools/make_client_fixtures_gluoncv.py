"""Record GluonCV 0.10.5's training/evaluation workflows (tests/gluoncv_client_cases.py and
tests/gluoncv_workflow_cases.py) on MXNet 1.9.1 for tests/test_client_gluoncv.py.

Run it in the MXNet venv that has GluonCV (``/work/mxclients/bin/python``)::

    /work/mxclients/bin/python tools/make_client_fixtures_gluoncv.py [expected] [workflows]

Writes tests/fixtures/extra/gluoncv_client/expected.npz (gluoncv_client_cases) and
workflows.npz (gluoncv_workflow_cases), or the one named: ``<case>/<name>`` for every result
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
import gluoncv_workflow_cases  # noqa: E402

FOLDER = os.path.join(HERE, "..", "tests", "fixtures", "extra", "gluoncv_client")
FIXTURES = {"expected": gluoncv_client_cases.CASES, "workflows": gluoncv_workflow_cases.CASES}


def main():
    assert "neogluon" not in mx.__file__, "run this in MXNet 1.9.1's venv"
    for fixture in sys.argv[1:] or list(FIXTURES):
        arrays = {}
        for case, fn in FIXTURES[fixture].items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for name, value in fn().items():
                    arrays["%s/%s" % (case, name)] = gluoncv_client_cases.digest(value)
            print(case, "done")
        out = os.path.join(FOLDER, fixture + ".npz")
        np.savez_compressed(out, **arrays)
        print("wrote", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
