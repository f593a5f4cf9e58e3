"""ONNX converters of the operators that move data around: reshapes, transposes, slices,
splits, concatenation, broadcasting, reductions, matrix products, casts, padding.

Where MXNet's attribute has no ONNX equivalent (a Reshape's -2/-3/-4 codes, ``squeeze``
without an axis) the converter uses the shape graph inference gave that node.
"""
import numpy as np

from ...base import np_dtype
from .graph import converter

__all__ = []

_INT_MAX, _INT_MIN = 2 ** 63 - 1, -2 ** 63


def _static_reshape(c, x, out=None):
    return c.emit("Reshape", [x, c.ints(c.out_shape())], out=c.out() if out is None else out)


@converter("Reshape")
def convert_reshape(c):
    a = c.attrs
    shape = a["shape"] or a["target_shape"]
    if not a["reverse"] and shape and all(d > 0 or d in (0, -1) for d in shape) and not a["target_shape"]:
        c.emit("Reshape", [c.input(0), c.ints(shape)], out=c.out())
    elif c.dynamic and not a["reverse"] and not a["target_shape"]:
        c.emit("Reshape", [c.input(0), _dynamic_shape(c, shape)], out=c.out())
    else:
        _static_reshape(c, c.input(0))


def _dynamic_shape(c, codes):
    """MXNet's Reshape codes (0 copy, -1 infer, -2 copy the rest, -3 merge two, -4 split one)
    as a shape computed from the input's, for graphs with free dimensions."""
    ndim = len(c.shape(0))
    parts, src, k = [], 0, 0
    while k < len(codes):
        code = codes[k]
        if code > 0 or code == -1:
            parts.append(c.ints([code]))
            src, k = src + 1, k + 1   # MXNet's InferReshapeShape: both move to the next input dim
        elif code == 0:
            parts.append(c.dims(0, src, src + 1))
            src, k = src + 1, k + 1
        elif code == -2:
            parts.append(c.dims(0, src, ndim))
            src, k = ndim, k + 1
        elif code == -3:
            parts.append(c.reduce("ReduceProd", c.dims(0, src, src + 2), [0], True))
            src, k = src + 2, k + 1
        else:  # -4 a b: one input dim split in two, one of them possibly -1
            dim, (p, q) = c.dims(0, src, src + 1), codes[k + 1:k + 3]
            first = c.emit("Div", [dim, c.ints([q])]) if p == -1 else c.ints([p])
            second = c.emit("Div", [dim, c.ints([p])]) if q == -1 else c.ints([q])
            parts += [first, second]
            src, k = src + 1, k + 3
    return c.emit("Concat", parts, axis=0)


@converter("reshape_like")
def convert_reshape_like(c):
    if not c.dynamic:
        _static_reshape(c, c.input(0))
        return
    a = c.attrs
    nl, nr = len(c.shape(0)), len(c.shape(1))
    lb, le = _range(a.get("lhs_begin"), a.get("lhs_end"), nl)
    rb, re_ = _range(a.get("rhs_begin"), a.get("rhs_end"), nr)
    parts = [c.dims(0, 0, lb)] if lb else []
    parts.append(c.dims(1, rb, re_))
    if le < nl:
        parts.append(c.dims(0, le, nl))
    c.emit("Reshape", [c.input(0), c.emit("Concat", parts, axis=0) if len(parts) > 1 else parts[0]], out=c.out())


def _range(begin, end, ndim):
    begin = 0 if begin is None else begin % ndim
    end = ndim if end is None else (end % ndim if end < 0 else end)
    return begin, end


@converter("Flatten")
def convert_flatten(c):
    c.emit("Flatten", [c.input(0)], out=c.out(), axis=1)


@converter("transpose")
def convert_transpose(c):
    ndim = len(c.shape(0))
    axes = [d % ndim for d in c.attrs["axes"]] if c.attrs["axes"] else list(reversed(range(ndim)))
    c.emit("Transpose", [c.input(0)], out=c.out(), perm=axes)


@converter("SwapAxis")
def convert_swap_axis(c):
    ndim = len(c.shape(0))
    perm = list(range(ndim))
    a, b = c.attrs["dim1"] % ndim, c.attrs["dim2"] % ndim
    perm[a], perm[b] = perm[b], perm[a]
    c.emit("Transpose", [c.input(0)], out=c.out(), perm=perm)


