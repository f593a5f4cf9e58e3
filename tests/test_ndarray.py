"""NDArray's API against MXNet 1.9.1: creation, properties, conversions, arithmetic,
comparisons, in-place forms, indexing, methods (recorded cases), plus checks that need
no reference answer."""
import pytest

from api_cases import cases, run_case


@pytest.mark.parametrize("case", cases("creation", "properties", "conversions", "arith", "compare",
                                       "inplace", "indexing", "methods"))
def test_mxnet_case(case):
    run_case(case)


import pickle  # noqa: E402
import re  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import neogluon as mx  # noqa: E402


def test_numpy_conversion_is_supported():
    """MXNet 1.9.1 cannot build a numpy array from an NDArray (no __array__); neogluon can."""
    a = mx.nd.array([[1, 2], [3, 4]], dtype="int32")
    n = np.array(a)
    assert n.dtype == np.int32 and n.tolist() == [[1, 2], [3, 4]]
    assert np.asarray(a, dtype=np.float64).dtype == np.float64


def test_numpy_scalars_on_the_left_give_ndarrays():
    a = mx.nd.array([1, 2])
    for r in (np.float64(2) * a, np.float32(1) + a, np.int64(3) - a, np.float32(2) < a):
        assert isinstance(r, mx.nd.NDArray) and r.dtype == np.float32


def test_array_from_torch_tensor_and_context_string():
    t = torch.arange(3, dtype=torch.int64)
    a = mx.nd.array(t, ctx="cpu(0)")
    assert a.dtype == np.float32 and a.asnumpy().tolist() == [0, 1, 2]
    t[0] = 5
    assert a.asnumpy()[0] == 0  # a copy


def test_pickle_a_variable_and_a_recorded_result():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    for arr, expected in ((x, [1.0, 2.0]), (y, [2.0, 4.0])):
        back = pickle.loads(pickle.dumps(arr))
        assert back.asnumpy().tolist() == expected and back.grad is None


def test_copyto_itself_warns_and_returns_false():
    a = mx.nd.ones((2,))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert a.copyto(a) is False
    assert "copy an array to itself" in str(caught[0].message)


def test_error_messages_name_the_operator_and_shapes():
    a = mx.nd.ones((2, 2))
    with pytest.raises(mx.MXNetError, match=r"broadcast_add.*\(2, 2\).*\(3,\)"):
        a + mx.nd.ones((3,))
    with pytest.raises(mx.MXNetError, match=r"provided \(2, 2\), inferred shape \(3, 2, 2\)"):
        a += mx.nd.ones((3, 2, 2))
    with pytest.raises(ValueError, match=r"shape \(3,\) to NDArray\[0\] of shape \(2, 2\)"):
        a[0] = mx.nd.ones((3,))
    with pytest.raises(TypeError, match="not supported"):
        a * "2"
    with pytest.raises(IndexError, match="out of bounds for axis 1 with size 2"):
        a[0, 2]


def test_inplace_keeps_identity_and_storage():
    a = mx.nd.array([1, 2, 3], dtype="int32")
    storage = a._t.untyped_storage().data_ptr()
    a += 2
    a *= 2
    a -= mx.nd.array([1, 1, 1], dtype="int32")
    assert a.asnumpy().tolist() == [5, 7, 9] and a._t.untyped_storage().data_ptr() == storage


def test_ctx_is_context_alias_and_as_in_context_copies_elsewhere():
    a = mx.nd.ones((2,))
    assert a.ctx == a.context == mx.cpu()
    assert a.as_in_context(mx.cpu()) is a
    assert a.copyto(mx.cpu()) is not a


