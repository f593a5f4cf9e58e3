"""Recurrent cells of ``mx.gluon.rnn``, as in MXNet 1.9.1 (with Gluon 2's additions).

A cell computes one time step, ``output, next_states = cell(inputs, states)``, from
``FullyConnected``/``SliceChannel``/activation operators named ``t<step>_<what>`` inside
the cell's name scope, so a cell unrolled over Symbols builds exactly MXNet's graph
(``rnn_t0_out_output``, ``lstm0_t2_state``...). ``unroll`` runs the step over a sequence
given as one NTC/TNC tensor or a list of per-step tensors, NDArray or Symbol (or the
traced arrays of a HybridBlock that overrides ``forward``); with ``valid_length`` it
returns each sequence's last valid states (``SequenceLast``) and zero-masked padded
outputs (``SequenceMask``), as MXNet does.

Parameter names and shapes follow MXNet: ``<prefix>i2h_weight`` ``(gates * hidden,
input_size)`` (deferred while ``input_size`` is 0), ``h2h_weight``, ``i2h_bias``,
``h2h_bias``; LSTM gates are ordered i, f, c, o and GRU gates r, z, n (the cuDNN variant:
the reset gate multiplies the recurrent projection after its matrix product).
"""
import functools

from ... import ndarray, symbol
from ...base import MXNetError, numeric_types
from ...ndarray.ndarray import NDArray
from ...symbol import Symbol
from .. import cached as _cached
from ..block import Block, HybridBlock
from ..nn import LeakyReLU
from ..utils import _indent

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "LSTMPCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell",
           "ResidualCell", "BidirectionalCell", "VariationalDropoutCell"]

tensor_types = (Symbol, NDArray)


# ---------------------------------------------------------------------- sequence helpers
def _cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """``begin_state`` if given, else the cell's zero states (on the inputs' context)."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, NDArray) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """``(inputs, time axis, F, batch size)``: ``inputs`` as a list of steps (``merge=False``),
    one tensor in ``layout`` (``merge=True``), or as given (``merge=None``)."""
    if inputs is None:
        raise MXNetError("unroll(inputs=None) has been deprecated. Please create input variables outside unroll.")
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, Symbol):
        F = symbol
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetError("unroll doesn't allow grouped symbol as input. Please convert to list with "
                                 "list(inputs) first or let unroll handle splitting.")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[in_axis]:
                raise MXNetError("unroll: length %d does not match the %d steps of the inputs of shape %s (layout %s)"
                                 % (length, inputs.shape[in_axis], inputs.shape, layout))
            inputs = _split_steps(ndarray.split(inputs, axis=in_axis, num_outputs=inputs.shape[in_axis],
                                                squeeze_axis=1))
    else:
        if not isinstance(inputs, (list, tuple)) or not inputs:
            raise MXNetError("unroll: inputs must be a Symbol, an NDArray or a non-empty list of them, got %r"
                             % (inputs,))
        if length is not None and len(inputs) != length:
            raise MXNetError("unroll: length %d does not match the %d input steps given" % (length, len(inputs)))
        if isinstance(inputs[0], Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zero the steps of ``data`` past each sequence's ``valid_length`` (``SequenceMask``)."""
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True, axis=time_axis)
    if not merge:
        outputs = _split_steps(F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True))
    return outputs


def _split_steps(parts):
    """The list of steps ``split`` returns: a list of NDArrays, one NDArray, or a Symbol's
    outputs (MXNet 1.9.1 wraps the grouped Symbol in a one-element list instead)."""
    return list(parts) if isinstance(parts, (list, tuple, Symbol)) else [parts]


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The list of steps reversed; with ``valid_length`` each sequence's valid part only."""
    F = symbol if isinstance(sequences[0], Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0), sequence_length=valid_length,
                                           use_sequence_length=True)
    if unroll_step > 1 or F is symbol:
        return _split_steps(F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True))
    return [reversed_sequences[0]]


