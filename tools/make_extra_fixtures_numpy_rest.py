"""Record MXNet 1.9.1's answers for the ``mx.np``/``mx.npx`` names the other numpy
generators leave out (``tools/make_extra_fixtures_numpy*.py``, ``..._sym_np.py``): the
element-wise and comparison functions called by name, ``amax``/``nanmax``/...,
``atleast_1d``/``dsplit``/``row_stack``, ``float_power``/``heaviside``/``signbit``,
``promote_types``/``result_type``, ``np.random.rand``/``randn``, ``np.linalg.pinv``/
``eigh``/``qr``, ``npx.cast``/``erfinv``/``gammaln``/``reshape_like``/``shape_array``/
``roi_pooling``, the financial names (an error in MXNet 1.9.1 with NumPy 1.23), ``genfromtxt``,
``set_printoptions`` and ``npx``'s context helpers.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_numpy_rest.py

Each case is an expression over ``np``/``npx`` and named inputs giving a list of outputs:
``cases.json`` holds the expression, the output dtypes and shapes (or MXNet's error), and
``compare`` (``values``, ``abs`` for results defined up to sign, ``shape`` for random draws);
``<case>.npz`` the inputs (``in:<name>``) and outputs (``out:<i>``).
``tests/test_numpy_rest.py`` replays them.
"""
import json
import os

import numpy as onp
import mxnet as mx
from mxnet import np, npx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "numpy_rest")
RNG = onp.random.RandomState(1616)
CASES = {}


def u(*shape, lo=-0.9, hi=0.9):
    return RNG.uniform(lo, hi, size=shape).astype("float32")


def case(name, expr, compare="values", **inputs):
    CASES[name] = dict(expr=expr, inputs=inputs, compare=compare)


A, B = u(2, 3), u(2, 3)
P = u(2, 3, lo=1.1, hi=3)
case("trig_more", "[np.arccos(a), np.arcsinh(a), np.arctanh(a), np.cosh(a), np.tan(a), np.arccosh(p), "
     "np.arctan2(a, b), np.degrees(a), np.radians(a)]", a=A, b=B, p=P)
case("deg2rad", "[np.deg2rad(a)]", a=A)  # (an AttributeError in MXNet 1.9.1: its _internal lacks the operator)
case("rad2deg", "[np.rad2deg(a)]", a=A)
case("logs_fix", "[np.log10(p), np.log2(p), np.fix(a * 3), np.logical_not(a > 0)]", a=A, p=P)
case("arith_by_name", "[np.multiply(a, b), np.divide(a, b), np.true_divide(a, 2), np.subtract(a, b), "
     "np.remainder(p, 0.7), np.float_power(p, 2)]", a=A, b=B, p=P)
case("compare_by_name", "[np.equal(a, b), np.not_equal(a, 0.5), np.greater(a, b), np.greater_equal(a, b), "
     "np.less(a, b), np.less_equal(a, 0.1)]", a=A, b=B)
case("reduce_names", "[np.amax(a), np.amin(a, axis=1), np.nanmax(a), np.nanmin(a, axis=0), np.nanprod(p), "
     "np.alltrue(a > -1), np.sometrue(a > 0.5)]", a=A, p=P)
case("finite", "[np.isfinite(a / z), np.isinf(a / z), np.signbit(a), np.heaviside(a, 0.5)]", a=A,
     z=onp.array([[1, 0, 1], [0, 1, 1]], dtype="float32"))
case("shapes_more", "[np.atleast_1d(s), np.dsplit(t, 2)[1], np.row_stack([a, b]), np.diag(a), np.identity(3), "
     "np.empty((2, 2)).shape and np.zeros(1), np.empty_like(a).shape and np.zeros(1), np.round_(a, 1)]",
     a=A, b=B, s=onp.array(1.5, dtype="float32"), t=u(2, 2, 4))
case("promote_types", "[np.array([np.promote_types('int32', 'float16') == onp.float16])]")
case("result_type", "[np.array([str(np.result_type(a, 'int64'))])]", a=A)
case("random_rand", "[np.random.rand(2, 3), np.random.randn(4)]", compare="shape")
case("linalg_pinv", "[np.linalg.pinv(a)]", a=A)
case("linalg_eigh", "list(np.linalg.eigh(s))", compare="abs", s=(lambda m: (m + m.T).astype('float32'))(u(3, 3)))
case("linalg_qr", "list(np.linalg.qr(m))", compare="abs", m=u(3, 3))
case("npx_more", "[npx.cast(a, dtype='float16'), npx.erfinv(a), npx.gammaln(p), npx.reshape_like(a, c), "
     "npx.shape_array(a)]", a=A, p=P, c=u(3, 2))
case("npx_roi_pooling", "[npx.roi_pooling(x, rois, pooled_size=(2, 2), spatial_scale=1.0)]",
     x=u(1, 2, 6, 6), rois=onp.array([[0, 0, 0, 3, 3], [0, 1, 1, 5, 4]], dtype="float32"))
case("financial", "[np.npv(0.1, a)]", a=A)
case("financial_pv", "[np.pv(0.05, 10, -100)]")
case("financial_ppmt", "[np.ppmt(0.05, 1, 10, 1000)]")
case("financial_rate", "[np.rate(10, -100, 800)]")
case("genfromtxt", "[np.genfromtxt(['1,2', '3,4.5'], delimiter=','), np.genfromtxt(['1 2', '3 4'], dtype='int32')]")
# the printed form with precision 2, as character codes (restored to MXNet's default 8 after)
case("set_printoptions", "[(np.set_printoptions(precision=2), np.array([ord(c) for c in repr(np.array("
     "[1.23456, 2.5]))], dtype='int32'), np.set_printoptions(precision=8))[1]]")
case("set_printoptions_linewidth", "[np.set_printoptions(linewidth=40)]")
case("npx_context", "[np.array([npx.num_gpus(), npx.current_context().device_id, npx.cpu(1).device_id, "
     "npx.gpu(2).device_id, int(npx.waitall() is None), int(str(npx.gpu(0)) == 'gpu(0)')], dtype='int32')]")


def main():
    npx.set_np()
    mx.random.seed(1)
    os.makedirs(OUT, exist_ok=True)
    index = {}
    for name, c in CASES.items():
        scope = {k: np.array(v, dtype=v.dtype) for k, v in c["inputs"].items()}
        scope.update(np=np, npx=npx, onp=onp)
        entry = dict(expr=c["expr"], inputs=sorted(c["inputs"]), compare=c["compare"])
        arrays = {"in:" + k: v for k, v in c["inputs"].items()}
        try:
            outs = eval(c["expr"], scope)  # pylint: disable=eval-used
        except Exception as e:  # pylint: disable=broad-except
            entry["error"] = type(e).__name__
            index[name] = entry
            onp.savez(os.path.join(OUT, name + ".npz"), **arrays)
            print(name, "error", type(e).__name__, str(e).split("\n")[0][:100])
            continue
        outs = [o if isinstance(o, np.ndarray) else np.array(o) for o in outs]
        entry["dtypes"] = [str(o.dtype) for o in outs]
        entry["shapes"] = [list(o.shape) for o in outs]
        for i, o in enumerate(outs):
            arrays["out:%d" % i] = o.asnumpy()
        index[name] = entry
        onp.savez(os.path.join(OUT, name + ".npz"), **arrays)
        print(name, entry["dtypes"])
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
