"""``mx.onnx.export_model``: single operators, the model zoo, an LSTM language model and a
BERT-style encoder exported, checked by ``onnx.checker`` and run in ONNX Runtime against
neogluon's own outputs (rtol 1e-4); the signature's forms (files, dicts, dynamic shapes)
and the errors."""
import builtins
import logging

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402
from neogluon.base import MXNetError  # noqa: E402
from neogluon.gluon.model_zoo import vision  # noqa: E402
import onnx_cases  # noqa: E402
from zoo_inputs import zoo_side  # noqa: E402
from onnx_nets import Encoder, LanguageModel, ort_run  # noqa: E402


def _close(got, want, rtol=1e-4):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        scale = max(float(np.abs(w).max()), 1e-3) if w.size else 1.0
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=rtol * scale)


def _export_case(fn, specs, opset, path):
    sym, arrays, params, order = onnx_cases.build(fn, specs)
    want = onnx_cases.reference(sym, arrays, params)
    mx.onnx.export_model(sym, params, [arrays[n].shape for n in order], [arrays[n].dtype for n in order],
                         str(path), opset_version=opset)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    return want, [arrays[n] for n in order]


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("name,fn,specs", onnx_cases.CASES, ids=[c[0] for c in onnx_cases.CASES])
def test_operator_exports(name, fn, specs, opset, tmp_path):
    want, inputs = _export_case(fn, specs, opset, tmp_path / "m.onnx")
    got = ort_run(str(tmp_path / "m.onnx"), inputs)
    _close([np.asarray(g) for g in got], want)


# the operators whose ONNX form changes at opset 18 (reductions' axes as an input, Split)
OPSET18 = [c for c in onnx_cases.CASES if c[0] in {"sum", "sum_all", "mean_keep", "max_exclude", "min", "prod", "norm",
                                                    "split", "split_squeeze", "layernorm_axis1", "l2norm",
                                                    "arange_like_all", "expand_dims", "squeeze"}]


@pytest.mark.parametrize("name,fn,specs", OPSET18, ids=[c[0] for c in OPSET18])
def test_operator_exports_opset18(name, fn, specs, tmp_path):
    test_operator_exports(name, fn, specs, 18, tmp_path)


def _params(net, seed=3):
    """Every parameter re-drawn so that outputs are far from zero (BatchNorm statistics included)."""
    rng = np.random.RandomState(seed)
    for p in net.collect_params().values():
        shape = p.shape
        if p.name.endswith(("running_var", "gamma")):
            value = rng.uniform(0.5, 1.5, shape)
        elif p.name.endswith(("running_mean", "beta", "bias")):
            value = rng.uniform(-0.2, 0.2, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            value = rng.normal(0, np.sqrt(2.0 / fan_in), shape)
        p.set_data(mx.nd.array(value.astype(np.float32)))


def _zoo(name, tmp_path, batch=1):
    size = zoo_side(name)
    net = vision.get_model(name)
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (batch, 3, size, size)).astype(np.float32))
    net(x)
    _params(net)
    want = net(x).asnumpy()
    path = mx.onnx.export_block(net, str(tmp_path / (name + ".onnx")), in_shapes=[x.shape])
    onnx.checker.check_model(path, full_check=True)
    _close([ort_run(path, [x.asnumpy()])[0]], [want])


FAST_ZOO = ["resnet18_v1", "mobilenetv2_0.25", "squeezenet1.1"]
SLOW_ZOO = [n for n in vision._models if n not in FAST_ZOO]  # pylint: disable=protected-access


@pytest.mark.parametrize("name", FAST_ZOO)
def test_model_zoo_exports(name, tmp_path):
    _zoo(name, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_ZOO)
def test_model_zoo_exports_all(name, tmp_path):
    _zoo(name, tmp_path)


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("mode,bidirectional", [("lstm", False), ("lstm", True), ("gru", True), ("rnn", False)])
def test_language_model_exports(mode, bidirectional, opset, tmp_path):
    net = LanguageModel(mode, bidirectional=bidirectional)
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).randint(0, 50, (7, 3)).astype(np.float32))
    want = net(x).asnumpy()
    path = mx.onnx.export_block(net, str(tmp_path / "lm.onnx"), in_shapes=[x.shape], opset_version=opset)
    kinds = {n.op_type for n in onnx.load(path).graph.node}
    assert {"lstm": "LSTM", "gru": "GRU", "rnn": "RNN"}[mode] in kinds
    _close([ort_run(path, [x.asnumpy()])[0]], [want])


