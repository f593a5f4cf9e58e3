"""``mx.gluon.model_zoo``: predefined vision networks (``vision``) and the local store of
their pretrained parameters (``model_store``), as in MXNet 1.9.1."""
from . import model_store
from . import vision
