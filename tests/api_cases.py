"""Run the MXNet-recorded API cases (tests/fixtures/extra/api/cases.json) with neogluon.

The cases were recorded by tools/make_extra_fixtures_api.py with MXNet 1.9.1: each is a
snippet whose last line's value (or raised exception) is the expected answer. Here the
same snippet runs with ``import neogluon as mx`` and the result is compared: arrays by
type, dtype, shape and values; scalars by type and value; errors by class (MXNetError
and/or the builtin exception MXNet raised).
"""
import ast
import builtins
import json
import os
import pickle

import numpy as np
import pytest

import neogluon as mx
from neogluon.operator import registry

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "api", "cases.json")
CASES = json.load(open(FIXTURE))["cases"]


def cases(*groups):
    """pytest parameters for the cases of the given groups, with readable ids."""
    return [pytest.param(c, id="%s-%s" % (c["group"], c["name"])) for c in CASES if c["group"] in groups]


def run(snippet):
    """Execute ``snippet`` with neogluon as ``mx``; returns the value of its last line."""
    env = {"mx": mx, "np": np, "pickle": pickle, "os": os}
    tree = ast.parse(snippet)
    last = tree.body[-1]
    if not isinstance(last, ast.Expr):
        exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
        return None
    tree.body.pop()
    exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
    return eval(compile(ast.Expression(last.value), "<case>", "eval"), env)  # pylint: disable=eval-used


def _close(actual, expected, dtype):
    tol = 1e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=tol, atol=tol, equal_nan=True)


def _check_array(actual, expected, cls, where):
    assert isinstance(actual, cls), "%s: expected %s, got %r" % (where, cls.__name__, type(actual))
    a = actual.asnumpy() if isinstance(actual, mx.nd.NDArray) else actual
    assert np.dtype(actual.dtype).name == expected["dtype"], \
        "%s: dtype %s, MXNet gives %s" % (where, np.dtype(actual.dtype).name, expected["dtype"])
    assert list(a.shape) == expected["shape"], "%s: shape %s, MXNet gives %s" % (where, a.shape, expected["shape"])
    _close(a, expected["value"], expected["dtype"])


def check_value(actual, expected, where="result"):
    """Compare a neogluon value with an encoded MXNet value (see the generator's ``encode``)."""
    kind = expected["kind"]
    if kind == "ndarray":
        _check_array(actual, expected, mx.nd.NDArray, where)
    elif kind == "numpy":
        _check_array(actual, expected, np.ndarray, where)
    elif kind in ("list", "tuple"):
        assert type(actual).__name__ == kind, "%s: expected a %s, got %r" % (where, kind, type(actual))
        assert len(actual) == len(expected["items"]), "%s: length %d, MXNet gives %d" % (
            where, len(actual), len(expected["items"]))
        for i, (a, e) in enumerate(zip(actual, expected["items"])):
            check_value(a, e, "%s[%d]" % (where, i))
    elif kind == "npscalar":
        assert isinstance(actual, np.generic), "%s: expected a numpy scalar, got %r" % (where, actual)
        assert actual.dtype.name == expected["dtype"], "%s: %s, MXNet gives %s" % (
            where, actual.dtype, expected["dtype"])
        _close(actual, expected["value"], expected["dtype"])
    elif kind == "type":
        assert isinstance(actual, type), "%s: expected a type, got %r" % (where, actual)
        assert "%s.%s" % (actual.__module__, actual.__name__) == expected["value"], where
    elif kind == "context":
        assert isinstance(actual, mx.Context) and str(actual) == expected["value"], "%s: %r" % (where, actual)
    elif kind == "float":
        assert isinstance(actual, float), "%s: expected a float, got %r" % (where, actual)
        _close(actual, expected["value"], "float64")
    else:
        assert type(actual).__name__ == kind, "%s: expected %s, got %r" % (where, kind, actual)
        assert actual == expected["value"], "%s: %r, MXNet gives %r" % (where, actual, expected["value"])


def check_error(err, expected):
    if expected["mxnet_error"]:
        assert isinstance(err, mx.MXNetError), "MXNet raises MXNetError, neogluon raised %r" % err
    for name in expected["builtin"]:
        assert isinstance(err, getattr(builtins, name)), "MXNet raises %s, neogluon raised %r" % (name, err)
    assert str(err), "the error has no message: %r" % err


def run_case(case):
    """Run one recorded case and compare with MXNet's answer (skipped while an operator is missing)."""
    missing = [op for op in case["needs"] if not registry.exists(op)]
    if missing:
        pytest.skip("operators not registered yet: %s" % ", ".join(missing))
    expected = case["expected"]
    mx.autograd.set_recording(False)
    mx.autograd.set_training(False)
    if expected["kind"] == "error":
        with pytest.raises(Exception) as info:
            run(case["code"])
        check_error(info.value, expected)
    else:
        check_value(run(case["code"]), expected)
