"""Detection and spatial operators against MXNet 1.9.1: box_nms/box_iou/box_encode/box_decode,
bipartite_matching, MultiBoxPrior/Target/Detection, Proposal/MultiProposal, ROIAlign,
ROIPooling, PSROIPooling, DeformablePSROIPooling, the deformable convolutions,
BilinearSampler, GridGenerator, SpatialTransformer, Correlation and Crop.

Every recorded case (tools/make_extra_fixtures_detection.py, tests/fixtures/extra/detection/)
is replayed three ways: imperatively (``mx.nd``), through MXNet's ``-symbol.json`` read by
``sym.load_json`` and ``bind``, and inside a hybridized block; outputs and the gradients for
the recorded head gradients must match MXNet's, and the JSON must be written back as MXNet
wrote it.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.ndarray.ndarray import invoke
from neogluon.operator import registry

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "detection")
MANIFEST = json.load(open(os.path.join(HERE, "cases.json")))["cases"]
ARRAYS = np.load(os.path.join(HERE, "cases.npz"))
RTOL, ATOL = 1e-4, 1e-5
VALUE_CASES = sorted(n for n, c in MANIFEST.items() if not c["json_only"])
for _spec in MANIFEST.values():  # JSON turned the generator's tuples into lists
    _spec["attrs"] = {k: tuple(v) if isinstance(v, list) else v for k, v in _spec["attrs"].items()}


def fixture(case, key):
    return ARRAYS["%s/%s" % (case, key)]


def inputs_of(case):
    return [mx.nd.array(fixture(case, "in:" + n), dtype=fixture(case, "in:" + n).dtype)
            for n in MANIFEST[case]["inputs"]]


def heads_of(case, count):
    return [mx.nd.array(fixture(case, "head:%d" % i), dtype=fixture(case, "head:%d" % i).dtype)
            for i in range(count)]


def check(actual, expected, what):
    a = actual.asnumpy()
    assert a.shape == expected.shape, "%s: shape %s, MXNet gave %s" % (what, a.shape, expected.shape)
    assert a.dtype == expected.dtype, "%s: dtype %s, MXNet gave %s" % (what, a.dtype, expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), expected.astype(np.float64), rtol=RTOL, atol=ATOL,
                               err_msg=what)


def check_outputs_and_grads(case, outs, grads):
    spec = MANIFEST[case]
    assert len(outs) == spec["outputs"]
    for i, o in enumerate(outs):
        check(o, fixture(case, "out:%d" % i), "%s output %d" % (case, i))
    for name, g in zip(spec["grads"], grads):
        check(g, fixture(case, "grad:" + name), "%s gradient of %s" % (case, name))


@pytest.mark.parametrize("case", VALUE_CASES)
def test_imperative(case):
    spec = MANIFEST[case]
    inputs = inputs_of(case)
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            x.attach_grad()
    with mx.autograd.record():
        out = invoke(spec["op"], inputs, spec["attrs"])
    outs = out if isinstance(out, list) else [out]
    if spec["grads"]:
        mx.autograd.backward(outs, heads_of(case, len(outs)))
    grads = [x.grad for name, x in zip(spec["inputs"], inputs) if name in spec["grads"]]
    check_outputs_and_grads(case, outs, grads)


@pytest.mark.parametrize("case", VALUE_CASES)
def test_symbol_bind(case):
    spec = MANIFEST[case]
    sym = mx.sym.load_json(spec["json"])
    args = dict(zip(spec["inputs"], inputs_of(case)))
    grads = {n: mx.nd.zeros(args[n].shape, dtype=args[n].dtype) for n in spec["grads"]}
    exe = sym.bind(mx.cpu(), args, args_grad=grads or None,
                   grad_req={n: ("write" if n in grads else "null") for n in args})
    outs = exe.forward(is_train=bool(grads))
    if grads:
        exe.backward(heads_of(case, len(outs)))
    check_outputs_and_grads(case, outs, [grads[n] for n in spec["grads"]])


class _OneOp(mx.gluon.HybridBlock):
    def __init__(self, op, attrs):
        super().__init__()
        self._op, self._attrs = op, attrs

    def hybrid_forward(self, F, *xs):
        if self._op.startswith("_contrib_"):
            fn = getattr(F.contrib, self._op[len("_contrib_"):])
        else:
            fn = getattr(F, self._op)
        return fn(*xs, **self._attrs)


@pytest.mark.parametrize("case", VALUE_CASES)
def test_hybridized(case):
    spec = MANIFEST[case]
    block = _OneOp(spec["op"], spec["attrs"])
    block.hybridize()
    inputs = inputs_of(case)
    for name, x in zip(spec["inputs"], inputs):
        if name in spec["grads"]:
            x.attach_grad()
    with mx.autograd.record():
        out = block(*inputs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if spec["grads"]:
        mx.autograd.backward(outs, heads_of(case, len(outs)))
    grads = [x.grad for name, x in zip(spec["inputs"], inputs) if name in spec["grads"]]
    check_outputs_and_grads(case, outs, grads)


@pytest.mark.parametrize("case", sorted(MANIFEST))
def test_json_round_trip(case):
    spec = MANIFEST[case]
    theirs = json.loads(spec["json"])
    sym = mx.sym.load_json(spec["json"])
    ours = json.loads(sym.tojson())
    assert [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in ours["nodes"]] == \
        [(n["op"], n["name"], n.get("attrs", {}), n["inputs"]) for n in theirs["nodes"]]
    assert ours["heads"] == theirs["heads"]
    assert sym.list_outputs() == spec["output_names"]
    # the same graph built through mx.sym writes the same JSON
    fn = (getattr(mx.sym.contrib, spec["op"][len("_contrib_"):]) if spec["op"].startswith("_contrib_")
          else getattr(mx.sym, spec["op"]))
    built = json.loads(fn(*[mx.sym.var(n) for n in spec["inputs"]], name="op", **spec["attrs"]).tojson())
    assert [(n["op"], n["name"], n.get("attrs", {})) for n in built["nodes"]] == \
        [(n["op"], n["name"], n.get("attrs", {})) for n in theirs["nodes"]]


@pytest.mark.parametrize("case", VALUE_CASES)
def test_shape_inference(case):
    spec = MANIFEST[case]
    sym = mx.sym.load_json(spec["json"])
    shapes = {n: fixture(case, "in:" + n).shape for n in spec["inputs"]}
    _, out_shapes, _ = sym.infer_shape(**shapes)
    assert [tuple(s) for s in out_shapes] == [fixture(case, "out:%d" % i).shape for i in range(spec["outputs"])]


def test_aliases():
    assert registry.get("_contrib_box_non_maximum_suppression") is registry.get("_contrib_box_nms")
    for npx, name in (("_npx_multibox_prior", "_contrib_MultiBoxPrior"),
                      ("_npx_multibox_target", "_contrib_MultiBoxTarget"),
                      ("_npx_multibox_detection", "_contrib_MultiBoxDetection")):
        assert registry.get(npx) is registry.get(name)


# ----------------------------------------------------------------------------- schema
# attribute names in MXNet 1.9.1's order (MXSymbolGetAtomicSymbolInfo of the reference build)
MXNET_PARAMS = {
    '_contrib_box_nms': ('overlap_thresh', 'valid_thresh', 'topk', 'coord_start', 'score_index', 'id_index',
                         'background_id', 'force_suppress', 'in_format', 'out_format'),
    '_contrib_box_iou': ('format',),
    '_contrib_box_encode': (),
    '_contrib_box_decode': ('std0', 'std1', 'std2', 'std3', 'clip', 'format'),
    '_contrib_bipartite_matching': ('is_ascend', 'threshold', 'topk'),
    '_contrib_MultiBoxPrior': ('sizes', 'ratios', 'clip', 'steps', 'offsets'),
    '_contrib_MultiBoxTarget': ('overlap_threshold', 'ignore_label', 'negative_mining_ratio', 'negative_mining_thresh',
                                'minimum_negative_samples', 'variances'),
    '_contrib_MultiBoxDetection': ('clip', 'threshold', 'background_id', 'nms_threshold', 'force_suppress',
                                   'variances', 'nms_topk'),
    '_contrib_ROIAlign': ('pooled_size', 'spatial_scale', 'sample_ratio', 'position_sensitive', 'aligned'),
    'ROIPooling': ('pooled_size', 'spatial_scale'),
    '_contrib_Proposal': ('rpn_pre_nms_top_n', 'rpn_post_nms_top_n', 'threshold', 'rpn_min_size', 'scales', 'ratios',
                          'feature_stride', 'output_score', 'iou_loss'),
    '_contrib_MultiProposal': ('rpn_pre_nms_top_n', 'rpn_post_nms_top_n', 'threshold', 'rpn_min_size', 'scales',
                               'ratios', 'feature_stride', 'output_score', 'iou_loss'),
    '_contrib_PSROIPooling': ('spatial_scale', 'output_dim', 'pooled_size', 'group_size'),
    '_contrib_DeformablePSROIPooling': ('spatial_scale', 'output_dim', 'group_size', 'pooled_size', 'part_size',
                                        'sample_per_part', 'trans_std', 'no_trans'),
    '_contrib_DeformableConvolution': ('kernel', 'stride', 'dilate', 'pad', 'num_filter', 'num_group',
                                       'num_deformable_group', 'workspace', 'no_bias', 'layout'),
    '_contrib_ModulatedDeformableConvolution': ('kernel', 'stride', 'dilate', 'pad', 'num_filter', 'num_group',
                                                'num_deformable_group', 'workspace', 'no_bias', 'im2col_step',
                                                'layout'),
    'BilinearSampler': ('cudnn_off',),
    'GridGenerator': ('transform_type', 'target_shape'),
    'SpatialTransformer': ('target_shape', 'transform_type', 'sampler_type', 'cudnn_off'),
    'Correlation': ('kernel_size', 'max_displacement', 'stride1', 'stride2', 'pad_size', 'is_multiply'),
    'Crop': ('num_args', 'offset', 'h_w', 'center_crop'),
    '_contrib_SyncBatchNorm': ('eps', 'momentum', 'fix_gamma', 'use_global_stats', 'output_mean_var', 'ndev', 'key'),
    '_contrib_AdaptiveAvgPooling2D': ('output_size',),
    '_contrib_BilinearResize2D': ('height', 'width', 'scale_height', 'scale_width', 'mode', 'align_corners'),
}


@pytest.mark.parametrize("name", sorted(MXNET_PARAMS))
def test_attribute_names_match_mxnet(name):
    assert registry.get(name).param_names == MXNET_PARAMS[name]


def test_float_tuple_attributes_read_mxnet_strings():
    op = registry.get("_contrib_MultiBoxPrior")
    attrs = op.parse_attrs({"sizes": "(0.5, 0.25)", "ratios": "[1, 2]", "steps": "(-1.0, -1.0)", "clip": "True"})
    assert attrs["sizes"] == (0.5, 0.25) and attrs["ratios"] == (1.0, 2.0) and attrs["clip"] is True
    assert op.parse_attrs({"sizes": 0.3})["sizes"] == (0.3,)
    with pytest.raises(mx.base.MXNetError, match="sizes"):
        op.parse_attrs({"sizes": "big"})


def test_namespaces():
    x = mx.nd.ones((1, 3, 4, 5))
    assert mx.nd.contrib.MultiBoxPrior(x, sizes=(0.5, 0.2)).shape == (1, 40, 4)
    assert mx.sym.contrib.box_nms(mx.sym.var("d"), name="nms").list_outputs() == ["nms_output0"]
    assert mx.nd.contrib.box_non_maximum_suppression(mx.nd.ones((2, 6))).shape == (2, 6)
    assert mx.nd.Crop(x, num_args=1, h_w=(2, 2)).shape == (1, 3, 2, 2)


# ----------------------------------------------------------------------------- NMS paths
@pytest.mark.parametrize("plus, inclusive, with_classes", [(0.0, False, False), (1.0, False, True),
                                                           (0.0, True, True)])
def test_banded_nms_equals_dense_nms(plus, inclusive, with_classes):
    """The banded pair enumeration (large inputs) and the dense IoU matrix (small ones) keep
    the same boxes; ties in left edges and touching boxes included."""
    import torch
    from neogluon.operator import detection
    rng = np.random.RandomState(7)
    xy = rng.randint(0, 60, (1500, 2)).astype(np.float32)
    b = torch.tensor(np.concatenate([xy, xy + rng.randint(1, 12, (1500, 2))], 1), dtype=torch.float32)
    classes = torch.tensor(rng.randint(0, 3, 1500), dtype=torch.float32) if with_classes else None
    src, dst = detection._suppressing_pairs(b, 0.3, classes, plus, inclusive)
    keep = torch.ones(1500, dtype=torch.bool)
    while True:
        hit = torch.zeros(1500, dtype=torch.bool)
        hit[dst[keep[src]]] = True
        if torch.equal(~hit, keep):
            break
        keep = ~hit
    assert torch.equal(keep, detection._dense_keep(b, 0.3, classes, plus, inclusive))
    assert torch.equal(keep, detection.nms_keep(b, 0.3, classes, plus, inclusive))


def test_box_nms_on_empty_and_invalid_input():
    out = mx.nd.contrib.box_nms(mx.nd.array(np.zeros((3, 6), np.float32)), valid_thresh=0.5)
    assert (out.asnumpy() == -1).all()
    with pytest.raises(mx.base.MXNetError, match="_contrib_box_nms.*coord_start=4"):
        mx.nd.contrib.box_nms(mx.nd.ones((3, 6)), coord_start=4)



# rows [id, score, x1, y1, x2, y2]: class -2 and class -1 (GluonCV's padding id) rows among real ones
_BG_ROWS = [[0, 0.9, 10, 10, 50, 50], [-2, 0.8, 60, 60, 70, 70], [1, 0.7, 10, 10, 50, 50], [-1, 0.5, 0, 0, 1, 1],
            [3, 0.4, 80, 80, 90, 90]]


@pytest.mark.parametrize("attrs,ids,scores", [
    # the (id, score) columns MXNet 1.9.1 returns: with id_index set, the rows of class
    # background_id are dropped, the default -1 included; without id_index, none are
    (dict(id_index=0), [0, -2, 1, 3, -1], [0.9, 0.8, 0.7, 0.4, -1]),
    (dict(id_index=0, background_id=-2), [0, 1, -1, 3, -1], [0.9, 0.7, 0.5, 0.4, -1]),
    (dict(id_index=0, background_id=3), [0, -2, 1, -1, -1], [0.9, 0.8, 0.7, 0.5, -1]),
    (dict(id_index=0, force_suppress=True), [0, -2, 3, -1, -1], [0.9, 0.8, 0.4, -1, -1]),
    (dict(background_id=3), [0, -2, -1, 3, -1], [0.9, 0.8, 0.5, 0.4, -1]),
])
def test_box_nms_drops_the_background_class(attrs, ids, scores):
    out = mx.nd.contrib.box_nms(mx.nd.array(_BG_ROWS), overlap_thresh=0.5, score_index=1, coord_start=2,
                                **attrs).asnumpy()
    assert out[:, 0].tolist() == ids
    np.testing.assert_allclose(out[:, 1], scores, rtol=1e-6)


# ----------------------------------------------------------------------------- ModulatedDeformableConvolution
def test_modulated_deformable_convolution_samples_by_dcnv2_rule():
    """MXNet 1.9.1's CPU forward (its backward is GPU-only) samples by DCNv2's bilinear rule,
    not DeformableConvolution's: any position inside (-1, size), each corner outside the
    image reading 0. Offsets up to 2 pixels move taps across the borders of a 3x4 image, two
    deformable groups; the expected values are MXNet 1.9.1's."""
    rng = np.random.RandomState(7)
    data = rng.uniform(-1, 1, (1, 2, 3, 4)).round(2)
    offset = rng.uniform(-2, 2, (1, 36, 3, 4)).round(2)
    mask = rng.uniform(0, 1, (1, 18, 3, 4)).round(2)
    weight = rng.uniform(-1, 1, (2, 2, 3, 3)).round(2)
    out = mx.nd.contrib.ModulatedDeformableConvolution(*[mx.nd.array(a) for a in (data, offset, mask, weight)],
                                                       kernel=(3, 3), pad=(1, 1), num_filter=2,
                                                       num_deformable_group=2, no_bias=True)
    want = [[[-0.15274, -0.16313, -0.17708, -0.3429], [-0.47737, 0.26081, -0.11928, -0.17183],
             [-0.26138, -0.12122, 0.08086, 0.03952]],
            [[-0.11718, 0.15036, 0.57065, -0.19566], [0.40754, 0.21571, 0.27623, -0.09392],
             [0.27435, 0.22854, 0.011, -0.40637]]]
    np.testing.assert_allclose(out.asnumpy()[0], want, atol=1e-5)


