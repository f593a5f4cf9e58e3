"""Spatial transformer operators and the legacy image-geometry operators: BilinearSampler,
GridGenerator, SpatialTransformer, Correlation (FlowNet) and Crop, as MXNet 1.9.1's
``src/operator/{bilinear_sampler,grid_generator,spatial_transformer,correlation,crop}.cc``.

Sampling grids hold (x, y) in [-1, 1] with the corners on the outer pixel centres
(torch's ``align_corners=True``) and zeros outside the image, so BilinearSampler is
``grid_sample`` and its data and grid gradients are MXNet's.
"""
import math

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import Bool, Int, Shape, Str, register, shape_rule


def _shape(t):
    return tuple(t.shape)


# ----------------------------------------------------------------------------- sampler and grids
def _sample(data, grid):
    return F.grid_sample(data, grid.permute(0, 2, 3, 1), mode="bilinear", padding_mode="zeros", align_corners=True)


@register("BilinearSampler", inputs=("data", "grid"), params=dict(cudnn_off=Bool(None)))
def bilinear_sampler(data, grid, *, cudnn_off):
    """MXNet's BilinearSampler: (N, C, H, W) data sampled at the (N, 2, Ho, Wo) grid of
    normalised (x, y) source positions; points outside the image read zeros."""
    if data.dim() != 4 or grid.dim() != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise MXNetError("BilinearSampler: expects data (N, C, H, W) and grid (N, 2, Ho, Wo), got data %s, grid %s"
                         % (_shape(data), _shape(grid)))
    return _sample(data, grid.to(data.dtype))


@shape_rule("BilinearSampler")
def _bilinear_sampler_shape(attrs, shapes):
    data, grid = shapes
    return [(data[0], data[1], grid[2], grid[3])]


def _affine_grid(theta, height, width):
    """(N, 2, H, W) source (x, y) of an affine (N, 6) transform of the target grid."""
    dt = theta.dtype
    ys = torch.linspace(-1, 1, height, dtype=dt) if height > 1 else torch.full((1,), -1.0, dtype=dt)
    xs = torch.linspace(-1, 1, width, dtype=dt) if width > 1 else torch.full((1,), -1.0, dtype=dt)
    yy, xx = torch.meshgrid(ys, xs, indexing="ij")
    target = torch.stack([xx.reshape(-1), yy.reshape(-1), torch.ones(height * width, dtype=dt)])   # (3, H*W)
    return (theta.reshape(-1, 2, 3) @ target).reshape(-1, 2, height, width)


def _check_target(op, target_shape):
    if len(target_shape) != 2 or min(target_shape) < 1:
        raise MXNetError("%s: target_shape=%s must be a positive (height, width) for an affine transform"
                         % (op, target_shape))


@register("GridGenerator", params=dict(transform_type=Str(choices=("affine", "warp")), target_shape=Shape((0, 0))))
def grid_generator(data, *, transform_type, target_shape):
    """MXNet's GridGenerator: an affine (N, 6) transform gives the (N, 2, H, W) grid of
    ``theta @ (x, y, 1)`` over the target_shape grid; a warp (N, 2, H, W) flow in pixels
    gives ``(flow + pixel position)`` normalised to [-1, 1]."""
    op = "GridGenerator"
    if transform_type == "affine":
        _check_target(op, target_shape)
        if data.dim() != 2 or data.shape[1] != 6:
            raise MXNetError("%s: an affine transform needs data (N, 6), got %s" % (op, _shape(data)))
        return _affine_grid(data, *target_shape)
    if data.dim() != 4 or data.shape[1] != 2:
        raise MXNetError("%s: a warp transform needs a flow (N, 2, H, W), got %s" % (op, _shape(data)))
    h, w = data.shape[2:]
    dt = data.dtype
    xs = torch.arange(w, dtype=dt).expand(h, w)
    ys = torch.arange(h, dtype=dt)[:, None].expand(h, w)
    scale = torch.tensor([(w - 1) / 2.0, (h - 1) / 2.0], dtype=dt)[:, None, None]
    return (data + torch.stack([xs, ys])) / scale - 1


@shape_rule("GridGenerator")
def _grid_generator_shape(attrs, shapes):
    data = shapes[0]
    if attrs["transform_type"] == "affine":
        return [(data[0], 2) + tuple(attrs["target_shape"])]
    return [tuple(data)]


@register("SpatialTransformer", inputs=("data", "loc"),
          params=dict(target_shape=Shape((0, 0)), transform_type=Str(choices=("affine",)),
                      sampler_type=Str(choices=("bilinear",)), cudnn_off=Bool(None)))
def spatial_transformer(data, loc, *, target_shape, transform_type, sampler_type, cudnn_off):
    """MXNet's SpatialTransformer: BilinearSampler on the affine GridGenerator grid of
    ``loc`` (N, 6), output (N, C, *target_shape)."""
    op = "SpatialTransformer"
    _check_target(op, target_shape)
    if data.dim() != 4 or loc.dim() != 2 or loc.shape[1] != 6 or loc.shape[0] != data.shape[0]:
        raise MXNetError("%s: expects data (N, C, H, W) and loc (N, 6), got data %s, loc %s"
                         % (op, _shape(data), _shape(loc)))
    return _sample(data, _affine_grid(loc.to(data.dtype), *target_shape))


@shape_rule("SpatialTransformer")
def _spatial_transformer_shape(attrs, shapes):
    data = shapes[0]
    return [(data[0], data[1]) + tuple(attrs["target_shape"])]


