"""``mx.gluon.rnn``: recurrent cells and fused recurrent layers (MXNet 1.9.1)."""
from .rnn_cell import *  # noqa: F401,F403
from .conv_rnn_cell import *  # noqa: F401,F403
from .rnn_layer import RNN, LSTM, GRU
from . import rnn_cell, conv_rnn_cell

__all__ = rnn_cell.__all__ + conv_rnn_cell.__all__ + ["RNN", "LSTM", "GRU"]