@converter("expand_dims")
def convert_expand_dims(c):
    c.unsqueeze(c.input(0), [c.attrs["axis"] % (len(c.shape(0)) + 1)], out=c.out())


@converter("squeeze")
def convert_squeeze(c):
    shape = c.shape(0)
    axis = c.attrs["axis"]
    if axis is None:
        axes = [d for d, n in enumerate(shape) if n == 1]
    else:
        axes = [d % len(shape) for d in ((axis,) if isinstance(axis, int) else axis)]
    if len(axes) == len(shape):  # MXNet keeps one dimension
        _static_reshape(c, c.input(0))
    else:
        c.squeeze(c.input(0), axes, out=c.out())


@converter("Concat", "_rnn_param_concat")
def convert_concat(c):
    axis = c.attrs["dim"] % len(c.shape(0))
    c.emit("Concat", c.inputs, out=c.out(), axis=axis)


@converter("stack")
def convert_stack(c):
    axis = c.attrs["axis"] % (len(c.shape(0)) + 1)
    parts = [c.unsqueeze(x, [axis]) for x in c.inputs]
    c.emit("Concat", parts, out=c.out(), axis=axis)


@converter("slice_axis")
def convert_slice_axis(c):
    a = c.attrs
    end = _INT_MAX if a["end"] is None else a["end"]
    c.slice(c.input(0), [a["begin"]], [end], [a["axis"] % len(c.shape(0))], out=c.out())


@converter("slice")
def convert_slice(c):
    a = c.attrs
    begin, end, step = list(a["begin"]), list(a["end"]), list(a["step"] or ())
    n = len(begin)
    step = [1 if s is None else s for s in step] + [1] * (n - len(step))
    starts = [(_INT_MAX if s < 0 else 0) if b is None else b for b, s in zip(begin, step)]
    ends = [(_INT_MIN if s < 0 else _INT_MAX) if e is None else e for e, s in zip(end, step)]
    c.slice(c.input(0), starts, ends, list(range(n)), step, out=c.out())


@converter("slice_like")
def convert_slice_like(c):
    shape = c.out_shape()
    axes = [d % len(shape) for d in c.attrs["axes"]] or list(range(min(len(shape), len(c.shape(1)))))
    if not c.dynamic:
        c.slice(c.input(0), [0] * len(axes), [shape[d] for d in axes], axes, out=c.out())
        return
    ends = c.emit("Gather", [c.emit("Shape", [c.input(1)]), c.ints(axes, "axes")], axis=0)
    c.emit("Slice", [c.input(0), c.ints([0] * len(axes), "starts"), ends, c.ints(axes, "axes")], out=c.out())


