"""Object-detection operators: box IoU/encode/decode, non-maximum suppression, bipartite
matching, the SSD MultiBox operators and the Faster R-CNN Proposal operators.

Each reproduces MXNet 1.9.1's CPU kernel (``src/operator/contrib/bounding_box*``,
``multibox_*``, ``proposal*``): the same box conventions (corner boxes, Proposal's
"+1" pixel areas), the same score order (a stable descending sort), the same
suppression test (``iou > threshold``, MultiBoxDetection's ``iou >= threshold``) and
the same padding of unused rows with -1. Greedy suppression runs in blocks: a block of
sorted boxes is first suppressed by every box kept before it, then resolved within
itself by a fixed-point iteration of a boolean matrix product (the greedy result is the
iteration's unique fixed point), so no Python loop runs over boxes.

Gradients are MXNet's: box_nms routes each output row's gradient to the input row it was
copied from (format conversion passes it straight through); box_iou and box_decode are
differentiated by torch; the matching, MultiBox and Proposal operators give zero.
"""
import ast
import contextlib
import threading
import math

import numpy as np
import torch

from ..base import MXNetError
from .elemwise import zero_grad_output
from .registry import Attr, Bool, Float, Int, Str, register, shape_rule

__all__ = ["FloatTuple", "iou_matrix", "nms_keep", "serial"]

_FORMATS = ("center", "corner")


class FloatTuple(Attr):
    """MXNet's ``tuple of <float>`` attribute: a number, or a tuple/list of numbers."""
    type_name = "tuple of <float>"

    def from_str(self, s):
        return self.convert(ast.literal_eval(s))

    def convert(self, v):
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return (float(v),)
        if isinstance(v, (tuple, list, np.ndarray)):
            return tuple(float(x) for x in v)
        raise ValueError("expected a tuple of numbers")

    def format(self, value):
        return str(tuple(value))


def _shape(t):
    return tuple(t.shape)


_SERIAL = {"depth": 0, "threads": 1}
_SERIAL_LOCK = threading.Lock()


@contextlib.contextmanager
def serial():
    """Run torch on one thread inside: the bookkeeping of NMS and matching is a chain of
    small dependent operations (as MXNet's single-threaded CPU loops are), where waking a
    second thread for each costs more than it saves, badly so on a loaded machine.

    torch's thread count is process-wide: the first of any concurrent or nested holders
    saves it and the last one out restores it, so threads running detection operators
    side by side (a DataLoader's thread pool) cannot leave it at one."""
    with _SERIAL_LOCK:
        if _SERIAL["depth"] == 0:
            _SERIAL["threads"] = torch.get_num_threads()
            if _SERIAL["threads"] != 1:
                torch.set_num_threads(1)
        _SERIAL["depth"] += 1
    try:
        yield
    finally:
        with _SERIAL_LOCK:
            _SERIAL["depth"] -= 1
            if _SERIAL["depth"] == 0 and _SERIAL["threads"] != 1:
                torch.set_num_threads(_SERIAL["threads"])


# ----------------------------------------------------------------------------- box geometry
def to_corner(boxes, fmt):
    """(..., 4) boxes as (x1, y1, x2, y2) from 'corner' or 'center' (x, y, w, h)."""
    if fmt == "corner":
        return boxes
    xy, half = boxes[..., :2], boxes[..., 2:] / 2
    return torch.cat([xy - half, xy + half], -1)


def to_center(boxes):
    wh = boxes[..., 2:] - boxes[..., :2]
    return torch.cat([boxes[..., :2] + wh / 2, wh], -1)


def _area(b, plus):
    return (b[..., 2] - b[..., 0] + plus).clamp(min=0) * (b[..., 3] - b[..., 1] + plus).clamp(min=0)


def iou_matrix(a, b, plus=0.0):
    """(M, K) IoU of corner boxes a (M, 4) and b (K, 4); ``plus=1`` counts pixels (R-CNN).

    A box with negative width or height has area 0; a zero union gives 0 (MXNet's rule)."""
    w = (torch.minimum(a[:, None, 2], b[None, :, 2]) - torch.maximum(a[:, None, 0], b[None, :, 0]) + plus).clamp_(min=0)
    h = (torch.minimum(a[:, None, 3], b[None, :, 3]) - torch.maximum(a[:, None, 1], b[None, :, 1]) + plus).clamp_(min=0)
    inter = w.mul_(h)
    union = _area(a, plus)[:, None] + _area(b, plus)[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros((), dtype=inter.dtype))


def nms_keep(boxes, threshold, classes=None, plus=0.0, inclusive=False):
    """:func:`_nms_keep`, opaque to dynamo once the compiled backend has compiled (below)."""
    return _NMS_KEEP[-1](boxes, threshold, classes, plus, inclusive)


def _nms_keep(boxes, threshold, classes=None, plus=0.0, inclusive=False):
    """Greedy non-maximum suppression of corner boxes sorted by decreasing score.

    Returns a boolean mask of the boxes kept: a box is dropped when a kept box before it
    has ``iou > threshold`` (``>=`` when ``inclusive``) and, when ``classes`` is given, the
    same class.

    Only pairs whose x-ranges meet can suppress each other (for a positive threshold): they
    are enumerated from the boxes sorted by left edge, their IoU tested, and the greedy
    result is then the fixed point of ``keep[j] = not any(keep[i] for suppressing i < j)``,
    iterated over those pairs from "keep everything" (each step fixes at least the next
    box of the longest suppression chain)."""
    count = boxes.shape[0]
    with torch.no_grad():
        if count == 0:
            return torch.zeros(0, dtype=torch.bool)
        if threshold < 0 or (inclusive and threshold <= 0):  # every pair suppresses
            return _first_of_each(classes, count)
        if count <= _DENSE and classes is None:
            return _dense_keep(boxes, threshold, classes, plus, inclusive)
        src, dst = _suppressing_pairs(boxes, threshold, classes, plus, inclusive)
        keep = torch.ones(count, dtype=torch.bool)
        while src.numel():
            hit = torch.zeros(count, dtype=torch.bool)
            hit[dst[keep[src]]] = True
            nxt = ~hit
            if torch.equal(nxt, keep):
                break
            keep = nxt
    return keep


