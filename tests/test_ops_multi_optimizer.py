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
