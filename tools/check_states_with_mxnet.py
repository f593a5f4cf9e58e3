"""Check that real MXNet 1.9.1 loads neogluon's ``Trainer.save_states`` files and trains on
from them exactly as neogluon does.

Not part of CI (it needs the reference environment). Run it with the project's Python::

    PYTHONPATH=$PWD python tools/check_states_with_mxnet.py [--mxnet-python /work/mxref/bin/python]

For each optimizer setup of tools/make_extra_fixtures_states.py, neogluon takes two steps,
saves the states, then takes a third step; MXNet (in a subprocess) builds the same
parameters from neogluon's weights after two steps, loads the states file and takes the
third step with the same gradients. The weights must agree. Exits non-zero on a mismatch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402
from neogluon import gluon  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "states")
with open(os.path.join(FIXTURES, "cases.json")) as _f:
    _INFO = json.load(_f)
# the optimizer setups of tools/make_extra_fixtures_states.py
CASES = [(name, c["optimizer"], c["optimizer_params"], c["dtype"]) for name, c in sorted(_INFO["cases"].items())]
SHAPES = [tuple(s) for s in _INFO["shapes"]]

MXNET_SIDE = r'''
import json, sys
import numpy as np
import mxnet as mx
from mxnet import gluon
work = sys.argv[1]
meta = json.load(open(work + "/meta.json"))
data = np.load(work + "/arrays.npz")
out = {}
for name, opt, dtype in meta["cases"]:
    params = []
    for i, shape in enumerate(meta["shapes"]):
        p = gluon.Parameter("p%d" % i, shape=tuple(shape), dtype=dtype)
        p.initialize(mx.init.Constant(0.0))
        p.set_data(mx.nd.array(data["%s/w%d" % (name, i)], dtype=dtype))
        params.append(p)
    trainer = gluon.Trainer(params, opt, {})
    trainer.load_states("%s/%s.states" % (work, name))
    for i, p in enumerate(params):
        p.grad()[:] = mx.nd.array(data["%s/g%d" % (name, i)], dtype=dtype)
        p.data()._fresh_grad = True
    trainer.step(4)
    for i, p in enumerate(params):
        out["%s/after%d" % (name, i)] = p.data().asnumpy()
np.savez(work + "/mxnet.npz", **out)
'''


def step(trainer, params, grads):
    for p, g in zip(params, grads):
        p.grad()[:] = mx.nd.array(g, dtype=p.dtype)
        p.data()._fresh_grad = True
    trainer.step(4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mxnet-python", default="/work/mxref/bin/python")
    args = parser.parse_args()
    rng = np.random.RandomState(0)
    work = tempfile.mkdtemp(prefix="states-check-")
    arrays, expected = {}, {}
    for name, opt, kw, dtype in CASES:
        kw = dict(kw)
        if kw.get("lr_scheduler") == "factor":
            kw["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.1)
        params = []
        for i, shape in enumerate(SHAPES):
            p = gluon.Parameter("p%d" % i, shape=shape, dtype=dtype)
            p.initialize(mx.init.Constant(0.5))
            params.append(p)
        trainer = gluon.Trainer(params, opt, kw)
        for _ in range(2):
            step(trainer, params, [rng.randn(*s).astype(dtype) for s in SHAPES])
        trainer.save_states(os.path.join(work, name + ".states"))
        grads = [rng.randn(*s).astype(dtype) for s in SHAPES]
        for i, (p, g) in enumerate(zip(params, grads)):
            arrays["%s/w%d" % (name, i)] = p.data().asnumpy()
            arrays["%s/g%d" % (name, i)] = g
        step(trainer, params, grads)
        for i, p in enumerate(params):
            expected["%s/after%d" % (name, i)] = p.data().asnumpy()
    np.savez(os.path.join(work, "arrays.npz"), **arrays)
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump({"cases": [(n, o, d) for n, o, _, d in CASES], "shapes": SHAPES}, f)
    subprocess.run([args.mxnet_python, "-c", MXNET_SIDE, work], check=True)
    got = np.load(os.path.join(work, "mxnet.npz"))
    bad = 0
    for key, value in expected.items():
        if not np.allclose(got[key], value, rtol=1e-5, atol=1e-6):
            bad += 1
            print("MISMATCH", key, got[key], value)
    print("%d optimizer setups, %d weight arrays compared, %d mismatches" % (len(CASES), len(expected), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
