"""Record MXNet 1.9.1's AMP graph conversion (``mx.contrib.amp.convert_symbol`` /
``convert_model``): the converted JSON with and without its cast nodes, and the dtypes
type inference gives, for graphs that exercise each of the pass's rules.

Run with the side venv:  /work/mxref/bin/python tools/make_extra_fixtures_amp.py
Writes tests/fixtures/extra/amp/cases.json.
"""
import json
import os

import mxnet as mx
import numpy as np
from mxnet.contrib import amp

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "amp")


def graphs():
    """(name, symbol, input shapes) of the recorded graphs."""
    sym = mx.sym
    data = sym.var("data")
    g = {}
    x = sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv0")
    x = sym.Activation(x, act_type="relu", name="relu0")
    y = sym.FullyConnected(x, num_hidden=3, name="fc0")
    g["conv_fc_softmax"] = (sym.elemwise_add(sym.softmax(y, name="sm"), sym.exp(y, name="exp0"), name="add0"),
                            {"data": (2, 2, 5, 5)})
    # one variable into a low-precision and a float32 operator; one output into two of each
    a = sym.FullyConnected(data, num_hidden=4, name="fa")
    b = sym.FullyConnected(data, num_hidden=4, name="fb")
    c = sym.broadcast_add(a, b, name="plus0")
    d = sym.softmax(a, name="sa") + sym.log_softmax(a, name="la")
    g["shared_inputs"] = (sym.Group([c, d, sym.FullyConnected(a, num_hidden=2, name="fc2")]), {"data": (2, 6)})
    # conditional float32 (softrelu) and not (relu); LeakyReLU elu vs leaky
    e = sym.FullyConnected(data, num_hidden=4, name="f1")
    g["conditional"] = (sym.Group([sym.Activation(e, act_type="softrelu", name="sr"),
                                   sym.Activation(e, act_type="relu", name="rl"),
                                   sym.LeakyReLU(e, act_type="elu", name="elu0"),
                                   sym.LeakyReLU(e, act_type="leaky", name="lk0")]), {"data": (2, 6)})
    # widest-type operators over a low-precision and a float32 input
    f = sym.FullyConnected(data, num_hidden=4, name="f2")
    h = sym.exp(data, name="ex")
    g["widest_concat"] = (sym.Concat(f, h, dim=1, name="cat0"), {"data": (2, 4)})
    g["widest_mul"] = (sym.elemwise_mul(f, h, name="mul0"), {"data": (2, 4)})
    g["widest_add_n"] = (sym.add_n(f, h, f, name="addn0"), {"data": (2, 4)})
    g["widest_where"] = (sym.where(h > 0, f, h, name="wh0"), {"data": (2, 4)})
    g["widest_same"] = (sym.broadcast_mul(f, f, name="bm0"), {"data": (2, 4)})
    # a multi-output operator feeding low-precision operators
    s = sym.SliceChannel(data, num_outputs=2, axis=1, name="split0")
    g["multi_output"] = (sym.Group([sym.FullyConnected(s[0], num_hidden=3, name="fs0"),
                                    sym.FullyConnected(s[1], num_hidden=3, name="fs1"),
                                    sym.softmax(s[1], name="ss1")]), {"data": (2, 8)})
    # BatchNorm with auxiliary states, pooling, the output a low-precision operator
    x = sym.Convolution(data, num_filter=3, kernel=(1, 1), no_bias=True, name="c1")
    x = sym.BatchNorm(x, name="bn0")
    x = sym.Pooling(x, kernel=(2, 2), pool_type="max", name="pool0")
    x = sym.Flatten(x, name="flat0")
    g["bn_pool_fc"] = (sym.FullyConnected(x, num_hidden=2, name="out"), {"data": (2, 3, 4, 4)})
    # the fused RNN operator and an Embedding
    tok = sym.var("tok")
    emb = sym.Embedding(tok, input_dim=10, output_dim=4, name="emb")
    r = sym.RNN(emb, sym.var("rnn_params"), sym.var("rnn_state"), sym.var("rnn_cell"), state_size=5,
                num_layers=1, mode="lstm", name="lstm0")
    g["rnn"] = (sym.FullyConnected(r, num_hidden=3, flatten=False, name="dec"),
                {"tok": (3, 2), "rnn_state": (1, 2, 5), "rnn_cell": (1, 2, 5)})
    return g


