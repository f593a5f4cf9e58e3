"""``mx.nd.np._op``: the module MXNet 1.9.1 defines its imperative NumPy-interface functions
in (``mx.nd.np`` re-exports them). In neogluon they are ``mx.np``'s own functions, looked
up there by name, as ``mx.nd.np``'s are."""
from ..._names import forwarding as _forwarding
from ... import numpy as _np_interface

__getattr__ = _forwarding(_np_interface, __name__)
