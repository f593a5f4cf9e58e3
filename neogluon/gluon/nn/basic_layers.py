"""Basic layers of ``mx.gluon.nn`` (containers, Dense, normalisation, Embedding, ...),
with MXNet 1.9.1's parameter names, defaults and reprs."""
import warnings

import numpy as np

from ... import ndarray as nd, symbol as sym
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "Embedding",
           "BatchNorm", "BatchNormReLU", "InstanceNorm", "LayerNorm", "GroupNorm",
           "Flatten", "Lambda", "HybridLambda"]


def _kwargs_repr(kwargs):
    return ", ".join("%s=%r" % (k, v) for k, v in kwargs.items())


class _SequentialMixin:
    """What Sequential and HybridSequential share: add, indexing, slicing, len, repr."""

    def add(self, *blocks):
        """Adds blocks on top of the stack."""
        for block in blocks:
            self.register_child(block)

    def _layers(self):
        return list(self._children.values())

    def __repr__(self):
        modstr = "\n".join("  ({key}): {block}".format(key=key, block=_indent(repr(block), 2))
                           for key, block in self._children.items())
        return "{name}(\n{modstr}\n)".format(name=self.__class__.__name__, modstr=modstr)

    def __getitem__(self, key):
        layers = self._layers()[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks sequentially: ``forward`` feeds each child's output to the next."""

    def forward(self, x):
        for block in self._layers():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        """Hybridizes the children; warns, as MXNet does, when they all are HybridBlocks."""
        children = self._layers()
        if children and all(isinstance(c, HybridBlock) for c in children):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. "
                          "Consider using HybridSequential for the best performance."
                          % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks sequentially; hybridizes into one graph."""

    def hybrid_forward(self, F, x):
        for block in self._layers():
            x = block(x)
        return x


class Dense(HybridBlock):
    """Densely-connected layer ``activation(dot(x, weight.T) + bias)`` (FullyConnected).

    ``weight`` has shape ``(units, in_units)``; ``in_units=0`` defers it to the first call.
    ``flatten=True`` collapses all but the first input axis, otherwise the last axis is
    transformed and the leading ones kept.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True,
                 dtype="float32", weight_initializer=None, bias_initializer="zeros",
                 in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias = None
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            self.act = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        shape = self.weight.shape
        return "{name}({layout}, {act})".format(
            name=self.__class__.__name__, act=self.act if self.act else "linear",
            layout="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


class Dropout(HybridBlock):
    """Zeroes elements with probability ``rate`` in training (scaling the rest by
    ``1/(1-rate)``), shared along ``axes``; the identity in prediction and for rate 0."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return "{name}(p = {rate}, axes={axes})".format(
            name=self.__class__.__name__, rate=self._rate, axes=self._axes)


class _BatchNorm(HybridBlock):
    """Batch normalisation along ``axis``, with learned ``gamma``/``beta`` and the
    ``running_mean``/``running_var`` auxiliary states (grad_req 'null')."""

    _op_name = "BatchNorm"

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones",
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=shape,
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=shape,
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        """Casts the block, keeping float32 statistics when asked for float16 (as MXNet)."""
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        return "{name}({content}, in_channels={ch})".format(
            name=self.__class__.__name__, content=_kwargs_repr(self._kwargs),
            ch=in_channels if in_channels else None)


class BatchNorm(_BatchNorm):
    """Batch normalisation (MXNet's ``BatchNorm`` operator): in training, normalises with
    the batch statistics and updates the running ones by ``momentum``; in prediction (or
    with ``use_global_stats``) uses the running statistics. ``scale=False`` fixes gamma
    at 1, ``center=False`` leaves beta untrained."""


class BatchNormReLU(_BatchNorm):
    """Batch normalisation followed by ReLU (MXNet's fused ``_contrib_BatchNormWithReLU``)."""

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.BatchNormWithReLU(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)


class Embedding(HybridBlock):
    """Maps integer indices to rows of ``weight`` (``input_dim``, ``output_dim``);
    indices are clipped to the valid range, as MXNet's ``Embedding`` does."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        grad_stype = "row_sparse" if sparse_grad else "default"
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim,
                        "dtype": dtype, "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True, grad_stype=grad_stype)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{block_name}({input_dim} -> {output_dim}, {dtype})".format(
            block_name=self.__class__.__name__, **self._kwargs)


class Flatten(HybridBlock):
    """Collapses every axis but the first: ``(N, ...)`` -> ``(N, prod(...))``."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class _NormWithAxis(HybridBlock):
    """Shared by InstanceNorm and LayerNorm: gamma/beta of shape ``(in_channels,)``."""

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                 in_channels, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self):
        return "{name}({content}, in_channels={ch})".format(
            name=self.__class__.__name__, content=_kwargs_repr(self._kwargs),
            ch=self.gamma.shape[0])


class InstanceNorm(_NormWithAxis):
    """Normalises each sample and channel over the spatial axes (``InstanceNorm``);
    the channel axis is ``axis``. By default ``scale=False`` (gamma not trained)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         in_channels, **kwargs)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd",
                              eps=self._epsilon).swapaxes(1, self._axis)


class LayerNorm(_NormWithAxis):
    """Normalises over ``axis`` (default the last) per sample (``LayerNorm``)."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", in_channels=0,
                 prefix=None, params=None):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                         in_channels, prefix=prefix, params=params)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class GroupNorm(HybridBlock):
    """Splits the channels (axis 1) into ``num_groups`` groups and normalises each group
    per sample (``GroupNorm``); gamma/beta have one entry per group, as in MXNet 1.9.1."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(num_groups,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(num_groups,), init=beta_initializer,
                                    allow_deferred_init=True)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return "{name}({content})".format(name=self.__class__.__name__,
                                          content=_kwargs_repr(self._kwargs))


def _function_name(function):
    return getattr(function, "__name__", type(function).__name__)


class Lambda(Block):
    """Wraps a function of NDArrays, or the name of an ``mx.nd`` function, as a Block."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function), "Function name %s is not found in ndarray." % function
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}"
                             .format(function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__,
                                           function=_function_name(self._func_impl))


class HybridLambda(HybridBlock):
    """Wraps ``function(F, x, *args)``, or the name of an operator present in both
    ``mx.nd`` and ``mx.sym``, as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function) and hasattr(sym, function), \
                "Function name %s is not found in symbol/ndarray." % function
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = _function_name(function)
        else:
            raise ValueError("Unrecognized function in lambda: {} of type {}"
                             .format(function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return "{name}({function})".format(name=self.__class__.__name__,
                                           function=self._func_name)
