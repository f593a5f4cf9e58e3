"""ONNX converters of the detection operators GluonCV's detectors use: ``box_nms``,
``box_decode``/``box_encode``, ``ROIAlign``, ``MultiBoxPrior``, and the sorting operators
around them (``topk``, ``sort``, ``argsort``).

``_contrib_MultiBoxDetection`` (SSD's output) is decoded, suppressed by ``NonMaxSuppression`` and
gathered into MXNet's layout too (see its converter).

``_contrib_box_nms`` keeps MXNet's layout: the output has the input's shape, the kept rows
first in decreasing score order (ties in input order), the others set to -1. It is built from
``TopK`` (MXNet's ``valid_thresh``/``background_id`` filter and ``topk`` pre-selection, which
also sorts), ONNX ``NonMaxSuppression`` on the sorted rows, a ``ScatterND`` of the selected
rows into a mask and a second ``TopK`` that moves them to the front. Per-class suppression
(``id_index`` set, ``force_suppress`` off) uses one NMS on boxes shifted by ``class id *
(extent of all coordinates + 1)``, so boxes of different classes never overlap (the trick of
torchvision's ``batched_nms``).
"""
import numpy as np
import torch

from .graph import converter

__all__ = []

_LOWEST = float(np.finfo(np.float32).min)


def _col(c, x, start, stop, axis=-1):
    return c.slice(x, [start], [stop], [axis])


def _gather_rows(c, rows, order, width):
    """rows (B, N, W) gathered along axis 1 by order (B, K): (B, K, W)."""
    idx = c.unsqueeze(order, [2])
    idx = c.emit("Expand", [idx, c.ints([1, 1, width])])
    return c.emit("GatherElements", [rows, idx], axis=1)


def _to_corner(c, b):
    xy, wh = _col(c, b, 0, 2), _col(c, b, 2, 4)
    half = c.emit("Mul", [wh, c.scalar(0.5)])
    return c.emit("Concat", [c.emit("Sub", [xy, half]), c.emit("Add", [xy, half])], axis=-1)


def _to_center(c, b):
    lo, hi = _col(c, b, 0, 2), _col(c, b, 2, 4)
    wh = c.emit("Sub", [hi, lo])
    return c.emit("Concat", [c.emit("Add", [lo, c.emit("Mul", [wh, c.scalar(0.5)])]), wh], axis=-1)


