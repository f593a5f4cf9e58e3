"""gluon.Parameter, Constant and ParameterDict against MXNet 1.9.1.

``snippets.json`` (tools/make_extra_fixtures_param.py) holds what each snippet gave in
MXNet (a value's repr, or the error type and message); here the same code runs with
``mx`` = neogluon. Further tests cover autograd, contexts and the ``.params`` files.
"""
import ast
import json
import os
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon import gluon
from neogluon.gluon.parameter import DeferredInitializationError

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "param")
MX_PARAMS = os.path.join(FIX, "mx_saved.params")

with open(os.path.join(FIX, "snippets.json")) as _f:
    SNIPPETS = json.load(_f)

# where neogluon deliberately differs from MXNet (MXNet's outcome is a bug or a refusal)
DIFFERENT = {
    # Mixed (and Load) are accepted by Gluon's initialize; MXNet asserts "must be of string type"
    "mixed_in_gluon": {"value": "None"},
}


def run_snippet(code, scope):
    """Same runner as the generator's: repr of the last expression, or the error."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(tree, "<snippet>", "exec"), scope)  # noqa: S102
            value = eval(compile(ast.Expression(last.value), "<snippet>", "eval"), scope) if last else None  # noqa: S307
        return {"value": repr(value)}
    except Exception as e:  # noqa: BLE001  (compared with MXNet's error)
        return {"error": type(e).__name__, "message": str(e)}


@pytest.mark.parametrize("key", sorted(SNIPPETS["code"]))
def test_snippet_matches_mxnet(key, tmp_path):
    code = SNIPPETS["code"][key].replace("TMP", str(tmp_path)).replace("PARAMS", MX_PARAMS)
    got = run_snippet(code, {"mx": mx, "gluon": gluon, "np": np})
    if "message" in got:
        got["message"] = got["message"].replace(MX_PARAMS, "PARAMS")
    assert got == DIFFERENT.get(key, SNIPPETS["outcome"][key])


# ----------------------------------------------------------------------------- Parameter
def test_deferred_init_flow():
    p = gluon.Parameter("w", shape=(3, 0), allow_deferred_init=True, init="ones")
    p.initialize(ctx=mx.cpu())
    with pytest.raises(DeferredInitializationError):
        p.data()
    assert isinstance(DeferredInitializationError("x"), mx.MXNetError)
    p.shape = (3, 4)
    p._finish_deferred_init()
    assert p.data().shape == (3, 4) and (p.data().asnumpy() == 1).all()
    assert p.grad().shape == (3, 4) and (p.grad().asnumpy() == 0).all()


def test_gradients_reach_the_grad_buffer_with_write():
    p = gluon.Parameter("w", shape=(2, 3), init=mx.init.Constant(2.0))
    p.initialize()
    x = mx.nd.ones((4, 2))
    for _ in range(2):
        with mx.autograd.record():
            y = mx.nd.dot(x, p.data()).sum()
        y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), np.full((2, 3), 4.0))
    p.zero_grad()
    assert (p.grad().asnumpy() == 0).all()


def test_null_grad_req_records_nothing():
    p = gluon.Parameter("w", shape=(2,), grad_req="null")
    p.initialize()
    with mx.autograd.record():
        y = p.data() * 2
    with pytest.raises(mx.MXNetError):
        y.backward()


def test_multiple_contexts_copies_and_set_data():
    p = gluon.Parameter("w", shape=(2, 2), init="zeros")
    ctxs = [mx.cpu(0), mx.cpu(1)]
    p.initialize(ctx=ctxs)
    assert p.list_ctx() == ctxs and len(p.list_data()) == 2 and len(p.list_grad()) == 2
    assert p.list_data()[0] is not p.list_data()[1]
    assert p.data(mx.cpu(1)) is p.list_data()[1]
    p.set_data(mx.nd.full((2, 2), 3.0))
    assert all((d.asnumpy() == 3).all() for d in p.list_data())
    p.reset_ctx(mx.cpu(0))
    assert p.list_ctx() == [mx.cpu(0)] and (p.data().asnumpy() == 3).all()


def test_reset_ctx_while_deferred_and_reduce_average():
    p = gluon.Parameter("w", shape=(0,), allow_deferred_init=True)
    p.initialize(ctx=mx.cpu(0))
    p.reset_ctx([mx.cpu(0), mx.cpu(1)])
    assert p.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    q = gluon.Parameter("q", shape=(2,), init="zeros")
    q.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    q.list_data()[0][:] = 2.0
    np.testing.assert_array_equal(q._reduce().asnumpy(), [1.0, 1.0])


def test_var_is_cached_symbol_variable():
    p = gluon.Parameter("fc_weight", shape=(3, 2), lr_mult=0.5, wd_mult=0.0, init="xavier")
    v = p.var()
    assert isinstance(v, mx.sym.Symbol) and v.name == "fc_weight" and p.var() is v
    attrs = v.list_attr()
    assert attrs["__shape__"] == "(3, 2)" and attrs["__lr_mult__"] == "0.5" and attrs["__init__"] == "xavier"


def test_row_sparse_parameter_gives_its_rows():
    p = gluon.Parameter("emb", shape=(4, 2), stype="row_sparse", init="ones")
    p.initialize()
    with pytest.raises(RuntimeError, match="storage type is row_sparse"):
        p.data()
    with pytest.raises(RuntimeError, match="no Trainer is created"):
        p.row_sparse_data(mx.nd.array([0, 2]))
    gluon.Trainer([p], "sgd", {"learning_rate": 0.1})
    rows = p.row_sparse_data(mx.nd.array([2, 0, 2]))
    assert rows.stype == "row_sparse" and rows.indices.asnumpy().tolist() == [0, 2]
    np.testing.assert_array_equal(rows.asnumpy(), [[1, 1], [0, 0], [1, 1], [0, 0]])
    assert len(p.list_row_sparse_data(mx.nd.array([1]))) == 1
    q = gluon.Parameter("w", shape=(2,))
    q.initialize()
    with pytest.raises(RuntimeError, match="Please use data"):
        q.row_sparse_data(mx.nd.array([0]))


def test_initialize_twice_warns_and_device_keyword():
    p = gluon.Parameter("w", shape=(2,))
    p.initialize(device=mx.cpu())
    with pytest.warns(UserWarning, match="already initialized"):
        p.initialize()
    assert p.list_device() == [mx.cpu()]


def test_mixed_and_load_work_as_gluon_initializers():
    # as in Gluon, the chosen initializer's _init_weight fills a parameter whatever its suffix
    p = gluon.Parameter("fc_bias", shape=(2,))
    p.initialize(mx.init.Mixed(["fc_.*"], [mx.init.Constant(5.0)]))
    assert (p.data().asnumpy() == 5).all()
    load = mx.init.Load({"arg:fc_weight": mx.nd.full((2,), 6.0)}, default_init=mx.init.Constant(4.0))
    q, r = gluon.Parameter("fc_weight", shape=(2,)), gluon.Parameter("fc_bias", shape=(2,))
    q.initialize(default_init=load)
    r.initialize(load)
    assert (q.data().asnumpy() == 6).all() and (r.data().asnumpy() == 4).all()


def test_constant_is_not_trained_and_registers_its_initializer():
    c = gluon.Constant("c", mx.nd.array([1.0, 2.0]))
    assert c.grad_req == "null" and c.init.startswith("Constant_c_")
    c.initialize()
    with mx.autograd.record():
        y = c.data() * 2
    assert not y._t.requires_grad
    with pytest.warns(UserWarning, match="does not support grad_req"):
        c.grad_req = "write"
    c.set_data(mx.nd.array([5.0, 6.0]))
    np.testing.assert_array_equal(c.data().asnumpy(), [5, 6])


# ----------------------------------------------------------------------------- ParameterDict
def _dict():
    d = gluon.ParameterDict("net_")
    d.get("dense0_weight", shape=(2, 3))
    d.get("dense0_bias", shape=(2,), init="zeros")
    d.get("bn_gamma", shape=(2,), init="ones", grad_req="null")
    return d


def test_select_setattr_and_zero_grad():
    d = _dict()
    sel = d.select(".*dense0_.*")
    assert isinstance(sel, gluon.ParameterDict) and sel.prefix == "net_"
    assert list(sel.keys()) == ["net_dense0_weight", "net_dense0_bias"]
    assert list(d.select(".*_bias|.*gamma").keys()) == ["net_dense0_bias", "net_bn_gamma"]
    d.setattr("lr_mult", 0.1)
    assert all(p.lr_mult == 0.1 for p in d.values())
    d.initialize(ctx=mx.cpu())
    d["net_dense0_weight"].grad()[:] = 1.0
    d.zero_grad()
    assert (d["net_dense0_weight"].grad().asnumpy() == 0).all()
    assert d.list_ctx() == [mx.cpu()]
    d.setattr("grad_req", "null")
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        d["net_dense0_weight"].grad()


def test_initialize_verbose_and_default_init(caplog):
    d = _dict()
    with caplog.at_level("INFO"):
        d.initialize(mx.init.Constant(0.5), verbose=True)
    assert (d["net_dense0_weight"].data().asnumpy() == 0.5).all()
    assert (d["net_dense0_bias"].data().asnumpy() == 0).all() and (d["net_bn_gamma"].data().asnumpy() == 1).all()
    assert "Initialized net_dense0_weight" in caplog.text


def test_save_is_byte_identical_to_mxnet_and_round_trips(tmp_path):
    values = dict(np.load(os.path.join(FIX, "mx_saved.npz")))
    d = gluon.ParameterDict("net_")
    for name, dtype, req in (("w", "float32", "write"), ("b", "float64", "write"), ("i", "int32", "null")):
        d.get(name, shape=values[name].shape, dtype=dtype, grad_req=req)
    d.load(MX_PARAMS, restore_prefix="net_")
    for name, v in values.items():
        np.testing.assert_array_equal(d["net_" + name].data().asnumpy(), v)
        assert d["net_" + name].data().dtype == v.dtype
    path = str(tmp_path / "out.params")
    d.save(path, strip_prefix="net_")
    with open(path, "rb") as f, open(MX_PARAMS, "rb") as g:
        assert f.read() == g.read()
    assert sorted(mx.nd.load(path)) == ["b", "i", "w"]


def test_load_with_cast_dtype_and_ctx(tmp_path):
    d = gluon.ParameterDict("net_")
    d.get("w", shape=(2, 0), dtype="float16", allow_deferred_init=True)
    d.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    d.load(MX_PARAMS, restore_prefix="net_", ignore_extra=True, cast_dtype=True)
    w = d["net_w"]
    assert w.shape == (2, 3) and w.data().dtype == np.float16 and w.list_ctx() == [mx.cpu(0), mx.cpu(1)]


def test_get_merges_and_shares():
    a = gluon.ParameterDict("a_")
    w = a.get("w", shape=(0, 3))
    assert a.get("w", shape=(2, 0)) is w and w.shape == (2, 3)
    b = gluon.ParameterDict("a_", shared=a)
    assert b.get("w") is w and "a_w" in list(b.keys())
    b.update(a)
    assert list(b.keys()) == ["a_w"]
    c = a.get_constant("k", [1, 2])
    assert a.get_constant("k", [1, 2]) is c and a.get_constant("k") is c
    with pytest.raises(AssertionError, match="value doesn't match"):
        a.get_constant("k", [1, 3])


def test_get_of_a_shared_parameter_ignores_constructor_only_settings():
    """MXNet 1.9.1 keeps allow_deferred_init, differentiable, stype and grad_stype under
    private names, so ParameterDict.get never compares them with an existing parameter's:
    GluonNLP's dense evaluation BigRNN shares its training model's parameters this way."""
    a = gluon.ParameterDict("m_")
    w = a.get("w", shape=(4, 3), stype="row_sparse", grad_stype="row_sparse")
    shared = gluon.ParameterDict("m_", shared=a)
    assert shared.get("w", shape=(4, 3), allow_deferred_init=True, differentiable=False,
                      stype="default", grad_stype="default") is w
    assert w.stype == "row_sparse" and w.differentiable and not w.allow_deferred_init
    with pytest.raises(AssertionError, match="attribute 'lr_mult'"):
        shared.get("w", lr_mult=2.0)
