"""MXNet's operators, each defined once in the registry (see ``registry.py``).

Importing this package registers every operator; the modules are grouped by kind."""
from . import registry
from .registry import get, exists, list_operators
from . import (creation, elemwise, reduce, shape, indexing, linalg, nn, conv, norm, loss,  # noqa: F401
               rnn, random, optimizer_ops, image)
from . import detection  # noqa: F401,E402  (boxes, NMS, MultiBox*, Proposal)
from . import roi  # noqa: F401,E402  (ROIAlign, PSROIPooling)
from . import spatial  # noqa: F401,E402  (BilinearSampler, GridGenerator, SpatialTransformer, Correlation, Crop)
from . import deformable  # noqa: F401,E402  (deformable convolutions, DeformablePSROIPooling)
from . import shapes  # noqa: F401,E402  (shape rules for registered operators)