_DENSE = 1024


# :func:`_nms_keep` kept out of the graphs ``torch.compile`` traces (a hybridized SSD's
# prediction, executor/inductor.py): its host loop reads tensor values (``int(...)``), where
# dynamo breaks the graph anyway, and the first such read made torch log a warning of 15 lines
# telling an MXNet user to set ``torch._dynamo.config.capture_scalar_outputs``. Made opaque by
# :func:`prepare_compiled` when the compiled backend first compiles, as operator/rnn.py's fused
# kernel: ``torch.compiler.disable`` imports torch._dynamo, which a process that never
# compiles does not pay.
_NMS_KEEP = [_nms_keep]


def prepare_compiled():
    """Make NMS opaque to dynamo (above); the compiled backend calls this before compiling."""
    if len(_NMS_KEEP) == 1:
        _NMS_KEEP.append(torch.compiler.disable(_nms_keep))


def _dense_keep(boxes, threshold, classes, plus, inclusive):
    """nms_keep for a few boxes: the whole IoU matrix, then the same fixed point."""
    iou = iou_matrix(boxes, boxes, plus)
    hit = iou >= threshold if inclusive else iou > threshold
    if classes is not None:
        hit &= classes[:, None] == classes[None, :]
    hit = torch.triu(hit, diagonal=1).to(torch.float32)
    keep = torch.ones(boxes.shape[0], dtype=torch.bool)
    while True:
        nxt = (keep.to(torch.float32) @ hit) == 0
        if torch.equal(nxt, keep):
            return keep
        keep = nxt


def _first_of_each(classes, count):
    keep = torch.zeros(count, dtype=torch.bool)
    if classes is None:
        keep[0] = True
        return keep
    first = {}
    for i, c in enumerate(classes.tolist()):
        first.setdefault(c, i)
    keep[list(first.values())] = True
    return keep


def _suppressing_pairs(boxes, threshold, classes, plus, inclusive, rows=4096):
    """(src, dst) ranks with src < dst whose boxes overlap past the threshold.

    Sorted by left edge, box p can only meet the boxes q > p whose left edge is left of
    p's right edge: a band of the sorted order, read through a strided view (no copies)
    a block of rows at a time; pairs overlapping vertically get the exact IoU test."""
    dt = torch.float64 if boxes.dtype == torch.float64 else torch.float32
    count = boxes.shape[0]
    # sort key: left edge, within class when classes matter (class blocks never meet)
    key, right = boxes[:, 0].to(torch.float64), (boxes[:, 2] + plus).to(torch.float64)
    if classes is not None:
        base = key.min()
        span = float(torch.maximum(key.max(), right.max()) - base) + 1.0
        rank = torch.unique(classes, return_inverse=True)[1].to(torch.float64) * span
        key, right = key - base + rank, (right - base).clamp(min=0) + rank
    key, order = torch.sort(key, stable=True)
    b = boxes.to(dt)[order]
    x1, y1, x2, y2 = (b[:, i].contiguous() for i in range(4))
    area = _area(b, plus)
    reach = (torch.searchsorted(key, right[order]) - torch.arange(1, count + 1)).clamp_(min=0)
    width = int(reach.max())
    if width == 0:
        return torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long)
    pad = torch.zeros(width, dtype=dt)
    y1p, y2p = torch.cat([y1, pad]), torch.cat([y2, pad])
    srcs, dsts = [], []
    for start in range(0, count, rows):
        stop = min(count, start + rows)
        k = int(reach[start:stop].max())
        if k == 0:
            continue
        n = stop - start
        top = torch.as_strided(y1p, (n, k), (1, 1), start + 1)
        bottom = torch.as_strided(y2p, (n, k), (1, 1), start + 1)
        h = torch.minimum(y2[start:stop, None], bottom).sub_(torch.maximum(y1[start:stop, None], top))
        near = (h.add_(plus) > 0) & (torch.arange(k) < reach[start:stop, None])
        r, c = torch.nonzero(near, as_tuple=True)
        p = r + start
        q = p + 1 + c
        w = torch.minimum(x2[p], x2[q]).sub_(torch.maximum(x1[p], x1[q])).add_(plus).clamp_(min=0)
        inter = w.mul_(torch.minimum(y2[p], y2[q]).sub_(torch.maximum(y1[p], y1[q])).add_(plus).clamp_(min=0))
        union = (area[p] + area[q]).sub_(inter)
        iou = torch.where(union > 0, inter / union, torch.zeros((), dtype=dt))
        hit = iou >= threshold if inclusive else iou > threshold
        rp, rq = order[p[hit]], order[q[hit]]
        if classes is not None:
            same = classes[rp] == classes[rq]
            rp, rq = rp[same], rq[same]
        srcs.append(torch.minimum(rp, rq))
        dsts.append(torch.maximum(rp, rq))
    if not srcs:
        return torch.zeros(0, dtype=torch.long), torch.zeros(0, dtype=torch.long)
    return torch.cat(srcs), torch.cat(dsts)


# ----------------------------------------------------------------------------- box_nms
def _nms_check(shape, coord_start, score_index, id_index):
    width = shape[-1] if shape else 0
    if len(shape) < 2:
        raise MXNetError("_contrib_box_nms: data must have at least 2 dimensions (..., num_boxes, width), got %s"
                         % (shape,))
    if coord_start < 0 or coord_start + 4 > width or not 0 <= score_index < width or id_index >= width:
        raise MXNetError("_contrib_box_nms: coord_start=%d, score_index=%d, id_index=%d do not fit boxes of width "
                         "%d (data %s)" % (coord_start, score_index, id_index, width, shape))


