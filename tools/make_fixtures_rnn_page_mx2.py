"""Record MXNet 2.0.0b1's answers for the three examples of the ``gluon.rnn`` reference page
(``/work/shared/docs/gluon-rnn-api.txt``: ``RNN``, ``LSTM``, ``GRU`` with
``mx.np.random.uniform`` inputs), the page's own MXNet version.

Run with a side interpreter holding MXNet 2.0.0b1 (never imported by neogluon or its tests)::

    python3 -m venv /work/venvs/mx2
    /work/venvs/mx2/bin/pip install mxnet==2.0.0b1 "numpy<1.24"
    /work/venvs/mx2/bin/python tools/make_fixtures_rnn_page_mx2.py

Each example runs verbatim after a fixed seed; the layer's parameters (MXNet 2 keeps them
as one flat ``rnn_param`` in the fused operator's order), the inputs, the outputs and
states of both calls, imperatively and hybridized, and the gradients of
``(output * head).sum()`` for the second call go to
``tests/fixtures/extra/numpy/rnn_page_mx2_<KIND>.npz``; ``tests/test_numpy_gluon.py``
replays them on neogluon.
"""
import os

import numpy as onp
import mxnet as mx
from mxnet import autograd

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "numpy")


def hybridized(kind, flat):
    layer = getattr(mx.gluon.rnn, kind)(100, 3)
    layer.initialize()
    layer.hybridize()
    layer.rnn_param.set_data(mx.np.array(flat))
    return layer


def record(kind):
    mx.np.random.seed(7)
    # --- the page's example, verbatim
    layer = getattr(mx.gluon.rnn, kind)(100, 3)
    layer.initialize()
    input = mx.np.random.uniform(size=(5, 3, 10))  # pylint: disable=redefined-builtin
    # by default zeros are used as begin state
    output = layer(input)
    # manually specify begin state.
    h0 = mx.np.random.uniform(size=(3, 3, 100))
    if kind == "LSTM":
        c0 = mx.np.random.uniform(size=(3, 3, 100))
        begin = [h0, c0]
    else:
        begin = h0
    output2, hn = layer(input, begin)
    # --- recorded
    rec = dict(rnn_param=layer.rnn_param.data().asnumpy(), input=input.asnumpy(), output0=output.asnumpy(),
               output=output2.asnumpy(), version=onp.array(mx.__version__))
    states = [h0, c0] if kind == "LSTM" else [h0]
    for i, (s, h) in enumerate(zip(states, hn)):
        rec["state%d" % i] = s.asnumpy()
        rec["hn%d" % i] = h.asnumpy()
    head = onp.random.RandomState(3).uniform(-1, 1, size=(5, 3, 100)).astype("float32")
    rec["head"] = head
    input.attach_grad()
    with autograd.record():
        out, _ = layer(input, begin)
        (out * mx.np.array(head)).sum().backward()
    rec["grad_input"] = input.grad.asnumpy()
    rec["grad_rnn_param"] = layer.rnn_param.grad().asnumpy()
    # hybridized, one fresh layer per call form: MXNet 2.0.0b1's cached graph keeps the form
    # of its first call (a later call with states gets only the output back)
    rec["hybrid_output0"] = hybridized(kind, rec["rnn_param"])(input).asnumpy()
    out, hn = hybridized(kind, rec["rnn_param"])(input, begin)
    rec["hybrid_output"] = out.asnumpy()
    for i, h in enumerate(hn):
        rec["hybrid_hn%d" % i] = h.asnumpy()
    onp.savez_compressed(os.path.join(OUT, "rnn_page_mx2_%s.npz" % kind), **rec)
    print(kind, {k: v.shape for k, v in rec.items()})


if __name__ == "__main__":
    for k in ("RNN", "LSTM", "GRU"):
        record(k)
