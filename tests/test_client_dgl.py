"""DGL 1.1.3 with its MXNet backend (``DGLBACKEND=mxnet``) through ``import mxnet`` (neogluon),
against MXNet 1.9.1.

Each ``wf_*`` function is what a DGL user writes: GCN/GAT/GraphSAGE node classification trained
with ``gluon.Trainer``, link prediction scored with ``apply_edges`` against negative edges,
graph classification on ``dgl.batch``-ed graphs with readouts, the ``dgl.nn.mxnet`` layers'
forward and backward, message passing with ``dgl.function`` builtins and user-defined
functions, parameters and graphs saved and loaded. Graphs, features and parameters come from a
seeded numpy generator, so the numbers are deterministic. DGL's kernels read and write MXNet
arrays through DLPack.

``import dgl`` turns on MXNet's NumPy shape semantics for the whole process
(``mx.set_np_shape(True)``), so the workflows run in a child process of their own
(``python tests/test_client_dgl.py OUT_DIR``) that writes ``OUT_DIR/<workflow>.npz``;
``tools/make_client_fixtures_dgl.py`` runs that child under real MXNet 1.9.1 into
``tests/fixtures/extra/dgl``. Skipped where DGL is not installed (the environment
``tools/install_clients.sh`` makes has it).
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "dgl")
# float32 results of different kernels (and a few training steps on them)
RTOL, ATOL = 1e-4, 2e-5


def _np(x):
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)


def _modules():
    os.environ["DGLBACKEND"] = "mxnet"
    import mxnet as mx
    import dgl
    return mx, dgl


def _seed_params(block, seed, scale=0.3):
    """Every parameter of ``block`` from a seeded uniform, in registration order."""
    mx, _ = _modules()
    rng = np.random.RandomState(seed)
    for p in block.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(-scale, scale, p.shape).astype(np.float32)))


def _citation_graph(n=40, d=8, classes=3, seed=0):
    """A small symmetric graph with self loops, node features, labels and a training mask."""
    mx, dgl = _modules()
    rng = np.random.RandomState(seed)
    g = dgl.graph((rng.randint(0, n, 120), rng.randint(0, n, 120)), num_nodes=n)
    g = dgl.add_self_loop(dgl.remove_self_loop(dgl.to_bidirected(g)))
    x = mx.nd.array(rng.randn(n, d).astype(np.float32))
    y = mx.nd.array(rng.randint(0, classes, n).astype(np.float32))
    mask = mx.nd.array((np.arange(n) % 2 == 0).astype(np.float32))
    return g, x, y, mask


def _small_graph():
    _, dgl = _modules()
    src = np.array([0, 1, 2, 3, 4, 5, 0, 2, 4, 1, 3, 5, 0, 3])
    dst = np.array([1, 2, 3, 4, 5, 0, 2, 4, 0, 3, 5, 1, 3, 0])
    return dgl.graph((src, dst), num_nodes=6)


def _feat(n, d, seed=1):
    mx, _ = _modules()
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, (n, d)).astype(np.float32))


def _node_classifier(kind):
    mx, _ = _modules()
    from dgl.nn import mxnet as dglnn
    nd = mx.nd

    class Net(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                if kind == "gcn":
                    self.l1 = dglnn.GraphConv(8, 6, activation=nd.relu)
                    self.l2 = dglnn.GraphConv(6, 3)
                elif kind == "gat":
                    self.l1 = dglnn.GATConv(8, 6, 2, activation=lambda t: nd.LeakyReLU(t, act_type="elu"))
                    self.l2 = dglnn.GATConv(12, 3, 1)
                else:
                    self.l1 = dglnn.SAGEConv(8, 6, "mean", activation=nd.relu)
                    self.l2 = dglnn.SAGEConv(6, 3, "pool")

        def forward(self, g, x):
            h = self.l1(g, x)
            if kind == "gat":
                h = h.reshape((h.shape[0], -1))
            h = self.l2(g, h)
            return h.mean(1) if kind == "gat" else h

    return Net()


def _train_node_classifier(kind, optimizer, opt_args, steps, seed, hybridize=False):
    mx, _ = _modules()
    g, x, y, mask = _citation_graph()
    net = _node_classifier(kind)
    net.initialize()
    net(g, x)
    _seed_params(net, seed)
    if hybridize:
        net.hybridize()  # the Dense layers inside GATConv and SAGEConv's pool
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, opt_args)
    loss_fn = mx.gluon.loss.SoftmaxCELoss()
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = (loss_fn(net(g, x), y) * mask).sum() / mask.sum()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    logits = net(g, x)
    acc = (logits.argmax(1) == y).mean()
    return net, {"loss": np.array(losses), "logits": _np(logits), "acc": _np(acc)}


def wf_gcn_node_classification():
    """Two GraphConv layers trained five Adam steps (weight decay) on a masked loss; the
    parameters saved and loaded into a new network give the same logits."""
    _, dgl = _modules()
    net, out = _train_node_classifier("gcn", "adam", {"learning_rate": 0.01, "wd": 5e-4}, 5, 0)
    g, x, _, _ = _citation_graph()
    path = os.path.join(tempfile.mkdtemp(), "gcn.params")
    net.save_parameters(path)
    net2 = _node_classifier("gcn")
    net2.load_parameters(path)
    out["reloaded"] = _np(net2(g, x))
    out["in_degrees"] = _np(g.in_degrees())
    out["first_degree_shape"] = np.array(g.in_degrees()[0].shape)  # 0-d: DGL turns on np_shape
    out["dgl_version"] = np.array(dgl.__version__)
    return out


def wf_gat_hybridized():
    """Two GATConv layers (two heads, then one), hybridized, trained with SGD and momentum."""
    return _train_node_classifier("gat", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, 3, 21, hybridize=True)[1]


def wf_sage_node_classification():
    """Two SAGEConv layers (mean, then pool aggregation) trained four Adam steps."""
    return _train_node_classifier("sage", "adam", {"learning_rate": 0.02}, 4, 22)[1]


def wf_sage_link_prediction():
    """A SAGEConv encoder and an MLP edge scorer (``apply_edges`` with a UDF) trained on the
    graph's edges against fixed negative edges with sigmoid BCE; dot-product scores
    (``u_dot_v``) of the trained embeddings."""
    mx, dgl = _modules()
    import dgl.function as fn
    from dgl.nn import mxnet as dglnn
    nd = mx.nd
    g, x, _, _ = _citation_graph()
    rng = np.random.RandomState(7)
    neg_g = dgl.graph((rng.randint(0, g.num_nodes(), 60), rng.randint(0, g.num_nodes(), 60)),
                      num_nodes=g.num_nodes())

    class MLPScore(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.W = mx.gluon.nn.Dense(1, in_units=12)

        def score(self, edges):
            return {"score": self.W(nd.concat(edges.src["h"], edges.dst["h"], dim=1))[:, 0]}

        def forward(self, graph, h):
            with graph.local_scope():
                graph.ndata["h"] = h
                graph.apply_edges(self.score)
                return graph.edata["score"]

    def dot_scores(graph, h):
        with graph.local_scope():
            graph.ndata["h"] = h
            graph.apply_edges(fn.u_dot_v("h", "h", "score"))
            return graph.edata["score"][:, 0]

    enc = dglnn.SAGEConv(8, 6, "mean")
    enc.initialize()
    enc(g, x)
    _seed_params(enc, 11)
    pred = MLPScore()
    pred.initialize()
    _seed_params(pred, 12)
    params = enc.collect_params()
    params.update(pred.collect_params())
    trainer = mx.gluon.Trainer(params, "adam", {"learning_rate": 0.01})
    losses = []
    for _ in range(4):
        with mx.autograd.record():
            h = enc(g, x)
            pos, neg = pred(g, h), pred(neg_g, h)
            scores = nd.concat(pos, neg, dim=0)
            labels = nd.concat(nd.ones_like(pos), nd.zeros_like(neg), dim=0)
            loss = mx.gluon.loss.SigmoidBCELoss()(scores, labels).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    h = enc(g, x)
    return {"loss": np.array(losses), "pos": _np(dot_scores(g, h)), "neg": _np(dot_scores(neg_g, h))}


def wf_graph_classification():
    """Six graphs batched with ``dgl.batch``: GraphConv, then GINConv around a hybridized
    Dense-BatchNorm-Dense, average and max readouts into a hybridized classifier, three Adam
    steps; the other readouts and ``dgl.unbatch``."""
    mx, dgl = _modules()
    from dgl.nn import mxnet as dglnn
    nd, nn = mx.nd, mx.gluon.nn
    rng = np.random.RandomState(1)
    graphs = []
    for i in range(6):
        n = 4 + i
        graphs.append(dgl.add_self_loop(dgl.graph((rng.randint(0, n, 2 * n), rng.randint(0, n, 2 * n)),
                                                  num_nodes=n)))
    bg = dgl.batch(graphs)
    x = nd.array(rng.randn(bg.num_nodes(), 4).astype(np.float32))
    bg.ndata["x"] = x
    y = nd.array([0, 1, 0, 1, 1, 0])

    class Classifier(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = dglnn.GraphConv(4, 8, activation=nd.relu)
                mlp = nn.HybridSequential()
                mlp.add(nn.Dense(8, in_units=8, activation="relu"), nn.BatchNorm(in_channels=8),
                        nn.Dense(8, in_units=8))
                self.gin = dglnn.GINConv(mlp, "sum")
                self.avg, self.max = dglnn.AvgPooling(), dglnn.MaxPooling()
                self.head = nn.HybridSequential()
                self.head.add(nn.Dense(8, activation="relu", in_units=16), nn.Dense(2, in_units=8))

        def forward(self, g, h):
            h = self.gin(g, self.conv(g, h))
            return self.head(nd.concat(self.avg(g, h), self.max(g, h), dim=1))

    net = Classifier()
    net.initialize()
    net(bg, x)
    _seed_params(net, 5, scale=0.3)
    for p in net.collect_params(".*running_var").values():
        p.set_data(nd.ones(p.shape))
    net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(3):
        with mx.autograd.record():
            loss = loss_fn(net(bg, bg.ndata["x"]), y).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    out = {"loss": np.array(losses), "predict": _np(net(bg, x))}
    readouts = {"sum": dglnn.SumPooling(), "sort": dglnn.SortPooling(3), "set2set": dglnn.Set2Set(4, 2, 1),
                "attention": dglnn.GlobalAttentionPooling(nn.Dense(1, in_units=4), nn.Dense(3, in_units=4))}
    for i, (name, block) in enumerate(sorted(readouts.items())):
        block.initialize()
        block(bg, x)
        _seed_params(block, 30 + i)
        out["readout_" + name] = _np(block(bg, x))
    out["mean_nodes"] = _np(dgl.mean_nodes(bg, "x"))
    out["softmax_nodes"] = _np(dgl.softmax_nodes(bg, "x"))
    out["broadcast"] = _np(dgl.broadcast_nodes(bg, dgl.max_nodes(bg, "x")))
    parts = dgl.unbatch(bg)
    out["unbatched_sizes"] = np.array([p.num_nodes() for p in parts])
    out["unbatched_x2"] = _np(parts[2].ndata["x"])
    return out


def _layer_cases(dglnn, nd, nn):
    """(name, block, inputs of a graph with self loops) for the dgl.nn.mxnet layers."""
    def etypes(g):
        return nd.array(np.arange(g.num_edges()) % 3, dtype="int64")
    return [
        ("graphconv", dglnn.GraphConv(5, 3, norm="right"), lambda g: (g, _feat(6, 5))),
        ("gatconv_residual", dglnn.GATConv(5, 4, num_heads=2, residual=True), lambda g: (g, _feat(6, 5))),
        ("sage_gcn", dglnn.SAGEConv(5, 3, "gcn"), lambda g: (g, _feat(6, 5))),
        ("gin_max", dglnn.GINConv(nn.Dense(3, in_units=5), "max", learn_eps=True), lambda g: (g, _feat(6, 5))),
        ("cheb", dglnn.ChebConv(5, 3, 3), lambda g: (g, _feat(6, 5))),
        ("sgconv", dglnn.SGConv(5, 3, k=2), lambda g: (g, _feat(6, 5))),
        ("appnp", dglnn.APPNPConv(3, 0.1), lambda g: (g, _feat(6, 5))),
        ("tagconv", dglnn.TAGConv(5, 3, k=2), lambda g: (g, _feat(6, 5))),
        ("edgeconv", dglnn.EdgeConv(5, 3, batch_norm=True), lambda g: (g, _feat(6, 5))),
        ("gated", dglnn.GatedGraphConv(5, 5, 2, 2), lambda g: (g, _feat(6, 5), etypes(g) % 2)),
        ("nnconv_mean", dglnn.NNConv(5, 3, nn.Dense(15, in_units=2), "mean", residual=True),
         lambda g: (g, _feat(6, 5), _feat(g.num_edges(), 2, 3))),
        ("gmm", dglnn.GMMConv(5, 3, 2, 3, "sum"), lambda g: (g, _feat(6, 5), _feat(g.num_edges(), 2, 4))),
        ("relgraph_basis", dglnn.RelGraphConv(5, 3, 3, "basis", 2), lambda g: (g, _feat(6, 5), etypes(g))),
        ("relgraph_bdd", dglnn.RelGraphConv(4, 4, 3, "bdd", 2), lambda g: (g, _feat(6, 4), etypes(g))),
        ("agnn", dglnn.AGNNConv(), lambda g: (g, _feat(6, 5))),
        ("densegraph", dglnn.DenseGraphConv(5, 3),
         lambda g: (nd.array(g.adj_external(scipy_fmt="coo").todense().astype(np.float32)), _feat(6, 5))),
    ]


def wf_layers():
    """Forward and backward (of the sum of squares) of the dgl.nn.mxnet layers on one graph."""
    mx, dgl = _modules()
    from dgl.nn import mxnet as dglnn
    out = {}
    for i, (name, block, inputs) in enumerate(_layer_cases(dglnn, mx.nd, mx.gluon.nn)):
        g = _small_graph()
        if name != "cheb":
            g = dgl.add_self_loop(g)
        args = inputs(g)
        block.initialize()
        block(*args)
        _seed_params(block, 100 + i)
        feats = [a for a in args if isinstance(a, mx.nd.NDArray) and a.dtype == np.float32]
        for a in feats:
            a.attach_grad()
        with mx.autograd.record():
            res = block(*args)
            loss = (res * res).sum()
        loss.backward()
        out[name] = _np(res)
        for j, a in enumerate(feats):
            out["%s_grad%d" % (name, j)] = _np(a.grad)
    return out


def wf_message_passing():
    """``update_all``/``apply_edges`` with builtins (u_mul_e, copy_u with sum/max/min/mean,
    u_dot_v, u_sub_v) and UDFs, their gradients; ``edge_softmax``; ``dgl.ops``;
    HeteroGraphConv; graphs with features saved and loaded."""
    mx, dgl = _modules()
    import dgl.function as fn
    from dgl.nn import mxnet as dglnn
    nd = mx.nd
    out = {}
    g = _small_graph()
    x, w = _feat(6, 3), _feat(g.num_edges(), 1, 5)
    x.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        g.ndata["h"], g.edata["w"] = x, w
        g.update_all(fn.u_mul_e("h", "w", "m"), fn.sum("m", "a"))
        g.update_all(fn.copy_u("h", "m"), fn.max("m", "b"))
        g.update_all(fn.copy_u("h", "m"), fn.min("m", "c"))
        g.update_all(fn.copy_u("h", "m"), fn.mean("m", "d"))
        g.apply_edges(fn.u_dot_v("h", "h", "s"))
        g.apply_edges(fn.u_sub_v("h", "h", "t"))
        g.apply_edges(lambda e: {"z": e.src["h"] * e.dst["h"] + e.data["w"]})
        g.update_all(lambda e: {"m": e.src["h"] * 2}, lambda n: {"u": n.mailbox["m"].sum(1)})
        attn = dglnn.edge_softmax(g, g.edata["s"])
        loss = ((g.ndata["a"] ** 2).sum() + g.ndata["b"].sum() + g.ndata["c"].sum() + g.ndata["d"].sum()
                + (g.edata["z"] ** 2).sum() + g.ndata["u"].sum() + (attn * g.edata["t"].sum(1, keepdims=True)).sum())
    loss.backward()
    for k in "abcdu":
        out["node_" + k] = _np(g.ndata[k])
    for k in "stz":
        out["edge_" + k] = _np(g.edata[k])
    out["attn"], out["grad_x"], out["grad_w"] = _np(attn), _np(x.grad), _np(w.grad)
    e = _feat(g.num_edges(), 3, 6)
    out["ops_gspmm"] = _np(dgl.ops.gspmm(g, "mul", "sum", x, e))
    out["ops_segment"] = _np(dgl.ops.segment_reduce(nd.array([2, 4], dtype="int64"), x, "max"))

    hg = dgl.heterograph({("user", "follows", "user"): ([0, 1, 2], [1, 2, 0]),
                          ("user", "plays", "game"): ([0, 1, 2, 2], [0, 0, 1, 1]),
                          ("game", "played-by", "user"): ([0, 0, 1], [0, 1, 2])})
    conv = dglnn.HeteroGraphConv({"follows": dglnn.GraphConv(4, 3),
                                  "plays": dglnn.GraphConv(4, 3, allow_zero_in_degree=True),
                                  "played-by": dglnn.SAGEConv(4, 3, "mean")}, aggregate="sum")
    conv.initialize()
    h = {"user": _feat(3, 4), "game": _feat(2, 4, 2)}
    conv(hg, h)
    _seed_params(conv, 40)
    res = conv(hg, h)
    out["hetero_user"], out["hetero_game"] = _np(res["user"]), _np(res["game"])

    path = os.path.join(tempfile.mkdtemp(), "graphs.bin")
    g2 = _small_graph()
    g2.ndata["x"], g2.edata["w"] = x, nd.arange(g2.num_edges())
    dgl.save_graphs(path, [g2, dgl.graph(([0], [1]))], {"label": nd.array([1, 2])})
    loaded, labels = dgl.load_graphs(path)
    out["loaded_x"], out["loaded_w"] = _np(loaded[0].ndata["x"]), _np(loaded[0].edata["w"])
    out["loaded_label"] = _np(labels["label"])
    return out


def wf_rgcn_and_tree_lstm():
    """An R-GCN entity classifier (an Embedding, RelGraphConv with basis and block-diagonal
    decomposition) on a heterograph made homogeneous, trained three SGD steps; a Tree-LSTM-like
    cell propagated leaves-to-root with ``prop_nodes`` over ``topological_nodes_generator``."""
    mx, dgl = _modules()
    from dgl.nn import mxnet as dglnn
    nd = mx.nd
    hg = dgl.heterograph({("a", "r1", "b"): ([0, 1, 2], [0, 1, 1]), ("b", "r2", "a"): ([0, 1], [2, 0]),
                          ("a", "r3", "a"): ([0, 1], [1, 2])})
    g = dgl.to_homogeneous(hg)
    etypes = g.edata[dgl.ETYPE]

    class RGCN(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.emb = mx.gluon.nn.Embedding(g.num_nodes(), 6)
                self.c1 = dglnn.RelGraphConv(6, 5, 3, "basis", 2, activation=nd.relu, self_loop=True)
                self.c2 = dglnn.RelGraphConv(5, 2, 3, "bdd", 1)

        def forward(self, graph, et):
            return self.c2(graph, self.c1(graph, self.emb(nd.arange(graph.num_nodes())), et), et)

    net = RGCN()
    net.initialize()
    net(g, etypes)
    _seed_params(net, 3)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    y = nd.array([0, 1, 0, 1, 1])
    losses = []
    for _ in range(3):
        with mx.autograd.record():
            loss = mx.gluon.loss.SoftmaxCELoss()(net(g, etypes), y).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    out = {"rgcn_loss": np.array(losses), "etypes": _np(etypes), "ntypes": _np(g.ndata[dgl.NTYPE])}

    tree = dgl.graph(([1, 2, 3, 4, 5], [0, 0, 1, 1, 2]), num_nodes=6)  # children -> parent
    x = _feat(6, 3)
    x.attach_grad()
    cell = mx.gluon.nn.Dense(3, in_units=3)
    cell.initialize()
    _seed_params(cell, 9)
    with mx.autograd.record():
        tree.ndata["x"], tree.ndata["h"], tree.ndata["s"] = x, nd.tanh(x), nd.zeros((6, 3))
        tree.prop_nodes(dgl.topological_nodes_generator(tree)[1:], lambda e: {"m": e.src["h"]},
                        lambda n: {"s": n.mailbox["m"].sum(1)},
                        lambda n: {"h": nd.tanh(cell(n.data["s"]) + n.data["x"])})
        loss = (tree.ndata["h"] ** 2).sum()
    loss.backward()
    out.update(tree_h=_np(tree.ndata["h"]), tree_grad_x=_np(x.grad), tree_grad_w=_np(cell.weight.grad()))
    return out


def wf_graph_operators():
    """Broadcasting builtins (u_mul_e, u_add_e, u_mul_v, e_div_v, copy_e) on multi-dimensional
    features with their gradients; ``adj_product_graph``/``adj_sum_graph`` (DGL's CSR products)
    with gradients of the edge weights; segment reductions; graph editing carrying features."""
    mx, dgl = _modules()
    import dgl.function as fn
    nd = mx.nd
    out = {}
    g = dgl.graph(([0, 1, 2, 3, 0], [1, 2, 3, 0, 2]))
    x, e, y = _feat(4, 6).reshape((4, 2, 3)), _feat(5, 2, 2).reshape((5, 2, 1)), _feat(4, 3, 3).reshape((4, 1, 3))
    for a in (x, e, y):
        a.attach_grad()
    with mx.autograd.record():
        g.ndata["x"], g.edata["e"], g.ndata["y"] = x, e, y
        g.update_all(fn.u_mul_e("x", "e", "m"), fn.sum("m", "o"))
        g.update_all(fn.u_add_e("y", "e", "m"), fn.max("m", "p"))
        g.apply_edges(fn.u_mul_v("x", "y", "q"))
        g.apply_edges(fn.e_div_v("e", "y", "r"))
        g.update_all(fn.copy_e("e", "m"), fn.min("m", "s"))
        loss = ((g.ndata["o"] ** 2).sum() + g.ndata["p"].sum() + (g.edata["q"] * 2).sum() + g.edata["r"].sum()
                + g.ndata["s"].sum())
    loss.backward()
    out.update({k: _np(g.ndata[k]) for k in "ops"})
    out.update({k: _np(g.edata[k]) for k in "qr"})
    out.update(grad_x=_np(x.grad), grad_e=_np(e.grad), grad_y=_np(y.grad))

    a = dgl.graph(([0, 1, 2, 2], [1, 2, 0, 1]), num_nodes=3)
    b = dgl.graph(([0, 1, 1, 2], [0, 2, 1, 0]), num_nodes=3)
    wa, wb = nd.array([1.0, 2, 3, 4]), nd.array([5.0, 6, 7, 8])
    wa.attach_grad()
    wb.attach_grad()
    with mx.autograd.record():
        a.edata["w"], b.edata["w"] = wa, wb
        prod, total = dgl.adj_product_graph(a, b, "w"), dgl.adj_sum_graph([a, b], "w")
        loss = (prod.edata["w"] * nd.arange(prod.num_edges())).sum() + (total.edata["w"] ** 2).sum()
    loss.backward()
    out.update(product_w=_np(prod.edata["w"]), sum_w=_np(total.edata["w"]), grad_wa=_np(wa.grad),
               grad_wb=_np(wb.grad))

    v = _feat(6, 3, 4)
    v.attach_grad()
    offsets = nd.array([1, 0, 3, 2], dtype="int64")
    with mx.autograd.record():
        seg_sum = dgl.ops.segment_reduce(offsets, v, "sum")
        seg_min = dgl.ops.segment_reduce(offsets, v, "min")
        loss = (seg_sum * seg_sum).sum() + (seg_min * 3).sum()
    loss.backward()
    out.update(seg_sum=_np(seg_sum), seg_min=_np(seg_min), grad_v=_np(v.grad))

    h = _small_graph()
    h.ndata["x"], h.edata["w"] = _feat(6, 3), _feat(14, 2, 2)
    out["removed_nodes_w"] = _np(dgl.remove_nodes(h, nd.array([1, 3], dtype="int64")).edata["w"])
    out["added_edges_w"] = _np(dgl.add_edges(h, [1, 2], [5, 5], {"w": nd.ones((2, 2))}).edata["w"])
    out["reversed_x"] = _np(dgl.reverse(h, copy_ndata=True).ndata["x"])
    out["subgraph_w"] = _np(dgl.edge_subgraph(h, nd.array([0, 4, 7], dtype="int64")).edata["w"])
    return out


WORKFLOWS = {name[3:]: fn for name, fn in sorted(globals().items()) if name.startswith("wf_")}


def main(out_dir, names=None):
    """Run the workflows (all, or ``names``) and write ``out_dir/<workflow>.npz``."""
    os.makedirs(out_dir, exist_ok=True)
    for name in names or WORKFLOWS:
        try:
            arrays = WORKFLOWS[name]()
        except Exception:  # pylint: disable=broad-except
            with open(os.path.join(out_dir, name + ".error"), "w") as f:  # the test reports it
                f.write(traceback.format_exc())
            continue
        np.savez_compressed(os.path.join(out_dir, name + ".npz"), **{k: np.asarray(v) for k, v in arrays.items()})
    mx, _ = _modules()
    print("ran %d workflows with %s" % (len(names or WORKFLOWS), mx.__file__))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
    sys.stdout.flush()
    os._exit(0)  # real MXNet 1.9.1 with torch loaded (DGL imports it) segfaults at interpreter exit
else:
    import pytest

    if importlib.util.find_spec("dgl") is None:
        pytest.skip("DGL is not installed (bash tools/install_clients.sh VENV)", allow_module_level=True)

    @pytest.fixture(scope="module")
    def results():
        """The workflows' results, computed in a child process (see the module's docstring)."""
        out = tempfile.mkdtemp()
        root = os.path.dirname(HERE)
        env = dict(os.environ, DGLBACKEND="mxnet", PYTHONWARNINGS="ignore",
                   PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        code = ("import neogluon_alias; neogluon_alias.activate(); import sys; sys.argv = sys.argv[1:]; "
                "import runpy; runpy.run_path(sys.argv[0], run_name='__main__')")
        proc = subprocess.run([sys.executable, "-c", code, os.path.abspath(__file__), out], capture_output=True,
                              text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return out

    @pytest.mark.slow
    @pytest.mark.parametrize("name", list(WORKFLOWS))
    def test_workflow_matches_mxnet(results, name):  # pylint: disable=redefined-outer-name
        error = os.path.join(results, name + ".error")
        if os.path.exists(error):
            pytest.fail(open(error).read()[-3000:], pytrace=False)
        with np.load(os.path.join(FIXTURES, name + ".npz")) as f:
            expected = dict(f)
        with np.load(os.path.join(results, name + ".npz")) as f:
            got = dict(f)
        assert sorted(got) == sorted(expected)
        for key, want in expected.items():
            have = got[key]
            assert have.shape == want.shape, key
            if want.dtype.kind in "fc":
                np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL, err_msg=key)
            else:
                np.testing.assert_array_equal(have, want, err_msg=key)