@register("_contrib_box_nms", num_outputs=2, num_visible_outputs=1,
          params=dict(overlap_thresh=Float(0.5), valid_thresh=Float(0.0), topk=Int(-1), coord_start=Int(2),
                      score_index=Int(1), id_index=Int(-1), background_id=Int(-1), force_suppress=Bool(False),
                      in_format=Str("corner", choices=_FORMATS), out_format=Str("corner", choices=_FORMATS)),
          aliases=["_contrib_box_non_maximum_suppression"])
@serial()
def box_nms(data, *, overlap_thresh, valid_thresh, topk, coord_start, score_index, id_index, background_id,
            force_suppress, in_format, out_format):
    """MXNet's contrib box_nms on (..., N, width) rows holding a score, an optional class id
    and 4 coordinates.

    Rows with ``score > valid_thresh`` (and, with id_index set, a class other than
    ``background_id``: MXNet drops those even with the default -1) are sorted by decreasing
    score, the first ``topk`` are kept, and greedy NMS drops rows whose IoU with a kept row exceeds ``overlap_thresh``
    (within a class unless force_suppress or no id_index). Kept rows come first, in score
    order, with coordinates in ``out_format``; the other rows are -1."""
    shape = _shape(data)
    _nms_check(shape, coord_start, score_index, id_index)
    n, width = shape[-2], shape[-1]
    rows = data.reshape(-1, n, width)
    per_class = id_index >= 0 and not force_suppress
    outs = []
    for b in range(rows.shape[0]):
        with torch.no_grad():
            x = rows[b].detach()
            scores = x[:, score_index]
            valid = scores > valid_thresh
            if id_index >= 0:
                valid &= x[:, id_index] != background_id
            idx = torch.nonzero(valid).squeeze(1)
            order = idx[torch.sort(scores[idx], descending=True, stable=True).indices]
            if topk > 0:
                order = order[:topk]
            boxes = to_corner(x[order, coord_start:coord_start + 4], in_format)
            keep = nms_keep(boxes, overlap_thresh, x[order, id_index] if per_class else None)
            src = order[keep]
        kept = rows[b][src]
        outs.append(torch.cat([kept, kept.new_full((n - src.numel(), width), -1)]))
    out = torch.stack(outs)
    if in_format != out_format:
        coords = out[..., coord_start:coord_start + 4]
        conv = to_center(coords) if out_format == "center" else to_corner(coords, "center")
        conv = torch.where(out[..., score_index:score_index + 1] == -1, coords, conv)
        # MXNet passes the gradient straight through the format conversion
        out = torch.cat([out[..., :coord_start], coords + (conv - coords).detach(),
                         out[..., coord_start + 4:]], -1)
    return out.reshape(shape)


@shape_rule("_contrib_box_nms")
def _box_nms_shape(attrs, shapes):
    _nms_check(tuple(shapes[0]), attrs["coord_start"], attrs["score_index"], attrs["id_index"])
    return [tuple(shapes[0])]


# ----------------------------------------------------------------------------- box_iou, encode, decode
def _check_last4(op, name, t):
    if t.dim() < 1 or t.shape[-1] != 4:
        raise MXNetError("%s: %s must have 4 values in its last dimension, got shape %s" % (op, name, _shape(t)))


@register("_contrib_box_iou", inputs=("lhs", "rhs"), params=dict(format=Str("corner", choices=_FORMATS)))
def box_iou(lhs, rhs, *, format):  # pylint: disable=redefined-builtin
    """MXNet's contrib box_iou: IoU of every lhs box with every rhs box, output shape
    lhs.shape[:-1] + rhs.shape[:-1]. Its gradient is zero, as MXNet's backward gives."""
    _check_last4("_contrib_box_iou", "lhs", lhs)
    _check_last4("_contrib_box_iou", "rhs", rhs)
    with torch.no_grad():
        a, b = to_corner(lhs.reshape(-1, 4), format), to_corner(rhs.reshape(-1, 4), format)
        out = iou_matrix(a, b).reshape(_shape(lhs)[:-1] + _shape(rhs)[:-1])
    return zero_grad_output(lhs, out)


@shape_rule("_contrib_box_iou")
def _box_iou_shape(attrs, shapes):
    lhs, rhs = shapes
    if lhs[-1:] != (4,) or rhs[-1:] != (4,):
        raise ValueError("box_iou needs (..., 4) inputs")
    return [tuple(lhs[:-1]) + tuple(rhs[:-1])]


def _center_parts(boxes):
    """(x, y, w, h) of corner boxes as four tensors."""
    w = boxes[..., 2] - boxes[..., 0]
    h = boxes[..., 3] - boxes[..., 1]
    return boxes[..., 0] + w * 0.5, boxes[..., 1] + h * 0.5, w, h


@register("_contrib_box_encode", inputs=("samples", "matches", "anchors", "refs", "means", "stds"), num_outputs=2)
def box_encode(samples, matches, anchors, refs, means, stds):
    """MXNet's contrib box_encode: regression targets of positive samples (``samples > 0.5``)
    against their matched reference boxes, ``((g_xy - a_xy) / a_wh - means) / stds`` and
    ``(log(g_wh / a_wh) - means) / stds``, and a mask of 1s; zeros elsewhere."""
    op = "_contrib_box_encode"
    if anchors.dim() != 3 or refs.dim() != 3 or _shape(samples) != _shape(anchors)[:2] or \
            _shape(matches) != _shape(samples) or anchors.shape[2] != 4 or refs.shape[2] != 4:
        raise MXNetError("%s: expects samples (B, N), matches (B, N), anchors (B, N, 4) and refs (B, M, 4), got "
                         "%s, %s, %s, %s" % (op, _shape(samples), _shape(matches), _shape(anchors), _shape(refs)))
    with torch.no_grad():
        pos = samples > 0.5
        idx = matches.long().clamp(0, refs.shape[1] - 1)
        ref = torch.gather(refs, 1, idx[..., None].expand(-1, -1, 4))
        ax, ay, aw, ah = _center_parts(anchors)
        gx, gy, gw, gh = _center_parts(ref)
        t = torch.stack([(gx - ax) / aw, (gy - ay) / ah, torch.log(gw / aw), torch.log(gh / ah)], -1)
        t = (t - means) / stds
        mask = pos[..., None].expand_as(t)
        targets = torch.where(mask, t, torch.zeros((), dtype=t.dtype))
        masks = mask.to(t.dtype)
    return zero_grad_output(anchors, targets), zero_grad_output(anchors, masks)


