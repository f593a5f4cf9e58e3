"""MXNet's operators, each defined once in the registry (see ``registry.py``).

Importing this package registers every operator; the modules are grouped by kind."""
from . import registry
from .registry import get, exists, list_operators
from . import (creation, elemwise, reduce, shape, indexing, linalg, nn, conv, norm, loss,  # noqa: F401
               rnn, random, optimizer_ops, activation, dropout, numpy_elemwise, numpy_reduce, numpy_linalg, numpy_shape)
