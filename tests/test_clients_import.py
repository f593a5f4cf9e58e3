"""Real MXNet code bases import through the ``mxnet`` alias: GluonCV 0.10.5, GluonNLP 0.10.0,
GluonTS's MXNet models, d2l's MXNet edition and Sockeye 2.3.22. CI's last stage installs them with
``bash tools/install_clients.sh VENV BASE`` and runs this file with VENV's python; elsewhere it
skips. Each statement runs in a process of its own, as a user's program would."""
import importlib.util
import os
import subprocess
import sys

import pytest

import neogluon

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(neogluon.__file__)))
STATEMENTS = {
    "gluoncv": ["import gluoncv", "from gluoncv import model_zoo"],
    "gluonts": ["import gluonts.mx"],
    "gluonnlp": ["import gluonnlp"],
    "d2l": ["import d2l.mxnet"],
    "dgl": ["import dgl.nn.mxnet"],  # with DGLBACKEND=mxnet (below)
    "sockeye": ["import sockeye.train, sockeye.translate"],
}
CASES = [(pkg, stmt) for pkg, stmts in STATEMENTS.items() for stmt in stmts]


@pytest.mark.parametrize("package,statement", CASES, ids=[s for _, s in CASES])
def test_client_imports_through_the_alias(package, statement):
    if importlib.util.find_spec(package) is None:
        pytest.skip("%s is not installed (bash tools/install_clients.sh VENV)" % package)
    code = "import neogluon_alias; neogluon_alias.activate(); %s; import mxnet; print(mxnet.__version__)" % statement
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg", PYTHONWARNINGS="ignore", DGLBACKEND="mxnet")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().split("\n")[-1] == "1.9.1"
