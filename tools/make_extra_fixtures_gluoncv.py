"""Record GluonCV 0.10.5's model zoo on MXNet 1.9.1 for tests/test_gluoncv_models.py.

Run it in a venv with mxnet==1.9.1, numpy==1.23.5 and gluoncv==0.10.5.post0 (installed with
``--no-deps``, plus portalocker, yacs, pyyaml, autocfg, scipy, Pillow, opencv, matplotlib,
tqdm, pandas)::

    /work/venvs/mxgcv/bin/python tools/make_extra_fixtures_gluoncv.py [--keep DIR]

For every model of ``MODELS`` it builds ``gluoncv.model_zoo.get_model(name, pretrained=False,
...)`` in a fresh NameManager, runs it once (deferred shapes), sets every parameter from
tests/model_zoo_params.py's formula (``set_data``; no weight is stored: the tests rebuild
them), and records the outputs on a fixed input imperatively, hybridized and through
``export`` + ``SymbolBlock.imports``, the parameters' structural and full names and shapes,
and the exported graph's operator names. With ``--keep DIR`` the parameter files
(``save_parameters``) and exports are left in DIR for tools/check_gluoncv_with_mxnet.py.

Writes tests/fixtures/extra/gluoncv/{outputs.npz,cases.json.gz}.
"""
import argparse
import gzip
import json
import os
import sys
import tempfile
import warnings

import numpy as np
import mxnet as mx
from gluoncv import model_zoo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from gluoncv_models import MODELS, get_model, model_input, set_params  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "gluoncv")


def build(name):
    """The model with the formula's parameters (a fresh NameManager: prefixes count from 0)."""
    mx.name.NameManager._current.value = mx.name.NameManager()
    net = get_model(model_zoo, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.initialize()
    net(mx.nd.array(model_input(name)))
    set_params(name, net, mx.gluon.Constant, mx.nd.array)
    return net


def outputs(result):
    return [o.asnumpy() for o in (result if isinstance(result, (list, tuple)) else [result])]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", default="")
    args = parser.parse_args()
    keep = args.keep or tempfile.mkdtemp(prefix="gcv_fixtures_")
    os.makedirs(keep, exist_ok=True)
    arrays, cases = {}, {}
    for name in MODELS:
        net = build(name)
        x = mx.nd.array(model_input(name))
        full = {id(p): p.name for p in net.collect_params().values()}
        params = [[k, full[id(p)], list(p.shape)] for k, p in net._collect_params_with_prefix().items()]
        for i, o in enumerate(outputs(net(x))):
            arrays["%s/%d" % (name, i)] = o
        net.hybridize()
        for i, o in enumerate(outputs(net(x))):
            np.testing.assert_array_equal(o, arrays["%s/%d" % (name, i)])
        prefix = os.path.join(keep, name)
        net.export(prefix)
        net.save_parameters(prefix + ".params")
        graph = json.load(open(prefix + "-symbol.json"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
        for i, o in enumerate(outputs(imported(x))):
            np.testing.assert_array_equal(o, arrays["%s/%d" % (name, i)])
        ops = sorted({n["op"] for n in graph["nodes"] if n["op"] != "null"})
        cases[name] = {"params": params, "ops": ops, "nodes": len(graph["nodes"]),
                       "outputs": len(outputs(net(x)))}
        print(name, len(params), "parameters", len(graph["nodes"]), "nodes",
              [arrays["%s/%d" % (name, i)].shape for i in range(cases[name]["outputs"])])
    os.makedirs(OUT, exist_ok=True)
    np.savez_compressed(os.path.join(OUT, "outputs.npz"), **arrays)
    with gzip.open(os.path.join(OUT, "cases.json.gz"), "wt") as f:
        json.dump({"mxnet": mx.__version__, "cases": cases}, f, sort_keys=True)
    print("parameter files and exports in", keep)


if __name__ == "__main__":
    main()
