"""``mx.onnx.export_model`` of the detection operators (box_nms, box_decode/box_encode,
ROIAlign, MultiBoxPrior, MultiBoxDetection), the sorting operators and the shape operators GluonCV's detectors
use, run in ONNX Runtime against neogluon (rtol 1e-4), and two small detector heads built
from them (SSD-like: anchors, box_decode, softmax, box_nms; Faster R-CNN-like: box_decode,
box_nms, topk-free proposal slicing, ROIAlign, a class head) so that CI covers the converters
without GluonCV (tests/test_onnx_gluoncv.py exports GluonCV's own detectors)."""
import json
import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402
from neogluon.base import MXNetError  # noqa: E402
import onnx_cases  # noqa: E402
from onnx_nets import ort_run, rcnn_head, ssd_head  # noqa: E402

S = mx.sym


def _close(got, want, rtol=1e-4):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape
        scale = max(float(np.abs(w).max()), 1e-3) if w.size else 1.0
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=rtol * scale)


def _run(sym, arrays, tmp_path, opset=17, params=None, dynamic=False, dynamic_input_shapes=None):
    """(neogluon's outputs, ONNX Runtime's) of ``sym`` on ``arrays`` (input name -> array)."""
    params = params or {}
    order = [n for n in sym.list_inputs() if n in arrays]
    want = onnx_cases.reference(sym, arrays, params)
    path = str(tmp_path / "m.onnx")
    mx.onnx.export_model(sym, params, [arrays[n].shape for n in order], [arrays[n].dtype for n in order], path,
                         opset_version=opset, dynamic=dynamic, dynamic_input_shapes=dynamic_input_shapes)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    return want, ort_run(path, [arrays[n] for n in order])


def _rows(batch, n, seed, with_id=True, classes=3, center=False):
    """(batch, n, 6) rows [id, score, x1, y1, x2, y2] of overlapping boxes (or centre format)."""
    rng = np.random.RandomState(seed)
    xy = rng.uniform(0, 40, (batch, n, 2))
    wh = rng.uniform(5, 25, (batch, n, 2))
    coords = np.concatenate([xy + wh / 2, wh] if center else [xy, xy + wh], -1)
    ids = rng.randint(-1 if with_id else 0, classes, (batch, n, 1))
    score = rng.uniform(0, 1, (batch, n, 1))
    return np.concatenate([ids, score, coords], -1).astype(np.float32)


NMS = [
    ("plain", dict(overlap_thresh=0.5), {}),
    ("per_class", dict(overlap_thresh=0.4, id_index=0, coord_start=2, score_index=1), {}),
    ("force_suppress", dict(overlap_thresh=0.4, id_index=0, force_suppress=True), {}),
    ("valid_topk", dict(overlap_thresh=0.5, valid_thresh=0.3, topk=10), {}),
    ("background", dict(overlap_thresh=0.45, valid_thresh=0.01, topk=12, id_index=0, background_id=0), {}),
    ("center_in", dict(overlap_thresh=0.5, in_format="center"), dict(center=True)),
    ("center_out", dict(overlap_thresh=0.5, out_format="center", id_index=0), {}),
    ("center_both_per_class", dict(overlap_thresh=0.3, in_format="center", out_format="center", id_index=0),
     dict(center=True)),
]


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("name,attrs,kind", NMS, ids=[c[0] for c in NMS])
def test_box_nms(name, attrs, kind, opset, tmp_path):
    data = _rows(2, 30, seed=len(name), **kind)
    want, got = _run(S.contrib.box_nms(S.var("data"), **attrs), {"data": data}, tmp_path, opset)
    # the kept rows (score != -1) are the same rows, in the same order, and the rest is -1
    assert (want[0][..., 1] != -1).sum() > 3
    _close(got, want)


def test_box_nms_4d_and_width(tmp_path):
    """(..., N, W) input with extra leading dims and a wider row (score at 0, coords at 1)."""
    rng = np.random.RandomState(4)
    rows = _rows(6, 20, seed=5)
    data = np.concatenate([rows[..., 1:], rng.uniform(0, 1, (6, 20, 2)).astype(np.float32)], -1).reshape(2, 3, 20, 7)
    sym = S.contrib.box_nms(S.var("data"), overlap_thresh=0.5, coord_start=1, score_index=0, topk=8)
    _close(*reversed(_run(sym, {"data": data}, tmp_path)))


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("fmt,clip", [("center", -1.0), ("corner", -1.0), ("corner", 1.0)])
def test_box_decode(fmt, clip, opset, tmp_path):
    rng = np.random.RandomState(7)
    data = rng.normal(0, 0.5, (2, 12, 4)).astype(np.float32)
    anchors = _rows(1, 12, seed=8, center=fmt == "center")[..., 2:]
    sym = S.contrib.box_decode(S.var("data"), S.var("anchors"), std0=0.1, std1=0.1, std2=0.2, std3=0.2, clip=clip,
                               format=fmt)
    _close(*reversed(_run(sym, {"data": data, "anchors": anchors}, tmp_path, opset)))


