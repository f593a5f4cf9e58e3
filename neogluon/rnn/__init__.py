"""MXNet 1.9.1's legacy symbolic recurrent API, ``mx.rnn``: cells that unroll into
``mx.sym`` graphs (``rnn_cell``), RNN checkpoints that unpack/pack fused weights (``rnn``)
and the bucketing sentence iterator (``io``). The Gluon cells are ``mx.gluon.rnn``."""
# pylint: disable=wildcard-import
from . import rnn_cell
from .rnn_cell import *

from . import rnn
from .rnn import *

from . import io
from .io import *
