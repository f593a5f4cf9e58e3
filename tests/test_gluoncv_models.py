"""GluonCV 0.10.5's model zoo through ``import mxnet`` (neogluon's alias) against MXNet 1.9.1
(tools/make_extra_fixtures_gluoncv.py): a classification net, SSD, YOLOv3, Faster R-CNN and
FCN built with ``pretrained=False, pretrained_base=False``, their parameter names and
shapes, their outputs imperatively, hybridized and through ``export`` +
``SymbolBlock.imports``, and the exported graph's operators.

GluonCV is installed by CI's last stage only: these tests skip without it (``bash
tools/install_clients.sh VENV`` installs it; run this file with VENV's python). The operator-level gaps they found are
tested on their own by CI (see the operators' test files).
"""
import gzip
import json
import os
import sys
import warnings

import numpy as np
import pytest

import neogluon as mx

sys.path.insert(0, os.path.dirname(__file__))
from gluoncv_models import SKIP_REASON, client_model_zoo, MODELS, get_model, model_input, set_params  # noqa: E402

model_zoo = client_model_zoo()

# building and running the six models takes about 40 s
pytestmark = [pytest.mark.skipif(model_zoo is None, reason=SKIP_REASON), pytest.mark.slow]

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "gluoncv")
OUTPUTS = np.load(os.path.join(HERE, "outputs.npz"))
with gzip.open(os.path.join(HERE, "cases.json.gz"), "rt") as _f:
    CASES = json.load(_f)["cases"]
NAMES = list(MODELS)
MODES = ["imperative", "hybridized", "imported"]


def outputs(result):
    return [o.asnumpy() for o in (result if isinstance(result, (list, tuple)) else [result])]


class Run:
    """One model built, run in the three modes and exported, once per test session."""

    def __init__(self, name, folder):
        # GluonCV 0.10.5's anchor code uses np.float, which numpy 1.24 removed
        if not hasattr(np, "float"):
            np.float = float
        mx.name.NameManager._current.value = mx.name.NameManager()
        net = get_model(model_zoo, name)
        x = mx.nd.array(model_input(name))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net.initialize()
        net(x)
        set_params(name, net, mx.gluon.Constant, mx.nd.array)
        full = {id(p): p.name for p in net.collect_params().values()}
        self.params = [[k, full[id(p)], list(p.shape)] for k, p in net._collect_params_with_prefix().items()]
        self.out = {"imperative": outputs(net(x))}
        net.hybridize()
        self.out["hybridized"] = outputs(net(x))
        prefix = os.path.join(folder, name)
        net.export(prefix)
        self.graph = json.load(open(prefix + "-symbol.json"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
        self.out["imported"] = outputs(imported(x))


_RUNS = {}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    def get(name):
        if name not in _RUNS:
            _RUNS[name] = Run(name, str(tmp_path_factory.mktemp("gluoncv")))
        return _RUNS[name]
    return get


@pytest.mark.parametrize("name", NAMES)
def test_parameter_names_and_shapes(run, name):
    assert run(name).params == CASES[name]["params"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", NAMES)
def test_outputs_match_mxnet(run, name, mode):
    got = run(name).out[mode]
    assert len(got) == CASES[name]["outputs"]
    for i, out in enumerate(got):
        want = OUTPUTS["%s/%d" % (name, i)]
        assert out.shape == want.shape
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(want).max()),
                                   err_msg="%s %s output %d" % (name, mode, i))


@pytest.mark.parametrize("name", NAMES)
def test_exported_graph_has_mxnets_operators(run, name):
    graph = run(name).graph
    assert sorted({n["op"] for n in graph["nodes"] if n["op"] != "null"}) == CASES[name]["ops"]
    assert len(graph["nodes"]) == CASES[name]["nodes"]
