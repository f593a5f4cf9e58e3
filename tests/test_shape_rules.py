"""The forward shape rules (``@shape_rule``, beside each operator) against the meta run they
replace and against MXNet's recorded outputs.

Every fixture op case and model is inferred twice, with the rules and with every rule but
RNN's switched off (meta tensors), and must give the same shapes and dtypes for every
entry of the graph; the outputs must have the shapes MXNet 1.9.1 recorded. Cases a rule
does not cover, and errors, must fall back to the meta run."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import neogluon as mx
from neogluon.operator import registry
from neogluon.symbol.infer import infer_graph

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "mxnet-1.9.1")
MANIFEST = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))
RULED = sorted(n for n in registry.list_operators() if registry.get(n).infer_shape_fn is not None and n != "RNN")


@pytest.fixture
def meta_only(monkeypatch):
    """Switch every shape rule but RNN's off (RNN has no meta kernels)."""
    def switch():
        for name in RULED:
            monkeypatch.setattr(registry.get(name), "infer_shape_fn", None)
    return switch


def _entries(sym, shapes, dtypes):
    g = infer_graph(sym, shapes, dtypes)
    return {(node.name, i): g.entry(node, i) for node in g.order
            for i in range(node.num_visible_outputs() if node.op is not None else 1)}


def _case_inputs(case):
    sym = mx.sym.load(os.path.join(FIXTURES, "ops", case + "-symbol.json"))
    data = np.load(os.path.join(FIXTURES, "ops", case + ".npz"))
    shapes = {k[3:]: data[k].shape for k in data.files if k.startswith("in:")}
    dtypes = {k[3:]: data[k].dtype for k in data.files if k.startswith("in:")}
    outs = [data["out:%d" % i].shape for i in range(sum(k.startswith("out:") for k in data.files))]
    return sym, shapes, dtypes, outs


def test_the_common_layers_have_rules():
    for name in ("FullyConnected", "Convolution", "Pooling", "Activation", "BatchNorm", "Dropout", "Flatten",
                 "Reshape", "Concat", "Embedding", "relu", "broadcast_add", "_plus_scalar", "sum", "softmax"):
        assert registry.get(name).infer_shape_fn is not None, name


@pytest.mark.parametrize("case", sorted(MANIFEST["ops"]))
def test_rules_agree_with_meta_and_mxnet(case, meta_only):
    sym, shapes, dtypes, recorded = _case_inputs(case)
    ruled = _entries(sym, shapes, dtypes)
    out_shapes = sym.infer_shape(**shapes)[1]
    assert [tuple(s) for s in out_shapes] == [tuple(s) for s in recorded]
    meta_only()
    assert ruled == _entries(sym, shapes, dtypes)


@pytest.mark.parametrize("model", sorted(MANIFEST["models"]))
def test_rules_agree_with_meta_on_models(model, meta_only):
    sym = mx.sym.load(os.path.join(FIXTURES, "models", model + "-symbol.json"))
    io = np.load(os.path.join(FIXTURES, "models", model + "-io.npz"))
    names = [a for a in sym.list_arguments() if a == "data" or a[4:].isdigit() and a.startswith("data")]
    shapes = {n: io["data:%d" % i].shape for i, n in enumerate(names) if "data:%d" % i in io.files}
    ruled = _entries(sym, shapes, {})
    meta_only()
    assert ruled == _entries(sym, shapes, {})


@pytest.mark.parametrize("build,shapes", [
    (lambda x: mx.sym.Convolution(x, kernel=(3, 5), stride=(2, 1), dilate=(1, 2), pad=(1, 0), num_filter=4,
                                  num_group=2, name="c"), {"x": (2, 6, 11, 13)}),
    (lambda x: mx.sym.Convolution(x, kernel=(3,), num_filter=3, no_bias=True, name="c"), {"x": (2, 4, 9)}),
    (lambda x: mx.sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                              pooling_convention="full"), {"x": (1, 2, 10, 9)}),
    (lambda x: mx.sym.Pooling(x, global_pool=True, kernel=(1, 1), pool_type="max"), {"x": (2, 3, 5, 4, 3)}),
    (lambda x: mx.sym.FullyConnected(x, num_hidden=5, flatten=False, name="f"), {"x": (2, 3, 4)}),
    (lambda x: mx.sym.broadcast_mul(x, mx.sym.var("y")), {"x": (3, 1, 4), "y": (5, 1)}),
    (lambda x: mx.sym.sum(x, axis=(0, 2), keepdims=True), {"x": (2, 3, 4)}),
    (lambda x: mx.sym.max(x, axis=1, exclude=True), {"x": (2, 3, 4)}),
    (lambda x: mx.sym.Concat(x, mx.sym.var("y"), dim=-1), {"x": (2, 3), "y": (2, 5)}),
    (lambda x: mx.sym.dot(x, mx.sym.var("y"), transpose_a=True), {"x": (4, 3), "y": (4, 2)}),
    (lambda x: mx.sym.transpose(mx.sym.expand_dims(x, axis=-1), axes=(2, 0, 1)), {"x": (2, 3)}),
    (lambda x: mx.sym.Reshape(x, shape=(-1, 0), reverse=True), {"x": (2, 3, 4)}),
    (lambda x: mx.sym.Embedding(x, input_dim=10, output_dim=6, name="e"), {"x": (2, 3)}),
    (lambda x: mx.sym.BatchNorm(x, output_mean_var=True, name="bn"), {"x": (2, 3, 4)}),  # not covered: meta
    (lambda x: mx.sym.Pooling(x, kernel=(2, 2), layout="NHWC"), {"x": (1, 6, 6, 2)}),  # not covered: meta
])
def test_rules_agree_with_meta_on_geometries(build, shapes, meta_only):
    sym = build(mx.sym.var("x"))
    ruled = _entries(sym, shapes, {})
    meta_only()
    assert ruled == _entries(sym, shapes, {})