def test_modulated_deformable_convolution_is_linear_in_the_mask_with_its_gradients():
    """With a mask of ones away from the borders it is DeformableConvolution (checked
    against MXNet above); it is linear in the mask, and the mask's and offset's gradients
    are the forward's finite differences."""
    case = "deformable_conv"
    data, offset, weight, bias = inputs_of(case)
    attrs = dict(kernel=(3, 3), pad=(1, 1), num_filter=6)
    mask = mx.nd.array(np.random.RandomState(3).uniform(0, 1, (2, 9, 6, 7)))
    nobias = dict(attrs, no_bias=True)
    half = mx.nd.contrib.ModulatedDeformableConvolution(data, offset, mask * 0.5, weight, **nobias)
    full = mx.nd.contrib.ModulatedDeformableConvolution(data, offset, mask, weight, **nobias)
    np.testing.assert_allclose(half.asnumpy() * 2, full.asnumpy(), rtol=1e-5, atol=1e-5)
    interior = (slice(None), slice(None), slice(2, 4), slice(2, 5))  # taps inside the image either way
    ones = mx.nd.ones((2, 9, 6, 7))
    plain = mx.nd.contrib.ModulatedDeformableConvolution(data, offset * 0.3, ones, weight, bias, **attrs)
    v1 = mx.nd.contrib.DeformableConvolution(data, offset * 0.3, weight, bias, **attrs)
    np.testing.assert_allclose(plain.asnumpy()[interior], v1.asnumpy()[interior], rtol=1e-5, atol=1e-5)
    mask.attach_grad()
    offset.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.ModulatedDeformableConvolution(data, offset, mask, weight, **nobias)
    out.backward(mx.nd.ones_like(out))
    for arr, at in ((mask, (1, 4, 2, 3)), (offset, (0, 7, 3, 3))):
        eps = 1e-2 if arr is mask else 1e-3
        bumped = arr.asnumpy().copy()
        bumped[at] += eps
        args = (data, mx.nd.array(bumped), mask) if arr is offset else (data, offset, mx.nd.array(bumped))
        moved = mx.nd.contrib.ModulatedDeformableConvolution(*args, weight, **nobias)
        numeric = (moved.asnumpy().astype(np.float64).sum() - out.asnumpy().astype(np.float64).sum()) / eps
        np.testing.assert_allclose(arr.grad.asnumpy()[at], numeric, rtol=2e-2, atol=2e-3)


