"""Export to PyTorch (``export_torch``, ``HybridBlock.export_torch``, ``neogluon export-torch``).

Each exported module is run in a subprocess that never imports neogluon (it checks
``sys.modules``) and must give neogluon's outputs (rtol 1e-5); MXNet 1.9.1's exported
fixture models must give MXNet's recorded outputs. ``fixtures/export_torch/lenet.py`` is the
golden generated file (``tools/make_export_torch_golden.py`` rewrites it).
"""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import nd
from neogluon.cli import main as cli_main
from neogluon.executor.torch_export import export_torch, identifier, class_name
from neogluon.gluon.model_zoo import vision
from zoo_inputs import zoo_side

from export_torch_models import BertEncoder, LSTMLanguageModel

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "mxnet-1.9.1")
MODELS = os.path.join(FIXTURES, "models")
GOLDEN = os.path.join(HERE, "fixtures", "export_torch", "lenet.py")

# the child, one fresh interpreter for the module without neogluon on its path: for each
# case file read on stdin, loads the module file and its state_dict (and the .pt2 when
# written), runs them on the saved inputs, compares with the saved expected outputs
CHILD = r"""
import importlib.util, sys, traceback, torch

def check(path):
    case = torch.load(path)
    spec = importlib.util.spec_from_file_location("exported_%d" % abs(hash(path)), case["py"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = getattr(module, case["cls"])()
    model.load_state_dict(torch.load(case["pt"]))
    model.eval()
    with torch.no_grad():
        outs = [model(*case["inputs"])]
    if case.get("pt2"):
        outs.append(torch.export.load(case["pt2"]).module()(*case["inputs"]))
    for out in outs:
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        assert len(out) == len(case["expected"]), (len(out), len(case["expected"]))
        for o, e in zip(out, case["expected"]):
            torch.testing.assert_close(o, e, rtol=1e-5, atol=case["atol"])
    bad = sorted(m for m in sys.modules if m.split(".")[0] in ("neogluon", "mxnet", "neogluon_alias"))
    assert not bad, bad
    return "standalone ok: %d outputs" % len(case["expected"])

for line in sys.stdin:
    try:
        reply = check(line.strip())
    except BaseException:
        reply = "FAILED " + traceback.format_exc().replace("\n", " | ")
    print(reply, flush=True)
"""