@pytest.mark.parametrize("build,dtype", [
    (lambda x: mx.sym.Embedding(x, input_dim=10, output_dim=6, name="e"), "int32"),
    (lambda x: mx.sym.Embedding(x, input_dim=10, output_dim=6, dtype="float16", name="e"), "float32"),
    (lambda x: mx.sym.softmax(x, dtype="float64"), "float32"),
    (lambda x: mx.sym.softmax(x), "float16"),
    (lambda x: mx.sym.sum(x, axis=1), "int32"),
    (lambda x: mx.sym.broadcast_greater(x, x), "int64"),
    (lambda x: mx.sym.BatchNorm(x, name="bn"), "float16"),
])
def test_rules_agree_with_meta_on_dtypes(build, dtype, meta_only):
    sym = build(mx.sym.var("x"))
    shapes, dtypes = {"x": (2, 3)}, {"x": np.dtype(dtype)}
    ruled = _entries(sym, shapes, dtypes)
    meta_only()
    assert ruled == _entries(sym, shapes, dtypes)


def test_errors_still_come_from_the_checked_operator():
    x = mx.sym.var("x")
    fc = mx.sym.FullyConnected(x, num_hidden=5, name="fc")
    with pytest.raises(mx.MXNetError, match="fc"):  # the given weight disagrees with the data
        fc.infer_shape(x=(2, 3), fc_weight=(5, 4))
    with pytest.raises(mx.MXNetError, match="broadcast_add"):
        mx.sym.broadcast_add(x, mx.sym.var("y")).infer_shape(x=(2, 3), y=(4, 3))
    with pytest.raises(mx.MXNetError, match="exceeds"):
        mx.sym.Pooling(x, kernel=(5, 5)).infer_shape(x=(1, 1, 3, 3))


def test_first_call_of_a_deferred_init_cnn_needs_no_meta_run():
    """The rules cover a usual CNN, so its first call imports neither sympy nor
    torch._dynamo (the meta run's first use costs 1 to 2 seconds)."""
    code = ("import sys, neogluon as mx\n"
            "from neogluon.gluon import nn\n"
            "net = nn.HybridSequential()\n"
            "net.add(nn.Conv2D(6, 5), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2), nn.Flatten(),\n"
            "        nn.Dense(10), nn.Dropout(0.5), nn.Dense(2))\n"
            "net.initialize()\n"
            "x = mx.nd.ones((2, 1, 28, 28))\n"
            "net(x)\n"
            "net.hybridize()\n"
            "net(x)\n"
            "print(sorted(m for m in ('sympy', 'torch._dynamo') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_weight_that_disagrees_with_the_data_is_an_error():
    x = mx.sym.var("x")
    conv = mx.sym.Convolution(x, kernel=(5, 5), num_filter=6, name="conv")
    with pytest.raises(mx.MXNetError, match="conv"):
        conv.infer_shape(x=(1, 3, 28, 28), conv_weight=(6, 1, 5, 5), conv_bias=(6,))
    bn = mx.sym.BatchNorm(x, name="bn")
    with pytest.raises(mx.MXNetError, match="bn"):
        bn.infer_shape(x=(2, 3, 4), bn_gamma=(4,))


def test_embedding_weight_takes_the_dtype_attribute():
    """As MXNet 1.9.1's infer_type (side venv): the weight and the output are ``dtype``."""
    emb = mx.sym.Embedding(mx.sym.var("x"), input_dim=10, output_dim=6, dtype="float16", name="e")
    assert emb.infer_type(x="float32") == ([np.float32, np.float16], [np.float16], [])
    emb = mx.sym.Embedding(mx.sym.var("x"), input_dim=10, output_dim=6, name="e")
    assert emb.infer_type(x="int32") == ([np.int32, np.float32], [np.float32], [])
