"""Record MXNet 1.9.1's symbolic control flow (``foreach``, ``while_loop``, ``cond``) for
tests/test_control_flow.py. Run with the reference interpreter::

    /work/mxref/bin/python tools/make_extra_fixtures_control_flow.py

Writes tests/fixtures/extra/control_flow/:

- ``<model>-symbol.json`` and ``<model>-0000.params``: MXNet's export of each block of
  tests/control_flow_models.py after a hybridized forward;
- ``<model>.npz``: the inputs, the parameters (``param:<name>``), the outputs, and the
  gradients of the inputs and parameters for the recorded head gradients, hybridized;
- ``<symbol>.json`` and ``symbols.npz``: the plain symbols of ``symbols()``, with outputs
  and gradients from ``bind`` (``cond`` both ways).
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import control_flow_models as models  # noqa: E402  (defines the blocks for both libraries)

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "control_flow")


def record_model(name):
    net, inputs = models.build(mx, name)
    net.hybridize()
    xs = [mx.nd.array(a) for a in inputs]
    for k, x in enumerate(xs):
        if k not in models.NO_GRAD.get(name, ()):
            x.attach_grad()
    rng = np.random.RandomState(11)
    with mx.autograd.record():
        outs = net(*xs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        heads = [rng.uniform(-1, 1, o.shape).astype("float32") for o in outs]
        loss = sum((o * mx.nd.array(h)).sum() for o, h in zip(outs, heads))
    loss.backward()
    rec = {}
    for k, (a, x) in enumerate(zip(inputs, xs)):
        rec["in%d" % k] = a
        if x.grad is not None:
            rec["in_grad%d" % k] = x.grad.asnumpy()
    for k, (o, h) in enumerate(zip(outs, heads)):
        rec["out%d" % k], rec["head%d" % k] = o.asnumpy(), h
    for pname, p in net.collect_params().items():
        rec["param:" + pname] = p.data().asnumpy()
        rec["grad:" + pname] = p.grad().asnumpy()
    net.export(os.path.join(OUT, name))
    np.savez(os.path.join(OUT, name + ".npz"), **rec)


SYMBOL_VALUES = {
    "while": [{"i": [0.0], "s": [0.5, -1.0], "k": [0.25, 2.0]}],
    "cond": [{"a": [1.0, 2.0], "b": [0.5, -3.0]}, {"a": [4.0, 3.0], "b": [-0.5, 1.5]}],
    "foreach": [None],
}


def record_symbols():
    rec = {}
    rng = np.random.RandomState(3)
    for name, sym in models.symbols(mx).items():
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            f.write(sym.tojson())
        for case, given in enumerate(SYMBOL_VALUES[name]):
            shapes = models.SYMBOL_INPUTS[name]
            values = {k: (np.array(given[k], "float32") if given else rng.uniform(-1, 1, s).astype("float32"))
                      for k, s in shapes.items()}
            args = {k: mx.nd.array(v) for k, v in values.items()}
            grads = {k: mx.nd.zeros(v.shape) for k, v in values.items()}
            key = "%s/%d/" % (name, case)
            try:  # MXNet cannot bind _foreach's backward when the body closes over another node's output
                ex = sym.bind(mx.cpu(), args, args_grad=grads)
            except mx.base.MXNetError as err:
                print("%s: no gradients recorded: %s" % (name, str(err).splitlines()[0][:100]))
                ex, grads = sym.bind(mx.cpu(), args, grad_req="null"), {}
            outs = ex.forward(is_train=True)
            heads = [rng.uniform(-1, 1, o.shape).astype("float32") for o in outs]
            if grads:
                ex.backward([mx.nd.array(h) for h in heads])
            for k, v in values.items():
                rec[key + "in:" + k] = v
                if k in grads:
                    rec[key + "grad:" + k] = grads[k].asnumpy()
            for k, (o, h) in enumerate(zip(outs, heads)):
                rec[key + "out%d" % k], rec[key + "head%d" % k] = o.asnumpy(), h
    np.savez(os.path.join(OUT, "symbols.npz"), **rec)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in models.MODELS:
        record_model(name)
    record_symbols()
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
