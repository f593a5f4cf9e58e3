"""ONNX converters of the layer operators: convolutions, pooling, normalisations, dense
layers, activations, softmax, dropout, embedding.

Each converter writes the ONNX nodes computing MXNet's inference-mode result (Dropout is
the identity, BatchNorm uses its moving statistics, ``fix_gamma`` a gamma of ones).
"""
import numpy as np

from .graph import converter

__all__ = []

_SELU_ALPHA, _SELU_GAMMA = 1.6732632423543772, 1.0507009873554805


def _channel_first(c):
    layout = c.attrs.get("layout")
    if layout not in (None, "NCW", "NCHW", "NCDHW"):
        raise c.fail("layout %s is not exported (channel-first layouts only)" % layout)


def _geometry(c, nd):
    kernel = c.attrs.get("kernel") or ()
    stride = tuple(c.attrs.get("stride") or ()) or (1,) * nd
    dilate = tuple(c.attrs.get("dilate") or ()) or (1,) * nd
    pad = tuple(c.attrs.get("pad") or ()) or (0,) * nd
    return list(kernel), list(stride), list(dilate), list(pad) + list(pad)


@converter("Convolution")
def convert_convolution(c):
    _channel_first(c)
    kernel, stride, dilate, pads = _geometry(c, len(c.attrs["kernel"]))
    ins = c.inputs
    c.emit("Conv", ins, out=c.out(), kernel_shape=kernel, strides=stride, dilations=dilate, pads=pads,
           group=c.attrs["num_group"])


@converter("Deconvolution")
def convert_deconvolution(c):
    _channel_first(c)
    nd = len(c.attrs["kernel"])
    kernel, stride, dilate, pads = _geometry(c, nd)
    extra = {}
    if c.attrs.get("target_shape"):
        extra["output_shape"] = list(c.out_shape()[2:])
    else:
        adj = tuple(c.attrs.get("adj") or ()) or (0,) * nd
        extra["output_padding"] = list(adj)
        extra["pads"] = pads
    c.emit("ConvTranspose", c.inputs, out=c.out(), kernel_shape=kernel, strides=stride, dilations=dilate,
           group=c.attrs["num_group"], **extra)


@converter("Pooling")
def convert_pooling(c):
    _channel_first(c)
    a = c.attrs
    kind = a["pool_type"]
    if a["global_pool"]:
        if kind == "max":
            c.emit("GlobalMaxPool", [c.input(0)], out=c.out())
        elif kind == "avg":
            c.emit("GlobalAveragePool", [c.input(0)], out=c.out())
        elif kind == "lp":
            c.emit("GlobalLpPool", [c.input(0)], out=c.out(), p=int(a["p_value"] or 2))
        else:  # sum: the mean times the window size
            mean = c.emit("GlobalAveragePool", [c.input(0)])
            size = int(np.prod(c.shape(0)[2:]))
            c.emit("Mul", [mean, c.scalar(size)], out=c.out())
        return
    if a["pooling_convention"] == "same":
        raise c.fail("pooling_convention 'same' is not exported")
    kernel, stride, _, pads = _geometry(c, len(a["kernel"]))
    ceil = int(a["pooling_convention"] == "full")
    geo = dict(kernel_shape=kernel, strides=stride, pads=pads, ceil_mode=ceil)
    if kind == "max":
        c.emit("MaxPool", [c.input(0)], out=c.out(), **geo)
    elif kind in ("avg", "sum"):
        include = 1 if a["count_include_pad"] is None else int(a["count_include_pad"])
        if kind == "sum":
            avg = c.emit("AveragePool", [c.input(0)], count_include_pad=1, **geo)
            c.emit("Mul", [avg, c.scalar(int(np.prod(kernel)))], out=c.out())
        else:
            c.emit("AveragePool", [c.input(0)], out=c.out(), count_include_pad=include, **geo)
    else:
        geo.pop("ceil_mode")
        if ceil:
            raise c.fail("lp pooling with pooling_convention 'full' is not exported")
        c.emit("LpPool", [c.input(0)], out=c.out(), p=int(a["p_value"] or 2), **geo)


def _move_axis_last(c, x, axis, ndim):
    """Transpose permutation moving ``axis`` to the channel position 1 (and its inverse)."""
    perm = [0, axis] + [d for d in range(1, ndim) if d != axis]
    inv = [perm.index(d) for d in range(ndim)]
    return c.emit("Transpose", [x], perm=perm), inv


@converter("BatchNorm", "_contrib_SyncBatchNorm")
def convert_batch_norm(c):
    a = c.attrs
    ndim = len(c.shape(0))
    axis = a["axis"] % ndim
    if a["fix_gamma"]:  # MXNet uses a gamma of ones whatever the parameter holds
        gamma = c.const(np.ones(c.shape(1), dtype=c.dtype(1)), "gamma")
    else:
        gamma = c.input(1)
    x, inv = c.input(0), None
    if axis != 1:
        x, inv = _move_axis_last(c, x, axis, ndim)
    out = c.out() if inv is None else None
    y = c.emit("BatchNormalization", [x, gamma, c.input(2), c.input(3), c.input(4)], out=out,
               epsilon=float(a["eps"]), momentum=float(a["momentum"]))
    if inv is not None:
        c.emit("Transpose", [y], out=c.out(), perm=inv)


