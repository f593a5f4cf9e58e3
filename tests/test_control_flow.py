"""Symbolic control flow (``mx.sym.contrib.foreach``/``while_loop``/``cond`` and the
``_foreach``/``_while_loop``/``_cond`` nodes with their subgraphs) against MXNet 1.9.1,
recorded by tools/make_extra_fixtures_control_flow.py; and the graph JSON layout, byte
for byte as MXNet writes it."""
import glob
import os

import pytest

import neogluon as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(FIXTURES, "mxnet-1.9.1", "models", "*-symbol.json"))))
def test_json_written_byte_for_byte_as_mxnet(path):
    """dmlc's JSONWriter layout: ', ' before each line break, lists of more than 10 items and
    attribute maps of more than one key on several lines."""
    text = open(path, encoding="utf-8").read()
    assert mx.sym.load(path).tojson() == text


# ----------------------------------------------------------------------------- control flow
import json  # noqa: E402

import numpy as np  # noqa: E402

import control_flow_models as models  # noqa: E402

CF = os.path.join(FIXTURES, "extra", "control_flow")
RTOL, ATOL = 1e-5, 1e-6
# while_loop pads its stacked outputs to max_iterations; MXNet leaves the padding uninitialised
VALID_ROWS = {("while", 0): 3}


def _record(name):
    with np.load(os.path.join(CF, name + ".npz")) as data:
        return dict(data)


def _close(got, want, what):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


def _count(rec, prefix):
    return sum(1 for k in rec if k.startswith(prefix) and k[len(prefix):].isdigit())