@shape_rule("_contrib_box_encode")
def _box_encode_shape(attrs, shapes):
    return [tuple(shapes[2]), tuple(shapes[2])]


@register("_contrib_box_decode", inputs=("data", "anchors"),
          params=dict(std0=Float(1.0), std1=Float(1.0), std2=Float(1.0), std3=Float(1.0), clip=Float(-1.0),
                      format=Str("center", choices=_FORMATS)))
def box_decode(data, anchors, *, std0, std1, std2, std3, clip, format):  # pylint: disable=redefined-builtin
    """MXNet's contrib box_decode: (B, N, 4) offsets on (1, N, 4) anchors to corner boxes;
    ``clip > 0`` caps the scaled log width/height offsets. Its gradient is zero, as in MXNet."""
    op = "_contrib_box_decode"
    if data.dim() != 3 or data.shape[2] != 4 or anchors.dim() != 3 or anchors.shape[0] != 1 or \
            anchors.shape[1:] != data.shape[1:]:
        raise MXNetError("%s: expects data (B, N, 4) and anchors (1, N, 4), got data %s, anchors %s"
                         % (op, _shape(data), _shape(anchors)))
    with torch.no_grad():
        if format == "corner":
            ax, ay, aw, ah = _center_parts(anchors)
        else:
            ax, ay, aw, ah = anchors.unbind(-1)
        ox = data[..., 0] * std0 * aw + ax
        oy = data[..., 1] * std1 * ah + ay
        dw, dh = data[..., 2] * std2, data[..., 3] * std3
        if clip > 0:
            dw, dh = dw.clamp(max=clip), dh.clamp(max=clip)
        ow, oh = torch.exp(dw) * aw * 0.5, torch.exp(dh) * ah * 0.5
        out = torch.stack([ox - ow, oy - oh, ox + ow, oy + oh], -1)
    return zero_grad_output(data, out)


@shape_rule("_contrib_box_decode")
def _box_decode_shape(attrs, shapes):
    return [tuple(shapes[0])]


# ----------------------------------------------------------------------------- bipartite matching
@register("_contrib_bipartite_matching", num_outputs=2,
          params=dict(is_ascend=Bool(False), threshold=Float(), topk=Int(-1)))
@serial()
def bipartite_matching(data, *, is_ascend, threshold, topk):
    """MXNet's contrib bipartite_matching: greedy matching of the rows and columns of
    (..., N, M) scores, best score first (lowest with is_ascend); a pair is matched while
    its score passes the threshold and both are free, up to topk + 1 pairs (MXNet's
    count). Returns the
    matched column of each row and the matched row of each column, -1 when unmatched."""
    if data.dim() < 2:
        raise MXNetError("_contrib_bipartite_matching: data must be (..., N, M), got %s" % (_shape(data),))
    shape = _shape(data)
    n, m = shape[-2:]
    with torch.no_grad():
        x = data.detach().reshape(-1, n, m)
        batch = x.shape[0]
        score = -x if is_ascend else x
        limit = -threshold if is_ascend else threshold
        fill = torch.tensor(-math.inf, dtype=score.dtype)
        active = score >= limit
        row = torch.full((batch, n), -1, dtype=torch.long)
        col = torch.full((batch, m), -1, dtype=torch.long)
        ar = torch.arange(batch)
        # MXNet stops only once the count of matches exceeds topk: topk + 1 pairs
        steps = min(n, m) if topk <= 0 else min(n, m, topk + 1)
        for _ in range(steps):
            masked = torch.where(active, score, fill).reshape(batch, -1)
            best = masked.argmax(1)
            ok = torch.isfinite(masked[ar, best]) & active.reshape(batch, -1)[ar, best]
            if not bool(ok.any()):
                break
            r, c = best // m, best % m
            row[ar[ok], r[ok]] = c[ok]
            col[ar[ok], c[ok]] = r[ok]
            active[ar[ok], r[ok], :] = False
            active[ar[ok], :, c[ok]] = False
    rows = row.to(data.dtype).reshape(shape[:-1])
    cols = col.to(data.dtype).reshape(shape[:-2] + (m,))
    return zero_grad_output(data, rows), zero_grad_output(data, cols)


@shape_rule("_contrib_bipartite_matching")
def _bipartite_shape(attrs, shapes):
    s = tuple(shapes[0])
    return [s[:-1], s[:-2] + s[-1:]]


# ----------------------------------------------------------------------------- MultiBoxPrior
def _prior_shapes(sizes, ratios):
    """(half widths before the aspect factor, half heights) of each anchor, in MXNet's order:
    every size at the first ratio, then the first size at every other ratio."""
    pairs = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
    return [(s * math.sqrt(r) / 2, s / math.sqrt(r) / 2) for s, r in pairs]


@register("_contrib_MultiBoxPrior",
          params=dict(sizes=FloatTuple((1.0,)), ratios=FloatTuple((1.0,)), clip=Bool(False),
                      steps=FloatTuple((-1.0, -1.0)), offsets=FloatTuple((0.5, 0.5))),
          aliases=["_npx_multibox_prior"])
