"""CUDA graphs behind static_alloc+static_shape (neogluon/executor/cuda_graph.py), without a GPU.

A fake CUDA simulates a graph's semantics on CPU tensors: while capturing, the graph's
"kernels" (closures over fixed tensors, as a CUDA graph's kernels are over fixed addresses)
are recorded, not run; ``replay`` runs them again on whatever those tensors hold. So these
tests check the wrapper's bookkeeping (static buffers, copies, cloned outputs, keys,
recapture, the warm-up's side effects undone, fallbacks); the real capture never ran here.
"""
import contextlib

import numpy as np
import pytest
import torch

from neogluon.executor import cuda_graph


class FakeGraph:
    def __init__(self):
        self.kernels = []

    def replay(self):
        for k in self.kernels:
            k()


class FakeCuda:
    capturing = None
    rng = 0

    @staticmethod
    def usable(device):
        return device.type == "cpu"

    @classmethod
    def rng_state(cls):
        return cls.rng

    @classmethod
    def set_rng_state(cls, state):
        cls.rng = state

    @staticmethod
    def graph():
        return FakeGraph()

    @classmethod
    @contextlib.contextmanager
    def capture(cls, graph):
        cls.capturing = graph
        try:
            yield
        finally:
            cls.capturing = None

    @staticmethod
    def side_stream():
        return None

    @staticmethod
    def on_stream(stream):
        return contextlib.nullcontext()

    @staticmethod
    def join(stream):
        pass

    @staticmethod
    def make_graphed(fn, sample_args):
        for _ in range(cuda_graph.WARMUP):  # torch's warm-up: forward and autograd.grad
            outs = fn(*sample_args)
            leaves = [t for t in sample_args if t.requires_grad]
            torch.autograd.grad([o.sum() for o in outs], leaves, allow_unused=True)
        return fn


def launch(kernel):
    """Run a kernel now, or record it in the graph being captured (then it does not run)."""
    if FakeCuda.capturing is not None:
        FakeCuda.capturing.kernels.append(kernel)
    else:
        kernel()