@pytest.mark.parametrize("opset", [11, 13, 17])
def test_encoder_exports(opset, tmp_path):
    net = Encoder()
    net.initialize(mx.init.Normal(0.2))
    net.hybridize()
    tokens = mx.nd.array(np.random.RandomState(2).randint(0, 100, (2, 9)).astype(np.float32))
    valid = mx.nd.array([9, 4])
    want = [o.asnumpy() for o in net(tokens, valid)]
    path = mx.onnx.export_block(net, str(tmp_path / "enc.onnx"), in_shapes=[tokens.shape, valid.shape],
                                opset_version=opset)
    onnx.checker.check_model(path, full_check=True)
    kinds = {n.op_type for n in onnx.load(path).graph.node}
    assert ("LayerNormalization" in kinds) == (opset >= 17)
    _close([np.asarray(o) for o in ort_run(path, [tokens.asnumpy(), valid.asnumpy()])], want)


def test_node_names_are_mxnet_names(tmp_path):
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(mx.sym.Activation(x, act_type="relu", name="act"), num_hidden=3, name="dense")
    params = {"dense_weight": np.ones((3, 4), np.float32), "dense_bias": np.zeros(3, np.float32)}
    path = mx.onnx.export_model(y, params, [(2, 4)], onnx_file_path=str(tmp_path / "m.onnx"))
    graph = onnx.load(path).graph
    assert [n.name for n in graph.node] == ["act", "dense"]
    assert [i.name for i in graph.input] == ["data"]
    assert sorted(i.name for i in graph.initializer) == ["dense_bias", "dense_weight"]
    assert [o.name for o in graph.output] == ["dense"]


def test_export_from_files_and_param_forms(tmp_path):
    net = vision.get_model("mobilenet0.25")
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32))
    net(x)
    _params(net)
    want = net(x).asnumpy()
    net.export(str(tmp_path / "sq"))
    sym_file, params_file = str(tmp_path / "sq-symbol.json"), str(tmp_path / "sq-0000.params")
    a = mx.onnx.export_model(sym_file, params_file, [x.shape], np.float32, str(tmp_path / "a.onnx"))
    sym = mx.sym.load(sym_file)
    saved = mx.nd.load(params_file)
    arg = {k[4:]: v for k, v in saved.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    b = mx.onnx.export_model(sym, [arg, aux], input_shape=[x.shape], input_type=[np.float32],
                             onnx_file_path=str(tmp_path / "b.onnx"), run_shape_inference=True)
    for path in (a, b):
        _close([ort_run(path, [x.asnumpy()])[0]], [want])
    assert len(onnx.load(b).graph.value_info) > 0  # shape inference ran


def test_dynamic_batch(tmp_path):
    net = vision.get_model("resnet18_v1")
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (3, 3, 64, 64)).astype(np.float32))
    net(x)
    _params(net)
    path = mx.onnx.export_block(net, str(tmp_path / "r.onnx"), in_shapes=[(1, 3, 64, 64)], dynamic=True,
                                dynamic_input_shapes=[(None, 3, 64, 64)])
    dims = onnx.load(path).graph.input[0].type.tensor_type.shape.dim
    assert not dims[0].HasField("dim_value") and dims[1].dim_value == 3
    _close([ort_run(path, [x.asnumpy()])[0]], [net(x).asnumpy()])


def test_contrib_export_model_prints_notice(tmp_path, capsys):
    x = mx.sym.var("x")
    path = mx.contrib.onnx.export_model(mx.sym.relu(x), {}, [(2,)], onnx_file_path=str(tmp_path / "r.onnx"))
    assert "Calling mxnet.contrib.onnx.export_model..." in capsys.readouterr().out
    np.testing.assert_array_equal(ort_run(path, [np.array([-1, 2], np.float32)])[0], [0, 2])


def test_get_operator_support():
    ops = mx.onnx.get_operator_support()
    assert ops == sorted(ops)
    assert {"Convolution", "BatchNorm", "RNN", "LayerNorm", "batch_dot", "Embedding"} <= set(ops)


def test_unsupported_operator_names_it(tmp_path):
    x = mx.sym.var("x")
    with pytest.raises(MXNetError, match=r"no converter for operator _linalg_potrf \(node chol\)"):
        mx.onnx.export_model(mx.sym.linalg.potrf(x, name="chol"), {}, [(3, 3)],
                             onnx_file_path=str(tmp_path / "m.onnx"))


