"""Record MXNet 1.9.1's symbolic NumPy interface (``mx.sym.np``, ``mx.sym.npx``): for each
case, an expression over ``np``/``npx`` (the symbolic modules) and variables made with
``mx.sym.var(name).as_np_ndarray()``, MXNet's graph JSON (``tojson()``), the Python type of
the result, and the outputs of the graph bound to recorded inputs.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_sym_np.py

Writes ``tests/fixtures/extra/sym_np/cases.json`` (expression, JSON, type, output shapes and
dtypes) and ``<case>.npz`` (``in:<name>``, ``out:<i>``); ``tests/test_symbol_numpy.py``
replays them. The ``i_`` cases run the operators these graphs use (and ``npx.image``)
imperatively, on ``mx.np`` arrays: values, dtypes and shapes.
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import npx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "sym_np")
RNG = onp.random.RandomState(16)
CASES = {}


def u(*shape, lo=-2, hi=2):
    return RNG.uniform(lo, hi, size=shape).astype("float32")


def case(name, expr, values=True, **inputs):
    CASES[name] = dict(expr=expr, inputs=inputs, values=values)


A, B = u(2, 3), u(2, 3)
case("add", "np.add(a, b)", a=A, b=B)
case("dunders", "(a + b) * 2.0 - 1 / (b * b + 1) + 3 - a", a=A, b=B)
case("compare", "(a > b) + (a <= 0.5)", a=A, b=B)
case("pow_mod", "a ** 2 + np.mod(a, 1.5) + 2 ** a", a=A)
case("unary", "np.exp(a) + np.sin(a) * np.abs(a) - np.sqrt(np.square(a) + 1)", a=A)
case("reductions", "np.sum(a, axis=1) + np.mean(a, axis=1) + np.max(a, axis=1)", a=A)
case("sum_all", "np.sum(a) * a.sum() + a.mean()", a=A)
case("methods", "a.reshape((3, 2)).T.sum(axis=0, keepdims=True)", a=A)
case("reshape", "np.reshape(a, (3, -1))", a=A)
case("transpose", "np.transpose(a, (1, 0)) * 2", a=A)
case("getitem_int", "a[1]", a=A)
case("getitem_slice", "a[1:] + a[:, 1:2].sum()", a=A)
case("concat", "np.concatenate([a, b], axis=1)", a=A, b=B)
case("stack", "np.stack([a, b], axis=0)", a=A, b=B)
case("expand_squeeze", "np.squeeze(np.expand_dims(a, 0), axis=0)", a=A)
case("maximum", "np.maximum(a, b) - np.minimum(a, 0.5)", a=A, b=B)
case("clip", "np.clip(a, -1, 1)", a=A)
case("where", "np.where(a > 0, a, b)", a=A, b=B)
case("dot", "np.dot(a, c)", a=A, c=u(3, 4))
case("matmul", "np.matmul(a, c)", a=A, c=u(3, 4))
case("zeros_ones", "np.zeros((2, 3)) + np.ones((2, 3)) * a + np.ones_like(a) + np.zeros_like(b)", a=A, b=B)
case("full", "np.full((2, 3), 2.5) * a", a=A)
case("arange", "np.arange(6).reshape((2, 3)) + a", a=A)
case("broadcast_to", "np.broadcast_to(d, (2, 3)) + a", a=A, d=u(3))
case("tile", "np.tile(a, (2, 1))", a=A)
case("split", "np.split(a, 3, axis=1)[1]", a=A)
case("astype", "a.astype('float64')", a=A)
case("argmax", "np.argmax(a, axis=1)", a=A)
case("npx_relu_softmax", "npx.softmax(npx.relu(a), axis=-1)", a=A)
case("npx_fc", "npx.fully_connected(a, w, bias, num_hidden=4)", a=A, w=u(4, 3), bias=u(4))
case("npx_reshape", "npx.reshape(a, (-2, -1))", a=A)
case("npx_sigmoid_act", "npx.sigmoid(a) + npx.activation(a, act_type='tanh')", a=A)
case("npx_batch_dot", "npx.batch_dot(e, e, transpose_b=True)", e=u(2, 3, 4))
case("npx_one_hot_pick", "npx.pick(a, idx, axis=1)", a=A, idx=onp.array([0, 2], dtype="float32"))
case("linalg_norm", "np.linalg.norm(a)", a=A)
C = u(2, 3, lo=0.5, hi=3)
case("m_round", "(a * 10).round() + np.around(a, 1) + np.round(a)", a=A)
case("m_argsort", "a.argsort()", a=A)
case("m_cumsum", "a.cumsum() + np.cumsum(a, axis=1).sum()", a=A)
case("m_dot", "a.dot(c)", a=A, c=u(3, 4))
case("m_std_var", "a.std() + a.var(axis=0, ddof=1).sum() + np.std(a, axis=1).sum() + np.var(a)", a=A)
case("m_take", "a.take(idx) + a.take(idx, axis=1).sum()", a=A, idx=onp.array([0, 2, 1], dtype="int32"))
case("m_repeat", "a.repeat(2)", a=A)
case("m_misc", "-a + (a < b) * (a % c) + a ** c + 2 ** a + a.argmin()", a=A, b=B, c=C)
case("m_minmax", "a.max() + a.min(axis=0).sum() + a.prod() + a.flatten().sum() + a.squeeze().sum()", a=A)
S3 = u(3, 3)
case("tests", "np.isnan(a) + np.isinf(a) + np.isfinite(a)", a=A)
case("all_any", "np.all(a > -1) + np.any(a > 1, axis=1) + np.sometrue(a)", a=A)
case("ravel_flip", "np.ravel(a) + np.flip(a, 0).reshape(-1) + np.flip(a).reshape(-1)", a=A)
case("tril_diag", "np.tril(s, -1) + np.diag(np.diag(s)) + np.diag(s, 1).sum() + np.diagonal(s).sum() + np.trace(s)",
     s=S3)
case("copysign_ldexp", "np.copysign(a, b) + np.ldexp(a, b)", a=A, b=B)
case("roll", "np.roll(a, 1) + np.roll(a, 2, axis=1)", a=A)
case("tensordots", "np.tensordot(a, c, 1).sum() + np.tensordot(a, c, ((1,), (0,))).sum() + np.inner(a, b).sum() "
     "+ np.outer(a, b).sum() + np.vdot(a, b)", a=A, b=B, c=u(3, 4))
case("copy_diff_rot", "np.copy(a)[:, 1:] + np.diff(a) + np.rot90(s)[:2, 1:] + np.nan_to_num(a)[:, :2]", a=A, s=S3)
case("append_take", "np.append(a, b).sum() + np.append(a, b, axis=0).sum() + np.take(a, idx).sum()", a=A, b=B,
     idx=onp.array([0, 4, 5], dtype="int32"), values=False)  # (MXNet's executor fails on this graph)
case("atleast", "np.atleast_1d(a).sum() + np.atleast_2d(a, b)[1].sum() + np.atleast_3d(a)", a=A, b=B)
case("average", "np.average(a) + np.average(a, axis=1, weights=w).sum()", a=A, w=u(3, lo=0.5, hi=2))
case("random_uniform", "np.random.uniform(size=(2, 3))", values=False)
case("random_normal", "np.random.normal(0, 1, size=(2, 3)) + a", values=False, a=A)


# ---------------------------------------------------------------- the same operators, imperatively
IMPERATIVE = {}


def imperative(name, expr, **inputs):
    IMPERATIVE[name] = dict(expr=expr, inputs=inputs)


I32 = RNG.randint(-30, 30, size=(3, 4)).astype("int32")
imperative("i_std_var_int", "[np.std(i), np.var(i, axis=1), np.std(a, ddof=1), np.var(a, axis=0, keepdims=True)]",
           i=I32, a=A)
imperative("i_around", "[np.around(a * 10, 1), np.around(i, -1), np.round(a), np.around(a, 2)]", a=A, i=I32)
imperative("i_dot", "[np.dot(v, v), np.dot(t, c), np.dot(a, v3), np.dot(s, a)]",
           v=u(4), t=u(2, 2, 3), c=u(3, 4), a=A, v3=u(3), s=onp.array(2.5, dtype="float32"))
imperative("i_matmul", "[np.matmul(t, c), np.matmul(v3, c), np.matmul(b4, c)]",
           t=u(2, 2, 3), c=u(3, 4), v3=u(3), b4=u(1, 3, 2, 3))
imperative("i_join", "[np.concatenate([a, b], axis=0), np.stack([a, b], axis=2), np.concatenate([a, b], axis=None)]",
           a=A, b=B)
imperative("i_where", "[np.where(a > 0, a, b), np.where(c, a, d)]", a=A, b=B, c=onp.array([True, False, True]),
           d=u(3))
imperative("i_broadcast_to", "[np.broadcast_to(d, (2, 3)), np.broadcast_to(e, (2, 2, 3))]", d=u(3), e=u(2, 1, 3))
imperative("i_npx_act", "[npx.relu(a), npx.sigmoid(a)]", a=A)
IMG = RNG.randint(0, 256, size=(6, 8, 3)).astype("uint8")
imperative("i_image", "[npx.image.to_tensor(img), npx.image.normalize(npx.image.to_tensor(img), mean=(0.5, 0.4, 0.3), "
           "std=(0.2, 0.25, 0.3)), npx.image.flip_left_right(img), npx.image.flip_top_bottom(img), "
           "npx.image.crop(img, 1, 2, 4, 3), npx.image.resize(img, (4, 3))]", img=IMG)
imperative("i_image_batch", "[npx.image.to_tensor(imgs), npx.image.resize(imgs, (4, 5), interp=1)]",
           imgs=RNG.randint(0, 256, size=(2, 6, 8, 3)).astype("uint8"))


def record_imperative(index):
    from mxnet import np
    for name, c in IMPERATIVE.items():
        scope = {k: np.array(v, dtype=v.dtype) for k, v in c["inputs"].items()}
        scope.update(np=np, npx=npx)
        outs = eval(c["expr"], scope)  # pylint: disable=eval-used
        arrays = {"in:" + k: v for k, v in c["inputs"].items()}
        for i, o in enumerate(outs):
            arrays["out:%d" % i] = o.asnumpy()
        index[name] = dict(expr=c["expr"], inputs=sorted(c["inputs"]), imperative=True,
                           dtypes=[str(o.dtype) for o in outs], shapes=[list(o.shape) for o in outs])
        onp.savez(os.path.join(OUT, name + ".npz"), **arrays)


def _type(out):
    return type(out).__module__ + "." + type(out).__name__


def absent_methods():
    """The methods MXNet's ``_Symbol`` defines only to raise AttributeError (the legacy
    Symbol's fluent methods that the NumPy interface has not)."""
    sym = mx.sym.var("a").as_np_ndarray()
    out = []
    for name, value in sorted(type(sym).__dict__.items()):
        if not callable(value) or name.startswith("_"):
            continue
        try:
            getattr(sym, name)()
        except AttributeError as e:
            if "has no attribute" in str(e):
                out.append(name)
        except Exception:  # pylint: disable=broad-except
            pass
    return out