def multibox_prior(data, *, sizes, ratios, clip, steps, offsets):
    """MXNet's contrib MultiBoxPrior: (1, H*W*A, 4) corner anchors for an (N, C, H, W)
    feature map, A = len(sizes) + len(ratios) - 1, centred at ((j + offset_x) * step_x,
    (i + offset_y) * step_y) with step 1/W, 1/H unless given; widths are scaled by H/W."""
    op = "_contrib_MultiBoxPrior"
    if data.dim() != 4:
        raise MXNetError("%s: data must be 4D (batch, channel, height, width), got %s" % (op, _shape(data)))
    if not sizes or not ratios or len(steps) != 2 or len(offsets) != 2:
        raise MXNetError("%s: sizes and ratios must not be empty, steps and offsets need 2 values, got sizes=%s, "
                         "ratios=%s, steps=%s, offsets=%s" % (op, sizes, ratios, steps, offsets))
    h, w = data.shape[2:]
    step_y = steps[0] if steps[0] > 0 else 1.0 / h
    step_x = steps[1] if steps[1] > 0 else 1.0 / w
    f32 = torch.float32
    cy = (torch.arange(h, dtype=f32) + offsets[0]) * step_y
    cx = (torch.arange(w, dtype=f32) + offsets[1]) * step_x
    half = torch.tensor([(hw * h / w, hh) for hw, hh in _prior_shapes(sizes, ratios)], dtype=f32)   # (A, 2)
    centre = torch.stack(torch.broadcast_tensors(cx[None, :, None], cy[:, None, None]), -1)          # (H, W, 1, 2)
    out = torch.cat([centre - half, centre + half], -1).reshape(1, -1, 4)
    if clip:
        out = out.clamp(0, 1)
    return zero_grad_output(data, out.to(data.dtype))


@shape_rule("_contrib_MultiBoxPrior")
def _multibox_prior_shape(attrs, shapes):
    s = tuple(shapes[0])
    if len(s) != 4:
        raise ValueError("MultiBoxPrior needs 4D data")
    return [(1, s[2] * s[3] * (len(attrs["sizes"]) + len(attrs["ratios"]) - 1), 4)]


# ----------------------------------------------------------------------------- MultiBoxTarget
def _encode_with_variances(anchors, gt, variances):
    ax, ay, aw, ah = _center_parts(anchors)
    gx, gy, gw, gh = _center_parts(gt)
    return torch.stack([(gx - ax) / aw / variances[0], (gy - ay) / ah / variances[1],
                        torch.log(gw / aw) / variances[2], torch.log(gh / ah) / variances[3]], -1)


def _match_anchors(overlaps, threshold):
    """MXNet's MultiBoxTarget matching of (A, G) overlaps: greedy best pairs first (each
    gt gets its best free anchor while an overlap > 1e-6 remains), then every other
    anchor whose best overlap exceeds ``threshold``. Returns (matched gt or -1, best overlap)."""
    a_count, g_count = overlaps.shape
    match = torch.full((a_count,), -1, dtype=torch.long)
    free = overlaps.clone()
    for _ in range(min(a_count, g_count)):
        flat = free.argmax()
        if not bool(free.reshape(-1)[flat] > 1e-6):
            break
        a, g = int(flat) // g_count, int(flat) % g_count
        match[a] = g
        free[a, :] = -1
        free[:, g] = -1
    best, best_gt = overlaps.max(1)
    if threshold > 0:
        extra = (match < 0) & (best > threshold)
        match = torch.where(extra, best_gt, match)
    return match, best


@register("_contrib_MultiBoxTarget", inputs=("anchor", "label", "cls_pred"), num_outputs=3,
          output_names=lambda a: ("loc_target", "loc_mask", "cls_target"),
          params=dict(overlap_threshold=Float(0.5), ignore_label=Float(-1.0), negative_mining_ratio=Float(-1.0),
                      negative_mining_thresh=Float(0.5), minimum_negative_samples=Int(0),
                      variances=FloatTuple((0.1, 0.1, 0.2, 0.2))),
          aliases=["_npx_multibox_target"])
@serial()
def multibox_target(anchor, label, cls_pred, *, overlap_threshold, ignore_label, negative_mining_ratio,
                    negative_mining_thresh, minimum_negative_samples, variances):
    """MXNet's contrib MultiBoxTarget: SSD training targets. Returns (loc_target (B, A*4),
    loc_mask (B, A*4), cls_target (B, A)): matched anchors get their gt's class + 1 and
    variance-scaled offsets; with negative mining, the unmatched anchors with the lowest
    background probability (best overlap < negative_mining_thresh) are the negatives
    (class 0) and the rest are ignore_label; without it every unmatched anchor is 0. An
    image without labels has every anchor ignore_label."""
    op = "_contrib_MultiBoxTarget"
    if anchor.dim() != 3 or anchor.shape[2] != 4 or label.dim() != 3 or label.shape[2] < 5 or \
            cls_pred.dim() != 3 or cls_pred.shape[2] != anchor.shape[1] or cls_pred.shape[0] != label.shape[0]:
        raise MXNetError("%s: expects anchor (1, A, 4), label (B, L, >=5) and cls_pred (B, classes, A), got "
                         "%s, %s, %s" % (op, _shape(anchor), _shape(label), _shape(cls_pred)))
    if len(variances) != 4:
        raise MXNetError("%s: variances must have 4 values, got %s" % (op, variances))
    batch, a_count = label.shape[0], anchor.shape[1]
    dt = cls_pred.dtype
    with torch.no_grad():
        anchors = anchor[0].detach()
        loc_t = torch.zeros(batch, a_count, 4, dtype=dt)
        loc_m = torch.zeros(batch, a_count, 4, dtype=dt)
        cls_t = torch.zeros(batch, a_count, dtype=dt)
        for b in range(batch):
            lab = label[b].detach()
            ends = torch.nonzero(lab[:, 0] == -1)
            count = int(ends[0]) if ends.numel() else lab.shape[0]
            if count == 0:  # an image without objects: every anchor is ignored
                cls_t[b] = ignore_label
                continue
            gt = lab[:count]
            match, best = _match_anchors(iou_matrix(anchors, gt[:, 1:5]), overlap_threshold)
            pos = match >= 0
            cls_t[b] = torch.where(pos, gt[match.clamp(min=0), 0] + 1, torch.zeros((), dtype=dt))
            if negative_mining_ratio > 0:
                cls_t[b] = _mine_negatives(cls_t[b], cls_pred[b].detach(), pos, best, negative_mining_ratio,
                                           negative_mining_thresh, minimum_negative_samples, ignore_label)
            enc = _encode_with_variances(anchors, gt[match.clamp(min=0), 1:5], variances)
            loc_t[b] = torch.where(pos[:, None], enc, torch.zeros((), dtype=dt))
            loc_m[b] = pos[:, None].to(dt).expand(-1, 4)
    outs = (loc_t.reshape(batch, -1), loc_m.reshape(batch, -1), cls_t)
    return tuple(zero_grad_output(cls_pred, o) for o in outs)