def test_deformable_convolution_infers_weight_and_bias():
    sym = mx.sym.contrib.DeformableConvolution(mx.sym.var("data"), mx.sym.var("offset"), kernel=(3, 3),
                                               num_filter=5, num_group=2, name="dc")
    args, outs, _ = sym.infer_shape(data=(2, 4, 6, 7), offset=(2, 18, 4, 5))
    assert dict(zip(sym.list_arguments(), args)) == {"data": (2, 4, 6, 7), "offset": (2, 18, 4, 5),
                                                     "dc_weight": (5, 2, 3, 3), "dc_bias": (5,)}
    assert outs == [(2, 5, 4, 5)]


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call, message", [
    (lambda: mx.nd.contrib.ROIAlign(mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((3, 4)), pooled_size=(2, 2),
                                    spatial_scale=1.0), r"_contrib_ROIAlign.*rois \(3, 4\)"),
    (lambda: mx.nd.Crop(mx.nd.ones((1, 1, 4, 4)), num_args=1, h_w=(5, 2)), r"Crop.*\(1, 1, 4, 4\)"),
    (lambda: mx.nd.BilinearSampler(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 3, 4, 4))), "BilinearSampler.*grid"),
    (lambda: mx.nd.contrib.MultiBoxDetection(mx.nd.ones((1, 3, 5)), mx.nd.ones((1, 16)), mx.nd.ones((1, 5, 4))),
     r"_contrib_MultiBoxDetection.*loc_pred"),
    (lambda: mx.nd.contrib.PSROIPooling(mx.nd.ones((1, 5, 4, 4)), mx.nd.ones((1, 5)), spatial_scale=1.0,
                                        output_dim=2, pooled_size=2), "_contrib_PSROIPooling.*channels"),
    (lambda: mx.nd.contrib.DeformableConvolution(mx.nd.ones((1, 2, 5, 5)), mx.nd.ones((1, 18, 4, 4)),
                                                 mx.nd.ones((3, 2, 3, 3)), kernel=(3, 3), num_filter=3,
                                                 no_bias=True), r"offset must be \(1, 18, 3, 3\)"),
])
def test_errors_name_operator_and_shapes(call, message):
    with pytest.raises(mx.base.MXNetError, match=message):
        call()


