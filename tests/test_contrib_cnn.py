"""``gluon.contrib.cnn``'s deformable convolution layers against MXNet 1.9.1
(tools/make_extra_fixtures_contrib_cnn.py): parameter names, shapes and repr; the output and
input gradient of DeformableConvolution with MXNet's parameters, imperatively and hybridized."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.gluon.contrib.cnn import DeformableConvolution, ModulatedDeformableConvolution

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "contrib_cnn")
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)["cases"]
CLASSES = {"deformable": DeformableConvolution, "deformable_nobias_act": DeformableConvolution,
           "modulated": ModulatedDeformableConvolution}


def _make(name):
    kw = dict(CASES[name]["kwargs"])
    kw["kernel_size"] = tuple(kw["kernel_size"]) if isinstance(kw["kernel_size"], list) else kw["kernel_size"]
    mx.name.NameManager._current.value = mx.name.NameManager()  # pylint: disable=protected-access
    return CLASSES[name](**kw)


@pytest.mark.parametrize("name", sorted(CASES))
def test_parameters_and_repr_are_mxnets(name):
    net = _make(name)
    assert [[k, list(v.shape)] for k, v in net.collect_params().items()] == CASES[name]["params"]
    assert repr(net) == CASES[name]["repr"]


@pytest.mark.parametrize("name", sorted(n for n in CASES if "repr_after" in CASES[n]))
@pytest.mark.parametrize("hybridize", [False, True])
def test_deformable_convolution_gives_mxnets_output_and_gradient(name, hybridize):
    data = np.load(os.path.join(HERE, name + ".npz"))
    net = _make(name)
    net.load_parameters(os.path.join(HERE, name + ".params"))
    if hybridize:
        net.hybridize()
    x = mx.nd.array(data["x"])
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward(mx.nd.ones_like(y))
    np.testing.assert_allclose(y.asnumpy(), data["y"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), data["dx"], rtol=1e-4, atol=1e-5)
    assert repr(net) == CASES[name]["repr_after"]


def test_modulated_layer_with_zero_offsets_is_a_convolution():
    """New layers start with zero offset weights: the mask is 2*sigmoid(0) = 1 and no sample
    moves, so the output is the plain convolution with the same weight and bias."""
    net = _make("modulated")
    net.initialize(mx.init.Normal(0.3))
    x = mx.nd.array(np.random.RandomState(1).rand(2, 2, 6, 6))
    y = net(x)
    w, b = net.deformable_conv_weight.data(), net.deformable_conv_bias.data()
    ref = mx.nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=4)
    np.testing.assert_allclose(y.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)