# ----------------------------------------------------------------------------- Correlation
def _correlation_geometry(shape, kernel_size, max_displacement, stride1, stride2, pad_size):
    """(top height, top width, grid radius) of MXNet's Correlation for data of ``shape``."""
    if kernel_size < 1 or stride1 < 1 or stride2 < 1 or kernel_size % 2 == 0:
        raise MXNetError("Correlation: kernel_size=%d must be odd and positive, stride1=%d and stride2=%d positive"
                         % (kernel_size, stride1, stride2))
    border = max_displacement + (kernel_size - 1) // 2
    hp, wp = shape[2] + 2 * pad_size, shape[3] + 2 * pad_size
    top_h = math.ceil((hp - 2 * border) / stride1)
    top_w = math.ceil((wp - 2 * border) / stride1)
    if top_h < 1 or top_w < 1:
        raise MXNetError("Correlation: the displacement border %d leaves no output for data %s padded by %d"
                         % (border, shape, pad_size))
    return top_h, top_w, max_displacement // stride2


@register("Correlation", inputs=("data1", "data2"), num_outputs=3, num_visible_outputs=1,
          output_names=lambda a: ("output",),
          params=dict(kernel_size=Int(1), max_displacement=Int(1), stride1=Int(1), stride2=Int(1), pad_size=Int(0),
                      is_multiply=Bool(True)))
def correlation(data1, data2, *, kernel_size, max_displacement, stride1, stride2, pad_size, is_multiply):
    """MXNet's Correlation (FlowNet): for each displacement (dy, dx) of a (2r+1)^2 grid
    (r = max_displacement // stride2, steps of stride2), the mean over channels and a
    kernel_size window of data1 * shifted data2 (or |data1 - shifted data2|), at output
    positions stride1 apart starting max_displacement into the zero-padded data."""
    if data1.dim() != 4 or _shape(data1) != _shape(data2):
        raise MXNetError("Correlation: data1 and data2 must be (N, C, H, W) of the same shape, got %s and %s"
                         % (_shape(data1), _shape(data2)))
    top_h, top_w, radius = _correlation_geometry(_shape(data1), kernel_size, max_displacement, stride1, stride2,
                                                 pad_size)
    pad = (pad_size,) * 4
    p1, p2 = F.pad(data1, pad), F.pad(data2, pad)
    md, k = max_displacement, kernel_size
    span_h, span_w = (top_h - 1) * stride1 + k, (top_w - 1) * stride1 + k
    a = p1[:, :, md:md + span_h, md:md + span_w]
    scale = 1.0 / (k * k * data1.shape[1])
    maps = []
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            oy, ox = md + dy * stride2, md + dx * stride2
            b = p2[:, :, oy:oy + span_h, ox:ox + span_w]
            m = (a * b if is_multiply else (a - b).abs()).sum(1, keepdim=True)
            maps.append(F.avg_pool2d(m, k, stride1) if k > 1 or stride1 > 1 else m)
    return torch.cat(maps, 1) * (scale * k * k)


@shape_rule("Correlation")
def _correlation_shape(attrs, shapes):
    top_h, top_w, radius = _correlation_geometry(tuple(shapes[0]), attrs["kernel_size"], attrs["max_displacement"],
                                                 attrs["stride1"], attrs["stride2"], attrs["pad_size"])
    return [(shapes[0][0], (2 * radius + 1) ** 2, top_h, top_w)]


# ----------------------------------------------------------------------------- Crop
def _crop_window(shape, like, offset, h_w, center_crop):
    """(y, x, h, w) of MXNet's Crop for data of ``shape``."""
    h, w = (like[2], like[3]) if like is not None else tuple(h_w)
    if center_crop:
        y, x = (shape[2] - h) // 2, (shape[3] - w) // 2
    else:
        y, x = offset
    if len(shape) != 4 or h < 1 or w < 1 or y < 0 or x < 0 or y + h > shape[2] or x + w > shape[3]:
        raise MXNetError("Crop: the crop (offset (%d, %d), size (%d, %d)) does not fit data %s"
                         % (y, x, h, w, tuple(shape)))
    return y, x, h, w


@register("Crop", variadic="num_args",
          params=dict(num_args=Int(), offset=Shape((0, 0)), h_w=Shape((0, 0)), center_crop=Bool(False)))
def crop(*inputs, num_args, offset, h_w, center_crop):
    """MXNet's legacy Crop of (N, C, H, W) data to h_w, or to the second input's (H, W),
    at ``offset`` (y, x) or centred; the second input gets no gradient."""
    if num_args not in (1, 2) or len(inputs) != num_args:
        raise MXNetError("Crop: num_args=%d must be 1 or 2 and match the %d inputs" % (num_args, len(inputs)))
    if len(offset) != 2 or len(h_w) != 2:
        raise MXNetError("Crop: offset=%s and h_w=%s must be (y, x) and (h, w)" % (offset, h_w))
    data = inputs[0]
    like = _shape(inputs[1]) if num_args == 2 else None
    y, x, h, w = _crop_window(_shape(data), like, offset, h_w, center_crop)
    return data[:, :, y:y + h, x:x + w]


@shape_rule("Crop")
def _crop_shape(attrs, shapes):
    like = tuple(shapes[1]) if attrs["num_args"] == 2 else None
    _, _, h, w = _crop_window(tuple(shapes[0]), like, attrs["offset"], attrs["h_w"], attrs["center_crop"])
    return [tuple(shapes[0][:2]) + (h, w)]
