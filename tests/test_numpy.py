"""``mx.np`` and ``mx.npx`` against MXNet 1.9.1 under ``npx.set_np()``.

The recorded cases (``tests/fixtures/extra/numpy``, made by
``tools/make_extra_fixtures_numpy.py``) are Python expressions over ``np``, ``npx`` and
named inputs: the same expression runs here on neogluon and must give MXNet's values,
dtypes, shapes, array types and gradients.
"""
import json
import os

import numpy as onp
import pytest

import neogluon as mx
from neogluon import autograd, np, npx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "numpy")
CASES = json.load(open(os.path.join(FIXTURES, "cases.json")))


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def run(name):
    spec = CASES[name]
    data = dict(onp.load(os.path.join(FIXTURES, name + ".npz")))
    xs = {k: np.array(data["in_" + k], dtype=data["in_" + k].dtype) for k in spec["inputs"]}
    for k in spec["grad"]:
        xs[k].attach_grad()
    env = dict(np=np, npx=npx, **xs)
    *stmts, last = spec["expr"].split("; ")
    with autograd.record():  # (MXNet's fallbacks were recorded outside record(); it changes nothing here)
        for s in stmts:
            exec(s, env)  # pylint: disable=exec-used
        out = eval(last, env)  # pylint: disable=eval-used
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return spec, data, xs, outs


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" in CASES[n]))
def test_recorded_error(name):
    """What MXNet 1.9.1 refuses (a name its mx.np lacks) fails here with the same exception type."""
    with pytest.raises(Exception) as info:
        run(name)
    assert type(info.value).__name__ == CASES[name]["error"]


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in CASES[n]))
def test_recorded_case(name):
    spec, data, xs, outs = run(name)
    assert len(outs) == len(spec["shapes"])
    for i, o in enumerate(outs):
        assert isinstance(o, np.ndarray), (name, type(o))
        assert list(o.shape) == spec["shapes"][i], (name, o.shape)
        assert str(o.dtype) == spec["dtypes"][i], (name, o.dtype)
        if spec["values"]:
            want = data["out%d" % i]
            tol = 1e-2 if want.dtype == onp.float16 else 1e-4
            onp.testing.assert_allclose(o.asnumpy(), want, rtol=tol, atol=tol, err_msg=name)
    if spec["grad"]:
        heads = [np.array(data["head%d" % i], dtype=data["head%d" % i].dtype) for i in range(len(outs))]
        autograd.backward(outs, heads)
        for k in spec["grad"]:
            assert isinstance(xs[k].grad, np.ndarray)
            onp.testing.assert_allclose(xs[k].grad.asnumpy(), data["grad_" + k], rtol=1e-4, atol=1e-4,
                                        err_msg="%s: gradient of %s" % (name, k))
