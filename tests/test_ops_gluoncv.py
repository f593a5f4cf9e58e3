"""The operator-level behaviours GluonCV 0.10.5's models need, against MXNet 1.9.1
(tools/make_extra_fixtures_gluoncv_ops.py), checked without GluonCV: one-output ``split``,
``_split_v2`` and ``amp_multicast`` give one array (imperatively, through ``bind`` and
hybridized, see tests/opcases.py), and ``tojson``/``save``/``export`` drop ``amp_cast`` and
``amp_multicast`` nodes as MXNet's ``RemoveAmpCast`` pass does."""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from opcases import make_tests

test_imperative, test_graph, test_hybridized, test_error = make_tests("gluoncv_ops")

with open(os.path.join(os.path.dirname(__file__), "fixtures", "extra", "gluoncv_ops", "amp_graphs.json")) as _f:
    GRAPHS = json.load(_f)


def amp_symbols():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    cast = mx.sym.amp_cast(a, dtype="float16", name="c0")
    multi = mx.sym.amp_multicast(cast, b, num_outputs=2, cast_narrow=True, name="m0")
    body = mx.sym.elemwise_add(multi[0], multi[1], name="add0")
    chain = mx.sym.amp_cast(mx.sym.amp_cast(a, dtype="float16", name="c1"), dtype="float32", name="c2")
    head = mx.sym.Group([mx.sym.relu(chain, name="r0"), mx.sym.amp_cast(b, dtype="float16", name="c3")])
    one = mx.sym.split(mx.sym.amp_multicast(a, num_outputs=1, name="m1"), num_outputs=1, axis=0, name="s0")
    return {"body": body, "chain": chain, "head": head, "one": one}


@pytest.mark.parametrize("key", ["body", "chain", "head", "one"])
def test_tojson_removes_amp_casts_as_mxnet(key):
    sym = amp_symbols()[key]
    assert json.loads(sym.tojson()) == json.loads(GRAPHS[key]["removed"])
    assert json.loads(sym.tojson(remove_amp_cast=False)) == json.loads(GRAPHS[key]["kept"])
    # the symbol itself keeps its casts
    assert json.loads(sym.tojson(remove_amp_cast=False)) == json.loads(GRAPHS[key]["kept"])


def test_save_removes_amp_casts(tmp_path):
    sym = amp_symbols()["body"]
    sym.save(str(tmp_path / "a.json"))
    sym.save(str(tmp_path / "b.json"), remove_amp_cast=False)
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads(GRAPHS["body"]["removed"])
    assert json.loads((tmp_path / "b.json").read_text()) == json.loads(GRAPHS["body"]["kept"])


class _Decoder(mx.gluon.HybridBlock):
    """GluonCV's box decoder pattern: one-part split, then amp_multicast."""

    def hybrid_forward(self, F, x, anchors):
        x = F.split(x, axis=0, num_outputs=1)
        x, anchors = F.amp_multicast(x, anchors, num_outputs=2, cast_narrow=True)
        return F.broadcast_add(x, anchors)


def test_hybridized_one_part_split_and_export_without_amp_multicast(tmp_path):
    net = _Decoder()
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    anchors = mx.nd.ones((1, 3))
    want = net(x, anchors).asnumpy()
    net.hybridize()
    np.testing.assert_array_equal(net(x, anchors).asnumpy(), want)
    net.export(str(tmp_path / "dec"))
    graph = json.loads((tmp_path / "dec-symbol.json").read_text())
    assert [n["op"] for n in graph["nodes"] if n["op"] != "null"] == ["SliceChannel", "broadcast_add"]
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "dec-symbol.json"), ["data0", "data1"])
    np.testing.assert_array_equal(back(x, anchors).asnumpy(), want)


def test_one_output_calls_return_one_array():
    x = mx.nd.array(np.ones((2, 3), np.float32))
    types = GRAPHS["python_types"]
    assert type(mx.nd.split(x, num_outputs=1, axis=0)).__name__ == types["split"]
    assert type(mx.nd.split_v2(x, 1, axis=0)).__name__ == types["split_v2"]
    assert type(mx.nd.amp_multicast(x, num_outputs=1)).__name__ == types["amp_multicast"]
    assert len(mx.sym.split(mx.sym.var("a"), num_outputs=1).list_outputs()) == types["sym_split_outputs"]