def test_serial_restores_torch_threads_across_concurrent_holders():
    """Detection kernels run on one torch thread; the process-wide count comes back however
    the holders in several threads interleave."""
    import threading
    import torch
    from neogluon.operator.detection import serial
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        entered, release = threading.Barrier(3), threading.Event()

        def hold():
            with serial():
                assert torch.get_num_threads() == 1
                entered.wait()
                release.wait()

        workers = [threading.Thread(target=hold) for _ in range(2)]
        for w in workers:
            w.start()
        entered.wait()
        release.set()
        for w in workers:
            w.join()
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_multibox_detection_top_order_matches_stable_sort():
    """MultiBoxDetection's top-k order (topk, or with ties the k-th score's choice and a sort
    of the k) is the stable sort MXNet's order is, ties included."""
    import torch
    from neogluon.operator import detection
    rng = np.random.RandomState(3)
    tied = torch.from_numpy(rng.randint(0, 6, (3, 50)).astype("float32"))  # many ties
    tied[1, :7] = -np.inf
    distinct = torch.from_numpy(np.stack([rng.permutation(50) for _ in range(3)]).astype("float32"))
    for scores in (tied, distinct):
        want = torch.sort(scores, dim=1, descending=True, stable=True).indices
        for k in (1, 5, 17, 49, 50, 0, -1):
            got = detection._top_order(scores, k)
            assert torch.equal(got, want if k <= 0 or k >= 50 else want[:, :k]), k


