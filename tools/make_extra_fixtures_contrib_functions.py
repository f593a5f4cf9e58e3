"""Record MXNet 1.9.1's Python functions of ``mx.nd.contrib`` (imperative ``foreach``,
``while_loop``, ``cond``, ``isinf``/``isfinite``/``isnan``, the optimizer wrappers) and
``mx.nd.histogram``.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_contrib_functions.py

It writes ``tests/fixtures/extra/contrib_functions/values.npz``, read by
``tests/test_contrib_functions.py`` (which defines the same bodies).
"""
import os
import warnings

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "contrib_functions")
RNG = np.random.RandomState(5)


def U(*shape):
    return RNG.uniform(-1, 1, size=shape).astype("float32")


def main():
    os.makedirs(OUT, exist_ok=True)
    nd = mx.nd
    out = {}
    data, init = U(4, 3), U(3)
    out["foreach:data"], out["foreach:init"] = data, init
    x, s0 = nd.array(data), nd.array(init)
    x.attach_grad()
    s0.attach_grad()
    with mx.autograd.record():
        outs, state = nd.contrib.foreach(lambda d, s: ([d * 2 + s[0], d.sum()], [s[0] + d]), x, [s0])
        loss = (outs[0] * outs[0]).sum() + outs[1].sum() * 3 + (state[0] * 2).sum()
    loss.backward()
    out["foreach:out0"], out["foreach:out1"], out["foreach:state"] = outs[0].asnumpy(), outs[1].asnumpy(), \
        state[0].asnumpy()
    out["foreach:grad_data"], out["foreach:grad_init"] = x.grad.asnumpy(), s0.grad.asnumpy()
    two = [nd.array(U(3, 2)), nd.array(U(3, 2))]
    out["foreach2:a"], out["foreach2:b"] = two[0].asnumpy(), two[1].asnumpy()
    outs, state = nd.contrib.foreach(lambda d, s: (d[0] * d[1], s + d[0]), two, nd.zeros((2,)))
    out["foreach2:out"], out["foreach2:state"] = outs.asnumpy(), state.asnumpy()

    i0, v0 = nd.array([0.0]), nd.array(U(2))
    outs, (i, v) = nd.contrib.while_loop(lambda i, v: i < 3, lambda i, v: ([v * i, i], [i + 1, v * 2]), [i0, v0],
                                         max_iterations=5)
    out["while:v0"] = v0.asnumpy()
    out["while:out0"], out["while:out1"] = outs[0].asnumpy()[:3], outs[1].asnumpy()[:3]  # the rest is uninitialised
    out["while:shapes"] = np.array([outs[0].shape, outs[1].shape])
    out["while:i"], out["while:v"] = i.asnumpy(), v.asnumpy()
    out["cond:then"] = nd.contrib.cond(nd.array([1]), lambda: v0 * 3, lambda: v0 - 1).asnumpy()
    out["cond:else"] = nd.contrib.cond(nd.array([0]), lambda: v0 * 3, lambda: v0 - 1).asnumpy()

    special = np.array([1.0, np.inf, -np.inf, np.nan, -2.0], "float32")
    out["special"] = special
    for fn in ("isinf", "isfinite", "isnan"):
        out["special:" + fn] = getattr(nd.contrib, fn)(nd.array(special)).asnumpy()

    hist_data = U(30)
    out["hist:data"] = hist_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts, edges = nd.histogram(nd.array(hist_data), bins=4)
    out["hist:counts"], out["hist:edges"] = counts.asnumpy(), edges.asnumpy()
    counts, edges = nd.histogram(nd.array(hist_data), bins=3, range=(-0.5, 0.5))
    out["hist_range:counts"], out["hist_range:edges"] = counts.asnumpy(), edges.asnumpy()

    shapes = [(3, 2), (4,)]
    w, g, m, v = ([U(*s) for s in shapes] for _ in range(4))
    v = [abs(a) for a in v]
    for k, arrays in (("w", w), ("g", g), ("m", m), ("v", v)):
        for j, a in enumerate(arrays):
            out["adamw:%s%d" % (k, j)] = a
    W, G, M, V = ([nd.array(a) for a in arrays] for arrays in (w, g, m, v))
    nd.contrib.multi_adamw_update(W, G, M, V, 0.5, lrs=[0.1, 0.2], wds=[0.01, 0.0], etas=[1.0, 0.5], out=W)
    for j in range(2):
        out["adamw:new_w%d" % j], out["adamw:new_m%d" % j] = W[j].asnumpy(), M[j].asnumpy()
    W, G, M, V = ([nd.array(a) for a in arrays] for arrays in (w, g, m, v))
    nd.contrib.adamw_update(W[0], G[0], M[0], V[0], 0.5, lr=0.1, eta=1.0, wd=0.01, out=W[0])
    out["adamw_single:new_w"] = W[0].asnumpy()
    W, G, M, V = ([nd.array(a) for a in arrays] for arrays in (w, g, m, v))
    nd.contrib.multi_lamb_update(W, G, M, V, step_count=[2, 3], lrs=[0.1, 0.2], wds=[0.01, 0.0], out=W)
    for j in range(2):
        out["lamb:new_w%d" % j] = W[j].asnumpy()
    np.savez(os.path.join(OUT, "values.npz"), **out)
    print("contrib_functions: %d arrays" % len(out))


if __name__ == "__main__":
    main()