def _traceable(unroll):
    """Let ``unroll`` take the traced arrays of a HybridBlock that overrides ``forward``:
    it then builds the graph on their Symbols and returns traced arrays."""
    @functools.wraps(unroll)
    def wrapper(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        if not _cached.has_traced([inputs, begin_state or [], valid_length]):
            return unroll(self, length, inputs, begin_state, layout, merge_outputs, valid_length)
        outputs, states = unroll(self, length, _cached.unwrap_traced(inputs), _cached.unwrap_traced(begin_state),
                                 layout, merge_outputs, _cached.unwrap_traced(valid_length))
        return _cached.wrap_traced(outputs), _cached.wrap_traced(states)
    return wrapper


def _check_unmodified(cell):
    if cell._modified:
        raise MXNetError("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called "
                         "directly. Call the modifier cell instead.")


# ---------------------------------------------------------------------- base classes
class RecurrentCell(Block):
    """Abstract base class of RNN cells (``mx.gluon.rnn.RecurrentCell``).

    ``prefix``/``params`` as for any Block: ``params`` shares another cell's Parameters.
    Subclasses define ``state_info`` and the one-step ``forward(inputs, states)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters (and the children's) before re-using the cell for another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            if isinstance(cell, RecurrentCell):
                cell.reset()

    def state_info(self, batch_size=0):
        """The shape and layout of each state: a list of ``{'shape': ..., '__layout__': ...}``."""
        raise MXNetError("%s must implement state_info(batch_size)" % type(self).__name__)

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states, one ``func(name=<prefix>begin_state_<i>, shape=..., __layout__=...,
        **kwargs)`` per state: ``mx.nd.zeros`` (the default) or ``ones``, ``mx.sym.zeros``,
        ``mx.sym.var`` to feed states as inputs, ... ``batch_size`` is the 'N' of the layout."""
        _check_unmodified(self)
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info, **kwargs) if info is not None else dict(kwargs)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **info))
        return states

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Unroll the cell over ``length`` time steps.

        ``inputs``: one Symbol/NDArray of shape (N, T, ...) for layout 'NTC' or (T, N, ...)
        for 'TNC', or a list of ``length`` per-step (N, ...) tensors. ``begin_state``: the
        initial states (``begin_state()``'s zeros when None). ``merge_outputs``: True stacks
        the outputs into one tensor in ``layout``, False returns a list, None whatever is
        cheaper. ``valid_length`` (N,): the states returned are those of each sequence's
        last valid step and the outputs past it are zero.

        Returns ``(outputs, states)``."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs = []
        all_states = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*steps, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for steps in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Apply ``activation``: a name ('tanh', 'relu', 'sigmoid', 'softsign' as their own
        operators, others through ``Activation``), a LeakyReLU block, or any block."""
        if isinstance(activation, str):
            func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}.get(activation)
            if func is not None:
                return func(inputs, **kwargs)
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs)

    def _activation_op(self, F, inputs, activation, name):
        """An ``Activation`` node for a named activation (MXNet's graph), else ``_get_activation``."""
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, name=name)
        return self._get_activation(F, inputs, activation, name=name)

    def forward(self, inputs, states):
        """One time step: ``(output, next_states)`` from ``inputs`` (N, ...) and the list ``states``."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A RecurrentCell whose step is a ``hybrid_forward(F, inputs, states, **params)``: it
    hybridizes, and traces into the graph of a HybridBlock that unrolls it."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._traces_forward = False  # forward only counts steps; hybrid_forward is the computation


# ---------------------------------------------------------------------- RNN / LSTM / GRU cells
def _declare_weights(cell, rows, input_size, state_size, i2h_init, h2h_init):
    cell.i2h_weight = cell.params.get("i2h_weight", shape=(rows, input_size), init=i2h_init,
                                      allow_deferred_init=True)
    cell.h2h_weight = cell.params.get("h2h_weight", shape=(rows, state_size), init=h2h_init,
                                      allow_deferred_init=True)


def _declare_biases(cell, rows, i2h_init, h2h_init):
    cell.i2h_bias = cell.params.get("i2h_bias", shape=(rows,), init=i2h_init, allow_deferred_init=True)
    cell.h2h_bias = cell.params.get("h2h_bias", shape=(rows,), init=h2h_init, allow_deferred_init=True)


def _projections(F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias, num_hidden, prefix):
    """The input and recurrent projections ``t<i>_i2h``, ``t<i>_h2h`` of one step."""
    i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=num_hidden,
                           name=prefix + "i2h")
    h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias, num_hidden=num_hidden,
                           name=prefix + "h2h")
    return i2h, h2h


def _mapping(weight, *more):
    """'in -> out' of a cell's repr (in is None while deferred; ``more`` adds projections)."""
    shape = weight.shape
    return " -> ".join(str(s) for s in (shape[1] if shape[1] else None, shape[0]) + more)


class RNNCell(HybridRecurrentCell):
    """Elman RNN cell: ``h_t = activation(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``, activation
    'tanh' (default), 'relu', another name or a block. One state (N, hidden_size)."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._activation = activation
        self._input_size = input_size
        _declare_weights(self, hidden_size, input_size, hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer)
        _declare_biases(self, hidden_size, i2h_bias_initializer, h2h_bias_initializer)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "rnn"

    def __repr__(self):
        return "{name}({mapping}, {act})".format(name=type(self).__name__, mapping=_mapping(self.i2h_weight),
                                                 act=self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = _projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                                self._hidden_size, prefix)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class LSTMCell(HybridRecurrentCell):
    """Long short-term memory cell (gates i, f, c, o in the weights' rows):
    ``c_t = f * c_{t-1} + i * activation(g)``, ``h_t = o * activation(c_t)``, the gates i, f, o
    through ``recurrent_activation`` (sigmoid). States ``[h, c]``, each (N, hidden_size)."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None,
                 params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        _declare_weights(self, 4 * hidden_size, input_size, hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer)
        _declare_biases(self, 4 * hidden_size, i2h_bias_initializer, h2h_bias_initializer)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstm"

    def __repr__(self):
        return "{name}({mapping})".format(name=type(self).__name__,
                                          mapping=_mapping(self.i2h_weight))

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = _projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                                4 * self._hidden_size, prefix)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + "plus0"), num_outputs=4, name=prefix + "slice")
        in_gate = self._get_activation(F, gates[0], self._recurrent_activation, name=prefix + "i")
        forget_gate = self._get_activation(F, gates[1], self._recurrent_activation, name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, gates[3], self._recurrent_activation, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._activation_op(F, next_c, self._activation, prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(HybridRecurrentCell):
    """Gated recurrent unit cell, cuDNN's variant (gates r, z, n in the weights' rows):
    ``n = activation(W_in x + b_in + r * (W_hn h + b_hn))``, ``h_t = (1 - z) * n + z * h_{t-1}``,
    r and z through ``recurrent_activation`` (sigmoid). One state (N, hidden_size)."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None,
                 params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        _declare_weights(self, 3 * hidden_size, input_size, hidden_size, i2h_weight_initializer,
                         h2h_weight_initializer)
        _declare_biases(self, 3 * hidden_size, i2h_bias_initializer, h2h_bias_initializer)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "gru"

    def __repr__(self):
        return "{name}({mapping})".format(name=type(self).__name__,
                                          mapping=_mapping(self.i2h_weight))

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev_h = states[0]
        i2h, h2h = _projections(F, inputs, prev_h, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                                3 * self._hidden_size, prefix)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset_gate = self._activation_op(F, F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
                                         self._recurrent_activation, prefix + "r_act")
        update_gate = self._activation_op(F, F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
                                          self._recurrent_activation, prefix + "z_act")
        candidate = self._activation_op(
            F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"), name=prefix + "plus2"),
            self._activation, prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"), candidate, name=prefix + "mul1"),
            F.elemwise_mul(update_gate, prev_h, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


class LSTMPCell(HybridRecurrentCell):
    """LSTM cell with a projection (``mx.gluon.contrib.rnn.LSTMPCell`` in 1.9.1):
    ``r_t = h2r_weight . (o * tanh(c_t))``; states ``[r, c]`` of shapes (N, projection_size)
    and (N, hidden_size); ``h2h_weight`` is (4 * hidden_size, projection_size)."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        _declare_weights(self, 4 * hidden_size, input_size, projection_size, i2h_weight_initializer,
                         h2h_weight_initializer)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        _declare_biases(self, 4 * hidden_size, i2h_bias_initializer, h2h_bias_initializer)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        return "{name}({mapping})".format(
            name=type(self).__name__, mapping=_mapping(self.i2h_weight, self.h2r_weight.shape[0]))

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = _projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                                4 * self._hidden_size, prefix)
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform, name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type="tanh"), name=prefix + "hidden")
        next_r = F.FullyConnected(data=hidden, num_hidden=self._projection_size, weight=h2r_weight, no_bias=True,
                                  name=prefix + "out")
        return next_r, [next_r, next_c]


