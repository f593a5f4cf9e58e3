"""Export models with neogluon and load them in real MXNet 1.9.1 (not part of CI).

    python3 tools/check_export_with_mxnet.py [--mxnet /tmp/mxref/bin/python]

Each model is hybridized, run, and exported (``-symbol.json``, ``-0000.params``) into a
temporary directory with its inputs and outputs; the MXNet interpreter then loads every
export with ``gluon.SymbolBlock.imports`` and compares its outputs with neogluon's.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402
from neogluon import gluon, nd  # noqa: E402
from neogluon.gluon import nn  # noqa: E402
from neogluon.cli.lenet import build_lenet  # noqa: E402  (the tutorial's network)

CHECK = r'''
import glob, os, sys
import numpy as np
import mxnet as mx
failed = 0
for sym_file in sorted(glob.glob(os.path.join(sys.argv[1], "*-symbol.json"))):
    base = sym_file[:-len("-symbol.json")]
    io = np.load(base + "-io.npz")
    names = [k for k in io.files if k.startswith("data")]
    net = mx.gluon.SymbolBlock.imports(sym_file, names, base + "-0000.params")
    out = net(*[mx.nd.array(io[n]) for n in names])
    err = float(np.abs(out.asnumpy() - io["out"]).max())
    ok = err < 1e-4
    failed += not ok
    print("%-24s max |mxnet - neogluon| = %.3g %s" % (os.path.basename(base), err, "ok" if ok else "MISMATCH"))
sys.exit(1 if failed else 0)
'''


class Model(gluon.HybridBlock):
    """The HybridBlock page's forward-overriding example (traced through mx.nd)."""
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(20)
            self.dense1 = nn.Dense(20)

    def forward(self, x):
        x = nd.relu(self.dense0(x))
        return nd.relu(self.dense1(x))


class TwoInputs(gluon.HybridBlock):
    """Two inputs (exported as data0, data1) and BatchNorm's auxiliary states."""
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(6)
            self.bn = nn.BatchNorm()

    def hybrid_forward(self, F, a, b):
        return F.broadcast_add(self.bn(self.fc(a)), F.sum(b, axis=1, keepdims=True))


def export_all(out_dir):
    rng = np.random.RandomState(0)
    mlp = nn.HybridSequential()
    mlp.add(nn.Dense(32, activation="relu"), nn.Dropout(0.3), nn.Dense(10))
    cases = {"lenet": (build_lenet(mx), [rng.rand(4, 1, 28, 28)]),
             "mlp": (mlp, [rng.rand(5, 20)]),
             "forward_override": (Model(), [rng.rand(3, 10)]),
             "two_inputs": (TwoInputs(), [rng.rand(4, 5), rng.rand(4, 3)])}
    for name, (net, inputs) in cases.items():
        net.initialize(mx.init.Xavier())
        net.hybridize()
        arrays = [nd.array(x.astype("float32")) for x in inputs]
        out = net(*arrays)
        net.export(os.path.join(out_dir, name))
        key = ["data"] if len(arrays) == 1 else ["data%d" % i for i in range(len(arrays))]
        np.savez(os.path.join(out_dir, name + "-io.npz"), out=out.asnumpy(),
                 **{k: a.asnumpy() for k, a in zip(key, arrays)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/tmp/mxref/bin/python", help="Python with MXNet 1.9.1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out_dir:
        export_all(out_dir)
        sys.exit(subprocess.run([args.mxnet, "-c", CHECK, out_dir], check=False).returncode)


if __name__ == "__main__":
    main()