def _mine_negatives(cls_t, logits, pos, best, ratio, thresh, minimum, ignore_label):
    """Hard negatives: unmatched anchors with best overlap < thresh, lowest background
    probability first, ``int(ratio * positives)`` of them (at most all candidates).

    MXNet 1.9.1's CPU kernel ignores minimum_negative_samples; so does this."""
    num_pos = int(pos.sum())
    candidate = (~pos) & (best < thresh)
    num_neg = min(int(candidate.sum()), int(num_pos * ratio))
    prob = torch.softmax(logits.to(torch.float32), 0)[0]
    order = torch.sort(torch.where(candidate, prob, torch.tensor(math.inf)), stable=True).indices[:num_neg]
    out = torch.where(pos, cls_t, torch.tensor(ignore_label, dtype=cls_t.dtype))
    out[order] = 0
    return out


@shape_rule("_contrib_MultiBoxTarget")
def _multibox_target_shape(attrs, shapes):
    anchor, label = shapes[0], shapes[1]
    return [(label[0], anchor[1] * 4), (label[0], anchor[1] * 4), (label[0], anchor[1])]


# ----------------------------------------------------------------------------- MultiBoxDetection
def _decode_variances(anchors, loc, variances, clip, out):
    """Corner boxes from (B, A, 4) offsets, written into ``out`` (B, A, 4): MXNet's
    TransformLocations with its arithmetic order, x and y (and w and h) side by side in one
    operation each."""
    size = anchors[:, 2:] - anchors[:, :2]
    centre = anchors[:, :2] + size * 0.5                    # _center_parts' arithmetic, x and y at once
    var = torch.tensor(variances, dtype=loc.dtype)
    o_centre = loc[..., :2] * var[:2] * size + centre
    o_half = torch.exp(loc[..., 2:] * var[2:]) * size / 2
    torch.sub(o_centre, o_half, out=out[..., :2])
    torch.add(o_centre, o_half, out=out[..., 2:])
    if clip:
        out.clamp_(0, 1)
    return out


def _best_class(probs):
    """(B, A) index of the best class of (B, classes, A) scores, the first one on a tie (as
    MXNet's loop over classes keeps it)."""
    return probs.max(1).indices


def _top_order(scores, k):
    """Per row, the positions of the ``k`` highest scores, highest first, ties in position
    order: the first ``k`` of a stable descending sort. ``topk`` gives it when the best
    ``k + 1`` scores of every row differ; otherwise the ``k`` are chosen from the k-th
    score (the first of the tied ones) and sorted stably."""
    if k <= 0 or k >= scores.shape[1]:
        return torch.sort(scores, dim=1, descending=True, stable=True).indices
    best, position = torch.topk(scores, k + 1, dim=1)
    if not bool((best[:, 1:] == best[:, :-1]).any()):
        return position[:, :k]
    kth = best[:, k - 1:k]
    above, tie = scores > kth, scores == kth
    chosen = above | (tie & (torch.cumsum(tie, 1) <= k - above.sum(1, keepdim=True)))
    position = torch.nonzero(chosen)[:, 1].reshape(scores.shape[0], k)
    return position.gather(1, torch.sort(scores.gather(1, position), dim=1, descending=True, stable=True).indices)


@register("_contrib_MultiBoxDetection", inputs=("cls_prob", "loc_pred", "anchor"),
          params=dict(clip=Bool(True), threshold=Float(0.01), background_id=Int(0), nms_threshold=Float(0.5),
                      force_suppress=Bool(False), variances=FloatTuple((0.1, 0.1, 0.2, 0.2)), nms_topk=Int(-1)),
          aliases=["_npx_multibox_detection"])