@converter("InstanceNorm")
def convert_instance_norm(c):
    c.emit("InstanceNormalization", c.inputs, out=c.out(), epsilon=float(c.attrs["eps"]))


def _layer_norm_decomposed(c, x, axis, eps):
    mean = c.reduce("ReduceMean", x, [axis], True)
    centred = c.emit("Sub", [x, mean])
    var = c.reduce("ReduceMean", c.emit("Mul", [centred, centred]), [axis], True)
    std = c.emit("Sqrt", [c.emit("Add", [var, c.scalar(eps)])])
    return c.emit("Div", [centred, std])


@converter("LayerNorm")
def convert_layer_norm(c):
    a = c.attrs
    if a["output_mean_var"]:
        raise c.fail("output_mean_var=True is not exported")
    ndim = len(c.shape(0))
    axis = a["axis"] % ndim
    if c.opset >= 17 and axis == ndim - 1:
        c.emit("LayerNormalization", c.inputs, out=c.out(), axis=-1, epsilon=float(a["eps"]))
        return
    normed = _layer_norm_decomposed(c, c.input(0), axis, float(a["eps"]))
    shape = [1] * ndim
    shape[axis] = -1
    gamma, beta = c.input(1), c.input(2)
    if axis != ndim - 1:
        gamma = c.emit("Reshape", [gamma, c.ints(shape)])
        beta = c.emit("Reshape", [beta, c.ints(shape)])
    c.emit("Add", [c.emit("Mul", [normed, gamma]), beta], out=c.out())


@converter("L2Normalization")
def convert_l2_normalization(c):
    mode = c.attrs["mode"]
    ndim = len(c.shape(0))
    axes = {"instance": list(range(1, ndim)), "channel": [1], "spatial": list(range(2, ndim))}[mode]
    x = c.input(0)
    sq = c.reduce("ReduceSum", c.emit("Mul", [x, x]), axes, True)
    norm = c.emit("Sqrt", [c.emit("Add", [sq, c.scalar(float(c.attrs["eps"]))])])
    c.emit("Div", [x, norm], out=c.out())


def _transposed_weight(c, i):
    """The (in, out) matrix of a FullyConnected weight: folded when the weight is a parameter."""
    value = c.value(i)
    if value is not None:
        return c.const(np.ascontiguousarray(value.T), "weight_t")
    return c.emit("Transpose", [c.input(i)], perm=[1, 0])


@converter("FullyConnected")
def convert_fully_connected(c):
    a = c.attrs
    data = c.input(0)
    has_bias = not a["no_bias"]
    if a["flatten"]:
        if len(c.shape(0)) != 2:
            data = c.emit("Flatten", [data], axis=1)
        ins = [data, c.input(1)] + ([c.input(2)] if has_bias else [])
        c.emit("Gemm", ins, out=c.out(), alpha=1.0, beta=1.0, transA=0, transB=1)
        return
    y = c.emit("MatMul", [data, _transposed_weight(c, 1)], out=None if has_bias else c.out())
    if has_bias:
        c.emit("Add", [y, c.input(2)], out=c.out())


@converter("Activation")
def convert_activation(c):
    kind = c.attrs["act_type"]
    ops = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus", "softsign": "Softsign"}
    if kind in ops:
        c.emit(ops[kind], [c.input(0)], out=c.out())
    elif kind == "log_sigmoid":
        c.emit("Neg", [c.emit("Softplus", [c.emit("Neg", [c.input(0)])])], out=c.out())
    elif kind == "mish":
        c.emit("Mul", [c.input(0), c.emit("Tanh", [c.emit("Softplus", [c.input(0)])])], out=c.out())
    else:
        raise c.fail("act_type %s is not exported" % kind)


def _gelu(c, x, out):
    """MXNet's erf GELU: 0.5 x (1 + erf(x / sqrt 2))."""
    erf = c.emit("Erf", [c.emit("Div", [x, c.scalar(np.sqrt(2.0))])])
    half = c.emit("Mul", [x, c.scalar(0.5)])
    return c.emit("Mul", [half, c.emit("Add", [erf, c.scalar(1.0)])], out=out)


