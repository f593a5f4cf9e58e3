"""Models in MXNet 1.9.1's np/npx style train on neogluon to MXNet's losses.

``tests/fixtures/extra/numpy_models/models.py.txt`` holds an LSTM language model and the
d2l book's pieces (its own code, d2l 1.0.3): linear regression from scratch and concise,
softmax regression, RNN language models from scratch and concise, a two-layer GRU, the
seq2seq encoder, additive and dot-product attention, multi-head attention with positional
encoding, a Transformer encoder, BERT (masked LM + next sentence), LeNet, the Gluon crash
course's LeNet and ResNet-18 (the book's topology at an eighth of its width). MXNet 1.9.1 trained
each for three SGD steps on one synthetic batch from recorded parameters
(``tools/make_extra_fixtures_numpy_models.py``); the same source runs here.
"""
import math
import os

import numpy as onp
import pytest

from neogluon import autograd, gluon, np, npx
from neogluon.gluon import nn, rnn

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "numpy_models")


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def load_source():
    env = dict(np=np, npx=npx, nn=nn, rnn=rnn, gluon=gluon, autograd=autograd, math=math)
    exec(open(os.path.join(HERE, "models.py.txt")).read(), env)  # pylint: disable=exec-used
    return env


ENV = load_source()
RUNS = [(case, False) for case in ENV["CASES"]] + [(case, True) for case in ENV["CASES"]
                                                   if ENV["CASES"][case].get("hybridizable")]


@pytest.mark.parametrize("case,hybridize", RUNS, ids=["%s%s" % (c, "-hybridized" if h else "") for c, h in RUNS])
def test_trains_to_mxnet_losses(case, hybridize):
    npx.set_np()
    env = load_source()
    rec = dict(onp.load(os.path.join(HERE, case + ".npz")))
    data = [rec["x%d" % j] for j in range(sum(k.startswith("x") for k in rec))]
    values = {k[2:]: v for k, v in rec.items() if k.startswith("p:")}
    net, scratch = env["CASES"][case]["build"]()
    net.initialize()
    if hybridize:
        net.hybridize()
    arrays = [np.array(d, dtype=d.dtype) for d in data]
    env["first_forward"](case, net, arrays)
    params = env["set_parameters"](net, scratch, values)
    losses = env["train"](case, net, params, arrays)
    onp.testing.assert_allclose(losses, rec["losses_hybrid" if hybridize else "losses"], rtol=2e-5, atol=2e-6)