# ---------------------------------------------------------------------- stacks
class _StackedCells:
    """What SequentialRNNCell and HybridSequentialRNNCell share: cells applied in order,
    their states concatenated in one list."""

    def __repr__(self):
        return "{name}(\n{modstr}\n)".format(
            name=type(self).__name__,
            modstr="\n".join("({i}): {m}".format(i=i, m=_indent(repr(m), 2)) for i, m in self._children.items()))

    def add(self, cell):
        """Append a cell to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """The children's initial states, concatenated (keywords as ``RecurrentCell.begin_state``)."""
        _check_unmodified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        """One step of every cell in turn, each taking its own slice of ``states``."""
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise MXNetError("%s: a BidirectionalCell cannot be stepped; use unroll" % self.name)
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Unroll each cell over the whole sequence in turn (see ``RecurrentCell.unroll``)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p:p + n]
            p += n
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=None if i < num_cells - 1 else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_StackedCells, RecurrentCell):
    """A stack of cells run one after the other at each step (``add`` cells; index and ``len``)."""


class HybridSequentialRNNCell(_StackedCells, HybridRecurrentCell):
    """A stack of hybridizable cells run one after the other at each step."""

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


# ---------------------------------------------------------------------- dropout and modifiers
class DropoutCell(HybridRecurrentCell):
    """Dropout of the inputs (rate ``rate``, mask shared along ``axes``) in training; no
    states. Unrolled over one tensor it drops out the whole sequence at once."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, numeric_types):
            raise TypeError("DropoutCell: rate must be a number, got %r" % (rate,))
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return "{name}(rate={rate}, axes={axes})".format(name=type(self).__name__, rate=self._rate, axes=self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name="t%d_fwd" % self._counter)
        return inputs, states

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """As ``RecurrentCell.unroll``; ``valid_length`` is ignored, as in MXNet."""
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap another (``base_cell``) and modify its step: it shares
    the base cell's Parameters and states; the base cell can no longer be called directly."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise MXNetError("Cell %s is already modified. One cell cannot be modified twice" % base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        """The base cell's Parameters."""
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=ndarray.zeros, **kwargs):
        """The base cell's initial states (see ``RecurrentCell.begin_state``; ``func`` comes
        first here, as in MXNet, whose default ``mx.sym.zeros`` is ``mx.nd.zeros`` here)."""
        _check_unmodified(self)
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def _unroll_base(self, *args, **kwargs):
        """Unroll the base cell itself (allowed to the modifier)."""
        self.base_cell._modified = False
        try:
            return self.base_cell.unroll(*args, **kwargs)
        finally:
            self.base_cell._modified = True

    def __repr__(self):
        return "{name}({base_cell})".format(name=type(self).__name__, base_cell=self.base_cell)


