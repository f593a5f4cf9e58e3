"""mx.sym: names, attributes, operators on symbols, Group/internals, JSON, shape/type inference.

Expected names and attributes come from MXNet 1.9.1 (tests/fixtures/extra/symbol, made by
tools/make_symbol_fixtures.py, and the behaviour noted beside each test).
"""
import copy
import glob
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError, NotImplementedForSymbol
from neogluon.operator import registry

HERE = os.path.dirname(__file__)
FIXTURES = os.path.join(HERE, "fixtures", "mxnet-1.9.1")
OPERATORS = json.load(open(os.path.join(HERE, "fixtures", "extra", "symbol", "operators.json")))
SYMBOL_FILES = sorted(glob.glob(os.path.join(FIXTURES, "*", "*-symbol.json")))


def last_node(s):
    return json.loads(s.tojson())["nodes"][-1]


# ----------------------------------------------------------------------------- names
def test_operators_on_symbols_match_mxnet():
    """Names, operators and attribute strings of x + y, 2 - x, x ** 2, x == 1, -x ... as MXNet gives."""
    with mx.name.NameManager():
        x, y = mx.sym.var("x"), mx.sym.var("y")
        exprs = {"x+y": x + y, "x+1": x + 1, "1+x": 1 + x, "x-y": x - y, "x-1": x - 1, "2-x": 2 - x,
                 "x*y": x * y, "x*2": x * 2, "x/y": x / y, "x/2": x / 2, "2/x": 2 / x, "x%y": x % y,
                 "x%2": x % 2, "2%x": 2 % x, "x**y": x ** y, "x**2": x ** 2, "2**x": 2 ** x,
                 "x==y": x == y, "x==1": x == 1, "x!=1": x != 1, "x>1": x > 1, "x>=1": x >= 1,
                 "x<1": x < 1, "x<=1": x <= 1, "1<x": 1 < x, "x>y": x > y, "x<y": x < y, "-x": -x,
                 "x+1.5": x + 1.5, "x!=y": x != y, "x>=y": x >= y, "x<=y": x <= y}
        for expr, s in exprs.items():
            node = last_node(s)
            assert {"name": s.name, "op": node["op"], "attrs": node.get("attrs", {})} == OPERATORS[expr], expr


def test_symbol_plus_symbol_does_not_broadcast():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    ex = (a + b).bind(mx.cpu(), {"a": mx.nd.ones((2, 3)), "b": mx.nd.ones((1, 3))}, grad_req="null")
    with pytest.raises(MXNetError, match="elemwise_add"):
        ex.forward()
    out = mx.sym.broadcast_add(a, b).eval(a=mx.nd.ones((2, 3)), b=mx.nd.ones((1, 3)))[0]
    assert out.shape == (2, 3)


