"""``mx.gluon.data``: datasets, samplers and the DataLoader, as in MXNet 1.9.1."""
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import dataset, sampler, dataloader
from . import vision  # noqa: E402  (needs mx.image, imported lazily by its modules)
