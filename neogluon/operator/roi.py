"""Region-of-interest pooling for two-stage detectors: ROIAlign and PSROIPooling
(MXNet 1.9.1's ``src/operator/contrib/roi_align.cc`` and ``psroi_pooling.cc``).

ROIAlign's output bins are weighted sums of feature-map pixels (the bilinear neighbours
of each bin's samples, MXNet's clamping rules): one sparse (CSR) matrix over the
channel-last pixels gives all bins in one product, whose gradient is MXNet's bilinear
backward; dtypes the sparse product does not take sample with ``grid_sample`` (border
padding is MXNet's clamping within a pixel of the edge). The position-sensitive variant
gathers each bin's channel block from channel-last rows. It runs on one torch thread, as
MXNet's CPU kernel does: its mid-sized calls lose more to waking threads than they gain.
PSROIPooling averages each bin of its position-sensitive channel through a summed-area
table, whose gradient spreads each bin's gradient evenly over its pixels, as MXNet's
backward does. ROIs receive no gradient in either (MXNet gives them none).
"""
import math
import warnings

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .conv import _round_half_away
from .detection import serial
from .registry import Bool, Float, Int, Shape, register, shape_rule

__all__ = ["bilinear_axis", "summed_area"]


def _shape(t):
    return tuple(t.shape)


def _check_rois(op, data, rois):
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise MXNetError("%s: expects data (N, C, H, W) and rois (R, 5) as (batch_index, x1, y1, x2, y2), got "
                         "data %s, rois %s" % (op, _shape(data), _shape(rois)))


# ----------------------------------------------------------------------------- ROIAlign
def bilinear_axis(start, bin_size, pooled, grid, size):
    """Sample positions of ROIAlign along one axis: (G, pooled, grid, 2) indices and weights
    of the lower and upper neighbours, MXNet's rules (a sample outside [-1, size] weighs 0;
    one past the last pixel snaps to it). ``grid`` is the samples per bin, or a (G,) tensor
    of them: a ROI with fewer than the most has its extra samples weigh 0."""
    dt = start.dtype
    if isinstance(grid, torch.Tensor):
        most, per = int(grid.max()), grid.to(dt)[:, None, None]
    else:
        most, per = grid, grid
    steps = torch.arange(most, dtype=dt)
    pos = (start[:, None, None] + torch.arange(pooled, dtype=dt)[:, None] * bin_size[:, None, None]
           + (steps + 0.5) * (bin_size[:, None, None] / per))
    valid = (pos >= -1.0) & (pos <= size)
    if isinstance(grid, torch.Tensor):
        valid = valid & (steps < per)
    pos = pos.clamp(min=0)
    low = pos.floor().long()
    edge = low >= size - 1
    low = torch.where(edge, torch.full_like(low, size - 1), low)
    high = torch.where(edge, low, low + 1)
    pos = torch.where(edge, low.to(dt), pos)
    frac = pos - low.to(dt)
    weight = torch.stack([1 - frac, frac], -1) * valid[..., None].to(dt)
    return torch.stack([low, high], -1), weight


def _roi_boxes(rois, ph, pw, scale, aligned):
    """(start_x, start_y, bin width, bin height) of each ROI, MXNet's rules."""
    box = rois[:, 1:] * scale - (0.5 if aligned else 0.0)
    height, width = box[:, 3] - box[:, 1], box[:, 2] - box[:, 0]
    if not aligned:
        height, width = height.clamp(min=1.0), width.clamp(min=1.0)
    return box[:, 0], box[:, 1], width / pw, height / ph


def _axis_window(idx, weight, size):
    """One axis's sample neighbours of each bin, (G, pooled, grid, 2) indices and weights,
    merged into a window of consecutive pixels from the bin's first one: a pixel read by
    several samples appears once, with their weights summed (a bin's samples lie within a
    few pixels, so the window is shorter than the 2 * grid neighbours). Unchanged when it
    would not be."""
    g, pooled = idx.shape[:2]
    idx, weight = idx.reshape(g, pooled, -1), weight.reshape(g, pooled, -1)
    used = weight != 0
    first = torch.where(used, idx, torch.full_like(idx, size)).amin(-1, keepdim=True)
    first = torch.where(first == size, torch.zeros_like(first), first)   # a bin without samples
    rel = torch.where(used, idx - first, torch.zeros_like(idx))
    span = int(rel.max()) + 1 if rel.numel() else 1
    if span >= idx.shape[-1]:
        return idx, weight
    window = torch.zeros((g, pooled, span), dtype=weight.dtype).scatter_add_(-1, rel, weight)
    return (first + torch.arange(span)).clamp(max=size - 1), window    # pixels past the edge weigh 0