class Net:
    """``fn(tensors, is_train)``: y = x * w + 1 (data x, parameter w); in train mode a running
    count (an auxiliary parameter) goes up by one per call, as BatchNorm's statistics move;
    each call draws from the fake random state (Dropout)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, tensors, is_train):
        self.calls += 1
        x, w, aux = tensors
        FakeCuda.rng += 1
        if torch.is_grad_enabled() and w.requires_grad:
            return [x * w + 1]
        out = torch.empty_like(x)

        def kernel():
            with torch.no_grad():
                torch.add(x * w, 1, out=out)
                if is_train:
                    aux.add_(1)
        launch(kernel)
        return [out]


def make(net=None):
    net = net or Net()
    return net, cuda_graph.CudaGraphed(net, [False, True, True], cuda=FakeCuda)


def test_replay_copies_the_inputs_in_and_clones_the_outputs():
    net, g = make()
    w, aux = torch.tensor([2.0, 3.0]), torch.zeros(1)
    outs = []
    with torch.no_grad():
        for v in ([1.0, 1.0], [5.0, -1.0], [0.5, 2.0]):
            outs.append(g([torch.tensor(v), w, aux], False)[0])
    assert [o.tolist() for o in outs] == [[3.0, 4.0], [11.0, -2.0], [2.0, 7.0]]  # earlier outputs kept
    assert g.captures == 1 and net.calls == cuda_graph.WARMUP + 1  # later calls replay, never call the net
    w.copy_(torch.tensor([1.0, 1.0]))  # a Parameter updated in place (a training step): the replay sees it
    with torch.no_grad():
        assert g([torch.tensor([1.0, 2.0]), w, aux], False)[0].tolist() == [2.0, 3.0]
    assert g.captures == 1


def test_the_warm_up_leaves_the_state_of_one_call():
    net, g = make()
    w, aux = torch.ones(2), torch.zeros(1)
    FakeCuda.rng = 0
    with torch.no_grad():
        g([torch.ones(2), w, aux], True)
    assert aux.item() == 1.0              # one call's update, not the warm-up's too
    assert FakeCuda.rng == 1              # random state: the warm-up's draws undone (and capture's)
    with torch.no_grad():
        g([torch.ones(2), w, aux], True)
    assert aux.item() == 2.0


def test_new_shapes_modes_and_replaced_parameters_capture_again():
    net, g = make()
    w, aux = torch.ones(2), torch.zeros(1)
    with torch.no_grad():
        g([torch.ones(2), w, aux], False)
        g([torch.ones(2), w, aux], True)             # another mode
        g([torch.ones(3), torch.ones(3), aux], False)  # another shape, another parameter tensor
        w2 = torch.full((2,), 2.0)                  # set_data: same shape, a new tensor
        assert g([torch.ones(2), w2, aux], False)[0].tolist() == [3.0, 3.0]
    assert g.captures == 4


def test_not_usable_devices_and_too_many_shapes_run_the_function():
    net, g = make()
    aux = torch.zeros(1)
    FakeCuda.usable = staticmethod(lambda device: False)
    try:
        with torch.no_grad():
            assert g([torch.ones(2), torch.ones(2), aux], False)[0].tolist() == [2.0, 2.0]
        assert g.captures == 0 and net.calls == 1
    finally:
        FakeCuda.usable = staticmethod(lambda device: device.type == "cpu")
    with torch.no_grad():
        for n in range(1, cuda_graph.MAX_GRAPHS + 3):
            assert g([torch.ones(n), torch.ones(n), aux], False)[0].tolist() == [2.0] * n
    assert g.captures == cuda_graph.MAX_GRAPHS


def test_a_failed_capture_warns_once_and_runs_the_function():
    class Syncing(Net):
        def __call__(self, tensors, is_train):
            if FakeCuda.capturing is not None:
                raise RuntimeError("operation not permitted when stream is capturing")
            return super().__call__(tensors, is_train)
    net, g = make(Syncing())
    w, aux = torch.ones(2), torch.zeros(1)
    with pytest.warns(UserWarning, match="could not be captured as a CUDA graph"):
        with torch.no_grad():
            out = g([torch.ones(2), w, aux], False)
    assert out[0].tolist() == [2.0, 2.0] and g.captures == 0
    with torch.no_grad():
        assert g([torch.full((2,), 3.0), w, aux], False)[0].tolist() == [4.0, 4.0]


def test_recorded_calls_go_through_the_graphed_callable_and_reach_the_leaves():
    net, g = make()
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    aux = torch.zeros(1)
    x = torch.tensor([1.0, 4.0])
    out = g([x, w, aux], True)[0]
    out.sum().backward()
    assert w.grad.tolist() == [1.0, 4.0] and g.captures == 1
    assert all(key[0][1] for key in g.graphs)  # the recording mode's key


def test_cached_op_wraps_its_graph_on_static_flags(monkeypatch):
    """The hybridized block's CachedOp routes calls through CudaGraphed (fake CUDA on CPU)."""
    import neogluon as mx
    monkeypatch.setenv("NEOGLUON_COMPILE", "0")
    monkeypatch.setattr(cuda_graph, "wanted", lambda flags: bool(flags.get("static_alloc")
                                                                  and flags.get("static_shape")))
    monkeypatch.setattr(cuda_graph, "_TorchCuda", FakeCuda)
    monkeypatch.setattr(cuda_graph.CudaGraphed.__init__, "__defaults__", (FakeCuda,))
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    x = mx.nd.array(np.arange(8, dtype="float32").reshape(2, 4))
    expected = net(x).asnumpy()
    net.hybridize(static_alloc=True, static_shape=True)
    first = net(x).asnumpy()
    second = net(x * 1).asnumpy()
    op = net._cached_op
    assert isinstance(op.compiled, cuda_graph.CudaGraphed)
    np.testing.assert_allclose(first, expected, rtol=1e-6)
    np.testing.assert_allclose(second, expected, rtol=1e-6)