def test_box_encode(tmp_path):
    rng = np.random.RandomState(9)
    samples = rng.choice([-1.0, 0.0, 1.0], (2, 10)).astype(np.float32)
    matches = rng.randint(0, 5, (2, 10)).astype(np.float32)
    anchors = _rows(2, 10, seed=10)[..., 2:]
    refs = _rows(2, 5, seed=11)[..., 2:]
    means = np.array([0.0, 0.1, 0.0, -0.1], np.float32)
    stds = np.array([0.1, 0.1, 0.2, 0.2], np.float32)
    names = ["samples", "matches", "anchors", "refs", "means", "stds"]
    sym = S.Group(list(S.contrib.box_encode(*[S.var(n) for n in names])))
    arrays = dict(zip(names, [samples, matches, anchors, refs, means, stds]))
    _close(*reversed(_run(sym, arrays, tmp_path)))


def _rois(count, seed, batch=2, size=32.0):
    rng = np.random.RandomState(seed)
    xy = rng.uniform(-4, size, (count, 2))
    wh = rng.uniform(0.3, size / 2, (count, 2))
    idx = rng.randint(0, batch, (count, 1))
    idx[0] = -1                               # MXNet gives zeros for a negative batch index
    return np.concatenate([idx, xy, xy + wh], 1).astype(np.float32)


@pytest.mark.parametrize("opset,aligned,ratio", [(11, False, -1), (17, False, -1), (17, False, 2), (16, True, -1),
                                                 (17, True, 3)])
def test_roi_align(opset, aligned, ratio, tmp_path):
    rng = np.random.RandomState(12)
    data = rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32)
    sym = S.contrib.ROIAlign(S.var("data"), S.var("rois"), pooled_size=(3, 2), spatial_scale=0.5,
                             sample_ratio=ratio, aligned=aligned)
    want, got = _run(sym, {"data": data, "rois": _rois(9, 13)}, tmp_path, opset)
    assert not want[0][0].any() and want[0][1:].any()
    _close(got, want)


def test_roi_align_refusals(tmp_path):
    x, r = S.var("data"), S.var("rois")
    shapes = [(1, 8, 8, 8), (2, 5)]
    for sym, opset, what in [(S.contrib.ROIAlign(x, r, pooled_size=(2, 2), spatial_scale=1.0, aligned=True), 13,
                              "opset 16"),
                             (S.contrib.ROIAlign(x, r, pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True),
                              17, "position_sensitive")]:
        with pytest.raises(MXNetError, match="ROIAlign.*" + what):
            mx.onnx.export_model(sym, {}, shapes, onnx_file_path=str(tmp_path / "m.onnx"), opset_version=opset)


def test_multibox_prior(tmp_path):
    data = np.zeros((1, 4, 5, 6), np.float32)
    sym = S.contrib.MultiBoxPrior(S.var("data"), sizes=(0.3, 0.5), ratios=(1, 2, 0.5), clip=True)
    _close(*reversed(_run(sym, {"data": data}, tmp_path)))


SORTS = [
    ("topk_indices", lambda x: S.topk(x, k=3)),
    ("topk_value_axis1_ascend", lambda x: S.topk(x, axis=1, k=2, ret_typ="value", is_ascend=True)),
    ("topk_both_int", lambda x: S.Group(list(S.topk(x, k=4, ret_typ="both", dtype="int32")))),
    ("topk_mask", lambda x: S.topk(x, axis=0, k=1, ret_typ="mask")),
    ("topk_flat", lambda x: S.topk(x, axis=None, k=5, ret_typ="both")[0]),
    ("topk_all", lambda x: S.topk(x, k=0, ret_typ="value")),
    ("sort", lambda x: S.sort(x, axis=1)),
    ("sort_desc_flat", lambda x: S.sort(x, axis=None, is_ascend=False)),
    ("argsort", lambda x: S.argsort(x, is_ascend=False)),
    ("argsort_int64", lambda x: S.argsort(x, axis=0, dtype="int64")),
]


@pytest.mark.parametrize("name,fn", SORTS, ids=[c[0] for c in SORTS])
def test_sorting(name, fn, tmp_path):
    x = np.random.RandomState(14).permutation(60).reshape(3, 4, 5).astype(np.float32)
    x[0, 0, :2] = x[0, 0, 2]                   # ties keep their order
    _close(*reversed(_run(fn(S.var("x")), {"x": x}, tmp_path)))