def _multibox_detection_loops(prob, loc, anchors, threshold, nms_threshold, nms_topk, force, variances):
    """MultiBoxDetection written as MXNet's CPU kernel's loops (one image at a time): the
    best non-background class of each anchor, the valid anchors in anchor order, the first
    nms_topk of a stable sort by score, greedy suppression at ``iou >= nms_threshold``."""
    import torch
    from neogluon.operator import detection
    batch, classes, count = prob.shape
    boxes = detection._decode_variances(torch.from_numpy(anchors[0]), torch.from_numpy(loc).reshape(batch, -1, 4),
                                        variances, True, torch.empty(batch, count, 4)).numpy()
    out = np.full((batch, count, 6), -1, np.float32)
    for b in range(batch):
        rows = []
        for i in range(count):
            cid = int(np.argmax(prob[b, 1:, i]))
            if prob[b, cid + 1, i] >= threshold:
                rows.append([cid, prob[b, cid + 1, i]] + list(boxes[b, i]))
        rows = np.array(rows, np.float32).reshape(-1, 6)
        if len(rows) and 0 < nms_threshold <= 1:
            keep = nms_topk if 0 < nms_topk < len(rows) else len(rows)
            best = rows[sorted(range(len(rows)), key=lambda r: -rows[r, 1])[:keep]]
            rows[keep:, 0] = -1
            iou = detection.iou_matrix(torch.from_numpy(best[:, 2:]), torch.from_numpy(best[:, 2:])).numpy()
            for i in range(keep):
                for j in range(i + 1, keep):
                    if best[i, 0] >= 0 and best[j, 0] >= 0 and (force or best[i, 0] == best[j, 0]):
                        if iou[i, j] >= nms_threshold:
                            best[j, 0] = -1
            rows[:keep] = best
        out[b, :len(rows)] = rows
    return out


