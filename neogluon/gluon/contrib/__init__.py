"""``mx.gluon.contrib``: experimental Gluon layers of MXNet 1.9.1."""
from . import nn
from . import data
from . import rnn
from . import estimator
