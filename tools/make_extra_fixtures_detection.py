"""Record MXNet 1.9.1's answers for the detection and spatial operators (boxes, NMS,
MultiBox*, Proposal, ROIAlign, PSROIPooling, the deformable convolutions, the spatial
transformer family, Correlation and Crop).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_detection.py

It writes tests/fixtures/extra/detection/:

- ``cases.json``: for each case its operator, attributes (Python values, as a user passes
  them), input names, the inputs that have gradients, the number of outputs and the
  ``-symbol.json`` MXNet writes for a one-operator graph on variables named as the inputs;
- ``cases.npz``: ``<case>/in:<name>``, ``<case>/out:<i>``, ``<case>/head:<i>`` and
  ``<case>/grad:<name>``: inputs, train-mode outputs, the head gradients (fixed random
  values) and the gradients MXNet gives the inputs.

``tests/test_ops_detection.py`` replays each case imperatively, through ``sym.load_json``
+ ``bind`` and in a hybridized block.
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "detection")
RNG = np.random.RandomState(20261124)
CASES = []


def rand(*shape, low=-1.0, high=1.0, dtype="float32"):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def case(name, op, inputs, grads=(), json_only=False, **attrs):
    """``inputs``: (name, array) pairs in the operator's order; ``grads``: inputs to differentiate.
    ``json_only``: MXNet's CPU build has no kernel for the operator; only its JSON is recorded."""
    CASES.append(dict(name=name, op=op, inputs=inputs, attrs=attrs, grads=list(grads), json_only=json_only))


def namespace(module, op):
    if op.startswith("_contrib_"):
        return getattr(module.contrib, op[len("_contrib_"):])
    return getattr(module, op)


