"""``mx.contrib.onnx``: ONNX files written by MXNet 1.9.1's own exporter import and give
MXNet's recorded outputs (``tools/make_extra_fixtures_onnx.py``); neogluon's exports of
every operator case, an LSTM language model and a BERT-style encoder import back (opsets
11, 13, 17) and give neogluon's outputs; metadata and errors."""
import json
import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402
from neogluon.base import MXNetError  # noqa: E402
from neogluon.contrib.onnx.onnx2mx.import_model import import_model, get_model_metadata  # noqa: E402
from neogluon.contrib.onnx.onnx2mx.import_to_gluon import import_to_gluon  # noqa: E402
import onnx_cases  # noqa: E402
from onnx_nets import Encoder, LanguageModel  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "onnx")
MXNET_FILES = sorted(f[:-5] for f in os.listdir(FIXTURES) if f.endswith(".onnx"))


def _run_symbol(path, inputs):
    sym, arg, aux = import_model(path)
    names = [n for n, _, _ in get_model_metadata(path)["input_tensor_data"]]
    feeds = {n: mx.nd.array(x, dtype=x.dtype) for n, x in zip(names, inputs)}
    ex = sym.bind(mx.cpu(), dict(arg, **feeds), aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in ex.forward(is_train=False)]


def _run_gluon(path, inputs):
    net = import_to_gluon(path, mx.cpu())
    out = net(*[mx.nd.array(x, dtype=x.dtype) for x in inputs])
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _close(got, want, rtol=1e-4):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        scale = max(float(np.abs(w).max()), 1e-3) if w.size else 1.0
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("name", MXNET_FILES)
def test_mxnet_exports_import(name):
    ref = np.load(os.path.join(FIXTURES, name.rsplit("_opset", 1)[0] + ".npz"))
    inputs = [ref["in%d" % i] for i in range(sum(k.startswith("in") for k in ref.files))]
    want = [ref["out%d" % i] for i in range(sum(k.startswith("out") for k in ref.files))]
    path = os.path.join(FIXTURES, name + ".onnx")
    _close(_run_symbol(path, inputs), want)
    _close(_run_gluon(path, inputs), want)


@pytest.mark.parametrize("name", MXNET_FILES)
def test_metadata_as_mxnet(name):
    with open(os.path.join(FIXTURES, "metadata.json")) as f:
        want = json.load(f)[name]
    got = get_model_metadata(os.path.join(FIXTURES, name + ".onnx"))
    assert {k: [[list(x) if isinstance(x, tuple) else x for x in t] for t in v] for k, v in got.items()} == want


def test_import_model_splits_aux_params():
    sym, arg, aux = import_model(os.path.join(FIXTURES, "cnn_opset13.onnx"))
    assert set(aux) == set(sym.list_auxiliary_states()) and aux
    assert all("running" in n for n in aux)
    assert set(arg) == set(sym.list_arguments()) - {"data"}


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("name,fn,specs", onnx_cases.CASES, ids=[c[0] for c in onnx_cases.CASES])
def test_operator_round_trip(name, fn, specs, opset, tmp_path):
    sym, arrays, params, order = onnx_cases.build(fn, specs)
    want = onnx_cases.reference(sym, arrays, params)
    path = mx.onnx.export_model(sym, params, [arrays[n].shape for n in order], [arrays[n].dtype for n in order],
                                str(tmp_path / "m.onnx"), opset_version=opset)
    got = _run_symbol(path, [arrays[n] for n in order])
    _close([g.astype(w.dtype) for g, w in zip(got, want)], want)


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("mode,bidirectional", [("lstm", False), ("lstm", True), ("gru", False), ("rnn", True)])
def test_language_model_round_trip(mode, bidirectional, opset, tmp_path):
    net = LanguageModel(mode, bidirectional=bidirectional)
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).randint(0, 50, (7, 3)).astype(np.float32))
    want = [net(x).asnumpy()]
    path = mx.onnx.export_block(net, str(tmp_path / "lm.onnx"), in_shapes=[x.shape], opset_version=opset)
    sym, _, _ = import_model(path)
    assert any(n["op"] == "RNN" for n in json.loads(sym.tojson())["nodes"])
    _close(_run_symbol(path, [x.asnumpy()]), want)
    _close(_run_gluon(path, [x.asnumpy()]), want)


