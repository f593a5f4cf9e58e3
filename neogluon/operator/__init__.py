"""MXNet's operators, each defined once in the registry (see ``registry.py``).

Importing this package registers every operator; the modules are grouped by kind."""
from . import registry
from .registry import get, exists, list_operators
from . import (creation, elemwise, reduce, shape, indexing, linalg, nn, conv, norm, loss,  # noqa: F401
               rnn, random, optimizer_ops, activation, dropout, numpy_elemwise, numpy_reduce, numpy_linalg,
               numpy_shape, numpy_bitwise, numpy_windows, numpy_counting, numpy_edit, numpy_random,
               numpy_extension, numpy_creation, numpy_symbolic, image, custom)
from .custom import CustomOp, CustomOpProp, register, get_all_registered_operators  # noqa: F401,E402
from .python_op import PythonOp, NumpyOp, NDArrayOp  # noqa: F401,E402  (MXNet's legacy Python operators)
from . import detection  # noqa: F401,E402  (boxes, NMS, MultiBox*, Proposal)
from . import roi  # noqa: F401,E402  (ROIAlign, PSROIPooling)
from . import spatial  # noqa: F401,E402  (BilinearSampler, GridGenerator, SpatialTransformer, Correlation, Crop)
from . import deformable  # noqa: F401,E402  (deformable convolutions, DeformablePSROIPooling)
from . import attention  # noqa: F401,E402  (contrib.div_sqrt_dim, interleaved_matmul_*)
from . import multi_optimizer  # noqa: F401,E402  (multi_sgd_*, preloaded_*, _multi_adamw/lamb, multi_lars, ...)
from . import indices, numeric, legacy, grad_transforms, candidate_sampling, point_process  # noqa: F401,E402
from . import quantization  # noqa: F401,E402  (_contrib_quantize, _v2, dequantize, requantize)
from . import sparse  # noqa: F401,E402  (cast_storage, _sparse_retain, _contrib_getnnz, storage rules)
from . import dgl  # noqa: F401,E402  (_contrib_edge_id, _contrib_dgl_*: graph operators on csr)
from . import sparse_names  # noqa: F401,E402  (_sparse_* aliases of the dense operators; last)
