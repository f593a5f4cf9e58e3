"""``mx.np.linalg.fallback_linalg``: the linear algebra MXNet 1.9.1 takes from NumPy
(``mxnet/numpy/fallback_linalg.py``), run as MXNet runs its NumPy fallbacks (see
:mod:`neogluon.numpy.fallback`). ``qr``, which MXNet lists there too, is ``mx.np.linalg``'s
own operator (``_npi_qr``)."""
import numpy as _onp

from .fallback import wrap as _wrap

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot"]

for _name in __all__:
    globals()[_name] = _wrap(getattr(_onp.linalg, _name), _name)
