"""An unrolled cell's per-step input products run as one FullyConnected over the sequence
(neogluon/executor/combine_dense.py): which graphs it applies to, and the same outputs and
gradients as the imperative (node by node) run."""
import numpy as np
import pytest

import neogluon as mx
from neogluon import autograd, nd
from neogluon.executor import combine_dense
from neogluon.gluon import nn, rnn


class Unrolled(mx.gluon.HybridBlock):
    def __init__(self, cell, steps, layout="TNC", **kwargs):
        super().__init__(**kwargs)
        self._steps, self._layout = steps, layout
        with self.name_scope():
            self.cell = cell
            self.dec = nn.Dense(3, flatten=False, in_units=8)

    def hybrid_forward(self, F, x):
        out, _ = self.cell.unroll(self._steps, x, layout=self._layout, merge_outputs=True)
        return self.dec(out)


CELLS = {"lstm": lambda: rnn.LSTMCell(8, input_size=6), "gru": lambda: rnn.GRUCell(8, input_size=6),
         "rnn": lambda: rnn.RNNCell(8, input_size=6)}


def _groups(net, x):
    net.hybridize()
    net(x)
    graph = net._cached_op.compiled
    graph = getattr(graph, "graph", graph)
    return combine_dense.groups(graph.order), graph


@pytest.mark.parametrize("kind", sorted(CELLS))
def test_unrolled_cells_predict_and_train_as_node_by_node(kind):
    x = nd.random.uniform(-1, 1, shape=(5, 2, 6))
    net = Unrolled(CELLS[kind](), 5)
    net.initialize(mx.init.Xavier())
    params = list(net.collect_params().values())

    def run():
        x.attach_grad()
        with autograd.record():
            out = net(x)
            loss = (out * out).sum()
        loss.backward()
        return out.asnumpy(), x.grad.asnumpy(), [p.grad().asnumpy() for p in params]
    want = run()
    found, graph = _groups(net, x)
    assert len(found) == 1
    split, fcs = list(found.values())[0]
    assert split.parsed["num_outputs"] == 5 and len(fcs) == 5
    got = run()
    assert any("in one" in src for src in graph.sources.values())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    for g, w in zip(got[2], want[2]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), want[0], rtol=1e-5, atol=1e-6)


def test_graphs_without_a_whole_group_run_their_products_apart():
    net = Unrolled(rnn.LSTMCell(8, input_size=6), 4, layout="NTC")  # split on axis 1: not a group
    net.initialize()
    assert not _groups(net, nd.ones((2, 4, 6)))[0]

    class TwoWeights(mx.gluon.HybridBlock):  # the steps' products use two weights
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.a, self.b = nn.Dense(4, in_units=6), nn.Dense(4, in_units=6)

        def hybrid_forward(self, F, x):
            s = F.split(x, axis=0, num_outputs=2, squeeze_axis=True)
            return self.a(s[0]) + self.b(s[1])

    class OneStepElsewhere(mx.gluon.HybridBlock):  # one step is not a product
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.a = nn.Dense(6, in_units=6)

        def hybrid_forward(self, F, x):
            s = F.split(x, axis=0, num_outputs=3, squeeze_axis=True)
            return self.a(s[0]) + self.a(s[1]) + s[2]

    for block in (TwoWeights(), OneStepElsewhere()):
        block.initialize()
        x = nd.random.uniform(shape=(3 if isinstance(block, OneStepElsewhere) else 2, 2, 6))
        want = block(x).asnumpy()
        assert not _groups(block, x)[0]
        np.testing.assert_allclose(block(x).asnumpy(), want, rtol=1e-6)


def test_the_environment_variable_turns_it_off(monkeypatch):
    from neogluon.executor import compiler
    monkeypatch.setattr(compiler, "COMBINE_DENSE", False)
    net = Unrolled(rnn.LSTMCell(8, input_size=6), 3)
    net.initialize()
    _, graph = _groups(net, nd.ones((3, 2, 6)))
    assert not any("in one" in src for src in graph.sources.values())
