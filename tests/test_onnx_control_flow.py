"""``mx.onnx.export_model`` of the control flow operators: ``_foreach`` as ``Scan``,
``_while_loop`` as ``Loop`` (step outputs padded to ``max_iterations`` as MXNet does),
``_cond`` as ``If``, on the blocks and symbols of tests/test_control_flow.py, run in ONNX
Runtime against neogluon (rtol 1e-4)."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402
import control_flow_models as models  # noqa: E402
from onnx_nets import ort_session  # noqa: E402

KIND = {"foreach": "Scan", "while": "Loop", "cond": "If"}


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def _kinds(path):
    return {n.op_type for n in onnx.load(path).graph.node}


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("name", models.MODELS)
def test_blocks_export(name, opset, tmp_path):
    net, inputs = models.build(mx, name)
    net.hybridize()
    want = net(*[mx.nd.array(a) for a in inputs])
    want = [o.asnumpy() for o in (want if isinstance(want, (list, tuple)) else [want])]
    path = mx.onnx.export_block(net, str(tmp_path / "m.onnx"), in_shapes=[a.shape for a in inputs],
                                opset_version=opset)
    onnx.checker.check_model(path, full_check=True)
    assert KIND[name.split("_")[0]] in _kinds(path)
    names = [s.name for s in net._cached_graph[0]]   # the block's inputs, fed by name
    _close(ort_session(path).run(None, dict(zip(names, inputs))), want)


def _symbol_case(name, values):
    sym = models.symbols(mx)[name]
    want = sym.eval(**{k: mx.nd.array(v) for k, v in values.items()})
    return sym, [w.asnumpy() for w in want]


SYMBOLS = [
    ("while", dict(i=np.array([1.0], np.float32), s=np.array([0.5, -1.0], np.float32),
                   k=np.array([2.0, 3.0], np.float32))),
    ("while_no_step", dict(i=np.array([4.0], np.float32), s=np.array([0.5, -1.0], np.float32),
                           k=np.array([2.0, 3.0], np.float32))),
    ("cond", dict(a=np.array([1.0, 2.0], np.float32), b=np.array([3.0, -1.0], np.float32))),
    ("cond_else", dict(a=np.array([4.0, 2.0], np.float32), b=np.array([3.0, -1.0], np.float32))),
    ("foreach", dict(x=np.arange(8, dtype=np.float32).reshape(4, 2), y=np.ones((4, 2), np.float32) * 0.5,
                     w=np.array([2.0, -1.0], np.float32), z=np.array([1.0, 2.0, 3.0, 4.0], np.float32))),
]


@pytest.mark.parametrize("name,values", SYMBOLS, ids=[c[0] for c in SYMBOLS])
def test_symbols_export(name, values, tmp_path):
    """The step outputs of a while loop padded with zero rows (none ran: all zeros), a cond
    taking either branch, a foreach over two arrays closing over an output of a split; each
    also imported back."""
    sym, want = _symbol_case(name.split("_")[0], values)
    order = sym.list_inputs()
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, {}, [values[n].shape for n in order], [values[n].dtype for n in order], path)
    onnx.checker.check_model(path, full_check=True)
    assert KIND[name.split("_")[0]] in _kinds(path)
    _close(ort_session(path).run(None, values), want)
    imported, arg, aux = mx.contrib.onnx.import_model(path)   # and back
    got = imported.eval(**{k: mx.nd.array(v) for k, v in values.items()}, **arg, **aux)
    _close([g.asnumpy() for g in got], want)


def test_dynamic_foreach_runs_two_lengths(tmp_path):
    """A Scan exported with dynamic=True runs over sequences of other lengths and batches."""
    net, inputs = models.build(mx, "foreach_lstm")
    net.hybridize()
    net(*[mx.nd.array(a) for a in inputs])
    path = mx.onnx.export_block(net, str(tmp_path / "m.onnx"), in_shapes=[a.shape for a in inputs], dynamic=True)
    sess = ort_session(path)
    names = [s.name for s in net._cached_graph[0]]
    rng = np.random.RandomState(3)
    for steps, batch in ((5, 2), (3, 4)):
        arrays = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((steps, batch, 3), (batch, 4), (batch, 4))]
        want = [o.asnumpy() for o in net(*[mx.nd.array(a) for a in arrays])]
        _close(sess.run(None, dict(zip(names, arrays))), want)


@pytest.mark.parametrize("name", models.MODELS)
def test_control_flow_imports_back(name, tmp_path):
    """The exported Scan, Loop and If import back (``import_to_gluon``) as _foreach,
    _while_loop and _cond."""
    net, inputs = models.build(mx, name)
    net.hybridize()
    want = net(*[mx.nd.array(a) for a in inputs])
    want = [o.asnumpy() for o in (want if isinstance(want, (list, tuple)) else [want])]
    path = mx.onnx.export_block(net, str(tmp_path / "m.onnx"), in_shapes=[a.shape for a in inputs])
    names = [s.name for s in net._cached_graph[0]]
    imported = mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    order = [i.name for i in ort_session(path).get_inputs()]
    got = imported(*[mx.nd.array(inputs[names.index(n)]) for n in order])
    got = [o.asnumpy() for o in (got if isinstance(got, (list, tuple)) else [got])]
    _close(got, want)
