"""Contrib layers of ``mx.gluon.contrib.nn`` (MXNet 1.9.1): parallel containers, Identity,
SyncBatchNorm and the PixelShuffle layers."""
import warnings

from .... import context, ndarray as nd
from ...block import Block, HybridBlock
from ...nn.basic_layers import Sequential, HybridSequential, BatchNorm

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm",
           "PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D", "SparseEmbedding"]


class Concurrent(Sequential):
    """Feeds the input to every child and concatenates their outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._layers()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Feeds the input to every child and concatenates their outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._layers()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input unchanged (a placeholder branch in HybridConcurrent)."""

    def hybrid_forward(self, F, x):
        return x


class SparseEmbedding(Block):
    """``Embedding`` whose weight and weight gradient are row_sparse (MXNet 1.9.1's
    contrib layer for very large vocabularies): each forward pulls only the rows of ``x``
    through ``weight.row_sparse_data``, so, as there, a Trainer must be created with the
    parameter first."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim,
                        "dtype": dtype, "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return nd.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{block_name}({input_dim} -> {output_dim}, {dtype})".format(
            block_name=self.__class__.__name__, **self._kwargs)


class SyncBatchNorm(BatchNorm):
    """Batch normalisation with statistics synchronised over ``num_devices`` devices
    (``_contrib_SyncBatchNorm``, channel axis 1). On one device it computes what
    BatchNorm does."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        num_devices = self._get_num_devices() if num_devices is None else num_devices
        self._kwargs = {"eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats, "ndev": num_devices,
                        "key": self.prefix}

    @staticmethod
    def _get_num_devices():
        warnings.warn("Caution using SyncBatchNorm: "
                      "if not using all the GPUs, please mannually set num_devices",
                      UserWarning)
        return max(context.num_gpus(), 1)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var,
                                       name="fwd", **self._kwargs)


def _factors(factor, ndim):
    """``factor`` as a tuple of ``ndim`` ints (an int is repeated)."""
    try:
        return (int(factor),) * ndim
    except TypeError:
        factors = tuple(int(f) for f in factor)
        assert len(factors) == ndim, "wrong length {}".format(len(factors))
        return factors


class PixelShuffle1D(HybridBlock):
    """Rearranges ``(N, f*C, W)`` into ``(N, C, W*f)`` (sub-pixel upsampling)."""

    def __init__(self, factor):
        super().__init__()
        self._factor = int(factor)

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))        # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))           # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))            # (N, C, W*f)

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factor)


class PixelShuffle2D(HybridBlock):
    """Rearranges ``(N, f1*f2*C, H, W)`` into ``(N, C, H*f1, W*f2)``."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))   # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))     # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))         # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))            # (N, C, H*f1, W*f2)

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factors)


class PixelShuffle3D(HybridBlock):
    """Rearranges ``(N, f1*f2*f3*C, D, H, W)`` into ``(N, C, D*f1, H*f2, W*f3)``."""

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3)

    def hybrid_forward(self, F, x):
        f1, f2, f3 = self._factors
        # swapaxes rather than one 8-D transpose (MXNet transposes at most 6 axes)
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))  # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                               # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))    # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                 # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                               # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))         # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                 # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                               # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))                 # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factors)
