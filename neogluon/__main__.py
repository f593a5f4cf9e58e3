"""``python -m neogluon``: a short tour that exercises the installed package end to end.

It fits a linear model with ``mx.nd`` and ``mx.autograd``, builds the same model as a
``mx.sym`` graph, runs it through the graph executor, and writes/reads MXNet's file
formats (``-symbol.json`` and ``.params``), printing what it checks along the way.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np


def _fmt(a):
    return "[%s]" % ", ".join("%.3f" % v for v in np.ravel(a))


def tour(out_dir, steps=200):
    import neogluon as mx
    print("neogluon %s (MXNet %s API) on torch, context %s" % (mx.__version__, mx.mxnet_version,
                                                               mx.current_context()))
    mx.random.seed(42)
    rs = np.random.RandomState(0)
    true_w, true_b = np.array([[2.0, -3.4]], "float32"), 4.2
    X = rs.normal(size=(1000, 2)).astype("float32")
    y = X @ true_w.T + true_b + 0.01 * rs.normal(size=(1000, 1)).astype("float32")
    X, y = mx.nd.array(X), mx.nd.array(y)

    # 1. imperative: NDArray + autograd, plain SGD
    w, b = mx.nd.zeros((1, 2)), mx.nd.zeros((1,))
    w.attach_grad()
    b.attach_grad()
    start = time.perf_counter()
    for _ in range(steps):
        with mx.autograd.record():
            loss = ((mx.nd.FullyConnected(X, w, b, num_hidden=1) - y) ** 2).mean()
        loss.backward()
        w[:] = w - 0.1 * w.grad
        b[:] = b - 0.1 * b.grad
    print("imperative: %d SGD steps in %.2fs, loss %.5f, w=%s b=%.3f (true w=%s b=%.1f)"
          % (steps, time.perf_counter() - start, loss.asscalar(), _fmt(w.asnumpy()), b.asscalar(),
             _fmt(true_w), true_b))

    # 2. symbolic: the same model as a graph, shapes inferred, run by the executor
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=1, name="fc")
    arg_shapes, out_shapes, _ = net.infer_shape(data=(1000, 2))
    print("symbol: arguments %s, inferred shapes %s -> %s"
          % (net.list_arguments(), arg_shapes, out_shapes))
    ex = net.bind(mx.cpu(), {"data": X, "fc_weight": w, "fc_bias": b})
    pred = ex.forward()[0]
    agree = np.allclose(pred.asnumpy(), mx.nd.FullyConnected(X, w, b, num_hidden=1).asnumpy(), atol=1e-5)
    print("executor output agrees with mx.nd: %s" % agree)

    # 3. MXNet's file formats, both ways
    prefix = os.path.join(out_dir, "linear")
    net.save(prefix + "-symbol.json")
    mx.nd.save(prefix + "-0000.params", {"arg:fc_weight": w, "arg:fc_bias": b})
    net2 = mx.sym.load(prefix + "-symbol.json")
    params = mx.nd.load(prefix + "-0000.params")
    ex2 = net2.bind(mx.cpu(), {"data": X, **{k[4:]: v for k, v in params.items()}})
    same = np.array_equal(ex2.forward()[0].asnumpy(), pred.asnumpy())
    print("wrote %s-symbol.json and %s-0000.params; reloaded model gives identical outputs: %s"
          % (prefix, prefix, same))
    return agree and same and loss.asscalar() < 1e-3


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m neogluon", description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=None, help="directory for the files written (default: a temporary one)")
    parser.add_argument("--steps", type=int, default=200, help="SGD steps of the imperative fit")
    args = parser.parse_args(argv)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        ok = tour(args.out, args.steps)
    else:
        with tempfile.TemporaryDirectory() as d:
            ok = tour(d, args.steps)
    print("all checks passed" if ok else "SOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
