"""``gluon.data.vision``: image datasets and transforms, as MXNet 1.9.1."""
from .datasets import *  # noqa: F401,F403
from . import transforms, datasets  # noqa: F401