@pytest.mark.parametrize("opset", [11, 13, 17])
def test_encoder_round_trip(opset, tmp_path):
    net = Encoder()
    net.initialize(mx.init.Normal(0.2))
    net.hybridize()
    tokens = np.random.RandomState(2).randint(0, 100, (2, 9)).astype(np.float32)
    valid = np.array([9, 4], np.float32)
    want = [o.asnumpy() for o in net(mx.nd.array(tokens), mx.nd.array(valid))]
    path = mx.onnx.export_block(net, str(tmp_path / "enc.onnx"), in_shapes=[tokens.shape, valid.shape],
                                opset_version=opset)
    _close(_run_symbol(path, [tokens, valid]), want)
    _close(_run_gluon(path, [tokens, valid]), want)


def test_contrib_functions_print_notice(capsys):
    path = os.path.join(FIXTURES, "cnn_opset12.onnx")
    mx.contrib.onnx.get_model_metadata(path)
    sym, _, _ = mx.contrib.onnx.import_model(path)
    out = capsys.readouterr().out
    assert "Calling mxnet.contrib.onnx.get_model_metadata..." in out
    assert "Calling mxnet.contrib.onnx.import_model..." in out
    assert "deprecated in the upcoming MXNet v1.10 release" in out
    assert isinstance(sym, mx.sym.Symbol)


def _single_node_model(tmp_path, node, inputs, outputs, opset=13):
    helper = onnx.helper
    graph = helper.make_graph([node], "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    return path


def test_unknown_operator_is_named(tmp_path):
    helper = onnx.helper
    f = onnx.TensorProto.FLOAT
    path = _single_node_model(tmp_path, helper.make_node("Det", ["x"], ["y"]),
                              [helper.make_tensor_value_info("x", f, [3, 3])],
                              [helper.make_tensor_value_info("y", f, [])])
    with pytest.raises(NotImplementedError, match="Operator Det not implemented"):
        import_model(path)


def test_untranslatable_attribute_is_named(tmp_path):
    helper = onnx.helper
    f = onnx.TensorProto.FLOAT
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], pads=[0, 0, 1, 1])
    path = _single_node_model(tmp_path, node, [helper.make_tensor_value_info("x", f, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info("y", f, [1, 1, 4, 4])])
    with pytest.raises(MXNetError, match="MaxPool node pool: asymmetric pads"):
        import_model(path)


def test_corrupt_file_is_named(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08\x07not a protobuf at all")
    with pytest.raises(Exception, match="broken.onnx"):
        import_model(str(path))


@pytest.mark.parametrize("name", ["resnet18_v1", "mobilenetv2_0.25"])
def test_model_zoo_round_trip(name, tmp_path):
    from neogluon.gluon.model_zoo import vision  # pylint: disable=import-outside-toplevel
    net = vision.get_model(name)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    want = [net(mx.nd.array(x)).asnumpy()]
    path = mx.onnx.export_block(net, str(tmp_path / "z.onnx"), in_shapes=[x.shape])
    _close(_run_gluon(path, [x]), want)


class _TorchNet:
    """A torch network of common layers, exported by torch's own ONNX exporter."""

    @staticmethod
    def make():
        import torch  # pylint: disable=import-outside-toplevel
        F = torch.nn.functional

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
                self.bn = torch.nn.BatchNorm2d(8)
                self.fc = torch.nn.Linear(8 * 4 * 4, 10)
                self.ln = torch.nn.LayerNorm(10)
                self.lstm = torch.nn.LSTM(10, 12)

            def forward(self, x):
                x = F.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
                x = F.adaptive_avg_pool2d(x, 4).flatten(1)
                x = self.ln(F.gelu(self.fc(x)))
                y, _ = self.lstm(x.unsqueeze(0).repeat(3, 1, 1))
                return torch.softmax(y.reshape(y.shape[0], -1), dim=-1)
        torch.manual_seed(0)
        return Net().eval()


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("opset", [11, 13, 17])
def test_torch_exported_model_imports(opset, tmp_path):
    """Files from another exporter (torch.onnx, TorchScript path): shape arithmetic
    (Shape/Gather/Concat feeding a Reshape) is folded, LSTM, LayerNorm and GELU import."""
    import torch  # pylint: disable=import-outside-toplevel
    net = _TorchNet.make()
    x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        want = [net(x).numpy()]
    path = str(tmp_path / "t.onnx")
    torch.onnx.export(net, (x,), path, opset_version=opset, dynamo=False, input_names=["x"])
    _close(_run_gluon(path, [x.numpy()]), want)


def test_round_is_half_to_even(tmp_path):
    helper = onnx.helper
    f = onnx.TensorProto.FLOAT
    path = _single_node_model(tmp_path, helper.make_node("Round", ["x"], ["y"]),
                              [helper.make_tensor_value_info("x", f, [6])], [helper.make_tensor_value_info("y", f, [6])])
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.7], np.float32)
    np.testing.assert_array_equal(_run_gluon(path, [x])[0], np.round(x))
