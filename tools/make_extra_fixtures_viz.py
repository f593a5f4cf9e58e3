"""Record MXNet 1.9.1's ``mx.viz.print_summary`` tables and ``mx.viz.plot_network`` graphs.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_viz.py

Every case builds a symbol, either from the source in ``GRAPHS`` (executed with ``mx``
bound to MXNet here and to neogluon in the tests, so it must use explicit names) or by
loading one of the shared fixture models, then calls ``print_summary`` or ``plot_network``.

Output in ``tests/fixtures/extra/viz/cases.json``:

- ``summary``: case -> {graph, kwargs, text}: the exact text ``print_summary`` printed;
- ``plot``: case -> {graph, kwargs, name, format, calls, warned}: the graph's name and
  format, and every ``Digraph.node`` / ``Digraph.edge`` call in order with its keyword
  attributes, as ``["node", name, label, attrs]`` / ``["edge", tail, head, attrs]``;
  ``warned`` says whether MXNet warned about repeated node names.

``tests/test_visualization.py`` replays them.

It also runs the Gluon Estimator scenarios of ``ESTIMATOR`` (after ``ESTIMATOR_PRELUDE``;
the same sources run in ``tests/test_estimator.py`` with neogluon) and stores, in
``estimator.json``, each scenario's interleaved log: the estimator's log messages and the
events a recording handler saw (``"event:<name>"``), and the files left in its model
directory.
"""
import contextlib
import io
import logging
import shutil
import tempfile
import json
import os
import warnings

import graphviz
import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "viz")
MODELS = os.path.join(HERE, "..", "tests", "fixtures", "mxnet-1.9.1", "models")

# Graph sources, run with ``mx`` (MXNet or neogluon) and ``np``; each sets ``net``.
GRAPHS = {
    # the hybridization tutorial's LeNet, written with mx.sym
    "tutorial_lenet": """
data = mx.sym.var('data')
net = mx.sym.Convolution(data, kernel=(5, 5), num_filter=6, name='conv0')
net = mx.sym.Activation(net, act_type='relu', name='relu0')
net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool0')
net = mx.sym.Convolution(net, kernel=(5, 5), num_filter=16, name='conv1')
net = mx.sym.Activation(net, act_type='relu', name='relu1')
net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
net = mx.sym.Flatten(net, name='flatten0')
net = mx.sym.FullyConnected(net, num_hidden=120, name='fc0')
net = mx.sym.Activation(net, act_type='relu', name='relu2')
net = mx.sym.FullyConnected(net, num_hidden=84, name='fc1')
net = mx.sym.Activation(net, act_type='relu', name='relu3')
net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
net = mx.sym.SoftmaxOutput(net, name='softmax')
""",
    # MXNet's plot_network docstring example
    "docstring_mlp": """
net = mx.sym.Variable('data')
net = mx.sym.FullyConnected(data=net, name='fc1', num_hidden=128)
net = mx.sym.Activation(data=net, name='relu1', act_type="relu")
net = mx.sym.FullyConnected(data=net, name='fc2', num_hidden=10)
net = mx.sym.SoftmaxOutput(data=net, name='out')
""",
    # branches joined by Concat, grouped conv without bias, BatchNorm, LeakyReLU,
    # global pooling without kernel, FullyConnected without bias
    "branches": """
data = mx.sym.var('data')
a = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=8, name='conv_a')
a = mx.sym.BatchNorm(a, name='bn_a')
a = mx.sym.LeakyReLU(a, act_type='leaky', slope=0.1, name='lrelu_a')
b = mx.sym.Convolution(data, kernel=(1, 1), stride=(2, 2), num_filter=4, no_bias=True,
                       name='conv_b')
b = mx.sym.UpSampling(b, scale=2, sample_type='nearest', num_args=1, name='up_b')
c = mx.sym.Concat(a, b, dim=1, name='concat0')
c = mx.sym.Convolution(c, kernel=(3, 3), num_filter=12, num_group=4, no_bias=True,
                       name='conv_g')
c = mx.sym.LeakyReLU(c, name='lrelu_c')
c = mx.sym.Pooling(c, global_pool=True, pool_type='avg', name='gpool')
c = mx.sym.Reshape(c, shape=(0, -1), name='reshape0')
net = mx.sym.FullyConnected(c, num_hidden=5, no_bias=True, name='fc_out')
""",
    # embedding + split (multi-output node) + element-wise ops on both halves
    "embed_split": """
tokens = mx.sym.var('tokens')
e = mx.sym.Embedding(tokens, input_dim=20, output_dim=8, name='embed')
parts = mx.sym.SliceChannel(e, num_outputs=2, axis=2, name='split')
s = mx.sym.elemwise_add(parts[0], parts[1], name='add0')
s = mx.sym.tanh(s, name='tanh0')
s = mx.sym.FullyConnected(s, num_hidden=3, flatten=False, name='fc')
net = mx.sym.softmax(s, axis=-1, name='prob')
""",
    # two outputs grouped: only the first head counts as a head in print_summary
    "grouped": """
x = mx.sym.var('x')
h = mx.sym.FullyConnected(x, num_hidden=6, name='hidden')
o1 = mx.sym.Activation(h, act_type='sigmoid', name='sig')
o2 = mx.sym.Activation(h, act_type='tanh', name='tanh')
net = mx.sym.Group([o1, o2])
""",
    # the network is a bare variable
    "variable_only": """
net = mx.sym.var('data')
""",
    # a variable fed straight into several ops, and a resize whose second input is hidden
    "resize_like": """
x = mx.sym.var('x')
ref = mx.sym.var('ref')
r = mx.sym.contrib.BilinearResize2D(x, ref, mode='like', name='resize')
net = mx.sym.broadcast_mul(r, ref, name='mul')
""",
    # two variables share a name: plot_network warns
    "repeated_names": """
a = mx.sym.var('x')
b = mx.sym.var('x')
net = mx.sym.elemwise_add(a, b, name='add')
""",
}

