"""Record MXNet 1.9.1's initializer and Parameter behaviour for tests/test_initializer.py
and tests/test_parameter.py.

Run with the side venv (never imported by the project or its tests):
    /tmp/mxref/bin/python tools/make_extra_fixtures_param.py

Writes tests/fixtures/extra/param/:
  scales.json        the (distribution, low/high or loc/scale) each random initializer asks
                     MXNet's sampler for, per shape (captured by replacing the sampler)
  dumps.json         Initializer.dumps() strings
  values.npz         deterministic initializations (Bilinear, LSTMBias, Constant, suffix
                     dispatch, Orthogonal from a recorded random matrix)
  snippets.json      outcome (value or error type and message) of code snippets run with
                     ``mx`` = mxnet; the tests run the same snippets with ``mx`` = neogluon
  mx_saved.params    a ParameterDict saved by MXNet (strip_prefix='net_'), and
  mx_saved.npz       its values
"""
import ast
import json
import os
import warnings

import numpy as np
import mxnet as mx
from mxnet import gluon, initializer

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "param")

SHAPES = [(4, 3), (10, 7), (6, 2, 3), (8, 3, 5, 5), (16, 4, 3, 3, 3)]

# snippets: each is run with mx (and gluon = mx.gluon) in scope; the result is repr()'d
SNIPPETS = {
    "xavier_vector": "mx.init.Xavier()(mx.init.InitDesc('fc_weight'), mx.nd.zeros((3,)))",
    "unknown_pattern": "mx.init.Uniform()(mx.init.InitDesc('foo'), mx.nd.zeros((3,)))",
    "create_unknown": "mx.init.create('foo')",
    "create_not_string": "mx.init.create(3)",
    "xavier_bad_factor": "mx.init.Xavier(factor_type='x')(mx.init.InitDesc('fc_weight'), mx.nd.zeros((2, 2)))",
    "xavier_bad_rnd": "mx.init.Xavier(rnd_type='x')(mx.init.InitDesc('fc_weight'), mx.nd.zeros((2, 2)))",
    "load_shape": "mx.init.Load({'arg:b': mx.nd.ones((2,))})('b', mx.nd.zeros((3,)))",
    "load_missing": "mx.init.Load({'arg:b': mx.nd.ones((2,))})('c', mx.nd.zeros((3,)))",
    "legacy_not_string": "mx.init.Uniform()(3, mx.nd.zeros((3,)))",
    "eq_same": "mx.init.Uniform() == mx.init.Uniform(0.07)",
    "eq_other": "mx.init.Uniform() == mx.init.Normal()",
    "eq_kwargs": "mx.init.Xavier(magnitude=2) == mx.init.Xavier(magnitude=3)",
    "bad_grad_req": "gluon.Parameter('w', grad_req='foo')",
    "bad_stype": "gluon.Parameter('w', stype='foo')",
    "repr_default": "repr(gluon.Parameter('w', shape=(2, 0)))",
    "repr_str_dtype": "repr(gluon.Parameter('dense0_weight', shape=(10, 0), dtype='float32'))",
    "repr_int_shape": "repr(gluon.Parameter('w', shape=3))",
    "repr_constant": "repr(gluon.Constant('c', [[1, 2], [3, 4]]))",
    "invalid_shape": "gluon.Parameter('w', shape=(2, 0)).initialize()",
    "no_shape": "gluon.Parameter('w').initialize()",
    "deferred_data": "p = gluon.Parameter('w', shape=(2, 0), allow_deferred_init=True); p.initialize(); p.data()",
    "deferred_list_ctx": "p = gluon.Parameter('w', shape=(2, 0), allow_deferred_init=True); p.initialize(); p.list_ctx()",
    "deferred_finish_unknown": "p = gluon.Parameter('w', shape=(2, 0), allow_deferred_init=True); p.initialize(); "
                               "p._finish_deferred_init()",
    "not_initialized": "gluon.Parameter('q').data()",
    "not_initialized_grad": "gluon.Parameter('q').grad()",
    "not_initialized_list_ctx": "gluon.Parameter('q').list_ctx()",
    "not_initialized_reset": "gluon.Parameter('q', shape=(2,)).reset_ctx(mx.cpu())",
    "not_initialized_set_data": "gluon.Parameter('q', shape=(2,)).set_data(mx.nd.ones((2,)))",
    "wrong_ctx": "p = gluon.Parameter('w', shape=(3,)); p.initialize(); p.data(mx.gpu(0))",
    "grad_null": "p = gluon.Parameter('w', shape=(3,), grad_req='null'); p.initialize(); p.grad()",
    "list_grad_null": "p = gluon.Parameter('w', shape=(3,)); p.initialize(); p.grad_req = 'null'; p.list_grad()",
    "shape_incompatible": "p = gluon.Parameter('w', shape=(2, 5)); p.shape = (3, 5)",
    "shape_merge": "p = gluon.Parameter('w', shape=(2, 0)); p.shape = (2, 5); p.shape",
    "set_data_shape": "p = gluon.Parameter('w', shape=(2, 2)); p.initialize(); p.set_data(mx.nd.ones((2, 3)))",
    "load_init_shape": "p = gluon.Parameter('q', shape=(2, 2)); p.initialize(); p._load_init(mx.nd.ones((2, 3)), None)",
    "load_init_dtype": "p = gluon.Parameter('q', shape=(2, 2)); p.initialize(); "
                       "p._load_init(mx.nd.ones((2, 2), dtype='float64'), None)",
    "load_init_ctx": "p = gluon.Parameter('q', shape=(2, 2)); p.initialize(); p._load_init(mx.nd.ones((2, 2)), mx.gpu(0))",
    "load_init_cast_current": "p = gluon.Parameter('q', shape=(2, 0), dtype='float16'); "
                              "p._load_init(mx.nd.ones((2, 2), dtype='float64'), None, cast_dtype=True); "
                              "(repr(p), str(p.data().dtype))",
    "load_init_cast_saved": "p = gluon.Parameter('q', shape=(2, 0), dtype='float16'); "
                            "p._load_init(mx.nd.ones((2, 2), dtype='float64'), None, cast_dtype=True, "
                            "dtype_source='saved'); (repr(p), str(p.data().dtype))",
    "cast": "p = gluon.Parameter('w', shape=(3,)); p.initialize(); p.cast('float16'); "
            "(repr(p), str(p.data().dtype), str(p.grad().dtype))",
    "differentiable": "p = gluon.Parameter('w', shape=(3,), differentiable=False); p.grad_req = 'write'; p.grad_req",
    "constant_grad": "c = gluon.Constant('c', [1, 2]); c.initialize(); c.grad_req = 'write'; c.grad()",
    "constant_value": "c = gluon.Constant('c', [[1, 2], [3, 4]]); c.initialize(); c.data().asnumpy().tolist()",
    "dict_repr": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); "
                 "d.get('b', shape=(0,), allow_deferred_init=True); d.get_constant('c', [1, 2]); repr(d)",
    "dict_repr_empty": "repr(gluon.ParameterDict())",
    "dict_get_shape_conflict": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); d.get('w', shape=(3, 3))",
    "dict_get_shape_merge": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 0)); d.get('w', shape=(0, 3)).shape",
    "dict_get_attr_conflict": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); d.get('w', lr_mult=2.0)",
    "dict_get_dtype_conflict": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); d.get('w', dtype='float16')",
    "dict_get_dtype_same": "d = gluon.ParameterDict('net_'); w = d.get('w', shape=(2, 3)); "
                           "d.get('w', dtype='float32') is w",
    "dict_get_sets_unset": "d = gluon.ParameterDict('net_'); d.get('w'); d.get('w', shape=(2, 3), init='ones').shape",
    "dict_shared": "d = gluon.ParameterDict('net_'); w = d.get('w', shape=(2, 3)); "
                   "f = gluon.ParameterDict('net_', shared=d); (f.get('w') is w, list(f.keys()))",
    "dict_update_conflict": "d = gluon.ParameterDict(); d.get('w'); e = gluon.ParameterDict(); e.get('w'); d.update(e)",
    "dict_constant_missing": "gluon.ParameterDict('net_').get_constant('zz')",
    "dict_constant_not_constant": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2,)); d.get_constant('w', [1, 3])",
    "dict_save_strip": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2,)); d.initialize(); "
                       "d.save('TMP/z.params', strip_prefix='foo_')",
    "dict_load_missing": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); d.get('c', shape=(3,)); "
                         "d.load('PARAMS', restore_prefix='net_')",
    "dict_load_extra": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); "
                       "d.load('PARAMS', restore_prefix='net_')",
    "dict_load_restore_prefix": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 3)); "
                                "d.load('PARAMS', restore_prefix='foo_')",
    "dict_load_ignore": "d = gluon.ParameterDict('net_'); d.get('w', shape=(2, 0), allow_deferred_init=True); "
                        "d.get('c', shape=(3,)); d.load('PARAMS', restore_prefix='net_', ignore_extra=True, "
                        "allow_missing=True); (d['net_w'].shape, d['net_w'].data().asnumpy().tolist())",
    "dict_load_dict_prefixes": "d = gluon.ParameterDict(); d.get('a', shape=(2,)); d.get('b', shape=(1,)); "
                               "d.load_dict({'arg:a': mx.nd.ones((2,)), 'aux:b': mx.nd.zeros((1,))}); "
                               "(d['a'].data().asnumpy().tolist(), d['b'].data().asnumpy().tolist())",
    "init_twice_keeps": "p = gluon.Parameter('w', shape=(2,), init='ones'); p.initialize(); "
                        "p.initialize(init='zeros'); p.data().asnumpy().tolist()",
    "force_reinit": "p = gluon.Parameter('w', shape=(2,), init='ones'); p.initialize(); "
                    "p.initialize(init='zeros', force_reinit=True); p.data().asnumpy().tolist()",
    "init_precedence": "p = gluon.Parameter('w_bias', shape=(2,), init='ones'); p.initialize(init='zeros'); "
                       "q = gluon.Parameter('x_bias', shape=(2,), init='ones'); q.initialize(default_init='zeros'); "
                       "(p.data().asnumpy().tolist(), q.data().asnumpy().tolist())",
    "init_json_string": "p = gluon.Parameter('w', shape=(2, 2), init='[\"constant\", {\"value\": 2.5}]'); "
                        "p.initialize(); p.data().asnumpy().tolist()",
    "deferred_set_data": "p = gluon.Parameter('w', shape=(2, 0), allow_deferred_init=True, init='ones'); p.initialize(); "
                         "p.set_data(mx.nd.full((2, 3), 7)); p._finish_deferred_init(); p.data().asnumpy().tolist()",
    "grad_add": "p = gluon.Parameter('w', shape=(3,), grad_req='add'); p.initialize(init='ones')\n"
                "for _ in range(2):\n"
                "    with mx.autograd.record():\n"
                "        y = (p.data() * 2).sum()\n"
                "    y.backward()\n"
                "g = p.grad().asnumpy().tolist(); p.zero_grad(); (g, p.grad().asnumpy().tolist())",
    "grad_req_switch": "p = gluon.Parameter('w', shape=(3,)); p.initialize(init='ones'); d0 = p.data(); "
                       "p.grad_req = 'null'; a = p.data() is d0; p.grad_req = 'add'; "
                       "(a, p.grad_req, p.grad().asnumpy().tolist())",
    "var_attrs": "p = gluon.Parameter('z', shape=(2, 3), init=mx.init.Xavier(magnitude=2), lr_mult=2, "
                 "dtype='float16'); sorted(p.var().list_attr().items())",
    "var_attrs_str_init": "p = gluon.Parameter('z', shape=(2, 0), init='xavier'); sorted(p.var().list_attr().items())",
    "mixed_in_gluon": "p = gluon.Parameter('w', shape=(2,)); p.initialize(mx.init.Mixed(['.*'], [mx.init.One()]))",
}

