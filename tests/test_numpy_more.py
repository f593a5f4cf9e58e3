"""``mx.np``'s later names against MXNet 1.9.1 under ``npx.set_np()``: set operations and the
other NumPy fallbacks, ``unique``, ``pad``, ``percentile``, bitwise functions, windows,
``insert``/``delete``, ``np.linalg``'s ``eig``/``tensorinv``/..., ``np.random.multinomial``.

The recorded cases (``tests/fixtures/extra/numpy_more``, made by
``tools/make_extra_fixtures_numpy_more.py``) are expressions over ``np``, ``npx`` and named
inputs; the same expression runs here and must give MXNet's values, dtypes, shapes, kinds
of result (an ``mx.np`` array, or NumPy's value when a fallback got no ``mx.np`` array),
gradients, and exception types.
"""
import json
import os

import numpy as onp
import pytest

from neogluon import autograd, np, npx

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "numpy_more")
CASES = json.load(open(os.path.join(FIXTURES, "cases.json")))

# Where neogluon answers differently on purpose, and what it gives instead.
DEVIATIONS = {
    # MXNet formats its own message with ``ValueError(...).format`` and so raises AttributeError;
    # neogluon raises the ValueError MXNet means.
    "fb_recording": ("error", "ValueError"),
    # MXNet's front end drops constant_values (pads with 0) and its operator fails on 1-d
    # arrays; neogluon pads as NumPy does.
    "pad_value_tuple": ("numpy", lambda d: onp.pad(d["in_a"], ((2, 1),), constant_values=3.5)),
}


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def recorded(fn):
    with autograd.record():
        return fn()


def run(name):
    spec = CASES[name]
    data = dict(onp.load(os.path.join(FIXTURES, name + ".npz")))
    xs = {k: np.array(data["in_" + k], dtype=data["in_" + k].dtype) for k in spec["inputs"]}
    for k in spec["grad"]:
        xs[k].attach_grad()
    env = dict(np=np, npx=npx, onp=onp, recorded=recorded, **xs)
    if spec["grad"]:
        with autograd.record():
            out = eval(spec["expr"], env)  # pylint: disable=eval-used
    else:  # the NumPy fallbacks refuse to run while recording, as MXNet's
        out = eval(spec["expr"], env)  # pylint: disable=eval-used
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return spec, data, xs, outs


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" in CASES[n] and n not in DEVIATIONS))
def test_recorded_error(name):
    """What MXNet 1.9.1 refuses fails here with the same exception type."""
    with pytest.raises(Exception) as info:
        run(name)
    assert type(info.value).__name__ == CASES[name]["error"], info.value


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in CASES[n] and n not in DEVIATIONS))
def test_recorded_case(name):
    spec, data, xs, outs = run(name)
    assert len(outs) == len(spec["shapes"])
    for i, o in enumerate(outs):
        if spec["kinds"][i] == "mx":
            assert isinstance(o, np.ndarray), (name, i, type(o))
        else:
            assert not isinstance(o, np.ndarray), (name, i, type(o))
        got = o.asnumpy() if isinstance(o, np.ndarray) else onp.asarray(o)
        assert list(got.shape) == spec["shapes"][i], (name, i, got.shape)
        if name.startswith("fb_") and got.dtype.kind == "f" and spec["dtypes"][i].startswith("float"):
            pass  # a fallback is the installed NumPy's function: NumPy 2 keeps float32 where 1.23 gave float64
        else:
            assert str(got.dtype) == spec["dtypes"][i], (name, i, got.dtype)
        if spec["values"]:
            want = data["out%d" % i]
            if want.dtype.kind in "biu":
                onp.testing.assert_array_equal(got, want, err_msg=name)
            else:
                onp.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)
    if spec["grad"]:
        heads = [np.array(data["head%d" % i], dtype=data["head%d" % i].dtype) for i in range(len(outs))]
        autograd.backward(outs, heads)
        for k in spec["grad"]:
            onp.testing.assert_allclose(xs[k].grad.asnumpy(), data["grad_" + k], rtol=1e-4, atol=1e-4,
                                        err_msg="%s: gradient of %s" % (name, k))


def test_deviations():
    """The cases where neogluon answers as NumPy (or with the exception MXNet means)."""
    with pytest.raises(ValueError, match="Falling back to NumPy operator unwrap with autograd active"):
        run("fb_recording")
    assert CASES["fb_recording"]["error"] == "AttributeError"
    spec, data, _, outs = run("pad_value_tuple")
    assert CASES["pad_value_tuple"]["error"] == "MXNetError"
    onp.testing.assert_allclose(outs[0].asnumpy(), DEVIATIONS["pad_value_tuple"][1](data))