@pytest.fixture(scope="module")
def standalone():
    """A function running exported files in the child interpreter (started once)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.Popen([sys.executable, "-I", "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=HERE)

    def run(tmp_path, files, inputs, expected, atol=1e-6):
        expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
        case = {"py": files["py"], "pt": files["pt"], "pt2": files.get("pt2"), "atol": atol,
                "cls": class_name(os.path.splitext(os.path.basename(files["py"]))[0]),
                "inputs": [_t(x) for x in inputs], "expected": [_t(e) for e in expected]}
        path = str(tmp_path / "case.pt")
        torch.save(case, path)
        proc.stdin.write(path + "\n")
        proc.stdin.flush()
        reply = proc.stdout.readline()
        assert reply.startswith("standalone ok"), reply or "the child interpreter exited"
    yield run
    proc.stdin.close()
    proc.wait(timeout=60)


def _t(x):
    return x._t.clone() if hasattr(x, "_t") else torch.as_tensor(np.asarray(x))


def _block_case(net, *inputs):
    net.hybridize()
    out = net(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


# ---------------------------------------------------------------------- the golden file
def _export_lenet(out_dir, **kwargs):
    base = os.path.join(MODELS, "lenet")
    return export_torch(base + "-symbol.json", base + "-0000.params", str(out_dir), {"data": (4, 1, 28, 28)},
                        **kwargs)


def test_lenet_source_is_the_golden_file(tmp_path):
    files = _export_lenet(tmp_path)
    with open(files["py"], encoding="utf-8") as f, open(GOLDEN, encoding="utf-8") as g:
        assert f.read() == g.read(), "the generator changed: run tools/make_export_torch_golden.py and review the diff"


def test_golden_file_reads_as_torch_code():
    with open(GOLDEN, encoding="utf-8") as f:
        src = f.read()
    imports = [ln for ln in src.split("\n") if ln.startswith(("import ", "from "))]
    assert imports == ["import torch"]
    assert "class Lenet(torch.nn.Module):" in src and "def __init__(self):" in src
    assert "torch.conv2d(data, self.lenet0_conv0_weight, self.lenet0_conv0_bias" in src
    assert "self.lenet0_fc3_weight = torch.nn.Parameter(torch.empty((10, 84), dtype=torch.float32))" in src
    assert "lenet0_dense0_fwd = torch.nn.functional.linear(" in src and "torch._C" not in src


def test_lenet_mxnet_fixture_standalone_matches_mxnet(tmp_path, standalone):
    io = np.load(os.path.join(MODELS, "lenet-io.npz"))
    files = _export_lenet(tmp_path / "out", exported_program=True)
    assert set(files) == {"py", "pt", "pt2"}
    standalone(tmp_path, files, [io["data:0"]], [io["out:0"]], atol=1e-5)


def test_state_dict_keys_are_the_mxnet_names(tmp_path):
    files = _export_lenet(tmp_path)
    state = torch.load(files["pt"])
    params = nd.load(os.path.join(MODELS, "lenet-0000.params"))
    assert sorted(state) == sorted(k.split(":", 1)[1] for k in params)
    for key, value in params.items():
        np.testing.assert_array_equal(state[key.split(":", 1)[1]].numpy(), value.asnumpy())


def test_fixed_dimensions_are_checked(tmp_path):
    from neogluon.executor.torch_export import load_module
    files = _export_lenet(tmp_path)
    model = load_module(files["py"])
    with pytest.raises(ValueError, match=r"data: expected a shape \(N, 1, 28, 28\), got \(4, 1, 27, 28\)"):
        model(torch.zeros(4, 1, 27, 28))


def _reshapes():
    """Reshapes with each of MXNet's special codes on a batch-major graph."""
    S = mx.sym
    x = S.reshape(S.var("data"), (0, -1))                                   # (N, 48)
    x = S.reshape(x, (-4, -1, 1, -2))                                        # (N, 1, 48)
    x = S.FullyConnected(x, num_hidden=6, flatten=False, name="fc")          # (N, 1, 6)
    x = S.reshape(S.transpose(x, (1, 0, 2)), (-3, 0))                        # (N, 6)
    x = S.reshape(x, (0, 2, -1))                                             # (N, 2, 3)
    x = S.reshape(x, (-1, 3), reverse=True)                                  # (2N, 3)
    return S.reshape(x, (-4, -1, 2, 0))                                      # (N, 2, 3)


def test_batch_stays_free_through_reshape(tmp_path, standalone):
    """Reshape's codes become sizes read from the input (``x.reshape(data_size0, -1)``), not
    the example's: the module takes other batch sizes."""
    sym = _reshapes()
    rng = np.random.RandomState(0)
    params = {"fc_weight": nd.array(rng.uniform(-1, 1, (6, 48))), "fc_bias": nd.array(rng.uniform(-1, 1, 6))}
    files = export_torch(sym, params, str(tmp_path / "out"), {"data": (4, 3, 4, 4)})
    with open(files["py"], encoding="utf-8") as f:
        src = f.read()
    assert "expected a shape (N, 3, 4, 4)" in src and "torch.reshape(data, (data_size0, -1))" in src
    for batch in (3, 7):
        x = rng.uniform(-1, 1, (batch, 3, 4, 4)).astype(np.float32)
        want = sym.eval(data=nd.array(x), **params)[0].asnumpy()
        assert want.shape == (batch, 2, 3)
        (tmp_path / str(batch)).mkdir()
        standalone(tmp_path / str(batch), files, [x], [want], atol=1e-5)


# ---------------------------------------------------------------------- MXNet 1.9.1's exported models
FIXTURE_MODELS = json.load(open(os.path.join(FIXTURES, "MANIFEST.json")))["models"]