# snippets whose MXNet outcome is an MXNet bug that neogluon fixes (not recorded)
#   get_constant with a differing list value: MXNet raises AttributeError ('list' has no .shape)


def run_snippet(code, scope):
    """Run ``code``; the outcome is repr() of its last expression (None for a statement)
    or the type and message of the error it raises."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(tree, "<snippet>", "exec"), scope)  # noqa: S102
            value = eval(compile(ast.Expression(last.value), "<snippet>", "eval"), scope) if last else None  # noqa: S307
        return {"value": repr(value)}
    except Exception as e:  # noqa: BLE001  (the error is what is recorded)
        return {"error": type(e).__name__, "message": str(e)}


def capture_samplers():
    """Replace MXNet's samplers used by the initializers with recorders."""
    calls = []

    def uniform(low, high, shape=None, out=None, **_):
        calls.append(["uniform", float(low), float(high)])

    def normal(loc, scale, shape=None, out=None, **_):
        calls.append(["normal", float(loc), float(scale)])
    initializer.random.uniform = uniform
    initializer.random.normal = normal
    return calls


def record_scales():
    calls = capture_samplers()
    inits = {"uniform": mx.init.Uniform(0.2), "normal": mx.init.Normal(0.5)}
    for rnd in ("uniform", "gaussian"):
        for factor in ("avg", "in", "out"):
            for mag in (3, 2.34):
                inits["xavier_%s_%s_%s" % (rnd, factor, mag)] = mx.init.Xavier(rnd, factor, mag)
    for factor in ("avg", "in", "out"):
        for slope in (0.25, 0.0):
            inits["msraprelu_%s_%s" % (factor, slope)] = mx.init.MSRAPrelu(factor, slope)
    out = {}
    for name, init in inits.items():
        for shape in SHAPES:
            del calls[:]
            init._init_weight("w", mx.nd.zeros(shape))
            out["%s|%s" % (name, ",".join(map(str, shape)))] = calls[0]
    return out


