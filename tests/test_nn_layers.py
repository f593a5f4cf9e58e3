"""gluon.nn and gluon.contrib.nn layers against MXNet 1.9.1 (recorded by
tools/make_extra_fixtures_layers.py): outputs, gradients, running statistics, parameter
names and shapes, reprs and symbolic graphs, imperatively and hybridized."""
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, gluon
from neogluon.gluon import nn

import layer_cases as lc

LAYERS = lc.case_names(is_loss=False)
HYBRID_LAYERS = [n for n in LAYERS if lc.CASES[n]["hybridizable"] and "graph" in lc.CASES[n]]
GRAPH_LAYERS = HYBRID_LAYERS


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_mxnet(name):
    lc.replay(name)


@pytest.mark.parametrize("name", HYBRID_LAYERS)
def test_hybridized_layer_matches_mxnet(name):
    lc.replay(name, hybridize=True)


@pytest.mark.parametrize("name", LAYERS)
def test_layer_names_shapes_and_repr(name):
    lc.check_structure(name)


@pytest.mark.parametrize("name", GRAPH_LAYERS)
def test_layer_symbolic_graph(name):
    """Operators and node names (``dense0_fwd``, ``dense0_relu_fwd``) of the traced graph."""
    assert lc.symbolic_nodes(name) == lc.CASES[name]["graph"]




# ----------------------------------------------------------------------------- containers
def _mlp(cls):
    with mx.name.NameManager():
        net = cls()
        with net.name_scope():
            net.add(nn.Dense(4, activation="relu"), nn.Dropout(0.5), nn.Dense(2))
    return net


@pytest.mark.parametrize("cls", [nn.Sequential, nn.HybridSequential])
def test_sequential_indexing_slicing_len(cls):
    net = _mlp(cls)
    assert len(net) == 3
    assert isinstance(net[0], nn.Dense) and net[-1] is net[2]
    tail = net[1:]
    assert type(tail) is cls and len(tail) == 2
    assert tail.prefix == net.prefix
    assert tail[0] is net[1] and tail[1] is net[2]
    assert list(tail.collect_params().keys()) == [net.prefix + "dense1_weight",
                                                  net.prefix + "dense1_bias"]


def test_sequential_hybridize_warns_when_all_children_hybrid():
    net = _mlp(nn.Sequential)
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        net.hybridize()


def test_sequential_of_hybrid_blocks_hybridizes_children():
    net = _mlp(nn.Sequential)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(0).uniform(size=(3, 5)))
    expected = net(x).asnumpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)


# ----------------------------------------------------------------------------- Dropout
def test_dropout_train_zeroes_and_rescales():
    x = mx.nd.ones((200, 50))
    layer = nn.Dropout(0.4)
    with autograd.record():
        y = layer(x).asnumpy()
    kept = y != 0
    assert 0.5 < kept.mean() < 0.7
    np.testing.assert_allclose(y[kept], 1 / 0.6, rtol=1e-6)
    np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())


def test_dropout_axes_share_the_mask():
    layer = nn.Dropout(0.5, axes=(1,))
    with autograd.record():
        y = layer(mx.nd.ones((40, 6, 3))).asnumpy()
    assert (y == y[:, :1, :]).all()


def test_dropout_hybridized_follows_the_mode():
    layer = nn.Dropout(0.5)
    layer.hybridize()
    x = mx.nd.ones((50, 40))
    np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())
    with autograd.record():
        y = layer(x).asnumpy()
    assert 0.3 < (y == 0).mean() < 0.7


# ----------------------------------------------------------------------------- misc layers
def test_lambda_and_hybrid_lambda_with_functions():
    x = mx.nd.array([[-1.0, 2.0], [3.0, -4.0]])

    def double_relu(F, x):
        return F.relu(x) * 2

    hl = nn.HybridLambda(double_relu)
    assert repr(hl) == "HybridLambda(double_relu)"
    np.testing.assert_array_equal(hl(x).asnumpy(), [[0, 4], [6, 0]])
    hl.hybridize()
    np.testing.assert_array_equal(hl(x).asnumpy(), [[0, 4], [6, 0]])
    lam = nn.Lambda(lambda a: a * 3)
    assert repr(lam) == "Lambda(<lambda>)"
    np.testing.assert_array_equal(lam(x).asnumpy(), x.asnumpy() * 3)