@pytest.mark.parametrize("name", sorted(FIXTURE_MODELS))
def test_mxnet_exported_models_convert(name, tmp_path, standalone):
    base = os.path.join(MODELS, name)
    io = np.load(base + "-io.npz")
    sym = mx.sym.load(base + "-symbol.json")
    params = {k.split(":", 1)[1] for k in nd.load(base + "-0000.params")}
    data = [a for a in sym.list_arguments() if a not in params]
    inputs = [io["data:%d" % i] for i in range(FIXTURE_MODELS[name]["inputs"])]
    if len(data) > len(inputs):  # fused RNN layers: begin states as extra inputs, zeros
        shapes = dict(zip(sym.list_arguments(), sym.infer_shape_partial(**{data[0]: inputs[0].shape})[0]))
        inputs += [np.zeros(shapes[d], np.float32) for d in data[len(inputs):]]
    files = export_torch(base + "-symbol.json", base + "-0000.params", str(tmp_path / "out"),
                         [x.shape for x in inputs])
    assert os.path.basename(files["py"]) == identifier(name) + ".py"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = mx.gluon.SymbolBlock.imports(base + "-symbol.json", data, base + "-0000.params")
    ours = net(*[nd.array(x) for x in inputs])
    ours = list(ours) if isinstance(ours, (list, tuple)) else [ours]
    np.testing.assert_allclose(ours[0].asnumpy(), io["out:0"], rtol=1e-4, atol=1e-5)
    standalone(tmp_path, files, inputs, ours)


# ---------------------------------------------------------------------- model zoo, LSTM LM, encoder
FAST_ZOO = {"resnet18_v1": (2, 3, 64, 64), "mobilenet0.25": (2, 3, 64, 64), "mobilenetv2_0.25": (2, 3, 64, 64)}
ZOO = sorted(vision._models)  # pylint: disable=protected-access


def _zoo_shape(name):
    if name in FAST_ZOO:
        return FAST_ZOO[name]
    side = zoo_side(name)
    return (2, 3, side, side)


@pytest.mark.parametrize("name", [n if n in FAST_ZOO else pytest.param(n, marks=pytest.mark.slow) for n in ZOO])
def test_model_zoo_standalone_matches_neogluon(name, tmp_path, standalone):
    mx.random.seed(0)
    net = vision.get_model(name, pretrained=False)
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=_zoo_shape(name))
    expected = _block_case(net, x)
    files = net.export_torch(str(tmp_path / "out"), x, name=identifier(name))
    standalone(tmp_path, files, [x], expected, atol=1e-5)


def test_batch_dimension_stays_free_where_the_kernels_allow(tmp_path):
    from neogluon.executor.torch_export import load_module
    mx.random.seed(1)
    net = vision.get_model("resnet18_v1", pretrained=False)
    net.initialize(mx.init.Xavier())
    _block_case(net, nd.random.uniform(shape=(2, 3, 32, 32)))
    files = net.export_torch(str(tmp_path), (2, 3, 32, 32))
    model = load_module(files["py"])
    model.load_state_dict(torch.load(files["pt"]))
    x = nd.random.uniform(shape=(5, 3, 32, 32))
    torch.testing.assert_close(model(x._t).detach(), net(x)._t, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"data: expected a shape \(N, 3, 32, 32\)"):
        model(torch.zeros(5, 3, 32, 31))


def test_lstm_language_model_standalone_matches_neogluon(tmp_path, standalone):
    mx.random.seed(2)
    net = LSTMLanguageModel()
    net.initialize(mx.init.Xavier())
    tokens = nd.array(np.random.RandomState(0).randint(0, 50, (5, 3)))
    h, c = nd.random.uniform(shape=(2, 3, 24)), nd.random.uniform(shape=(2, 3, 24))
    expected = _block_case(net, tokens, h, c)
    files = net.export_torch(str(tmp_path / "out"), tokens, h, c, name="lstm_lm")
    with open(files["py"], encoding="utf-8") as f:
        assert "torch.lstm(" in f.read()
    standalone(tmp_path, files, [tokens, h, c], expected)


def test_bert_encoder_standalone_matches_neogluon(tmp_path, standalone):
    mx.random.seed(3)
    net = BertEncoder()
    net.initialize(mx.init.Xavier())
    tokens = nd.array(np.random.RandomState(1).randint(0, 60, (2, 7)))
    valid_length = nd.array([7, 4])
    expected = _block_case(net, tokens, valid_length)
    files = net.export_torch(str(tmp_path / "out"), tokens, valid_length, name="bert_encoder",
                             exported_program=True)
    with open(files["py"], encoding="utf-8") as f:
        src = f.read()
    assert "torch.nn.functional.softmax(" in src and "torch.nn.functional.layer_norm(" in src
    standalone(tmp_path, files, [tokens, valid_length], expected)