@converter("_contrib_box_nms")
def convert_box_nms(c):
    a = c.attrs
    shape = c.shape(0)
    ndim, n, width = len(shape), shape[-2], shape[-1]
    cs, si, ii = a["coord_start"], a["score_index"], a["id_index"]
    x = c.input(0)
    if c.dynamic:
        count = c.dims(0, ndim - 2, ndim - 1)                                     # (1,) int64
        tail = c.dims(0, ndim - 2)
    else:
        count, tail = c.ints([n], "count"), c.ints([n, width], "tail")
    rows = x if ndim == 3 else c.emit("Reshape", [x, c.emit("Concat", [c.ints([-1]), tail], axis=0)])
    # MXNet's candidates: score > valid_thresh, not the background class; the first topk by score
    scores = c.squeeze(_col(c, rows, si, si + 1), [2])
    valid = c.emit("Greater", [scores, c.scalar(a["valid_thresh"])])
    if ii >= 0:
        ids = c.squeeze(_col(c, rows, ii, ii + 1), [2])
        valid = c.emit("And", [valid, c.emit("Not", [c.emit("Equal", [ids, c.scalar(a["background_id"])])])])
    key = c.emit("Where", [valid, scores, c.scalar(_LOWEST)])
    k = count
    if a["topk"] > 0:
        k = c.emit("Min", [count, c.ints([a["topk"]], "topk")]) if c.dynamic else c.ints([min(n, a["topk"])], "k")
    top, order = c.emit("TopK", [key, k], n_out=2, axis=1, largest=1, sorted=1)
    cand = _gather_rows(c, rows, order, width)                                     # (B, K, W) by score
    boxes = _col(c, cand, cs, cs + 4)
    center = 1 if a["in_format"] == "center" else 0
    if ii >= 0 and not a["force_suppress"]:
        if center:
            boxes, center = _to_corner(c, boxes), 0
        extent = c.emit("Sub", [c.reduce("ReduceMax", boxes, None, False), c.reduce("ReduceMin", boxes, None, False)])
        shift = c.emit("Mul", [_col(c, cand, ii, ii + 1), c.emit("Add", [extent, c.scalar(1.0)])])
        boxes = c.emit("Add", [boxes, shift])
    selected = c.emit("NonMaxSuppression", [boxes, c.unsqueeze(top, [1]), k,
                                            c.const(np.array([a["overlap_thresh"]], np.float32), "iou"),
                                            c.const(np.array([a["valid_thresh"]], np.float32), "score_thresh")],
                      center_point_box=center)
    where = c.emit("Gather", [selected, c.ints([0, 2], "batch_box")], axis=1)    # (S, 2): batch, row
    ones = c.emit("ConstantOfShape", [_first_dim(c, selected)], value=_tensor(np.ones(1, np.float32)))
    zeros = c.emit("ConstantOfShape", [c.emit("Shape", [top])], value=_tensor(np.zeros(1, np.float32)))
    kept = c.emit("ScatterND", [zeros, where, ones])                               # (B, K) 1 where kept
    # the kept rows first, in score order: TopK of kept * (K - position)
    if c.dynamic:
        kk = c.squeeze(k, [0])
        pos = c.cast(c.emit("Range", [c.const(np.array(0, np.int64), "zero"), kk, c.const(np.array(1, np.int64), "one")]),
                     np.float32)
        rank = c.emit("Sub", [c.cast(kk, np.float32), pos])
    else:
        kn = min(n, a["topk"]) if a["topk"] > 0 else n
        rank = c.const(np.arange(kn, 0, -1, dtype=np.float32), "rank")
    flag, order2 = c.emit("TopK", [c.emit("Mul", [kept, rank]), k], n_out=2, axis=1, largest=1, sorted=1)
    out = _gather_rows(c, cand, order2, width)
    if a["in_format"] != a["out_format"]:
        coords = _col(c, out, cs, cs + 4)
        conv = _to_center(c, coords) if a["out_format"] == "center" else _to_corner(c, coords)
        out = c.emit("Concat", [p for p in (_col(c, out, 0, cs) if cs else None, conv,
                                            _col(c, out, cs + 4, width) if cs + 4 < width else None) if p], axis=-1)
    mask = c.unsqueeze(c.emit("Greater", [flag, c.const(np.array(0, np.float32), "zero")]), [2])
    out = c.emit("Where", [mask, out, c.scalar(-1)])
    if a["topk"] > 0 and (c.dynamic or a["topk"] < n):                            # -1 rows after the topk
        missing = c.emit("Sub", [count, k])
        pads = c.emit("Concat", [c.ints([0, 0, 0, 0]), missing, c.ints([0])], axis=0)
        out = c.emit("Pad", [out, pads, c.scalar(-1)], mode="constant")
    if ndim == 3:
        c.emit("Identity", [out], out=c.out())
    else:
        c.emit("Reshape", [out, c.emit("Shape", [x]) if c.dynamic else c.ints(shape)], out=c.out())


def _first_dim(c, x):
    return c.slice(c.emit("Shape", [x]), [0], [1], [0])


def _tensor(arr):
    from .._deps import onnx_module  # pylint: disable=import-outside-toplevel
    return onnx_module().numpy_helper.from_array(arr)


def _center_parts(c, b):
    """(x, y, w, h) of corner boxes (..., 4), each (..., 1)."""
    w = c.emit("Sub", [_col(c, b, 2, 3), _col(c, b, 0, 1)])
    h = c.emit("Sub", [_col(c, b, 3, 4), _col(c, b, 1, 2)])
    half = c.scalar(0.5)
    return (c.emit("Add", [_col(c, b, 0, 1), c.emit("Mul", [w, half])]),
            c.emit("Add", [_col(c, b, 1, 2), c.emit("Mul", [h, half])]), w, h)


@converter("_contrib_box_decode")
def convert_box_decode(c):
    a = c.attrs
    data, anchors = c.input(0), c.input(1)
    if a["format"] == "corner":
        ax, ay, aw, ah = _center_parts(c, anchors)
    else:
        ax, ay, aw, ah = (_col(c, anchors, j, j + 1) for j in range(4))
    d = [c.emit("Mul", [_col(c, data, j, j + 1), c.scalar(a["std%d" % j])]) for j in range(4)]
    ox = c.emit("Add", [c.emit("Mul", [d[0], aw]), ax])
    oy = c.emit("Add", [c.emit("Mul", [d[1], ah]), ay])
    dw, dh = d[2], d[3]
    if a["clip"] > 0:
        dw, dh = (c.emit("Min", [t, c.scalar(a["clip"])]) for t in (dw, dh))
    half = c.scalar(0.5)
    ow = c.emit("Mul", [c.emit("Mul", [c.emit("Exp", [dw]), aw]), half])
    oh = c.emit("Mul", [c.emit("Mul", [c.emit("Exp", [dh]), ah]), half])
    c.emit("Concat", [c.emit("Sub", [ox, ow]), c.emit("Sub", [oy, oh]), c.emit("Add", [ox, ow]),
                      c.emit("Add", [oy, oh])], out=c.out(), axis=-1)


