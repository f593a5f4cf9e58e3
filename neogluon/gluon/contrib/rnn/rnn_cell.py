"""``gluon.contrib.rnn.rnn_cell``: ``VariationalDropoutCell``, ``LSTMPCell`` (the same classes
as ``gluon.rnn``'s) and ``dynamic_unroll``, which steps a cell over time with
``contrib.foreach`` instead of unrolling it in Python."""
from ....base import _as_list
from ...rnn.rnn_cell import LSTMPCell, VariationalDropoutCell, _format_sequence  # noqa: F401

__all__ = ["VariationalDropoutCell", "LSTMPCell"]  # MXNet leaves dynamic_unroll out


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC", valid_length=None):
    """Run ``cell`` over the time axis of ``inputs`` (layout 'TNC' or 'NTC') with
    ``F.contrib.foreach``: ``(outputs, states)``. Dropout on inputs and outputs is shared
    across time (``axes`` of the time axis); with ``valid_length`` the states stop changing
    after each sequence's end and the outputs past it are zero, as MXNet's."""
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    axes = None
    if axis != 0:
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    states = begin_state
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    if valid_length is None:
        def loop_body(step, states):
            return cell(step, states)
    else:
        states = list(_as_list(states)) + [F.zeros((1,))]

        def loop_body(step, states):
            cell_states, iter_no = states[:-1], states[-1]
            out, new_states = cell(step, cell_states)
            new_states = [F.where(F.broadcast_greater(valid_length, iter_no), new, old)
                          for new, old in zip(new_states, cell_states)]
            return out, new_states + [iter_no + 1]
    outputs, states = F.contrib.foreach(loop_body, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes)
    if valid_length is not None:
        outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
        return outputs, states[:-1]
    return outputs, states
