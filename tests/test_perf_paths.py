"""The fast paths give the same numbers as the slow ones.

The multi-tensor optimizer updates (``neogluon/optimizer/fused.py``, taken when an Updater
gets several parameters at once, as ``Trainer.step`` calls it) must match, bit for bit,
the per-parameter update operators that an Updater called one index at a time uses."""
import numpy as np
import pytest

import neogluon as mx
from neogluon.optimizer import fused

SHAPES = [(4, 3), (3,), (2, 2, 2), (5,)]


def _arrays(seed, dtype="float32"):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=s).astype(dtype) for s in SHAPES]


@pytest.fixture
def fused_calls(monkeypatch):
    """Names of the multi-tensor updates run during the test."""
    calls = []
    for name in ("sgd", "adam"):
        def spy(*args, _name=name, _fn=getattr(fused, name)):
            calls.append(_name)
            return _fn(*args)
        monkeypatch.setattr(fused, name, spy)
    return calls


def _trajectory(make_opt, grouped, steps=3, dtype="float32"):
    """The weights after ``steps`` updates of every parameter, all indices in one Updater
    call (``grouped``) or one call per index."""
    opt = make_opt()
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(w, dtype=dtype) for w in _arrays(0, dtype)]
    for step in range(steps):
        grads = [mx.nd.array(g, dtype=dtype) for g in _arrays(step + 1, dtype)]
        indices = list(range(len(weights)))
        if grouped:
            updater(indices, grads, weights)
        else:
            for i in indices:
                updater(i, grads[i], weights[i])
    return [w.asnumpy() for w in weights], updater


SGD_CONFIGS = [
    dict(learning_rate=0.1),
    dict(learning_rate=0.1, momentum=0.9),
    dict(learning_rate=0.05, momentum=0.9, wd=0.01, rescale_grad=0.5),
    dict(learning_rate=0.05, wd=0.01, clip_gradient=0.3, rescale_grad=2.0),
    dict(learning_rate=0.05, momentum=0.5, clip_gradient=0.3),
]

ADAM_CONFIGS = [
    dict(),
    dict(learning_rate=0.01, wd=0.01, rescale_grad=0.5),
    dict(learning_rate=0.01, clip_gradient=0.2, beta1=0.8, beta2=0.99, epsilon=1e-6),
]


def _with_mults(name, kwargs):
    def make():
        opt = mx.optimizer.create(name, param_idx2name={0: "a_weight", 1: "a_bias", 2: "b_weight", 3: "b_gamma"},
                                  **kwargs)
        opt.set_lr_mult({2: 0.5})
        opt.set_wd_mult({"a_weight": 2.0})
        return opt
    return make


@pytest.mark.parametrize("kwargs", SGD_CONFIGS, ids=str)
def test_fused_sgd_matches_per_parameter_updates(kwargs, fused_calls):
    make = _with_mults("sgd", kwargs)
    fast, _ = _trajectory(make, grouped=True)
    assert fused_calls == ["sgd"] * 3
    slow, _ = _trajectory(make, grouped=False)
    assert fused_calls == ["sgd"] * 3  # one index at a time: the per-parameter operators
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)


@pytest.mark.parametrize("kwargs", ADAM_CONFIGS, ids=str)
def test_fused_adam_matches_per_parameter_updates(kwargs, fused_calls):
    make = _with_mults("adam", kwargs)
    fast, fast_upd = _trajectory(make, grouped=True)
    slow, slow_upd = _trajectory(make, grouped=False)
    assert fused_calls == ["adam"] * 3
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)
    for i in range(len(SHAPES)):
        for a, b in zip(fast_upd.states[i], slow_upd.states[i]):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_fused_sgd_momentum_states_match():
    make = _with_mults("sgd", dict(learning_rate=0.1, momentum=0.9, wd=0.001))
    _, fast = _trajectory(make, grouped=True)
    _, slow = _trajectory(make, grouped=False)
    for i in range(len(SHAPES)):
        np.testing.assert_array_equal(fast.states[i].asnumpy(), slow.states[i].asnumpy())