def test_unsupported_attribute_names_node(tmp_path):
    x = mx.sym.var("x")
    y = mx.sym.LayerNorm(x, mx.sym.var("g"), mx.sym.var("b"), output_mean_var=True, name="ln")
    with pytest.raises(MXNetError, match="operator LayerNorm \\(node ln\\): output_mean_var"):
        mx.onnx.export_model(y, {"g": np.ones(3, np.float32), "b": np.zeros(3, np.float32)}, [(2, 3)],
                             onnx_file_path=str(tmp_path / "m.onnx"))


def test_input_shape_count_and_opset_errors(tmp_path):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    with pytest.raises(MXNetError, match="2 input\\(s\\).*\\(a, b\\).*1 shape"):
        mx.onnx.export_model(a + b, {}, [(2,)], onnx_file_path=str(tmp_path / "m.onnx"))
    with pytest.raises(MXNetError, match="opset_version 9 is not supported"):
        mx.onnx.export_model(a + b, {}, [(2,), (2,)], onnx_file_path=str(tmp_path / "m.onnx"), opset_version=9)
    with pytest.raises(MXNetError, match="set dynamic=True"):
        mx.onnx.export_model(a + b, {}, [(2,), (2,)], onnx_file_path=str(tmp_path / "m.onnx"),
                             dynamic_input_shapes=[(None,), (None,)])
    with pytest.raises(ValueError, match="either be files or objects"):
        mx.onnx.export_model(a + b, 3, [(2,), (2,)], onnx_file_path=str(tmp_path / "m.onnx"))


def test_missing_onnx_names_the_extra(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_onnx(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_onnx)
    with pytest.raises(ImportError, match=r"neogluon\[onnx\]"):
        mx.onnx.export_model(mx.sym.relu(mx.sym.var("x")), {}, [(2,)], onnx_file_path=str(tmp_path / "m.onnx"))


def test_verbose_logs_each_node(tmp_path, caplog):
    x = mx.sym.var("x")
    with caplog.at_level(logging.INFO):
        mx.onnx.export_model(mx.sym.relu(x, name="r"), {}, [(2,)], onnx_file_path=str(tmp_path / "m.onnx"),
                             verbose=True)
    assert "op: relu, name: r" in caplog.text


def test_dynamic_sequence_and_batch(tmp_path):
    """A language model exported with every input dimension free runs other lengths and batches."""
    net = LanguageModel("lstm", bidirectional=True)
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    net(mx.nd.zeros((7, 3)))
    path = mx.onnx.export_block(net, str(tmp_path / "lm.onnx"), in_shapes=[(7, 3)], dynamic=True)
    x = mx.nd.array(np.random.RandomState(4).randint(0, 50, (4, 5)).astype(np.float32))
    _close([ort_run(path, [x.asnumpy()])[0]], [net(x).asnumpy()])


def test_load_module_reads_a_checkpoint(tmp_path):
    from neogluon.onnx.mx2onnx._export_helper import load_module  # pylint: disable=import-outside-toplevel
    net = mx.gluon.nn.BatchNorm(in_channels=2)
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 2)))
    net.export(str(tmp_path / "bn"))
    sym, params = load_module(str(tmp_path / "bn-symbol.json"), str(tmp_path / "bn-0000.params"))
    assert sorted(params) == sorted(sym.list_arguments()[1:] + sym.list_auxiliary_states())
    with pytest.raises(ValueError, match="files provided are invalid"):
        load_module(str(tmp_path / "missing-symbol.json"), str(tmp_path / "bn-0000.params"))


DYNAMIC = [c for c in onnx_cases.CASES if c[0] in {"reshape", "reshape_codes", "reshape_split", "broadcast_to",
                                                     "broadcast_axis", "broadcast_like", "arange_like", "expand_dims"}]


@pytest.mark.parametrize("name,fn,specs", DYNAMIC, ids=[c[0] for c in DYNAMIC])
def test_dynamic_shape_forms(name, fn, specs, tmp_path):
    """With dynamic=True, Reshape's special codes and the broadcasts compute their shapes in the graph."""
    sym, arrays, params, order = onnx_cases.build(fn, specs)
    want = onnx_cases.reference(sym, arrays, params)
    path = mx.onnx.export_model(sym, params, [arrays[n].shape for n in order], [arrays[n].dtype for n in order],
                                str(tmp_path / "m.onnx"), dynamic=True)
    onnx.checker.check_model(path, full_check=True)
    _close([np.asarray(g) for g in ort_run(path, [arrays[n] for n in order])], want)