def _roi_align_rows(batch, rois, h, w, ph, pw, grids, scale, aligned):
    """(pixel indices, weights), each (G * ph * pw, entries): for every output bin of the
    ROIs, the feature-map pixels its bilinear samples read and what each adds to the bin's
    mean, MXNet's rules (see ``bilinear_axis``; ``grids`` (G, 2): each ROI's samples per
    bin): the outer product of the bin's row and column windows (see ``_axis_window``)."""
    x0, y0, bin_w, bin_h = _roi_boxes(rois, ph, pw, scale, aligned)
    y_idx, y_w = _axis_window(*bilinear_axis(y0, bin_h, ph, grids[:, 0], h), h)    # (G, ph, Wy)
    x_idx, x_w = _axis_window(*bilinear_axis(x0, bin_w, pw, grids[:, 1], w), w)    # (G, pw, Wx)
    pix = ((batch[:, None, None] * h + y_idx)[:, :, None, :, None] * w
           + x_idx[:, None, :, None, :])                                           # (G, ph, pw, Wy, Wx)
    count = (grids[:, 0] * grids[:, 1]).to(x_w.dtype)[:, None, None, None, None]
    weight = y_w[:, :, None, :, None] * (x_w[:, None, :, None, :] / count)
    entries = y_idx.shape[-1] * x_idx.shape[-1]
    return pix.reshape(-1, entries), weight.reshape(-1, entries)


def _roi_align_sparse(data, live, batch, rois, grids, ph, pw, scale, aligned):
    """(R, C, ph, pw) ROIAlign as one sparse-times-dense product: every output bin is a
    weighted sum of feature-map pixels (its samples' bilinear neighbours), so the bins are
    the rows of a sparse matrix over the channel-last pixels (N*H*W, C). torch's CSR
    product (MKL) does MXNet's gathering and summing with vector loads along the channels,
    and its gradient is the transposed product, MXNet's bilinear backward. The rows are
    laid out in ROI order (a ROI outside the batch, or empty, has none: zeros)."""
    n, c, h, w = data.shape
    r, bins = rois.shape[0], ph * pw
    with torch.no_grad():
        used = live & (grids.min(1).values >= 1)  # an empty ROI (aligned, zero size) samples nothing: 0
        idx = torch.nonzero(used).squeeze(1)
        if idx.numel():
            cols, vals = _roi_align_rows(batch[idx], rois[idx], h, w, ph, pw, grids[idx], scale, aligned)
            entries = cols.shape[1]
        else:
            cols, vals, entries = torch.zeros(0, dtype=torch.long), torch.zeros(0), 0
        per_row = (used.to(torch.long) * entries).repeat_interleave(bins)
        crow = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(per_row, 0)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's note that its CSR support is in beta
            matrix = torch.sparse_csr_tensor(crow, cols.reshape(-1), vals.reshape(-1).to(data.dtype),
                                             (r * bins, n * h * w), check_invariants=False)
    flat = data.permute(0, 2, 3, 1).reshape(n * h * w, c)
    # addmm with beta=0 writes the product straight into a new output; ``matrix @ flat``
    # first zero-fills it (a 15 MB pass for a Faster R-CNN head) and then adds the product
    nothing = torch.zeros((), dtype=data.dtype).expand(r * bins, c)
    return torch.addmm(nothing, matrix, flat, beta=0).reshape(-1, ph, pw, c).permute(0, 3, 1, 2)


