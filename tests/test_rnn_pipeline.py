"""Stacked RNN layers pipelined over threads in prediction (neogluon/operator/rnn_pipeline.py):
the same outputs and final states as torch's fused kernel, the decision rules, errors, the
caller's thread count, and the compiled graph's opaque ``neogluon::rnn_predict``."""
import threading

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon import autograd, nd
from neogluon.executor import inductor
from neogluon.gluon import nn, rnn
from neogluon.operator import rnn as rnn_op
from neogluon.operator import rnn_pipeline


def _weights(mode, layers, inp, hidden, proj=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    gates = {"lstm": 4, "gru": 3}.get(mode, 1) * hidden
    out = []
    for layer in range(layers):
        width = inp if layer == 0 else (proj or hidden)
        out += [torch.rand(gates, width, generator=g) - 0.5, torch.rand(gates, proj or hidden, generator=g) - 0.5,
                torch.rand(gates, generator=g) - 0.5, torch.rand(gates, generator=g) - 0.5]
        if proj:
            out.append(torch.rand(proj, hidden, generator=g) - 0.5)
    return out


@pytest.mark.parametrize("mode,layers,stages,proj", [
    ("lstm", 2, 2, None), ("lstm", 3, 2, None), ("lstm", 3, 3, None), ("lstm", 2, 2, 5),
    ("gru", 2, 2, None), ("rnn_tanh", 3, 2, None), ("rnn_relu", 2, 2, None)])
@pytest.mark.parametrize("steps", [4, 13])
def test_pipelined_layers_equal_the_fused_kernel(mode, layers, stages, proj, steps):
    hidden, inp, batch = 8, 6, 3
    data = torch.rand(steps, batch, inp) - 0.5
    weights = _weights(mode, layers, inp, hidden, proj)
    state = torch.rand(layers, batch, proj or hidden) - 0.5
    cell = torch.rand(layers, batch, hidden) - 0.5 if mode == "lstm" else None
    hx = (state, cell) if mode == "lstm" else state
    with torch.no_grad():
        out, finals = rnn_op._pipelined(mode, data, weights, hx, layers, 5 if proj else 4, stages)
        res = rnn_op._FUSED[mode](data, hx, weights, True, layers, 0.0, False, False, False)
    np.testing.assert_allclose(out.numpy(), res[0].numpy(), rtol=1e-5, atol=1e-6)
    assert len(finals) == len(res) - 1
    for a, b in zip(finals, res[1:]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_chunks_cover_the_sequence_in_order():
    for steps in (4, 5, 35, 100):
        for stages in (2, 3):
            chunks = rnn_pipeline._chunks(steps, stages)
            assert chunks[0][0] == 0 and chunks[-1][1] == steps
            assert all(a[1] == b[0] for a, b in zip(chunks, chunks[1:]))
            assert all(0 < b - a <= rnn_pipeline.STEPS_PER_CHUNK for a, b in chunks)


def test_when_the_layers_are_pipelined(monkeypatch):
    big = rnn_pipeline.MIN_MACS
    data = torch.zeros(35, 32, 256)
    stages = rnn_pipeline.stages
    assert stages(data, 2, big, False, False, threads=2) == 2
    assert stages(data, 3, big, False, False, threads=2) == 2
    assert stages(data, 3, big, False, False, threads=4) == 3
    assert stages(data, 2, big, False, False, threads=1) == 1     # one thread (e.g. a busy machine)
    assert stages(data, 1, big, False, False, threads=2) == 1     # one layer
    assert stages(data, 2, big, True, False, threads=2) == 1      # bidirectional
    assert stages(data, 2, big, False, True, threads=2) == 1      # recorded or training
    assert stages(data, 2, big - 1, False, False, threads=2) == 1  # too little work
    assert stages(data[:rnn_pipeline.MIN_STEPS - 1], 2, big, False, False, threads=2) == 1
    monkeypatch.setenv("NEOGLUON_RNN_PIPELINE", "0")
    assert stages(data, 2, big, False, False, threads=2) == 1


def test_a_failing_stage_raises_in_the_caller_and_the_threads_stay_usable():
    threads = torch.get_num_threads()
    data = torch.zeros(8, 2, 3)

    def layer(l, x, st):
        if l == 1:
            raise ValueError("layer 1 failed")
        return x + 1, st
    with pytest.raises(ValueError, match="layer 1 failed"):
        rnn_pipeline.run(layer, data, [(), ()], 2, 2)
    assert torch.get_num_threads() == threads
    seen = set()

    def counting(l, x, st):
        seen.add(threading.current_thread().name)
        return x + 1, st
    out, _ = rnn_pipeline.run(counting, data, [(), ()], 2, 2)
    np.testing.assert_array_equal(out.numpy(), np.full((8, 2, 3), 2.0))
    assert "neogluon-rnn-stage" in seen and len(seen) == 2   # the caller runs stage 0
    assert torch.get_num_threads() == threads


def _lstm_lm():
    net = nn.HybridSequential()
    net.add(rnn.LSTM(16, num_layers=3, input_size=8), nn.Dense(5, flatten=False, in_units=16))
    return net


def test_gluon_lstm_predicts_the_same_pipelined(monkeypatch):
    """Imperative and plain hybridized prediction of a 3-layer LSTM with the pipeline (forced
    to apply at this small size) equal those without it; recording uses the fused kernel."""
    monkeypatch.setattr(rnn_pipeline, "MIN_MACS", 0)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    calls = []
    real = rnn_pipeline.run
    monkeypatch.setattr(rnn_pipeline, "run", lambda *a: calls.append(a[-1]) or real(*a))
    net = _lstm_lm()
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(-1, 1, shape=(9, 2, 8))
    monkeypatch.setenv("NEOGLUON_RNN_PIPELINE", "0")
    want = net(x).asnumpy()
    assert not calls
    monkeypatch.setenv("NEOGLUON_RNN_PIPELINE", "1")
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert calls == [2, 2]
    with autograd.record():
        net(x)
    assert calls == [2, 2]


@pytest.mark.slow
def test_compiled_prediction_calls_the_rnn_as_one_operator(monkeypatch, tmp_path):
    """The compiled prediction graph (an AOTInductor package) calls ``neogluon::rnn_predict``,
    which pipelines at run time, and predicts as the plain graph."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NEOGLUON_COMPILE", "1")
    monkeypatch.setenv("NEOGLUON_COMPILE_PACKAGE", "1")
    monkeypatch.setattr(rnn_pipeline, "MIN_MACS", 0)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 2)
    calls = []
    real = rnn_pipeline.run
    monkeypatch.setattr(rnn_pipeline, "run", lambda *a: calls.append(a[-1]) or real(*a))
    x = nd.random.uniform(-1, 1, shape=(9, 2, 8))
    plain, comp = _lstm_lm(), _lstm_lm()
    for net in (plain, comp):
        net.initialize(mx.init.Xavier())
        net(x)
    for (_, p), (_, q) in zip(plain.collect_params().items(), comp.collect_params().items()):
        q.set_data(p.data().copy())
    comp.hybridize(static_alloc=True, static_shape=True)
    want = plain(x).asnumpy()
    for _ in range(3):
        np.testing.assert_allclose(comp(x).asnumpy(), want, rtol=1e-5, atol=1e-6)
    frozen = list(comp._cached_op.compiled._fns.values())[0]
    assert isinstance(frozen.frozen, inductor._Packaged)
    assert hasattr(torch.ops.neogluon, "rnn_predict")
    assert calls  # the package ran the pipelined kernel