def test_automatic_names_and_arguments():
    with mx.name.NameManager():
        x = mx.sym.var("x")
        fc = mx.sym.FullyConnected(x, num_hidden=3)
        assert fc.name == "fullyconnected0"
        assert fc.list_arguments() == ["x", "fullyconnected0_weight", "fullyconnected0_bias"]
        assert fc.list_outputs() == ["fullyconnected0_output"]
        assert mx.sym.FullyConnected(x, num_hidden=3, no_bias=True).list_arguments() == ["x", "fullyconnected1_weight"]
        sp = mx.sym.split(x, num_outputs=2)
        assert sp.list_outputs() == ["split0_output0", "split0_output1"]
        assert mx.sym.SliceChannel(x, num_outputs=2).name == "slicechannel0"
        assert mx.sym.zeros((2, 3)).name == "_zeros0"
        bn = mx.sym.BatchNorm(x, name="bn")
        assert bn.list_arguments() == ["x", "bn_gamma", "bn_beta"]
        assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
        assert bn.list_inputs() == ["x", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"]
        assert len(bn) == 1


def test_sub_namespaces_use_short_names():
    assert hasattr(mx.sym, "linalg") and hasattr(mx.sym, "contrib") and hasattr(mx.sym, "random")
    with mx.name.NameManager():
        x = mx.sym.var("x")
        if registry.exists("_linalg_gemm2"):
            assert mx.sym.linalg.gemm2(x, x).name == "gemm20"
        if registry.exists("_random_uniform"):
            assert mx.sym.random.uniform(0, 1, shape=(2,)).name == "_random_uniform0"


def test_every_nd_operator_is_in_sym():
    missing = [n for n in registry.list_operators() if not hasattr(mx.sym._internal, n)]
    assert not missing
    assert all(hasattr(mx.sym, n) for n in ("zeros", "ones", "full", "arange", "linspace", "eye", "var",
                                             "Variable", "Group", "load", "load_json", "maximum", "pow"))


def test_name_prefix_and_manager():
    x = mx.sym.var("x")
    with mx.name.Prefix("net_"):
        assert mx.sym.relu(x).name == "net_relu0"
        assert mx.sym.var("w").name == "w"
    with mx.name.NameManager():
        assert mx.sym.relu(x).name == "relu0"
        assert mx.sym.relu(x).name == "relu1"


# ----------------------------------------------------------------------------- attributes
def test_variable_attributes():
    x = mx.sym.var("x", shape=(2, 3), dtype="float16", lr_mult=2.0, wd_mult=0.5, init="zeros",
                   attr={"foo": "bar"}, stype="default")
    assert last_node(x)["attrs"] == {"__dtype__": "2", "__init__": "zeros", "__lr_mult__": "2.0",
                                     "__shape__": "(2, 3)", "__storage_type__": "0", "__wd_mult__": "0.5",
                                     "foo": "bar"}
    assert x.attr("__shape__") == "(2, 3)" and x.attr("lr_mult") == "2.0"
    assert x.list_attr()["wd_mult"] == "0.5" and "shape" not in x.list_attr()
    with pytest.raises(ValueError):
        mx.sym.var("y", foo=1)


def test_attr_scope_and_created_variables():
    x = mx.sym.var("x")
    with mx.AttrScope(__group__="4", ctx_group="dev1"):
        fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc", attr={"__a__": "b"})
    expected = {"__a__": "b", "__ctx_group__": "dev1", "__group__": "4", "num_hidden": "3"}
    nodes = json.loads(fc.tojson())["nodes"]
    assert [n.get("attrs") for n in nodes[1:]] == [expected] * 3  # created variables carry the node's attrs
    assert fc.list_attr() == dict(expected, ctx_group="dev1")
    assert fc.attr("num_hidden") == "3"
    assert set(fc.attr_dict()) == {"fc", "fc_weight", "fc_bias"}
    with pytest.raises(ValueError):
        mx.AttrScope(group=4)


def test_aux_variables_get_init_and_versions():
    x, mm = mx.sym.var("x"), mx.sym.var("mm")
    bn = mx.sym.BatchNorm(x, moving_mean=mm, name="bn")
    graph = json.loads(bn.tojson())
    assert graph["nodes"][3]["attrs"] == {"__init__": '["zero", {}]'}
    assert graph["nodes"][4]["attrs"] == {"__init__": '["one", {}]'}
    assert graph["nodes"][5]["inputs"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 1], [4, 0, 1]]
    assert graph["node_row_ptr"] == [0, 1, 2, 3, 4, 5, 8]


def test_wrong_arguments_raise():
    x = mx.sym.var("x")
    with pytest.raises(MXNetError, match="foo"):
        mx.sym.FullyConnected(x, num_hidden=2, foo=3)
    with pytest.raises(MXNetError, match="wrong"):
        mx.sym.FullyConnected(x, num_hidden=2, wrong=x)
    with pytest.raises(TypeError):
        x + "a"


