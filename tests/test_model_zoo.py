"""``gluon.model_zoo``: every ``get_model`` network against MXNet 1.9.1, and the model store.

Recorded by ``tools/make_extra_fixtures_model_zoo.py`` (``tests/fixtures/extra/model_zoo``):
for every model, the parameters' structural and full names and shapes (pretrained input
size), and its output with the deterministic parameters of ``model_zoo_params`` (no weights
are committed: both sides compute them from the parameter names). Every model's output is
compared, imperatively and hybridized, on the smallest input it accepts (about 20 s of
one core for all 34).
"""
import gzip
import hashlib
import json
import os

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import gluon, nd
from neogluon.base import MXNetError
from neogluon.gluon.model_zoo import model_store, vision

from model_zoo_params import input_shape, input_value, param_value, shape_side

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "model_zoo")
with gzip.open(os.path.join(HERE, "cases.json.gz"), "rt") as _f:
    _CASES = json.load(_f)
MODELS, META = _CASES["models"], _CASES["meta"]
with np.load(os.path.join(HERE, "outputs.npz")) as _data:
    OUTPUTS = dict(_data)

# exported and re-imported with SymbolBlock.imports after the hybridized check
EXPORTED = ["mobilenetv2_0.25", "resnet18_v1", "squeezenet1.1", "vgg16_bn"]


def fresh(name, **kwargs):
    """``get_model(name)`` in a fresh NameManager, as recorded."""
    mx.name.NameManager._current.value = mx.name.NameManager()
    return vision.get_model(name, **kwargs)


def with_formula_params(name, x):
    """``name`` with every parameter set by ``model_zoo_params.param_value`` for input ``x``."""
    net = fresh(name)
    net.infer_shape(x)
    net.load_dict({k: nd.array(param_value(k, p.shape))
                   for k, p in net._collect_params_with_prefix().items()})
    return net


def assert_output(name, out):
    ref = OUTPUTS[name]
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max(),
                               err_msg=name)


# ---------------------------------------------------------------------- names and shapes
def test_every_get_model_name_is_recorded():
    assert sorted(MODELS) == sorted(vision._models) == sorted(model_store._model_sha1)


def test_public_names_are_mxnets():
    public = sorted(n for n in dir(vision) if not n.startswith("_")
                    and not isinstance(getattr(vision, n), type(vision)))
    assert public == META["vision_names"]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_parameter_names_and_shapes(name):
    """Structural names (what ``.params`` files use), full names (what exports use) and
    shapes at the pretrained input size, in MXNet's order."""
    net = fresh(name)
    side = shape_side(name)
    net.infer_shape(nd.zeros((1, 3, side, side)))
    full = {id(p): p.name for p in net.collect_params().values()}
    got = [[k, full[id(p)], list(p.shape)] for k, p in net._collect_params_with_prefix().items()]
    assert got == MODELS[name]["params"]


@pytest.mark.parametrize("name", sorted(n for n in MODELS if "nodes" in MODELS[n]))
def test_graph_and_repr(name):
    """The hybridized graph has MXNet's nodes (operators and names), the repr is MXNet's."""
    net = fresh(name)
    side = shape_side(name)
    net.infer_shape(nd.zeros((1, 3, side, side)))
    assert repr(net) == MODELS[name]["repr"]
    nodes = json.loads(net(mx.sym.var("data")).tojson())["nodes"]
    assert [[n["op"], n["name"]] for n in nodes] == MODELS[name]["nodes"]


