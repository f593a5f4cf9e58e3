"""``mx.np.utils``: the dtypes and constants ``mx.np`` exports, and MXNet's dtype-name table."""
import numpy as onp

__all__ = ["float16", "float32", "float64", "uint8", "int32", "int8", "int64", "bool", "bool_", "pi", "inf", "nan",
           "PZERO", "NZERO", "newaxis", "finfo", "e", "NINF", "PINF", "NAN", "NaN", "_STR_2_DTYPE_"]

float16, float32, float64 = onp.float16, onp.float32, onp.float64
uint8, int32, int8, int64 = onp.uint8, onp.int32, onp.int8, onp.int64
bool_ = onp.bool_
bool = bool_  # pylint: disable=redefined-builtin
pi, inf, nan, e = onp.pi, onp.inf, onp.nan, onp.e
PZERO, NZERO = 0.0, -0.0
NINF, PINF = -onp.inf, onp.inf
NAN = NaN = onp.nan
newaxis = None
finfo = onp.finfo
_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64, "float": float64, "uint8": uint8,
                 "int8": int8, "int32": int32, "int64": int64, "int": int64, "bool": bool, "bool_": bool_,
                 "None": None}
