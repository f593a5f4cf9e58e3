"""Record MXNet 1.9.1's answers for the fused ``RNN`` operator beyond the shared fixtures.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_rnn.py

Writes to ``tests/fixtures/extra/rnn/``:

* ``<case>.npz`` for each operator case: the inputs (``in:<name>``), MXNet's outputs in
  predict mode (``out:<i>``), the head gradients (``head:<i>``) and the gradients of
  the inputs after a recorded train-mode pass (``grad:<name>``); the attributes as a
  JSON string under ``attrs`` and the input names under ``inputs``;
* ``gluon_<case>.npz``: a ``gluon.rnn`` fused layer's named parameters
  (``param:l0_i2h_weight``, ...), its input, states and outputs, which pin the flat
  parameter layout to the one Gluon uses (the projection cases carry their named
  parameters too);
* ``infer.json``: ``Symbol.infer_shape`` argument and output shapes and ``list_outputs``
  for a grid of configurations.
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "rnn")
GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _shapes(attrs, data_shape):
    """MXNet's inferred argument shapes, output names and output shapes for an RNN."""
    names = ["data", "parameters", "state"] + (["state_cell"] if attrs["mode"] == "lstm" else [])
    if attrs.get("use_sequence_length"):
        names.append("sequence_length")
    sym = mx.sym.RNN(**{n: mx.sym.var(n) for n in names}, **attrs)
    arg_shapes, out_shapes, _ = sym.infer_shape(data=data_shape)
    return dict(zip(sym.list_arguments(), arg_shapes)), sym.list_outputs(), out_shapes


def op_case(name, attrs, data_shape, seed, lengths=None, scale=0.5, data_scale=1.0, grads=True):
    """Run ``mx.nd.RNN`` on seeded random inputs; record outputs and (unless the train
    pass is random) gradients."""
    rng = np.random.RandomState(seed)
    attrs = dict(attrs, state_outputs=True)
    shapes, _, _ = _shapes(attrs, data_shape)
    inputs = {}
    for n, shape in shapes.items():
        if n == "sequence_length":
            inputs[n] = np.asarray(lengths, dtype=np.int32)
        elif n == "data":
            inputs[n] = (rng.uniform(-1, 1, shape) * data_scale).astype(np.float32)
        else:
            inputs[n] = rng.uniform(-scale, scale, shape).astype(np.float32)
    nd = {n: mx.nd.array(v, dtype=v.dtype) for n, v in inputs.items()}
    outs = mx.nd.RNN(**nd, **attrs)
    rec = {"attrs": json.dumps(attrs), "inputs": json.dumps(list(shapes))}
    rec.update({"in:" + n: v for n, v in inputs.items()})
    rec.update({"out:%d" % i: o.asnumpy() for i, o in enumerate(outs)})
    if grads:
        rec.update(_gradients(nd, attrs, rng))
    np.savez(os.path.join(OUT, name + ".npz"), **rec)


def _gradients(nd, attrs, rng):
    """Head gradients and the inputs' gradients after a recorded train-mode pass."""
    grads = [n for n in nd if n != "sequence_length"]
    for n in grads:
        nd[n].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = mx.nd.RNN(**nd, **attrs)
    heads = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h) for h in heads])
    rec = {"head:%d" % i: h for i, h in enumerate(heads)}
    rec.update({"grad:" + n: nd[n].grad.asnumpy() for n in grads})
    return rec


