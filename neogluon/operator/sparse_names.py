"""MXNet's ``_sparse_*`` operator names, which in MXNet 1.9.1 are aliases of the dense
operators (the same operator dispatches on storage type): each is its dense operator,
whose storage rule (``operator/sparse.py``) gives MXNet's output storage for sparse
inputs; MXNet writes the dense name into JSON, and so does neogluon. The operators that
only exist for sparse storage (``_sparse_retain``, ``cast_storage`` and its alias
``_sparse_cast_storage``) are defined in ``operator/sparse.py``."""
from .registry import alias, exists

__all__ = []

# MXNet 1.9.1's alias -> the operator it names (read from its operator table)
SPARSE_ALIASES = {
    "_sparse_ElementWiseSum": "add_n", "_sparse_Embedding": "Embedding", "_sparse_FullyConnected": "FullyConnected",
    "_sparse_LinearRegressionOutput": "LinearRegressionOutput",
    "_sparse_LogisticRegressionOutput": "LogisticRegressionOutput",
    "_sparse_MAERegressionOutput": "MAERegressionOutput", "_sparse_add_n": "add_n",
    "_sparse_broadcast_add": "broadcast_add", "_sparse_broadcast_div": "broadcast_div",
    "_sparse_broadcast_minus": "broadcast_sub", "_sparse_broadcast_mul": "broadcast_mul",
    "_sparse_broadcast_plus": "broadcast_add", "_sparse_broadcast_sub": "broadcast_sub", "_sparse_clip": "clip",
    "_sparse_concat": "Concat", "_sparse_dot": "dot", "_sparse_elemwise_add": "elemwise_add",
    "_sparse_elemwise_div": "elemwise_div", "_sparse_elemwise_mul": "elemwise_mul",
    "_sparse_elemwise_sub": "elemwise_sub", "_sparse_make_loss": "make_loss", "_sparse_mean": "mean",
    "_sparse_norm": "norm", "_sparse_slice": "slice", "_sparse_stop_gradient": "BlockGrad", "_sparse_sum": "sum",
    "_sparse_where": "where", "_sparse_zeros_like": "zeros_like",
}
SPARSE_ALIASES.update({"_sparse_" + n: n for n in (
    "abs", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "ceil", "cos", "cosh", "degrees",
    "exp", "expm1", "fix", "floor", "gamma", "gammaln", "log", "log10", "log1p", "log2", "negative", "radians",
    "relu", "rint", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc")})

for _name, _target in SPARSE_ALIASES.items():
    if not exists(_name) and exists(_target):
        alias(_name, _target)
