"""The Gluon blocks with symbolic control flow recorded from MXNet 1.9.1 by
``tools/make_extra_fixtures_control_flow.py`` and replayed by ``tests/test_control_flow.py``.

Written against a module ``mx`` given by the caller (real MXNet in the generator, neogluon
in the tests); nothing here imports either. ``build(mx, name)`` returns the block (its
parameters initialised) and its inputs as numpy arrays.
"""
import numpy as np

MODELS = ("foreach_lstm", "while_dense", "cond_dense_then", "cond_dense_else")
# inputs without a gradient (MXNet refuses a gradient for a while_loop's counter input)
NO_GRAD = {"while_dense": (1,)}


def _rng():
    return np.random.RandomState(7)


def foreach_lstm(mx):
    """An LSTM cell stepped over time by ``F.contrib.foreach`` (as GluonNLP's ELMo does),
    states ``[h, c]``, with a parameter the body closes over."""
    gluon = mx.gluon

    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = gluon.rnn.LSTMCell(4, input_size=3)
                self.scale = self.params.get("scale", shape=(4,))

        def hybrid_forward(self, F, x, h, c, scale):  # pylint: disable=arguments-differ
            def body(data, states):
                out, new_states = self.cell(data, states)
                return F.broadcast_mul(out, scale) + out, new_states
            outs, states = F.contrib.foreach(body, x, [h, c])
            return outs, states[0], states[1]

    rng = _rng()
    inputs = [rng.uniform(-1, 1, (5, 2, 3)), rng.uniform(-1, 1, (2, 4)), rng.uniform(-1, 1, (2, 4))]
    return Net(prefix="net_"), [a.astype("float32") for a in inputs]


def while_dense(mx):
    """A Dense layer applied while a counter is below 3 (``max_iterations`` 3), the step
    outputs stacked."""
    gluon = mx.gluon

    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = gluon.nn.Dense(3, in_units=3, activation="tanh")

        def hybrid_forward(self, F, x, i):  # pylint: disable=arguments-differ
            outs, (count, last) = F.contrib.while_loop(
                lambda i, s: i < 3, lambda i, s: ([s * 2], [i + 1, self.dense(s)]), [i, x], max_iterations=3)
            return outs[0], count, last

    rng = _rng()
    return Net(prefix="net_"), [rng.uniform(-1, 1, (2, 3)).astype("float32"), np.zeros((1,), "float32")]


def _cond_dense(mx, sign):
    gluon = mx.gluon

    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = gluon.nn.Dense(3, in_units=3)

        def hybrid_forward(self, F, x):  # pylint: disable=arguments-differ
            return F.contrib.cond(F.sum(x) > 0, lambda: self.dense(x), lambda: x * 2 - 1)

    rng = _rng()
    return Net(prefix="net_"), [(sign * np.abs(rng.uniform(0.1, 1, (2, 3)))).astype("float32")]


def cond_dense_then(mx):
    """``F.contrib.cond`` taking its then branch (a Dense layer)."""
    return _cond_dense(mx, 1)


def cond_dense_else(mx):
    """``F.contrib.cond`` taking its else branch (arithmetic on the input)."""
    return _cond_dense(mx, -1)


def build(mx, name):
    """The block ``name`` (fresh subgraph and name counters, so names match MXNet's first
    build in a process) with its parameters initialised, and its inputs."""
    mx.attribute.AttrScope._subgraph_names.clear()
    with mx.name.NameManager():
        net, inputs = globals()[name](mx)
    net.initialize(mx.init.Uniform(0.5))
    return net, inputs


def symbols(mx):
    """Plain symbols with control flow, by name: ``while_loop`` padding to
    ``max_iterations``, ``cond`` on a reduction, ``foreach`` over two data arrays closing
    over an output of a multi-output node."""
    mx.attribute.AttrScope._subgraph_names.clear()
    out = {}
    with mx.name.NameManager():
        i, s, k = mx.sym.var("i"), mx.sym.var("s"), mx.sym.var("k")
        outs, states = mx.sym.contrib.while_loop(
            lambda i, s: i < 3, lambda i, s: ([mx.sym.broadcast_mul(s, i) + k], [i + 1, s + k]), [i, s],
            max_iterations=5)
        out["while"] = mx.sym.Group(outs + states)
        a, b = mx.sym.var("a"), mx.sym.var("b")
        out["cond"] = mx.sym.contrib.cond(a.sum() < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
        w = mx.sym.var("w")
        parts = mx.sym.split(mx.sym.var("z"), num_outputs=2, axis=0)
        outs, states = mx.sym.contrib.foreach(lambda d, st: ([d[0] * w + w + parts[0], d[1] * 3], [st[0] * 2 + d[1]]),
                                              [mx.sym.var("x"), mx.sym.var("y")], [parts[1]])
        out["foreach"] = mx.sym.Group(outs + states)
    return out


SYMBOL_INPUTS = {
    "while": {"i": (1,), "s": (2,), "k": (2,)},
    "cond": {"a": (2,), "b": (2,)},
    "foreach": {"x": (4, 2), "y": (4, 2), "w": (2,), "z": (4,)},
}
