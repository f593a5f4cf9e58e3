"""Model-zoo networks between neogluon and real MXNet 1.9.1, both ways (not part of CI).

    python tools/check_model_zoo_with_mxnet.py [--mxnet /work/mxref/bin/python] [--all | NAME ...]

1. neogluon builds each model with the parameters of tests/model_zoo_params.py, runs it
   hybridized and exports it (``-symbol.json``, ``-0000.params``) into a temporary
   directory with its input and output;
2. MXNet loads every export with ``gluon.SymbolBlock.imports`` and compares its output
   with neogluon's; it also builds the same model with ``vision.get_model``, sets the same
   parameters and saves them with ``save_parameters`` (what a pretrained file is);
3. neogluon loads MXNet's file with ``load_parameters`` into a fresh ``get_model``
   network and compares its output with MXNet's.

Without names it checks one model of every family and block type (``REPRESENTATIVE``).
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
from neogluon import nd  # noqa: E402
from neogluon.gluon.model_zoo import model_store, vision  # noqa: E402
from model_zoo_params import input_shape, input_value, param_value  # noqa: E402

# checked without names, every family and block type: AlexNet, DenseNet, Inception v3,
# MobileNet and MobileNetV2 (two widths each), ResNet V1/V2 with basic and bottleneck
# blocks, SqueezeNet 1.0/1.1, VGG with and without BatchNorm
REPRESENTATIVE = ["alexnet", "densenet121", "inceptionv3", "mobilenet0.25", "mobilenet0.75",
                  "mobilenetv2_0.25", "mobilenetv2_1.0", "resnet18_v1", "resnet18_v2",
                  "resnet50_v1", "resnet50_v2", "squeezenet1.0", "squeezenet1.1", "vgg11",
                  "vgg16_bn"]

MXNET_SIDE = r'''
import os, sys, warnings
import numpy as np
import mxnet as mx
from mxnet.gluon.model_zoo import vision
sys.path.insert(0, sys.argv[2])
from model_zoo_params import param_value
warnings.simplefilter("ignore")
failed = 0
for name in sys.argv[3:]:
    base = os.path.join(sys.argv[1], name)
    io = np.load(base + "-io.npz")
    x = mx.nd.array(io["data"])
    net = mx.gluon.SymbolBlock.imports(base + "-symbol.json", ["data"], base + "-0000.params")
    out = net(x).asnumpy()
    err = float(np.abs(out - io["out"]).max() / np.abs(io["out"]).max())
    mx.name.NameManager._current.value = mx.name.NameManager()
    own = vision.get_model(name)
    own.initialize()
    own(x)
    for key, param in own._collect_params_with_prefix().items():
        param.set_data(mx.nd.array(param_value(key, param.shape)))
    own.save_parameters(base + "-mxnet.params")
    np.save(base + "-mxnet-out.npy", own(x).asnumpy())
    ok = err < 1e-4
    failed += not ok
    print("%-18s export imported by MXNet: max rel |mxnet - neogluon| = %.2g %s"
          % (name, err, "ok" if ok else "MISMATCH"))
sys.exit(1 if failed else 0)
'''


def export(name, out_dir):
    """Export ``name`` (formula parameters, hybridized) with its input and output."""
    x = nd.array(input_value(name, input_shape(name)))
    mx.name.NameManager._current.value = mx.name.NameManager()
    net = vision.get_model(name)
    net.infer_shape(x)
    net.load_dict({k: nd.array(param_value(k, p.shape))
                   for k, p in net._collect_params_with_prefix().items()})
    net.hybridize()
    out = net(x)
    net.export(os.path.join(out_dir, name))
    np.savez(os.path.join(out_dir, name + "-io.npz"), data=x.asnumpy(), out=out.asnumpy())


def load_mxnet_file(name, out_dir):
    """Load MXNet's ``save_parameters`` file into a fresh network; relative error."""
    base = os.path.join(out_dir, name)
    x = nd.array(np.load(base + "-io.npz")["data"])
    net = vision.get_model(name)
    net.load_parameters(base + "-mxnet.params")
    ref = np.load(base + "-mxnet-out.npy")
    return float(np.abs(net(x).asnumpy() - ref).max() / np.abs(ref).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python")
    parser.add_argument("--all", action="store_true", help="every get_model name")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = sorted(model_store._model_sha1) if args.all else (args.names or REPRESENTATIVE)
    warnings.simplefilter("ignore")
    failed = 0
    with tempfile.TemporaryDirectory() as out_dir:
        for name in names:
            export(name, out_dir)
        proc = subprocess.run([args.mxnet, "-c", MXNET_SIDE, out_dir, os.path.join(ROOT, "tests")]
                              + list(names))
        failed += proc.returncode != 0
        for name in names:
            err = load_mxnet_file(name, out_dir)
            ok = err < 1e-4
            failed += not ok
            print("%-18s MXNet's save_parameters loaded here: max rel error %.2g %s"
                  % (name, err, "ok" if ok else "MISMATCH"))
    print("all ok" if not failed else "%d failure(s)" % failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