OPTIONS = {
    "default": {},
    "optional_params": {"cast_optional_params": True},
    "excluded": {"excluded_sym_names": ["fc0", "fa", "f1", "f2", "fs0", "out", "dec"]},
    "custom_lists": {"target_dtype_ops": ["FullyConnected", "Convolution"], "fp32_ops": ["softmax"],
                     "conditional_fp32_ops": [("Activation", "act_type", ["relu"])]},
}


def types(s, shapes):
    arg, out, aux = s.infer_type(**{k: "float32" for k in shapes})
    name = lambda t: None if t is None else ("bfloat16" if np.dtype(t).names else np.dtype(t).name)
    return {"arg": [name(t) for t in arg], "out": [name(t) for t in out], "aux": [name(t) for t in aux]}


def main():
    cases = []
    for gname, (s, shapes) in graphs().items():
        for target in ("float16", "bfloat16"):
            for oname, opts in OPTIONS.items():
                if oname != "default" and target == "bfloat16":
                    continue
                kw = dict(opts)
                if "conditional_fp32_ops" in kw:
                    kw["conditional_fp32_ops"] = [list(c) for c in kw["conditional_fp32_ops"]]
                case = {"graph": gname, "target": target, "options": oname, "shapes": shapes,
                        "source": s.tojson()}
                try:
                    c = amp.convert_symbol(s, target_dtype=target, data_names=list(shapes), **kw)
                except mx.MXNetError as err:
                    case["error"] = str(err).split("\n")[0]
                    cases.append(case)
                    continue
                case.update({"json_full": c.tojson(remove_amp_cast=False), "json": c.tojson(),
                        "types": types(c, shapes), "internals": c.get_internals().list_outputs()})
                if oname == "default":
                    nodata = amp.convert_symbol(s, target_dtype=target)  # data_names from __dtype__
                    case["json_full_no_data_names"] = nodata.tojson(remove_amp_cast=False)
                cases.append(case)
    # convert_model: the parameters cast to the dtype the pass gives them
    s, shapes = graphs()["bn_pool_fc"]
    arg_shapes, _, aux_shapes = s.infer_shape(**shapes)
    rng = np.random.RandomState(0)
    args = {n: mx.nd.array(rng.randn(*sh)) for n, sh in zip(s.list_arguments(), arg_shapes) if n not in shapes}
    auxs = {n: mx.nd.array(rng.rand(*sh) + 0.5) for n, sh in zip(s.list_auxiliary_states(), aux_shapes)}
    models = []
    for opts in ({}, {"cast_optional_params": True}):
        cs, ca, cx = amp.convert_model(s, dict(args), dict(auxs), target_dtype="float16", **opts)
        models.append({"options": opts, "json_full": cs.tojson(remove_amp_cast=False),
                       "arg_dtypes": {k: np.dtype(v.dtype).name for k, v in sorted(ca.items())},
                       "aux_dtypes": {k: np.dtype(v.dtype).name for k, v in sorted(cx.items())}})
    # tojson(remove_amp_cast=True) on graphs with casts of a user's own
    x, w = mx.sym.var("x"), mx.sym.var("w")
    c = mx.sym.amp_cast(x, dtype="float16", name="c")
    m = mx.sym.amp_multicast(x, w, num_outputs=2, name="m")
    removed = {name: {"full": s.tojson(remove_amp_cast=False), "removed": s.tojson()}
               for name, s in (("cast_head", c), ("cast_inside", mx.sym.exp(c, name="e")),
                               ("multicast_inside", mx.sym.elemwise_add(m[1], m[0], name="a")),
                               ("multicast_head", m),
                               ("cast_of_cast", mx.sym.exp(mx.sym.amp_cast(c, dtype="float32", name="c2"),
                                                           name="e2")))}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": cases, "models": models, "removed": removed}, f, indent=1,
                  sort_keys=True)
    print("wrote %d cases, %d models" % (len(cases), len(models)))




