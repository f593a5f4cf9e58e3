"""Convolution, transposed convolution, pooling and padding layers of ``mx.gluon.nn``,
as in MXNet 1.9.1 (parameter names, layouts, weight shapes, reprs)."""
from ...base import numeric_types
from ..block import HybridBlock
from .activations import Activation

__all__ = ["Conv1D", "Conv2D", "Conv3D",
           "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D",
           "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D",
           "ReflectionPad2D"]


def _tuple(value, ndim, what):
    """``value`` repeated ``ndim`` times when a number, else checked to have ``ndim`` items."""
    if isinstance(value, numeric_types):
        value = (value,) * ndim
    value = tuple(value)
    assert len(value) == ndim, "%s must be a number or a list of %d ints" % (what, ndim)
    return value


def _weight_shape(op_name, layout, channels, in_channels, groups, kernel):
    """The weight shape MXNet's shape inference gives for a data shape whose channel axis
    is ``in_channels`` (0 = unknown): Convolution ``(out, in/groups, *kernel)``,
    Deconvolution ``(in, out/groups, *kernel)``, the kernel axes first for channel-last
    layouts."""
    if op_name == "Convolution":
        outer, inner = channels, in_channels // groups
    else:
        outer, inner = in_channels, channels // groups
    if layout.find("C") == 1:
        return (outer, inner) + tuple(kernel)
    return (outer,) + tuple(kernel) + (inner,)


