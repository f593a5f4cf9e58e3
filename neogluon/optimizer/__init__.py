"""``mx.optimizer``: optimizers, their registry and the Updater that keeps their states."""
from . import optimizer
from .optimizer import (Optimizer, SGD, NAG, Signum, FTML, LAMB, DCASGD, SGLD, Adam, AdamW, AdaGrad, RMSProp,
                        AdaDelta, Ftrl, Adamax, Nadam, Test, ccSGD, Updater, create, get_updater, register)

from . import large_batch
from .large_batch import LARS, LBSGD
from . import contrib

__all__ = optimizer.__all__ + ["LARS", "LBSGD"]
