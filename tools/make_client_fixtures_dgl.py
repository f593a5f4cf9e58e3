"""Record MXNet 1.9.1's results of the DGL 1.1.3 workflows of ``tests/test_client_dgl.py`` into
``tests/fixtures/extra/dgl/<workflow>.npz``.

Run with the reference interpreter (real MXNet 1.9.1 and DGL 1.1.3; never imported by neogluon
or its tests)::

    /work/mxclients/bin/python tools/make_client_fixtures_dgl.py [workflow ...]

The workflows run in a child process with ``DGLBACKEND=mxnet``, as the test runs them.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")
OUT = os.path.join(TESTS, "fixtures", "extra", "dgl")

if __name__ == "__main__":
    env = dict(os.environ, DGLBACKEND="mxnet")
    code = "import mxnet, sys; assert 'neogluon' not in mxnet.__file__, 'run this with real MXNet 1.9.1'"
    subprocess.run([sys.executable, "-c", code], check=True)
    subprocess.run([sys.executable, os.path.join(TESTS, "test_client_dgl.py"), OUT] + sys.argv[1:], env=env, check=True)
