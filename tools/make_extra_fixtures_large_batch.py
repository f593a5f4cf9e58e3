"""Record MXNet 1.9.1's LARS and LBSGD optimizers: weights and states after each of five
updates of named parameters with fixed gradients (LARS also through its aggregated
multi-tensor path, and with a scheduler so that the momentum correction acts).

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_large_batch.py
Writes tests/fixtures/extra/large_batch/cases.npz and cases.json.
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "large_batch")
NAMES = ["fc_weight", "fc_bias", "bn_gamma", "conv_weight", "out_weight"]
SHAPES = [(4, 3), (4,), (4,), (2, 3, 2), (5,)]
CASES = {
    "lars_mom_sched": ("lars", dict(learning_rate=0.5, momentum=0.9, wd=1e-3, rescale_grad=0.5, eta=0.01,
                                    eps=1e-9), True),
    "lars_plain_single": ("lars", dict(learning_rate=0.2, wd=0.0, eta=0.05), False),
    "lars_mom_single": ("lars", dict(learning_rate=0.2, momentum=0.8, wd=1e-2, clip_gradient=0.5), False),
    "lbsgd_linear": ("lbsgd", dict(learning_rate=0.1, momentum=0.9, batch_scale=2, warmup_epochs=2,
                                   updates_per_epoch=2, warmup_strategy="linear", wd=1e-3), False),
    "lbsgd_lars": ("lbsgd", dict(learning_rate=0.1, batch_scale=2, warmup_strategy="lars"), False),
    "lbsgd_sqrt_scale3": ("lbsgd", dict(learning_rate=0.1, momentum=0.5, batch_scale=3, warmup_epochs=1,
                                        updates_per_epoch=4, warmup_strategy="sqrt"), False),
}


def inputs():
    rng = np.random.RandomState(0)
    weights = [rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES]
    grads = [[rng.uniform(-1, 1, s).astype(np.float32) for s in SHAPES] for _ in range(5)]
    return weights, grads


def main():
    os.makedirs(OUT, exist_ok=True)
    weights0, grads = inputs()
    arrays = {"w0_%d" % i: w for i, w in enumerate(weights0)}
    for i, step in enumerate(grads):
        for j, g in enumerate(step):
            arrays["g%d_%d" % (i, j)] = g
    for case, (name, kw, aggregated) in CASES.items():
        kw = dict(kw)
        if case == "lars_mom_sched":
            kw["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=kw["learning_rate"])
        opt = mx.optimizer.create(name, param_idx2name=dict(enumerate(NAMES)), **kw)
        weights = [mx.nd.array(w) for w in weights0]
        states = [opt.create_state_multi_precision(i, w) for i, w in enumerate(weights)]
        for step, gs in enumerate(grads):
            g = [mx.nd.array(x) for x in gs]
            if aggregated:
                opt.update_multi_precision(list(range(len(NAMES))), weights, g, states)
            else:
                for i in range(len(NAMES)):
                    opt.update_multi_precision(i, weights[i], g[i], states[i])
            for i, w in enumerate(weights):
                arrays["%s_w%d_%d" % (case, step, i)] = w.asnumpy()
                if states[i] is not None:
                    arrays["%s_s%d_%d" % (case, step, i)] = states[i].asnumpy()
    np.savez(os.path.join(OUT, "cases.npz"), **arrays)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "names": NAMES,
                   "cases": {k: [v[0], v[1], v[2]] for k, v in CASES.items()}}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