def test_fused_sgd_follows_the_scheduler_and_counts():
    def make():
        return mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1))
    fast, fast_upd = _trajectory(make, grouped=True, steps=5)
    slow, slow_upd = _trajectory(make, grouped=False, steps=5)
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)
    assert fast_upd.optimizer.num_update == slow_upd.optimizer.num_update == 5
    assert fast_upd.optimizer._index_update_count == slow_upd.optimizer._index_update_count


def test_multi_precision_float16_keeps_the_per_parameter_path(fused_calls):
    def make():
        return mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
    fast, fast_upd = _trajectory(make, grouped=True, dtype="float16")
    assert not fused_calls
    slow, _ = _trajectory(make, grouped=False, dtype="float16")
    for f, s in zip(fast, slow):
        assert f.dtype == np.float16
        np.testing.assert_array_equal(f, s)
    assert fast_upd.states[0][1].dtype == np.float32  # the master copy was used


def test_subclass_overriding_the_update_is_not_bypassed():
    calls = []

    class Halving(mx.optimizer.SGD):
        def _update_impl(self, index, weight, grad, state, multi_precision=False):
            calls.append(index)
            super()._update_impl(index, weight, grad, state, multi_precision)

    _trajectory(lambda: Halving(learning_rate=0.1), grouped=True, steps=1)
    assert calls, "the subclass's _update_impl was not called"


def _net():
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, activation="relu"), mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier(), force_reinit=True)
    return net


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("optimizer,kwargs", [("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
                                              ("adam", {"learning_rate": 0.01})])
def test_trainer_step_matches_per_parameter_updater(hybridize, optimizer, kwargs, fused_calls):
    mx.random.seed(3)
    net = _net()
    x = mx.nd.random.uniform(shape=(4, 5))
    net(x)
    if hybridize:
        net.hybridize()
    params = net.collect_params()
    start = {k: p.data().copy() for k, p in params.items()}
    trainer = mx.gluon.Trainer(params, optimizer, dict(kwargs))
    reference = mx.optimizer.get_updater(mx.optimizer.create(optimizer, **kwargs))
    ref_weights = {k: v.copy() for k, v in start.items()}
    names = sorted(params.keys())
    for _ in range(3):
        for k, p in params.items():  # the reference network starts each step from the same weights
            ref_weights[k] = p.data().copy()
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        grads = {k: p.grad().copy() for k, p in params.items()}
        trainer.step(4)
        reference.optimizer.rescale_grad = 1.0 / 4
        for i, k in enumerate(names):
            reference(i, grads[k], ref_weights[k])
            np.testing.assert_array_equal(params[k].data().asnumpy(), ref_weights[k].asnumpy())
    assert fused_calls == [optimizer] * 3


def test_write_gradient_keeps_the_buffer_and_its_views():
    """A 'write' gradient lands in the same buffer array every time, and a view taken of
    the buffer sees the next gradient (as MXNet's in-place gradient arrays do)."""
    x = mx.nd.ones((100, 100))
    x.attach_grad()
    grad = x.grad
    for scale in (2.0, 3.0):
        with mx.autograd.record():
            y = (x * scale).sum()
        y.backward()
        assert grad is x.grad
        np.testing.assert_array_equal(grad.asnumpy(), np.full((100, 100), scale, np.float32))
    view = x.grad[1]
    with mx.autograd.record():
        y = (x * 7.0).sum()
    y.backward()
    np.testing.assert_array_equal(view.asnumpy(), np.full(100, 7.0, np.float32))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((100, 100), 7.0, np.float32))


def test_write_gradient_is_handed_over_when_nothing_shares_the_buffer():
    """With no view or export of ``.grad`` alive, backward gives the buffer the tensor torch
    computed (no copy); a DLPack export of the buffer makes it copy into the old memory."""
    x = mx.nd.ones((10, 10))
    x.attach_grad()
    grad = x.grad
    for _ in range(3):  # every backward, not only the first: nothing keeps the last one's memory
        before = grad._t
        with mx.autograd.record():
            y = (x * 2.0).sum()
        y.backward()
        assert x.grad is grad and grad._t is not before
    np.testing.assert_array_equal(grad.asnumpy(), np.full((10, 10), 2.0, np.float32))
    exported = np.from_dlpack(grad)  # shares the buffer's memory
    held = grad._t
    with mx.autograd.record():
        y = (x * 5.0).sum()
    y.backward()
    assert grad._t is held
    np.testing.assert_array_equal(exported, np.full((10, 10), 5.0, np.float32))