@converter("SliceChannel")
def convert_split(c):
    a = c.attrs
    ndim = len(c.shape(0))
    axis = a["axis"] % ndim
    k = a["num_outputs"]
    sizes = [c.shape(0)[axis] // k] * k
    outs = [c.fresh("part") for _ in range(k)] if a["squeeze_axis"] else [c.out(j) for j in range(k)]
    if c.dynamic and c.opset >= 18:   # equal parts of a dimension that may be free
        c.emit("Split", [c.input(0)], out=outs, axis=axis, num_outputs=k)
    elif c.dynamic:
        c.emit("Split", [c.input(0)], out=outs, axis=axis)
    elif c.opset >= 13:
        c.emit("Split", [c.input(0), c.ints(sizes, "split")], out=outs, axis=axis)
    else:
        c.emit("Split", [c.input(0)], out=outs, axis=axis, split=sizes)
    if a["squeeze_axis"]:
        for j, part in enumerate(outs):
            c.squeeze(part, [axis], out=c.out(j))


def _last_two_swapped(c, x, ndim):
    perm = list(range(ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return c.emit("Transpose", [x], perm=perm)


@converter("batch_dot")
def convert_batch_dot(c):
    a, b = c.input(0), c.input(1)
    if c.attrs["transpose_a"]:
        a = _last_two_swapped(c, a, len(c.shape(0)))
    if c.attrs["transpose_b"]:
        b = _last_two_swapped(c, b, len(c.shape(1)))
    c.emit("MatMul", [a, b], out=c.out())


@converter("dot")
def convert_dot(c):
    """``dot`` contracts a's last axis with b's first: MatMul after flattening b to 2-D."""
    a, b = c.input(0), c.input(1)
    sa, sb = c.shape(0), c.shape(1)
    if c.attrs["transpose_a"]:
        if len(sa) != 2:
            raise c.fail("transpose_a needs a 2-D lhs")
        a = c.emit("Transpose", [a], perm=[1, 0])
    if c.attrs["transpose_b"]:
        if len(sb) != 2:
            raise c.fail("transpose_b needs a 2-D rhs")
        b = c.emit("Transpose", [b], perm=[1, 0])
        sb = sb[::-1]
    if len(sa) == 1 and len(sb) == 1:
        prod = c.emit("MatMul", [a, b])
        c.emit("Reshape", [prod, c.ints([1])], out=c.out())
    elif len(sb) <= 2:
        c.emit("MatMul", [a, b], out=c.out())
    else:
        flat = c.emit("Reshape", [b, c.ints([sb[0], -1])])
        _static_reshape(c, c.emit("MatMul", [a, flat]))


def _reduce_axes(c):
    ndim = len(c.shape(0))
    axis = c.attrs.get("axis")
    if axis is None or axis == ():
        axes = list(range(ndim))
    else:
        axes = sorted(d % ndim for d in ((axis,) if isinstance(axis, int) else axis))
    if c.attrs.get("exclude"):
        axes = [d for d in range(ndim) if d not in axes]
    return axes


def _reduction(onnx_op):
    def convert(c):
        axes = _reduce_axes(c)
        keep = bool(c.attrs.get("keepdims"))
        if len(axes) == len(c.shape(0)) and not keep:  # MXNet returns shape (1,)
            r = c.reduce(onnx_op, c.input(0), axes, True)
            c.emit("Reshape", [r, c.ints([1])], out=c.out())
        else:
            c.reduce(onnx_op, c.input(0), axes, keep, out=c.out())
    return convert


for _mx, _onnx in {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
                   "prod": "ReduceProd", "nansum": None}.items():
    if _onnx:
        converter(_mx)(_reduction(_onnx))


@converter("norm")
def convert_norm(c):
    if c.attrs.get("ord", 2) not in (1, 2):
        raise c.fail("ord %s is not exported" % c.attrs.get("ord"))
    _reduction("ReduceL2" if c.attrs.get("ord", 2) == 2 else "ReduceL1")(c)


@converter("argmax", "argmin")
def convert_argmax(c):
    axis = c.attrs["axis"]
    op = "ArgMax" if c.node.op.name == "argmax" else "ArgMin"
    if axis is None:
        flat = c.emit("Reshape", [c.input(0), c.ints([-1])])
        idx = c.emit(op, [flat], axis=0, keepdims=1)
    else:
        idx = c.emit(op, [c.input(0)], axis=axis % len(c.shape(0)), keepdims=int(bool(c.attrs["keepdims"])))
    c.cast(idx, c.out_dtype(), out=c.out())


@converter("Cast", "amp_cast")
def convert_cast(c):
    c.cast(c.input(0), np_dtype(c.attrs["dtype"]), out=c.out())


@converter("amp_multicast")
def convert_amp_multicast(c):
    """Each input cast to the common dtype graph inference gave its output."""
    for i in range(c.nin):
        if np.dtype(c.dtype(i)) == np.dtype(c.out_dtype(i)):
            c.emit("Identity", [c.input(i)], out=c.out(i))
        else:
            c.cast(c.input(i), c.out_dtype(i), out=c.out(i))


@converter("broadcast_to", "broadcast_like", "broadcast_axis")
def convert_broadcast(c):
    """Expand to the output shape: written in, or (``dynamic``) computed from the inputs'
    shapes where the broadcast keeps a dimension free."""
    name, a = c.node.op.name, c.attrs
    if not c.dynamic:
        target = c.ints(c.out_shape())
    elif name == "broadcast_like" and a["lhs_axes"] is None and a["rhs_axes"] is None:
        target = c.emit("Shape", [c.input(1)])
    elif name == "broadcast_axis":
        ndim = len(c.shape(0))
        sizes = dict(zip([d % ndim for d in a["axis"]], a["size"]))
        target = c.emit("Concat", [c.ints([sizes[d]]) if d in sizes else c.dims(0, d, d + 1) for d in range(ndim)],
                        axis=0)
    elif name == "broadcast_to":
        shape, ndim = a["shape"], len(c.shape(0))
        target = c.emit("Concat", [c.dims(0, d, d + 1) if n == 0 else c.ints([n]) for d, n in enumerate(shape)],
                        axis=0) if len(shape) == ndim else c.ints(c.out_shape())
    else:
        target = c.ints(c.out_shape())
    c.emit("Expand", [c.input(0), target], out=c.out())


@converter("_contrib_arange_like")
def convert_arange_like(c):
    a = c.attrs
    if a["repeat"] != 1:
        raise c.fail("repeat=%d is not exported" % a["repeat"])
    shape = c.emit("Shape", [c.input(0)])
    if a["axis"] is None:
        count = c.reduce("ReduceProd", shape, [0], False)
    else:
        count = c.squeeze(c.emit("Gather", [shape, c.ints([a["axis"] % len(c.shape(0))], "axis")], axis=0), [0])
    start, step = c.scalar(a["start"]), c.scalar(a["step"])
    limit = c.emit("Add", [start, c.emit("Mul", [c.cast(count, c.out_dtype()), step])])
    steps = c.emit("Range", [start, limit, step])
    if a["axis"] is None:
        c.emit("Reshape", [steps, shape], out=c.out())
    else:
        c.emit("Identity", [steps], out=c.out())


@converter("_contrib_div_sqrt_dim")
def convert_div_sqrt_dim(c):
    c.emit("Div", [c.input(0), c.scalar(np.sqrt(c.shape(0)[-1]))], out=c.out())


@converter("Pad")
def convert_pad(c):
    a = c.attrs
    width = list(a["pad_width"])
    pads = width[0::2] + width[1::2]
    mode = {"constant": "constant", "edge": "edge", "reflect": "reflect"}[a["mode"]]
    ins = [c.input(0), c.ints(pads, "pads")]
    if mode == "constant":
        ins.append(c.scalar(a["constant_value"]))
    c.emit("Pad", ins, out=c.out(), mode=mode)


@converter("take")
def convert_take(c):
    a = c.attrs
    axis = a["axis"] % len(c.shape(0))
    n = c.shape(0)[axis]
    idx = c.cast(c.input(1), np.int64)
    if a["mode"] == "wrap":
        idx = c.emit("Mod", [idx, c.const(np.int64(n))], fmod=0)
    elif c.opset >= 12:
        idx = c.emit("Clip", [idx, c.const(np.int64(0)), c.const(np.int64(n - 1))])
    c.emit("Gather", [c.input(0), idx], out=c.out(), axis=axis)


@converter("tile")
def convert_tile(c):
    reps = list(c.attrs["reps"])
    ndim = len(c.shape(0))
    x = c.input(0)
    if len(reps) > ndim:
        ones = c.ints([1] * (len(reps) - ndim))
        shape = c.emit("Concat", [ones, c.emit("Shape", [x])], axis=0) if c.dynamic else \
            c.ints([1] * (len(reps) - ndim) + list(c.shape(0)))
        x = c.emit("Reshape", [x, shape])
    reps = [1] * (ndim - len(reps)) + reps
    c.emit("Tile", [x, c.ints(reps, "reps")], out=c.out())


def _nearest(c, x, scale, out=None):
    scales = c.const(np.array([1.0, 1.0, scale, scale], dtype=np.float32), "scales")
    return c.emit("Resize", [x, c.const(np.zeros(0, dtype=np.float32), "roi"), scales], out=out, mode="nearest",
                  nearest_mode="floor", coordinate_transformation_mode="asymmetric")


@converter("UpSampling")
def convert_upsampling(c):
    """nearest: Resize of each input to the first's size (summed or concatenated); bilinear:
    MXNet's depthwise transposed convolution with its ``weight`` input."""
    a = c.attrs
    scale = int(a["scale"])
    if a["sample_type"] == "bilinear":
        k, pad = 2 * scale - scale % 2, -(-(scale - 1) // 2)
        c.emit("ConvTranspose", [c.input(0), c.input(1)], out=c.out(), kernel_shape=[k, k], strides=[scale, scale],
               pads=[pad] * 4, group=c.shape(0)[1])
        return
    if c.nin == 1:
        _nearest(c, c.input(0), scale, out=c.out())
        return
    size = c.shape(0)[2] * scale
    parts = [_nearest(c, c.input(i), size // c.shape(i)[2]) for i in range(c.nin)]
    if a["multi_input_mode"] == "sum":
        c.emit("Sum", parts, out=c.out())
    else:
        c.emit("Concat", parts, out=c.out(), axis=1)


@converter("_contrib_BilinearResize2D")
def convert_bilinear_resize(c):
    if c.nin != 1:
        raise c.fail("mode 'like' is not exported")
    mode = "align_corners" if c.attrs["align_corners"] else "pytorch_half_pixel"
    sizes = c.ints(c.out_shape(), "sizes")
    if c.dynamic:   # the batch and channels from the input, the written output size
        sizes = c.emit("Concat", [c.dims(0, 0, 2), c.ints(c.out_shape()[2:], "hw")], axis=0)
    empty = c.const(np.zeros(0, dtype=np.float32), "roi")
    c.emit("Resize", [c.input(0), empty, c.const(np.zeros(0, dtype=np.float32), "scales"), sizes], out=c.out(),
           mode="linear", coordinate_transformation_mode=mode)


@converter("_contrib_AdaptiveAvgPooling2D")
def convert_adaptive_avg_pool(c):
    (h, w), (oh, ow) = c.shape(0)[2:], c.out_shape()[2:]
    if (oh, ow) == (1, 1):
        c.emit("GlobalAveragePool", [c.input(0)], out=c.out())
    elif h % oh == 0 and w % ow == 0:
        kernel = [h // oh, w // ow]
        c.emit("AveragePool", [c.input(0)], out=c.out(), kernel_shape=kernel, strides=kernel)
    else:
        raise c.fail("output size %s does not divide the input size %s" % ((oh, ow), (h, w)))


@converter("SequenceMask")
def convert_sequence_mask(c):
    """Positions at or beyond each sequence's length along ``axis`` (0: time-major, 1:
    batch-major) take ``value``."""
    a = c.attrs
    if not a["use_sequence_length"]:
        c.emit("Identity", [c.input(0)], out=c.out())
        return
    ndim = len(c.shape(0))
    axis = a["axis"] % ndim
    length = c.shape(0)[axis]
    view = [1] * ndim
    view[axis] = length
    steps = c.const(np.arange(length, dtype=np.int64).reshape(view), "steps")
    lens_view = [1] * ndim
    lens_view[1 - axis] = c.shape(0)[1 - axis]
    lens = c.emit("Reshape", [c.cast(c.input(1), np.int64), c.ints(lens_view)])
    keep = c.emit("Less", [steps, lens])
    c.emit("Where", [keep, c.input(0), c.scalar(a["value"])], out=c.out())


@converter("repeat")
def convert_repeat(c):
    a = c.attrs
    x, shape = c.input(0), c.shape(0)
    if a["axis"] is None:
        x, axis, ndim = c.emit("Reshape", [x, c.ints([-1])]), 0, 1
    else:
        ndim = len(shape)
        axis = a["axis"] % ndim
    r = a["repeats"]
    tiled = c.emit("Tile", [c.unsqueeze(x, [axis + 1]), c.ints([1] * (axis + 1) + [r] + [1] * (ndim - axis - 1))])
    if c.dynamic or a["axis"] is None:
        dims = c.emit("Shape", [x])
        parts = [c.slice(dims, [0], [axis], [0])] if axis else []
        parts.append(c.emit("Mul", [c.slice(dims, [axis], [axis + 1], [0]), c.ints([r], "repeats")]))
        if axis + 1 < ndim:
            parts.append(c.slice(dims, [axis + 1], [ndim], [0]))
        c.emit("Reshape", [tiled, c.emit("Concat", parts, axis=0) if len(parts) > 1 else parts[0]], out=c.out())
    else:
        c.emit("Reshape", [tiled, c.ints(c.out_shape())], out=c.out())


@converter("reverse")
def convert_reverse(c):
    ndim = len(c.shape(0))
    axes = [d % ndim for d in c.attrs["axis"]]
    c.slice(c.input(0), [-1] * len(axes), [_INT_MIN] * len(axes), axes, [-1] * len(axes), out=c.out())


@converter("shape_array")
def convert_shape_array(c):
    c.emit("Shape", [c.input(0)], out=c.out())


@converter("size_array")
def convert_size_array(c):
    c.emit("Reshape", [c.emit("Size", [c.input(0)]), c.ints([1])], out=c.out())
