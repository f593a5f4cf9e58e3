"""``mx.gluon.contrib.data``: where MXNet 1.9.1 keeps ``IntervalSampler`` (defined with the
other samplers in :mod:`neogluon.gluon.data.sampler`, where MXNet 2 moved it) and the
WikiText language-modelling datasets (:mod:`.text`)."""
from . import sampler, text  # noqa: F401
from .sampler import IntervalSampler

__all__ = ["IntervalSampler"]