def test_write_gradient_keeps_the_buffer_memory_and_exports_see_it():
    """Once ``.grad`` is exported, every backward writes into the same memory: the tensor
    stays, and the DLPack export sees each new gradient."""
    x = mx.nd.ones((10, 10))
    x.attach_grad()
    grad = x.grad
    held = grad._t
    exported = np.from_dlpack(grad)  # shares the buffer's memory
    for scale in (2.0, 5.0, 3.0):
        with mx.autograd.record():
            y = (x * scale).sum()
        y.backward()
        assert x.grad is grad and grad._t is held
        np.testing.assert_array_equal(exported, np.full((10, 10), scale, np.float32))


def test_add_gradient_still_accumulates():
    x = mx.nd.ones((100, 100))
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            y = (x * 2.0).sum()
        y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((100, 100), 4.0, np.float32))


@pytest.mark.parametrize("kernel", [(2, 2), (3, 3), (2, 3), (1, 2)])
def test_tiled_max_pooling_matches_torch_kernel(kernel):
    """The predict-mode fast path of Pooling (non-overlapping max windows) gives the same
    values as torch's max_pool2d, NaN and -inf included; in training the gradient goes to
    each window's first maximum, as MXNet."""
    import torch
    rng = np.random.RandomState(0)
    data = rng.uniform(-1, 1, size=(8, 8, 12, 12)).astype(np.float32)  # large enough for the fast path
    data[0, 0, 0, 0], data[1, 2, 3, 4] = np.nan, -np.inf
    data[0, 1, :2, :] = 0.5  # ties
    x = mx.nd.array(data)
    out = mx.nd.Pooling(x, kernel=kernel, stride=kernel, pool_type="max")
    expected = torch.nn.functional.max_pool2d(torch.from_numpy(data), kernel, kernel).numpy()
    np.testing.assert_array_equal(out.asnumpy(), expected)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.MaxPool2D(pool_size=kernel, strides=kernel))
    net.hybridize()
    np.testing.assert_array_equal(net(x).asnumpy(), expected)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    t = torch.from_numpy(data).requires_grad_()
    torch.nn.functional.max_pool2d(t, kernel, kernel).sum().backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), t.grad.numpy())


# ----------------------------------------------------------------------------- mx.nd's fast paths
from neogluon.ndarray.ndarray import invoke  # noqa: E402

_DUNDERS = [("__add__", "broadcast_add", "_plus_scalar"), ("__sub__", "broadcast_sub", "_minus_scalar"),
            ("__mul__", "broadcast_mul", "_mul_scalar"), ("__truediv__", "broadcast_div", "_div_scalar"),
            ("__mod__", "broadcast_mod", "_mod_scalar"), ("__pow__", "broadcast_power", "_power_scalar"),
            ("__eq__", "broadcast_equal", "_equal_scalar"), ("__lt__", "broadcast_lesser", "_lesser_scalar"),
            ("__ge__", "broadcast_greater_equal", "_greater_equal_scalar")]


@pytest.mark.parametrize("dunder,op_nd,op_scalar", _DUNDERS, ids=[d[0] for d in _DUNDERS])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_arithmetic_fast_path_equals_the_checked_operator(dunder, op_nd, op_scalar, dtype):
    rng = np.random.RandomState(0)
    a = mx.nd.array(rng.uniform(1, 4, size=(3, 4)), dtype=dtype)
    b = mx.nd.array(rng.uniform(1, 4, size=(1, 4)), dtype=dtype)
    for other, op, kwargs in [(b, op_nd, {}), (3, op_scalar, {"scalar": 3.0}), (2.5, op_scalar, {"scalar": 2.5})]:
        fast = getattr(a, dunder)(other)
        slow = invoke(op, (a, other) if isinstance(other, mx.nd.NDArray) else (a,), kwargs)
        assert type(fast) is mx.nd.NDArray and fast.dtype == slow.dtype
        np.testing.assert_array_equal(fast.asnumpy(), slow.asnumpy())


