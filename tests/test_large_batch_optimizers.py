"""LARS and LBSGD against MXNet 1.9.1 (tools/make_extra_fixtures_large_batch.py): weights and
momentum states after each of five updates of named parameters (LARS through its
aggregated multi-tensor path and one by one, with a scheduler for the momentum correction;
LBSGD with gradient accumulation and its warm-up strategies)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "large_batch")
with open(os.path.join(HERE, "cases.json")) as _f:
    META = json.load(_f)
REC = np.load(os.path.join(HERE, "cases.npz"))
NAMES = META["names"]


@pytest.mark.parametrize("case", sorted(META["cases"]))
def test_trajectory_matches_mxnet(case):
    name, kw, aggregated = META["cases"][case]
    kw = dict(kw)
    if case == "lars_mom_sched":
        kw["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=kw["learning_rate"])
    opt = mx.optimizer.create(name, param_idx2name=dict(enumerate(NAMES)), **kw)
    weights = [mx.nd.array(REC["w0_%d" % i]) for i in range(len(NAMES))]
    states = [opt.create_state_multi_precision(i, w) for i, w in enumerate(weights)]
    for step in range(5):
        grads = [mx.nd.array(REC["g%d_%d" % (step, i)]) for i in range(len(NAMES))]
        if aggregated:
            opt.update_multi_precision(list(range(len(NAMES))), weights, grads, states)
        else:
            for i in range(len(NAMES)):
                opt.update_multi_precision(i, weights[i], grads[i], states[i])
        for i, w in enumerate(weights):
            np.testing.assert_allclose(w.asnumpy(), REC["%s_w%d_%d" % (case, step, i)], rtol=1e-5, atol=1e-6,
                                       err_msg="%s step %d %s" % (case, step, NAMES[i]))
            key = "%s_s%d_%d" % (case, step, i)
            if key in REC:
                np.testing.assert_allclose(states[i].asnumpy(), REC[key], rtol=1e-5, atol=1e-6)
            else:
                assert states[i] is None


def test_lars_in_a_trainer():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize(mx.init.Constant(0.5))
    trainer = mx.gluon.Trainer(net.collect_params(), "lars", {"learning_rate": 0.1, "momentum": 0.9})
    with mx.autograd.record():
        loss = net(mx.nd.ones((2, 4))).sum()
    loss.backward()
    trainer.step(2)
    w = net.weight.data().asnumpy()
    assert np.all(w < 0.5) and np.allclose(w, w[0, 0])  # every weight moved down, by one LARS rate
