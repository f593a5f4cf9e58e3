"""SqueezeNet 1.0 and 1.1 of ``gluon.model_zoo.vision`` with MXNet 1.9.1's layers and
parameter names (``squeezenet0_conv0_weight`` ...)."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import _load_pretrained, _pretrained_doc

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


def _make_fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated."""
    out = nn.HybridSequential(prefix="")
    out.add(_make_fire_conv(squeeze_channels, 1))
    paths = HybridConcurrent(axis=1, prefix="")
    paths.add(_make_fire_conv(expand1x1_channels, 1))
    paths.add(_make_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


def _make_fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation("relu"))
    return out


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    r"""SqueezeNet model from the `"SqueezeNet: AlexNet-level accuracy with 50x fewer parameters
    and <0.5MB model size" <https://arxiv.org/abs/1602.07360>`_ paper.
    SqueezeNet 1.1 model from the `official SqueezeNet repo
    <https://github.com/DeepScale/SqueezeNet/tree/master/SqueezeNet_v1.1>`_.
    SqueezeNet 1.1 has 2.4x less computation and slightly fewer parameters
    than SqueezeNet 1.0, without sacrificing accuracy. The final ``AvgPool2D(13)`` needs
    224x224 inputs (213 at least for 1.0, 209 for 1.1).

    Parameters
    ----------
    version : str
        Version of squeezenet. Options are '1.0', '1.1'.
    classes : int, default 1000
        Number of classification classes.
    """

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ["1.0", "1.1"], ("Unsupported SqueezeNet version {version}:"
                                           "1.0 or 1.1 expected".format(version=version))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            if version == "1.0":
                layers = [nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation("relu"),
                          _pool(), _make_fire(16, 64, 64), _make_fire(16, 64, 64),
                          _make_fire(32, 128, 128), _pool(), _make_fire(32, 128, 128),
                          _make_fire(48, 192, 192), _make_fire(48, 192, 192),
                          _make_fire(64, 256, 256), _pool(), _make_fire(64, 256, 256)]
            else:
                layers = [nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation("relu"),
                          _pool(), _make_fire(16, 64, 64), _make_fire(16, 64, 64),
                          _pool(), _make_fire(32, 128, 128), _make_fire(32, 128, 128),
                          _pool(), _make_fire(48, 192, 192), _make_fire(48, 192, 192),
                          _make_fire(64, 256, 256), _make_fire(64, 256, 256)]
            for layer in layers:
                self.features.add(layer)
            self.features.add(nn.Dropout(0.5))

            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation("relu"))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


@_pretrained_doc
def get_squeezenet(version, pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""SqueezeNet model from the `"SqueezeNet: AlexNet-level accuracy with 50x fewer parameters
    and <0.5MB model size" <https://arxiv.org/abs/1602.07360>`_ paper.
    SqueezeNet 1.1 model from the `official SqueezeNet repo
    <https://github.com/DeepScale/SqueezeNet/tree/master/SqueezeNet_v1.1>`_.

    Parameters
    ----------
    version : str
        Version of squeezenet. Options are '1.0', '1.1'.
    """
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        _load_pretrained(net, "squeezenet%s" % version, ctx, root)
    return net


@_pretrained_doc
def squeezenet1_0(**kwargs):
    r"""SqueezeNet 1.0 model from the `"SqueezeNet: AlexNet-level accuracy with 50x fewer parameters
    and <0.5MB model size" <https://arxiv.org/abs/1602.07360>`_ paper.
    """
    return get_squeezenet("1.0", **kwargs)


@_pretrained_doc
def squeezenet1_1(**kwargs):
    r"""SqueezeNet 1.1 model from the `official SqueezeNet repo
    <https://github.com/DeepScale/SqueezeNet/tree/master/SqueezeNet_v1.1>`_.
    """
    return get_squeezenet("1.1", **kwargs)
