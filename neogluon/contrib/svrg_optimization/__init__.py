"""``mx.contrib.svrg_optimization``: Stochastic Variance Reduced Gradient training of a
Module (MXNet 1.9.1's ``SVRGModule`` and the optimizer it runs)."""
from . import svrg_module  # noqa: F401
from . import svrg_optimizer  # noqa: F401