# ---------------------------------------------------------------------- API and CLI errors
def test_block_must_be_hybridized_and_run_first(tmp_path):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    with pytest.raises(RuntimeError, match="hybridize"):
        net.export_torch(str(tmp_path), (2, 4))
    net.hybridize()
    net(nd.ones((2, 4)))
    with pytest.raises(ValueError, match="1 input"):
        net.export_torch(str(tmp_path), (2, 4), (2, 4))


def test_missing_or_unknown_example_shape(tmp_path):
    base = os.path.join(MODELS, "lenet")
    with pytest.raises(mx.MXNetError, match="no example shape for the input"):
        export_torch(base + "-symbol.json", base + "-0000.params", str(tmp_path), {})
    with pytest.raises(mx.MXNetError, match="images is not an input of the graph"):
        export_torch(base + "-symbol.json", base + "-0000.params", str(tmp_path), {"images": (1, 1, 28, 28)})


def test_wrong_example_shape_names_the_node(tmp_path):
    base = os.path.join(MODELS, "lenet")
    with pytest.raises(mx.MXNetError, match=r"data=\(4, 3, 28, 28\) do not fit the graph: .*lenet0_conv0_fwd"):
        export_torch(base + "-symbol.json", base + "-0000.params", str(tmp_path), {"data": (4, 3, 28, 28)})


class _Square(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.array(np.square(in_data[0].asnumpy())))


@mx.operator.register("export_torch_square")
class _SquareProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ["data"]

    def infer_shape(self, in_shape):
        return in_shape, in_shape, []

    def create_operator(self, ctx, shapes, dtypes):
        return _Square()


def test_a_kernel_outside_torch_is_named(tmp_path):
    sym = mx.sym.Custom(mx.sym.var("data") * 2, op_type="export_torch_square", name="square")
    with pytest.raises(mx.MXNetError, match=r"could not be captured into torch.fx at node square \(Custom\)"):
        export_torch(sym, {}, str(tmp_path), {"data": (2, 3)})
    assert not os.listdir(str(tmp_path))


def test_cli_writes_the_module_and_its_weights(tmp_path, capsys):
    base = os.path.join(MODELS, "lenet")
    code = cli_main(["export-torch", base + "-symbol.json", base + "-0000.params", "--out", str(tmp_path),
                     "--example-shape", "data=4,1,28,28", "--no-pt2"])
    assert code == 0
    assert sorted(os.listdir(str(tmp_path))) == ["lenet.pt", "lenet.py"]
    assert "lenet.py" in capsys.readouterr().out
    with open(str(tmp_path / "lenet.py"), encoding="utf-8") as f, open(GOLDEN, encoding="utf-8") as g:
        assert f.read() == g.read()


