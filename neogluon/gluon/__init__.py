"""``mx.gluon``: Parameters, Blocks and HybridBlocks, layers, losses, data and training."""
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError, tensor_types
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import rnn
from . import loss
from . import contrib
from . import data
from . import model_zoo
from . import utils
from .trainer import Trainer
