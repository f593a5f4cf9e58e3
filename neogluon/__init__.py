"""neogluon: MXNet Gluon's hybrid programming model, on PyTorch.

``import neogluon as mx`` gives MXNet 1.9.1's top-level API: ``mx.nd``, ``mx.autograd``,
``mx.random``, ``mx.cpu()``, ``mx.gpu(i)``, ``mx.context``, ...
"""
__version__ = "0.1.0"
# the MXNet release whose API, operator semantics and file formats neogluon follows
mxnet_version = "1.9.1"

from . import threads  # OpenMP's wait policy, before torch loads (neogluon/threads.py)
from . import _names
_names.activate()  # MXNet's modules and names neogluon lacks, served from its recorded table
from . import base
from .base import MXNetError
from . import context
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import operator
from . import autograd
from . import ndarray
from . import ndarray as nd
from . import random
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import executor
from . import initializer
from . import initializer as init
from . import gluon
from . import lr_scheduler
from . import optimizer
from . import metric
from . import io
from . import model
from . import callback
from . import kvstore
from . import kvstore as kv
from . import module
from . import module as mod
from . import rnn
from . import monitor
from . import monitor as mon
from . import test_utils
from . import visualization
from . import visualization as viz
from . import recordio
from . import image
from . import numpy as np
from . import numpy_extension as npx

__all__ = ["MXNetError", "Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus",
           "nd", "ndarray", "autograd", "random", "context", "base", "test_utils", "operator",
           "name", "attribute", "AttrScope", "symbol", "sym", "executor"]
_names.install_loaded()