def test_cli_errors_are_one_line(tmp_path, capsys):
    base = os.path.join(MODELS, "lenet")
    code = cli_main(["export-torch", base + "-symbol.json", base + "-0000.params", "--out", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "give --example-shape data=D1,D2,..." in err and len(err.strip().split("\n")) == 1
    code = cli_main(["export-torch", base + "-symbol.json", base + "-0000.params", "--out", str(tmp_path),
                     "--example-shape", "label=1,2"])
    assert code == 2 and "has no input of that name" in capsys.readouterr().err
    code = cli_main(["export-torch", base + "-symbol.json", base + "-0000.params", "--out", str(tmp_path),
                     "--example-shape", "4,3,28,28", "--no-pt2"])
    assert code == 1 and "do not fit the graph" in capsys.readouterr().err


def test_cli_names_a_corrupt_params_file(tmp_path, capsys):
    bad = tmp_path / "bad-0000.params"
    bad.write_bytes(b"garbage")
    code = cli_main(["export-torch", os.path.join(MODELS, "lenet-symbol.json"), str(bad), "--out",
                     str(tmp_path / "out"), "--example-shape", "4,1,28,28"])
    err = capsys.readouterr().err
    assert code == 2 and "bad-0000.params is not an MXNet .params file" in err
    assert not os.path.exists(str(tmp_path / "out"))


def test_identifiers():
    assert identifier("resnetv10_conv0_weight") == "resnetv10_conv0_weight"
    assert identifier("stage1.conv-0") == "stage1_conv_0"
    assert identifier("0a") == "_0a" and identifier("lambda") == "lambda_"
    assert identifier("x", {"x", "x_1"}) == "x_2"
    assert class_name("resnet18_v1") == "Resnet18V1" and class_name("mobilenet0.25") == "Mobilenet025"


def test_training_mode_export(tmp_path):
    """``training=True``: ``forward`` runs MXNet's training pass when the module is in
    training mode (BatchNorm on the batch's statistics, Dropout drawing a mask), the
    prediction in eval mode; both keep the batch free."""
    from neogluon.executor.torch_export import load_module
    S = mx.sym
    bn = S.reshape(S.BatchNorm(S.FullyConnected(S.var("data"), num_hidden=4, name="fc"), name="bn", fix_gamma=False),
                   (0, 2, -1))
    sym = S.Dropout(bn, p=0.5)
    rng = np.random.RandomState(0)
    params = {"fc_weight": rng.randn(4, 3), "fc_bias": rng.randn(4), "bn_gamma": rng.rand(4) + .5,
              "bn_beta": rng.randn(4), "bn_moving_mean": rng.randn(4), "bn_moving_var": rng.rand(4) + .5}
    params = {k: nd.array(v) for k, v in params.items()}
    files = export_torch(sym, params, str(tmp_path), {"data": (4, 3)}, training=True)
    with open(files["py"], encoding="utf-8") as f:
        src = f.read()
    assert "def forward_train(self, data):" in src and "if self.training:" in src
    model = load_module(files["py"])
    model.load_state_dict(torch.load(files["pt"]))
    x = rng.uniform(-1, 1, (64, 3)).astype(np.float32)
    args = dict(params, data=nd.array(x))
    aux = {k: args.pop(k) for k in ("bn_moving_mean", "bn_moving_var")}
    with torch.no_grad():
        model.eval()
        predicted = sym.bind(mx.cpu(), args, aux_states=aux, grad_req="null").forward(is_train=False)[0]
        np.testing.assert_allclose(model(torch.from_numpy(x)).numpy(), predicted.asnumpy(), rtol=1e-5, atol=1e-5)
        model.train()
        got = model(torch.from_numpy(x)).numpy()
    ex = bn.bind(mx.cpu(), args, aux_states=aux, grad_req="null")
    want = ex.forward(is_train=True)[0].asnumpy()       # the batch's statistics, before Dropout
    kept = got != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(got[kept], 2 * want[kept], rtol=1e-5, atol=1e-5)
    # the running statistics: updated in place by the training pass as neogluon updates them
    # (momentum 0.9: running * 0.9 + batch * 0.1, biased variance), twice for two steps;
    # the prediction pass leaves them
    assert "bn_moving_mean.mul_(" in src.split("def forward_train")[1]
    assert "mul_(" not in src.split("def forward_train")[0]
    x2 = rng.uniform(-2, 1, (16, 3)).astype(np.float32)
    before = {k: v.asnumpy().copy() for k, v in aux.items()}
    ex = bn.bind(mx.cpu(), dict(args), args_grad={"data": nd.zeros((64, 3))}, aux_states=aux)
    ex2 = bn.bind(mx.cpu(), dict(args, data=nd.array(x2)), args_grad={"data": nd.zeros((16, 3))}, aux_states=aux)
    for e in (ex, ex2):
        e.forward(is_train=True)
        e.backward(nd.ones(e.outputs[0].shape))
    model.load_state_dict(torch.load(files["pt"]))
    with torch.no_grad():
        model.train()
        model(torch.from_numpy(x))
        model(torch.from_numpy(x2))
        model.eval()
        model(torch.from_numpy(x))
    for k in ("bn_moving_mean", "bn_moving_var"):
        assert not np.allclose(aux[k].asnumpy(), before[k])
        np.testing.assert_allclose(getattr(model, k).numpy(), aux[k].asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(torch.load(files["pt"])["bn_moving_mean"].numpy(), before["bn_moving_mean"])


def test_cli_training_flag(tmp_path):
    base = os.path.join(MODELS, "mlp_bn_dropout")
    code = cli_main(["export-torch", base + "-symbol.json", base + "-0000.params", "--out", str(tmp_path),
                     "--example-shape", "data=4,%d" % np.load(base + "-io.npz")["data:0"].shape[1], "--no-pt2",
                     "--training"])
    assert code == 0
    with open(str(tmp_path / "mlp_bn_dropout.py"), encoding="utf-8") as f:
        src = f.read()
    assert "def forward_train(self, data):" in src and "dropout(" in src.split("def forward_train")[1]
