"""The aggregated optimizer operators against MXNet 1.9.1: the cases recorded by
tools/make_extra_fixtures_multi_optimizer.py (new weights and the states updated in
place), replayed imperatively and through ``bind`` with MXNet's JSON (tests/opcases.py).
MXNet's own executor cannot run most of them in a graph (its shape and type inference
fail, ``multi_sgd_mom_update`` cannot even be composed): there the imperative answers
stand for the graph's."""
import numpy as np

import neogluon as mx
from opcases import make_tests

# float16 weights: one rounding of the result may differ in the last place
TOL = {n: (2e-3, 1e-3) for n in ("multi_mp_sgd_update", "multi_mp_sgd_update_clip", "multi_mp_sgd_mom_update",
                                 "multi_mp_sgd_mom_update_clip", "preloaded_multi_mp_sgd_update",
                                 "preloaded_multi_mp_sgd_update_clip", "preloaded_multi_mp_sgd_mom_update",
                                 "preloaded_multi_mp_sgd_mom_update_clip", "multi_mp_adamw", "multi_mp_lamb")}
test_imperative, test_graph, test_hybridized, test_error = make_tests("multi_optimizer", tolerance=TOL)


def test_generated_function_takes_the_weights_positionally_and_writes_out():
    w = [mx.nd.ones((3,)), mx.nd.ones((2,))]
    g = [mx.nd.ones((3,)), mx.nd.ones((2,))]
    mx.nd.multi_sgd_update(w[0], g[0], w[1], g[1], lrs=(0.1, 0.2), wds=(0.0, 0.0), num_weights=2, out=w)
    np.testing.assert_allclose(w[0].asnumpy(), [0.9] * 3, rtol=1e-6)
    np.testing.assert_allclose(w[1].asnumpy(), [0.8] * 2, rtol=1e-6)


def test_reset_arrays_zeroes_in_place_and_returns_nothing():
    a, b = mx.nd.ones((2, 2)), mx.nd.ones((3,), dtype="float16")
    assert mx.nd.reset_arrays(a, b, num_arrays=2) == []
    assert not a.asnumpy().any() and not b.asnumpy().any()


def test_multi_adamw_leaves_grads_and_rounds_moments_as_mxnet():
    """Two steps of BERTAdam's aggregated update (clipped, rescaled): MXNet 1.9.1's
    MultiAdamWKernel keeps the gradients as they are (the single ``_adamw_update`` overwrites
    its own) and writes ``beta*(m - g) + g``. Expected values from MXNet 1.9.1."""
    ws = [mx.nd.array([0.5, -1.25, 2.0]), mx.nd.array([0.75, 0.1])]
    gs = [mx.nd.array([0.3, -0.7, 1.9]), mx.nd.array([-0.45, 0.05])]
    ms = [mx.nd.array([0.1, 0.2, -0.3]), mx.nd.array([0.0, 0.01])]
    vs = [mx.nd.array([0.01, 0.02, 0.03]), mx.nd.array([0.04, 0.0])]
    for _ in range(2):
        mx.nd.contrib.multi_adamw_update(ws, gs, ms, vs, mx.nd.array([0.5]), out=ws, lrs=[1.0, 0.5], wds=[0.01, 0.1],
                                         etas=[0.1, 0.2], beta1=0.9, beta2=0.999, epsilon=1e-6, clip_gradient=0.8)
    f32 = np.float32
    np.testing.assert_array_equal(gs[0].asnumpy(), f32([0.3, -0.7, 1.9]))
    np.testing.assert_array_equal(gs[1].asnumpy(), f32([-0.45, 0.05]))
    np.testing.assert_array_equal(ms[0].asnumpy(),
                                  f32([0.10950000584125519, 0.09549999237060547, -0.09099996089935303]))
    np.testing.assert_array_equal(ms[1].asnumpy(), f32([-0.04275001585483551, 0.012850000523030758]))
    np.testing.assert_allclose(vs[0].asnumpy(), [0.010024987161159515, 0.020204894244670868, 0.03121936321258545],
                               rtol=2e-7)
    np.testing.assert_allclose(vs[1].asnumpy(), [0.04002123698592186, 1.2493692338466644e-06], rtol=2e-7)
    np.testing.assert_allclose(ws[0].asnumpy(), [0.2848096489906311, -1.4168519973754883, 2.1559932231903076],
                               rtol=2e-7)
    np.testing.assert_allclose(ws[1].asnumpy(), [0.7526927590370178, -2.4763431549072266], rtol=2e-7)


def test_multi_mp_lamb_trust_ratio_uses_the_float16_weights():
    """MXNet 1.9.1's ``_multi_mp_lamb_update`` takes r1 = |w| from the float16 weights it is
    given, not from the float32 master copy (here they differ). Values from MXNet 1.9.1."""
    w = mx.nd.array([0.5, -1.25, 2.0, 0.3], dtype="float16")
    w32 = mx.nd.array([0.5004, -1.2497, 2.0011, 0.3002])
    g = mx.nd.array([0.3, -0.7, 1.9, 0.2], dtype="float16")
    m, v = mx.nd.array([0.1, 0.2, -0.3, 0.0]), mx.nd.array([0.01, 0.02, 0.03, 0.01])
    mx.nd.contrib.multi_mp_lamb_update([w], [g], [m], [v], [w32], out=[w], lrs=[0.1], wds=[0.01], beta1=0.9,
                                        beta2=0.999, epsilon=1e-6, rescale_grad=0.5, step_count=[3],
                                        bias_correction=True, num_tensors=1)
    np.testing.assert_allclose(w32.asnumpy(), [0.3470054864883423, -1.3869022130966187, 2.1291704177856445,
                                               0.28380057215690613], rtol=1e-6)
    np.testing.assert_array_equal(w.asnumpy(), np.float16([0.346923828125, -1.38671875, 2.12890625, 0.28369140625]))


def test_lamb_bias_correction_uses_float32_powers():
    """``lamb_update_phase1`` divides by ``1 - beta**t`` with ``beta**t`` of the float32
    parameter rounded to float32, as MXNet 1.9.1 (whose values these are)."""
    d = mx.nd.lamb_update_phase1(mx.nd.array([0.5, -1.25, 2.0, 0.3]), mx.nd.array([0.3, -0.7, 1.9, 0.2]),
                                 mx.nd.array([0.1, 0.2, -0.3, 0.0]), mx.nd.array([0.01, 0.02, 0.03, 0.01]),
                                 beta1=0.9, beta2=0.999, epsilon=1e-6, t=3, bias_correction=True, wd=0.01,
                                 rescale_grad=0.5)
    np.testing.assert_allclose(d.asnumpy(), [0.2169778048992157, 0.19409285485744476, -0.18119846284389496,
                                             0.023200983181595802], rtol=1e-7)
