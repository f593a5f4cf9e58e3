"""Check that fused RNN layers exported by neogluon load in real MXNet 1.9.1 with the same outputs.

    python3 tools/check_rnn_layers_in_mxnet.py [--mxnet /tmp/mxref/bin/python]

With the project's interpreter this builds each layer, runs it hybridized, writes
``export`` files, a ``save_parameters`` file and the input/output arrays to a temporary
directory, then runs itself under the MXNet interpreter (``--check DIR``), which loads
the exported model with ``SymbolBlock.imports`` and the parameters with
``load_parameters`` into the same Gluon layer, and compares the outputs. Not part of CI
(it needs the side virtual environment with MXNet).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

LAYERS = {
    "lstm_2x_bidir": ("LSTM", dict(hidden_size=8, num_layers=2, bidirectional=True, layout="NTC"), (2, 5, 3)),
    "lstm_proj": ("LSTM", dict(hidden_size=8, projection_size=4), (5, 2, 3)),
    "gru_2x": ("GRU", dict(hidden_size=6, num_layers=2), (5, 2, 3)),
    "rnn_relu_bidir": ("RNN", dict(hidden_size=6, bidirectional=True), (5, 2, 3)),
}


def export_all(out_dir):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import neogluon as mx  # pylint: disable=import-outside-toplevel
    for name, (kind, kwargs, shape) in LAYERS.items():
        layer = getattr(mx.gluon.rnn, kind)(prefix=name + "_", **kwargs)
        layer.initialize(mx.init.Uniform(0.5))
        layer.hybridize()
        x = np.random.uniform(-1, 1, shape).astype("float32")
        out = layer(mx.nd.array(x)).asnumpy()
        layer.export(os.path.join(out_dir, name))
        layer.save_parameters(os.path.join(out_dir, name + ".params"))
        np.savez(os.path.join(out_dir, name + ".npz"), x=x, out=out)
    with open(os.path.join(out_dir, "layers.json"), "w") as f:
        json.dump(LAYERS, f)


def check_all(out_dir):
    import mxnet as mx  # pylint: disable=import-outside-toplevel,import-error
    failures = 0
    for name, (kind, kwargs, _) in json.load(open(os.path.join(out_dir, "layers.json"))).items():
        arrays = np.load(os.path.join(out_dir, name + ".npz"))
        x = mx.nd.array(arrays["x"])
        layer = getattr(mx.gluon.rnn, kind)(**kwargs)
        layer.load_parameters(os.path.join(out_dir, name + ".params"))
        states = layer.begin_state(x.shape[kwargs.get("layout", "TNC").find("N")])
        inputs = ["data%d" % i for i in range(len(states) + 1)]
        block = mx.gluon.SymbolBlock.imports(os.path.join(out_dir, name + "-symbol.json"), inputs,
                                             os.path.join(out_dir, name + "-0000.params"))
        for how, out in [("SymbolBlock.imports", block(x, *states)), ("load_parameters", layer(x))]:
            err = float(np.abs(out.asnumpy() - arrays["out"]).max())
            ok = err < 1e-5
            failures += not ok
            print("%-16s %-20s max error %.2e %s" % (name, how, err, "ok" if ok else "MISMATCH"))
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/tmp/mxref/bin/python", help="an interpreter with mxnet 1.9.1")
    parser.add_argument("--check", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        check_all(args.check)
        return
    with tempfile.TemporaryDirectory() as tmp:
        export_all(tmp)
        sys.exit(subprocess.call([args.mxnet, os.path.abspath(__file__), "--check", tmp]))


if __name__ == "__main__":
    main()