@pytest.mark.parametrize("threshold, nms_topk, force", [(0.01, -1, False), (0.01, 25, True), (0.3, 25, False),
                                                       (0.3, 400, False), (0.45, -1, True)])
def test_multibox_detection_equals_mxnet_loops(threshold, nms_topk, force):
    """The vectorised MultiBoxDetection (rows compacted only when some anchors are not valid,
    topk's order unless scores tie, one NMS for the batch) gives MXNet's loops' rows: valid
    anchors all or some, nms_topk below and above their count, tied scores."""
    rng = np.random.RandomState(5)
    logits = rng.randint(-4, 4, (3, 6, 300)).astype(np.float32) / 2    # tied scores
    prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    loc = rng.uniform(-0.5, 0.5, (3, 1200)).astype(np.float32)
    xy = rng.uniform(0, 0.8, (300, 2))
    anchors = np.concatenate([xy, xy + rng.uniform(0.05, 0.3, (300, 2))], 1).astype(np.float32)[None]
    variances = (0.1, 0.1, 0.2, 0.2)
    want = _multibox_detection_loops(prob, loc, anchors, threshold, 0.45, nms_topk, force, variances)
    got = mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors),
                                          threshold=threshold, nms_threshold=0.45, nms_topk=nms_topk,
                                          force_suppress=force).asnumpy()
    np.testing.assert_array_equal(got, want)
