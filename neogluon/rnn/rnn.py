"""Checkpoints of models built from ``mx.rnn`` cells (MXNet 1.9.1's ``mxnet/rnn/rnn.py``):
weights are saved unpacked (one array per gate, readable by any cell layout) and packed
again when loaded."""
import warnings

from ..model import save_checkpoint, load_checkpoint
from .rnn_cell import BaseRNNCell


def _cell_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix='', layout='NTC'):
    """Deprecated: ``cell.unroll(...)``."""
    warnings.warn('rnn_unroll is deprecated. Please call cell.unroll directly.')
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state,
                       input_prefix=input_prefix, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """``mx.model.save_checkpoint`` (``prefix-symbol.json``, ``prefix-%04d.params``) after
    ``cell.unpack_weights`` of every cell in ``cells`` (one cell or a list)."""
    for cell in _cell_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """``mx.model.load_checkpoint`` then ``cell.pack_weights`` of every cell in ``cells``:
    ``(symbol, arg_params, aux_params)``."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _cell_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An ``epoch_end_callback`` for ``Module.fit`` that calls ``save_rnn_checkpoint``
    every ``period`` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
