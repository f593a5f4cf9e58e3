"""Fused recurrent layers of ``mx.gluon.rnn`` (MXNet 1.9.1): :class:`RNN`, :class:`LSTM`, :class:`GRU`.

Each layer owns one Parameter per layer, direction and kind (``l0_i2h_weight``,
``r1_h2h_bias``, ``l0_h2r_weight``, ...), flattens them into MXNet's cuDNN-layout vector
with ``_rnn_param_concat`` and runs the registry's fused ``RNN`` operator, exactly the
graph that MXNet 1.9.1 exports (``Reshape(-1)`` per parameter, ``_rnn_param_concat``,
``RNN`` with ``state_outputs=True``).
"""
import re

from ... import ndarray, symbol
from ...base import MXNetError
from ..block import HybridBlock
from ..parameter import tensor_types

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
_PARAM_NAME = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class _RNNLayer(HybridBlock):
    """The fused multi-layer recurrent layer shared by :class:`RNN`, :class:`LSTM` and :class:`GRU`."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max,
                 lstm_state_clip_nan, dtype, use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        assert layout in ("TNC", "NTC"), "Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]
        self._register_all_params()

    # ------------------------------------------------------------------ parameters
    def _register_all_params(self):
        """``{l,r}{layer}_{i2h,h2h}_{weight,bias}`` (and ``_h2r_weight`` with a projection)."""
        ng, nh, ni = self._gates, self._hidden_size, self._input_size
        nr = self._projection_size or nh
        for i in range(self._num_layers):
            for j in ["l", "r"][:self._dir]:
                self._register_param("%s%d_i2h_weight" % (j, i), (ng * nh, ni), self._i2h_weight_initializer)
                self._register_param("%s%d_h2h_weight" % (j, i), (ng * nh, nr), self._h2h_weight_initializer)
                self._register_param("%s%d_i2h_bias" % (j, i), (ng * nh,), self._i2h_bias_initializer)
                self._register_param("%s%d_h2h_bias" % (j, i), (ng * nh,), self._h2h_bias_initializer)
                if self._projection_size:
                    self._register_param("%s%d_h2r_weight" % (j, i), (nr, nh), self._h2r_weight_initializer)
            ni = nr * self._dir

    def _register_param(self, name, shape, init):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=self._dtype)
        setattr(self, name, p)
        return p

    def _flat_param_names(self):
        """Parameter names in the order of MXNet's flat vector: all weights, then all biases."""
        kinds = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        return ["%s%d_%s_%s" % (d, layer, g, t)
                for t in ("weight", "bias")
                for layer in range(self._num_layers)
                for d in ["l", "r"][:self._dir]
                for g in kinds if g != "h2r" or t != "bias"]

    def _expand_packed(self, loaded, prefix, where):
        """MXNet 2.0's one flat ``rnn_param`` (the fused operator's order: all weights, then all
        biases, see :meth:`_flat_param_names`) split into this layer's structural keys, as
        ``save_parameters`` of MXNet 1.9.1 writes them. A deferred input size is read from the
        vector's length."""
        key = prefix + "rnn_param"
        if key not in loaded:
            return super()._expand_packed(loaded, prefix, where)
        flat = loaded[key]
        total = int(flat.size)
        names = self._flat_param_names()
        shapes = [tuple(self._reg_params[n]._shape) for n in names]
        known = sum(_size(s) for s in shapes if 0 not in s)
        open_rows = sum(s[0] for s in shapes if 0 in s)
        if open_rows:  # the first layer's i2h weights: (rows, input size unknown)
            if (total - known) % open_rows or total <= known:
                raise MXNetError("%s: rnn_param of %d values does not fit %s" % (where, total, self.name))
            shapes = [(s[0], (total - known) // open_rows) if 0 in s else s for s in shapes]
        if sum(_size(s) for s in shapes) != total:
            raise MXNetError("%s: rnn_param of %d values does not fit %s, which holds %d"
                             % (where, total, self.name, sum(_size(s) for s in shapes)))
        ours = self._collect_params_with_prefix(prefix[:-1])
        structural = {id(p): k for k, p in ours.items()}
        out = {k: v for k, v in loaded.items() if k != key}
        values = flat.reshape(-1)
        at = 0
        for name, shape in zip(names, shapes):
            n = _size(shape)
            out[structural[id(self._reg_params[name])]] = values[at:at + n].reshape(shape)
            at += n
        return out

    def _collect_params_with_prefix(self, prefix=""):
        """Structural names as MXNet 1.9.1 saves them: ``_unfused.<layer>.<kind>`` or, when
        bidirectional, ``_unfused.<layer>.{l,r}_cell.<kind>`` (the unfused stack's names)."""
        if prefix:
            prefix += "."
        matches = {key: _PARAM_NAME.match(key) for key in self._reg_params}
        bidirectional = any(m.group(1) == "r" for m in matches.values())

        def convert_key(m):
            d, layer, g, t = m.groups()
            if bidirectional:
                return "_unfused.%s.%s_cell.%s_%s" % (layer, d, g, t)
            return "_unfused.%s.%s_%s" % (layer, g, t)
        ret = {prefix + convert_key(matches[key]): val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def __repr__(self):
        s = "{name}({mapping}, {_layout}"
        if self._num_layers != 1:
            s += ", num_layers={_num_layers}"
        if self._dropout != 0:
            s += ", dropout={_dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        s += ")"
        shape = self.l0_i2h_weight.shape
        mapping = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0] // self._gates)
        return s.format(name=self.__class__.__name__, mapping=mapping, **self.__dict__)

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    # ------------------------------------------------------------------ states
    def state_info(self, batch_size=0):
        """Shape, layout and dtype of each begin state: ``h`` (width ``projection_size`` when
        projecting) and, for LSTM, the cell state ``c``; each ``(layers*directions, N, width)``."""
        ld = self._num_layers * self._dir
        widths = [self._projection_size or self._hidden_size]
        if self._mode == "lstm":
            widths.append(self._hidden_size)
        return [{"shape": (ld, batch_size, w), "__layout__": "LNC", "dtype": self._dtype} for w in widths]

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by ``func`` (``nd.zeros`` by default; ``sym.zeros``, ``sym.var``...)
        named ``<prefix>h0_<i>``; ``kwargs`` (``ctx``, ``dtype``, ...) override the state info."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info.update(kwargs)
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info))
        return states

    # ------------------------------------------------------------------ forward
    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        """Run the layer; returns ``output`` alone when ``states`` is None (zeros are used),
        else ``(output, new_states)``."""
        skip_states = states is None
        if skip_states != self.skip_states and self._cached_graph:
            self._clear_cached_op()   # the cached graph's outputs depend on it
        self.skip_states = skip_states
        if skip_states:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info["shape"]), str(state.shape)))
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        """Flatten the parameters (``_rnn_param_concat``) and run the fused ``RNN`` operator."""
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        params = F._internal._rnn_param_concat(*[kwargs[name].reshape(-1) for name in self._flat_param_names()],
                                               dim=0)
        rnn_args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout,
                    state_outputs=True, mode=self._mode, lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max, lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs, states = rnn[0], [rnn[i] for i in range(1, 3 if self._mode == "lstm" else 2)]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states

    # ------------------------------------------------------------------ the equivalent cells
    def _unfuse(self):
        """The equivalent stack of cells (``HybridSequentialRNNCell`` of ``l{i}_``/``r{i}_`` cells,
        ``BidirectionalCell`` when bidirectional, ``DropoutCell`` between layers), sharing this
        layer's Parameters."""
        from . import rnn_cell   # pylint: disable=import-outside-toplevel
        assert not self._projection_size, "_unfuse does not support projection layer yet!"
        assert not self._lstm_state_clip_min and not self._lstm_state_clip_max, \
            "_unfuse does not support state clipping yet!"
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kwargs = {"input_size": ni, "i2h_weight_initializer": self._i2h_weight_initializer,
                          "h2h_weight_initializer": self._h2h_weight_initializer,
                          "i2h_bias_initializer": self._i2h_bias_initializer,
                          "h2h_bias_initializer": self._h2h_bias_initializer}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(self._make_cell(rnn_cell, "l%d_" % i, kwargs),
                                                         self._make_cell(rnn_cell, "r%d_" % i, kwargs)))
                else:
                    stack.add(self._make_cell(rnn_cell, "l%d_" % i, kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = self._hidden_size * self._dir
        return stack

    def _make_cell(self, rnn_cell, prefix, kwargs):
        if self._mode == "lstm":
            return rnn_cell.LSTMCell(self._hidden_size, prefix=prefix, **kwargs)
        if self._mode == "gru":
            return rnn_cell.GRUCell(self._hidden_size, prefix=prefix, **kwargs)
        return rnn_cell.RNNCell(self._hidden_size, activation=self._mode[4:], prefix=prefix, **kwargs)


class RNN(_RNNLayer):
    r"""A multi-layer Elman RNN with ``tanh`` or ``relu`` non-linearity (``mx.gluon.rnn.RNN``):
    :math:`h_t = act(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})` per layer.

    Inputs ``data`` of shape ``(T, N, C)`` ('TNC') or ``(N, T, C)`` ('NTC') and optional
    ``states`` ``[(L*D, N, H)]``; outputs ``out`` ``(T, N, D*H)`` (layout as the input) and,
    when states were given, the final states.

    >>> layer = mx.gluon.rnn.RNN(100, 3)
    >>> layer.initialize()
    >>> output = layer(mx.nd.random.uniform(shape=(5, 3, 10)))
    >>> output, hn = layer(mx.nd.random.uniform(shape=(5, 3, 10)), mx.nd.zeros((3, 3, 100)))
    """

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "rnn_" + activation, None, None, None, None, False, dtype, **kwargs)


class LSTM(_RNNLayer):
    r"""A multi-layer long short-term memory RNN (``mx.gluon.rnn.LSTM``), gates ``i, f, g, o``,
    with an optional projection of the hidden state (``projection_size``, LSTMP) and
    cuDNN's cell-state clipping (``state_clip_min/max/nan``, honoured on a GPU as in MXNet).

    States are ``[h, c]``: ``h`` ``(L*D, N, projection_size or H)``, ``c`` ``(L*D, N, H)``.

    >>> layer = mx.gluon.rnn.LSTM(100, 3)
    >>> layer.initialize()
    >>> x = mx.nd.random.uniform(shape=(5, 3, 10))
    >>> output = layer(x)
    >>> output, (hn, cn) = layer(x, [mx.nd.zeros((3, 3, 100)), mx.nd.zeros((3, 3, 100))])
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "lstm", projection_size, h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    r"""A multi-layer gated recurrent unit RNN (``mx.gluon.rnn.GRU``), cuDNN's variant: gates
    ``r, z, n`` with the reset gate applied after the hidden-to-hidden product,
    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t (W_{hn} h_{t-1} + b_{hn}))`,
    :math:`h_t = (1 - z_t) n_t + z_t h_{t-1}`.

    >>> layer = mx.gluon.rnn.GRU(100, 3)
    >>> layer.initialize()
    >>> output, hn = layer(mx.nd.random.uniform(shape=(5, 3, 10)), mx.nd.zeros((3, 3, 100)))
    """

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "gru", None, None, None, None, False, dtype, **kwargs)
