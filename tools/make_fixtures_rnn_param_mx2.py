"""Record MXNet 2.0.0b1's parameter files of its fused recurrent layers, which keep one flat
``rnn_param`` per layer (MXNet 1.9.1 saves one array per gate matrix), with an input and the
outputs, so that neogluon's ``load_parameters``/``load_dict`` are checked to read them.

Run with the side interpreter holding MXNet 2.0.0b1 (never imported by neogluon or its tests)::

    /work/venvs/mx2/bin/python tools/make_fixtures_rnn_param_mx2.py

Writes ``tests/fixtures/extra/numpy/rnn_param_mx2_<case>.params`` (MXNet 2's
``save_parameters``) and ``.npz`` (``x``, ``out``, and the constructor as ``spec``);
``tests/test_numpy_gluon.py`` replays them.
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx
from mxnet.gluon import nn, rnn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "numpy")
CASES = {  # name: (layer kind, constructor keywords, wrapped in a Sequential with a Dense head)
    "lstm2": ("LSTM", dict(hidden_size=4, num_layers=2, input_size=3), False),
    "gru_bi": ("GRU", dict(hidden_size=4, num_layers=1, bidirectional=True, input_size=3), False),
    "rnn_tanh": ("RNN", dict(hidden_size=5, num_layers=1, activation="tanh", input_size=3), False),
    "lstm_in_net": ("LSTM", dict(hidden_size=4, num_layers=1, input_size=3), True),
}


def build(kind, kwargs, wrapped):
    layer = getattr(rnn, kind)(**kwargs)
    if not wrapped:
        return layer
    net = nn.HybridSequential()
    net.add(layer, nn.Dense(2, flatten=False, in_units=4))
    return net


def main():
    npx.set_np()
    mx.random.seed(16)
    onp.random.seed(16)
    for name, (kind, kwargs, wrapped) in CASES.items():
        net = build(kind, kwargs, wrapped)
        net.initialize(mx.init.Uniform(0.5))
        x = np.array(onp.random.uniform(-1, 1, size=(5, 2, 3)).astype("float32"))
        out = net(x)
        net.save_parameters(os.path.join(OUT, "rnn_param_mx2_%s.params" % name))
        keys = sorted(npx.load(os.path.join(OUT, "rnn_param_mx2_%s.params" % name)).keys())
        onp.savez(os.path.join(OUT, "rnn_param_mx2_%s.npz" % name), x=x.asnumpy(), out=out.asnumpy(),
                  spec=json.dumps(dict(kind=kind, kwargs=kwargs, wrapped=wrapped, keys=keys)))
        print(name, keys)


if __name__ == "__main__":
    main()