def main():
    npx.set_np()
    os.makedirs(OUT, exist_ok=True)
    index = {}
    for name, c in CASES.items():
        syms = {k: mx.sym.var(k).as_np_ndarray() for k in c["inputs"]}
        scope = dict(syms, np=mx.sym.np, npx=mx.sym.npx)
        try:
            out = eval(c["expr"], scope)  # pylint: disable=eval-used
        except Exception as e:  # pylint: disable=broad-except
            index[name] = dict(c, inputs=sorted(c["inputs"]), error="%s: %s" % (type(e).__name__, str(e).split("\n")[0]))
            continue
        entry = dict(expr=c["expr"], inputs=sorted(c["inputs"]), type=_type(out), json=json.loads(out.tojson()),
                     values=c["values"])
        arrays = {"in:" + k: v for k, v in c["inputs"].items()}
        if c["values"]:
            ex = out.as_nd_ndarray().bind(mx.cpu(), {k: mx.nd.array(v, dtype=v.dtype) for k, v in c["inputs"].items()})
            outs = ex.forward()
            entry["shapes"] = [list(o.shape) for o in outs]
            entry["dtypes"] = [str(o.dtype.__name__ if isinstance(o.dtype, type) else o.dtype) for o in outs]
            for i, o in enumerate(outs):
                arrays["out:%d" % i] = o.asnumpy()
        index[name] = entry
        onp.savez(os.path.join(OUT, name + ".npz"), **arrays)
    record_imperative(index)
    index["_absent_methods"] = absent_methods()
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print("%d cases, %d errors" % (len(index), sum("error" in e for e in index.values())))
    for k, e in index.items():
        if "error" in e:
            print(" ", k, e["error"])


if __name__ == "__main__":
    main()
