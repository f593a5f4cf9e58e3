"""The small modules of MXNet's API neogluon builds for real: ``mx.registry``, ``mx.base``'s
helpers, ``mx.util``, ``mx.runtime``, ``mx.libinfo``, ``mx.engine``, ``mx.log``,
``mx.profiler``, ``mx.contrib.amp`` and ``test_utils.discard_stderr``."""
import json
import logging
import os
import sys
import warnings

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.contrib import amp


def test_registry_register_alias_create():
    class Base:
        def __init__(self, value=0):
            self.value = value

    register = mx.registry.get_register_func(Base, "thing")
    alias = mx.registry.get_alias_func(Base, "thing")
    create = mx.registry.get_create_func(Base, "thing")

    @alias("also", "Other")
    class Thing(Base):
        pass
    register(Thing)
    assert set(mx.registry.get_registry(Base)) == {"thing", "also", "other"}
    assert create("THING", 3).value == 3
    assert create(thing="other", value=4).value == 4
    assert create('["also", {"value": 5}]').value == 5
    assert create('{"thing": "thing", "value": 6}').value == 6
    inst = Thing()
    assert create(inst) is inst
    with pytest.raises(AssertionError, match="nope is not registered"):
        create("nope")
    with pytest.raises(AssertionError, match="Can only register subclass"):
        register(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        register(Thing, "also")
    assert "overriding existing" in str(caught[0].message)


def test_base_helpers(monkeypatch):
    assert mx.base.py_str(b"abc") == "abc"
    assert mx.base.c_str("ab").value == b"ab"
    assert list(mx.base.c_array(mx.base.mx_uint, [1, 2])) == [1, 2]
    assert mx.base._as_list(3) == [3] and mx.base._as_list((1,)) == (1,)
    monkeypatch.setenv("MXNET_HOME", "/somewhere")
    assert mx.base.data_dir() == "/somewhere"
    monkeypatch.delenv("MXNET_HOME")
    assert mx.base.data_dir() == mx.base.data_dir_default()

    class WithProperty:
        @mx.base.classproperty
        def answer(cls):  # pylint: disable=no-self-argument
            return 42
    assert WithProperty.answer == 42
    err = mx.base.NotSupportedForSparseNDArray(len, "len", 1)
    assert "is not supported for SparseNDArray" in str(err) and isinstance(err, mx.MXNetError)


def test_util(monkeypatch):
    assert mx.util.get_gpu_count() == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    mx.util.setenv("NEOGLUON_TEST_VAR", "1")
    assert mx.util.getenv("NEOGLUON_TEST_VAR") == "1"
    mx.util.setenv("NEOGLUON_TEST_VAR", None)
    assert mx.util.getenv("NEOGLUON_TEST_VAR") is None
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()

    @mx.util.set_module("mxnet.somewhere")
    def f():
        pass
    assert f.__module__ == "mxnet.somewhere"
    with pytest.raises(ValueError, match="Expecting a gpu context"):
        mx.util.get_cuda_compute_capability(mx.cpu())


def test_runtime_features_are_this_builds():
    features = mx.runtime.Features()
    assert features is mx.runtime.Features()
    assert list(features)[:3] == ["CUDA", "CUDNN", "NCCL"] and len(features) == 32
    assert features.is_enabled("cuda") == torch.backends.cuda.is_built()
    assert features.is_enabled("MKLDNN") == torch.backends.mkldnn.is_available()
    assert features.is_enabled("PROFILER") and not features.is_enabled("DIST_KVSTORE")
    assert repr(features["PROFILER"]) == "✔ PROFILER"
    with pytest.raises(RuntimeError, match="Feature 'NOPE' is unknown"):
        features.is_enabled("nope")
    assert [f.name for f in mx.runtime.feature_list()] == list(features)


def test_libinfo_engine_log(tmp_path):
    assert mx.libinfo.__version__ == "1.9.1"
    with pytest.raises(RuntimeError, match="no native MXNet library"):
        mx.libinfo.find_lib_path()
    assert os.path.isdir(mx.libinfo.find_include_path())
    previous = mx.engine.set_bulk_size(30)
    with mx.engine.bulk(5):
        assert mx.engine.set_bulk_size(5) == 5
    assert mx.engine.set_bulk_size(previous) == 30
    path = tmp_path / "log.txt"
    logger = mx.log.get_logger("neogluon-test-log", filename=str(path), level=mx.log.INFO)
    logger.info("hello")
    assert "hello" in path.read_text()
    assert mx.log.get_logger("neogluon-test-log", level=logging.ERROR).level == logging.INFO  # set once
    record = logging.LogRecord("x", logging.WARNING, "f.py", 3, "msg", None, None, "fn")
    assert mx.log._Formatter().format(record).startswith("\x1b[31mW")  # pylint: disable=protected-access


def test_discard_stderr_and_py_slice(capfd):
    with mx.test_utils.discard_stderr():
        print("hidden", file=sys.stderr)
        os.write(sys.stderr.fileno(), b"hidden too\n")  # what native code writes
    print("shown", file=sys.stderr)
    assert capfd.readouterr().err == "shown\n"
    assert mx.nd.ndarray.py_slice is slice


def test_profiler_writes_chrome_trace_and_stats(tmp_path):
    path = tmp_path / "profile.json"
    mx.profiler.set_config(profile_all=True, aggregate_stats=True, filename=str(path))
    a = mx.nd.ones((8, 8))
    mx.profiler.set_state("run")
    b = mx.nd.dot(a, a)
    mx.profiler.pause()
    mx.nd.dot(b, b)  # not recorded
    mx.profiler.resume()
    (b + 1).asnumpy()
    mx.profiler.set_state("stop")
    table = mx.profiler.dumps()
    assert "Profile Statistics" in table and "aten::mm" in table
    stats = json.loads(mx.profiler.dumps(format="json", reset=False))
    assert stats["Time"]["operator"]["aten::mm"]["Count"] == 1
    mx.profiler.dump()
    trace = json.loads(path.read_text())
    assert trace["displayTimeUnit"] == "ms"
    names = [e["name"] for e in trace["traceEvents"] if e["ph"] == "B"]
    assert names.count("aten::mm") == 1 and "aten::add" in names
    assert len([e for e in trace["traceEvents"] if e["ph"] == "E"]) == len(names)
    mx.profiler.dump()  # finished=True dropped the events
    assert not [e for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "B"]
    with pytest.raises(mx.MXNetError, match="Cannot find argument 'bogus'"):
        mx.profiler.set_config(bogus=1)
    with pytest.raises(mx.MXNetError, match="'stop' or 'run'"):
        mx.profiler.set_state("go")
    with pytest.raises(AssertionError, match="Invalid value provided for sort_by"):
        mx.profiler.dumps(sort_by="name")
    mx.profiler.set_config(filename="profile.json", profile_all=False, aggregate_stats=False)


@pytest.fixture
def amp_off():
    yield
    amp.amp._reset()  # pylint: disable=protected-access
    assert not torch.is_autocast_enabled("cpu")


def test_amp_bfloat16_autocast_on_cpu(amp_off):
    net = mx.gluon.nn.Dense(4, in_units=3)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(0).rand(2, 3))
    ref = net(x).asnumpy()
    assert net(x)._t.dtype == torch.float32  # pylint: disable=protected-access
    amp.init("bfloat16")
    out = net(x)
    assert out._t.dtype == torch.bfloat16 and out.dtype == np.float32  # pylint: disable=protected-access
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=2e-2, atol=2e-2)
    assert "Convolution" in amp.list_lp16_ops("bfloat16")
    assert amp.list_lp16_ops("float16") == ["Convolution", "Deconvolution", "FullyConnected", "RNN"]
    with pytest.raises(AssertionError, match="float16 or bfloat16"):
        amp.convert_hybrid_block(net, "int8")


