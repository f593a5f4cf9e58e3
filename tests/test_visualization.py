"""mx.viz against MXNet 1.9.1: print_summary's exact text and plot_network's Graphviz
nodes and edges, recorded by tools/make_extra_fixtures_viz.py."""
import contextlib
import io
import json
import os
import shutil
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.cli.lenet import build_lenet  # the hybridization tutorial's network

try:
    import graphviz
except ImportError:  # print_summary needs no graphviz; the drawing tests do
    graphviz = None
needs_graphviz = pytest.mark.skipif(graphviz is None, reason="plot_network needs the graphviz package")

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "fixtures", "mxnet-1.9.1", "models")
with open(os.path.join(HERE, "fixtures", "extra", "viz", "cases.json")) as _f:
    CASES = json.load(_f)


def build(graph):
    """The neogluon symbol of a recorded graph (same source as MXNet ran, or a fixture model)."""
    if graph.startswith("model:"):
        return mx.sym.load(os.path.join(MODELS, graph[6:] + "-symbol.json"))
    scope = {"mx": mx, "np": np}
    exec(CASES["graphs"][graph], scope)  # pylint: disable=exec-used
    return scope["net"]


def kwargs_of(case):
    kwargs = dict(case["kwargs"])
    if "shape" in kwargs:
        kwargs["shape"] = {k: tuple(v) for k, v in kwargs["shape"].items()}
    if "dtype" in kwargs:
        kwargs["dtype"] = {k: np.dtype(v).type for k, v in kwargs["dtype"].items()}
    return kwargs


def summary_text(symbol, **kwargs):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(symbol, **kwargs)
    return buf.getvalue()


@pytest.mark.parametrize("name", sorted(CASES["summary"]))
def test_print_summary_matches_mxnet(name):
    case = CASES["summary"][name]
    assert summary_text(build(case["graph"]), **kwargs_of(case)) == case["text"]


def reference_digraph(case):
    """The Digraph MXNet built, replayed from its recorded node and edge calls."""
    dot = graphviz.Digraph(name=case["name"], format=case["format"])
    for kind, first, second, attrs in case["calls"]:
        if kind == "node":
            dot.node(first, label=second, **attrs)
        else:
            dot.edge(first, second, **attrs)
    return dot


@needs_graphviz
@pytest.mark.parametrize("name", sorted(CASES["plot"]))
def test_plot_network_matches_mxnet(name):
    case = CASES["plot"][name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dot = mx.viz.plot_network(build(case["graph"]), **kwargs_of(case))
    assert isinstance(dot, graphviz.Digraph)
    assert (dot.name, dot.format) == (case["name"], case["format"])
    assert dot.source == reference_digraph(case).source
    repeated = [w for w in caught if "multiple variables with the same name" in str(w.message)]
    assert bool(repeated) == case["warned"]


def test_summary_of_hybridized_gluon_lenet():
    """The tutorial's LeNet, traced by hybridize here, gets the table MXNet printed for it."""
    net = build_lenet(mx, prefix="lenet0_")
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((4, 1, 28, 28)))
    expected = CASES["summary"]["model_lenet"]
    assert summary_text(net._cached_graph[1], **kwargs_of(expected)) == expected["text"]


def test_summary_quantized_bitwidth_adds_size_line():
    net = build("docstring_mlp")
    plain = summary_text(net, shape={"data": (1, 200)})
    text = summary_text(net, shape={"data": (1, 200)}, quantized_bitwidth=8)
    total = 201 * 128 + 129 * 10
    assert text.startswith(plain)
    assert text[len(plain):].splitlines()[0] == "Params size: %d bytes at 8 bits per parameter" % total


def test_summary_errors():
    with pytest.raises(TypeError, match="symbol must be Symbol"):
        mx.viz.print_summary(mx.nd.zeros((2,)))
    with pytest.raises(ValueError, match="Input shape is incomplete"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mx.viz.print_summary(build("resize_like"), shape={"x": (1, 2, 4, 4)})


@needs_graphviz
def test_plot_errors():
    with pytest.raises(TypeError, match="symbol must be a Symbol"):
        mx.viz.plot_network("data")
    with pytest.raises(ValueError, match="Input shape is incomplete"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mx.viz.plot_network(build("resize_like"), shape={"ref": (1, 2, 8, 8)})


def test_plot_without_graphviz_package(monkeypatch):
    import builtins
    from neogluon import visualization
    real_import = builtins.__import__

    def no_graphviz(name, *args, **kwargs):
        if name == "graphviz":
            raise ImportError("No module named 'graphviz'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(visualization, "_DIGRAPH", [])
    monkeypatch.setattr(builtins, "__import__", no_graphviz)
    with pytest.raises(ImportError, match="Draw network requires graphviz library"):
        mx.viz.plot_network(build("docstring_mlp"))


@needs_graphviz
def test_render_without_dot_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    dot = mx.viz.plot_network(build("docstring_mlp"), save_format="png")
    with pytest.raises(MXNetError, match="Graphviz's `dot` program.*not found"):
        dot.render(filename="net", directory=str(tmp_path))
    with pytest.raises(MXNetError, match="apt-get install graphviz"):
        dot.pipe()


@needs_graphviz
@pytest.mark.skipif(shutil.which("dot") is None, reason="rendering needs Graphviz's dot program")
def test_render_to_file(tmp_path):
    dot = mx.viz.plot_network(build("tutorial_lenet"), title="lenet", save_format="png",
                              shape={"data": (1, 1, 28, 28)})
    path = dot.render(filename="lenet", directory=str(tmp_path), cleanup=True)
    assert path.endswith("lenet.png")
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert dot.pipe(format="svg").lstrip().startswith(b"<?xml")
