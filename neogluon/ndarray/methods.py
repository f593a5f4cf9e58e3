"""The operator methods of ``NDArray`` (``x.sum(axis=1)``, ``x.relu()``, ...).

Each method *is* the ``mx.nd`` function of the same operator (the array binds as its
first input), as in MXNet 1.9.1's NDArray; the list of names is MXNet's (Symbol's methods
too). NDArray's ``broadcast_like`` is MXNet's own Python method (ndarray.py), which
``install`` leaves in place.
"""
from . import ndarray as _nd_mod
from .ndarray import NDArray

# method name -> mx.nd function name
METHODS = {name: name for name in [
    "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "argmax", "argmax_channel",
    "argmin", "argsort", "broadcast_like", "cbrt", "ceil", "clip", "cos", "cosh", "degrees",
    "depth_to_space", "diag", "exp", "expand_dims", "expm1", "fix", "flatten", "flip", "floor", "log",
    "log10", "log1p", "log2", "log_softmax", "max", "mean", "min", "nanprod", "nansum", "norm",
    "one_hot", "pad", "pick", "prod", "radians", "rcbrt", "reciprocal", "relu", "repeat", "reshape_like",
    "rint", "round", "rsqrt", "shape_array", "sigmoid", "sign", "sin", "sinh", "size_array", "slice",
    "slice_axis", "slice_like", "softmax", "softmin", "sort", "space_to_depth", "split", "sqrt",
    "square", "squeeze", "sum", "swapaxes", "take", "tan", "tanh", "tile", "topk", "transpose", "trunc",
]}
METHODS.update({"broadcast_axes": "broadcast_axis", "split_v2": "_split_v2", "slice_assign": "_slice_assign",
                "slice_assign_scalar": "_slice_assign_scalar"})


def install():
    from .. import ndarray as nd
    for meth, fname in METHODS.items():
        fn = getattr(nd, fname, None)
        if fn is not None and not hasattr(NDArray, meth):
            setattr(NDArray, meth, fn)  # a plain function: the array binds as its first input


install()
del _nd_mod