def test_pad_constant_values_honoured():
    """MXNet 1.9.1 pads with 0 whatever constant_values says; neogluon pads with the value."""
    a = np.ones((2, 2))
    onp.testing.assert_array_equal(np.pad(a, ((1, 0), (0, 1)), constant_values=7).asnumpy(),
                                   onp.pad(onp.ones((2, 2)), ((1, 0), (0, 1)), constant_values=7))


EXPORTS = json.load(open(os.path.join(FIXTURES, "export_nodes.json")))


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_hybridized_graphs_export_as_mxnet(name, tmp_path):
    """A hybridized np-style block (new operators; Symbol arithmetic with broadcasting and
    NumPy's dtype rules; array makers and basic indexing in hybrid_forward) gives MXNet's
    outputs, imperatively and hybridized, and exports MXNet's graph: the same operators with
    the same attribute strings (export_nodes.json: MXNet 1.9.1's export)."""
    from neogluon import gluon
    rec = EXPORTS[name]
    env = dict(gluon=gluon)
    exec(rec["source"], env)  # pylint: disable=exec-used
    net = env["Net"]()
    inputs = [np.array(v, dtype=d) for v, d in rec["inputs"]]
    for hybridize in (False, True):
        if hybridize:
            net.hybridize()
        got = net(*inputs)
        got = got if isinstance(got, (list, tuple)) else [got]
        assert len(got) == len(rec["outputs"])
        for g, w in zip(got, rec["outputs"]):
            onp.testing.assert_allclose(g.asnumpy(), onp.array(w, dtype=g.dtype), rtol=1e-5, atol=1e-6)
    net.export(str(tmp_path / "net"))
    nodes = json.load(open(str(tmp_path / "net-symbol.json")))["nodes"]
    assert [[n["op"], n.get("attrs", {})] for n in nodes if n["op"] != "null"] == rec["nodes"]


def test_last_row_of_a_symbol():
    """``x[-1]`` in a hybridized np-style block: MXNet 1.9.1 slices [-1, 0) and fails in its
    reshape; neogluon slices to the end and gives the imperative value."""
    from neogluon import gluon

    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[-1] + x[0]

    net = Net()
    x = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    want = net(x).asnumpy()
    net.hybridize()
    onp.testing.assert_array_equal(net(x).asnumpy(), want)


def test_clip_method_takes_min_max_keywords():
    """``x.clip(min=0)`` (d2l's box_iou): MXNet 1.9.1's method names its bounds min/max,
    either may be left out."""
    from neogluon import np as mnp
    x = mnp.array([-1.0, 2.0, 5.0])
    assert x.clip(min=0).tolist() == [0.0, 2.0, 5.0]
    assert x.clip(max=1).tolist() == [-1.0, 1.0, 1.0]
    assert x.clip(0, 3).tolist() == [0.0, 2.0, 3.0]
    assert x.clip(None, 2).tolist() == [-1.0, 2.0, 2.0]


# MXNet 1.9.1 promotes mixed dtypes in the arithmetic only: ``int32 + float32`` is float32, while the
# comparisons, maximum/minimum, arctan2, hypot, copysign and ldexp infer one dtype for both inputs and raise
# MXNetError ("Type inconsistent, Provided = int32, inferred type = float32" / "Incompatible attr in node at
# 1-th input: expected int32, got float32"), the d2l book's ``(preds == Y)`` with int32 predictions and float32
# labels among them (recorded with MXNet 1.9.1 for the pairs below).
@pytest.mark.parametrize("pair,added", [(("int32", "float32"), "float32"), (("float32", "float16"), "float32"),
                                        (("int32", "int64"), "int64"), (("bool", "float32"), "float32"),
                                        (("uint8", "int32"), "int32")])
def test_one_dtype_binary_operators_refuse_mixed_dtypes(np_mode, pair, added):
    import neogluon as mx
    x, y = np.array([1, 2]).astype(pair[0]), np.array([1, 3]).astype(pair[1])
    for fn in (np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal, np.maximum,
               np.minimum, np.arctan2, np.copysign, np.ldexp, lambda a, b: a == b, lambda a, b: a < b):
        with pytest.raises(mx.MXNetError):
            fn(x, y)
    assert str(np.add(x, y).dtype) == added
    assert (x == x).dtype == onp.bool_ and str(np.maximum(y, y).dtype) == pair[1]