def test_arithmetic_fast_path_keeps_mxnet_errors_and_recording():
    a, b = mx.nd.ones((2, 3)), mx.nd.ones((2, 3), dtype="float64")
    with pytest.raises(mx.MXNetError, match="broadcast_add"):
        a + b  # pylint: disable=pointless-statement
    with pytest.raises(mx.MXNetError, match="broadcast_mul"):
        a * mx.nd.ones((4, 3))  # pylint: disable=pointless-statement
    a.attach_grad()
    assert not (a * a)._t.requires_grad  # outside record(): no graph, as MXNet
    with mx.autograd.record():
        y = (a * a + 1).sum()
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.full((2, 3), 2.0, np.float32))


def test_generated_functions_cache_by_attribute_arguments():
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    expected = x.asnumpy().sum(axis=(0, 2))
    for _ in range(2):  # the first call fills the cache, the second uses it
        np.testing.assert_array_equal(mx.nd.sum(x, axis=(0, 2)).asnumpy(), expected)
        np.testing.assert_array_equal(x.sum(axis=[0, 2]).asnumpy(), expected)  # a list: not hashable
        np.testing.assert_array_equal(x.sum(axis=1, keepdims=True).asnumpy(),
                                      x.asnumpy().sum(axis=1, keepdims=True))
        assert mx.nd.sum(x).shape == (1,)  # a full reduction is (1,) in MXNet
        with pytest.raises(mx.MXNetError, match="reduction axis 3 exceeds"):
            mx.nd.sum(x, axis=3)
    out = mx.nd.zeros((3,))
    assert mx.nd.sum(x, axis=(0, 2), out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_reshape_and_slice_fast_paths():
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for _ in range(2):
        assert x.reshape(24).shape == x.reshape((24,)).shape == (24,)
        assert x.reshape((0, -1)).shape == x.reshape(0, -1).shape == x.reshape([0, -1]).shape == (2, 12)
        assert x.reshape(shape=(-1, 0), reverse=True).shape == (6, 4)
        with pytest.raises(mx.MXNetError):
            x.reshape((5, -1))
        np.testing.assert_array_equal(x[1:].asnumpy(), x.asnumpy()[1:])
    scalar = mx.nd.array(3.0)
    with pytest.raises(IndexError):
        scalar[0:1]  # pylint: disable=pointless-statement
    x.attach_grad()
    assert not x[0:1]._t.requires_grad and not x.reshape((0, -1))._t.requires_grad


@pytest.mark.parametrize("key", [0, 2, -1, -3, np.int64(1), np.int32(-2), np.uint8(2)])
def test_integer_index_fast_path(key):
    """x[i] with a Python or numpy integer: numpy's element or row (a view; shape (1,)
    for an element of a 1-d array, as MXNet 1.x)."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    for arr in (mx.nd.array(data), mx.nd.array(data[:, 0])):
        fast, expected = arr[key], np.atleast_1d(arr.asnumpy()[key])
        assert fast.shape == expected.shape and (fast.shape == (1,) if arr.ndim == 1 else fast.ndim == 1)
        np.testing.assert_array_equal(fast.asnumpy(), expected)
        fast[:] = -1  # a view: writes reach the array
        assert (arr.asnumpy() == -1).sum() == fast.size


def test_integer_index_errors_and_recording():
    v = mx.nd.array([1.0, 2.0, 3.0])
    for key in (3, -4, np.int64(3), True):
        with pytest.raises(IndexError):
            v[key]  # pylint: disable=pointless-statement
    with pytest.raises(IndexError):
        mx.nd.array(3.0)[0]  # pylint: disable=pointless-statement
    v.attach_grad()
    assert not v[1]._t.requires_grad
    with mx.autograd.record():
        y = (v[1] * 2).sum()
    y.backward()
    np.testing.assert_array_equal(v.grad.asnumpy(), [0, 2, 0])
