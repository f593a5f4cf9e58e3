"""Convolutional recurrent cells (``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``), as MXNet 1.9.1's
``mx.gluon.contrib.rnn`` (Gluon 2 moves them to ``mx.gluon.rnn``).

The input-to-hidden and hidden-to-hidden projections of the dense cells become
``Convolution``s (``t<i>_i2h``, ``t<i>_h2h``): the input convolution has the given kernel,
padding and dilation; the recurrent one keeps the state's spatial size (odd kernels only,
padding ``dilate * (kernel - 1) / 2``). Gates are stacked along the channel axis of
``conv_layout`` (LSTM i, f, c, o; GRU r, z, n); weights are ``(gates * hidden_channels,
in_channels, *kernel)`` (channel-first layouts) or ``(gates * hidden_channels, *kernel,
in_channels)`` (channel-last).
"""
from ...base import MXNetError, numeric_types
from .rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

_LAYOUTS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _get_conv_out_size(dimensions, kernels, paddings, dilations):
    """Spatial output size of a stride-1 convolution (0 stays 0: unknown)."""
    return tuple(x + 2 * p - d * (k - 1) if x else 0 for x, k, p, d in zip(dimensions, kernels, paddings, dilations))


class _BaseConvRNNCell(HybridRecurrentCell):
    """Shapes, parameters and the two convolutions shared by the convolutional cells."""

    _gate_names = ("",)
    _num_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 dims, conv_layout, activation, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._check_settings(dims, conv_layout, input_shape, i2h_kernel=i2h_kernel, i2h_pad=i2h_pad,
                             i2h_dilate=i2h_dilate, h2h_kernel=h2h_kernel, h2h_dilate=h2h_dilate)
        self._i2h_kernel = self._tuple(i2h_kernel, dims)
        self._stride = (1,) * dims
        self._i2h_pad = self._tuple(i2h_pad, dims)
        self._i2h_dilate = self._tuple(i2h_dilate, dims)
        self._h2h_kernel = self._tuple(h2h_kernel, dims)
        self._h2h_dilate = self._tuple(h2h_dilate, dims)
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise MXNetError("%s: only odd h2h_kernel sizes are supported (the recurrent convolution keeps the "
                             "state's shape), got h2h_kernel=%s" % (type(self).__name__, str(h2h_kernel)))
        self._channel_axis, self._in_channels, i2h_shape, h2h_shape, self._h2h_pad, self._state_shape = \
            self._decide_shapes()
        rows = hidden_channels * self._num_gates
        self.i2h_weight = self.params.get("i2h_weight", shape=i2h_shape, init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=h2h_shape, init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    @staticmethod
    def _tuple(spec, dims):
        return (spec,) * dims if isinstance(spec, numeric_types) else tuple(spec)

    def _check_settings(self, dims, conv_layout, input_shape, **specs):
        name = type(self).__name__
        if conv_layout not in _LAYOUTS[dims]:
            raise MXNetError("%s: conv_layout must be one of %s, got %r"
                             % (name, "/".join(_LAYOUTS[dims]), conv_layout))
        if len(input_shape) != dims + 1:
            raise MXNetError("%s: input_shape must have %d entries (channels and %d spatial sizes, in layout %s), "
                             "got %s" % (name, dims + 1, dims, conv_layout, str(tuple(input_shape))))
        for key, spec in specs.items():
            if not (isinstance(spec, numeric_types) or len(spec) == dims):
                raise MXNetError("%s: for %dD convolution, the convolution settings can only be either int or "
                                 "list/tuple of length %d, got %s=%s" % (name, dims, dims, key, str(spec)))

    def _decide_shapes(self):
        """(channel axis, input channels, i2h weight shape, h2h weight shape, h2h padding, state shape)."""
        channel_axis = self._conv_layout.find("C")
        in_channels = self._input_shape[channel_axis - 1]
        dimensions = self._input_shape[1:] if channel_axis == 1 else self._input_shape[:-1]
        total_out = self._hidden_channels * self._num_gates
        conv_out_size = _get_conv_out_size(dimensions, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        if channel_axis == 1:
            i2h_shape = (total_out, in_channels) + self._i2h_kernel
            h2h_shape = (total_out, self._hidden_channels) + self._h2h_kernel
            state_shape = (self._hidden_channels,) + conv_out_size
        else:
            i2h_shape = (total_out,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (total_out,) + self._h2h_kernel + (self._hidden_channels,)
            state_shape = conv_out_size + (self._hidden_channels,)
        return channel_axis, in_channels, i2h_shape, h2h_shape, h2h_pad, state_shape

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return "{name}({inc} -> {out}, {act}, {layout})".format(
            name=type(self).__name__, inc=in_channels if in_channels else None, out=shape[0], act=self._activation,
            layout=self._conv_layout)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
                for _ in range(self._num_states)]

    def _conv_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        """The step's input and recurrent convolutions ``t<i>_i2h``, ``t<i>_h2h``."""
        i2h = self._convolution(F, inputs, i2h_weight, i2h_bias, self._i2h_kernel, self._i2h_pad, self._i2h_dilate,
                                prefix + "i2h")
        h2h = self._convolution(F, states[0], h2h_weight, h2h_bias, self._h2h_kernel, self._h2h_pad,
                                self._h2h_dilate, prefix + "h2h")
        return i2h, h2h

    def _convolution(self, F, data, weight, bias, kernel, pad, dilate, name):
        """A stride-1 ``Convolution`` in ``conv_layout``; NWC, which the operator lacks (as in
        MXNet), runs as NCW between transposes of the data, weight and output."""
        kwargs = dict(num_filter=self._hidden_channels * self._num_gates, kernel=kernel, stride=self._stride,
                      pad=pad, dilate=dilate, name=name)
        if self._conv_layout != "NWC":
            return F.Convolution(data=data, weight=weight, bias=bias, layout=self._conv_layout, **kwargs)
        out = F.Convolution(data=F.transpose(data, axes=(0, 2, 1)), weight=F.transpose(weight, axes=(0, 2, 1)),
                            bias=bias, layout="NCW", **kwargs)
        return F.transpose(out, axes=(0, 2, 1))


class _ConvRNNCell(_BaseConvRNNCell):
    """``h_t = activation(W * x_t + R * h_{t-1} + b)``."""

    def _alias(self):
        return "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(_BaseConvRNNCell):
    """Convolutional LSTM (Shi et al. 2015); states ``[h, c]``."""

    _gate_names = ("_i", "_f", "_c", "_o")
    _num_states = 2

    def _alias(self):
        return "conv_lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice", axis=self._channel_axis)
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform, name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation), name=prefix + "out")
        return next_h, [next_h, next_c]


