"""``mx.contrib.amp``'s graph conversion (``convert_symbol``, ``convert_model``,
``convert_hybrid_block``, ``convert_bucketing_module``) and ``tojson(remove_amp_cast)``,
against MXNet 1.9.1's converted graphs (tools/make_extra_fixtures_amp.py)."""
import json
import os

import numpy as np
import pytest
import torch

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.contrib import amp
from neogluon.contrib.amp import reduce_precision
from neogluon.operator import registry

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "amp")
with open(os.path.join(HERE, "cases.json")) as _f:
    RECORDED = json.load(_f)
CASES = {"%s/%s/%s" % (c["graph"], c["target"], c["options"]): c for c in RECORDED["cases"]}
OPTIONS = {"default": {}, "optional_params": {"cast_optional_params": True},
           "excluded": {"excluded_sym_names": ["fc0", "fa", "f1", "f2", "fs0", "out", "dec"]},
           "custom_lists": {"target_dtype_ops": ["FullyConnected", "Convolution"], "fp32_ops": ["softmax"],
                            "conditional_fp32_ops": [("Activation", "act_type", ["relu"])]}}


def _convert(case, **extra):
    kw = dict(OPTIONS[case["options"]], **extra)
    if "conditional_fp32_ops" in kw:
        kw["conditional_fp32_ops"] = [list(c) for c in kw["conditional_fp32_ops"]]
    return amp.convert_symbol(mx.sym.load_json(case["source"]), target_dtype=case["target"], **kw)