@pytest.mark.parametrize("ctx", [mx.cpu(1), mx.Context("cpu_shared", 0), mx.cpu_pinned(0)])
def test_arrays_made_for_a_cpu_context_report_it(ctx):
    """As MXNet 1.9.1: GluonCV's batchify stacks into ``nd.empty(ctx=cpu_shared(0))`` and its
    batches report cpu_shared(0); an operator's result on cpu_shared/cpu_pinned is cpu(0)."""
    made = [mx.nd.zeros((2,), ctx=ctx), mx.nd.ones((2,), ctx=ctx), mx.nd.empty((2,), ctx=ctx),
            mx.nd.full((2,), 3, ctx=ctx), mx.nd.arange(3, ctx=ctx), mx.nd.array([1, 2], ctx=ctx),
            mx.nd.array(mx.nd.ones((2,)), ctx=ctx)]
    assert [str(a.context) for a in made] == [str(ctx)] * len(made)
    out = mx.nd.empty((2, 3), ctx=ctx)
    assert mx.nd.stack(mx.nd.ones((3,)), mx.nd.zeros((3,)), out=out) is out and out.context == ctx
    if ctx.device_type != "cpu":
        assert (made[0] + 1).context == mx.cpu(0)
    assert mx.nd.zeros((2,), ctx=mx.cpu(0)).context == mx.nd.zeros((2,)).context == mx.cpu(0)


@pytest.mark.skipif(mx.num_gpus() > 0, reason="needs a machine without a GPU")
def test_a_missing_gpu_is_an_mxnet_error_on_first_use():
    ctx = mx.gpu(0)  # creating the context works, as in MXNet
    assert str(ctx) == "gpu(0)"
    for make in (lambda: mx.nd.ones((2, 2), ctx=ctx), lambda: mx.nd.array([1, 2], ctx=ctx),
                 lambda: mx.nd.ones((2,)).as_in_context(ctx)):
        with pytest.raises(mx.MXNetError, match=r"gpu\(0\) is not available"):
            make()