@serial()
def multibox_detection(cls_prob, loc_pred, anchor, *, clip, threshold, background_id, nms_threshold,
                       force_suppress, variances, nms_topk):
    """MXNet's contrib MultiBoxDetection: (B, A, 6) rows (class, score, x1, y1, x2, y2).

    Each anchor takes its best class but 0 (the background: MXNet's CPU kernel ignores
    background_id), reported as class - 1; those scoring at least ``threshold``
    are decoded, sorted by score (the first nms_topk kept) and suppressed greedily
    (``iou >= nms_threshold``, per class unless force_suppress): a suppressed row keeps its
    box with class -1. Unused rows are -1.

    The rows are built once in anchor order (score and decoded box; the class only where it
    is reported), the valid ones moved to the front (where MXNet does not sort, its rows are
    the valid anchors in anchor order), and the first rows overwritten by the sorted, best
    ``nms_topk``: the class of those alone is looked up, and their suppression is one NMS
    for the whole batch."""
    op = "_contrib_MultiBoxDetection"
    if cls_prob.dim() != 3 or loc_pred.dim() != 2 or anchor.dim() != 3 or anchor.shape[2] != 4 or \
            cls_prob.shape[2] != anchor.shape[1] or loc_pred.shape != (cls_prob.shape[0], anchor.shape[1] * 4):
        raise MXNetError("%s: expects cls_prob (B, classes, A), loc_pred (B, A*4) and anchor (1, A, 4), got %s, "
                         "%s, %s" % (op, _shape(cls_prob), _shape(loc_pred), _shape(anchor)))
    if len(variances) != 4:
        raise MXNetError("%s: variances must have 4 values, got %s" % (op, variances))
    batch, classes, a_count = cls_prob.shape
    dt = cls_prob.dtype
    if classes < 2:  # the background alone: nothing is detected
        return zero_grad_output(cls_prob, torch.full((batch, a_count, 6), -1, dtype=dt))
    with torch.no_grad():
        # MXNet 1.9.1's CPU kernel ignores background_id: class 0 is always the background
        probs = cls_prob.detach()[:, 1:]
        score = probs.amax(1)
        valid = score >= threshold
        count = valid.sum(1, keepdim=True)
        sort = 0 < nms_threshold <= 1
        rows = torch.empty((batch, a_count, 6), dtype=dt)
        rows[..., 0] = -1 if sort else _best_class(probs)
        rows[..., 1] = score
        _decode_variances(anchor[0].detach().to(dt), loc_pred.detach().to(dt).reshape(batch, a_count, 4),
                          variances, clip, rows[..., 2:])
        position = torch.arange(a_count)
        if bool(valid.all()):
            out = rows
        else:  # the valid rows first, in anchor order
            out = torch.full_like(rows, -1)
            out[position < count] = rows[valid]
        if sort:
            # the best nms_topk valid anchors by score (all when nms_topk <= 0), highest first
            order = _top_order(torch.where(valid, score, torch.tensor(-math.inf, dtype=score.dtype)), nms_topk)
            top = position[:order.shape[1]] < (count.clamp(max=nms_topk) if nms_topk > 0 else count)
            rows_b, rows_i = torch.nonzero(top, as_tuple=True)
            picked = order[rows_b, rows_i]
            best = rows[rows_b, picked]
            cid = _best_class(probs[rows_b, :, picked][:, :, None])[:, 0]  # only the sorted rows need one
            # one NMS for the whole batch: images (and classes) never suppress each other
            key = rows_b * classes + (0 if force_suppress else cid)
            keep = nms_keep(best[:, 2:], nms_threshold, key, inclusive=True)
            # suppressed rows (and the unsorted rows past nms_topk) have class -1
            best[:, 0] = torch.where(keep, cid.to(dt), torch.tensor(-1, dtype=dt))
            out[rows_b, rows_i] = best
    return zero_grad_output(cls_prob, out)


@shape_rule("_contrib_MultiBoxDetection")
def _multibox_detection_shape(attrs, shapes):
    cls_prob = shapes[0]
    return [(cls_prob[0], cls_prob[2], 6)]


# ----------------------------------------------------------------------------- Proposal
def _base_anchors(stride, ratios, scales):
    """py-faster-rcnn's anchors around the (0, 0, stride-1, stride-1) cell: each ratio, then
    each scale, with widths and heights rounded as MXNet does."""
    size = float(stride * stride)
    ctr = 0.5 * (stride - 1)
    out = []
    for r in ratios:
        ws = math.floor(math.sqrt(size / r) + 0.5)
        hs = math.floor(ws * r + 0.5)
        for s in scales:
            w, h = ws * s, hs * s
            out.append([ctr - 0.5 * (w - 1), ctr - 0.5 * (h - 1), ctr + 0.5 * (w - 1), ctr + 0.5 * (h - 1)])
    return torch.tensor(out, dtype=torch.float32)


def _proposals_one(scores, deltas, info, attrs):
    """Proposals of one image: (post_nms_top_n, 4) boxes and (post_nms_top_n,) scores."""
    stride = attrs["feature_stride"]
    anchors = _base_anchors(stride, attrs["ratios"], attrs["scales"])      # (A, 4)
    a_count = anchors.shape[0]
    h, w = scores.shape[1:]
    sy = torch.arange(h, dtype=torch.float32) * stride
    sx = torch.arange(w, dtype=torch.float32) * stride
    shift = torch.stack(torch.broadcast_tensors(sx[:, None, None], sy[None, :, None],
                                                sx[:, None, None], sy[None, :, None]), -1)[..., 0, :]
    shift = shift.permute(1, 0, 2)                                          # (H, W, 4)
    boxes = (shift[:, :, None, :] + anchors).reshape(-1, 4)                 # (H*W*A, 4) in (h, w, a) order
    fg = scores[a_count:].permute(1, 2, 0).reshape(-1).to(torch.float32)
    d = deltas.reshape(a_count, 4, h, w).permute(2, 3, 0, 1).reshape(-1, 4).to(torch.float32)
    im_h, im_w, im_scale = (float(v) for v in info[:3])
    if attrs["iou_loss"]:
        pred = boxes + d
    else:
        bw = boxes[:, 2] - boxes[:, 0] + 1
        bh = boxes[:, 3] - boxes[:, 1] + 1
        cx, cy = boxes[:, 0] + 0.5 * (bw - 1), boxes[:, 1] + 0.5 * (bh - 1)
        px, py = d[:, 0] * bw + cx, d[:, 1] * bh + cy
        pw, ph = torch.exp(d[:, 2]) * bw, torch.exp(d[:, 3]) * bh
        pred = torch.stack([px - 0.5 * (pw - 1), py - 0.5 * (ph - 1), px + 0.5 * (pw - 1), py + 0.5 * (ph - 1)], 1)
    limit = torch.tensor([im_w - 1, im_h - 1, im_w - 1, im_h - 1])
    pred = torch.minimum(pred, limit).clamp(min=0)
    # positions beyond the image's real feature size score -1
    hh = torch.arange(h)[:, None, None].expand(h, w, a_count).reshape(-1)
    ww = torch.arange(w)[None, :, None].expand(h, w, a_count).reshape(-1)
    real_h, real_w = int(im_h / stride), int(im_w / stride)
    fg = torch.where((hh >= real_h) | (ww >= real_w), torch.tensor(-1.0), fg)
    min_size = attrs["rpn_min_size"] * im_scale
    small = ((pred[:, 2] - pred[:, 0] + 1) < min_size) | ((pred[:, 3] - pred[:, 1] + 1) < min_size)
    pred = torch.where(small[:, None], pred + torch.tensor([-1.0, -1.0, 1.0, 1.0]) * (min_size / 2), pred)
    fg = torch.where(small, torch.tensor(-1.0), fg)
    order = torch.sort(fg, descending=True, stable=True).indices
    pre = attrs["rpn_pre_nms_top_n"]
    if 0 < pre < order.numel():
        order = order[:pre]
    pred, fg = pred[order], fg[order]
    keep = torch.nonzero(nms_keep(pred, attrs["threshold"], plus=1.0)).squeeze(1)
    post = attrs["rpn_post_nms_top_n"]
    keep = keep[:post]
    pick = keep[torch.arange(post) % keep.numel()] if keep.numel() else torch.zeros(post, dtype=torch.long)
    return pred[pick], fg[pick]