@converter("_contrib_box_encode")
def convert_box_encode(c):
    samples, matches, anchors, refs, means, stds = c.inputs
    m = c.shape(3)[1]
    pos = c.unsqueeze(c.emit("Greater", [samples, c.scalar(0.5)]), [2])
    idx = c.emit("Min", [c.emit("Max", [matches, c.scalar(0.0, like=1)]), c.scalar(m - 1, like=1)])
    idx = c.cast(c.emit("Floor", [idx]) if np.issubdtype(c.dtype(1), np.floating) else idx, np.int64)
    ref = _gather_rows(c, refs, idx, 4)
    ax, ay, aw, ah = _center_parts(c, anchors)
    gx, gy, gw, gh = _center_parts(c, ref)
    t = c.emit("Concat", [c.emit("Div", [c.emit("Sub", [gx, ax]), aw]), c.emit("Div", [c.emit("Sub", [gy, ay]), ah]),
                          c.emit("Log", [c.emit("Div", [gw, aw])]), c.emit("Log", [c.emit("Div", [gh, ah])])], axis=-1)
    t = c.emit("Div", [c.emit("Sub", [t, means]), stds])
    mask = c.emit("Expand", [pos, c.emit("Shape", [t])])
    c.emit("Where", [mask, t, c.scalar(0.0, like=2)], out=c.out(0))
    c.cast(mask, c.out_dtype(1), out=c.out(1))


@converter("_contrib_ROIAlign")
def convert_roi_align(c):
    a = c.attrs
    if a["position_sensitive"]:
        raise c.fail("position_sensitive=True has no ONNX RoiAlign equivalent")
    if a["aligned"] and c.opset < 16:
        raise c.fail("aligned=True needs RoiAlign's half_pixel mode, opset 16 or later (got opset %d)" % c.opset)
    data, rois = c.input(0), c.input(1)
    n = c.dims(0, 0, 1) if c.dynamic else c.ints([c.shape(0)[0]], "batch")
    batch = c.squeeze(c.cast(_col(c, rois, 0, 1, axis=1), np.int64), [1])
    live = c.emit("And", [c.emit("Not", [c.emit("Less", [batch, c.const(np.array(0, np.int64), "zero")])]),
                          c.emit("Less", [batch, n])])
    safe = c.emit("Where", [live, batch, c.const(np.array(0, np.int64), "zero")])
    ph, pw = a["pooled_size"]
    extra = {}
    if c.opset >= 16:
        extra["coordinate_transformation_mode"] = "half_pixel" if a["aligned"] else "output_half_pixel"
    pooled = c.emit("RoiAlign", [data, _col(c, rois, 1, 5, axis=1), safe], mode="avg", output_height=ph,
                    output_width=pw, sampling_ratio=max(a["sample_ratio"], 0), spatial_scale=a["spatial_scale"],
                    **extra)
    live = c.emit("Reshape", [live, c.ints([-1, 1, 1, 1])])
    c.emit("Where", [live, pooled, c.scalar(0.0)], out=c.out())


@converter("_contrib_MultiBoxPrior")
def convert_multibox_prior(c):
    """The anchors depend on the input's shape only: a constant of the inferred shape."""
    if c.dynamic:
        raise c.fail("the anchors are computed from the input's height and width; export with dynamic=False")
    from ...operator.detection import multibox_prior  # pylint: disable=import-outside-toplevel
    a = c.attrs
    anchors = multibox_prior(torch.zeros(c.shape(0), dtype=torch.float32), sizes=a["sizes"], ratios=a["ratios"],
                             clip=a["clip"], steps=a["steps"], offsets=a["offsets"])
    c.emit("Identity", [c.const(anchors.numpy(), "anchors")], out=c.out())


# ----------------------------------------------------------------------------- sorting
def _axis(c):
    """(input as ONNX name, axis) with MXNet's axis=None meaning the flattened input."""
    if c.attrs["axis"] is None:
        return c.emit("Reshape", [c.input(0), c.ints([-1])]), 0
    return c.input(0), c.attrs["axis"] % len(c.shape(0))