def _probe_symbols():
    """(operator, one-operator symbol named 'probe') from every recorded operator case."""
    fixtures = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
    ops = os.path.join(fixtures, "mxnet-1.9.1", "ops")
    for fname in sorted(os.listdir(ops)):
        if fname.endswith("-symbol.json"):
            s = mx.sym.load(os.path.join(ops, fname))
            yield json.loads(s.tojson())["nodes"][-1]["op"], s
    extra = os.path.join(fixtures, "extra")
    for area in sorted(os.listdir(extra)):
        path = os.path.join(extra, area, "cases.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            cases = json.load(f).get("cases", {})
        for spec in (cases.values() if isinstance(cases, dict) else []):
            if not isinstance(spec, dict) or not isinstance(spec.get("op"), str) or "error" in spec:
                continue
            fn = getattr(mx.sym, spec["op"], None) or getattr(mx.sym._internal, spec["op"], None)
            attrs = {k: (str(tuple(v)) if isinstance(v, list) else str(v))
                     for k, v in (spec.get("attrs") or {}).items()}
            try:
                yield spec["op"], fn(*[mx.sym.var(n) for n in spec.get("inputs", [])], name="probe", **attrs)
            except Exception:  # pylint: disable=broad-except
                continue


def _probe(s, node_name, reader, lists, dtype):
    """The suffixes of the casts the pass puts between each output of ``s`` and a ``reader``."""
    found = []
    for i in range(len(s.list_outputs())):
        if reader == "FullyConnected":
            r = mx.sym.FullyConnected(s[i], num_hidden=2, name="amp_probe")
        else:
            r = mx.sym.softmax(s[i], name="amp_probe")
        try:
            c = amp.convert_symbol(r, "float16", conditional_fp32_ops=[], data_names=s.list_inputs(), **lists)
        except mx.MXNetError:
            return None
        nodes = json.loads(c.tojson(remove_amp_cast=False))["nodes"]
        casts = [n["name"] for n in nodes if n["op"] == "amp_cast" and n["name"].startswith(node_name + "_")
                 and nodes[n["inputs"][0][0]]["name"] == node_name]
        if len(casts) != 1:
            return None
        found.append(casts[0][len(node_name) + 1:-len("_amp_cast_" + dtype)])
    return found


def output_suffixes():
    """For every operator with a recorded case, the suffixes MXNet's AMP pass gives casts of
    its outputs: ``<name>`` where the operator declares output names (FListOutputNames),
    else the output's index. Found by feeding each output into a float16 FullyConnected and
    reading the name of the cast the pass inserts."""
    seen = {}
    for op, s in _probe_symbols():
        if op in seen:
            continue
        node_name = json.loads(s.tojson())["nodes"][-1]["name"]
        found = _probe(s, node_name, "FullyConnected", dict(target_dtype_ops=["FullyConnected"], fp32_ops=[]),
                       "float16")
        if found is None and op in amp.list_lp16_ops("float16"):  # a float16 operator: read it in float32
            found = _probe(s, node_name, "softmax", dict(target_dtype_ops=[op], fp32_ops=["softmax"]), "float32")
        if found:
            seen[op] = found
    return seen


def write_suffixes():
    """tests/fixtures/extra/amp/output_suffixes.json (what was probed) and the package's
    neogluon/contrib/amp/named_outputs.json (the operators whose casts use output names)."""
    table = output_suffixes()
    with open(os.path.join(OUT, "output_suffixes.json"), "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
    named = sorted(op for op, suffixes in table.items() if not all(s.isdigit() for s in suffixes))
    package = os.path.join(os.path.dirname(__file__), "..", "neogluon", "contrib", "amp", "named_outputs.json")
    with open(package, "w") as f:
        json.dump(named, f, indent=0)
    print("suffixes of %d operators, %d with named outputs" % (len(table), len(named)))


if __name__ == "__main__":
    main()
    write_suffixes()