def _run_block(name, hybridize):
    """The block with MXNet's parameter values, run under record with the recorded heads."""
    rec = _record(name)
    net, inputs = models.build(mx, name)
    for pname, p in net.collect_params().items():
        p.set_data(mx.nd.array(rec["param:" + pname]))
    if hybridize:
        net.hybridize()
    xs = [mx.nd.array(a) for a in inputs]
    for k, x in enumerate(xs):
        if "in_grad%d" % k in rec:
            x.attach_grad()
    with mx.autograd.record():
        outs = net(*xs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        loss = sum((o * mx.nd.array(rec["head%d" % k])).sum() for k, o in enumerate(outs))
    loss.backward()
    return net, rec, xs, outs


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("name", models.MODELS)
def test_block_outputs_and_gradients_match_mxnet(name, hybridize):
    """Imperatively (``mx.nd.contrib``'s Python loops) and hybridized (one ``_foreach``/
    ``_while_loop``/``_cond`` node running its subgraphs): MXNet's outputs and gradients."""
    net, rec, xs, outs = _run_block(name, hybridize)
    assert len(outs) == _count(rec, "out")
    for k, o in enumerate(outs):
        _close(o, rec["out%d" % k], "out%d" % k)
    for k, x in enumerate(xs):
        if "in_grad%d" % k in rec:
            _close(x.grad, rec["in_grad%d" % k], "input %d gradient" % k)
    for pname, p in net.collect_params().items():
        _close(p.grad(), rec["grad:" + pname], pname + " gradient")


@pytest.mark.parametrize("name", models.MODELS)
def test_block_export_is_mxnets_byte_for_byte(name, tmp_path):
    net, _, _, _ = _run_block(name, True)
    net.export(str(tmp_path / name))
    with open(str(tmp_path / name) + "-symbol.json", encoding="utf-8") as mine, \
            open(os.path.join(CF, name + "-symbol.json"), encoding="utf-8") as theirs:
        assert mine.read() == theirs.read()
    saved = mx.nd.load(str(tmp_path / name) + "-0000.params")
    rec = _record(name)
    for key, value in saved.items():
        _close(value, rec["param:" + key.split(":", 1)[1]], key)


@pytest.mark.parametrize("name", models.MODELS)
def test_mxnet_export_loads_and_runs(name):
    """MXNet's ``-symbol.json`` (nodes with ``subgraphs``) and ``-0000.params`` through
    ``SymbolBlock.imports``: the recorded outputs; the graph is written back byte for byte."""
    path = os.path.join(CF, name)
    rec = _record(name)
    n_in = _count(rec, "in")
    names = ["data"] if n_in == 1 else ["data%d" % k for k in range(n_in)]
    net = mx.gluon.SymbolBlock.imports(path + "-symbol.json", names, path + "-0000.params")
    outs = net(*[mx.nd.array(rec["in%d" % k]) for k in range(n_in)])
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    for k, o in enumerate(outs):
        _close(o, rec["out%d" % k], "out%d" % k)
    with open(path + "-symbol.json", encoding="utf-8") as f:
        assert mx.sym.load(path + "-symbol.json").tojson() == f.read()


SYMBOLS = models.symbols(mx)
SYM_REC = _record("symbols")


@pytest.mark.parametrize("name", sorted(SYMBOLS))
def test_symbol_json_is_mxnets(name):
    with open(os.path.join(CF, name + ".json"), encoding="utf-8") as f:
        text = f.read()
    assert models.symbols(mx)[name].tojson() == text
    assert mx.sym.load_json(text).tojson() == text


@pytest.mark.parametrize("source", ["built", "loaded"])
@pytest.mark.parametrize("name", sorted(SYMBOLS))
def test_symbol_bind_forward_backward(name, source):
    """Through ``bind`` and the executor's compiled graph: MXNet's outputs, and its
    gradients where MXNet computes them."""
    sym = SYMBOLS[name] if source == "built" else mx.sym.load(os.path.join(CF, name + ".json"))
    cases = sorted({int(k.split("/")[1]) for k in SYM_REC if k.startswith(name + "/")})
    for case in cases:
        key = "%s/%d/" % (name, case)
        values = {k[len(key) + 3:]: v for k, v in SYM_REC.items() if k.startswith(key + "in:")}
        args = {k: mx.nd.array(v) for k, v in values.items()}
        grads = {k: mx.nd.zeros(v.shape) for k, v in values.items()}
        ex = sym.bind(mx.cpu(), args, args_grad=grads)
        outs = ex.forward(is_train=True)
        ex.backward([mx.nd.array(SYM_REC[key + "head%d" % k]) for k in range(len(outs))])
        for k, o in enumerate(outs):
            want = SYM_REC[key + "out%d" % k]
            rows = VALID_ROWS.get((name, k))
            if rows is not None:
                assert o.shape == want.shape
                assert not o.asnumpy()[rows:].any()  # zeros here
                o, want = o[:rows], want[:rows]
            _close(o, want, "%sout%d" % (key, k))
        for k, g in grads.items():
            if key + "grad:" + k in SYM_REC:
                _close(g, SYM_REC[key + "grad:" + k], key + "grad:" + k)


def test_symbol_shapes_and_types_come_from_the_subgraphs():
    arg, out, aux = SYMBOLS["foreach"].infer_shape(**models.SYMBOL_INPUTS["foreach"])
    assert out == [(4, 2), (4, 2), (2,)] and aux == []
    _, out, _ = SYMBOLS["while"].infer_shape(**models.SYMBOL_INPUTS["while"])
    assert out == [(5, 2), (1,), (2,)]
    _, out, _ = SYMBOLS["cond"].infer_type(a=np.float64, b=np.float64)
    assert out == [np.float64]


def test_foreach_infers_the_parameters_of_its_body():
    """A Dense layer without ``in_units`` inside the loop: its weight's shape comes from the
    body, as MXNet's deferred initialisation does."""
    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(5)

        def hybrid_forward(self, F, x, h):  # pylint: disable=arguments-differ
            return F.contrib.foreach(lambda d, s: (self.dense(d) + s[0], [s[0] * 2]), x, [h])[0]

    net = Net()
    net.initialize()
    net.hybridize()
    out = net(mx.nd.ones((3, 2, 4)), mx.nd.ones((2, 5)))
    assert out.shape == (3, 2, 5)
    assert net.dense.weight.shape == (5, 4)


def test_node_without_subgraph_and_bad_json_are_errors():
    with pytest.raises(mx.MXNetError, match="mx.sym.contrib.foreach"):
        mx.nd._internal._foreach(mx.nd.ones((2, 2)), num_args=2, num_outputs=1, num_out_data=1,
                                 in_data_locs=(0,), in_state_locs=(), remain_locs=())
    graph = json.loads(SYMBOLS["cond"].tojson())
    node = next(n for n in graph["nodes"] if n["op"] == "_cond")
    node["subgraphs"] = node["subgraphs"][:2]
    with pytest.raises(mx.MXNetError, match="_cond takes 3 subgraphs but the file gives 2"):
        mx.sym.load_json(json.dumps(graph))