SHAPES = [
    ("repeat_axis", lambda x: S.repeat(x, repeats=3, axis=1)),
    ("repeat_last", lambda x: S.repeat(x, repeats=2, axis=-1)),
    ("repeat_flat", lambda x: S.repeat(x, repeats=2)),
    ("reverse", lambda x: S.reverse(x, axis=1)),
    ("reverse_two", lambda x: S.flip(x, axis=(0, 2))),
    ("shape_array", lambda x: S.shape_array(x)),
    ("size_array", lambda x: S.size_array(x)),
]


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("name,fn", SHAPES, ids=[c[0] for c in SHAPES])
def test_shape_operators(name, fn, dynamic, tmp_path):
    x = np.random.RandomState(15).uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    _close(*reversed(_run(fn(S.var("x")), {"x": x}, tmp_path, dynamic=dynamic)))


def _head_params(sym, shape, seed):
    arg_shapes, _, _ = sym.infer_shape(data=shape)
    rng = np.random.RandomState(seed)
    return {n: rng.normal(0, 0.3, s).astype(np.float32) for n, s in zip(sym.list_arguments(), arg_shapes)
            if n != "data"}


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("head", ["ssd", "rcnn"])
def test_detector_heads(head, opset, tmp_path):
    shape = (1, 3, 32, 32) if head == "rcnn" else (2, 3, 32, 32)
    sym = (ssd_head if head == "ssd" else rcnn_head)(S.var("data"))
    data = np.random.RandomState(16).uniform(-1, 1, shape).astype(np.float32)
    params = _head_params(sym, shape, 17)
    want, got = _run(sym, {"data": data}, tmp_path, opset, params=params)
    kinds = {n.op_type for n in onnx.load(str(tmp_path / "m.onnx")).graph.node}
    assert "NonMaxSuppression" in kinds and ("RoiAlign" in kinds) == (head == "rcnn")
    assert (want[0 if head == "rcnn" else 1] != -1).any()
    _close(got, want)


def test_amp_multicast(tmp_path):
    """GluonCV's box decoders cast their inputs to a common dtype with amp_multicast."""
    x = np.random.RandomState(18).uniform(-1, 1, (2, 3)).astype(np.float16)
    y = np.random.RandomState(19).uniform(-1, 1, (2, 3)).astype(np.float32)
    a, b = S.amp_multicast(S.var("x"), S.var("y"), num_outputs=2)
    want, got = _run(S.Group([a * 2, b + 1]), {"x": x, "y": y}, tmp_path)
    assert [g.dtype for g in got] == [np.float32, np.float32]
    _close(got, want)


ROUND_TRIP = [("topk_both_int", 17), ("sort", 13), ("argsort", 11), ("roi_align", 11), ("roi_align_aligned", 17)]


@pytest.mark.parametrize("name,opset", ROUND_TRIP, ids=[c[0] for c in ROUND_TRIP])
def test_round_trip(name, opset, tmp_path):
    """The exported TopK and RoiAlign import back (``import_model``) as topk and ROIAlign."""
    from neogluon.contrib.onnx.onnx2mx.import_model import import_model  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(20)
    if name.startswith("roi_align"):
        sym = S.contrib.ROIAlign(S.var("data"), S.var("rois"), pooled_size=(3, 2), spatial_scale=0.5,
                                 sample_ratio=2, aligned=name.endswith("aligned"))
        rois = _rois(6, 21)
        rois[0, 0] = 1                     # the import needs valid batch indices (ONNX's RoiAlign does)
        arrays = {"data": rng.uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32), "rois": rois}
    else:
        sym = dict(SORTS)[name](S.var("x"))
        arrays = {"x": rng.permutation(60).reshape(3, 4, 5).astype(np.float32)}
    want, _ = _run(sym, arrays, tmp_path, opset)
    imported, arg, aux = import_model(str(tmp_path / "m.onnx"))
    got = imported.eval(**{k: mx.nd.array(v) for k, v in arrays.items()}, **arg, **aux)
    _close([g.asnumpy().astype(w.dtype) for g, w in zip(got, want)], want)


def _multibox_inputs(batch, classes, n, seed):
    """SSD outputs: class probabilities (B, classes, A), offsets (B, A*4) and overlapping anchors (1, A, 4)."""
    rng = np.random.RandomState(seed)
    logits = rng.normal(0, 2, (batch, classes, n))
    prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    xy = rng.uniform(0.05, 0.6, (1, n, 2))
    anchor = np.concatenate([xy, xy + rng.uniform(0.1, 0.4, (1, n, 2))], -1)
    loc = rng.normal(0, 0.5, (batch, n * 4))
    return {"cls_prob": prob.astype(np.float32), "loc_pred": loc.astype(np.float32),
            "anchor": anchor.astype(np.float32)}