def record_values():
    vals = {}
    for shape in [(2, 1, 4, 4), (1, 3, 5, 3), (2, 2, 3, 6)]:
        a = mx.nd.zeros(shape)
        mx.init.Bilinear()._init_weight("w", a)
        vals["bilinear_%s" % "x".join(map(str, shape))] = a.asnumpy()
    for n, fb in [(8, 1.0), (12, 2.5)]:
        a = mx.nd.zeros((n,))
        mx.init.LSTMBias(fb)._init_weight("b", a)
        vals["lstmbias_%d" % n] = a.asnumpy()
    a = mx.nd.zeros((2, 3))
    mx.init.Constant(mx.nd.array([1, 2, 3]))._init_weight("c", a)
    vals["constant_broadcast"] = a.asnumpy()
    for name in ("fc_weight", "fc_bias", "bn_gamma", "bn_beta", "q_min", "q_max"):
        a = mx.nd.full((2, 2), 5.0)
        mx.init.One()(mx.init.InitDesc(name), a)
        vals["dispatch_%s" % name] = a.asnumpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("bn_moving_mean", "bn_moving_var", "x_moving_inv_var", "x_moving_avg", "stn_loc_bias",
                     "stn_loc_weight", "fc_bias", "fc_weight", "upsampling0_weight"):
            a = mx.nd.full((6, 1, 2, 2) if "upsampling" in name else (6,), 5.0)
            mx.init.One()(name, a)
            vals["legacy_%s" % name] = a.asnumpy()
    rng = np.random.RandomState(0)
    for shape in [(3, 5), (5, 3), (4, 2, 3), (6, 6)]:
        nout, nin = shape[0], int(np.prod(shape[1:]))
        tmp = rng.uniform(-1, 1, (nout, nin)).astype(np.float32)
        initializer.random.uniform = lambda *a, **k: mx.nd.array(tmp)  # noqa: B023
        a = mx.nd.zeros(shape)
        mx.init.Orthogonal(scale=1.5)._init_weight("w", a)
        key = "x".join(map(str, shape))
        vals["orthogonal_tmp_%s" % key] = tmp
        vals["orthogonal_%s" % key] = a.asnumpy()
    return vals