_PROPOSAL_PARAMS = dict(rpn_pre_nms_top_n=Int(6000), rpn_post_nms_top_n=Int(300), threshold=Float(0.7),
                        rpn_min_size=Int(16), scales=FloatTuple((4.0, 8.0, 16.0, 32.0)),
                        ratios=FloatTuple((0.5, 1.0, 2.0)), feature_stride=Int(16), output_score=Bool(False),
                        iou_loss=Bool(False))


def _proposal(op, cls_prob, bbox_pred, im_info, attrs, batch):
    a_count = len(attrs["scales"]) * len(attrs["ratios"])
    if cls_prob.dim() != 4 or cls_prob.shape[1] != 2 * a_count or bbox_pred.dim() != 4 or \
            bbox_pred.shape[1] != 4 * a_count or bbox_pred.shape[2:] != cls_prob.shape[2:] or \
            im_info.dim() != 2 or im_info.shape[1] < 3 or cls_prob.shape[0] != batch or \
            bbox_pred.shape[0] != batch or im_info.shape[0] != batch:
        raise MXNetError("%s: expects cls_prob (%s, 2*%d, H, W), bbox_pred (%s, 4*%d, H, W) and im_info (%s, 3) "
                         "for %d anchors, got %s, %s, %s"
                         % (op, batch, a_count, batch, a_count, batch, a_count, _shape(cls_prob),
                            _shape(bbox_pred), _shape(im_info)))
    dt = cls_prob.dtype
    rois, scores = [], []
    with torch.no_grad():
        for b in range(cls_prob.shape[0]):
            boxes, score = _proposals_one(cls_prob[b].detach(), bbox_pred[b].detach(), im_info[b].detach(), attrs)
            rois.append(torch.cat([torch.full((boxes.shape[0], 1), float(b)), boxes], 1))
            scores.append(score[:, None])
    out = zero_grad_output(cls_prob, torch.cat(rois).to(dt))
    if attrs["output_score"]:
        return out, zero_grad_output(cls_prob, torch.cat(scores).to(dt))
    return out


def _proposal_outputs(attrs):
    return 2


def _proposal_visible(attrs):
    return 2 if attrs["output_score"] else 1


@register("_contrib_Proposal", inputs=("cls_prob", "bbox_pred", "im_info"), params=dict(_PROPOSAL_PARAMS),
          num_outputs=_proposal_outputs, num_visible_outputs=_proposal_visible,
          output_names=lambda a: ("output", "score")[:_proposal_visible(a)])
@serial()
def proposal(cls_prob, bbox_pred, im_info, **attrs):
    """MXNet's contrib Proposal (one image): anchors shifted over the (1, 2A, H, W) score map,
    moved by the (1, 4A, H, W) deltas, clipped to the image, small boxes scored -1, the
    best rpn_pre_nms_top_n suppressed at ``threshold`` (pixel "+1" IoU), and the first
    rpn_post_nms_top_n kept (repeated cyclically when fewer): (post, 5) rois
    (0, x1, y1, x2, y2) and, with output_score, their (post, 1) scores."""
    return _proposal("_contrib_Proposal", cls_prob, bbox_pred, im_info, attrs, 1)


@register("_contrib_MultiProposal", inputs=("cls_prob", "bbox_pred", "im_info"), params=dict(_PROPOSAL_PARAMS),
          num_outputs=_proposal_outputs, num_visible_outputs=_proposal_visible,
          output_names=lambda a: ("output", "score")[:_proposal_visible(a)])
@serial()
def multi_proposal(cls_prob, bbox_pred, im_info, **attrs):
    """MXNet's contrib MultiProposal: Proposal for each image of the batch; rois carry the
    image index, (B * post, 5)."""
    return _proposal("_contrib_MultiProposal", cls_prob, bbox_pred, im_info, attrs, cls_prob.shape[0])


def _proposal_shape(attrs, shapes):
    count = shapes[0][0] * attrs["rpn_post_nms_top_n"]
    return [(count, 5), (count, 1)][:_proposal_visible(attrs)]


shape_rule("_contrib_Proposal")(_proposal_shape)
shape_rule("_contrib_MultiProposal")(_proposal_shape)
