"""Rewrite tests/fixtures/export_torch/lenet.py, the golden file of export_torch's generator:
MXNet 1.9.1's exported LeNet (tests/fixtures/mxnet-1.9.1/models/lenet) on a (4, 1, 28, 28)
example. Runs under neogluon (not MXNet): review the diff before committing it.

    PYTHONPATH=. python tools/make_export_torch_golden.py
"""
import os
import shutil
import tempfile

from neogluon.executor.torch_export import export_torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "tests", "fixtures", "mxnet-1.9.1", "models", "lenet")
GOLDEN = os.path.join(ROOT, "tests", "fixtures", "export_torch", "lenet.py")

if __name__ == "__main__":
    out = tempfile.mkdtemp()
    try:
        files = export_torch(BASE + "-symbol.json", BASE + "-0000.params", out, {"data": (4, 1, 28, 28)})
        os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
        shutil.copyfile(files["py"], GOLDEN)
        print("wrote", GOLDEN)
    finally:
        shutil.rmtree(out)