def _roi_align_sampled(data, index, batch, rois, ph, pw, grid, scale, aligned):
    """[(ROI indices, (G_n, C, ph, pw))] per image for ROIs sharing one (grid_h, grid_w),
    through ``grid_sample`` (the dtypes torch's sparse product does not take).

    MXNet's sampling is bilinear with positions in [-1, 0] and [size-1, size] clamped to
    the border pixel, which is grid_sample's border padding; positions beyond weigh 0."""

    gh, gw = grid
    h, w = data.shape[2:]
    dt = data.dtype
    with torch.no_grad():
        x0, y0, bin_w, bin_h = _roi_boxes(rois, ph, pw, scale, aligned)
        ys = (y0[:, None, None] + torch.arange(ph, dtype=dt)[:, None] * bin_h[:, None, None]
              + (torch.arange(gh, dtype=dt) + 0.5) * (bin_h / gh)[:, None, None]).reshape(-1, ph * gh)
        xs = (x0[:, None, None] + torch.arange(pw, dtype=dt)[:, None] * bin_w[:, None, None]
              + (torch.arange(gw, dtype=dt) + 0.5) * (bin_w / gw)[:, None, None]).reshape(-1, pw * gw)
        # (G, ph, pw, gh * gw) points: the samples of a bin together
        vy = ((ys >= -1) & (ys <= h)).to(dt).reshape(-1, ph, 1, gh, 1)
        vx = ((xs >= -1) & (xs <= w)).to(dt).reshape(-1, 1, pw, 1, gw)
        weight = (vy * vx).reshape(-1, ph, pw, gh * gw)
        norm_y = ys * (2.0 / (h - 1)) - 1 if h > 1 else torch.zeros_like(ys)
        norm_x = xs * (2.0 / (w - 1)) - 1 if w > 1 else torch.zeros_like(xs)
        py = norm_y.reshape(-1, ph, 1, gh, 1)
        px = norm_x.reshape(-1, 1, pw, 1, gw)
        points = torch.stack(torch.broadcast_tensors(px, py), -1).reshape(-1, ph * pw, gh * gw, 2)
    parts = []
    masked = not bool(weight.all())
    for n in torch.unique(batch).tolist():
        sel = torch.nonzero(batch == n).squeeze(1)
        # the grid's long axis last: grid_sample vectorises along it
        g = points[sel].reshape(-1, gh * gw, 2).transpose(0, 1)[None]            # (1, gh*gw, G_n*ph*pw, 2)
        sampled = F.grid_sample(data[n:n + 1], g, mode="bilinear", padding_mode="border", align_corners=True)
        if masked:
            sampled = sampled * weight[sel].reshape(-1, gh * gw).t()
        pooled = sampled.mean(2) if gh * gw > 1 else sampled[:, :, 0]            # (1, C, G_n * ph * pw)
        parts.append((index[sel], pooled.reshape(data.shape[1], -1, ph, pw).permute(1, 0, 2, 3)))
    return parts


def _roi_align_gathered(flat, batch, rois, h, w, ph, pw, grid, scale, aligned, bins):
    """Position-sensitive (G, ph, pw, C/bins): bin (a, b) gathers its own channel block
    from flat (N*H*W*bins, C/bins) rows."""
    gh, gw = grid
    x0, y0, bin_w, bin_h = _roi_boxes(rois, ph, pw, scale, aligned)
    y_idx, y_w = bilinear_axis(y0, bin_h, ph, gh, h)                    # (G, ph, gh, 2)
    x_idx, x_w = bilinear_axis(x0, bin_w, pw, gw, w)                    # (G, pw, gw, 2)
    pix = ((batch[:, None, None, None, None, None, None] * h + y_idx[:, :, :, :, None, None, None]) * w
           + x_idx[:, None, None, None])                               # (G, ph, gh, 2, pw, gw, 2)
    cell = (torch.arange(ph)[:, None] * pw + torch.arange(pw))[None, :, None, None, :, None, None]
    pix = (pix * bins + cell).permute(0, 1, 4, 2, 3, 5, 6).reshape(-1, gh * gw * 4)
    weight = (y_w[:, :, :, :, None, None, None] * x_w[:, None, None, None]) / max(gh * gw, 1)
    weight = weight.permute(0, 1, 4, 2, 3, 5, 6).reshape(-1, 1, gh * gw * 4)
    vals = flat[pix]                                                    # (G*ph*pw, samples, C')
    return torch.bmm(weight.to(vals.dtype), vals).reshape(-1, ph, pw, flat.shape[1])