@converter("LeakyReLU")
def convert_leaky_relu(c):
    a = c.attrs
    kind, x = a["act_type"], c.input(0)
    if kind == "leaky":
        c.emit("LeakyRelu", [x], out=c.out(), alpha=float(a["slope"]))
    elif kind == "rrelu":  # inference: the mean slope
        c.emit("LeakyRelu", [x], out=c.out(), alpha=(float(a["lower_bound"]) + float(a["upper_bound"])) / 2)
    elif kind == "elu":
        c.emit("Elu", [x], out=c.out(), alpha=float(a["slope"]))
    elif kind == "selu":
        c.emit("Selu", [x], out=c.out(), alpha=_SELU_ALPHA, gamma=_SELU_GAMMA)
    elif kind == "gelu":
        _gelu(c, x, c.out())
    else:  # prelu: gamma per channel (axis 1), broadcast over the trailing axes
        ndim = len(c.shape(0))
        gamma = c.input(1)
        if ndim > 2 and c.shape(1) != (1,):
            gamma = c.emit("Reshape", [gamma, c.ints([-1] + [1] * (ndim - 2))])
        c.emit("PRelu", [x, gamma], out=c.out())


def _softmax(c, onnx_op):
    a = c.attrs
    x = c.input(0)
    ndim = len(c.shape(0))
    if a.get("temperature") not in (None, 1.0):
        x = c.emit("Div", [x, c.scalar(float(a["temperature"]))])
    if a.get("dtype") not in (None, "None") and np.dtype(a["dtype"]) != np.dtype(c.dtype(0)):
        x = c.cast(x, a["dtype"])
    axis = a["axis"] % ndim if ndim else 0
    if a.get("use_length"):
        return _masked_softmax(c, x, axis, onnx_op)
    if c.opset >= 13 or axis == ndim - 1:
        return c.emit(onnx_op, [x], out=c.out(), axis=axis)
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    y = c.emit(onnx_op, [c.emit("Transpose", [x], perm=perm)], axis=ndim - 1)
    return c.emit("Transpose", [y], out=c.out(), perm=perm)


def _masked_softmax(c, x, axis, onnx_op):
    """softmax with ``use_length``: positions at or beyond ``length`` along ``axis`` are 0."""
    ndim = len(c.shape(0))
    if onnx_op != "Softmax" or c.opset < 13 and axis != ndim - 1:
        raise c.fail("use_length on an axis other than the last needs opset 13 or newer")
    shape = c.emit("Shape", [x])
    size = c.emit("Gather", [shape, c.ints([axis], "axis")], axis=0)
    steps = c.emit("Range", [c.const(np.int64(0)), c.squeeze(size, [0]), c.const(np.int64(1))])
    view = [1] * ndim
    view[axis] = -1
    steps = c.emit("Reshape", [steps, c.ints(view)])
    length = c.cast(c.input(1), np.int64)
    length = c.unsqueeze(length, [axis])  # the length has the data's shape without ``axis``
    keep = c.emit("Less", [steps, length])
    masked = c.emit("Where", [keep, x, c.scalar(-np.inf)])
    y = c.emit("Softmax", [masked], axis=axis)
    c.emit("Where", [keep, y, c.scalar(0.0)], out=c.out())


@converter("softmax")
def convert_softmax(c):
    _softmax(c, "Softmax")


@converter("log_softmax")
def convert_log_softmax(c):
    _softmax(c, "LogSoftmax")


@converter("SoftmaxOutput", "SoftmaxActivation")
def convert_softmax_output(c):
    """Inference form: softmax over axis 1 (``multi_output``/channel mode) or the flattened rows."""
    a = c.attrs
    ndim = len(c.shape(0))
    channel = a.get("multi_output") or a.get("mode") == "channel"
    if channel and c.opset < 13:
        _softmax_axis1_old(c, ndim)
    elif channel or ndim == 2:
        c.emit("Softmax", [c.input(0)], out=c.out(), axis=1)
    else:
        flat = c.emit("Flatten", [c.input(0)], axis=1)
        y = c.emit("Softmax", [flat], axis=1)
        c.emit("Reshape", [y, c.emit("Shape", [c.input(0)]) if c.dynamic else c.ints(c.shape(0))], out=c.out())


def _softmax_axis1_old(c, ndim):
    perm = list(range(ndim))
    perm[1], perm[-1] = perm[-1], perm[1]
    y = c.emit("Softmax", [c.emit("Transpose", [c.input(0)], perm=perm)], axis=ndim - 1)
    c.emit("Transpose", [y], out=c.out(), perm=perm)


@converter("Dropout", "BlockGrad", "stop_gradient", "_copy", "identity", "make_loss", "MakeLoss",
           "_contrib_quantize_asym_identity_placeholder")
def convert_identity(c):
    c.emit("Identity", [c.input(0)], out=c.out())


@converter("Embedding")
def convert_embedding(c):
    idx = c.cast(c.input(0), np.int64)
    rows = int(c.attrs["input_dim"])
    if c.opset >= 12:  # MXNet clips the indices; Clip takes integers from opset 12
        idx = c.emit("Clip", [idx, c.const(np.int64(0)), c.const(np.int64(rows - 1))])
    c.emit("Gather", [c.input(1), idx], out=c.out(), axis=0)
