"""Record MXNet 1.9.1's training losses for models written in its np/npx style: an LSTM
language model (imperative and hybridized) and the d2l book's pieces (linear and softmax
regression, RNN language models from scratch and concise, a GRU, the seq2seq encoder,
additive, dot-product and multi-head attention with positional encoding, a Transformer
encoder, BERT), all in ``tests/fixtures/extra/numpy_models/models.py.txt``.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_numpy_models.py

For each case the parameters (random values by structural name), one batch of synthetic
data and the losses of three SGD steps go to ``tests/fixtures/extra/numpy_models/<case>.npz``;
``tests/test_numpy_models.py`` trains the same source on neogluon from those parameters.
"""
import math
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx, autograd, gluon
from mxnet.gluon import nn, rnn

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "numpy_models")


def load_source():
    env = dict(np=np, npx=npx, nn=nn, rnn=rnn, gluon=gluon, autograd=autograd, math=math)
    exec(open(os.path.join(HERE, "models.py.txt")).read(), env)  # pylint: disable=exec-used
    return env


def run(env, case, values, data, hybridize):
    net, scratch = env["CASES"][case]["build"]()
    net.initialize()
    if hybridize:
        net.hybridize()
    arrays = [np.array(d, dtype=d.dtype) for d in data]
    env["first_forward"](case, net, arrays)
    if values is None:
        values = env["parameter_values"](net, scratch, onp.random.RandomState(len(case)))
    params = env["set_parameters"](net, scratch, values)
    return values, env["train"](case, net, params, arrays)


def main():
    npx.set_np()
    env = load_source()
    for i, case in enumerate(env["CASES"]):
        data = env["CASES"][case]["data"](onp.random.RandomState(100 + i))
        values, losses = run(env, case, None, data, False)
        rec = {"p:" + k: v for k, v in values.items()}
        rec.update({"x%d" % j: d for j, d in enumerate(data)})
        rec["losses"] = onp.array(losses)
        if env["CASES"][case].get("hybridizable"):
            rec["losses_hybrid"] = onp.array(run(env, case, values, data, True)[1])
        onp.savez(os.path.join(HERE, case + ".npz"), **rec)
        print(case, losses, rec.get("losses_hybrid"))


if __name__ == "__main__":
    main()