# ----------------------------------------------------------------------------- structure
def test_group_internals_children_indexing():
    with mx.name.NameManager():
        x = mx.sym.var("x")
        fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
        p = x + 1
        g = mx.sym.Group([fc, p])
        assert repr(g) == "<Symbol group [fc, _plusscalar0]>" and repr(fc) == "<Symbol fc>"
        assert g.name is None and len(g) == 2 and [s.name for s in g] == ["fc", "_plusscalar0"]
        assert g.list_outputs() == ["fc_output", "_plusscalar0_output"]
        assert g[1].name == "_plusscalar0" and g["fc_output"].list_outputs() == ["fc_output"]
        assert g[0:1].list_outputs() == ["fc_output"]
        with pytest.raises(ValueError):
            g["nothing"]
        with pytest.raises(IndexError):
            g[2]
        internals = fc.get_internals()
        assert internals.list_outputs() == ["x", "fc_weight", "fc_bias", "fc_output"]
        assert internals["fc_weight"].list_outputs() == ["fc_weight"]
        assert fc.get_children().list_outputs() == ["x", "fc_weight", "fc_bias"]
        assert x.get_children() is None


def test_slicing_outputs_follows_mxnet_range_rules():
    """MXNet 1.9.1 slices a symbol's outputs as ``Group([self[i] for i in range(start, stop,
    step)])``: an empty range fails in Group (TypeError, which GluonNLP's hybridized
    TemporalActivationRegularizationLoss meets with ``state[1:]``), a negative index fails
    (MXNetError), an index past the end raises IndexError."""
    g = mx.sym.Group([mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c")])
    assert g[1:].list_outputs() == ["b", "c"] and g[::2].list_outputs() == ["a", "c"]
    for empty in (lambda: mx.sym.var("x")[1:], lambda: g[2:1], lambda: g[:-1], lambda: g[::-1]):
        with pytest.raises(TypeError, match="Expected a list of symbols"):
            empty()
    for negative in (lambda: g[-1], lambda: g[-2:]):
        with pytest.raises(MXNetError, match="nonnegative"):
            negative()
    with pytest.raises(IndexError):
        g[1:10]
    with pytest.raises(TypeError, match="integer index"):
        g[1.0]
    state = mx.sym.var("state")  # what the TAR loss builds when hybridized
    with pytest.raises(TypeError, match="Expected a list of symbols"):
        state[1:] - state[:-1]  # pylint: disable=expression-not-assigned


def test_reshape_method_passes_further_positionals_to_the_operator():
    """MXNet 1.9.1's ``Symbol.reshape(*args)`` is the operator with its parameters in order
    (shape, reverse, target_shape, keep_highest): ``x.reshape(-3, -2)`` asks for reverse=-2
    and fails (GluonNLP's hybridized CacheCell); one shape argument is the shape."""
    x = mx.sym.var("x")
    assert x.reshape((2, 3)).infer_shape(x=(3, 2))[1] == [(2, 3)]
    assert x.reshape(-1).infer_shape(x=(3, 2))[1] == [(6,)]
    assert x.reshape((-1, 2), True).list_attr() == {"shape": "(-1, 2)", "reverse": "True"}
    for args in ((-3, -2), (2, 3, 4)):
        with pytest.raises(MXNetError, match="Invalid Parameter format for reverse expect boolean"):
            x.reshape(*args)


def test_copy_and_deepcopy():
    x = mx.sym.var("x")
    t = mx.sym.relu(x, name="r")
    for c in (copy.copy(t), copy.deepcopy(t)):
        assert c.tojson() == t.tojson() and c.list_outputs() == t.list_outputs()
        c._set_attr(__mark__="1")
        assert t.attr("__mark__") is None


def test_ndarray_only_features_raise():
    x = mx.sym.var("x")
    with pytest.raises(AttributeError):
        x.shape  # pylint: disable=pointless-statement
    with pytest.raises(NotImplementedForSymbol):
        x.asnumpy()
    with pytest.raises(NotImplementedForSymbol):
        x += 1


def test_fluent_methods_and_compose():
    x = mx.sym.var("x")
    r = x.reshape((0, -1)).relu()
    out = r.eval(x=mx.nd.array(np.arange(-3, 3).reshape(2, 1, 3)))[0]
    assert out.shape == (2, 3) and out.asnumpy().min() == 0
    y = mx.sym.var("y")
    composed = mx.sym.relu(x)(x=y * 2)
    assert composed.list_arguments() == ["y"]


# ----------------------------------------------------------------------------- JSON
@pytest.mark.parametrize("path", SYMBOL_FILES, ids=[os.path.basename(p)[:-12] for p in SYMBOL_FILES])
def test_json_round_trip(path):
    graph = json.load(open(path))
    missing = sorted({n["op"] for n in graph["nodes"]} - {"null"} - set(registry.list_operators()))
    if missing:
        pytest.skip("operator not registered yet: %s" % ", ".join(missing))
    assert json.loads(mx.sym.load(path).tojson()) == graph


def test_save_load_and_errors(tmp_path):
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    path = str(tmp_path / "m-symbol.json")
    fc.save(path)
    assert mx.sym.load(path).tojson() == fc.tojson()
    assert mx.sym.load_json(fc.tojson()).list_arguments() == fc.list_arguments()
    with pytest.raises(MXNetError, match="Invalid symbol JSON"):
        mx.sym.load_json('{"nodes": [')
    with pytest.raises(MXNetError, match="NoSuchOp"):
        mx.sym.load_json('{"nodes": [{"op": "NoSuchOp", "name": "a", "inputs": []}], "heads": [[0, 0, 0]]}')


# ----------------------------------------------------------------------------- inference
def test_infer_shape_forward_and_backward():
    x = mx.sym.var("x")
    fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    assert fc.infer_shape(x=(2, 5)) == ([(2, 5), (3, 5), (3,)], [(2, 3)], [])
    assert fc.infer_shape((2, 5)) == ([(2, 5), (3, 5), (3,)], [(2, 3)], [])
    y = mx.sym.var("y")
    assert (fc + y).infer_shape(x=(2, 5))[0][-1] == (2, 3)  # y from the other side of elemwise_add
    bn = mx.sym.BatchNorm(x, name="bn")
    assert bn.infer_shape(x=(4, 3, 2, 2))[2] == [(3,), (3,)]


def test_infer_shape_partial_and_unknown():
    x = mx.sym.var("x")
    fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    assert fc.infer_shape_partial() == ([(), (), ()], [()], [])
    with pytest.warns(UserWarning, match="Cannot decide shape"):
        assert fc.infer_shape() == (None, None, None)
    z = mx.sym.var("z", shape=(0, 3))
    assert z.infer_shape_partial() == ([(0, 3)], [(0, 3)], [])


def test_infer_shape_conflicts_name_operator_and_shapes():
    fc = mx.sym.FullyConnected(mx.sym.var("d"), num_hidden=5, name="fc")
    with pytest.raises(MXNetError, match=r"fc.*\(4, 3\).*\(5, 3\)"):
        fc.infer_shape(d=(2, 3), fc_weight=(4, 3))
    s = mx.sym.var("a") + mx.sym.var("b")
    with pytest.raises(MXNetError, match=r"elemwise_add.*\(2, 3\).*\(3, 3\)"):
        s.infer_shape(a=(2, 3), b=(3, 3))
    with pytest.raises(MXNetError, match="not an input"):
        s.infer_shape(c=(2, 3))


def test_infer_type():
    x = mx.sym.var("x")
    fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    assert fc.infer_type(x="float16") == ([np.float16] * 3, [np.float16], [])
    assert fc.infer_type(x=np.float64)[1] == [np.float64]
    c = mx.sym.Cast(x, dtype="int32")
    assert c.infer_type(x="float32")[1] == [np.int32]
