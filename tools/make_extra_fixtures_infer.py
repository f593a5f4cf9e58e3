"""Record how MXNet 1.9.1 infers unknown (0) dimensions through a graph: GluonTS DeepAR's
begin-state pattern (``F.zeros((0, 8))`` through ``F.where(cond, begin_state, state)``
into an LSTM cell, which only a hybridized block can run) and ``infer_shape`` of the
exported graph.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_infer.py

It writes ``tests/fixtures/extra/infer``: ``deepar.params`` (the block's parameters),
``deepar-symbol.json`` (its export), ``deepar.npz`` (inputs, outputs, gradients) and
``deepar.json`` (``infer_shape`` of the export for the inputs' shapes).
"""
import json
import os

import numpy as np
import mxnet as mx
from mxnet.gluon import HybridBlock, rnn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "infer")


class DeepARStep(HybridBlock):
    """One step of DeepAR's encoder: states reset to the begin state where ``reset`` says."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.LSTMCell(8, input_size=4)

    def hybrid_forward(self, F, x, reset, prev_h, prev_c):
        begin = self.cell.begin_state(batch_size=0, func=F.zeros)  # (0, 8): the batch is unknown
        states = [F.where(reset, b, s) for b, s in zip(begin, [prev_h, prev_c])]
        out, new = self.cell(x, states)
        return out, new[1]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(11)
    mx.random.seed(11)
    net = DeepARStep(prefix="deepar_")
    net.initialize(mx.init.Xavier())
    inputs = dict(x=rng.uniform(-1, 1, (3, 4)), reset=(rng.uniform(size=(3, 8)) > 0.5),
                  prev_h=rng.uniform(-1, 1, (3, 8)), prev_c=rng.uniform(-1, 1, (3, 8)))
    inputs = {k: v.astype("float32") for k, v in inputs.items()}
    arrays = [mx.nd.array(inputs[k]) for k in ("x", "reset", "prev_h", "prev_c")]
    try:
        other = DeepARStep(prefix="other_")
        other.initialize()
        other(*arrays)
        raise AssertionError("MXNet ran the imperative form; the fixture assumes it cannot")
    except mx.base.MXNetError:
        pass  # zeros((0, 8)) meets a (3, 8) condition: only the graph can infer the 0
    net.hybridize()
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out, c = net(*arrays)
        loss = (out * out).sum() + (c * 2).sum()
    loss.backward()
    data = {"in:" + k: v for k, v in inputs.items()}
    data["out:0"], data["out:1"] = out.asnumpy(), c.asnumpy()
    for k, a in zip(("x", "reset", "prev_h", "prev_c"), arrays):
        data["grad:" + k] = a.grad.asnumpy()
    for name, p in net.collect_params().items():
        data["pgrad:" + name] = p.grad().asnumpy()
    np.savez(os.path.join(OUT, "deepar.npz"), **data)
    net.save_parameters(os.path.join(OUT, "deepar.params"))
    net.export(os.path.join(OUT, "deepar"))
    os.rename(os.path.join(OUT, "deepar-0000.params"), os.path.join(OUT, "deepar-export.params"))
    sym = mx.sym.load(os.path.join(OUT, "deepar-symbol.json"))
    shapes = {"data0": (3, 4), "data1": (3, 8), "data2": (3, 8), "data3": (3, 8)}
    arg, outs, aux = sym.infer_shape(**shapes)
    internals = sym.get_internals()
    _, int_shapes, _ = internals.infer_shape(**shapes)
    with open(os.path.join(OUT, "deepar.json"), "w") as f:
        json.dump(dict(shapes=shapes, arg_shapes=dict(zip(sym.list_arguments(), arg)), out_shapes=outs,
                       internal_shapes=dict(zip(internals.list_outputs(), int_shapes))), f, indent=1, sort_keys=True)
    partial_cases()
    print("infer: deepar and partial shapes recorded")


def partial_cases():
    """``infer_shape_partial`` of small graphs around ``where`` with unknown dimensions."""
    c, x, y = mx.sym.var("cond"), mx.sym.var("x"), mx.sym.var("y")
    graphs = {
        "zeros_x": (mx.sym.where(c, mx.sym.zeros((0, 8)), y), {"cond": (3, 8)}),
        "rows_cond": (mx.sym.where(c, x, y), {"cond": (3,), "y": (3, 4)}),
        "from_x": (mx.sym.where(c, x, y) + 1, {"x": (2, 5)}),
        "chain": (mx.sym.FullyConnected(mx.sym.where(c, mx.sym.zeros((0, 6)), y), num_hidden=3, name="fc"),
                  {"cond": (4, 6)}),
    }
    out = {}
    for name, (sym, shapes) in graphs.items():
        arg, outs, aux = sym.infer_shape_partial(**shapes)
        out[name] = dict(json=sym.tojson(), shapes=shapes, args=dict(zip(sym.list_arguments(), arg)), outs=outs)
    with open(os.path.join(OUT, "partial.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