def _count(c, x, axis):
    if c.dynamic or c.attrs["axis"] is None:
        return c.slice(c.emit("Shape", [x]), [axis], [axis + 1], [0])
    return c.ints([c.shape(0)[axis]], "k")


@converter("topk")
def convert_topk(c):
    a = c.attrs
    x, axis = _axis(c)
    k = _count(c, x, axis) if a["k"] <= 0 else c.ints([a["k"]], "k")
    values, indices = c.emit("TopK", [x, k], n_out=2, axis=axis, largest=int(not a["is_ascend"]), sorted=1)
    if a["ret_typ"] == "mask":
        zeros = c.emit("Mul", [x, c.scalar(0)])
        ones = c.emit("Add", [c.emit("Mul", [values, c.scalar(0)]), c.scalar(1)])
        mask = c.emit("ScatterElements", [zeros, indices, ones], axis=axis)
        c.emit("Reshape", [mask, c.emit("Shape", [c.input(0)])], out=c.out())
    elif a["ret_typ"] == "value":
        c.emit("Identity", [values], out=c.out())
    elif a["ret_typ"] == "indices":
        c.cast(indices, a["dtype"], out=c.out())
    else:
        c.emit("Identity", [values], out=c.out(0))
        c.cast(indices, a["dtype"], out=c.out(1))


@converter("sort", "argsort")
def convert_sort(c):
    a = c.attrs
    x, axis = _axis(c)
    values, indices = c.emit("TopK", [x, _count(c, x, axis)], n_out=2, axis=axis, largest=int(not a["is_ascend"]),
                             sorted=1)
    if c.node.op.name == "sort":
        c.emit("Identity", [values], out=c.out())
    else:
        c.cast(indices, a["dtype"], out=c.out())


