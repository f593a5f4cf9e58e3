"""``mx.sym.np``/``mx.sym.npx``: the graphs MXNet 1.9.1's symbolic NumPy interface builds
(recorded by ``tools/make_extra_fixtures_sym_np.py``: JSON, result type, values), and the
names of MXNet's modules."""
import json
import os

import numpy as onp
import pytest

import neogluon as mx
from neogluon import _names, npx

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "sym_np")
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)
ABSENT = CASES.pop("_absent_methods")
IMPERATIVE = {n: CASES.pop(n) for n in [n for n, c in CASES.items() if c.get("imperative")]}


@pytest.fixture(autouse=True)
def _np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _graph(doc):
    """(op, attributes, inputs by position) per node: the names of nodes are counters."""
    nodes = doc["nodes"]
    return [(n["op"], n.get("attrs", {}), [i[:2] for i in n["inputs"]]) for n in nodes], doc["heads"]


def _build(case):
    syms = {k: mx.sym.var(k).as_np_ndarray() for k in case["inputs"]}
    return eval(case["expr"], dict(syms, np=mx.sym.np, npx=mx.sym.npx))  # pylint: disable=eval-used


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_as_mxnet(name):
    case = CASES[name]
    out = _build(case)
    assert type(out).__name__ == case["type"].rsplit(".", 1)[1] == "_Symbol"
    got, want = _graph(json.loads(out.tojson())), _graph(case["json"])
    assert [(op, attrs) for op, attrs, _ in got[0]] == [(op, attrs) for op, attrs, _ in want[0]]
    assert got == want


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c["values"]))
def test_values_as_mxnet(name):
    case = CASES[name]
    data = onp.load(os.path.join(HERE, name + ".npz"))
    out = _build(case)
    ex = out.as_nd_ndarray().bind(mx.cpu(), {k: mx.nd.array(data["in:" + k], dtype=data["in:" + k].dtype)
                                             for k in case["inputs"]})
    outs = ex.forward()
    for i, o in enumerate(outs):
        want = data["out:%d" % i]
        assert tuple(o.shape) == want.shape and o.asnumpy().dtype == want.dtype
        onp.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_json_loads_back():
    """MXNet's recorded JSON of each case loads here and writes the same graph."""
    for name, case in CASES.items():
        sym = mx.sym.load_json(json.dumps(case["json"]))
        assert _graph(json.loads(sym.tojson())) == _graph(case["json"]), name


@pytest.mark.parametrize("module", ["mxnet.symbol.numpy", "mxnet.symbol.numpy.linalg", "mxnet.symbol.numpy.random",
                                   "mxnet.symbol.numpy_extension", "mxnet.symbol.numpy_extension.random",
                                   "mxnet.symbol.numpy_extension.image", "mxnet.numpy_extension.image"])
def test_names_of_mxnet_are_real(module):
    """Every public name of MXNet's module is a real neogluon object (no stand-in)."""
    mod = __import__(_names.neogluon_name(module), fromlist=["_"])
    info = _names.table()[module]
    missing = [n for n in (info["all"] or info["names"]) if _names.is_stand_in(getattr(mod, n, None))
               or not hasattr(mod, n)]
    assert not missing, missing


def test_symbol_type_and_conversions():
    x = mx.sym.var("x")
    s = x.as_np_ndarray()
    assert isinstance(s, mx.sym.np._Symbol) and isinstance(s, mx.sym.Symbol)
    assert type(s.as_nd_ndarray()) is mx.sym.Symbol and s.as_np_ndarray() is s
    assert isinstance(mx.sym.np.exp(s) + 1, mx.sym.np._Symbol)
    npx.reset_np()  # a _Symbol keeps NumPy semantics outside NumPy mode too
    assert json.loads((s + s).tojson())["nodes"][1]["op"] == "_npi_add"
    assert json.loads((x + x).tojson())["nodes"][1]["op"] == "elemwise_add"


def test_legacy_fluent_methods_absent_as_in_mxnet():
    """MXNet's ``_Symbol`` raises AttributeError for the legacy fluent methods (``x.exp()``,
    ``x.softmax()``, ...): NumPy code calls ``np.exp(x)``."""
    s = mx.sym.var("a").as_np_ndarray()
    for name in ABSENT:
        with pytest.raises(AttributeError, match="has no attribute %s" % name):
            getattr(s, name)()
    from neogluon.symbol.numpy._symbol import ABSENT as ours
    assert sorted(ours) == sorted(ABSENT)


@pytest.mark.parametrize("name", sorted(IMPERATIVE))
def test_imperative_as_mxnet(name):
    """The operators of these graphs (and ``npx.image``) on ``mx.np`` arrays: values, dtypes, shapes."""
    from neogluon import np
    case = IMPERATIVE[name]
    data = onp.load(os.path.join(HERE, name + ".npz"))
    scope = {k: np.array(data["in:" + k], dtype=data["in:" + k].dtype) for k in case["inputs"]}
    outs = eval(case["expr"], dict(scope, np=np, npx=npx))  # pylint: disable=eval-used
    for i, o in enumerate(outs):
        want = data["out:%d" % i]
        assert type(o) is np.ndarray and str(o.dtype) == case["dtypes"][i] and o.shape == want.shape, i
        onp.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-5 if want.dtype != onp.uint8 else 1)


def test_internal_functions_make_npi_nodes():
    """``mx.sym.np._internal.<name>`` makes an ``_npi_<name>`` node, as MXNet's generated function does."""
    s = mx.sym.var("a").as_np_ndarray()
    for name, args, op in (("add", (s, s), "_npi_add"), ("exp", (s,), "_npi_exp"),
                           ("multiply_scalar", (s,), "_npi_multiply_scalar")):
        out = getattr(mx.sym.np._internal, name)(*args)
        assert isinstance(out, mx.sym.np._Symbol)
        assert json.loads(out.tojson())["nodes"][-1]["op"] == op