def test_one_context_entered_by_several_threads_restores_each_default():
    import threading
    ctx = mx.nd.ones((1,)).context  # one Context object per device, shared
    assert ctx is mx.nd.zeros((2,)).context
    barrier, seen = threading.Barrier(2), []

    def work(inner):
        with inner:
            barrier.wait()
            with ctx:
                barrier.wait()
            seen.append(mx.current_context() is inner)

    threads = [threading.Thread(target=work, args=(mx.Context("cpu_pinned", i),)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [True, True] and mx.current_context() == mx.cpu()


def test_broadcast_to_and_like_methods_pad_leading_axes():
    """MXNet 1.9.1's NDArray.broadcast_to/broadcast_like are Python methods with numpy's rule
    (leading 1s added), unlike the operators, which need equal ranks; GluonTS's empirical CRPS
    broadcasts levels of shape (n,) like a (batch, time, dim, n) array. Messages from MXNet."""
    a = mx.nd.arange(5)
    got = a.broadcast_like(mx.nd.zeros((4, 2, 3, 5)))
    assert got.shape == (4, 2, 3, 5)
    np.testing.assert_array_equal(got.asnumpy(), np.broadcast_to(np.arange(5.0), (4, 2, 3, 5)))
    assert a.broadcast_to((2, 5)).shape == (2, 5)
    assert mx.nd.ones((1, 3)).broadcast_like(mx.nd.ones((2, 3))).shape == (2, 3)
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x.broadcast_to((4, 3))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [4.0, 4.0, 4.0])
    for call, msg in [(lambda: a.broadcast_to((5, 2)), "(5,) and requested shape (5, 2)"),
                      (lambda: mx.nd.ones((2, 3)).broadcast_like(mx.nd.ones((3,))), "(2, 3) and requested shape (3,)"),
                      (lambda: mx.nd.ones((1, 5)).broadcast_to((3, 0)), "(1, 5) and requested shape (3, 0)")]:
        with pytest.raises(ValueError, match=re.escape(
                "operands could not be broadcast together with remapped shapes[original->remapped]: " + msg)):
            call()
    with pytest.raises(mx.MXNetError):  # the operators keep their rule
        mx.nd.broadcast_like(a, mx.nd.zeros((2, 5)))


def test_operator_functions_assert_their_argument_kinds():
    """MXNet 1.9.1's generated functions assert the kind of each array argument: an
    AssertionError "Argument data must have NDArray type, but got <Symbol x>" (GluonNLP's
    hybridized evaluation StandardRNN meets it, calling nd.Dropout on a Symbol); neogluon's
    error is a TypeError too."""
    s = mx.sym.var("x")
    for call, message in ((lambda: mx.nd.relu(s), "Argument data must have NDArray type, but got <Symbol x>"),
                          (lambda: mx.nd.Dropout(s, p=0.5), "Argument data must have NDArray type"),
                          (lambda: mx.nd.relu(np.ones(3)), "Argument data must have NDArray type"),
                          (lambda: mx.nd.elemwise_add(mx.nd.ones(2), [1, 2]), "Argument rhs must have NDArray type"),
                          (lambda: mx.nd.concat(s, s, dim=0), "Positional arguments must have NDArray type"),
                          (lambda: mx.sym.relu(mx.nd.ones(2)), "Argument data must be Symbol instances"),
                          (lambda: mx.sym.concat(s, 3, dim=0), "Positional arguments must be Symbol instances")):
        for kind in (AssertionError, TypeError):
            with pytest.raises(kind, match=re.escape(message)):
                call()


def test_squeeze_expand_dims_flatten_inplace_are_views():
    """MXNet 1.9.1's NDArray.squeeze/expand_dims/flatten take ``inplace``: True gives a reshaped
    view sharing the array's memory, False the operator's copy (Sockeye builds its batches with
    ``mx.nd.slice(...).squeeze(axis=2, inplace=True)``). Shapes and messages from MXNet."""
    x = mx.nd.arange(6).reshape((2, 1, 3))
    assert x.squeeze(axis=1, inplace=True).shape == (2, 3)
    assert x.squeeze(axis=(-2,), inplace=True).shape == (2, 3)
    assert x.squeeze(inplace=True).shape == (2, 3)
    assert mx.nd.ones((1, 1)).squeeze(inplace=True).shape == (1,)
    assert x.expand_dims(-1, inplace=True).shape == (2, 1, 3, 1)
    assert x.expand_dims(0, inplace=True).shape == (1, 2, 1, 3)
    assert x.flatten(inplace=True).shape == (2, 3)
    for view in (x.squeeze(inplace=True), x.expand_dims(1, inplace=True), x.flatten(inplace=True)):
        view[:] = 7
        assert x.asnumpy().ravel().tolist() == [7.0] * 6
        x[:] = 0
    copy = x.squeeze(axis=1)
    copy[:] = 5
    assert x.asnumpy().sum() == 0 and copy.shape == (2, 3)
    assert x.expand_dims(axis=2).shape == (2, 1, 1, 3) and x.flatten().shape == (2, 3)
    with pytest.raises(AssertionError, match="Squeeze target axis 0 must be size 1, got 2."):
        x.squeeze(axis=0, inplace=True)
    with pytest.raises(AssertionError, match="axis 4 is out of range for 3d array"):
        x.expand_dims(4, inplace=True)
    with pytest.raises(mx.MXNetError):
        x.squeeze(axis=0)
    y = mx.nd.array([[1.0, 2.0]])
    y.attach_grad()
    with mx.autograd.record():
        z = (y.squeeze(axis=0, inplace=True) * mx.nd.array([3.0, 4.0])).sum()
    z.backward()
    assert y.grad.asnumpy().tolist() == [[3.0, 4.0]]


def test_astype_takes_anything_with_a_dtype():
    """MXNet 1.9.1's NDArray.astype spells its dtype through ``np.dtype(dtype)``, so an array
    stands for its dtype: Sockeye's loss calls ``output.astype(label, copy=False)``."""
    x = mx.nd.array([1.5, 2.5])
    label = mx.nd.array([1, 2], dtype="int32")
    assert x.astype(label).dtype == np.int32
    assert x.astype(label).asnumpy().tolist() == [1, 2]
    assert x.astype(x, copy=False) is x
    assert label.astype(x, copy=False) is not label
    assert x.astype(np.zeros(1, np.float16)).dtype == np.float16
    assert x.astype(mx.np.array([1], dtype="float16")).dtype == np.float16