class _Conv(HybridBlock):
    """Shared by the convolution layers: ``weight``/``bias`` parameters, the operator
    call and the repr. ``in_channels=0`` defers the weight's shape to the first call."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            ndim = len(kernel_size)
            strides = _tuple(strides, ndim, "strides")
            padding = _tuple(padding, ndim, "padding")
            dilation = _tuple(dilation, ndim, "dilation")
            self._op_name = op_name
            self._kwargs = {
                "kernel": kernel_size, "stride": strides, "dilate": dilation,
                "pad": padding, "num_filter": channels, "num_group": groups,
                "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            wshape = _weight_shape(op_name, layout, channels, in_channels, groups, kernel_size)
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer,
                                          allow_deferred_init=True)
            self.bias = None
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            self.act = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name="fwd", **self._kwargs)
        else:
            out = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self):
        return "conv"

    def __repr__(self):
        kwargs = self._kwargs
        ndim = len(kwargs["kernel"])
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        if kwargs["pad"] != (0,) * ndim:
            s += ", padding={pad}"
        if kwargs["dilate"] != (1,) * ndim:
            s += ", dilation={dilate}"
        # MXNet 1.9.1 looks for ``out_pad`` while the transposed layers store ``outpad``,
        # so output_padding never shows; kept for identical reprs
        if hasattr(self, "out_pad") and self.out_pad != (0,) * ndim:
            s += ", output_padding={}".format(self.out_pad)
        if kwargs["num_group"] != 1:
            s += ", groups={num_group}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        s += ")"
        shape = self.weight.shape
        return s.format(name=self.__class__.__name__,
                        mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]),
                        **kwargs)


def _check_layout(layout, layouts):
    assert layout in layouts, "Only supports %s layout for now" % (
        " and ".join("'%s'" % lay for lay in layouts))


class Conv1D(_Conv):
    """1-D convolution over ``(N, C, W)`` data (``Convolution``); weight
    ``(channels, in_channels/groups, k)``."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _check_layout(layout, ("NCW",))
        op_name = kwargs.pop("op_name", "Convolution")
        super().__init__(channels, _tuple(kernel_size, 1, "kernel_size"), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, op_name, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``NCHW`` (or ``NHWC``) data (``Convolution``)."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        _check_layout(layout, ("NCHW", "NHWC"))
        op_name = kwargs.pop("op_name", "Convolution")
        super().__init__(channels, _tuple(kernel_size, 2, "kernel_size"), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, op_name, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``NCDHW`` (or ``NDHWC``) data (``Convolution``)."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        _check_layout(layout, ("NCDHW", "NDHWC"))
        op_name = kwargs.pop("op_name", "Convolution")
        super().__init__(channels, _tuple(kernel_size, 3, "kernel_size"), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, op_name, **kwargs)


class _ConvTranspose(_Conv):
    """Transposed convolution (``Deconvolution``); ``output_padding`` becomes ``adj``.
    The weight is ``(in_channels, channels/groups, *kernel)``."""

    def __init__(self, ndim, channels, kernel_size, strides, padding, output_padding,
                 dilation, groups, layout, activation, use_bias, weight_initializer,
                 bias_initializer, in_channels, **kwargs):
        kernel_size = _tuple(kernel_size, ndim, "kernel_size")
        output_padding = _tuple(output_padding, ndim, "output_padding")
        op_name = kwargs.pop("op_name", "Deconvolution")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name=op_name, adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution over ``(N, C, W)`` data."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        _check_layout(layout, ("NCW",))
        super().__init__(1, channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution over ``NCHW`` (or ``NHWC``) data."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _check_layout(layout, ("NCHW", "NHWC"))
        super().__init__(2, channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution over ``NCDHW`` (or ``NDHWC``) data."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _check_layout(layout, ("NCDHW", "NDHWC"))
        super().__init__(3, channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class _Pooling(HybridBlock):
    """Shared by the pooling layers: the ``Pooling`` operator's attributes and the repr.
    ``ceil_mode`` selects the 'full' pooling convention (output size rounded up)."""

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        ndim = len(pool_size)
        self._kwargs = {
            "kernel": pool_size, "stride": _tuple(strides, ndim, "strides"),
            "pad": _tuple(padding, ndim, "padding"), "global_pool": global_pool,
            "pool_type": pool_type, "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        s = "{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}"
        s += ", global_pool={global_pool}, pool_type={pool_type}, layout={layout})"
        return s.format(name=self.__class__.__name__,
                        ceil_mode=self._kwargs["pooling_convention"] == "full", **self._kwargs)


_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _pool_args(ndim, pool_size, layout):
    assert layout in _LAYOUTS[ndim], "Only %s layouts are valid for %dD Pooling" % (
        " and ".join(_LAYOUTS[ndim]), ndim)
    return _tuple(pool_size, ndim, "pool_size")


class MaxPool1D(_Pooling):
    """Max pooling over the W axis of ``NCW`` (or ``NWC``) data."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 **kwargs):
        super().__init__(_pool_args(1, pool_size, layout), strides, padding, ceil_mode,
                         False, "max", layout, **kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over the H, W axes of ``NCHW`` (or ``NHWC``) data."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout="NCHW",
                 ceil_mode=False, **kwargs):
        super().__init__(_pool_args(2, pool_size, layout), strides, padding, ceil_mode,
                         False, "max", layout, **kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over the D, H, W axes of ``NCDHW`` (or ``NDHWC``) data."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", **kwargs):
        super().__init__(_pool_args(3, pool_size, layout), strides, padding, ceil_mode,
                         False, "max", layout, **kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over the W axis; ``count_include_pad`` counts padded zeros."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout="NCW", ceil_mode=False,
                 count_include_pad=True, **kwargs):
        super().__init__(_pool_args(1, pool_size, layout), strides, padding, ceil_mode,
                         False, "avg", layout, count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over the H, W axes; ``count_include_pad`` counts padded zeros."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCHW", count_include_pad=True, **kwargs):
        super().__init__(_pool_args(2, pool_size, layout), strides, padding, ceil_mode,
                         False, "avg", layout, count_include_pad, **kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over the D, H, W axes; ``count_include_pad`` counts padded zeros."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout="NCDHW", count_include_pad=True, **kwargs):
        super().__init__(_pool_args(3, pool_size, layout), strides, padding, ceil_mode,
                         False, "avg", layout, count_include_pad, **kwargs)


class _GlobalPooling(_Pooling):
    """Pools each channel over all its spatial positions (output spatial size 1)."""

    _ndim = 2
    _pool_type = "max"

    def __init__(self, layout, **kwargs):
        _pool_args(self._ndim, 1, layout)
        super().__init__((1,) * self._ndim, None, 0, True, True, self._pool_type, layout,
                         **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """Global max pooling over the W axis (layout 'NCW' or 'NWC')."""
    _ndim, _pool_type = 1, "max"

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """Global max pooling over the H, W axes (layout 'NCHW' or 'NHWC')."""
    _ndim, _pool_type = 2, "max"

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """Global max pooling over the D, H, W axes (layout 'NCDHW' or 'NDHWC')."""
    _ndim, _pool_type = 3, "max"

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """Global average pooling over the W axis (layout 'NCW' or 'NWC')."""
    _ndim, _pool_type = 1, "avg"

    def __init__(self, layout="NCW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """Global average pooling over the H, W axes (layout 'NCHW' or 'NHWC')."""
    _ndim, _pool_type = 2, "avg"

    def __init__(self, layout="NCHW", **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """Global average pooling over the D, H, W axes (layout 'NCDHW' or 'NDHWC')."""
    _ndim, _pool_type = 3, "avg"

    def __init__(self, layout="NCDHW", **kwargs):
        super().__init__(layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    """Pads the H and W axes of NCHW data by reflection (``pad(mode='reflect')``);
    ``padding`` is a number, or MXNet's 8-tuple ``pad_width``."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)
