"""Deformable convolutions (v1 and the modulated v2) and deformable position-sensitive ROI
pooling, as MXNet 1.9.1's ``src/operator/contrib/deformable_convolution``,
``modulated_deformable_convolution`` and ``deformable_psroi_pooling``.

The deformable im2col samples each kernel tap at its offset position bilinearly, gathers
the four corners of every tap for all channels of a deformable group at once, and
multiplies the columns with the grouped weight; torch differentiates the gathers and the
bilinear weights, which gives MXNet's data, offset (coordinate) and mask gradients. The two
operators' CPU kernels sample by different rules: DeformableConvolution's (v1) reads 0 at a
position outside [0, size) and snaps one past the last pixel to it; ModulatedDeformableConvolution's
(DCNv2's ``dmcn_im2col_bilinear``) samples any position inside (-1, size), each corner outside
the image reading 0 (zero padding, no snapping).
"""
import torch

from ..base import MXNetError
from .conv import _conv_infer_args, _geometry, _round_half_away, _weight_shape
from .registry import Bool, Float, Int, Shape, Str, register, shape_rule


def _shape(t):
    return tuple(t.shape)


# ----------------------------------------------------------------------------- deformable im2col
def _corner_sample(flat, h, w, height, width, modulated):
    """Bilinear samples of flat (N, G, Cg, H*W) at positions h, w (N, G, L). Returns (N, G, Cg, L).

    By DeformableConvolution's CPU rule (``modulated`` False) a position outside [0, size)
    reads 0, and at or past the last row/column the sample snaps to it; by
    ModulatedDeformableConvolution's, a position outside (-1, size) reads 0 and each of the
    four corners outside the image reads 0."""
    if modulated:
        inside = ((h > -1) & (w > -1) & (h < height) & (w < width)).to(h.dtype)
    else:
        inside = ((h >= 0) & (w >= 0) & (h < height) & (w < width)).to(h.dtype)
    parts = []
    for pos, size in ((h, height), (w, width)):
        low = torch.floor(pos)
        if modulated:
            high = low + 1
            corners = [(low, 1 - (pos - low)), (high, pos - low)]
            parts.append([(idx.long().clamp(0, size - 1), weight * ((idx >= 0) & (idx <= size - 1)).to(pos.dtype))
                          for idx, weight in corners])
            continue
        edge = low >= size - 1
        low = torch.where(edge, torch.full_like(low, size - 1), low)
        pos = torch.where(edge, low, pos)
        frac = pos - low
        low = low.long().clamp(min=0)
        parts.append([(low, 1 - frac), ((low + 1).clamp(max=size - 1), frac)])
    out = 0
    for yy, wy in parts[0]:
        for xx, wx in parts[1]:
            vals = torch.gather(flat, 3, (yy * width + xx)[:, :, None, :].expand(-1, -1, flat.shape[2], -1))
            out = out + vals * (wy * wx * inside)[:, :, None, :]
    return out


