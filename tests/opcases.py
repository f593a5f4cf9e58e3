"""Replaying one-operator cases recorded from MXNet 1.9.1 by ``tools/mxcases.py``.

Each case runs twice in neogluon, as it ran in MXNet:

- imperatively, through the registry (what ``mx.nd.<op>`` calls), with autograd when the
  case has gradients: outputs, gradients and inputs updated in place must match;
- as a graph: MXNet's ``-symbol.json`` is loaded with ``mx.sym.load_json``, written back
  (``tojson`` must give MXNet's JSON), bound with ``bind`` and run forward and backward;
- in a hybridized block calling ``F._internal.<op>`` (cases without in-place states).

A test module calls :func:`make_tests` with its area and binds the returned functions to
module-level names so that pytest collects them.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

EXTRA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra")


def load_area(area):
    with open(os.path.join(EXTRA, area, "cases.json")) as f:
        return json.load(f)


def _nd(a):
    return mx.nd.array(a, dtype=a.dtype)


def check(actual, expected, what, rtol=1e-5, atol=1e-6):
    a = actual.asnumpy() if hasattr(actual, "asnumpy") else np.asarray(actual)
    assert a.shape == expected.shape, "%s: shape %s, MXNet gave %s" % (what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, a.dtype, expected.dtype)
    if a.dtype.kind in "biu":
        np.testing.assert_array_equal(a, expected, err_msg=what)
    else:
        np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=what, equal_nan=True)


def call(spec, inputs):
    attrs = dict(spec["attrs"])
    op = registry.get(spec["op"])
    if op.variadic and op.variadic not in attrs:
        attrs[op.variadic] = len(inputs)
    out = invoke(op, inputs, attrs)
    return out if isinstance(out, list) else [out]


def make_tests(area, tolerance=None):
    """``(test_imperative, test_graph, test_hybridized, test_error)`` parametrized over
    ``area``'s cases.
    ``tolerance``: ``{case: (rtol, atol)}`` for cases whose arithmetic order differs."""
    cases = load_area(area)
    tolerance = tolerance or {}
    directory = os.path.join(EXTRA, area)
    ok = sorted(n for n, c in cases.items() if "error" not in c)

    def load(name):
        return cases[name], dict(np.load(os.path.join(directory, name + ".npz")))

    @pytest.mark.parametrize("name", ok)
    def test_imperative(name):
        spec, data = load(name)
        tol = tolerance.get(name, (1e-5, 1e-6))
        inputs = [_nd(data["in:" + n]) for n in spec["inputs"]]
        for n in spec["grad"]:
            inputs[spec["inputs"].index(n)].attach_grad()
        with mx.autograd.record():
            outs = call(spec, inputs)
        n_out = len([k for k in data if k.startswith("out:")])
        assert len(outs) == n_out, "%s: %d outputs, MXNet gave %d" % (name, len(outs), n_out)
        for i, o in enumerate(outs):
            check(o, data["out:%d" % i], "%s output %d" % (name, i), *tol)
        if spec["grad"]:
            mx.autograd.backward(outs, [_nd(data["head:%d" % i]) for i in range(len(outs))])
            for n in spec["grad"]:
                check(inputs[spec["inputs"].index(n)].grad, data["grad:" + n], "%s gradient of %s" % (name, n),
                      *tol)
        for n in spec["mutates"]:  # recorded after the backward pass, which may update them
            check(inputs[spec["inputs"].index(n)], data["after:" + n], "%s: %s after the call" % (name, n), *tol)

    @pytest.mark.parametrize("name", sorted(n for n in ok if cases[n]["symbolic"]))
    def test_graph(name):
        spec, data = load(name)
        tol = tolerance.get(name, (1e-5, 1e-6))
        with open(os.path.join(directory, name + "-symbol.json")) as f:
            text = f.read()
        sym = mx.sym.load_json(text)
        assert json.loads(sym.tojson()) == json.loads(text), "%s: the JSON written back differs" % name
        args = {n: _nd(data["in:" + n]) for n in spec["inputs"]}
        grads = {n: mx.nd.zeros(args[n].shape, dtype=args[n].dtype) for n in spec["grad"]}
        names = sym.list_arguments()
        exe = sym.bind(mx.cpu(), {n: args[n] for n in names}, args_grad=grads or None,
                       grad_req={n: ("write" if n in grads else "null") for n in names},
                       aux_states={n: args[n] for n in sym.list_auxiliary_states()})
        outs = exe.forward(is_train=bool(spec["grad"]))
        # where MXNet's executor failed (spec["graph_error"]), its imperative answers stand
        sym = "" if "graph_error" in spec else "sym_"
        for i, o in enumerate(outs):
            check(o, data[sym + "out:%d" % i], "%s graph output %d" % (name, i), *tol)
        if spec["grad"]:
            exe.backward([_nd(data["head:%d" % i]) for i in range(len(outs))])
            for n in spec["grad"]:
                check(grads[n], data[sym + "grad:" + n], "%s graph gradient of %s" % (name, n), *tol)
        for n in spec["mutates"]:
            check(args[n], data[sym + "after:" + n], "%s graph: %s after the call" % (name, n), *tol)

    @pytest.mark.parametrize("name", sorted(n for n in ok if cases[n]["symbolic"] and not cases[n]["mutates"]
                                            and cases[n]["inputs"]))
    def test_hybridized(name):
        """The operator called as ``F._internal.<op>`` in a hybridized block: the cached
        graph must give MXNet's outputs and gradients."""
        spec, data = load(name)
        tol = tolerance.get(name, (1e-5, 1e-6))
        attrs = dict(spec["attrs"])
        op = registry.get(spec["op"])
        if op.variadic and op.variadic not in attrs:
            attrs[op.variadic] = len(spec["inputs"])
        block = _OpBlock(spec["op"], attrs)
        block.hybridize()
        inputs = [_nd(data["in:" + n]) for n in spec["inputs"]]
        for n in spec["grad"]:
            inputs[spec["inputs"].index(n)].attach_grad()
        with mx.autograd.record():
            outs = block(*inputs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        for i, o in enumerate(outs):
            check(o, data["out:%d" % i], "%s hybridized output %d" % (name, i), *tol)
        if spec["grad"]:
            mx.autograd.backward(outs, [_nd(data["head:%d" % i]) for i in range(len(outs))])
            for n in spec["grad"]:
                check(inputs[spec["inputs"].index(n)].grad, data["grad:" + n],
                      "%s hybridized gradient of %s" % (name, n), *tol)

    @pytest.mark.parametrize("name", sorted(n for n, c in cases.items() if "error" in c))
    def test_error(name):
        spec, data = load(name)
        inputs = [_nd(data["in:" + n]) for n in spec["inputs"]]
        with pytest.raises(MXNetError) as info:
            call(spec, inputs)
        short = spec["op"].replace("_contrib_", "").lstrip("_")
        assert short in str(info.value), "the message should name the operator: %s" % info.value

    return test_imperative, test_graph, test_hybridized, test_error


class _OpBlock(mx.gluon.HybridBlock):
    """A block calling one operator by its full name on its inputs."""

    def __init__(self, op, attrs):
        super().__init__()
        self._op, self._attrs = op, attrs

    def hybrid_forward(self, F, *inputs):  # pylint: disable=arguments-differ
        return getattr(F._internal, self._op)(*inputs, **self._attrs)
