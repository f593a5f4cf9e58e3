"""``gluon.contrib.data.sampler``: ``IntervalSampler``."""
from ...data.sampler import IntervalSampler

__all__ = ["IntervalSampler"]
