"""Neural-network layer operators: FullyConnected, Activation, ...

Each layer with parameters also declares ``infer_args``: given the data shape it fills
in the weight and bias shapes, which is what deferred initialisation and
``Symbol.infer_shape`` need (MXNet's backward shape inference).
"""
import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import Bool, Int, Str, check_rule, implementation, same_shape, shape_rule


def known(shape):
    """True when a shape is given and has no unknown (0) dimension."""
    return shape is not None and all(d > 0 for d in shape)


def _fc_inputs(attrs):
    return ("data", "weight") if attrs["no_bias"] else ("data", "weight", "bias")


def _fc_infer_args(attrs, shapes):
    data = shapes[0]
    if data is None:
        return shapes
    n = attrs["num_hidden"]
    in_units = int(np.prod(data[1:])) if attrs["flatten"] else data[-1]
    shapes = list(shapes)
    shapes[1] = (n, in_units)
    if not attrs["no_bias"]:
        shapes[2] = (n,)
    return shapes


@implementation("FullyConnected", inputs=_fc_inputs, infer_args=_fc_infer_args,
                params=dict(num_hidden=Int(), no_bias=Bool(False), flatten=Bool(True)))
def fully_connected(*, num_hidden, no_bias, flatten):  # pylint: disable=unused-argument
    """``Y = X W^T + b``; with ``flatten`` the data is first collapsed to 2-d."""
    def run(data, weight, bias=None):
        if weight.size(0) != num_hidden:  # torch would not mind: the check rule words it
            raise MXNetError("FullyConnected: weight %s does not have num_hidden=%d rows"
                             % (tuple(weight.shape), num_hidden))
        if flatten and data.dim() != 2:
            data = data.reshape(data.shape[0], -1)
        return F.linear(data, weight, bias)
    return run


@check_rule("FullyConnected")
def _check_fully_connected(attrs, tensors):
    data, weight = tensors[0], tensors[1]
    num_hidden = attrs["num_hidden"]
    units = int(np.prod(data.shape[1:])) if attrs["flatten"] else data.shape[-1]
    if weight.shape[0] != num_hidden or units != weight.shape[-1]:
        raise MXNetError("Operator FullyConnected: Shape inconsistent, Provided weight = %s, inferred shape=(%d, %d) "
                         "from data %s and num_hidden=%d"
                         % (tuple(weight.shape), num_hidden, units, tuple(data.shape), num_hidden))


# MXNet 1.9.1's act_type choices (log_sigmoid and mish came later, in 2.0)
_ACTIVATIONS = {
    "relu": torch.relu, "sigmoid": torch.sigmoid, "softrelu": F.softplus,
    "softsign": F.softsign, "tanh": torch.tanh,
}


@implementation("Activation", params=dict(act_type=Str(choices=tuple(_ACTIVATIONS))))
def activation(*, act_type):
    """Element-wise activation: relu, sigmoid, softrelu (``log(1 + exp(x))``), softsign or tanh."""
    return _ACTIVATIONS[act_type]

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
def _fully_connected(attrs, shapes):
    data = shapes[0]
    if attrs["flatten"]:
        return [(data[0], attrs["num_hidden"])]
    return [tuple(data[:-1]) + (attrs["num_hidden"],)]


shape_rule("FullyConnected")(_fully_connected)
shape_rule("Activation")(same_shape)
