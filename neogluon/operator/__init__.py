"""MXNet's operators, each defined once in the registry (see ``registry.py``).

Importing this package registers every operator; the modules are grouped by kind."""
from . import registry
from .registry import get, exists, list_operators
from . import creation, elemwise, nn  # noqa: F401  (registration side effects)
