"""Record what MXNet 1.9.1 does with ``_CustomFunction``, the node an ``autograd.Function``
call leaves in the recorded graph, for tests/test_custom_function.py. Run with the
reference interpreter::

    /work/mxref/bin/python tools/make_extra_fixtures_custom_function.py

Writes tests/fixtures/extra/custom_function/: ``graph-symbol.json`` (``autograd.get_symbol``
of a graph with a two-output Function: a ``_CustomFunction`` node without attributes),
``cases.json`` (the errors MXNet gives for that JSON, for an imperative call of the
operator and for running the node) and ``values.npz`` (the Function's outputs and
gradients).
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "custom_function")


class Sigmoid2(mx.autograd.Function):
    """Two outputs: sigmoid(x) * y and x * 2, with a hand-written backward."""

    def forward(self, x, y):  # pylint: disable=arguments-differ
        z = 1 / (1 + mx.nd.exp(-x)) * y
        self.save_for_backward(x, y)
        return z, x * 2

    def backward(self, dz, dw):  # pylint: disable=arguments-differ
        x, y = self.saved_tensors
        s = 1 / (1 + mx.nd.exp(-x))
        return dz * s * (1 - s) * y + dw * 2, dz * s


def first_line(err):
    lines = [ln for ln in str(err).strip().split("\n") if ln.strip()]
    return ([ln for ln in lines if ln.startswith("MXNetError:")] or lines[-1:])[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(4)
    xv, yv = rng.uniform(-2, 2, (3, 2)).astype("float32"), rng.uniform(-2, 2, (3, 2)).astype("float32")
    head = rng.uniform(-1, 1, (3, 2)).astype("float32")
    x, y = mx.nd.array(xv), mx.nd.array(yv)
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        z, w = Sigmoid2()(x, y)
        t = z + w
    live = mx.autograd.get_symbol(t)
    text = live.tojson()
    cases = {"outputs": live.get_internals().list_outputs()}
    checks = (("eval", lambda: live.eval(var0=x, var1=y)[0].asnumpy()),
              ("load_json", lambda: mx.sym.load_json(text).get_internals().list_outputs()),
              ("imperative", lambda: mx.nd._internal._CustomFunction(x)))
    for what, fn in checks:  # the graph is used before backward, which frees it
        try:
            fn()
            cases[what] = None
        except mx.base.MXNetError as err:
            cases[what] = first_line(err)
    t.backward(mx.nd.array(head))
    np.savez(os.path.join(OUT, "values.npz"), x=xv, y=yv, head=head, z=z.asnumpy(), w=w.asnumpy(),
             grad_x=x.grad.asnumpy(), grad_y=y.grad.asnumpy())
    with open(os.path.join(OUT, "graph-symbol.json"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)
    print(cases)


if __name__ == "__main__":
    main()
