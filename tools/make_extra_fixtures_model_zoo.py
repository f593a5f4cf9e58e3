"""Record MXNet 1.9.1's model zoo for tests/test_model_zoo.py (run with /work/mxref/bin/python).

Writes tests/fixtures/extra/model_zoo/:
- cases.json.gz: for every ``get_model`` name, the parameters (structural name, full name,
  shape, for the pretrained input size), the input shape of the output check, and for a
  few models the exported graph's nodes and the repr; the public names of
  ``gluon.model_zoo.vision``; ``get_model``'s and ``model_store``'s errors; file names.
- outputs.npz: every model's output on its input, with the parameters set by
  tests/model_zoo_params.py (no weights are stored: the tests rebuild them).

    /work/mxref/bin/python tools/make_extra_fixtures_model_zoo.py
"""
import gzip
import json
import os
import sys
import warnings

import numpy as np
import mxnet as mx
from mxnet.gluon.model_zoo import model_store, vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from model_zoo_params import input_shape, input_value, param_value, shape_side  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "model_zoo")
NAMES = sorted(model_store._model_sha1)  # == the get_model names
# models whose exported graph (nodes) and repr are recorded
GRAPHS = ["alexnet", "densenet121", "inceptionv3", "mobilenet0.25", "mobilenetv2_0.25",
          "resnet18_v1", "resnet50_v2", "squeezenet1.0", "vgg11_bn"]


def fresh(name):
    """``get_model(name)`` built in a fresh NameManager (so prefixes count from 0)."""
    mx.name.NameManager._current.value = mx.name.NameManager()
    return vision.get_model(name)


def error_of(fn):
    try:
        fn()
    except Exception as e:  # pylint: disable=broad-except
        return [type(e).__name__, str(e)]
    return None


def record(name, cases, outputs):
    net = fresh(name)
    net.initialize()
    side = shape_side(name)
    net.infer_shape(mx.nd.zeros((1, 3, side, side)))
    structural = net._collect_params_with_prefix()
    full = {id(p): p.name for p in net.collect_params().values()}
    case = {"params": [[k, full[id(p)], list(p.shape)] for k, p in structural.items()],
            "input": list(input_shape(name))}
    if name in GRAPHS:
        case["repr"] = repr(net)
        case["nodes"] = [[n["op"], n["name"]] for n in
                         json.loads(net(mx.sym.var("data")).tojson())["nodes"]]

    net = fresh(name)
    net.initialize()
    x = mx.nd.array(input_value(name, input_shape(name)))
    net(x)  # deferred initialisation at the input's size
    for key, param in net._collect_params_with_prefix().items():
        param.set_data(mx.nd.array(param_value(key, param.shape)))
    out = net(x).asnumpy()
    net.hybridize()
    hybrid = net(x).asnumpy()
    assert np.allclose(out, hybrid, rtol=1e-4, atol=1e-4 * np.abs(out).max()), name
    outputs[name] = out
    case["output_scale"] = float(np.abs(out).max())
    cases[name] = case
    print("%-18s input %-18s |out| max %.3g" % (name, input_shape(name), case["output_scale"]))


def main():
    os.makedirs(OUT, exist_ok=True)
    warnings.simplefilter("ignore")
    only = sys.argv[1:]
    cases, outputs = {}, {}
    for name in NAMES:
        if not only or name in only:
            record(name, cases, outputs)
    public = sorted(n for n in dir(vision) if not n.startswith("_")
                    and not isinstance(getattr(vision, n), type(vision)))
    meta = {
        "vision_names": public,
        "get_model_error": error_of(lambda: vision.get_model("resnet19_v1")),
        "short_hash_error": error_of(lambda: model_store.short_hash("resnet19_v1")),
        "file_names": {n: "%s-%s.params" % (n, model_store.short_hash(n)) for n in NAMES},
        "sha1": model_store._model_sha1,
        "default_root": os.path.join(mx.base.data_dir(), "models").replace(
            os.path.expanduser("~"), "~"),
    }
    # gzipped (1 MB of names and shapes otherwise), without a time stamp: reproducible bytes
    with gzip.GzipFile(os.path.join(OUT, "cases.json.gz"), "wb", mtime=0) as f:
        f.write(json.dumps({"models": cases, "meta": meta}, indent=0, sort_keys=True).encode())
    np.savez_compressed(os.path.join(OUT, "outputs.npz"), **outputs)


if __name__ == "__main__":
    main()