@pytest.mark.parametrize("make", [lambda: nn.Lambda(3), lambda: nn.HybridLambda(None)])
def test_lambda_rejects_non_functions(make):
    with pytest.raises(ValueError, match="Unrecognized function in lambda"):
        make()


@pytest.mark.parametrize("make, message", [
    (lambda: nn.LeakyReLU(-0.1), "no less than 0"),
    (lambda: nn.Conv1D(2, 3, layout="NWC"), "Only supports 'NCW' layout"),
    (lambda: nn.Conv2D(2, (3, 3, 3)), "kernel_size must be a number or a list of 2 ints"),
    (lambda: nn.MaxPool2D(layout="NCW"), "Only NCHW and NHWC layouts are valid for 2D Pooling"),
    (lambda: nn.Conv2DTranspose(2, 3, output_padding=(1, 1, 1)), "output_padding must be"),
    (lambda: nn.ReflectionPad2D((1, 2)), None),
])
def test_invalid_layer_arguments(make, message):
    with pytest.raises(AssertionError, match=message):
        make()


def test_layer_errors_name_the_operator():
    layer = nn.Dense(3, in_units=4)
    layer.initialize()
    with pytest.raises(mx.MXNetError):
        layer(mx.nd.ones((2, 5)))


def test_batchnorm_cast_float16_keeps_float32():
    layer = nn.BatchNorm(in_channels=2)
    layer.cast("float16")
    assert all(np.dtype(p.dtype) == np.float32 for p in layer.collect_params().values())
    dense = nn.Dense(2, in_units=2)
    dense.cast("float64")
    assert np.dtype(dense.weight.dtype) == np.float64


def test_sync_batchnorm_in_both_homes():
    assert nn.SyncBatchNorm is gluon.contrib.nn.SyncBatchNorm
    with pytest.warns(UserWarning, match="num_devices"):
        layer = gluon.contrib.nn.SyncBatchNorm()
    assert layer._kwargs["ndev"] == 1


def test_block_classes_reexported_from_nn():
    assert nn.Block is gluon.Block and nn.HybridBlock is gluon.HybridBlock
    assert nn.SymbolBlock is gluon.SymbolBlock


def test_deferred_conv_weight_shapes():
    conv = nn.Conv2D(6, 3, groups=3, layout="NCHW")
    assert conv.weight.shape == (6, 0, 3, 3)
    conv.initialize()
    conv(mx.nd.ones((1, 9, 5, 5)))
    assert conv.weight.shape == (6, 3, 3, 3)
    deconv = nn.Conv2DTranspose(4, (3, 2), groups=2, in_channels=6)
    assert deconv.weight.shape == (6, 2, 3, 2)
    nhwc = nn.Conv2D(8, (3, 2), layout="NHWC", in_channels=4)
    assert nhwc.weight.shape == (8, 3, 2, 4)


def test_hybrid_concurrent_export_roundtrip(tmp_path):
    with mx.name.NameManager():
        net = gluon.contrib.nn.HybridConcurrent(axis=1)
        with net.name_scope():
            net.add(nn.Dense(3), nn.Dense(2, activation="tanh"), gluon.contrib.nn.Identity())
    net.initialize()
    x = mx.nd.array(np.random.RandomState(1).uniform(size=(2, 4)))
    net.hybridize()
    expected = net(x).asnumpy()
    assert expected.shape == (2, 9)
    net.export(str(tmp_path / "concat"), epoch=3)
    loaded = gluon.SymbolBlock.imports(str(tmp_path / "concat-symbol.json"), ["data"],
                                       str(tmp_path / "concat-0003.params"))
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-6)
