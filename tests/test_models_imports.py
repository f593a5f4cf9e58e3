"""Every model exported by MXNet 1.9.1 (tests/fixtures/mxnet-1.9.1/models) loads with
``SymbolBlock.imports`` and reproduces the recorded outputs."""
import json
import os
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon, nd

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "mxnet-1.9.1")
MODELS = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))["models"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_exported_models_reproduce_outputs(name):
    base = os.path.join(FIXTURES, "models", name)
    io = np.load(base + "-io.npz")
    sym = mx.sym.load(base + "-symbol.json")
    data = [a for a in sym.list_arguments() if a.startswith("data")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = gluon.SymbolBlock.imports(base + "-symbol.json", data, base + "-0000.params")
    inputs = [nd.array(io["data:%d" % i]) for i in range(MODELS[name]["inputs"])]
    if len(data) > len(inputs):  # fused RNN layers: begin states as extra inputs, zeros
        shapes = dict(zip(sym.list_arguments(), sym.infer_shape_partial(**{data[0]: inputs[0].shape})[0]))
        inputs += [nd.zeros(shapes[d]) for d in data[len(inputs):]]
    out = net(*inputs)
    np.testing.assert_allclose(out.asnumpy(), io["out:0"], rtol=1e-4, atol=1e-5)