def _roi_grids(rois, ph, pw, scale, sample_ratio, aligned):
    if sample_ratio > 0:
        return torch.full((rois.shape[0], 2), sample_ratio, dtype=torch.long)
    box = rois[:, 1:] * scale
    height, width = box[:, 3] - box[:, 1], box[:, 2] - box[:, 0]
    if not aligned:
        height, width = height.clamp(min=1.0), width.clamp(min=1.0)
    return torch.stack([torch.ceil(height / ph), torch.ceil(width / pw)], 1).long().clamp(min=0)


@register("_contrib_ROIAlign", inputs=("data", "rois"),
          params=dict(pooled_size=Shape(), spatial_scale=Float(), sample_ratio=Int(-1),
                      position_sensitive=Bool(False), aligned=Bool(False)))
@serial()
def roi_align(data, rois, *, pooled_size, spatial_scale, sample_ratio, position_sensitive, aligned):
    """MXNet's contrib ROIAlign: the mean of bilinear samples on a grid in each of the
    pooled_size bins of each ROI (batch_index, x1, y1, x2, y2) scaled by spatial_scale.

    The grid is sample_ratio^2 points, or ceil(roi size / pooled size) per axis when
    sample_ratio <= 0; ``aligned`` shifts by half a pixel and drops the 1-pixel minimum
    ROI size; ``position_sensitive`` reads bin (i, j) of output channel c from input
    channel (c * ph + i) * pw + j. ROIs with a negative batch index give zeros."""
    op = "_contrib_ROIAlign"
    _check_rois(op, data, rois)
    if len(pooled_size) != 2 or min(pooled_size) < 1:
        raise MXNetError("%s: pooled_size=%s must be (height, width) with positive sizes" % (op, pooled_size))
    ph, pw = pooled_size
    n, c, h, w = data.shape
    bins = ph * pw if position_sensitive else 1
    if c % bins:
        raise MXNetError("%s: position_sensitive needs channels (data %s) divisible by pooled_size %s"
                         % (op, _shape(data), pooled_size))
    out_c = c // bins
    with torch.no_grad():
        r = rois.detach().to(data.dtype)
        batch = r[:, 0].long()
        live = (batch >= 0) & (batch < n)
        grids = _roi_grids(r, ph, pw, spatial_scale, sample_ratio, aligned)
        grids[~live] = -1
    if position_sensitive:  # channel-last rows: (N*H*W*bins, C/bins)
        flat = data.reshape(n, out_c, bins, h, w).permute(0, 3, 4, 2, 1).reshape(-1, out_c)
    if not position_sensitive and data.dtype in (torch.float32, torch.float64):
        return _roi_align_sparse(data, live, batch, r, grids, ph, pw, spatial_scale, aligned)
    parts = []
    for grid in torch.unique(grids[live], dim=0).tolist() if bool(live.any()) else []:
        if min(grid) < 1:  # an empty ROI (aligned, zero size) samples nothing: MXNet gives 0
            continue
        idx = torch.nonzero(live & (grids == torch.tensor(grid)).all(1)).squeeze(1)
        if position_sensitive:
            parts.append((idx, _roi_align_gathered(flat, batch[idx], r[idx], h, w, ph, pw, grid, spatial_scale,
                                                   aligned, bins).permute(0, 3, 1, 2)))
        else:
            parts += _roi_align_sampled(data, idx, batch[idx], r[idx], ph, pw, grid, spatial_scale, aligned)
    out = data.new_zeros((rois.shape[0], out_c, ph, pw))
    if parts:
        out = out.index_put((torch.cat([i for i, _ in parts]),), torch.cat([v for _, v in parts]))
    return out


@shape_rule("_contrib_ROIAlign")
def _roi_align_shape(attrs, shapes):
    data, rois = shapes
    ph, pw = attrs["pooled_size"]
    c = data[1] // (ph * pw) if attrs["position_sensitive"] else data[1]
    return [(rois[0], c, ph, pw)]


# ----------------------------------------------------------------------------- PSROIPooling
def _psroi_bounds(start, end, pooled, size):
    """Integer bin bounds [lo, hi) per ROI and bin, clipped to [0, size]."""
    length = (end - start).clamp(min=0.1)
    bins = length / pooled
    p = torch.arange(pooled, dtype=start.dtype)
    lo = torch.floor(p * bins[:, None] + start[:, None]).clamp(0, size).long()
    hi = torch.ceil((p + 1) * bins[:, None] + start[:, None]).clamp(0, size).long()
    return lo, hi