def test_zero_dim_array_has_no_len_and_iterates_to_nothing(np_mode):
    """MXNet 1.9.1: ``len(np.array(2.0))`` raises TypeError('len() of unsized object') as NumPy does, and
    ``list(np.array(2.0))`` is ``[]`` (d2l's bbox_to_rect hands 0-d arrays to matplotlib, which takes an
    object whose len() raises TypeError as a scalar); a 1-d array iterates over 0-d arrays."""
    a = np.array(2.0)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(a)
    assert list(a) == []
    b = np.array([1.0, 2.0])
    items = list(b)
    assert len(b) == 2 and [type(v) for v in items] == [np.ndarray] * 2 and [float(v) for v in items] == [1.0, 2.0]
    assert [list(row.shape) for row in np.ones((3, 2))] == [[2]] * 3


def test_integer_array_compared_with_a_fractional_scalar_as_mxnet(np_mode):
    """MXNet 1.9.1 (imperatively) casts the scalar to an integer array's dtype before comparing, C++'s cast:
    truncated toward zero, then wrapped into the dtype (values recorded with MXNet 1.9.1); boolean and float
    arrays compare with the scalar itself."""
    a = np.array([-2, -1, 0, 1, 2], dtype="int32")
    u = np.array([0, 1, 2, 3, 255], dtype="uint8")

    def bits(x):
        return "".join("1" if v else "0" for v in x.asnumpy())
    assert [bits(r) for r in (a == 1.5, a != 1.5, a < 1.5, a <= 1.5, a > 1.5, a >= 1.5)] == \
        ["00010", "11101", "11100", "11110", "00001", "00011"]
    assert [bits(r) for r in (a == -1.5, a < -1.5, a >= -0.2, 1.5 > a, np.equal(a, 1.5), np.less(a, 0.5))] == \
        ["01000", "10000", "00111", "11100", "00010", "11000"]
    assert [bits(r) for r in (u == -1.5, u < 1.5, u == 0.5, u < 300.7, u > -0.2)] == \
        ["00001", "10000", "10000", "11110", "01111"]
    f = np.array([-2, -1, 0, 1.5, 2], dtype="float16")
    b = np.array([True, False, True, False, True])
    assert [bits(r) for r in (f == 1.5, f < -1.5, b == 0.5, b < 1.5)] == ["00010", "10000", "00000", "11111"]


def test_arctan2_hypot_with_a_python_number(np_mode):
    """A Python number meets the array in the array's float dtype (MXNet 1.9.1 runs _npi_arctan2_scalar /
    _npi_hypot_scalar: a float16 array gives float16, values recorded with MXNet 1.9.1); only two arrays of
    different dtypes are refused."""
    import neogluon as mx
    f = np.array([-3, -1, 0, 2, 5], dtype="float16")
    for got, want in ((np.hypot(f, 2.5), [3.904, 2.693, 2.5, 3.201, 5.59]),
                      (np.arctan2(f, 2.5), [-0.876, -0.381, 0.0, 0.675, 1.107])):
        assert got.dtype == onp.float16
        onp.testing.assert_allclose(got.asnumpy().astype(onp.float64), want, atol=2e-3)
    b = np.array([True, False])
    onp.testing.assert_allclose(np.hypot(b, 2.5).asnumpy(), [2.6925824, 2.5], rtol=1e-6)
    assert np.arctan2(2.5, np.array([1.0], dtype="float64")).dtype == onp.float64
    with pytest.raises(mx.MXNetError):
        np.arctan2(f, np.array([1.0, 2, 3, 4, 5]))


def test_clip_and_where_keep_an_integer_arrays_dtype(np_mode):
    """MXNet 1.9.1 (values recorded there): clip of an integer array keeps its dtype, a value beyond a bound
    becomes the bound cast to the dtype (legacy mx.nd.clip too); np.where with one Python number takes the
    array's dtype (a boolean array's: float32)."""
    import neogluon as mx
    a = np.array([-3, 1, 5], dtype="int32")
    for got in (np.clip(a, 0.5, 2.5), a.clip(0.5, 2.5)):
        assert got.dtype == onp.int32 and got.tolist() == [0, 1, 2]
    assert np.clip(a, None, 2.5).tolist() == [-3, 1, 2]
    assert np.clip(np.array([-3, 1, 5], dtype="uint8"), 1.5, 300.7).tolist() == [253, 1, 5]
    legacy = mx.nd.clip(mx.nd.array([0, 1, 250], dtype="uint8"), -1.5, 100.5)
    assert legacy.dtype == onp.uint8 and legacy.asnumpy().tolist() == [0, 1, 100]
    assert np.clip(np.array([-3.0, 1, 5]), 0.5, 2.5).tolist() == [0.5, 1.0, 2.5]
    c = np.array([True, False, True])
    for got, dtype, want in ((np.where(c, a, 0.5), "int32", [-3, 0, 5]), (np.where(c, 0.5, a), "int32", [0, 1, 0]),
                             (np.where(c, np.array([1, 2, 3], dtype="int64"), -1), "int64", [1, -1, 3]),
                             (np.where(c, np.array([1, 2, 3], dtype="float16"), 0.7), "float16",
                              [1.0, 0.7001953125, 3.0]),
                             (np.where(c, np.array([True, False, True]), 5), "float32", [1.0, 5.0, 1.0]),
                             (np.where(c, 1.5, 2.5), "float32", [1.5, 2.5, 1.5])):
        assert str(got.dtype) == dtype and got.tolist() == want


