"""Record MXNet 1.9.1's numbers for tests/test_client_d2l.py: runs every workflow of
tests/d2l_workflows.py and tests/d2l_workflows_more.py (d2l 1.0.3's MXNet edition on
synthetic data) and writes
tests/fixtures/extra/d2l/workflows.npz.

Run in the environment with real MXNet and d2l (e.g. /work/mxclients):
    python tools/make_client_fixtures_d2l.py
"""
import os
import sys

import numpy as onp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))


def main():
    import mxnet
    assert "neogluon" not in mxnet.__file__, "run this with real MXNet 1.9.1"
    import d2l_workflows
    import d2l_workflows_more
    import matplotlib.pyplot as plt
    plt.install_repl_displayhook = lambda *a, **k: None  # matplotlib 3.8 and IPython 9 in the MXNet venv
    out = {}
    for workflow in d2l_workflows.WORKFLOWS + d2l_workflows_more.WORKFLOWS:
        for name, value in workflow().items():
            out[workflow.__name__ + "/" + name] = value.astype(onp.float32)
    path = os.path.join(ROOT, "tests", "fixtures", "extra", "d2l", "workflows.npz")
    onp.savez_compressed(path, **out)
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