def summed_area(data):
    """(N, C, H+1, W+1) float64 summed-area table with a zero first row and column."""
    table = data.to(torch.float64).cumsum(2).cumsum(3)
    return torch.nn.functional.pad(table, (1, 0, 1, 0))


@register("_contrib_PSROIPooling", inputs=("data", "rois"),
          params=dict(spatial_scale=Float(), output_dim=Int(), pooled_size=Int(), group_size=Int(0)))
def psroi_pooling(data, rois, *, spatial_scale, output_dim, pooled_size, group_size):
    """MXNet's contrib PSROIPooling (R-FCN): bin (i, j) of output channel c averages input
    channel (c * g + gi) * g + gj over the bin, gi = floor(i * g / pooled_size); ROI corners
    are rounded, the end made inclusive, then scaled; an empty bin gives 0. group_size 0
    means pooled_size."""
    op = "_contrib_PSROIPooling"
    _check_rois(op, data, rois)
    g = group_size or pooled_size
    p = pooled_size
    if p < 1 or data.shape[1] != output_dim * g * g:
        raise MXNetError("%s: data has %d channels, expected output_dim * group_size^2 = %d * %d^2 (data %s, "
                         "pooled_size=%d)" % (op, data.shape[1], output_dim, g, _shape(data), p))
    n, _, h, w = data.shape
    with torch.no_grad():
        r = rois.detach().to(torch.float64)
        batch = r[:, 0].long().clamp(0, n - 1)
        corner = _round_half_away(r[:, 1:])
        ys, ye = corner[:, 1] * spatial_scale, (corner[:, 3] + 1) * spatial_scale
        xs, xe = corner[:, 0] * spatial_scale, (corner[:, 2] + 1) * spatial_scale
        h0, h1 = _psroi_bounds(ys, ye, p, h)                                   # (R, p)
        w0, w1 = _psroi_bounds(xs, xe, p, w)
        cell = torch.div(torch.arange(p) * g, p, rounding_mode="floor").clamp(max=g - 1)
        chan = ((torch.arange(output_dim)[:, None, None] * g + cell[:, None]) * g + cell)   # (D, p, p)
        area = ((h1 - h0)[:, :, None] * (w1 - w0)[:, None, :]).clamp(min=0)             # (R, p, p)
    table = summed_area(data)
    b = batch[:, None, None, None]
    c = chan[None]

    def corner_sum(hh, ww):
        return table[b, c, hh[:, None, :, None], ww[:, None, None, :]]

    total = corner_sum(h1, w1) - corner_sum(h0, w1) - corner_sum(h1, w0) + corner_sum(h0, w0)
    empty = (area == 0)[:, None]
    out = torch.where(empty, torch.zeros((), dtype=total.dtype), total / area.clamp(min=1)[:, None])
    return out.to(data.dtype)


@shape_rule("_contrib_PSROIPooling")
def _psroi_shape(attrs, shapes):
    p = attrs["pooled_size"]
    return [(shapes[1][0], attrs["output_dim"], p, p)]



# ----------------------------------------------------------------------------- RROIAlign
def _rroi_points(rois, ph, pw, grid, scale):
    """(G, ph, gh, pw, gw) sample positions (y, x) of rotated ROIs (batch, cx, cy, w, h,
    angle in degrees) sharing one grid: the bin grid of the upright box centred at 0,
    rotated by the angle and moved to the ROI's centre (MXNet's ``rroi_align.cc``)."""
    gh, gw = grid
    dt = rois.dtype
    cx, cy = rois[:, 1] * scale, rois[:, 2] * scale
    width, height = (rois[:, 3] * scale).clamp(min=1.0), (rois[:, 4] * scale).clamp(min=1.0)
    theta = rois[:, 5] * (math.pi / 180.0)
    bin_h, bin_w = height / ph, width / pw
    yy = (-height / 2)[:, None, None] + torch.arange(ph, dtype=dt)[:, None] * bin_h[:, None, None] \
        + (torch.arange(gh, dtype=dt) + 0.5) * (bin_h / gh)[:, None, None]                 # (G, ph, gh)
    xx = (-width / 2)[:, None, None] + torch.arange(pw, dtype=dt)[:, None] * bin_w[:, None, None] \
        + (torch.arange(gw, dtype=dt) + 0.5) * (bin_w / gw)[:, None, None]                 # (G, pw, gw)
    yy, xx = yy[:, :, :, None, None], xx[:, None, None]
    cos, sin = [v[:, None, None, None, None] for v in (torch.cos(theta), torch.sin(theta))]
    x = xx * cos + yy * sin + cx[:, None, None, None, None]
    y = yy * cos - xx * sin + cy[:, None, None, None, None]
    return y, x