# fixture models and the shapes of their inputs (shape inference of these works here)
MODEL_SHAPES = {
    "lenet": {"data": (4, 1, 28, 28)},
    "cnn_mixed": {"data": (2, 3, 16, 16)},
    "mlp_bn_dropout": {"data": (5, 20)},
    "embedding_layernorm": {"data": (3, 7)},
    "cell_unroll_stack": {"data": (2, 5, 8)},
    "bidirectional_cell_valid_length": {"data0": (4, 3, 6), "data1": (3,)},
}
# fused-RNN models: summarised and plotted without shapes
MODELS_NO_SHAPE = ["gru_layer_2x_bidir", "lstm_layer_2x_bidir", "lstm_projection_layer",
                   "rnn_tanh_layer"]

SUMMARY = {
    "tutorial_lenet": ("tutorial_lenet", dict(shape={"data": (1, 1, 28, 28)})),
    "tutorial_lenet_noshape": ("tutorial_lenet", {}),
    "tutorial_lenet_narrow": ("tutorial_lenet", dict(shape={"data": (1, 1, 28, 28)},
                                                      line_length=64)),
    "docstring_mlp": ("docstring_mlp", dict(shape={"data": (100, 200)})),
    "docstring_mlp_absolute": ("docstring_mlp", dict(shape={"data": (100, 200)},
                                                     line_length=90,
                                                     positions=[30, 55, 70, 90])),
    "branches": ("branches", dict(shape={"data": (2, 3, 16, 16)})),
    "branches_noshape": ("branches", {}),
    "embed_split": ("embed_split", dict(shape={"tokens": (4, 5)})),
    "grouped": ("grouped", dict(shape={"x": (3, 4)})),
    "variable_only": ("variable_only", dict(shape={"data": (2, 3)})),
    "resize_like": ("resize_like", dict(shape={"x": (1, 2, 4, 4), "ref": (1, 2, 8, 8)})),
}
SUMMARY.update({"model_" + m: ("model:" + m, dict(shape=s)) for m, s in MODEL_SHAPES.items()})
SUMMARY.update({"model_%s_noshape" % m: ("model:" + m, {}) for m in MODELS_NO_SHAPE})