MULTIBOX = [
    ("default", dict(), (2, 4, 40)),
    ("force_suppress", dict(force_suppress=True, nms_threshold=0.3), (2, 4, 40)),
    ("nms_topk", dict(nms_topk=8, threshold=0.2), (2, 3, 30)),
    ("threshold_no_clip", dict(threshold=0.3, clip=False, variances=(0.2, 0.1, 0.3, 0.25)), (3, 5, 40)),
    ("no_suppression", dict(nms_threshold=0.0, threshold=0.4), (2, 4, 20)),
    ("background_only", dict(), (2, 1, 10)),
]


@pytest.mark.parametrize("opset", [11, 17])
@pytest.mark.parametrize("name,attrs,shape", MULTIBOX, ids=[m[0] for m in MULTIBOX])
def test_multibox_detection(name, attrs, shape, opset, tmp_path):
    """MultiBoxDetection as decoding + NonMaxSuppression + gathers: the whole (B, A, 6) output
    (kept rows, their order, suppressed rows with class -1, the unsorted rows past nms_topk,
    the -1 rows) equals neogluon's."""
    arrays = _multibox_inputs(*shape, seed=len(name))
    sym = S.contrib.MultiBoxDetection(S.var("cls_prob"), S.var("loc_pred"), S.var("anchor"), **attrs)
    want, got = _run(sym, arrays, tmp_path, opset=opset)
    out = want[0]
    if shape[1] > 1 and attrs.get("nms_threshold", 0.5) > 0:
        assert (out[:, :, 0] >= 0).any() and ((out[:, :, 0] == -1) & (out[:, :, 1] >= 0)).any()  # kept and suppressed
    _close(got, want)


_DET = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "detection")
_DET_CASES = json.load(open(os.path.join(_DET, "cases.json"), encoding="utf-8"))["cases"]
MULTIBOX_RECORDED = sorted(n for n, c in _DET_CASES.items() if c["op"] == "_contrib_MultiBoxDetection"
                           and not c["json_only"])


@pytest.mark.parametrize("case", MULTIBOX_RECORDED)
def test_multibox_detection_recorded(case, tmp_path):
    """MXNet 1.9.1's recorded MultiBoxDetection cases (tools/make_extra_fixtures_detection.py,
    up to 1200 anchors) exported and run in ONNX Runtime: MXNet's recorded output."""
    spec, arrays = _DET_CASES[case], np.load(os.path.join(_DET, "cases.npz"))
    ins = {n: arrays["%s/in:%s" % (case, n)] for n in spec["inputs"]}
    attrs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["attrs"].items()}
    sym = S.contrib.MultiBoxDetection(*[S.var(n) for n in spec["inputs"]], **attrs)
    want, got = _run(sym, ins, tmp_path)
    _close(want, [arrays["%s/out:0" % case]])
    _close(got, [arrays["%s/out:0" % case]])


def test_multibox_detection_iou_at_threshold(tmp_path):
    """MXNet suppresses at ``iou >= nms_threshold`` (ONNX at ``>``): two boxes of IoU exactly 0.5."""
    anchor = np.array([[[0, 0, .5, .5], [0, 0, .25, .5], [.5, .5, 1, 1]]], np.float32)
    prob = np.array([[[.1, .2, .3], [.9, .8, .7]]], np.float32)
    arrays = {"cls_prob": prob, "loc_pred": np.zeros((1, 12), np.float32), "anchor": anchor}
    sym = S.contrib.MultiBoxDetection(S.var("cls_prob"), S.var("loc_pred"), S.var("anchor"), nms_threshold=0.5)
    want, got = _run(sym, arrays, tmp_path)
    assert want[0][:, :, 0].tolist() == [[0, -1, 0]]          # the second box suppressed at IoU 0.5
    _close(got, want)


def test_multibox_detection_dynamic_batch(tmp_path):
    """With dynamic=True the batch stays free (the anchors' count is the graph's)."""
    sym = S.contrib.MultiBoxDetection(S.var("cls_prob"), S.var("loc_pred"), S.var("anchor"), nms_topk=10)
    names = ("cls_prob", "loc_pred", "anchor")
    first = _multibox_inputs(2, 4, 30, 3)
    path = mx.onnx.export_model(sym, {}, [first[k].shape for k in names], [np.float32] * 3,
                                str(tmp_path / "m.onnx"), dynamic=True)
    onnx.checker.check_model(path, full_check=True)
    for batch in (2, 5):
        arrays = _multibox_inputs(batch, 4, 30, batch)
        want = onnx_cases.reference(sym, arrays, {})
        _close(ort_run(path, [arrays[k] for k in names]), want)