def test_mod_by_zero_is_zero_as_mxnet(np_mode):
    """MXNet 1.9.1's mod checks for a zero divisor and gives 0 (values recorded there): no nan for floats, no
    division error for integers, in mx.np (arrays, scalars, reflected scalars) and in legacy mx.nd; a zero
    result is +0 and the sign otherwise follows the divisor."""
    import neogluon as mx
    f, i = np.array([1.0, -2.0, 3.0]), np.array([1, -2, 3], dtype="int32")
    assert (f % 0).tolist() == [0.0, 0.0, 0.0] and np.mod(f, np.array([0.0, 1.0, 0.0])).tolist() == [0.0] * 3
    assert str(onp.asarray(np.mod(f, np.array([0.0, 1.0, 0.0])).asnumpy())[1]) == "0.0"
    assert (2.5 % np.array([0.0, 1.0, 2.0])).tolist() == [0.0, 0.5, 0.5]
    assert (i % 0).tolist() == [0, 0, 0] and np.mod(i, np.array([0, 1, 0], dtype="int32")).tolist() == [0, 0, 0]
    assert (2 % np.array([0, 1, 2], dtype="int32")).tolist() == [0, 0, 0]
    assert (2.5 % np.array([-3, -1, 0, 2, 5], dtype="int32")).tolist() == [-1, 0, 0, 0, 2]
    assert (np.array([5.0, -5.0]) % 3).tolist() == [2.0, 1.0]
    assert (mx.nd.array([1.0, 2.0]) % 0).asnumpy().tolist() == [0.0, 0.0]


def test_ufunc_keywords_raise_as_mxnet():
    """NumPy's ufunc keywords (where, casting, order, dtype, subok) on mx.np's ufuncs: the
    default values pass, other legal ones are NotImplementedError, others TypeError, and the
    comparisons take none (messages of MXNet 1.9.1's wrap_np_unary_func/wrap_np_binary_func)."""
    x = np.array([1., -2.])
    assert np.abs(x, where=True, casting="same_kind", order="K", dtype=None, subok=True).tolist() == [1., 2.]
    assert np.add(x, x, where=True).tolist() == [2., -4.]
    with pytest.raises(NotImplementedError, match="^dtype=float32 is not implemented yet for operator abs$"):
        np.abs(x, dtype="float32")
    with pytest.raises(NotImplementedError, match="^order=C is not implemented yet for operator sqrt$"):
        np.sqrt(x, order="C")
    with pytest.raises(TypeError, match="^casting=bad not understood for operator abs$"):
        np.abs(x, casting="bad")
    with pytest.raises(TypeError, match="^foo is an invalid keyword to function 'abs'$"):
        np.abs(x, foo=1)
    with pytest.raises(NotImplementedError, match="^where=False is not implemented yet$"):
        np.multiply(x, 2, where=False)
    with pytest.raises(TypeError, match="^casting bad not understood$"):
        np.arctan2(x, x, casting="bad")
    assert np.arctan2(x, x, subok=1).shape == (2,)  # 1 == True: the default
    with pytest.raises(TypeError, match="^foo is an invalid keyword to function 'add'$"):
        np.add(x, x, foo=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        np.equal(x, x, where=True)
    import neogluon
    util = neogluon.util
    assert (util.np_ufunc_legal_option("dtype", "int16"), util.np_ufunc_legal_option("dtype", onp.float16),
            util.np_ufunc_legal_option("order", 1), util.np_ufunc_legal_option("x", 1)) == (False, True, False, False)

    @util.wrap_np_unary_func
    def twice(v, out=None):
        return v * 2
    assert twice(3, casting="same_kind") == 6 and twice.__name__ == "twice"
    with pytest.raises(NotImplementedError, match="dtype=int8 is not implemented yet for operator twice"):
        twice(3, dtype="int8")
    assert neogluon.numpy.multiarray.wrap_np_binary_func is util.wrap_np_binary_func