PLOT = {
    "tutorial_lenet": ("tutorial_lenet", dict(shape={"data": (1, 1, 28, 28)})),
    "tutorial_lenet_weights": ("tutorial_lenet", dict(hide_weights=False)),
    "tutorial_lenet_plain": ("tutorial_lenet", {}),
    "docstring_mlp": ("docstring_mlp", dict(shape={"data": (100, 200)},
                                            node_attrs={"fixedsize": "false"})),
    "docstring_mlp_typed": ("docstring_mlp", dict(title="mlp", save_format="png",
                                                  shape={"data": (100, 200)},
                                                  dtype={"data": np.float32},
                                                  node_attrs={"shape": "oval"})),
    "branches": ("branches", dict(shape={"data": (2, 3, 16, 16)})),
    "branches_weights": ("branches", dict(hide_weights=False, dtype={"data": np.float64})),
    "embed_split": ("embed_split", dict(shape={"tokens": (4, 5)})),
    "grouped": ("grouped", dict(shape={"x": (3, 4)}, dtype={"x": np.float16})),
    "resize_like": ("resize_like", dict(shape={"x": (1, 2, 4, 4), "ref": (1, 2, 8, 8)})),
    "repeated_names": ("repeated_names", {}),
}
PLOT.update({"model_" + m: ("model:" + m, dict(shape=s)) for m, s in MODEL_SHAPES.items()})
PLOT.update({"model_%s_noshape" % m: ("model:" + m, {}) for m in MODELS_NO_SHAPE})


def build(graph):
    """The symbol of a ``GRAPHS`` entry or of a ``model:<name>`` fixture."""
    if graph.startswith("model:"):
        return mx.sym.load(os.path.join(MODELS, graph[6:] + "-symbol.json"))
    scope = {"mx": mx, "np": np}
    exec(GRAPHS[graph], scope)  # pylint: disable=exec-used
    return scope["net"]


def jsonable(kwargs):
    """Keyword arguments as JSON (dtypes by name, shapes as lists)."""
    out = dict(kwargs)
    if "dtype" in out:
        out["dtype"] = {k: np.dtype(v).name for k, v in out["dtype"].items()}
    if "shape" in out:
        out["shape"] = {k: list(v) for k, v in out["shape"].items()}
    return out


