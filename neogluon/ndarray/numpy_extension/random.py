"""``mx.nd.npx.random``: MXNet 1.9.1's imperative NumPy-extension samplers, which are
``mx.npx.random``'s functions (the same objects)."""
from ...context import current_context  # noqa: F401  (MXNet's module has it)
from ...numpy_extension.random import bernoulli, normal_n, uniform_n  # noqa: F401

__all__ = ["bernoulli", "normal_n", "uniform_n"]
