"""``mx.onnx.export_model(..., dynamic=True)``: the shapes written by Reshape's special codes,
``shape_array``, ``slice_like``, ``reshape_like``, ``split``, ``tile``, ``repeat``, the
interleaved attention operators and ``box_nms`` are computed from ``Shape`` at run time, so
the exported model runs in ONNX Runtime at two batch sizes (and sequence lengths) and gives
neogluon's outputs at each (rtol 1e-4); imported back (``import_to_gluon``), the shape
arithmetic becomes Reshape codes, ``slice_like`` and ``shape_array`` again and the block runs
at both sizes too."""
import json

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402
import onnx_cases  # noqa: E402
from onnx_nets import ort_session  # noqa: E402

S = mx.sym


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-4,
                                   atol=1e-4 * max(1.0, float(np.abs(w).max()) if w.size else 1.0))


def shape_arithmetic(x, y):
    """x (N, 4, 6), y (N, 3, 2): Reshape codes, shape_array, slice_like, reshape_like, split."""
    a = S.reshape(x, (0, -1, 3))                       # (N, 8, 3)
    a = S.reshape(S.reshape(a, (0, 4, 0, -1)), (0, 8, 3))   # a positive code moves past an input dim
    b = S.reshape(a, (-3, 0))                          # (N*8, 3)
    c = S.reshape(b, (-4, -1, 8, -2))                  # (N, 8, 3)
    d = S.slice_like(c, y, axes=(0, 2))                # (N, 8, 2)
    e = S.reshape_like(S.slice_axis(d, axis=1, begin=0, end=3), y)   # (N, 3, 2)
    p, q = S.split(S.broadcast_add(e, y), num_outputs=2, axis=2)
    f = S.tile(S.repeat(p, repeats=2, axis=1), reps=(2, 1, 1, 1))   # (2, N, 6, 1)
    shape = S.cast(S.shape_array(f), "float32")
    return S.Group([f, q * 2, shape, S.size_array(x)])


def attention(qkv):
    qk = S.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2)
    return S.Group([qk, S.contrib.interleaved_matmul_selfatt_valatt(qkv, S.softmax(qk, axis=-1), heads=2)])


def detection(rows):
    return S.contrib.box_nms(rows, overlap_thresh=0.5, topk=6, id_index=0, score_index=1, coord_start=2)


CASES = [
    ("shape_arithmetic", shape_arithmetic, lambda n, t: [(n, 4, 6), (n, 3, 2)]),
    ("attention", attention, lambda n, t: [(t, n, 24)]),
    ("box_nms", detection, lambda n, t: [(n, t, 6)]),
]


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_dynamic_export_runs_two_sizes(name, fn, shapes, opset, tmp_path):
    names = ["x%d" % i for i in range(len(shapes(1, 1)))]
    sym = fn(*[S.var(n) for n in names])
    order = [n for n in sym.list_inputs() if n in names]
    first = dict(zip(names, shapes(2, 5)))
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, {}, [first[n] for n in order], onnx_file_path=path, dynamic=True, opset_version=opset)
    onnx.checker.check_model(path, full_check=True)
    sess = ort_session(path)
    rng = np.random.RandomState(1)
    for n, t in ((2, 5), (3, 9)):
        arrays = {k: rng.uniform(0, 20, s).astype(np.float32) for k, s in zip(names, shapes(n, t))}
        if name == "box_nms":
            arrays["x0"][..., 0] = rng.randint(0, 2, (n, t))
            arrays["x0"][..., 4:] += arrays["x0"][..., 2:4]
        want = onnx_cases.reference(sym, arrays, {})
        _close(sess.run(None, arrays), want)


IMPORTED = [("shape_arithmetic", shape_arithmetic, lambda n, t: [(n, 4, 6), (n, 3, 2)], [(None, 4, 6), (None, 3, 2)]),
            ("attention", attention, lambda n, t: [(t, n, 24)], [(None, None, 24)])]


@pytest.mark.parametrize("name,fn,shapes,free", IMPORTED, ids=[c[0] for c in IMPORTED])
def test_dynamic_export_imports_back(name, fn, shapes, free, tmp_path):
    names = ["x%d" % i for i in range(len(free))]
    sym = fn(*[S.var(n) for n in names])
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, {}, shapes(2, 5), onnx_file_path=path, dynamic=True, dynamic_input_shapes=free)
    imported, _, _ = mx.contrib.onnx.import_model(path)
    ops = {n["op"] for n in json.loads(imported.tojson())["nodes"]}
    if name == "shape_arithmetic":
        assert {"Reshape", "slice_like", "shape_array", "size_array"} <= ops
    net = mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    rng = np.random.RandomState(2)
    for n, t in ((2, 5), (3, 7)):
        arrays = {k: rng.uniform(-1, 1, s).astype(np.float32) for k, s in zip(names, shapes(n, t))}
        got = net(*[mx.nd.array(arrays[k]) for k in names])
        got = [o.asnumpy() for o in (got if isinstance(got, (list, tuple)) else [got])]
        _close(got, onnx_cases.reference(sym, arrays, {}))