def test_encoder_dynamic_batch_and_length(tmp_path):
    net = Encoder()
    net.initialize(mx.init.Normal(0.2))
    net.hybridize()
    net(mx.nd.zeros((2, 9)), mx.nd.array([9, 4]))
    path = mx.onnx.export_block(net, str(tmp_path / "enc.onnx"), in_shapes=[(2, 9), (2,)], dynamic=True)
    rng = np.random.RandomState(5)
    for batch, length in [(3, 5), (1, 12)]:
        tokens = rng.randint(0, 100, (batch, length)).astype(np.float32)
        valid = rng.randint(1, length + 1, (batch,)).astype(np.float32)
        want = [o.asnumpy() for o in net(mx.nd.array(tokens), mx.nd.array(valid))]
        _close([np.asarray(o) for o in ort_run(path, [tokens, valid])], want)


@pytest.mark.parametrize("mode,bidirectional", [("lstm", False), ("lstm", True), ("gru", True), ("rnn_tanh", False)])
def test_rnn_sequence_length(mode, bidirectional, tmp_path):
    """``use_sequence_length`` as ONNX's ``sequence_lens``: MXNet's cuDNN semantics (outputs
    past a sequence's end are zero, final states from its last step, the reverse direction
    starting there; MXNet 1.9.1's CPU kernel ignores the lengths), checked against
    neogluon's kernel with those semantics (``rnn_forward``, what runs on a GPU)."""
    import torch  # pylint: disable=import-outside-toplevel
    S = mx.sym
    from neogluon.operator.rnn import rnn_forward  # pylint: disable=import-outside-toplevel
    dirs = 2 if bidirectional else 1
    kw = dict(data=S.var("x"), parameters=S.var("p"), state=S.var("h"), sequence_length=S.var("n"))
    if mode == "lstm":
        kw["state_cell"] = S.var("c")
    attrs = dict(mode=mode, state_size=5, num_layers=2, bidirectional=bidirectional)
    sym = S.Group(list(S.RNN(**kw, use_sequence_length=True, state_outputs=True, **attrs)))
    rng = np.random.RandomState(0)
    arrays = {"x": rng.uniform(-1, 1, (6, 3, 3)).astype(np.float32), "n": np.array([6, 2, 4], np.float32)}
    states = {k: rng.uniform(-1, 1, (2 * dirs, 3, 5)).astype(np.float32) for k in (["h", "c"] if mode == "lstm"
                                                                                  else ["h"])}
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(x=(6, 3, 3), n=(3,), **{k: v.shape for k, v in
                                                                                     states.items()})[0]))
    params = dict(states, p=rng.uniform(-0.5, 0.5, shapes["p"]).astype(np.float32))
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, params, [(6, 3, 3), (3,)], [np.float32, np.float32], path)
    onnx.checker.check_model(path, full_check=True)
    t = {k: torch.from_numpy(v) for k, v in dict(params, **arrays).items()}
    out, finals = rnn_forward(t["x"], t["p"], t["h"], t.get("c"), t["n"], **attrs)
    want = [out.numpy()] + [f.numpy() for f in finals]
    got = ort_run(path, [arrays["x"], arrays["n"]])
    assert not want[0][4:, 1].any()               # zeros past the second sequence's end
    _close([np.asarray(g) for g in got], want)


@pytest.mark.parametrize("bidirectional,lengths,opset", [(False, False, 13), (True, False, 11), (True, False, 17),
                                                         (False, True, 13), (True, True, 17)])
