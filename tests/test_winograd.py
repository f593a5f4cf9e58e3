"""Winograd convolution (operator/winograd.py): its values against the direct convolution, and
the per-shape choice of frozen compiled prediction graphs (recorded, reused, off switch). No
timing is asserted: the choice's timing is replaced by a fixed answer where a test needs one."""
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import neogluon as mx
from neogluon import gluon, nd
from neogluon.executor import inductor
from neogluon.gluon import nn
from neogluon.operator import winograd


@pytest.mark.parametrize("m", [2, 4])
@pytest.mark.parametrize("shape", [(1, 3, 5, 7, 9, 1), (2, 4, 6, 8, 8, 0), (1, 16, 8, 13, 11, 1),
                                   (3, 5, 7, 6, 10, (1, 0)), (1, 32, 32, 14, 14, 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_winograd_matches_the_direct_convolution(m, shape, bias):
    n, c, k, h, w, pad = shape
    pad = pad if isinstance(pad, tuple) else (pad, pad)
    gen = torch.Generator().manual_seed(hash((m, shape, bias)) % 1000)
    x = torch.randn(n, c, h, w, generator=gen, dtype=torch.float64)
    weight = torch.randn(k, c, 3, 3, generator=gen, dtype=torch.float64)
    b = torch.randn(k, generator=gen, dtype=torch.float64) if bias else None
    ref = F.conv2d(x, weight, b, 1, pad)
    got = winograd.conv2d(x, weight, b, pad, m)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10, atol=1e-10)  # exact in float64
    got32 = winograd.conv2d(x.float(), weight.float(), None if b is None else b.float(), pad, m)
    scale = ref.abs().max().item()
    assert (got32.double() - ref).abs().max().item() <= winograd.ACCURACY * scale  # float32: within the bound


def test_only_plain_3x3_stride_1_float32_convolutions_of_sizable_outputs_take_part():
    x, w = torch.zeros(1, 8, 16, 16), torch.zeros(8, 8, 3, 3)
    key = winograd._key  # pylint: disable=protected-access
    assert key(x, w, None, (1, 1), (1, 1), (1, 1), 1) == "1x8x16x16 k8 p1,1 nobias"
    assert key(x, w, torch.zeros(8), (1, 1), (0, 0), (1, 1), 1) == "1x8x16x16 k8 p0,0 bias"
    assert key(x, w, None, (2, 2), (1, 1), (1, 1), 1) is None  # strided
    assert key(x, torch.zeros(8, 8, 5, 5), None, (1, 1), (2, 2), (1, 1), 1) is None  # 5x5
    assert key(x, w, None, (1, 1), (1, 1), (2, 2), 1) is None  # dilated
    assert key(x, torch.zeros(8, 4, 3, 3), None, (1, 1), (1, 1), (1, 1), 2) is None  # grouped
    assert key(x.double(), w.double(), None, (1, 1), (1, 1), (1, 1), 1) is None  # float64
    assert key(torch.zeros(1, 8, 7, 7), w, None, (1, 1), (1, 1), (1, 1), 1) is None  # 7x7 output


class Net(gluon.HybridBlock):
    """Two 3x3 convolutions (one eligible: 16x16 output, too large for im2col; one not: strided)
    with BN, ReLU and a head."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(32, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                          nn.Conv2D(8, 3, strides=2, padding=1, use_bias=False))
            self.head = nn.Dense(5)

    def hybrid_forward(self, F, x):
        return self.head(self.body(x))


def _pair(x):
    plain, comp = Net(), Net()
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
        net(x)
    for (_, p), (_, q) in zip(plain.collect_params().items(), comp.collect_params().items()):
        q.set_data(p.data().copy())
    plain.hybridize()
    comp.hybridize(static_alloc=True, static_shape=True)
    return plain, comp


@pytest.fixture
def compiled(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_COMPILE", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_CALIBRATE", "0")
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_BACKGROUND", "0")
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(inductor, "_ISA_DONE", [None])
    monkeypatch.setattr(winograd, "_CHOSEN", {})
    return tmp_path


def _fake_choice(monkeypatch, m):
    calls = []

    def choose(*args):
        calls.append(args)
        return m
    monkeypatch.setattr(winograd, "_choose", choose)
    return calls


def test_the_choice_is_made_once_recorded_and_reused(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_WINOGRAD", "1")
    monkeypatch.setattr(winograd, "_CHOSEN", {})
    calls = _fake_choice(monkeypatch, 4)
    record = str(tmp_path / "choices.json")
    x = nd.random.uniform(shape=(1, 32, 16, 16))
    net = Net()
    net.initialize()
    net.hybridize()  # the plain graph, run eagerly by prepare
    chosen = winograd.prepare(lambda: net(x), record)
    assert chosen == {"1x32x16x16 k32 p1,1 bias": 4} and len(calls) == 1  # the strided one is not eligible
    stored = json.load(open(record))
    assert [v for k, v in stored.items() if k.endswith("|1x32x16x16 k32 p1,1 bias")] == [4]
    assert winograd.prepare(lambda: net(x), record) == chosen and len(calls) == 1  # this process: reused
    monkeypatch.setattr(winograd, "_CHOSEN", {})  # a new process: read from the record, not timed
    assert winograd.prepare(lambda: net(x), record) == chosen and len(calls) == 1
    monkeypatch.setattr(winograd, "_CHOSEN", {})
    for value in ("0", None):  # off, and off by default: nothing chosen or timed
        if value is None:
            monkeypatch.delenv("NEOGLUON_WINOGRAD")
        else:
            monkeypatch.setenv("NEOGLUON_WINOGRAD", value)
        assert winograd.prepare(lambda: net(x), record) == {} and len(calls) == 1


def test_each_thread_count_has_its_own_choice(monkeypatch, tmp_path):
    """A choice timed at one thread count does not serve another: the calls run there are timed
    there (on two threads the transforms split worse than oneDNN's direct convolution)."""
    monkeypatch.setenv("NEOGLUON_WINOGRAD", "1")
    monkeypatch.setattr(winograd, "_CHOSEN", {})
    counts = []

    def choose(*args):
        counts.append(torch.get_num_threads())
        return 4 if counts[-1] == 1 else 0  # as measured: F(4x4) wins on one thread, loses on two
    monkeypatch.setattr(winograd, "_choose", choose)
    record = str(tmp_path / "choices.json")
    x = nd.random.uniform(shape=(1, 32, 16, 16))
    net = Net()
    net.initialize()
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert winograd.prepare(lambda: net(x), record) == {"1x32x16x16 k32 p1,1 bias": 4}
        torch.set_num_threads(2)
        assert winograd.prepare(lambda: net(x), record) == {} and counts == [1, 2]
        assert winograd.choices() == {"1x32x16x16 k32 p1,1 bias": 0}
        stored = json.load(open(record))
        assert sorted(v for k, v in stored.items() if k.endswith("|1x32x16x16 k32 p1,1 bias")) == [0, 4]
        monkeypatch.setattr(winograd, "_CHOSEN", {})  # a new process: each count read from the record
        torch.set_num_threads(1)
        assert winograd.prepare(lambda: net(x), record) == {"1x32x16x16 k32 p1,1 bias": 4} and counts == [1, 2]
    finally:
        torch.set_num_threads(saved)


def test_a_direct_choice_is_recorded_and_serves_no_winograd(monkeypatch, tmp_path):
    monkeypatch.setenv("NEOGLUON_WINOGRAD", "1")
    monkeypatch.setattr(winograd, "_CHOSEN", {})
    _fake_choice(monkeypatch, 0)
    x = nd.random.uniform(shape=(1, 32, 16, 16))
    net = Net()
    net.initialize()
    assert winograd.prepare(lambda: net(x), str(tmp_path / "c.json")) == {}
    assert winograd.choices() == {"1x32x16x16 k32 p1,1 bias": 0}


@pytest.mark.slow
@pytest.mark.parametrize("m", [2, 4])
def test_a_frozen_package_with_winograd_predicts_as_the_plain_graph(monkeypatch, compiled, m):
    monkeypatch.setenv("NEOGLUON_WINOGRAD", "1")
    _fake_choice(monkeypatch, m)
    used = []
    real = winograd.conv2d
    monkeypatch.setattr(winograd, "conv2d", lambda *a: used.append(a[-1]) or real(*a))
    x = nd.random.uniform(shape=(1, 32, 16, 16))
    plain, comp = _pair(x)
    mean, var = nd.random.uniform(shape=(32,)), nd.random.uniform(1, 2, shape=(32,))
    for net in (plain, comp):
        net.body[1].running_mean.set_data(mean)
        net.body[1].running_var.set_data(var)
    comp(x)  # a prediction's first call: the plain graph
    assert not used
    got = comp(x).asnumpy()
    ref = plain(x).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))
    frozen = [f for f in comp._cached_op.compiled._fns.values() if isinstance(f, inductor._Frozen)][0]
    assert frozen.package is not None and used == [m]  # traced once, into the package


@pytest.mark.slow
def test_the_timed_choice_gives_an_answer_for_a_small_shape(monkeypatch):
    """The real trial (three small compiled graphs): some kernel is chosen; which one is the machine's."""
    monkeypatch.setattr(winograd, "TRIALS", 1)
    assert winograd._choose((1, 4, 8, 8), (4, 4, 3, 3), True, (1, 1)) in (0, 2, 4)  # pylint: disable=protected-access