class _ConvGRUCell(_BaseConvRNNCell):
    """Convolutional GRU, cuDNN's variant (the reset gate after the recurrent convolution)."""

    _gate_names = ("_r", "_z", "_o")

    def _alias(self):
        return "conv_gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice", axis=self._channel_axis)
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice", axis=self._channel_axis)
        reset_gate = F.Activation(i2h_r + h2h_r, act_type="sigmoid", name=prefix + "r_act")
        update_gate = F.Activation(i2h_z + h2h_z, act_type="sigmoid", name=prefix + "z_act")
        candidate = self._get_activation(F, i2h + reset_gate * h2h, self._activation, name=prefix + "h_act")
        next_h = F.elemwise_add((1. - update_gate) * candidate, update_gate * states[0], name=prefix + "out")
        return next_h, [next_h]


def _make_cell(kind, base, dims, layout):
    """The public ``Conv<dims>D<kind>Cell`` class: ``base`` with the defaults of ``dims``."""
    zeros, ones = (0,) * dims, (1,) * dims

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=zeros, i2h_dilate=ones,
                 h2h_dilate=ones, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", conv_layout=layout, activation="tanh",
                 prefix=None, params=None):
        base.__init__(self, input_shape=input_shape, hidden_channels=hidden_channels, i2h_kernel=i2h_kernel,
                      h2h_kernel=h2h_kernel, i2h_pad=i2h_pad, i2h_dilate=i2h_dilate, h2h_dilate=h2h_dilate,
                      i2h_weight_initializer=i2h_weight_initializer, h2h_weight_initializer=h2h_weight_initializer,
                      i2h_bias_initializer=i2h_bias_initializer, h2h_bias_initializer=h2h_bias_initializer,
                      dims=dims, conv_layout=conv_layout, activation=activation, prefix=prefix, params=params)

    name = "Conv%dD%sCell" % (dims, kind)
    doc = ("%dD convolutional %s cell. ``input_shape``: one step of one sample, (C, %s) in layout %s or the "
           "channel-last order for %s; ``hidden_channels``: the state's channels; ``i2h_kernel``/``i2h_pad``/"
           "``i2h_dilate``: the input convolution; ``h2h_kernel`` (odd)/``h2h_dilate``: the recurrent one; "
           "``activation``: a name or a block." % (dims, kind, ", ".join("DHW"[-dims:]), layout, _LAYOUTS[dims][1]))
    return type(name, (base,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


Conv1DRNNCell = _make_cell("RNN", _ConvRNNCell, 1, "NCW")
Conv2DRNNCell = _make_cell("RNN", _ConvRNNCell, 2, "NCHW")
Conv3DRNNCell = _make_cell("RNN", _ConvRNNCell, 3, "NCDHW")
Conv1DLSTMCell = _make_cell("LSTM", _ConvLSTMCell, 1, "NCW")
Conv2DLSTMCell = _make_cell("LSTM", _ConvLSTMCell, 2, "NCHW")
Conv3DLSTMCell = _make_cell("LSTM", _ConvLSTMCell, 3, "NCDHW")
Conv1DGRUCell = _make_cell("GRU", _ConvGRUCell, 1, "NCW")
Conv2DGRUCell = _make_cell("GRU", _ConvGRUCell, 2, "NCHW")
Conv3DGRUCell = _make_cell("GRU", _ConvGRUCell, 3, "NCDHW")