def test_lstm_projection(bidirectional, lengths, opset, tmp_path):
    """An LSTM with ``projection_size`` (no ONNX operator): a ``Scan`` per layer and direction,
    MXNet's gate order and the projection in its body; with ``use_sequence_length``, MXNet's
    cuDNN semantics (zeros past a sequence's end, final states from its last step, the reverse
    direction starting there), checked against neogluon's ``rnn_forward`` with lengths."""
    import torch  # pylint: disable=import-outside-toplevel
    from neogluon.operator.rnn import rnn_forward  # pylint: disable=import-outside-toplevel
    S = mx.sym
    dirs = 2 if bidirectional else 1
    kw = dict(data=S.var("x"), parameters=S.var("p"), state=S.var("h"), state_cell=S.var("c"))
    if lengths:
        kw["sequence_length"] = S.var("n")
    attrs = dict(mode="lstm", state_size=6, num_layers=2, bidirectional=bidirectional, projection_size=4)
    sym = S.Group(list(S.RNN(**kw, use_sequence_length=lengths, state_outputs=True, **attrs)))
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (5, 3, 3)).astype(np.float32)
    n = np.array([5, 2, 3], np.float32)
    states = {"h": rng.uniform(-1, 1, (2 * dirs, 3, 4)).astype(np.float32),
              "c": rng.uniform(-1, 1, (2 * dirs, 3, 6)).astype(np.float32)}
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(x=x.shape, h=(2 * dirs, 3, 4), c=(2 * dirs, 3, 6),
                                                            **({"n": (3,)} if lengths else {}))[0]))
    params = dict(states, p=rng.uniform(-0.5, 0.5, shapes["p"]).astype(np.float32))
    path = str(tmp_path / "m.onnx")
    ins = [x] + ([n] if lengths else [])
    mx.onnx.export_model(sym, params, [i.shape for i in ins], [np.float32] * len(ins), path, opset_version=opset)
    onnx.checker.check_model(path, full_check=True)
    if lengths:
        t = {k: torch.from_numpy(v) for k, v in dict(params, x=x, n=n).items()}
        out, finals = rnn_forward(t["x"], t["p"], t["h"], t["c"], t["n"], **attrs)
        want = [out.numpy()] + [f.numpy() for f in finals]
        assert not want[0][2:, 1].any()          # zeros past the second sequence's end
    else:
        args = {k: mx.nd.array(v) for k, v in dict(params, x=x).items()}
        want = [o.asnumpy() for o in sym.bind(mx.cpu(), args, grad_req="null").forward()]
    assert want[0].shape == (5, 3, 4 * dirs) and want[1].shape == (2 * dirs, 3, 4) and want[2].shape == (2 * dirs, 3, 6)
    _close([np.asarray(g) for g in ort_run(path, ins)], want)


def test_gluon_lstm_projection_dynamic(tmp_path):
    """gluon.rnn.LSTM(projection_size=...) with its begin states, exported with a free batch and length."""
    net = mx.gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, projection_size=3, input_size=4)
    net.initialize(mx.init.Uniform(0.5))
    net.hybridize()
    rng = np.random.RandomState(2)

    def inputs(steps, batch):
        return [rng.uniform(-1, 1, shape).astype(np.float32) for shape in [(steps, batch, 4), (4, batch, 3),
                                                                             (4, batch, 6)]]
    first = inputs(5, 2)
    net(mx.nd.array(first[0]), [mx.nd.array(a) for a in first[1:]])
    path = mx.onnx.export_block(net, str(tmp_path / "lstmp.onnx"), in_shapes=[a.shape for a in first], dynamic=True)
    onnx.checker.check_model(path, full_check=True)
    for arrays in (first, inputs(7, 3)):
        out, states = net(mx.nd.array(arrays[0]), [mx.nd.array(a) for a in arrays[1:]])
        _close([np.asarray(g) for g in ort_run(path, arrays)], [out.asnumpy()] + [s.asnumpy() for s in states])


def test_mxnet_lstm_projection_model(tmp_path):
    """MXNet 1.9.1's own exported LSTMP layer (tests/fixtures/mxnet-1.9.1/models, zero begin
    states) exported to ONNX: ONNX Runtime gives MXNet's recorded output."""
    import os  # pylint: disable=import-outside-toplevel
    base = os.path.join(os.path.dirname(__file__), "fixtures", "mxnet-1.9.1", "models", "lstm_projection_layer")
    io = np.load(base + "-io.npz")
    sym = mx.sym.load(base + "-symbol.json")
    params = {k.split(":", 1)[1]: v for k, v in mx.nd.load(base + "-0000.params").items()}
    data = [a for a in sym.list_arguments() if a not in params]
    x = io["data:0"]
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape_partial(**{data[0]: x.shape})[0]))
    assert '"projection_size"' in sym.tojson()
    params.update({d: mx.nd.zeros(shapes[d]) for d in data[1:]})   # the begin states: zeros, as recorded
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, params, [x.shape], [np.float32], path)
    onnx.checker.check_model(path, full_check=True)
    _close([np.asarray(ort_run(path, [x])[0])], [io["out:0"]])
