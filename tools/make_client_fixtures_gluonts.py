"""Record MXNet 1.9.1's answers for tests/test_client_gluonts.py (GluonTS 0.14.4's ``gluonts.mx``).

Run with the environment that has the real MXNet and GluonTS (never from the project itself)::

    /work/mxclients/bin/python tools/make_client_fixtures_gluonts.py

The cases are in tests/gluonts_cases.py (shared with the test). It writes
tests/fixtures/extra/gluonts/:

- ``cases.json``: for each distribution (``distributions``) the methods MXNet could not
  compute, with the exception's type name.
- ``values.npz``: one flat float32 array ``values``; ``cases.json``'s ``values`` gives each
  named value's ``[offset, shape]`` in it. ``train/<case>/<mode>``: for each training
  network, imperatively and hybridized with GluonTS Trainer's options, its mean loss on the
  first batch followed by the L1 norm of each parameter's gradient (``collect_params`` order);
  ``trained/<case>/<mode>``: the epoch losses of two epochs of GluonTS's Trainer (Adam,
  clipping, weight decay; seeded initializer) followed by the L1 norm of each trained
  parameter; ``pred/<case>/<i>`` the prediction networks' outputs; ``distr/<case>/<method>`` the
  distributions' values.
"""
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
warnings.filterwarnings("ignore")

import mxnet  # noqa: E402

assert "site-packages/mxnet" in mxnet.__file__, "run this with the real MXNet 1.9.1, not neogluon"
import gluonts_cases as C  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "gluonts")


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = {"mxnet": mxnet.__version__, "gluonts": __import__("gluonts").__version__, "distributions": {}}
    values = {}
    for name in C.MODELS:
        for hyb in (False, True):
            loss, grads, _ = C.training(name, hyb)
            values["train/%s/%s" % (name, "hybridized" if hyb else "imperative")] = np.array([loss] + grads)
        print(name, loss, flush=True)
    for name in C.TRAINED:
        for hyb in (False, True):
            losses, norms = C.trained(name, hyb)
            values["trained/%s/%s" % (name, "hybridized" if hyb else "imperative")] = np.array(losses + norms)
    for name in C.PREDICTIONS:
        for i, o in enumerate(C.prediction(name, True)):
            np.testing.assert_allclose(o, C.prediction(name, False)[i], rtol=1e-5, atol=1e-6)
            values["pred/%s/%d" % (name, i)] = o
    for name in C.DISTRIBUTIONS:
        errors = {}
        for m, v in C.distribution(name).items():
            if isinstance(v, str):
                errors[m] = v
            else:
                values["distr/%s/%s" % (name, m)] = v
        cases["distributions"][name] = errors
    # one flat float32 array (the comparisons are at rtol 1e-4 or looser) indexed by cases.json:
    # an npz member per value would cost more in zip headers than the numbers themselves
    index, flat, offset = {}, [], 0
    for k, v in values.items():
        v = np.asarray(v, np.float32)
        index[k] = [offset, list(v.shape)]
        flat.append(v.ravel())
        offset += v.size
    cases["values"] = index
    np.savez_compressed(os.path.join(OUT, "values.npz"), values=np.concatenate(flat))
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=0, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
