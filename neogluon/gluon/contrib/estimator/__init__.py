"""``mx.gluon.contrib.estimator``: MXNet 1.9.1's high-level training loop (Estimator) and
its event handlers."""
from . import estimator
from . import event_handler
from . import batch_processor
from .estimator import *
from .event_handler import *
from .batch_processor import *