def _random_inputs(sym, shapes, seed=0):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    rng = np.random.RandomState(seed)
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name == "tok":
            args[name] = mx.nd.array(rng.randint(0, 10, size=shape))
        else:
            args[name] = mx.nd.array(rng.uniform(-1, 1, size=shape))
    aux = {name: mx.nd.array(rng.uniform(0.5, 1.5, size=shape)) for name, shape in
           zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, aux


def _forward(sym, args, aux):
    exe = sym.bind(mx.cpu(), {n: args[n] for n in sym.list_arguments()},
                   aux_states={n: aux[n] for n in sym.list_auxiliary_states()})
    return exe.forward(is_train=False)


@pytest.mark.parametrize("key", sorted(k for k, c in CASES.items() if "error" not in c))
def test_convert_symbol_writes_mxnets_graph(key):
    case = CASES[key]
    converted = _convert(case, data_names=list(case["shapes"]))
    assert converted.tojson(remove_amp_cast=False) == case["json_full"]  # byte for byte
    assert converted.tojson() == case["json"]  # MXNet's default drops the casts
    assert converted.get_internals().list_outputs() == case["internals"]
    if "json_full_no_data_names" in case:  # every input without __dtype__ is data
        assert _convert(case).tojson(remove_amp_cast=False) == case["json_full_no_data_names"]


@pytest.mark.parametrize("key", sorted(k for k, c in CASES.items() if "error" in c))
def test_graph_mxnet_rejects_fails_when_run(key):
    """Where MXNet's pass stops on mixed input types (a widest-type operator that reads a
    float16 and a float32 input), the converted graph fails here when it runs: the
    operator names the mixed dtypes. (MXNet fails at conversion, neogluon at the first run.)"""
    case = CASES[key]
    converted = _convert(case, data_names=list(case["shapes"]))
    args, aux = _random_inputs(mx.sym.load_json(case["source"]), case["shapes"])
    with pytest.raises(MXNetError, match="dtype|type"):
        _forward(converted, args, aux)


@pytest.mark.parametrize("key", ["conv_fc_softmax/float16/default", "shared_inputs/float16/default",
                                 "bn_pool_fc/float16/optional_params", "rnn/float16/default",
                                 "multi_output/float16/custom_lists", "widest_where/float16/custom_lists",
                                 "conv_fc_softmax/bfloat16/default", "rnn/bfloat16/default"])
def test_converted_graph_runs_in_low_precision(key):
    case = CASES[key]
    source = mx.sym.load_json(case["source"])
    converted = _convert(case, data_names=list(case["shapes"]))
    args, aux = _random_inputs(source, case["shapes"])
    reference = [o.asnumpy() for o in _forward(source, args, aux)]
    low = dict(args)
    attrs = converted.attr_dict()
    for name in low:  # parameters marked with the target type are given in it, as convert_model does
        if attrs.get(name, {}).get("__dtype__") == reduce_precision.FLAGS[case["target"]]:
            low[name] = mx.nd.amp_cast(low[name], dtype=case["target"])
    outs = _forward(converted, low, aux)
    tol = 2e-2 if case["target"] == "float16" else 8e-2
    for out, ref in zip(outs, reference):
        assert out.dtype == np.float32 and out._t.dtype == torch.float32  # outputs are cast back to float32
        np.testing.assert_allclose(out.asnumpy(), ref, rtol=tol, atol=tol)
    # the float16 operators really ran in the target type
    internals = converted.get_internals()
    names = internals.list_outputs()
    low_name = {"float16": torch.float16, "bfloat16": torch.bfloat16}[case["target"]]
    lp_ops = [n for n in names if n.endswith("_amp_cast_%s_output" % case["target"])]
    assert lp_ops
    exe = internals.bind(mx.cpu(), {n: low[n] for n in internals.list_arguments()},
                         aux_states={n: aux[n] for n in internals.list_auxiliary_states()})
    values = dict(zip(names, exe.forward()))
    assert all(values[n]._t.dtype == low_name for n in lp_ops)


def test_convert_model_casts_marked_parameters():
    source = mx.sym.load_json(CASES["bn_pool_fc/float16/default"]["source"])
    args, aux = _random_inputs(source, {"data": (2, 3, 4, 4)})
    params = {k: v for k, v in args.items() if k != "data"}
    for recorded in RECORDED["models"]:
        sym, arg_params, aux_params = amp.convert_model(source, dict(params), dict(aux), target_dtype="float16",
                                                        **recorded["options"])
        assert sym.tojson(remove_amp_cast=False) == recorded["json_full"]
        assert {k: np.dtype(v.dtype).name for k, v in sorted(arg_params.items())} == recorded["arg_dtypes"]
        assert {k: np.dtype(v.dtype).name for k, v in sorted(aux_params.items())} == recorded["aux_dtypes"]
        out = _forward(sym, dict(arg_params, data=args["data"]), aux_params)[0]
        ref = _forward(source, args, aux)[0]
        np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=2e-2, atol=2e-2)
    with pytest.raises(AssertionError, match="float16 and bfloat16"):
        amp.convert_model(source, params, aux, target_dtype="int8")
    with pytest.raises(AssertionError, match="Common ops in target_dtype_ops and fp32_ops"):
        amp.convert_symbol(source, target_dtype_ops=["FullyConnected"], fp32_ops=["FullyConnected"])
    with pytest.raises(AssertionError, match="not in any of them"):
        amp.convert_symbol(source, target_dtype_ops=["NoSuchOp"])


@pytest.mark.parametrize("name", sorted(RECORDED["removed"]))
def test_tojson_removes_amp_casts_as_mxnet(name):
    recorded = RECORDED["removed"][name]
    sym = mx.sym.load_json(recorded["full"])
    assert sym.tojson(remove_amp_cast=False) == recorded["full"]
    assert sym.tojson() == recorded["removed"]


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
def test_convert_hybrid_block(target, tmp_path):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Conv2D(4, 3, in_channels=2), mx.gluon.nn.Activation("relu"),
                mx.gluon.nn.Dense(3, in_units=36))
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(1).rand(2, 2, 5, 5))
    with pytest.raises(RuntimeError, match="hybridize"):
        amp.convert_hybrid_block(net, target)
    net.hybridize()
    ref = net(x).asnumpy()
    for optional in (False, True):
        converted = amp.convert_hybrid_block(net, target, cast_optional_params=optional)
        assert isinstance(converted, mx.gluon.SymbolBlock)
        out = converted(x)
        assert out._t.dtype == torch.float32
        np.testing.assert_allclose(out.asnumpy(), ref, rtol=5e-2, atol=5e-2)
        weight = [p for n, p in converted.collect_params().items() if n.endswith("dense0_weight")][0]
        stored = weight.data()._t.dtype
        assert stored == ({"float16": torch.float16, "bfloat16": torch.bfloat16}[target] if optional
                          else torch.float32)
        converted.hybridize()
        np.testing.assert_allclose(converted(x).asnumpy(), out.asnumpy(), rtol=1e-6)
    converted.export(str(tmp_path / "amp"))  # MXNet's export drops the casts inside, keeps the __dtype__ marks
    graph = json.loads((tmp_path / "amp-symbol.json").read_text())
    nodes = graph["nodes"]
    assert [i for i, n in enumerate(nodes) if n["op"] == "amp_cast"] == [h[0] for h in graph["heads"]]
    assert all(n.get("attrs", {}).get("__dtype__") for n in nodes if n["op"] == "null" and n["name"] != "data")