def _rroi_axis(pos, size):
    """Lower/upper neighbour indices and weights along one axis, MXNet's clamping (a
    position at or past the last pixel snaps to it)."""
    pos = pos.clamp(min=0)
    low = pos.floor().long()
    edge = low >= size - 1
    low = torch.where(edge, torch.full_like(low, size - 1), low)
    high = torch.where(edge, low, low + 1)
    frac = torch.where(edge, torch.zeros_like(pos), pos - low.to(pos.dtype))
    return low, high, frac


@register("_contrib_RROIAlign", inputs=("data", "rois"), differentiable=False,
          params=dict(pooled_size=Shape(), spatial_scale=Float(), sampling_ratio=Int(-1)))
@serial()
def rroi_align(data, rois, *, pooled_size, spatial_scale, sampling_ratio):
    """MXNet's contrib RROIAlign (rotated ROIAlign, for text detection): the mean of bilinear
    samples in each of the pooled_size bins of each rotated ROI (batch_index, center_x,
    center_y, width, height, angle in degrees, counter-clockwise) scaled by spatial_scale.

    Width and height are at least 1; the grid is sampling_ratio^2 points per bin, or
    ceil(roi size / pooled size) per axis; a sample outside [-1, size] of the feature map
    counts as 0. MXNet has no gradient for it (neither here: the output is a constant)."""
    op = "_contrib_RROIAlign"
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 6:
        raise MXNetError("%s: expects data (N, C, H, W) and rois (R, 6) as (batch_index, center_x, center_y, width, "
                         "height, angle), got data %s, rois %s" % (op, _shape(data), _shape(rois)))
    if len(pooled_size) != 2 or min(pooled_size) < 1:
        raise MXNetError("%s: pooled_size=%s must be (height, width) with positive sizes" % (op, pooled_size))
    ph, pw = pooled_size
    n, c, h, w = data.shape
    data, r = data.detach(), rois.detach().to(data.dtype)
    out = data.new_zeros((r.shape[0], c, ph, pw))
    if sampling_ratio > 0:
        grids = torch.full((r.shape[0], 2), sampling_ratio, dtype=torch.long)
    else:
        size = torch.stack([(r[:, 4] * spatial_scale).clamp(min=1.0) / ph,
                            (r[:, 3] * spatial_scale).clamp(min=1.0) / pw], 1)
        grids = torch.ceil(size).long()
    flat = data.permute(0, 2, 3, 1).reshape(-1, c)                       # (N*H*W, C) rows
    batch = r[:, 0].long().clamp(0, n - 1)
    for grid in torch.unique(grids, dim=0).tolist():
        idx = torch.nonzero((grids == torch.tensor(grid)).all(1)).squeeze(1)
        y, x = _rroi_points(r[idx], ph, pw, grid, spatial_scale)
        valid = ((y >= -1.0) & (y <= h) & (x >= -1.0) & (x <= w)).to(data.dtype)
        y0, y1, ly = _rroi_axis(y, h)
        x0, x1, lx = _rroi_axis(x, w)
        base = batch[idx][:, None, None, None, None] * (h * w)
        total = 0
        for yi, wy in ((y0, 1 - ly), (y1, ly)):
            for xi, wx in ((x0, 1 - lx), (x1, lx)):
                total = total + flat[base + yi * w + xi] * (wy * wx * valid)[..., None]
        pooled = total.sum((2, 4)) / (grid[0] * grid[1])                  # (G, ph, pw, C)
        out[idx] = pooled.permute(0, 3, 1, 2)
    return out


@shape_rule("_contrib_RROIAlign")
def _rroi_align_shape(attrs, shapes):
    data, rois = shapes
    return [(rois[0], data[1]) + tuple(attrs["pooled_size"])]
