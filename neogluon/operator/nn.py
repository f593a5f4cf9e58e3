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


def output_gradient_function(name, forward, factor, doc):
    """A ``torch.autograd.Function`` (named ``name``) computing ``y = forward(x)`` whose
    backward is ``grad * factor(y)``, from the saved output alone."""

    def run(ctx, x):
        y = forward(x)
        ctx.save_for_backward(y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad * factor(y)
    return type(name, (torch.autograd.Function,), {"__doc__": doc, "forward": staticmethod(run),
                                                   "backward": staticmethod(backward)})


_ReluFloatMask = output_gradient_function(
    "_ReluFloatMask", torch.relu, torch.sign,
    "ReLU whose backward multiplies the gradient by ``sign(y)`` of the saved output ``y`` instead of selecting it "
    "by a ``bool`` mask: what a compiled training graph runs (see :func:`relu_with`).")


FLOAT_MASK_RELU = [False]  # set while executor/inductor.py traces a graph whose ReLUs take the float mask


def relu_with(plain):
    """The ReLU kernel of the ``relu`` and ``Activation(act_type='relu')`` operators, ``plain``
    (torch's ReLU) where no gradient is traced.

    Traced for a small compiled training graph with pooling (executor/inductor.py sets
    :data:`FLOAT_MASK_RELU` while it traces one), its backward is the gradient
    times ``sign`` of the saved output rather than torch's ``threshold_backward``: from that,
    AOTAutograd's partitioner saves the output ``<= 0`` as a ``bool`` tensor, and inductor's
    vectorized code stores such a mask through ``at::vec::VecMask::store(bool*)``, whose
    conversion loop is scalar under inductor's ``-fno-tree-loop-vectorize``: about 10 ns an
    element (the ReLU of LeNet's first convolution at batch 16, 55296 elements: 575 us with
    the mask, 6 us without, compiled standalone with inductor's flags; its scalar code,
    ``cpp.simdlen=1``, branches on every element instead: 245 us). The float mask costs no
    memory where the output is saved anyway (the input of the next layer's weight gradient).
    Equal to torch's gradient for finite outputs and gradients; a NaN output passes 0 (torch:
    the gradient), and an infinite gradient at a zero output gives NaN (torch: 0)."""
    def relu(x):
        if (FLOAT_MASK_RELU[0] and torch.compiler.is_compiling() and x.requires_grad and torch.is_grad_enabled()
                and x.is_floating_point()):
            return _ReluFloatMask.apply(x)
        return plain(x)
    return relu


# MXNet 1.9.1's act_type choices (log_sigmoid and mish came later, in 2.0)
_ACTIVATIONS = {
    "relu": relu_with(torch.relu), "sigmoid": torch.sigmoid, "softrelu": F.softplus,
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
