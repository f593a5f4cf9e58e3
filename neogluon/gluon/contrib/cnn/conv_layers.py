"""Deformable convolution layers (MXNet 1.9.1's ``gluon.contrib.cnn``): a convolution that
predicts sampling offsets (and, modulated, a mask) from the input, feeding
``contrib.DeformableConvolution`` / ``contrib.ModulatedDeformableConvolution``. Parameter
names and shapes are MXNet's: ``offset_weight``/``offset_bias`` (zeros by default, so a new
layer starts as a plain convolution) and ``deformable_conv_weight``/``deformable_conv_bias``."""
from .... import symbol
from ....base import numeric_types
from ...block import HybridBlock
from ...nn import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


class _Deformable(HybridBlock):
    """What both layers share; ``_offsets_per_position`` is 2 (x, y) or 3 (x, y, mask)."""
    _offsets_per_position = 2

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels, self._in_channels = channels, in_channels
            assert layout in ("NCHW", "NHWC"), "Only supports 'NCHW' and 'NHWC' layout for now"
            if isinstance(kernel_size, numeric_types):
                kernel_size = (kernel_size,) * 2
            strides, padding, dilation = (
                (v,) * len(kernel_size) if isinstance(v, numeric_types) else v for v in (strides, padding, dilation))
            self._op_name = op_name or type(self).__name__
            area = kernel_size[0] * kernel_size[1]
            self.offset_split_index = num_deformable_group * 2 * area
            common = {"kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                      "num_group": groups, "layout": layout}
            self._kwargs_offset = dict(common, num_filter=num_deformable_group * self._offsets_per_position * area,
                                       no_bias=not offset_use_bias)
            self._kwargs_deformable_conv = dict(common, num_filter=channels,
                                                num_deformable_group=num_deformable_group, no_bias=not use_bias)
            if adj:
                self._kwargs_offset["adj"] = self._kwargs_deformable_conv["adj"] = adj
            dshape = [0] * (len(kernel_size) + 2)
            dshape[layout.find("N")], dshape[layout.find("C")] = 1, in_channels
            offset = symbol.Convolution(symbol.var("data", shape=dshape), **self._kwargs_offset)
            offset_shapes = offset.infer_shape_partial()[0]
            weight_shape = [channels, 0] + list(kernel_size)
            if self._offsets_per_position == 3:  # MXNet creates the modulated layer's weights first
                self._deformable_params(weight_shape, channels, use_bias, weight_initializer, bias_initializer)
            self.offset_weight = self.params.get("offset_weight", shape=offset_shapes[1],
                                                 init=offset_weight_initializer, allow_deferred_init=True)
            self.offset_bias = self.params.get("offset_bias", shape=offset_shapes[2], init=offset_bias_initializer,
                                               allow_deferred_init=True) if offset_use_bias else None
            if self._offsets_per_position == 2:
                self._deformable_params(weight_shape, channels, use_bias, weight_initializer, bias_initializer)
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _deformable_params(self, weight_shape, channels, use_bias, weight_initializer, bias_initializer):
        self.deformable_conv_weight = self.params.get("deformable_conv_weight", shape=weight_shape,
                                                      init=weight_initializer, allow_deferred_init=True)
        self.deformable_conv_bias = self.params.get("deformable_conv_bias", shape=(channels,),
                                                    init=bias_initializer,
                                                    allow_deferred_init=True) if use_bias else None

    def _offset(self, F, x, offset_weight, offset_bias):
        args = (x, offset_weight) if offset_bias is None else (x, offset_weight, offset_bias)
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _deform(self, F, x, offset, weight, bias):
        raise NotImplementedError

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,  # pylint: disable=arguments-differ
                       deformable_conv_bias=None):
        out = self._deform(F, x, self._offset(F, x, offset_weight, offset_bias), deformable_conv_weight,
                           deformable_conv_bias)
        return self.act(out) if self.act else out


class DeformableConvolution(_Deformable):
    """2-D deformable convolution (Dai et al., 2017): ``channels`` outputs, offsets predicted
    by a convolution of the same geometry."""

    def _deform(self, F, x, offset, weight, bias):
        extra = {} if bias is None else {"bias": bias}
        return F.contrib.DeformableConvolution(data=x, offset=offset, weight=weight, name="fwd", **extra,
                                               **self._kwargs_deformable_conv)

    def _alias(self):
        return "deformable_conv"

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        n = len(kw["kernel"])
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        if kw["pad"] != (0,) * n:
            s += ", padding={pad}"
        if kw["dilate"] != (1,) * n:
            s += ", dilation={dilate}"
        if kw["num_group"] != 1:
            s += ", groups={num_group}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        shape = self.deformable_conv_weight.shape
        return (s + ")").format(name=type(self).__name__,
                                mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]), **kw)


class ModulatedDeformableConvolution(_Deformable):
    """Modulated deformable convolution (DCNv2): the offset convolution also predicts a mask,
    ``2 * sigmoid``, that scales each sampled value (trains on CPU here; MXNet's CPU kernel
    is forward-only). Printed as a plain Block, as MXNet's (it has no ``__repr__`` of its own)."""
    _offsets_per_position = 3

    def _deform(self, F, x, offset, weight, bias):
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.sigmoid(F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)) * 2
        extra = {} if bias is None else {"bias": bias}
        return F.contrib.ModulatedDeformableConvolution(data=x, offset=offset_t, mask=mask, weight=weight,
                                                        name="fwd", **extra, **self._kwargs_deformable_conv)

    def _alias(self):
        return "modulated_deformable_conv"