# ----------------------------------------------------------------------------- MultiBoxDetection
@converter("_contrib_MultiBoxDetection")
def convert_multibox_detection(c):
    """MXNet's SSD output (see ``operator/detection.py``): each anchor's best class but the
    background (0; MXNet's CPU kernel ignores ``background_id``), the anchors scoring at least
    ``threshold`` decoded with the variances, moved to the front in anchor order with class -1;
    the first ``min(count, nms_topk)`` rows then overwritten by the valid rows sorted by score,
    their class kept where greedy suppression (``iou >= nms_threshold``, per class unless
    ``force_suppress``) keeps them, else -1. Unused rows are -1.

    The suppression is ONNX ``NonMaxSuppression`` given, as scores, the rows' ranks in
    MXNet's stable sort (so its order is MXNet's), each row's score in its class's column only
    (per-class suppression without shifting boxes), and as threshold the float32 just below
    ``nms_threshold`` (ONNX suppresses when ``iou > threshold``, MXNet when ``iou >= threshold``)."""
    a = c.attrs
    _, classes, n = c.shape(0)
    prob, loc, anchor = c.input(0), c.input(1), c.input(2)
    batch = _first_dim(c, prob)
    if classes < 2:   # the background alone: nothing is detected
        shape = c.emit("Concat", [batch, c.ints([n, 6])], axis=0)
        c.emit("ConstantOfShape", [shape], value=_tensor(np.full(1, -1, np.float32)), out=c.out())
        return
    if len(a["variances"]) != 4:
        raise c.fail("variances must have 4 values, got %s" % (a["variances"],))
    probs = c.slice(prob, [1], [classes], [1])                                    # (B, C-1, A)
    score = c.reduce("ReduceMax", probs, [1], False)                               # (B, A)
    cid = c.cast(c.emit("ArgMax", [probs], axis=1, keepdims=0), np.float32)         # the first best class
    # decoding, in MXNet's arithmetic order
    loc = c.emit("Reshape", [loc, c.ints([0, n, 4])])
    var = np.asarray(a["variances"], np.float32)
    lo, hi = _col(c, anchor, 0, 2), _col(c, anchor, 2, 4)
    size = c.emit("Sub", [hi, lo])
    centre = c.emit("Add", [lo, c.emit("Mul", [size, c.scalar(0.5)])])
    o_centre = c.emit("Add", [c.emit("Mul", [c.emit("Mul", [_col(c, loc, 0, 2), c.const(var[:2], "var_xy")]), size]),
                              centre])
    o_half = c.emit("Div", [c.emit("Mul", [c.emit("Exp", [c.emit("Mul", [_col(c, loc, 2, 4), c.const(var[2:], "var_wh")])]),
                                           size]), c.scalar(2.0)])
    boxes = c.emit("Concat", [c.emit("Sub", [o_centre, o_half]), c.emit("Add", [o_centre, o_half])], axis=-1)
    if a["clip"]:
        boxes = c.emit("Clip", [boxes, c.scalar(0.0), c.scalar(1.0)])
    valid = c.emit("Not", [c.emit("Less", [score, c.scalar(a["threshold"])])])
    count = c.reduce("ReduceSum", c.cast(valid, np.int64), [1], True)             # (B, 1)
    pos = c.const(np.arange(n, dtype=np.int64)[None], "position")                 # (1, A)
    sort = 0 < a["nms_threshold"] <= 1
    score_col = c.unsqueeze(score, [2])
    cls_col = c.unsqueeze(cid, [2]) if not sort else c.emit(
        "ConstantOfShape", [c.emit("Shape", [score_col])], value=_tensor(np.full(1, -1, np.float32)))
    rows = c.emit("Concat", [cls_col, score_col, boxes], axis=-1)                   # (B, A, 6) in anchor order
    # the valid rows first, in anchor order
    first = c.emit("Where", [valid, c.const(np.arange(n, 0, -1, dtype=np.float32), "anchor_rank"),
                             c.scalar(0.0)])
    _, order = c.emit("TopK", [first, c.ints([n], "count")], n_out=2, axis=1, largest=1, sorted=1)
    base = c.emit("Where", [c.unsqueeze(c.emit("Less", [pos, count]), [2]), _gather_rows(c, rows, order, 6),
                            c.scalar(-1.0)])
    if not sort:
        c.emit("Identity", [base], out=c.out())
        return
    k = min(a["nms_topk"], n) if a["nms_topk"] > 0 else n
    key = c.emit("Where", [valid, score, c.scalar(_LOWEST)])
    _, order = c.emit("TopK", [key, c.ints([k], "k")], n_out=2, axis=1, largest=1, sorted=1)
    kk = c.ints([k], "k")
    ntop = c.emit("Where", [c.emit("Less", [count, kk]), count, kk])               # (B, 1) rows sorted
    sel = c.emit("Less", [c.const(np.arange(k, dtype=np.int64)[None], "position"), ntop])
    srows = _gather_rows(c, rows, order, 6)                                         # (B, K, 6) by score
    scid = c.emit("GatherElements", [cid, order], axis=1)                          # (B, K)
    rank = c.emit("Where", [sel, c.const(np.arange(k, 0, -1, dtype=np.float32), "rank"), c.scalar(0.0)])
    if a["force_suppress"]:
        nms_scores = c.unsqueeze(rank, [1])                                          # (B, 1, K)
    else:   # a column per class: a row's rank in its class's column, 0 elsewhere
        ids = c.const(np.arange(classes - 1, dtype=np.float32).reshape(1, -1, 1), "class_ids")
        nms_scores = c.emit("Where", [c.emit("Equal", [c.unsqueeze(scid, [1]), ids]), c.unsqueeze(rank, [1]),
                                      c.scalar(0.0)])                              # (B, C-1, K)
    below = np.nextafter(np.float32(a["nms_threshold"]), np.float32(-np.inf))
    selected = c.emit("NonMaxSuppression", [_col(c, srows, 2, 6), nms_scores, c.ints([k], "k"),
                                            c.const(np.array([below], np.float32), "iou"),
                                            c.const(np.array([0.5], np.float32), "score_thresh")])
    where = c.emit("Gather", [selected, c.ints([0, 2], "batch_box")], axis=1)     # (S, 2): batch, row
    ones = c.emit("ConstantOfShape", [_first_dim(c, selected)], value=_tensor(np.ones(1, np.float32)))
    zeros = c.emit("ConstantOfShape", [c.emit("Shape", [scid])], value=_tensor(np.zeros(1, np.float32)))
    kept = c.emit("ScatterND", [zeros, where, ones])                               # (B, K) 1 where kept
    cls_sorted = c.emit("Where", [c.emit("Greater", [kept, c.scalar(0.0)]), scid, c.scalar(-1.0)])
    srows = c.emit("Concat", [c.unsqueeze(cls_sorted, [2]), _col(c, srows, 1, 6)], axis=-1)
    if k < n:
        srows = c.emit("Pad", [srows, c.ints([0, 0, 0, 0, n - k, 0], "pads"), c.scalar(-1.0)], mode="constant")
    c.emit("Where", [c.unsqueeze(c.emit("Less", [pos, ntop]), [2]), srows, base], out=c.out())