def record_dumps():
    inits = {
        "Uniform()": mx.init.Uniform(), "Uniform(0.1)": mx.init.Uniform(0.1), "Normal(0.5)": mx.init.Normal(0.5),
        "Xavier(factor_type='in', magnitude=2.34)": mx.init.Xavier(factor_type="in", magnitude=2.34),
        "Xavier('gaussian', 'out', 2)": mx.init.Xavier("gaussian", "out", 2),
        "MSRAPrelu()": mx.init.MSRAPrelu(), "MSRAPrelu('in', 0.1)": mx.init.MSRAPrelu("in", 0.1),
        "Orthogonal()": mx.init.Orthogonal(), "Orthogonal(2.0, 'normal')": mx.init.Orthogonal(2.0, "normal"),
        "Zero()": mx.init.Zero(), "One()": mx.init.One(), "Constant(3)": mx.init.Constant(3),
        "Constant(np.ones((2, 2)))": mx.init.Constant(np.ones((2, 2))),
        "Constant(mx.nd.array([1, 2]))": mx.init.Constant(mx.nd.array([1, 2])),
        "LSTMBias()": mx.init.LSTMBias(), "LSTMBias(2.0)": mx.init.LSTMBias(2.0), "Bilinear()": mx.init.Bilinear(),
    }
    return {k: v.dumps() for k, v in inits.items()}


def record_params_file():
    d = gluon.ParameterDict("net_")
    d.get("w", shape=(2, 3))
    d.get("b", shape=(3,), dtype="float64")
    d.get("i", shape=(2, 2), dtype="int32", grad_req="null", init="zeros")
    d.initialize(mx.init.Uniform(1.0))
    d["net_i"].set_data(mx.nd.array([[1, 2], [3, 4]], dtype="int32"))
    path = os.path.join(OUT, "mx_saved.params")
    d.save(path, strip_prefix="net_")
    np.savez(os.path.join(OUT, "mx_saved.npz"), **{k[4:]: v.data().asnumpy() for k, v in d.items()})
    return path


def main():
    os.makedirs(OUT, exist_ok=True)
    params = record_params_file()
    snippets = {}
    for key, code in SNIPPETS.items():
        scope = {"mx": mx, "gluon": gluon, "np": np}
        outcome = run_snippet(code.replace("TMP", "/tmp").replace("PARAMS", params), scope)
        if "message" in outcome:
            outcome["message"] = outcome["message"].replace(params, "PARAMS")
        snippets[key] = outcome
    with open(os.path.join(OUT, "snippets.json"), "w") as f:
        json.dump({"code": SNIPPETS, "outcome": snippets}, f, indent=1, sort_keys=True)
    with open(os.path.join(OUT, "dumps.json"), "w") as f:
        json.dump(record_dumps(), f, indent=1, sort_keys=True)
    np.savez(os.path.join(OUT, "values.npz"), **record_values())
    with open(os.path.join(OUT, "scales.json"), "w") as f:
        json.dump(record_scales(), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