def test_amp_loss_scaling_matches_plain_training_and_skips_overflow(amp_off):
    def make():
        net = mx.gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        return net, mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    x = mx.nd.array([[1.0, 2.0, 3.0]])
    plain, plain_trainer = make()
    with mx.autograd.record():
        loss = (plain(x) ** 2).sum()
    loss.backward()
    plain_trainer.step(1)
    amp.init("float16")  # on CPU torch autocasts to bfloat16 only: the computation stays float32
    scaled, trainer = make()
    amp.init_trainer(trainer)
    scaler = trainer._amp_loss_scaler  # pylint: disable=protected-access
    assert scaler.loss_scale == 2.0 ** 16
    with mx.autograd.record():
        loss = (scaled(x) ** 2).sum()
        with amp.scale_loss(loss, trainer) as scaled_loss:
            scaled_loss.backward()
    assert scaled.weight.grad().asnumpy()[0, 0] == pytest.approx(2.0 ** 16 * 2 * 3.0 * 1.0)
    trainer.step(1)
    np.testing.assert_allclose(scaled.weight.data().asnumpy(), plain.weight.data().asnumpy(), rtol=1e-6)
    before = scaled.weight.data().asnumpy()
    scaled.weight.grad()[:] = float("inf")
    trainer.step(1)  # overflow: skipped, and the next scale is halved
    np.testing.assert_array_equal(scaled.weight.data().asnumpy(), before)
    assert scaler._next_loss_scale == 2.0 ** 15  # pylint: disable=protected-access
    with pytest.raises(TypeError, match="only compatible with Gluon Trainer"):
        amp.init_trainer(mx.optimizer.SGD())