def test_convert_bucketing_module():
    def sym_gen(key):
        data = mx.sym.var("data")
        out = mx.sym.FullyConnected(mx.sym.Reshape(data, shape=(0, -1)), num_hidden=3, name="fc")
        return mx.sym.softmax(out, name="sm"), ("data",), None

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=4)
    mod.bind(data_shapes=[("data", (2, 4))], for_training=False)
    mod.init_params(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(2).rand(2, 4))
    batch = mx.io.DataBatch([x], bucket_key=4, provide_data=[mx.io.DataDesc("data", (2, 4))])
    mod.forward(batch, is_train=False)
    ref = mod.get_outputs()[0].asnumpy()
    converted = amp.amp.convert_bucketing_module(mod)
    assert isinstance(converted, mx.mod.BucketingModule) and converted.params_initialized
    names = [n["name"] for n in json.loads(converted._buckets[4]._symbol.tojson(remove_amp_cast=False))["nodes"]]
    assert "fc_output_amp_cast_float32" in names and "fc_weight_amp_cast_float16" in names
    converted.bind(data_shapes=[("data", (2, 4))], for_training=False)
    converted.forward(batch, is_train=False)
    np.testing.assert_allclose(converted.get_outputs()[0].asnumpy(), ref, rtol=2e-2, atol=2e-2)


def test_named_outputs_table_is_registered():
    """The operators whose casts MXNet names after an output name exist here, and their
    recorded cast suffixes are the registry's output names (or an index)."""
    with open(os.path.join(HERE, "output_suffixes.json")) as f:
        suffixes = json.load(f)
    named = reduce_precision.named_outputs()
    assert named == {op for op, s in suffixes.items() if not all(x.isdigit() for x in s)}
    assert all(registry.exists(op) for op in named)
    assert {"FullyConnected", "Convolution", "Activation", "BatchNorm", "SliceChannel"} <= named
    assert "exp" not in named and "broadcast_add" not in named


@pytest.mark.parametrize("op", ["add_n", "Concat"])
def test_mixed_input_dtypes_are_rejected(op):
    """MXNet 1.9.1 refuses ``add_n``/``Concat`` over float16 and float32 inputs (its
    ElemwiseType/ConcatType checks), imperatively and in graphs; so does neogluon."""
    a, b = mx.nd.ones((2, 2), dtype="float16"), mx.nd.ones((2, 2))
    with pytest.raises(MXNetError, match="Operator %s: incompatible input dtypes: input 1 is float32" % op):
        getattr(mx.nd, op)(a, b)
    assert getattr(mx.nd, op)(b, b).dtype == np.float32


def test_init_with_custom_lists_points_to_conversion():
    """``amp.init`` is torch's autocast here; custom lists are refused with the way to get
    them (a converted graph follows them, see test_convert_symbol_writes_mxnets_graph)."""
    with pytest.raises(MXNetError, match="convert_hybrid_block"):
        amp.init("bfloat16", target_precision_ops=["FullyConnected"])
    assert not amp.amp._amp_initialized  # pylint: disable=protected-access
