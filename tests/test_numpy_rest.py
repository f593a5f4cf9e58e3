"""The ``mx.np``/``mx.npx`` names no other numpy fixture covers, against MXNet 1.9.1's
recorded answers (``tools/make_extra_fixtures_numpy_rest.py``): values, dtypes and shapes,
or MXNet's error."""
import json
import os

import numpy as onp
import pytest

from neogluon import np, npx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "numpy_rest")
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)
# MXNet 1.9.1 fails where NumPy answers; neogluon answers as NumPy does (not kept on purpose:
# deg2rad/rad2deg are missing from MXNet's _internal, result_type cannot take an mx array)
DEVIATIONS = {"deg2rad": lambda a: onp.deg2rad(a), "rad2deg": lambda a: onp.rad2deg(a)}


@pytest.fixture(autouse=True)
def _np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _run(case, data):
    scope = {k: np.array(data["in:" + k], dtype=data["in:" + k].dtype) for k in case["inputs"]}
    return eval(case["expr"], dict(scope, np=np, npx=npx, onp=onp))  # pylint: disable=eval-used


def _data(name):
    path = os.path.join(HERE, name + ".npz")
    return onp.load(path) if os.path.exists(path) else {}


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" not in c))
def test_recorded_case(name):
    case, data = CASES[name], _data(name)
    outs = _run(case, data)
    for i, o in enumerate(outs):
        o = o if isinstance(o, np.ndarray) else np.array(o)
        want = data["out:%d" % i]
        assert str(o.dtype) == case["dtypes"][i] and o.shape == tuple(case["shapes"][i]), (i, o.dtype, o.shape)
        if case["compare"] == "values":
            onp.testing.assert_allclose(o.asnumpy(), want, rtol=1e-4, atol=1e-5)
        elif case["compare"] == "abs":  # defined up to the sign of a vector
            onp.testing.assert_allclose(onp.abs(o.asnumpy()), onp.abs(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" in c and n not in DEVIATIONS
                                        and n != "result_type"))
def test_recorded_error(name):
    case = CASES[name]
    with pytest.raises(Exception) as info:
        _run(case, _data(name))
    assert type(info.value).__name__ == case["error"]


@pytest.mark.parametrize("name", sorted(DEVIATIONS))
def test_deviation_answers_as_numpy(name):
    a = onp.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    got = getattr(np, name)(np.array(a))
    onp.testing.assert_allclose(got.asnumpy(), DEVIATIONS[name](a), rtol=1e-6)


def test_result_type_of_an_array():
    """MXNet 1.9.1 raises TypeError for ``np.result_type`` of an mx array; neogluon reads its dtype."""
    assert np.result_type(np.zeros((2,)), "int64") == onp.result_type(onp.float32, onp.int64)