def _has_bidirectional(cell):
    return isinstance(cell, BidirectionalCell) or (
        isinstance(cell, _StackedCells) and any(isinstance(c, BidirectionalCell) for c in cell._children.values()))


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training each output/state element keeps its
    previous value with probability ``zoneout_outputs``/``zoneout_states``; in prediction
    the base cell's step is returned unchanged."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if _has_bidirectional(base_cell):
            raise MXNetError("BidirectionalCell doesn't support zoneout since it doesn't support step. "
                             "Please add ZoneoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return "{name}(p_out={p_out}, p_state={p_state}, {base_cell})".format(
            name=type(self).__name__, p_out=self.zoneout_outputs, p_state=self.zoneout_states,
            base_cell=self.base_cell)

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        output = (F.where(mask(self.zoneout_outputs, next_output), next_output, prev_output)
                  if self.zoneout_outputs != 0. else next_output)
        if self.zoneout_states != 0.:
            next_states = [F.where(mask(self.zoneout_states, new), new, old) for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output at each step (Wu et al. 2016); with
    ``valid_length`` the padded inputs are masked first."""

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter), states

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """The base cell's unroll plus the (masked) inputs, added once over the whole sequence."""
        self.reset()
        outputs, states = self._unroll_base(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis, merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time over the sequence and
    concatenates their outputs (feature axis); states ``l_states + r_states``. Only
    ``unroll`` is possible; with ``valid_length`` each sequence is reversed over its valid
    part only."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise MXNetError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return "{name}(forward={l_cell}, backward={r_cell})".format(
            name=type(self).__name__, l_cell=self._children["l_cell"], r_cell=self._children["r_cell"])

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        """Both cells' initial states, concatenated."""
        _check_unmodified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Outputs ``bi_out`` (merged) or ``bi_t<i>`` (a list): the forward and the re-reversed
        backward outputs concatenated; see ``RecurrentCell.unroll`` for the arguments."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:n_left], layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs, begin_state=begin_state[n_left:],
                                            layout=layout, merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types)
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout, merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2, name="%sout" % self._output_prefix)
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal & Ghahramani 2016) of the base cell's inputs, first state
    and outputs: one mask per sequence, drawn at the first step and kept for every later
    step until ``reset()`` (``unroll`` resets). Identity in prediction."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states and _has_bidirectional(base_cell):
            raise MXNetError("BidirectionalCell doesn't support variational state dropout. "
                             "Please add VariationalDropoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _initialize_input_masks(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)

    def _initialize_output_mask(self, F, output):
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)

    def hybrid_forward(self, F, inputs, states):
        self._initialize_input_masks(F, inputs, states)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self.drop_states_mask
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        next_output, next_states = self.base_cell(inputs, states)
        self._initialize_output_mask(F, next_output)
        if self.drop_outputs:
            next_output = next_output * self.drop_outputs_mask
        return next_output, next_states

    def __repr__(self):
        return "{name}(p_out = {p_out}, p_state = {p_state})".format(
            name=type(self).__name__, p_out=self.drop_outputs, p_state=self.drop_states)

    @_traceable
    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Without state dropout, input and output dropout apply to the whole sequence at once
        (a mask shared along the time axis) around the base cell's own unroll."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self._unroll_base(length, inputs, states, layout, merge_outputs=True,
                                            valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, states
