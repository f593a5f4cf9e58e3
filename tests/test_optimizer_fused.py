"""The multi-tensor updates of neogluon/optimizer/fused.py against the per-parameter update
operators they stand for: bit-identical over several steps, with the scratch buffers kept
between steps (and remade when the weights' shapes change)."""
import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.optimizer import fused

SHAPES = [(3, 4), (5,), (2, 3, 2)]


def arrays(seed, scale=1.0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(*s) * scale).astype("float32") for s in SHAPES]


def case(steps=3):
    w0, m0, v0 = arrays(0), arrays(1, 0.1), [np.abs(a) for a in arrays(2, 0.1)]
    grads = [arrays(10 + k, 3.0) for k in range(steps)]
    return w0, m0, v0, grads


@pytest.mark.parametrize("momentum, wd, rescale, clip", [
    (0.0, 0.0, 1.0, -1.0), (0.0, 0.01, 0.25, -1.0), (0.0, 0.01, 0.5, 1.0),
    (0.9, 0.0, 1.0, -1.0), (0.9, 0.001, 0.125, -1.0), (0.9, 0.01, 0.5, 0.7)])
def test_sgd_is_the_per_parameter_operator_bit_for_bit(momentum, wd, rescale, clip):
    w0, m0, _, grads = case()
    lrs, wds = [0.1, 0.05, 0.2], [wd, 2 * wd, 0.0]
    ref_w, ref_m = [mx.nd.array(a) for a in w0], [mx.nd.array(a) for a in m0]
    w, m = [torch.tensor(a) for a in w0], [torch.tensor(a) for a in m0]
    buffers = fused.Scratch()
    for g in grads:
        for i, gi in enumerate(g):
            kw = dict(lr=lrs[i], wd=wds[i], rescale_grad=rescale, clip_gradient=clip)
            if momentum:
                mx.nd.sgd_mom_update(ref_w[i], mx.nd.array(gi), ref_m[i], out=ref_w[i], momentum=momentum, **kw)
            else:
                mx.nd.sgd_update(ref_w[i], mx.nd.array(gi), out=ref_w[i], **kw)
        fused.sgd(w, [torch.tensor(a) for a in g], m if momentum else None, lrs, wds, momentum, rescale, clip,
                  buffers)
    for a, b in zip(ref_w, w):
        np.testing.assert_array_equal(a.asnumpy(), b.numpy())
    if momentum:
        for a, b in zip(ref_m, m):
            np.testing.assert_array_equal(a.asnumpy(), b.numpy())


@pytest.mark.parametrize("wd, rescale, clip", [(0.0, 1.0, -1.0), (0.01, 0.5, -1.0), (0.001, 0.25, 0.8)])
def test_adam_is_the_per_parameter_operator_bit_for_bit(wd, rescale, clip):
    w0, m0, v0, grads = case()
    lrs, wds = [0.01, 0.02, 0.005], [wd, wd, 0.0]
    ref = [[mx.nd.array(a) for a in x] for x in (w0, m0, v0)]
    w, m, v = ([torch.tensor(a) for a in x] for x in (w0, m0, v0))
    buffers = fused.Scratch()
    for g in grads:
        for i, gi in enumerate(g):
            mx.nd.adam_update(ref[0][i], mx.nd.array(gi), ref[1][i], ref[2][i], out=ref[0][i], lr=lrs[i],
                              beta1=0.9, beta2=0.999, epsilon=1e-8, wd=wds[i], rescale_grad=rescale,
                              clip_gradient=clip)
        fused.adam(w, [torch.tensor(a) for a in g], m, v, lrs, wds, 0.9, 0.999, 1e-8, rescale, clip, buffers)
    for refs, got in zip(ref, (w, m, v)):
        for a, b in zip(refs, got):
            np.testing.assert_array_equal(a.asnumpy(), b.numpy())


def test_scratch_buffers_are_kept_and_remade_on_new_shapes():
    s = fused.Scratch()
    like = [torch.zeros(2, 3), torch.zeros(4)]
    first = s.get(0, like)
    assert [t.shape for t in first] == [(2, 3), (4,)]
    assert all(a is b for a, b in zip(first, s.get(0, [torch.ones(2, 3), torch.ones(4)])))
    assert all(a is not b for a, b in zip(first, s.get(1, like)))   # another list
    again = s.get(0, [torch.zeros(3, 3), torch.zeros(4)])
    assert again[0].shape == (3, 3) and again[0] is not first[0]
    assert s.get(0, [torch.zeros(3, 3, dtype=torch.float64), torch.zeros(4)])[0].dtype == torch.float64


def test_an_optimizer_keeps_one_scratch_and_does_not_pickle_it():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    assert fused.scratch(opt) is fused.scratch(opt)
    updater = mx.optimizer.get_updater(opt)
    w = [mx.nd.ones((3,)), mx.nd.ones((2, 2))]
    g = [mx.nd.ones((3,)), mx.nd.ones((2, 2))]
    updater([0, 1], g, w)
    updater([0, 1], g, w)
    np.testing.assert_allclose(w[0].asnumpy(), 1 - 0.1 - (0.9 * 0.1 + 0.1), rtol=1e-6)
    states = updater.get_states(dump_optimizer=True)
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(states)
    assert restored.optimizer.momentum == 0.9 and fused.scratch(restored.optimizer) is not fused.scratch(opt)
