"""GluonCV 0.10.5's models between neogluon and real MXNet 1.9.1, through files, both ways
(not part of CI; minutes of CPU).

    VENV/bin/python tools/check_gluoncv_with_mxnet.py [--mxnet /work/venvs/mxgcv/bin/python] [NAME ...]

VENV is a venv made by tools/install_clients.sh (GluonCV through neogluon's ``mxnet``
alias); ``--mxnet`` a venv with mxnet 1.9.1 and GluonCV (see
tools/make_extra_fixtures_gluoncv.py).

1. MXNet runs tools/make_extra_fixtures_gluoncv.py with ``--keep`` into a temporary folder:
   ``save_parameters`` files and exports of every model (the fixtures are rewritten too,
   with the same values);
2. neogluon loads MXNet's ``.params`` with ``load_parameters`` into a fresh ``get_model``
   network, and MXNet's export with ``SymbolBlock.imports``, and compares both outputs with
   MXNet's recorded ones;
3. neogluon exports its own hybridized network; MXNet imports it with
   ``SymbolBlock.imports`` and compares its output with neogluon's.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
import neogluon as mx  # noqa: E402
from gluoncv_models import MODELS, get_model, model_input  # noqa: E402

MXNET_SIDE = r'''
import sys, warnings
import numpy as np
import mxnet as mx
sys.path.insert(0, sys.argv[2])
from gluoncv_models import model_input
warnings.simplefilter("ignore")
failed = 0
for name in sys.argv[3:]:
    base = sys.argv[1] + "/neo_" + name
    net = mx.gluon.SymbolBlock.imports(base + "-symbol.json", ["data"], base + "-0000.params")
    out = net(mx.nd.array(model_input(name)))
    outs = out if isinstance(out, (list, tuple)) else [out]
    want = np.load(base + "-out.npz")
    for i, o in enumerate(outs):
        w = want["arr_%d" % i]
        ok = np.allclose(o.asnumpy(), w, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(w).max()))
        failed += not ok
        print("MXNet imports neogluon's export of %s, output %d: %s" % (name, i, "same" if ok else "DIFFERENT"))
sys.exit(1 if failed else 0)
'''


def outputs(result):
    return [o.asnumpy() for o in (result if isinstance(result, (list, tuple)) else [result])]


def close(got, want):
    return all(np.allclose(g, w, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(w).max())) for g, w in zip(got, want))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/venvs/mxgcv/bin/python")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or list(MODELS)
    if not hasattr(np, "float"):  # GluonCV 0.10.5's anchors use np.float (numpy < 1.24)
        np.float = float
    from gluoncv import model_zoo
    folder = tempfile.mkdtemp(prefix="check_gluoncv_")
    subprocess.run([args.mxnet, os.path.join(ROOT, "tools", "make_extra_fixtures_gluoncv.py"), "--keep", folder],
                   check=True)
    fixtures = np.load(os.path.join(ROOT, "tests", "fixtures", "extra", "gluoncv", "outputs.npz"))
    failed = 0
    for name in names:
        want = [fixtures["%s/%d" % (name, i)] for i in range(len([k for k in fixtures.files
                                                                  if k.startswith(name + "/")]))]
        x = mx.nd.array(model_input(name))
        mx.name.NameManager._current.value = mx.name.NameManager()
        net = get_model(model_zoo, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net.load_parameters(os.path.join(folder, name + ".params"))
        ok = close(outputs(net(x)), want)
        print("neogluon loads MXNet's %s.params: %s" % (name, "same outputs" if ok else "DIFFERENT"))
        failed += not ok
        base = os.path.join(folder, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imported = mx.gluon.SymbolBlock.imports(base + "-symbol.json", ["data"], base + "-0000.params")
        ok = close(outputs(imported(x)), want)
        print("neogluon imports MXNet's export of %s: %s" % (name, "same outputs" if ok else "DIFFERENT"))
        failed += not ok
        net.hybridize()
        ours = outputs(net(x))
        net.export(os.path.join(folder, "neo_" + name))
        np.savez(os.path.join(folder, "neo_%s-out.npz" % name), *ours)
    result = subprocess.run([args.mxnet, "-c", MXNET_SIDE, folder, os.path.join(ROOT, "tests")] + names)
    failed += result.returncode != 0
    print("files in", folder)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
