"""``mx.random``: seeding, and the sampling functions of ``mx.nd.random``.

Every sampler in neogluon (the ``_random_*``/``_sample_*`` operators, Dropout, the
initializers) draws from torch's global generator of its device, so ``seed`` makes runs
repeatable. The numbers differ from MXNet's, which uses other generators.
"""
import ctypes

import torch

from .base import MXNetError, integer_types
from .context import as_context, num_gpus
from .ndarray.random import *  # noqa: F401,F403  (uniform, normal, ... as in MXNet)
from .ndarray.random import __all__ as _sampling_names

__all__ = ["seed"] + list(_sampling_names)


def seed(seed_state, ctx="all"):
    """Seed the random number generators of every device (``ctx='all'``) or of one device.

    As in MXNet the seed is taken as a C ``int``; unlike MXNet, every device's generator
    gets the same seed (torch does not mix in the device id)."""
    if not isinstance(seed_state, integer_types) or isinstance(seed_state, bool):
        raise ValueError("seed_state must be int")
    seed_state = ctypes.c_int(int(seed_state)).value
    if isinstance(ctx, str) and ctx == "all":
        torch.manual_seed(seed_state)
        return
    ctx = as_context(ctx)
    if ctx.device_type != "gpu":
        torch.default_generator.manual_seed(seed_state)
        return
    if ctx.device_id >= num_gpus():
        raise MXNetError("seed: %s is not available (%d GPUs found)" % (ctx, num_gpus()))
    with torch.cuda.device(ctx.device_id):
        torch.cuda.manual_seed(seed_state)
