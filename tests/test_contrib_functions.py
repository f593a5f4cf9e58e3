"""``mx.nd.contrib``'s Python functions (imperative ``foreach``, ``while_loop``, ``cond``,
``isinf``/``isfinite``/``isnan``, the optimizer wrappers GluonNLP calls) and
``mx.nd.histogram`` against MXNet 1.9.1 (recorded by
tools/make_extra_fixtures_contrib_functions.py with the same bodies)."""
import os
import warnings

import numpy as np
import pytest

import neogluon as mx

V = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "contrib_functions",
                         "values.npz"))
nd = mx.nd


def close(a, key, rtol=1e-5, atol=1e-6):
    a = a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)
    assert a.shape == V[key].shape and a.dtype == V[key].dtype, (key, a.shape, a.dtype, V[key].shape, V[key].dtype)
    np.testing.assert_allclose(a, V[key], rtol=rtol, atol=atol, err_msg=key)


def test_foreach_outputs_states_and_gradients():
    x, s0 = nd.array(V["foreach:data"]), nd.array(V["foreach:init"])
    x.attach_grad()
    s0.attach_grad()
    with mx.autograd.record():
        outs, state = nd.contrib.foreach(lambda d, s: ([d * 2 + s[0], d.sum()], [s[0] + d]), x, [s0])
        loss = (outs[0] * outs[0]).sum() + outs[1].sum() * 3 + (state[0] * 2).sum()
    loss.backward()
    close(outs[0], "foreach:out0")
    close(outs[1], "foreach:out1")
    close(state[0], "foreach:state")
    close(x.grad, "foreach:grad_data")
    close(s0.grad, "foreach:grad_init")


def test_foreach_over_a_list_of_arrays():
    outs, state = nd.contrib.foreach(lambda d, s: (d[0] * d[1], s + d[0]),
                                     [nd.array(V["foreach2:a"]), nd.array(V["foreach2:b"])], nd.zeros((2,)))
    close(outs, "foreach2:out")
    close(state, "foreach2:state")


def test_while_loop_stacks_and_pads_to_max_iterations():
    outs, (i, v) = nd.contrib.while_loop(lambda i, v: i < 3, lambda i, v: ([v * i, i], [i + 1, v * 2]),
                                         [nd.array([0.0]), nd.array(V["while:v0"])], max_iterations=5)
    assert [list(o.shape) for o in outs] == V["while:shapes"].tolist()
    close(outs[0][:3], "while:out0")
    close(outs[1][:3], "while:out1")
    assert not outs[0][3:].asnumpy().any()  # MXNet leaves the padding uninitialised; zeros here
    close(i, "while:i")
    close(v, "while:v")
    with pytest.raises(ValueError, match="max_iterations"):
        nd.contrib.while_loop(lambda v: v < 1, lambda v: (v, v), nd.zeros((1,)))


def test_cond_picks_a_branch():
    v0 = nd.array(V["while:v0"])
    close(nd.contrib.cond(nd.array([1]), lambda: v0 * 3, lambda: v0 - 1), "cond:then")
    close(nd.contrib.cond(nd.array([0]), lambda: v0 * 3, lambda: v0 - 1), "cond:else")


@pytest.mark.parametrize("fn", ["isinf", "isfinite", "isnan"])
def test_float_checks(fn):
    close(getattr(nd.contrib, fn)(nd.array(V["special"])), "special:" + fn)


def test_histogram_front_function():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts, edges = nd.histogram(nd.array(V["hist:data"]), bins=4)
    close(counts, "hist:counts")
    close(edges, "hist:edges")
    counts, edges = nd.histogram(nd.array(V["hist:data"]), bins=3, range=(-0.5, 0.5))
    close(counts, "hist_range:counts")
    close(edges, "hist_range:edges")
    with pytest.raises(ValueError):
        nd.histogram(nd.array(V["hist:data"]), bins=2.5)


def _arrays():
    return ([nd.array(V["adamw:%s%d" % (k, j)]) for j in range(2)] for k in "wgmv")


def test_optimizer_wrappers():
    W, G, M, Var = _arrays()
    nd.contrib.multi_adamw_update(W, G, M, Var, 0.5, lrs=[0.1, 0.2], wds=[0.01, 0.0], etas=[1.0, 0.5], out=W)
    for j in range(2):
        close(W[j], "adamw:new_w%d" % j)
        close(M[j], "adamw:new_m%d" % j)
    W, G, M, Var = _arrays()
    nd.contrib.adamw_update(W[0], G[0], M[0], Var[0], 0.5, lr=0.1, eta=1.0, wd=0.01, out=W[0])
    close(W[0], "adamw_single:new_w")
    W, G, M, Var = _arrays()
    nd.contrib.multi_lamb_update(W, G, M, Var, step_count=[2, 3], lrs=[0.1, 0.2], wds=[0.01, 0.0], out=W)
    for j in range(2):
        close(W[j], "lamb:new_w%d" % j)


def test_sym_contrib_rand_zipfian_matches_mxnet():
    """``mx.sym.contrib.rand_zipfian`` (MXNet 1.9.1's symbol/contrib.py): graph nodes with
    the dtypes, shapes and expected counts MXNet gives (true classes [3, 0], 4 draws of 5)."""
    t = mx.sym.var("t")
    samples, ect, ecs = mx.sym.contrib.rand_zipfian(t, 4, 5)
    assert (samples.list_arguments(), ect.list_arguments(), ecs.list_arguments()) == ([], ["t"], [])
    r = mx.sym.Group([samples, ect, ecs]).bind(mx.cpu(), args={"t": mx.nd.array([3, 0])}).forward()
    assert [(o.dtype, o.shape) for o in r] == [(np.int64, (4,)), (np.float64, (2,)), (np.float64, (4,))]
    np.testing.assert_allclose(r[1].asnumpy(), [0.498155148939376, 1.5474112289381663], rtol=1e-12)
    s = r[0].asnumpy().astype("float64")
    assert ((s >= 0) & (s < 5)).all()
    np.testing.assert_allclose(r[2].asnumpy(), np.log((s + 2) / (s + 1)) / np.log(6) * 4, rtol=1e-12)
    with pytest.raises(AssertionError, match="unexpected type"):
        mx.sym.contrib.rand_zipfian(mx.nd.array([1]), 4, 5)