# ---------------------------------------------------------------------- outputs
@pytest.fixture
def one_thread():
    """Run on one thread: on a machine whose cores are busy, torch's multi-threaded kernels
    stall at every barrier (several times slower); on an idle one this costs little."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_outputs_imperative_and_hybridized(name, tmp_path, one_thread):
    x = nd.array(input_value(name, input_shape(name)))
    net = with_formula_params(name, x)
    assert_output(name, net(x))
    net.hybridize()
    assert_output(name, net(x))
    if name in EXPORTED:
        net.export(str(tmp_path / name))
        back = gluon.SymbolBlock.imports(str(tmp_path / (name + "-symbol.json")), ["data"],
                                         str(tmp_path / (name + "-0000.params")))
        assert_output(name, back(x))


def test_thumbnail_and_classes():
    """``thumbnail`` (CIFAR stem) and ``classes`` reach the network, as in MXNet."""
    net = fresh("resnet18_v1", thumbnail=True, classes=10)
    net.initialize()
    assert net(nd.ones((1, 3, 8, 8))).shape == (1, 10)
    assert [k for k in net._collect_params_with_prefix()][:1] == ["features.0.weight"]
    assert net.features[0].weight.shape == (64, 3, 3, 3)


# ---------------------------------------------------------------------- errors
def test_get_model_unknown_name():
    with pytest.raises(ValueError) as err:
        vision.get_model("ResNet19_v1")
    assert [type(err.value).__name__, str(err.value)] == META["get_model_error"]
    assert vision.get_model("ResNet18_V1").name.startswith("resnetv1")


def test_short_hash_unknown_name():
    with pytest.raises(ValueError) as err:
        model_store.short_hash("resnet19_v1")
    assert [type(err.value).__name__, str(err.value)] == META["short_hash_error"]


# ---------------------------------------------------------------------- model store
def test_sha1_table_and_file_names():
    assert model_store._model_sha1 == META["sha1"]
    for name, file_name in META["file_names"].items():
        assert "%s-%s.params" % (name, model_store.short_hash(name)) == file_name


def test_default_root_follows_mxnet_home(monkeypatch, tmp_path):
    monkeypatch.delenv("MXNET_HOME", raising=False)
    assert model_store.default_root() == os.path.expanduser(META["default_root"])
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert model_store.default_root() == str(tmp_path / "models")
    assert mx.base.data_dir() == str(tmp_path)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_missing_file_names_file_and_directory(name, monkeypatch, tmp_path):
    """No download: the error names MXNet's file name and the directory to put it in."""
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    with pytest.raises(MXNetError) as err:
        model_store.get_model_file(name)
    message = str(err.value)
    assert META["file_names"][name] in message
    assert str(tmp_path / "models") in message
    assert "gluon/models/%s.zip" % META["file_names"][name][:-len(".params")] in message


def test_pretrained_constructors_ask_for_their_file(tmp_path):
    """Each family's constructor looks for its own file (multiplier and _bn suffixes)."""
    for name, kwargs in [("mobilenet0.5", {}), ("mobilenetv2_1.0", {}), ("vgg11_bn", {}),
                         ("squeezenet1.1", {}), ("inceptionv3", {}), ("densenet121", {}),
                         ("alexnet", {}), ("resnet18_v2", {})]:
        with pytest.raises(MXNetError, match=META["file_names"][name].replace(".", r"\.")):
            vision.get_model(name, pretrained=True, root=str(tmp_path), **kwargs)


def _store_file(root, name, net):
    """Save ``net`` as ``name``'s pretrained file in ``root``, and register its SHA-1 in
    place of MXNet's (the test's file is not MXNet's); return the path."""
    os.makedirs(root, exist_ok=True)
    tmp = os.path.join(root, "tmp.params")
    net.save_parameters(tmp)
    with open(tmp, "rb") as f:
        sha1 = hashlib.sha1(f.read()).hexdigest()
    model_store._model_sha1[name] = sha1
    path = os.path.join(root, "%s-%s.params" % (name, sha1[:8]))
    os.replace(tmp, path)
    return path


def test_pretrained_loads_from_mxnet_home(monkeypatch, tmp_path):
    """``pretrained=True`` finds ``<name>-<short sha1>.params`` in ``$MXNET_HOME/models``,
    checks its SHA-1 and loads it; a changed file is refused with both hashes."""
    monkeypatch.setattr(model_store, "_model_sha1", dict(model_store._model_sha1))
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    x = nd.array(input_value("mobilenet0.25", (1, 3, 32, 32)))
    mx.name.NameManager._current.value = mx.name.NameManager()
    source = vision.mobilenet0_25(classes=10)
    source.infer_shape(x)
    source.load_dict({k: nd.array(param_value(k, p.shape))
                      for k, p in source._collect_params_with_prefix().items()})
    path = _store_file(str(tmp_path / "models"), "mobilenet0.25", source)

    assert model_store.get_model_file("mobilenet0.25") == path
    net = vision.get_model("mobilenet0.25", pretrained=True, classes=10)
    for key, param in net._collect_params_with_prefix().items():
        np.testing.assert_array_equal(param.data().asnumpy(), param_value(key, param.shape))
    np.testing.assert_allclose(net(x).asnumpy(), source(x).asnumpy(), rtol=1e-6)

    with open(path, "r+b") as f:
        f.seek(-4, os.SEEK_END)
        f.write(b"\0\0\0\1")
    with pytest.raises(MXNetError) as err:
        vision.mobilenet0_25(pretrained=True, classes=10)
    message = str(err.value)
    assert path in message and model_store._model_sha1["mobilenet0.25"] in message
    with open(path, "rb") as f:
        assert hashlib.sha1(f.read()).hexdigest() in message


def test_purge_removes_only_params(tmp_path):
    for name in ("a-1234.params", "b.params", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    model_store.purge(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]
    with pytest.raises(FileNotFoundError):
        model_store.purge(str(tmp_path / "absent"))
