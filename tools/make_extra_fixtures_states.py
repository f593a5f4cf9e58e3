"""Record MXNet 1.9.1's optimizer states files (``Trainer.save_states``) for tests/test_safe_states.py.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_states.py
Writes tests/fixtures/extra/states/<case>.states (MXNet's pickles, as written), cases.json
(each case's optimizer, parameters and the optimizer attributes after two steps) and
arrays.npz: per case the weights after two steps (``<case>/w<i>``), every state array
(``<case>/s<i>_<j>``), the gradients of a third step (``<case>/g<i>``) and the weights
after that step taken by a fresh Trainer that loaded the states file (``<case>/after<i>``).
"""
import json
import os

import numpy as np
import mxnet as mx
from mxnet import gluon

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "states")

# (case, optimizer, optimizer_params, parameter dtype); lr_scheduler "factor" stands for
# FactorScheduler(step=1, factor=0.5, base_lr=0.1) (cases.json keeps these, for
# tools/check_states_with_mxnet.py)
CASES = [
    ("sgd_momentum", "sgd", dict(learning_rate=0.1, momentum=0.9, wd=0.01), "float32"),
    ("sgd_plain", "sgd", dict(learning_rate=0.1), "float32"),
    ("nag", "nag", dict(learning_rate=0.1, momentum=0.8), "float32"),
    ("adam", "adam", dict(learning_rate=0.01, beta1=0.8, wd=0.1), "float32"),
    ("adagrad", "adagrad", dict(learning_rate=0.1), "float32"),
    ("rmsprop_centered", "rmsprop", dict(learning_rate=0.01, centered=True), "float32"),
    ("adadelta", "adadelta", dict(rho=0.8), "float32"),
    ("ftrl", "ftrl", dict(learning_rate=0.1, lamda1=0.01), "float32"),
    ("signum", "signum", dict(learning_rate=0.01, momentum=0.9), "float32"),
    ("adamax", "adamax", dict(learning_rate=0.01), "float32"),
    ("nadam", "nadam", dict(learning_rate=0.01), "float32"),
    ("ftml", "ftml", dict(learning_rate=0.01), "float32"),
    ("lamb", "lamb", dict(learning_rate=0.01), "float32"),
    ("sgd_mp_scheduler", "sgd", dict(momentum=0.9, multi_precision=True, lr_scheduler="factor"), "float16"),
]


def optimizer_params(kw):
    kw = dict(kw)
    if kw.get("lr_scheduler") == "factor":
        kw["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.1)
    return kw
SHAPES = [(3, 2), (3,)]


def step(trainer, params, grads):
    for p, g in zip(params, grads):
        p.grad()[:] = g
        p.data()._fresh_grad = True  # what backward() sets
    trainer.step(4)


def make_params(dtype, values=None):
    params = []
    for i, shape in enumerate(SHAPES):
        p = gluon.Parameter("p%d" % i, shape=shape, dtype=dtype)
        p.initialize(mx.init.Constant(0.5))
        if values is not None:
            p.set_data(mx.nd.array(values[i], dtype=dtype))
        params.append(p)
    return params


def attrs_of(opt):
    keep = {}
    for k, v in vars(opt).items():
        if isinstance(v, (bool, int, float, str)) or v is None:
            keep[k] = v
    keep["_index_update_count"] = {str(k): v for k, v in opt._index_update_count.items()}
    return keep


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(13)
    cases, arrays = {}, {}
    for name, opt, kw, dtype in CASES:
        params = make_params(dtype)
        trainer = gluon.Trainer(params, opt, optimizer_params(kw))
        for _ in range(2):
            step(trainer, params, [rng.randn(*s).astype(dtype) for s in SHAPES])
        trainer.save_states(os.path.join(OUT, name + ".states"))
        weights = [p.data().asnumpy() for p in params]
        for i, w in enumerate(weights):
            arrays["%s/w%d" % (name, i)] = w
        num_states = {}
        for i, state in trainer._updaters[0].states.items():
            parts = state if isinstance(state, (tuple, list)) else [state]
            num_states[str(i)] = [s is not None for s in parts]
            for j, s in enumerate(parts):
                if s is not None:
                    arrays["%s/s%d_%d" % (name, i, j)] = s.asnumpy()
        # a fresh trainer with other settings loads the file and takes a third step
        fresh = make_params(dtype, weights)
        other = gluon.Trainer(fresh, opt, dict(learning_rate=0.5) if "lr_scheduler" not in kw else {})
        other.load_states(os.path.join(OUT, name + ".states"))
        grads = [rng.randn(*s).astype(dtype) for s in SHAPES]
        step(other, fresh, grads)
        for i, (g, p) in enumerate(zip(grads, fresh)):
            arrays["%s/g%d" % (name, i)] = g
            arrays["%s/after%d" % (name, i)] = p.data().asnumpy()
        cases[name] = dict(optimizer=opt, dtype=dtype, states=num_states, attrs=attrs_of(trainer._optimizer),
                           optimizer_class=type(trainer._optimizer).__name__, optimizer_params=kw)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"mxnet_version": mx.__version__, "shapes": SHAPES, "cases": cases}, f, indent=1, sort_keys=True)
    np.savez(os.path.join(OUT, "arrays.npz"), **arrays)


if __name__ == "__main__":
    main()