def record_summary(graph, kwargs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(build(graph), **kwargs)
    return dict(graph=graph, kwargs=jsonable(kwargs), text=buf.getvalue())


class Recorder(graphviz.Digraph):
    """A Digraph that remembers every node and edge call."""
    calls = None

    def node(self, name, label=None, **attrs):  # pylint: disable=arguments-differ
        Recorder.calls.append(["node", name, label, attrs])
        super().node(name, label=label, **attrs)

    def edge(self, tail_name, head_name, **attrs):  # pylint: disable=arguments-differ
        Recorder.calls.append(["edge", tail_name, head_name, attrs])
        super().edge(tail_name, head_name, **attrs)


def record_plot(graph, kwargs):
    Recorder.calls = []
    original = graphviz.Digraph
    graphviz.Digraph = Recorder
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dot = mx.viz.plot_network(build(graph), **kwargs)
    finally:
        graphviz.Digraph = original
    warned = any("multiple variables with the same name" in str(w.message) for w in caught)
    return dict(graph=graph, kwargs=jsonable(kwargs), name=dot.name, format=dot.format,
                calls=Recorder.calls, warned=warned)


ESTIMATOR_PRELUDE = """
E = mx.gluon.contrib.estimator
nn = mx.gluon.nn
rng = np.random.RandomState(0)
X = rng.uniform(-1, 1, (20, 4)).astype('float32')
Y = ((X[:, 0] > 0).astype('float32') + (X[:, 1] > 0.5)).astype('float32')


def loader(lo=0, hi=20, batch_size=5):
    dataset = mx.gluon.data.ArrayDataset(mx.nd.array(X[lo:hi]), mx.nd.array(Y[lo:hi]))
    return mx.gluon.data.DataLoader(dataset, batch_size=batch_size)


def make_net(hybridize=False):
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(8, activation='tanh', in_units=4), nn.Dense(3, in_units=8))
    net.initialize()
    weights = np.random.RandomState(1)
    for name in sorted(net.collect_params()):
        param = net.collect_params()[name]
        param.set_data(mx.nd.array(weights.uniform(-0.5, 0.5, param.shape)))
    if hybridize:
        net.hybridize()
    return net


class Capture(logging.Handler):
    def emit(self, record):
        LOG.append(record.getMessage())


class Recorder(E.TrainBegin, E.TrainEnd, E.EpochBegin, E.EpochEnd, E.BatchBegin, E.BatchEnd):
    def train_begin(self, estimator, *args, **kwargs):
        LOG.append('event:train_begin')

    def train_end(self, estimator, *args, **kwargs):
        LOG.append('event:train_end')

    def epoch_begin(self, estimator, *args, **kwargs):
        LOG.append('event:epoch_begin')

    def epoch_end(self, estimator, *args, **kwargs):
        LOG.append('event:epoch_end')

    def batch_begin(self, estimator, *args, **kwargs):
        LOG.append('event:batch_begin')

    def batch_end(self, estimator, *args, **kwargs):
        LOG.append('event:batch_end')


def make_estimator(net=None, lr=0.1, loss=None, **kwargs):
    net = net or make_net()
    loss = loss or mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': lr})
    est = E.Estimator(net, loss, trainer=trainer, context=mx.cpu(), **kwargs)
    est.logger.handlers = [Capture()]
    return est
"""

ESTIMATOR = {
    "fit_epochs_validation": """
est = make_estimator()
est.fit(loader(), val_data=loader(10, 20), epochs=2, event_handlers=[Recorder()])
""",
    "fit_batches_log_interval": """
est = make_estimator()
est.fit(loader(), batches=6, event_handlers=[
    Recorder(), E.LoggingHandler(log_interval=2, metrics=est.train_metrics)])
""",
    "checkpoint_batches": """
est = make_estimator(make_net(hybridize=True))
est.fit(loader(), batches=7, event_handlers=[E.CheckpointHandler(
    MODEL_DIR, model_prefix='m', epoch_period=None, batch_period=2, max_checkpoints=2)])
""",
    "checkpoint_best": """
est = make_estimator()
est.fit(loader(), val_data=loader(10, 20), epochs=3, event_handlers=[E.CheckpointHandler(
    MODEL_DIR, model_prefix='best', monitor=est.val_metrics[1], save_best=True, mode='min',
    verbose=1)])
""",
    "early_stopping": """
est = make_estimator(lr=0.0)
est.fit(loader(), epochs=5, event_handlers=[
    E.EarlyStoppingHandler(monitor=est.train_metrics[1], patience=1, mode='min')])
""",
    "evaluate": """
est = make_estimator()
est.evaluate(loader(0, 15, batch_size=4))
""",
    "resume_from_checkpoint": """
est = make_estimator()
est.fit(loader(), epochs=2, event_handlers=[E.CheckpointHandler(MODEL_DIR, model_prefix='r')])
est = make_estimator()
est.fit(loader(), epochs=4, event_handlers=[
    Recorder(), E.CheckpointHandler(MODEL_DIR, model_prefix='r', resume_from_checkpoint=True)])
""",
    "metric_names": """
est = make_estimator(train_metrics=[mx.metric.Accuracy(), mx.metric.TopKAccuracy(2)])
LOG.extend(m.name for m in est.train_metrics + est.val_metrics)
est = make_estimator(loss=mx.gluon.loss.L2Loss(), val_metrics=mx.metric.MAE())
LOG.extend(m.name for m in est.train_metrics + est.val_metrics)
""",
}


def run_estimator_scenario(source):
    """Run one scenario in a fresh model directory; (log, files left there)."""
    model_dir = tempfile.mkdtemp()
    scope = {"mx": mx, "np": np, "logging": logging, "LOG": [], "MODEL_DIR": model_dir}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(ESTIMATOR_PRELUDE + source, scope)  # pylint: disable=exec-used
        return scope["LOG"], sorted(os.listdir(model_dir))
    finally:
        shutil.rmtree(model_dir)


def record_estimator():
    cases = {}
    for name, source in ESTIMATOR.items():
        log, files = run_estimator_scenario(source)
        cases[name] = dict(log=log, files=files)
    return dict(prelude=ESTIMATOR_PRELUDE, sources=ESTIMATOR, cases=cases)


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "estimator.json"), "w") as f:
        json.dump(record_estimator(), f, indent=1, sort_keys=True)
    result = {
        "graphs": GRAPHS,
        "summary": {case: record_summary(g, kw) for case, (g, kw) in SUMMARY.items()},
        "plot": {case: record_plot(g, kw) for case, (g, kw) in PLOT.items()},
    }
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print("wrote %d summary and %d plot cases" % (len(result["summary"]), len(result["plot"])))


if __name__ == "__main__":
    main()