# ----------------------------------------------------------------------------- boxes
def corner_boxes(n, extent=20.0, low=2.0, high=8.0):
    xy = RNG.uniform(0, extent, (n, 2))
    wh = RNG.uniform(low, high, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype("float32")


def center_of(corner):
    wh = corner[..., 2:] - corner[..., :2]
    return np.concatenate([corner[..., :2] + wh / 2, wh], -1).astype("float32")


def detections(n, classes=3, extent=20.0):
    """Rows (id, score, x1, y1, x2, y2) with distinct scores."""
    ids = RNG.randint(0, classes, (n, 1)).astype("float32")
    scores = RNG.permutation(n).reshape(n, 1).astype("float32") / n + 0.01
    return np.concatenate([ids, scores, corner_boxes(n, extent)], 1).astype("float32")


def box_cases():
    d = detections(24)
    case("box_nms_default", "_contrib_box_nms", [("data", d)], grads=["data"])
    case("box_nms_valid_thresh", "_contrib_box_nms", [("data", d)], grads=["data"],
         overlap_thresh=0.3, valid_thresh=0.4)
    case("box_nms_topk", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.2, topk=6)
    case("box_nms_id_index", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.1, id_index=0)
    case("box_nms_force_suppress", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.1,
         id_index=0, force_suppress=True)
    case("box_nms_background", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.1, id_index=0,
         background_id=1)
    case("box_nms_background_no_id", "_contrib_box_nms", [("data", d)], overlap_thresh=0.1, background_id=1)
    dc = d.copy()
    dc[:, 2:] = center_of(d[:, 2:])
    case("box_nms_center_in", "_contrib_box_nms", [("data", dc)], grads=["data"], overlap_thresh=0.2,
         in_format="center")
    case("box_nms_center_to_corner", "_contrib_box_nms", [("data", dc)], grads=["data"], overlap_thresh=0.2,
         in_format="center", out_format="corner")
    case("box_nms_corner_to_center", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.2,
         out_format="center")
    # other column layouts: (x1, y1, x2, y2, score, id) and extra columns
    perm = np.concatenate([d[:, 2:6], d[:, 1:2], d[:, 0:1], rand(24, 1)], 1)
    case("box_nms_layout", "_contrib_box_nms", [("data", perm)], grads=["data"], overlap_thresh=0.15,
         coord_start=0, score_index=4, id_index=5, topk=10, valid_thresh=0.1)
    batch = np.stack([np.stack([detections(10) for _ in range(3)]) for _ in range(2)])
    case("box_nms_batch_dims", "_contrib_box_nms", [("data", batch)], grads=["data"], overlap_thresh=0.25,
         id_index=0)
    tie = detections(8)
    tie[:, 1] = np.array([0.5, 0.9, 0.5, 0.9, 0.2, 0.5, 0.9, 0.1], "float32")
    case("box_nms_ties", "_contrib_box_nms", [("data", tie)], grads=["data"], overlap_thresh=0.5)
    case("box_nms_alias", "_contrib_box_non_maximum_suppression", [("data", d)], overlap_thresh=0.3)
    case("box_nms_float64", "_contrib_box_nms", [("data", d.astype("float64"))], grads=["data"],
         overlap_thresh=0.3)

    a, b = corner_boxes(5), corner_boxes(4)
    case("box_iou_corner", "_contrib_box_iou", [("lhs", a), ("rhs", b)], grads=["lhs", "rhs"])
    case("box_iou_center", "_contrib_box_iou", [("lhs", center_of(a)), ("rhs", center_of(b))],
         grads=["lhs", "rhs"], format="center")
    case("box_iou_nd", "_contrib_box_iou", [("lhs", corner_boxes(6).reshape(2, 3, 4)),
                                            ("rhs", corner_boxes(4).reshape(2, 2, 4))])

    anchors = corner_boxes(2 * 6, extent=10.0).reshape(2, 6, 4)
    refs = corner_boxes(2 * 3, extent=10.0).reshape(2, 3, 4)
    samples = np.array([[1, 0, -1, 1, 1, 0], [0, 1, 1, -1, 1, 1]], "float32")
    matches = np.array([[0, 2, 1, 2, 1, 0], [1, 0, 2, 2, 1, 0]], "float32")
    case("box_encode", "_contrib_box_encode",
         [("samples", samples), ("matches", matches), ("anchors", anchors), ("refs", refs),
          ("means", np.array([0.1, -0.1, 0.0, 0.2], "float32")), ("stds", np.array([0.1, 0.1, 0.2, 0.2], "float32"))])

    loc = rand(2, 6, 4, low=-0.5, high=0.5)
    case("box_decode_center", "_contrib_box_decode", [("data", loc), ("anchors", center_of(anchors[:1]))],
         grads=["data", "anchors"])
    case("box_decode_corner_std_clip", "_contrib_box_decode", [("data", loc * 8), ("anchors", anchors[:1])],
         grads=["data", "anchors"], std0=0.1, std1=0.1, std2=0.2, std3=0.2, clip=0.5, format="corner")

    scores = RNG.permutation(30).reshape(1, 5, 6).astype("float32") / 30
    case("bipartite_matching", "_contrib_bipartite_matching", [("data", scores)], threshold=0.1)
    case("bipartite_matching_ascend_topk", "_contrib_bipartite_matching", [("data", scores)], threshold=0.8,
         is_ascend=True, topk=3)
    case("bipartite_matching_batch", "_contrib_bipartite_matching",
         [("data", np.stack([RNG.permutation(12).reshape(4, 3) for _ in range(3)]).astype("float32"))],
         threshold=2.5)


# ----------------------------------------------------------------------------- MultiBox
def multibox_cases():
    fm = rand(2, 3, 4, 5)
    case("multibox_prior_default", "_contrib_MultiBoxPrior", [("data", fm)], grads=["data"])
    case("multibox_prior_sizes_ratios", "_contrib_MultiBoxPrior", [("data", fm)], sizes=(0.5, 0.25, 0.1),
         ratios=(1, 2, 0.5), clip=True)
    case("multibox_prior_steps_offsets", "_contrib_MultiBoxPrior", [("data", fm)], sizes=(0.3,), ratios=(1, 3),
         steps=(0.2, 0.25), offsets=(0.2, 0.7))

    anchors = (corner_boxes(20, extent=0.8, low=0.05, high=0.3)).reshape(1, 20, 4)
    labels = np.full((2, 4, 5), -1, "float32")
    labels[0, :3] = np.concatenate([[[0], [2], [1]], corner_boxes(3, extent=0.7, low=0.1, high=0.3)], 1)
    labels[1, :2] = np.concatenate([[[1], [0]], corner_boxes(2, extent=0.7, low=0.1, high=0.3)], 1)
    cls_pred = rand(2, 4, 20)
    ins = [("anchor", anchors), ("label", labels), ("cls_pred", cls_pred)]
    case("multibox_target_default", "_contrib_MultiBoxTarget", ins, grads=["cls_pred"])
    case("multibox_target_threshold", "_contrib_MultiBoxTarget", ins, overlap_threshold=0.2,
         variances=(0.2, 0.2, 0.1, 0.1))
    case("multibox_target_mining", "_contrib_MultiBoxTarget", ins, overlap_threshold=0.3,
         negative_mining_ratio=2, negative_mining_thresh=0.4, ignore_label=-2)
    case("multibox_target_mining_minimum", "_contrib_MultiBoxTarget", ins, overlap_threshold=0.3,
         negative_mining_ratio=1, minimum_negative_samples=7)
    empty = np.full((1, 3, 5), -1, "float32")
    case("multibox_target_no_labels", "_contrib_MultiBoxTarget", [("anchor", anchors), ("label", empty),
                                                                 ("cls_pred", cls_pred[:1])])

    a = corner_boxes(30, extent=0.8, low=0.1, high=0.3).reshape(1, 30, 4)
    logits = rand(2, 4, 30, low=-2, high=2)
    prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    locp = rand(2, 120, low=-0.5, high=0.5)
    ins = [("cls_prob", prob.astype("float32")), ("loc_pred", locp), ("anchor", a)]
    case("multibox_detection_default", "_contrib_MultiBoxDetection", ins, grads=["cls_prob", "loc_pred"])
    case("multibox_detection_no_clip", "_contrib_MultiBoxDetection", ins, clip=False, threshold=0.3,
         nms_threshold=0.3)
    case("multibox_detection_force", "_contrib_MultiBoxDetection", ins, force_suppress=True, nms_threshold=0.2,
         nms_topk=10, variances=(0.2, 0.2, 0.3, 0.3))
    case("multibox_detection_background", "_contrib_MultiBoxDetection", ins, background_id=2, threshold=0.2)
    case("multibox_detection_no_nms", "_contrib_MultiBoxDetection", ins, nms_threshold=0, threshold=0.4)


# ----------------------------------------------------------------------------- R-CNN
def rcnn_cases():
    data = rand(2, 4, 9, 10)
    rois = np.array([[0, 1.2, 0.7, 6.3, 7.9], [1, 0, 0, 9, 8], [0, 3.5, 2.2, 4.1, 2.9], [1, -2, -1, 12, 11],
                     [0, 7.7, 5.1, 9.6, 8.8]], "float32")
    ins = [("data", data), ("rois", rois)]
    case("roi_align_default", "_contrib_ROIAlign", ins, grads=["data"], pooled_size=(3, 2), spatial_scale=1.0)
    case("roi_align_scale_ratio", "_contrib_ROIAlign", [("data", data), ("rois", rois * np.float32([1, 2, 2, 2, 2]))],
         grads=["data"], pooled_size=(2, 3), spatial_scale=0.5, sample_ratio=2)
    case("roi_align_aligned", "_contrib_ROIAlign", ins, grads=["data"], pooled_size=(2, 2), spatial_scale=1.0,
         aligned=True, sample_ratio=3)
    case("roi_align_position_sensitive", "_contrib_ROIAlign", [("data", rand(2, 8, 9, 10)), ("rois", rois)],
         grads=["data"], pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True)
    case("roi_align_float64", "_contrib_ROIAlign", [("data", data.astype("float64")), ("rois", rois.astype("float64"))],
         grads=["data"], pooled_size=(2, 2), spatial_scale=1.0, sample_ratio=1)

    case("roi_pooling", "ROIPooling", ins, grads=["data"], pooled_size=(2, 3), spatial_scale=1.0)

    ps = rand(2, 2 * 9, 9, 10)
    case("psroi_pooling", "_contrib_PSROIPooling", [("data", ps), ("rois", rois)], grads=["data"],
         spatial_scale=1.0, output_dim=2, pooled_size=3)
    case("psroi_pooling_group", "_contrib_PSROIPooling",
         [("data", rand(2, 3 * 4, 9, 10)), ("rois", rois * np.float32([1, 2, 2, 2, 2]))], grads=["data"], spatial_scale=0.5, output_dim=3, pooled_size=3, group_size=2)

    trans = rand(5, 2 * 2, 3, 3, low=-0.5, high=0.5)
    case("deformable_psroi_pooling", "_contrib_DeformablePSROIPooling",
         [("data", ps), ("rois", rois), ("trans", trans)], grads=["data", "trans"], spatial_scale=1.0, output_dim=2,
         group_size=3, pooled_size=3, part_size=3, sample_per_part=2, trans_std=0.1)
    case("deformable_psroi_pooling_no_trans", "_contrib_DeformablePSROIPooling",
         [("data", ps), ("rois", rois)], grads=["data"], spatial_scale=1.0, output_dim=2,
         group_size=3, pooled_size=3, sample_per_part=2, no_trans=True)

    # Proposal: 3 anchors (1 scale, 3 ratios) on a 5x6 map, stride 16
    cls = np.concatenate([rand(1, 3, 5, 6, low=0, high=1), RNG.permutation(90).reshape(1, 3, 5, 6) / 90.0], 1)
    bbox = rand(1, 12, 5, 6, low=-0.3, high=0.3)
    info = np.array([[70, 90, 1.0]], "float32")
    ins = [("cls_prob", cls.astype("float32")), ("bbox_pred", bbox), ("im_info", info)]
    case("proposal", "_contrib_Proposal", ins, scales=(2,), rpn_pre_nms_top_n=40, rpn_post_nms_top_n=12,
         rpn_min_size=4, threshold=0.5)
    case("proposal_score_fill", "_contrib_Proposal", ins, scales=(2,), rpn_pre_nms_top_n=20, rpn_post_nms_top_n=30,
         rpn_min_size=8, threshold=0.3, output_score=True)
    case("proposal_iou_loss", "_contrib_Proposal", ins, scales=(2,), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=10,
         rpn_min_size=2, threshold=0.6, iou_loss=True, output_score=True)
    cls2 = np.concatenate([cls, np.concatenate([rand(1, 3, 5, 6, low=0, high=1),
                                                RNG.permutation(90).reshape(1, 3, 5, 6) / 90.0], 1)])
    info2 = np.array([[70, 90, 1.0], [60, 64, 2.0]], "float32")
    case("multi_proposal", "_contrib_MultiProposal",
         [("cls_prob", cls2.astype("float32")), ("bbox_pred", rand(2, 12, 5, 6, low=-0.3, high=0.3)),
          ("im_info", info2)], scales=(2,), rpn_pre_nms_top_n=30, rpn_post_nms_top_n=8, rpn_min_size=4,
         threshold=0.5, output_score=True)


# ----------------------------------------------------------------------------- deformable convolution
def deformable_cases():
    x = rand(2, 4, 6, 7)
    w = rand(6, 4, 3, 3)
    b = rand(6)
    off = rand(2, 2 * 9, 6, 7, low=-1.5, high=1.5)
    case("deformable_conv", "_contrib_DeformableConvolution",
         [("data", x), ("offset", off), ("weight", w), ("bias", b)], grads=["data", "offset", "weight", "bias"],
         kernel=(3, 3), pad=(1, 1), num_filter=6)
    off2 = rand(2, 2 * 2 * 4, 2, 3, low=-1.5, high=1.5)
    case("deformable_conv_groups", "_contrib_DeformableConvolution",
         [("data", x), ("offset", off2), ("weight", rand(4, 2, 2, 2))], grads=["data", "offset", "weight"],
         kernel=(2, 2), stride=(2, 2), dilate=(2, 1), num_filter=4, num_group=2, num_deformable_group=2,
         no_bias=True)
    mask = rand(2, 9, 6, 7, low=0, high=1)
    # ModulatedDeformableConvolution's backward is GPU-only in MXNet 1.9.1 ("only implemented in GPU"): the
    # symbol JSON only here; its CPU forward is recorded in tests/test_ops_detection.py
    case("modulated_deformable_conv", "_contrib_ModulatedDeformableConvolution",
         [("data", x), ("offset", off), ("mask", mask), ("weight", w), ("bias", b)], json_only=True,
         grads=["data", "offset", "mask", "weight", "bias"], kernel=(3, 3), pad=(1, 1), num_filter=6)
    case("modulated_deformable_conv_groups", "_contrib_ModulatedDeformableConvolution",
         [("data", x), ("offset", off2), ("mask", rand(2, 2 * 4, 2, 3, low=0, high=1)), ("weight", rand(4, 2, 2, 2))],
         json_only=True,
         grads=["data", "offset", "mask", "weight"], kernel=(2, 2), stride=(2, 2), dilate=(2, 1), num_filter=4,
         num_group=2, num_deformable_group=2, no_bias=True)


# ----------------------------------------------------------------------------- spatial transformers
def spatial_cases():
    data = rand(2, 3, 5, 6)
    grid = rand(2, 2, 4, 7, low=-1.2, high=1.2)
    case("bilinear_sampler", "BilinearSampler", [("data", data), ("grid", grid)], grads=["data", "grid"])
    theta = np.array([[0.9, 0.1, 0.05, -0.2, 1.1, -0.1], [1.2, -0.3, 0.2, 0.25, 0.8, 0.1]], "float32")
    case("grid_generator_affine", "GridGenerator", [("data", theta)], grads=["data"], transform_type="affine",
         target_shape=(4, 5))
    flow = rand(2, 2, 4, 5, low=-2, high=2)
    case("grid_generator_warp", "GridGenerator", [("data", flow)], grads=["data"], transform_type="warp")
    case("spatial_transformer", "SpatialTransformer", [("data", data), ("loc", theta)], grads=["data", "loc"],
         target_shape=(4, 5), transform_type="affine", sampler_type="bilinear")

    a, b = rand(2, 3, 7, 8), rand(2, 3, 7, 8)
    case("correlation_default", "Correlation", [("data1", a), ("data2", b)], grads=["data1", "data2"])
    case("correlation_displacement", "Correlation", [("data1", a), ("data2", b)], grads=["data1", "data2"],
         kernel_size=3, max_displacement=2, stride1=2, stride2=1, pad_size=3)
    case("correlation_subtract", "Correlation", [("data1", a), ("data2", b)], grads=["data1", "data2"],
         kernel_size=1, max_displacement=2, stride1=1, stride2=2, pad_size=2, is_multiply=False)

    x = rand(2, 3, 7, 8)
    case("crop_h_w", "Crop", [("arg0", x)], grads=["arg0"], num_args=1, h_w=(4, 5), offset=(1, 2))
    case("crop_center", "Crop", [("arg0", x)], grads=["arg0"], num_args=1, h_w=(4, 3), center_crop=True)
    case("crop_like", "Crop", [("arg0", x), ("arg1", rand(1, 1, 5, 5))], grads=["arg0", "arg1"], num_args=2,
         offset=(2, 1))
    case("crop_like_center", "Crop", [("arg0", x), ("arg1", rand(1, 1, 4, 6))], grads=["arg0"], num_args=2,
         center_crop=True)


def large_cases():
    """Enough boxes for neogluon's banded NMS path (more than 1024 candidates)."""
    d = detections(1500, classes=4, extent=60.0)
    case("box_nms_large", "_contrib_box_nms", [("data", d)], grads=["data"], overlap_thresh=0.3)
    case("box_nms_large_per_class", "_contrib_box_nms", [("data", d)], overlap_thresh=0.2, id_index=0,
         valid_thresh=0.05)
    a = corner_boxes(1200, extent=0.9, low=0.02, high=0.2).reshape(1, 1200, 4)
    logits = rand(1, 3, 1200, low=-2, high=2)
    prob = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    case("multibox_detection_large", "_contrib_MultiBoxDetection",
         [("cls_prob", prob.astype("float32")), ("loc_pred", rand(1, 4800, low=-0.3, high=0.3)), ("anchor", a)],
         threshold=0.05, nms_threshold=0.4)


# ----------------------------------------------------------------------------- running
def compute(c):
    values = [mx.nd.array(a, dtype=a.dtype) for _, a in c["inputs"]]
    for (name, _), v in zip(c["inputs"], values):
        if name in c["grads"]:
            v.attach_grad()
    fn = namespace(mx.nd, c["op"])
    with mx.autograd.record(train_mode=True):
        out = fn(*values, **c["attrs"])
    outs = out if isinstance(out, list) else [out]
    res = {"in:" + n: a for n, a in c["inputs"]}
    for i, o in enumerate(outs):
        res["out:%d" % i] = o.asnumpy()
    if c["grads"]:
        heads = [mx.nd.array(RNG.uniform(-1, 1, o.shape), dtype=o.dtype) for o in outs]
        mx.autograd.backward(outs, heads)
        for i, h in enumerate(heads):
            res["head:%d" % i] = h.asnumpy()
        for (name, _), v in zip(c["inputs"], values):
            if name in c["grads"]:
                res["grad:" + name] = v.grad.asnumpy()
    return res, len(outs)


def symbol_json(c):
    fn = namespace(mx.sym, c["op"])
    variables = [mx.sym.var(n) for n, _ in c["inputs"]]
    sym = fn(*variables, name="op", **c["attrs"])
    return sym.tojson(), sym.list_outputs()


def main():
    for make in (box_cases, multibox_cases, rcnn_cases, deformable_cases, spatial_cases, large_cases):
        make()
    arrays, cases = {}, {}
    for c in CASES:
        if c["json_only"]:
            res, n_out = {"in:" + n: a for n, a in c["inputs"]}, None
        else:
            res, n_out = compute(c)
        arrays.update(("%s/%s" % (c["name"], k), v) for k, v in res.items())
        graph, names = symbol_json(c)
        cases[c["name"]] = dict(op=c["op"], attrs=c["attrs"], inputs=[n for n, _ in c["inputs"]], grads=c["grads"],
                                outputs=n_out, json=graph, output_names=names, json_only=c["json_only"])
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"generator": "tools/make_extra_fixtures_detection.py", "mxnet": mx.__version__, "cases": cases},
                  f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, "cases.npz"), **arrays)
    print("%d cases -> %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