def gluon_case(name, cls, seed, data_shape, **kwargs):
    """A Gluon fused layer's named parameters, input, states and outputs."""
    mx.random.seed(seed)
    rng = np.random.RandomState(seed)
    layer = getattr(mx.gluon.rnn, cls)(input_size=data_shape[2], **kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(rng.uniform(-1, 1, data_shape))
    states = layer.begin_state(batch_size=data_shape[1])
    states = [mx.nd.array(rng.uniform(-0.5, 0.5, s.shape)) for s in states]
    out, new_states = layer(x, states)
    rec = {"param:" + k: v.data().asnumpy() for k, v in layer._reg_params.items()}
    rec.update({"in:data": x.asnumpy(), "out:0": out.asnumpy(), "kwargs": json.dumps(kwargs)})
    rec.update({"in:state%d" % i: s.asnumpy() for i, s in enumerate(states)})
    rec.update({"out:%d" % (i + 1): s.asnumpy() for i, s in enumerate(new_states)})
    np.savez(os.path.join(OUT, "gluon_" + name + ".npz"), **rec)


def _flat_params(named, layers, dirs):
    """Gluon's concatenation of named parameters into the flat vector (rnn_layer.py)."""
    keys = ["%s%d_%s_%s" % (d, l, g, t) for t in ("weight", "bias") for l in range(layers)
            for d in "lr"[:dirs] for g in ("i2h", "h2h", "h2r") if "%s%d_%s_%s" % (d, l, g, t) in named]
    return keys, mx.nd.concat(*[named[k].reshape(-1) for k in keys], dim=0)


def _lstmp_stack(layer, hidden, proj, layers, dirs, input_size):
    """An unrolled LSTMPCell stack sharing the fused layer's parameters (MXNet's own cells)."""
    cell = mx.gluon.contrib.rnn.LSTMPCell
    stack = mx.gluon.rnn.HybridSequentialRNNCell(prefix=layer.prefix, params=layer.params)
    with stack.name_scope():
        ni = input_size
        for i in range(layers):
            cells = [cell(hidden, proj, input_size=ni, prefix="%s%d_" % (d, i)) for d in "lr"[:dirs]]
            stack.add(mx.gluon.rnn.BidirectionalCell(*cells) if dirs == 2 else cells[0])
            ni = proj * dirs
    return stack


def proj_case(name, hidden, proj, layers, bidir, data_shape, seed):
    """LSTM with projection: outputs of the fused op; gradients from MXNet's unrolled
    LSTMPCell stack (MXNet 1.9.1's CPU RNN has no backward with projection), whose
    forward is checked against the fused op's first."""
    mx.random.seed(seed)
    rng = np.random.RandomState(seed)
    dirs = 2 if bidir else 1
    t, n, c = data_shape
    layer = mx.gluon.rnn.LSTM(hidden, layers, bidirectional=bidir, projection_size=proj, input_size=c)
    layer.initialize(mx.init.Uniform(0.5))
    named = {k: v.data() for k, v in layer._reg_params.items()}
    keys, flat = _flat_params(named, layers, dirs)
    x = mx.nd.array(rng.uniform(-1, 1, data_shape))
    h0 = mx.nd.array(rng.uniform(-0.5, 0.5, (layers * dirs, n, proj)))
    c0 = mx.nd.array(rng.uniform(-0.5, 0.5, (layers * dirs, n, hidden)))
    attrs = dict(mode="lstm", state_size=hidden, num_layers=layers, bidirectional=bidir,
                 projection_size=proj, state_outputs=True)
    fused = mx.nd.RNN(x, flat, h0, c0, **attrs)

    stack = _lstmp_stack(layer, hidden, proj, layers, dirs, c)
    for a in [x, h0, c0] + list(named.values()):
        a.attach_grad()
    with mx.autograd.record(train_mode=True):
        begin = [s for k in range(layers * dirs) for s in (h0[k], c0[k])]
        out, states = stack.unroll(t, x, begin_state=begin, layout="TNC", merge_outputs=True)
        outs = [out, mx.nd.stack(*states[0::2]), mx.nd.stack(*states[1::2])]
    for f, u in zip(fused, outs):
        np.testing.assert_allclose(f.asnumpy(), u.asnumpy(), rtol=1e-4, atol=1e-5)
    heads = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h) for h in heads])
    rec = {"attrs": json.dumps(attrs), "inputs": json.dumps(["data", "parameters", "state", "state_cell"]),
           "in:data": x.asnumpy(), "in:parameters": flat.asnumpy(), "in:state": h0.asnumpy(),
           "in:state_cell": c0.asnumpy(), "grad:data": x.grad.asnumpy(), "grad:state": h0.grad.asnumpy(),
           "grad:state_cell": c0.grad.asnumpy(),
           "grad:parameters": np.concatenate([named[k].grad.asnumpy().ravel() for k in keys])}
    rec.update({"out:%d" % i: o.asnumpy() for i, o in enumerate(fused)})
    rec.update({"head:%d" % i: h for i, h in enumerate(heads)})
    rec.update({"param:" + k: v.asnumpy() for k, v in named.items()})
    np.savez(os.path.join(OUT, name + ".npz"), **rec)


def infer_grid():
    """Argument shapes and output names over modes, layers, directions and projection."""
    rows = []
    for mode in GATES:
        for layers in (1, 3):
            for bidir in (False, True):
                for proj in ((None, 2) if mode == "lstm" else (None,)):
                    for so in (False, True):
                        attrs = dict(mode=mode, state_size=5, num_layers=layers, bidirectional=bidir,
                                     state_outputs=so, use_sequence_length=layers == 3)
                        if proj:
                            attrs["projection_size"] = proj
                        shapes, outputs, out_shapes = _shapes(attrs, (7, 3, 6))
                        rows.append({"attrs": attrs, "data": [7, 3, 6], "shapes": list(shapes.items()), "outputs": outputs,
                                     "out_shapes": out_shapes})
    with open(os.path.join(OUT, "infer.json"), "w") as f:
        json.dump(rows, f, indent=1, sort_keys=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    proj_case("lstm_proj_2layer", 5, 3, 2, False, (4, 3, 4), 1)
    proj_case("lstm_proj_bidir", 4, 2, 2, True, (5, 2, 3), 2)
    op_case("lstm_seqlen_bidir", dict(mode="lstm", state_size=4, num_layers=1, bidirectional=True,
                                      use_sequence_length=True), (5, 3, 3), 3, lengths=[5, 2, 3])
    op_case("gru_seqlen_bidir_2layer", dict(mode="gru", state_size=3, num_layers=2, bidirectional=True,
                                            use_sequence_length=True), (4, 3, 2), 4, lengths=[1, 4, 2])
    op_case("lstm_clip_nan", dict(mode="lstm", state_size=4, num_layers=2, lstm_state_clip_min=-0.1,
                                  lstm_state_clip_max=0.1, lstm_state_clip_nan=True), (4, 2, 3), 5,
            scale=1.5, data_scale=3.0)
    op_case("rnn_relu_3layer", dict(mode="rnn_relu", state_size=4, num_layers=3), (3, 2, 3), 6)
    op_case("rnn_tanh_dropout_predict", dict(mode="rnn_tanh", state_size=4, num_layers=3, p=0.5), (3, 2, 3), 9,
            grads=False)
    gluon_case("lstm_bidir", "LSTM", 7, (4, 2, 3), hidden_size=4, num_layers=2, bidirectional=True)
    gluon_case("gru_bidir", "GRU", 8, (3, 2, 4), hidden_size=3, num_layers=2, bidirectional=True)
    infer_grid()


if __name__ == "__main__":
    main()
