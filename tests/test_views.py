"""Which results share memory with their input, as recorded from MXNet 1.9.1
(``tools/make_extra_fixtures_views.py``): ``x.reshape`` and basic indexing are views;
every operator (``mx.nd.reshape``, ``.T``, ``flatten``, ``split``, Dropout in predict
mode, ...) gives new memory, so a result taken from ``x.grad`` before a backward keeps
the old gradient while ``x.grad.reshape(...)`` and ``x.grad[0:1]`` see the new one."""
import json
import os

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.operator import registry

_PATH = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "views", "views.json")
CASES = json.load(open(_PATH))["cases"]


def _run(code):
    scope = {"mx": mx, "nd": mx.nd, "np": mx.np, "npx": mx.npx}
    exec(code, scope)  # pylint: disable=exec-used
    res = scope["result"]
    return [r.asnumpy().tolist() for r in res] if isinstance(res, list) else res.asnumpy().tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_memory_shared_as_in_mxnet(name):
    got, want = _run(CASES[name]["code"]), CASES[name]["result"]
    if name.startswith("grad_"):  # several arrays: the gradient, then the results taken from it
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.array(g), np.array(w))
    else:
        np.testing.assert_array_equal(np.array(got), np.array(want))


def test_operator_results_are_new_memory_also_when_recorded():
    """The copy an aliasing operator makes keeps the gradient flowing to the input."""
    x = mx.nd.array([[1., 2.], [3., 4.]])
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.nd.transpose(x) * mx.nd.array([[1., 2.], [3., 4.]])).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[1., 3.], [2., 4.]])


def test_hybridized_graph_keeps_views_inside():
    """Inside a compiled graph the aliasing kernels stay views (nothing outside sees them)."""
    op = registry.get("Reshape")
    kernel = op.kernel(op.parse_attrs({"shape": (4,)}))
    t = torch.ones(2, 2)
    assert kernel(t).data_ptr() == t.data_ptr()
