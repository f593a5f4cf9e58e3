"""Reference data for the fused Gluon RNN layers, made with real MXNet 1.9.1.

Run with the side venv: ``/tmp/mxref/bin/python tools/make_extra_fixtures_rnn_layers.py``.
Writes ``tests/fixtures/extra/rnn_layers/``:

- ``<case>.npz``: ``param:<name>`` (by the layer's parameter names, prefix stripped), ``x``,
  ``state:<i>``, predict-mode ``out``, ``state_out:<i>``, and, for a random head gradient
  ``head:*`` on every output, ``grad:x``, ``grad:state:<i>``, ``grad:param:<name>`` (not for
  projection cases: MXNet's CPU kernel has no LSTMP backward).
- ``<case>.params``: the layer's ``save_parameters`` file (MXNet's ``_unfused`` names).
- ``meta.json``: per case the constructor arguments, ``collect_params`` names, the
  structural names of ``save_parameters``, ``repr``, ``state_info(2)`` and the
  ``begin_state`` names.
"""
import json
import os

import mxnet as mx
import numpy as np
from mxnet.gluon import rnn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "rnn_layers")
RNG = np.random.RandomState(7)

CASES = {
    "lstm_2x_bidir_ntc": ("LSTM", dict(hidden_size=5, num_layers=2, bidirectional=True, layout="NTC"), (3, 4, 6)),
    "lstm_proj": ("LSTM", dict(hidden_size=6, num_layers=2, projection_size=3), (4, 2, 5)),
    "lstm_proj_bidir": ("LSTM", dict(hidden_size=6, num_layers=1, projection_size=4, bidirectional=True), (4, 2, 3)),
    "gru_3x": ("GRU", dict(hidden_size=4, num_layers=3), (5, 2, 3)),
    "gru_bidir": ("GRU", dict(hidden_size=4, bidirectional=True, layout="NTC"), (2, 5, 3)),
    "rnn_relu_2x_bidir": ("RNN", dict(hidden_size=4, num_layers=2, bidirectional=True), (5, 2, 3)),
    "rnn_tanh": ("RNN", dict(hidden_size=7, activation="tanh", input_size=3), (5, 2, 3)),
}


def _forward_backward(layer, x, states):
    """Outputs, final states and random heads after backward of sum(output * head)."""
    x.attach_grad()
    for s in states:
        s.attach_grad()
    with mx.autograd.record(train_mode=False):
        out, new_states = layer(x, states)
        heads = [mx.nd.array(RNG.uniform(-1, 1, o.shape)) for o in [out] + list(new_states)]
        loss = sum((o * h).sum() for o, h in zip([out] + list(new_states), heads))
    loss.backward()
    return out, new_states, heads


def run_case(name, kind, kwargs, shape):
    layer = getattr(rnn, kind)(prefix=name + "_", **kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(RNG.uniform(-1, 1, shape))
    batch = shape[kwargs.get("layout", "TNC").find("N")]
    states = [mx.nd.array(RNG.uniform(-1, 1, info["shape"])) for info in layer.state_info(batch)]
    layer(x)   # finish deferred initialisation
    arrays = {"x": x.asnumpy()}
    params = {p.name[len(layer.prefix):]: p for p in layer.collect_params().values()}
    for pname, p in params.items():
        arrays["param:" + pname] = p.data().asnumpy()
        p.grad_req = "write"
    for i, s in enumerate(states):
        arrays["state:%d" % i] = s.asnumpy()
    if kwargs.get("projection_size"):   # MXNet's CPU kernel has no LSTMP backward: forward only
        out, new_states = layer(x, states)
        heads = [mx.nd.array(RNG.uniform(-1, 1, o.shape)) for o in [out] + list(new_states)]
    else:
        out, new_states, heads = _forward_backward(layer, x, states)
    arrays["out"] = out.asnumpy()
    for i, (s, h) in enumerate(zip(new_states, heads[1:])):
        arrays["state_out:%d" % i] = s.asnumpy()
    arrays["head:out"] = heads[0].asnumpy()
    for i, h in enumerate(heads[1:]):
        arrays["head:state:%d" % i] = h.asnumpy()
    if x.grad is not None:
        arrays["grad:x"] = x.grad.asnumpy()
        for i, s in enumerate(states):
            arrays["grad:state:%d" % i] = s.grad.asnumpy()
        for pname, p in params.items():
            arrays["grad:param:" + pname] = p.grad().asnumpy()
    np.savez(os.path.join(OUT, name + ".npz"), **arrays)
    layer.save_parameters(os.path.join(OUT, name + ".params"))
    return {"kind": kind, "kwargs": kwargs, "prefix": layer.prefix,
            "collect_params": list(layer.collect_params().keys()),
            "structural": sorted(layer._collect_params_with_prefix().keys()),
            "repr": repr(layer), "state_info": [dict(i, shape=list(i["shape"])) for i in layer.state_info(2)],
            "begin_state_names": [s.name for s in layer.begin_state(2, func=mx.sym.zeros)]}


def main():
    os.makedirs(OUT, exist_ok=True)
    meta = {name: run_case(name, *spec) for name, spec in CASES.items()}
    meta["repr_deferred"] = {"RNN(4, dropout=0.5)": repr(rnn.RNN(4, dropout=0.5)),
                             "GRU(3, num_layers=2, bidirectional=True, input_size=2)":
                                 repr(rnn.GRU(3, num_layers=2, bidirectional=True, input_size=2))}
    with open(os.path.join(OUT, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
