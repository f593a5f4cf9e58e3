"""mx.np's generated call sites (neogluon/numpy/_sites.py) agree with the general path
they replace: dtypes, reflected scalars, views, errors, autograd and tracing."""
import numpy as onp
import pytest

import neogluon as mx
from neogluon import autograd, np, npx
from neogluon.numpy import multiarray

DTYPES = ("float32", "float16", "float64", "int32", "int64", "uint8", "bool")


def _arr(dtype):
    values = onp.arange(1, 7).reshape(2, 3)
    return np.array(values % 2 if dtype == "bool" else values % 3 + 1, dtype=dtype)  # no zero divisor


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "mod", "pow", "eq", "lt"])
@pytest.mark.parametrize("dl,dr", [("float32", "float32"), ("int32", "float16"), ("int32", "int64"),
                                   ("uint8", "float32"), ("bool", "int32"), ("float64", "float32")])
def test_binary_matches_general(name, dl, dr):
    a, b = _arr(dl), _arr(dr)
    general = getattr(multiarray, "_dunder")(*{**{k: v for k, v in multiarray.ARITHMETIC.items()},
                                               **{k: v + (None,) for k, v in multiarray.COMPARISONS.items()}}[name])
    if name in ("mod", "truediv", "pow") and "bool" in (dl, dr):
        return
    if name in ("eq", "lt") and dl != dr:  # MXNet 1.9.1 compares arrays of one dtype only: both paths refuse
        for path in (getattr(a, "__%s__" % name), lambda b: general(a, b)):
            with pytest.raises(mx.MXNetError, match="incompatible input dtypes"):
                path(b)
        return
    got, want = getattr(a, "__%s__" % name)(b), general(a, b)
    assert type(got) is np.ndarray and got.dtype == want.dtype
    onp.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5])
def test_scalar_and_reflected(dtype, scalar):
    a = _arr(dtype)
    for name, (op, s, r) in multiarray.ARITHMETIC.items():
        if name in ("mod", "pow", "truediv") and dtype == "bool":
            continue
        for refl in (False, True):
            dunder = "__r%s__" % name if refl else "__%s__" % name
            got = getattr(a, dunder)(scalar)
            want = multiarray._dunder(op, s, r, reflected=refl)(a, scalar)
            assert got.dtype == want.dtype, (dunder, dtype, scalar)
            onp.testing.assert_allclose(got.asnumpy(), want.asnumpy())
    assert (a + 1).dtype == (onp.dtype("int64") if dtype == "bool" else onp.dtype(dtype))


def test_int_scalar_truncated_and_true_division():
    a = np.array([1, 2, 3], dtype="int32")
    assert (a * 1.5).tolist() == [1, 2, 3] and (a * 1.5).dtype == onp.int32  # MXNet: int32 * 1.5 is int32 * 1
    assert (a / 2).dtype == onp.float32 and (2 / a).dtype == onp.float32


@pytest.mark.parametrize("fn", ["exp", "sqrt", "absolute", "negative", "floor", "square", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_unary_keeps_dtype_rules(fn, dtype):
    a = np.array([[1, 4], [9, 2]], dtype=dtype)
    r = getattr(np, fn)(a)
    assert r.dtype == onp.dtype(dtype) and type(r) is np.ndarray
    ref = {"absolute": onp.abs}.get(fn, getattr(onp, fn, None))(a.asnumpy().astype("float64"))
    onp.testing.assert_allclose(r.asnumpy().astype("float64"), ref.astype(dtype).astype("float64"),
                                rtol=1e-2 if dtype == "float16" else 1e-6)
    out = np.zeros((2, 2), dtype=dtype)
    assert getattr(np, fn)(a, out=out) is out  # out=: the general path


def test_reductions_zero_d_and_arguments():
    a = np.array([[1, 2], [3, 4]], dtype="int32")
    assert a.sum().shape == () and a.sum().dtype == onp.int32 and a.sum().item() == 10
    assert np.mean(a).dtype == onp.float32 and np.prod(a).item() == 24
    assert a.sum(axis=0).tolist() == [4, 6] and a.sum(keepdims=True).shape == (1, 1)
    assert (a > 1).sum().dtype == onp.int64
    assert np.sum(a, dtype="float64").dtype == onp.float64


def test_getitem_views_and_errors():
    a = np.arange(12).reshape(3, 4)
    row, part = a[1], a[1:3]
    assert row.shape == (4,) and part.shape == (2, 4) and a[1][2].shape == ()
    a[1, 0] = 100
    assert row[0].item() == 100 and part[0, 0].item() == 100  # views, as MXNet's basic indexing
    assert a[-1].tolist() == [8, 9, 10, 11] and a[:2].shape == (2, 4) and a[np.int64(2)].shape == (4,)
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[1][2][0]
    assert a[1:2:2].shape == (1, 4) and a[::-1][0].tolist() == [8, 9, 10, 11]


def test_sites_record_gradients():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = np.array([[0.5, 0.5], [0.5, 0.5]])
    x.attach_grad()
    with autograd.record():
        z = (np.exp(x * 2.0 + y)[1] - 1).sum() + x[0:1].sum() / 2
    z.backward()
    e = onp.exp(x.asnumpy() * 2 + 0.5)
    want = onp.array([[0.5, 0.5], [2 * e[1, 0] + 0.5, 2 * e[1, 1] + 0.5]]) - onp.array([[0, 0], [0.5, 0.5]])
    onp.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5)
    assert not (x * 2.0)._t.requires_grad  # outside record(): detached


def test_sites_trace_into_npi_nodes():
    class Net(mx.gluon.HybridBlock):
        def forward(self, x):
            return np.exp(x + x * 2.0)[0].sum()

    with npx.use_np_array_and_shape() if hasattr(npx, "use_np_array_and_shape") else _set_np():
        net = Net()
        net.hybridize()
        x = np.ones((2, 3))
        out = net(x)
        assert out.shape == () and abs(out.item() - 3 * onp.exp(3.0)) < 1e-3
        ops = [n["op"] for n in __import__("json").loads(net._cached_graph[1].tojson())["nodes"]]
    for op in ("_npi_multiply_scalar", "_npi_add", "_npi_exp", "_np_sum"):
        assert op in ops, ops


class _set_np:
    def __enter__(self):
        npx.set_np()

    def __exit__(self, *a):
        npx.reset_np()
