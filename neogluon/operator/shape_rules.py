"""Forward shape rules: output shapes from input shapes and attributes (MXNet's
``FInferShape``), for the operators Gluon models are made of.

Graph inference (``symbol/infer.py``) uses an operator's rule when it has one, after
checking the given parameter shapes against the operator's ``infer_args``; every other
operator, and any case a rule does not cover (it raises), runs on torch ``meta`` tensors
instead. The meta run is exact but its first use imports sympy and torch._dynamo,
1 to 2 seconds that these rules spare the first call of a deferred-init or hybridized
block. A rule returns the shapes of the operator's visible outputs; its output dtypes
are the first input's (the operators here keep it). ``tests/test_shape_rules.py``
checks every rule against the meta run and against MXNet's recorded outputs.
"""
import math

from . import elemwise
from .conv import _channel_last, _geometry, _pool_out_size
from .reduce import reduce_axes
from .registry import exists, shape_rule
from .shape import infer_reshape

__all__ = []


class NotCovered(Exception):
    """A case a rule leaves to the meta run (unusual attributes, an error to explain)."""


def _require(condition):
    if not condition:
        raise NotCovered()


# ----------------------------------------------------------------------------- element-wise
_SAME_SHAPE = (sorted(elemwise._UNARY) + sorted(elemwise._SCALAR) +
               ["Activation", "LeakyReLU", "softmax", "log_softmax", "softmin", "clip", "BlockGrad", "_copy",
                "Dropout", "smooth_l1", "hard_sigmoid", "SoftmaxOutput", "L2Normalization",
                "BatchNorm", "_contrib_BatchNormWithReLU", "LayerNorm", "InstanceNorm", "GroupNorm"])


def _same(attrs, shapes):
    """One output of the data's shape (norms only without their mean/var outputs)."""
    _require(not attrs.get("output_mean_var"))
    return [shapes[0]]


def _broadcast(attrs, shapes):
    """numpy broadcasting of two shapes."""
    a, b = shapes
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        _require(x == y or x == 1 or y == 1)
        out.append(y if x == 1 else x)
    return [tuple(out)]


def _equal_shapes(attrs, shapes):
    _require(all(s == shapes[0] for s in shapes))
    return [shapes[0]]


# ----------------------------------------------------------------------------- layers
def _fully_connected(attrs, shapes):
    data = shapes[0]
    if attrs["flatten"]:
        return [(data[0], attrs["num_hidden"])]
    return [tuple(data[:-1]) + (attrs["num_hidden"],)]


def _convolution(attrs, shapes):
    data, kernel = shapes[0], attrs["kernel"]
    _require(not _channel_last(attrs["layout"]) and len(data) == len(kernel) + 2)
    stride, dilate, pad = _geometry("Convolution", kernel, attrs["stride"], attrs["dilate"], attrs["pad"])
    spatial = tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                    for n, k, s, d, p in zip(data[2:], kernel, stride, dilate, pad))
    _require(all(o > 0 for o in spatial))
    return [(data[0], attrs["num_filter"]) + spatial]


def _pooling(attrs, shapes):
    data = shapes[0]
    _require(not _channel_last(attrs["layout"]) and attrs["pool_type"] != "lp")
    if attrs["global_pool"]:
        _require(len(data) in (3, 4, 5))
        return [tuple(data[:2]) + (1,) * (len(data) - 2)]
    kernel = attrs["kernel"]
    _require(len(data) == len(kernel) + 2 and attrs["pooling_convention"] in ("valid", "full"))
    stride, _, pad = _geometry("Pooling", kernel, attrs["stride"], (), attrs["pad"], "pooling")
    _require(all(p < k for p, k in zip(pad, kernel)))
    return [tuple(data[:2]) + tuple(_pool_out_size("Pooling", None, n, k, s, p, attrs["pooling_convention"])
                                    for n, k, s, p in zip(data[2:], kernel, stride, pad))]


def _embedding(attrs, shapes):
    return [tuple(shapes[0]) + (attrs["output_dim"],)]


def _dot(attrs, shapes):
    a, b = shapes
    _require(len(a) == 2 and len(b) == 2)
    m, k = a[::-1] if attrs["transpose_a"] else a
    k2, n = b[::-1] if attrs["transpose_b"] else b
    _require(k == k2)
    return [(m, n)]


# ----------------------------------------------------------------------------- shapes
def _flatten(attrs, shapes):
    data = shapes[0]
    return [(data[0], math.prod(data[1:])) if data else (1, 1)]


def _reshape(attrs, shapes):
    return [infer_reshape(shapes[0], attrs["shape"], attrs["reverse"], attrs["target_shape"],
                          attrs["keep_highest"])]


def _concat(attrs, shapes):
    first = shapes[0]
    dim = attrs["dim"] % len(first)
    _require(all(len(s) == len(first) and all(x == y for i, (x, y) in enumerate(zip(s, first)) if i != dim)
                 for s in shapes))
    return [tuple(first[:dim]) + (sum(s[dim] for s in shapes),) + tuple(first[dim + 1:])]


def _reduction(name):
    def rule(attrs, shapes):
        data = shapes[0]
        axes = reduce_axes(name, data, attrs["axis"], attrs["exclude"])
        _require(axes)
        if attrs["keepdims"]:
            return [tuple(1 if i in axes else d for i, d in enumerate(data))]
        return [tuple(d for i, d in enumerate(data) if i not in axes) or (1,)]
    return rule


def _transpose(attrs, shapes):
    data, axes = shapes[0], attrs["axes"]
    if not axes:
        return [tuple(reversed(data))]
    _require(sorted(a % len(data) for a in axes) == list(range(len(data))))
    return [tuple(data[a] for a in axes)]


def _expand_dims(attrs, shapes):
    data, axis = shapes[0], attrs["axis"]
    _require(-len(data) - 1 <= axis <= len(data))
    axis %= len(data) + 1
    return [tuple(data[:axis]) + (1,) + tuple(data[axis:])]


_RULES = {
    "FullyConnected": _fully_connected, "Convolution": _convolution, "Pooling": _pooling,
    "Embedding": _embedding, "dot": _dot, "Flatten": _flatten, "Reshape": _reshape, "Concat": _concat,
    "transpose": _transpose, "expand_dims": _expand_dims,
}
_RULES.update({name: _same for name in _SAME_SHAPE})
_RULES.update({"broadcast_" + key: _broadcast for key in elemwise._BINARY})
_RULES.update({elemwise._ELEMWISE_NAMES[key][0]: _equal_shapes for key in elemwise._BINARY})
_RULES.update({name: _reduction(name) for name in ("sum", "mean", "max", "min", "prod", "nansum", "nanprod")})
for _name, _rule in _RULES.items():
    if exists(_name):
        shape_rule(_name)(_rule)
