"""``mx.gluon.contrib.rnn``: MXNet 1.9.1's home of the convolutional cells, ``LSTMPCell`` and
``VariationalDropoutCell`` (the same classes as in ``mx.gluon.rnn``)."""
from ...rnn.conv_rnn_cell import (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell, Conv2DLSTMCell,
                                  Conv3DLSTMCell, Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell)
from ...rnn.rnn_cell import VariationalDropoutCell, LSTMPCell
from . import rnn_cell  # noqa: F401  (its dynamic_unroll is not exported here, as in MXNet)

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell", "VariationalDropoutCell", "LSTMPCell"]
