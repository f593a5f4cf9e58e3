"""``mx.gluon.contrib.data``: where MXNet 1.9.1 keeps ``IntervalSampler`` (defined with the
other samplers in :mod:`neogluon.gluon.data.sampler`, where MXNet 2 moved it)."""
from ..data.sampler import IntervalSampler

__all__ = ["IntervalSampler"]
