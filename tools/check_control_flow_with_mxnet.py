"""Export neogluon's control flow blocks and symbols and run them in real MXNet 1.9.1 (not
part of CI; the tests compare with the outputs MXNet recorded for the same bytes).

    python3 tools/check_control_flow_with_mxnet.py [--mxnet /work/mxref/bin/python]

Each block of tests/control_flow_models.py (``foreach`` over an LSTM cell, ``while_loop``,
``cond`` both ways) is hybridized, run and exported by neogluon, with random parameters;
each plain symbol is saved with random inputs. MXNet then loads every export
(``gluon.SymbolBlock.imports``, ``mx.sym.load`` + ``bind``), compares its outputs with
neogluon's, and checks that its own ``tojson()`` of the loaded graph is neogluon's file
byte for byte.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import neogluon as mx  # noqa: E402
import control_flow_models as models  # noqa: E402

CHECK = r'''
import glob, os, sys
import numpy as np
import mxnet as mx
failed = 0
def report(name, outs, io, text, path):
    global failed
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    err = 0.0
    for k, o in enumerate(outs):
        want = io["out%d" % k]
        got = o.asnumpy()
        if "rows%d" % k in io.files:  # while_loop's padding is uninitialised in MXNet
            n = int(io["rows%d" % k])
            got, want = got[:n], want[:n]
        err = max(err, float(np.abs(got - want).max()))
    same = mx.sym.load(path).tojson() == text
    ok = err < 1e-4 and same
    failed += not ok
    print("%-18s max |mxnet - neogluon| = %.3g, JSON written back %s %s"
          % (name, err, "identical" if same else "DIFFERENT", "ok" if ok else "MISMATCH"))
for sym_file in sorted(glob.glob(os.path.join(sys.argv[1], "*-symbol.json"))):
    base = sym_file[:-len("-symbol.json")]
    io = np.load(base + "-io.npz")
    names = sorted(k for k in io.files if k.startswith("data"))
    net = mx.gluon.SymbolBlock.imports(sym_file, names, base + "-0000.params")
    report(os.path.basename(base), net(*[mx.nd.array(io[n]) for n in names]), io, open(sym_file).read(), sym_file)
for sym_file in sorted(glob.glob(os.path.join(sys.argv[1], "sym_*.json"))):
    io = np.load(sym_file[:-5] + "-io.npz")
    sym = mx.sym.load(sym_file)
    args = {k[3:]: mx.nd.array(io[k]) for k in io.files if k.startswith("in:")}
    report(os.path.basename(sym_file)[:-5], sym.bind(mx.cpu(), args).forward(), io, open(sym_file).read(), sym_file)
sys.exit(1 if failed else 0)
'''


def export_all(out_dir):
    rng = np.random.RandomState(1)
    for name in models.MODELS:
        net, inputs = models.build(mx, name)
        net.hybridize()
        outs = net(*[mx.nd.array(a) for a in inputs])
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        net.export(os.path.join(out_dir, name))
        keys = ["data"] if len(inputs) == 1 else ["data%d" % i for i in range(len(inputs))]
        np.savez(os.path.join(out_dir, name + "-io.npz"), **dict(zip(keys, inputs)),
                 **{"out%d" % k: o.asnumpy() for k, o in enumerate(outs)})
    for name, sym in models.symbols(mx).items():
        sym.save(os.path.join(out_dir, "sym_%s.json" % name))
        values = {k: rng.uniform(-1, 1, s).astype("float32") for k, s in models.SYMBOL_INPUTS[name].items()}
        if name == "while":
            values["i"] = np.zeros((1,), "float32")
        outs = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in values.items()}).forward()
        extra = {"rows0": np.array(3)} if name == "while" else {}
        np.savez(os.path.join(out_dir, "sym_%s-io.npz" % name), **{"in:" + k: v for k, v in values.items()},
                 **{"out%d" % k: o.asnumpy() for k, o in enumerate(outs)}, **extra)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python", help="Python with MXNet 1.9.1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out_dir:
        export_all(out_dir)
        env = dict(os.environ, MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0")
        sys.exit(subprocess.run([args.mxnet, "-c", CHECK, out_dir], check=False, env=env).returncode)


if __name__ == "__main__":
    main()