def _deformable_conv(op, data, offset, mask, weight, bias, kernel, stride, dilate, pad, num_filter, num_group,
                     num_deformable_group):
    if len(kernel) != 2:
        raise MXNetError("%s: only 2-d kernels are supported, got kernel=%s" % (op, kernel))
    stride, dilate, pad = _geometry(op, kernel, stride, dilate, pad)
    n, c, height, width = data.shape
    kh, kw = kernel
    taps = kh * kw
    out_h = (height + 2 * pad[0] - dilate[0] * (kh - 1) - 1) // stride[0] + 1
    out_w = (width + 2 * pad[1] - dilate[1] * (kw - 1) - 1) // stride[1] + 1
    dg = num_deformable_group
    if data.dim() != 4 or c % num_group or c % dg or num_filter % num_group or out_h < 1 or out_w < 1:
        raise MXNetError("%s: data %s does not fit kernel=%s, num_group=%d, num_deformable_group=%d"
                         % (op, _shape(data), kernel, num_group, dg))
    if _shape(offset) != (n, dg * 2 * taps, out_h, out_w):
        raise MXNetError("%s: offset must be %s for data %s, got %s"
                         % (op, (n, dg * 2 * taps, out_h, out_w), _shape(data), _shape(offset)))
    if mask is not None and _shape(mask) != (n, dg * taps, out_h, out_w):
        raise MXNetError("%s: mask must be %s for data %s, got %s"
                         % (op, (n, dg * taps, out_h, out_w), _shape(data), _shape(mask)))
    expected = _weight_shape(num_filter, c // num_group, kernel, None)
    if _shape(weight) != expected:
        raise MXNetError("%s: Shape inconsistent, provided weight=%s, inferred shape=%s from data %s"
                         % (op, _shape(weight), expected, _shape(data)))
    dt = data.dtype
    tap_i = torch.arange(kh, dtype=dt).repeat_interleave(kw)          # tap k = i * kw + j
    tap_j = torch.arange(kw, dtype=dt).repeat(kh)
    base_h = (tap_i * dilate[0])[:, None, None] + (torch.arange(out_h, dtype=dt) * stride[0] - pad[0])[:, None]
    base_w = (tap_j * dilate[1])[:, None, None] + (torch.arange(out_w, dtype=dt) * stride[1] - pad[1])
    off = offset.reshape(n, dg, taps, 2, out_h, out_w)
    h = (base_h + off[:, :, :, 0]).reshape(n, dg, -1)                  # (N, dg, taps*Ho*Wo)
    w = (base_w + off[:, :, :, 1]).reshape(n, dg, -1)
    cols = _corner_sample(data.reshape(n, dg, c // dg, height * width), h, w, height, width, mask is not None)
    cols = cols.reshape(n, dg, c // dg, taps, out_h * out_w)
    if mask is not None:
        cols = cols * mask.reshape(n, dg, 1, taps, out_h * out_w)
    cols = cols.reshape(n, num_group, (c // num_group) * taps, out_h * out_w)
    wmat = weight.reshape(num_group, num_filter // num_group, -1)
    out = torch.einsum("gfk,ngkl->ngfl", wmat, cols).reshape(n, num_filter, out_h, out_w)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out


def _deform_params(num_type):
    return dict(kernel=Shape(), stride=Shape(()), dilate=Shape(()), pad=Shape(()), num_filter=num_type(),
                num_group=num_type(1), num_deformable_group=num_type(1), workspace=Int(1024), no_bias=Bool(False))


_LAYOUT = Str(None, choices=("NCDHW", "NCHW", "NCW"))


def _deform_weight(attrs, channels):
    return _weight_shape(attrs["num_filter"], channels // max(attrs["num_group"], 1), attrs["kernel"], None)


def _deform_infer_args(position):
    """Fill the weight and bias shapes (at ``position`` and after) from the data's."""
    def infer(attrs, shapes):
        head = [shapes[0]] + list(shapes[position:])
        filled = _conv_infer_args(dict(attrs, layout=None), head, _deform_weight)
        return [filled[0]] + list(shapes[1:position]) + list(filled[1:])
    return infer


@register("_contrib_DeformableConvolution",
          inputs=lambda a: ("data", "offset", "weight") + (() if a["no_bias"] else ("bias",)),
          signature=("data", "offset", "weight", "bias"),
          params=dict(_deform_params(Int), layout=_LAYOUT), infer_args=_deform_infer_args(2))
def deformable_convolution(data, offset, weight, bias=None, *, kernel, stride, dilate, pad, num_filter, num_group,
                           num_deformable_group, workspace, no_bias, layout):
    """MXNet's contrib DeformableConvolution (2-d): each kernel tap is read at its
    position plus the learned (dy, dx) offset of its deformable group (offset channels
    (group, tap, [dy, dx])), bilinearly, then convolved with the grouped weight."""
    return _deformable_conv("_contrib_DeformableConvolution", data, offset, None, weight, bias, kernel, stride,
                            dilate, pad, num_filter, num_group, num_deformable_group)


@register("_contrib_ModulatedDeformableConvolution",
          inputs=lambda a: ("data", "offset", "mask", "weight") + (() if a["no_bias"] else ("bias",)),
          signature=("data", "offset", "mask", "weight", "bias"),
          params=dict(_deform_params(Int), im2col_step=Int(64), layout=_LAYOUT), infer_args=_deform_infer_args(3))
def modulated_deformable_convolution(data, offset, mask, weight, bias=None, *, kernel, stride, dilate, pad,
                                     num_filter, num_group, num_deformable_group, workspace, no_bias, im2col_step,
                                     layout):
    """MXNet's contrib ModulatedDeformableConvolution (DCNv2): a deformable convolution whose
    sampled taps are scaled by ``mask`` (N, groups * taps, Ho, Wo), sampled by DCNv2's
    bilinear rule (zero padding around the image: see ``_corner_sample``)."""
    return _deformable_conv("_contrib_ModulatedDeformableConvolution", data, offset, mask, weight, bias, kernel,
                            stride, dilate, pad, num_filter, num_group, num_deformable_group)


def _deform_shape(attrs, shapes):
    data = shapes[0]
    stride, dilate, pad = _geometry("DeformableConvolution", attrs["kernel"], attrs["stride"], attrs["dilate"],
                                    attrs["pad"])
    spatial = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                    for size, k, s, d, p in zip(data[2:], attrs["kernel"], stride, dilate, pad))
    if len(data) != 4 or min(spatial) < 1:
        raise ValueError("not covered")
    return [(data[0], attrs["num_filter"]) + spatial]


shape_rule("_contrib_DeformableConvolution")(_deform_shape)
shape_rule("_contrib_ModulatedDeformableConvolution")(_deform_shape)


# ----------------------------------------------------------------------------- DeformablePSROIPooling
@register("_contrib_DeformablePSROIPooling",
          inputs=lambda a: ("data", "rois") if a["no_trans"] else ("data", "rois", "trans"),
          signature=("data", "rois", "trans"), num_outputs=2, num_visible_outputs=1,
          output_names=lambda a: ("output",),
          params=dict(spatial_scale=Float(), output_dim=Int(), group_size=Int(), pooled_size=Int(),
                      part_size=Int(0), sample_per_part=Int(1), trans_std=Float(0.0), no_trans=Bool(False)))
def deformable_psroi_pooling(data, rois, trans=None, *, spatial_scale, output_dim, group_size, pooled_size,
                             part_size, sample_per_part, trans_std, no_trans):
    """MXNet's contrib DeformablePSROIPooling (Deformable R-FCN): PSROIPooling whose bins
    are shifted by ``trans`` (R, 2 * classes, part, part) * trans_std * ROI size, each bin
    the mean of sample_per_part^2 bilinear samples (samples outside [-0.5, size - 0.5]
    skipped, the others clamped into the image); part_size 0 means pooled_size."""
    op = "_contrib_DeformablePSROIPooling"
    if data.dim() != 4 or rois.dim() != 2 or rois.shape[1] != 5:
        raise MXNetError("%s: expects data (N, C, H, W) and rois (R, 5), got data %s, rois %s"
                         % (op, _shape(data), _shape(rois)))
    g, p, sp = group_size, pooled_size, sample_per_part
    part = part_size or p
    if data.shape[1] != output_dim * g * g or p < 1 or sp < 1:
        raise MXNetError("%s: data has %d channels, expected output_dim * group_size^2 = %d * %d^2 (data %s)"
                         % (op, data.shape[1], output_dim, g, _shape(data)))
    n, _, height, width = data.shape
    count = rois.shape[0]
    dt = data.dtype
    with torch.no_grad():
        r = rois.detach().to(dt)
        batch = r[:, 0].long().clamp(0, n - 1)
        corner = _round_half_away(r[:, 1:])
        x0 = corner[:, 0] * spatial_scale - 0.5
        y0 = corner[:, 1] * spatial_scale - 0.5
        roi_w = ((corner[:, 2] + 1) * spatial_scale - 0.5 - x0).clamp(min=0.1)
        roi_h = ((corner[:, 3] + 1) * spatial_scale - 0.5 - y0).clamp(min=0.1)
        bin_w, bin_h = roi_w / p, roi_h / p
        bins = torch.arange(p, dtype=dt)
        part_idx = torch.floor(bins / p * part).long()
        cell = torch.floor(bins * g / p).long().clamp(0, g - 1)
        chan = (torch.arange(output_dim)[:, None, None] * g + cell[:, None]) * g + cell        # (D, p, p)
    if no_trans or trans is None:
        tx = ty = torch.zeros((count, output_dim, p, p), dtype=dt)
    else:
        classes = trans.shape[1] // 2
        per_class = output_dim // classes
        cls = torch.arange(output_dim) // per_class
        t = trans.reshape(count, classes, 2, part, part)[:, :, :, part_idx][:, :, :, :, part_idx]   # (R, K, 2, p, p)
        tx = t[:, cls, 0] * trans_std
        ty = t[:, cls, 1] * trans_std
    steps = torch.arange(sp, dtype=dt)
    # sample positions (R, D, p, p, sp) along each axis
    ws = (bins[None, None, None, :] * bin_w[:, None, None, None] + x0[:, None, None, None]
          + tx * roi_w[:, None, None, None])[..., None] + steps * (bin_w / sp)[:, None, None, None, None]
    hs = (bins[None, None, :, None] * bin_h[:, None, None, None] + y0[:, None, None, None]
          + ty * roi_h[:, None, None, None])[..., None] + steps * (bin_h / sp)[:, None, None, None, None]
    hh = hs[..., :, None].expand(*hs.shape, sp)                       # (R, D, p, p, sp_h, sp_w)
    ww = ws[..., None, :].expand(*ws.shape[:-1], sp, sp)
    valid = (ww >= -0.5) & (ww <= width - 0.5) & (hh >= -0.5) & (hh <= height - 0.5)
    hh = hh.clamp(0, height - 1)
    ww = ww.clamp(0, width - 1)
    feats = data.reshape(n, -1, height * width)
    plane = (batch[:, None, None, None] * data.shape[1] + chan[None]).reshape(count, -1)   # (R, D*p*p)
    flat = feats.reshape(-1, height * width)[plane]                     # (R, D*p*p, H*W)
    flat = flat.reshape(count, output_dim, p, p, height * width)
    y1, x1 = torch.floor(hh), torch.floor(ww)
    y2, x2 = torch.ceil(hh), torch.ceil(ww)
    dy, dx = hh - y1, ww - x1
    total = 0
    for yy, xx, wgt in ((y1, x1, (1 - dx) * (1 - dy)), (y2, x1, (1 - dx) * dy), (y1, x2, dx * (1 - dy)),
                        (y2, x2, dx * dy)):
        idx = (yy.long() * width + xx.long()).reshape(count, output_dim, p, p, -1)
        total = total + torch.gather(flat, 4, idx) * wgt.reshape(idx.shape)
    mask = valid.reshape(count, output_dim, p, p, -1).to(dt)
    hits = mask.sum(-1)
    summed = (total * mask).sum(-1)
    return torch.where(hits > 0, summed / hits.clamp(min=1), torch.zeros((), dtype=dt))


@shape_rule("_contrib_DeformablePSROIPooling")
def _deformable_psroi_shape(attrs, shapes):
    p = attrs["pooled_size"]
    return [(shapes[1][0], attrs["output_dim"], p, p)]

