"""ResNet V1 and V2 (18, 34, 50, 101, 152 layers) of ``gluon.model_zoo.vision`` with MXNet
1.9.1's blocks and parameter names (``resnetv10_stage1_conv0_weight`` ...)."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained, _pretrained_doc

__all__ = ["ResNetV1", "ResNetV2",
           "BasicBlockV1", "BasicBlockV2",
           "BottleneckV1", "BottleneckV2",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
           "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
           "get_resnet"]


_BLOCK_PARAMETERS = """
    Parameters
    ----------
    channels : int
        Number of output channels.
    stride : int
        Stride size.
    downsample : bool, default False
        Whether to downsample the input.
    in_channels : int, default 0
        Number of input channels. Default is 0, to infer from the graph.
    """


def _block_doc(cls):
    """Append the constructor parameters all residual blocks share to ``cls``'s docstring."""
    cls.__doc__ = cls.__doc__.rstrip() + "\n" + _BLOCK_PARAMETERS
    return cls


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _shortcut_v1(channels, stride, in_channels):
    """V1's projection shortcut: 1x1 convolution and BatchNorm."""
    out = nn.HybridSequential(prefix="")
    out.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                      in_channels=in_channels))
    out.add(nn.BatchNorm())
    return out


class _BlockV1(HybridBlock):
    """Shared by the V1 blocks: ``relu(body(x) + shortcut(x))``, the shortcut a projection
    (``downsample``) or the identity. MXNet adds ``residual + x`` in BasicBlockV1 and
    ``x + residual`` in BottleneckV1; the graphs keep that operand order."""
    _residual_first = False

    def hybrid_forward(self, F, x):
        out = self.body(x)
        residual = self.downsample(x) if self.downsample else x
        total = residual + out if self._residual_first else out + residual
        return F.Activation(total, act_type="relu")


@_block_doc
class BasicBlockV1(_BlockV1):
    r"""BasicBlock V1 from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper (ResNet V1 18 and 34):
    ``relu(body(x) + shortcut(x))`` with two 3x3 convolutions.
    """
    _residual_first = True

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(_conv3x3(channels, stride, in_channels))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(_conv3x3(channels, 1, channels))
        self.body.add(nn.BatchNorm())
        self.downsample = _shortcut_v1(channels, stride, in_channels) if downsample else None


@_block_doc
class BottleneckV1(_BlockV1):
    r"""Bottleneck V1 from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper (ResNet V1 50, 101, 152): 1x1, 3x3, 1x1
    convolutions, the stride on the first as in MXNet.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix="")
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(_conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation("relu"))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1))
        self.body.add(nn.BatchNorm())
        self.downsample = _shortcut_v1(channels, stride, in_channels) if downsample else None


class _BlockV2(HybridBlock):
    """Shared by the V2 blocks (pre-activation): ``bn1``, ReLU, then the shortcut
    convolution (``downsample``) of that activated input or the identity, then ``conv1``
    and, for each further ``bn<i>``/``conv<i>``, BatchNorm, ReLU and convolution."""
    _convs = 2

    def _add_shortcut(self, channels, stride, downsample, in_channels):
        self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False,
                                    in_channels=in_channels) if downsample else None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type="relu")
        if self.downsample:
            residual = self.downsample(x)
        x = self.conv1(x)
        for i in range(2, self._convs + 1):
            bn, conv = getattr(self, "bn%d" % i), getattr(self, "conv%d" % i)
            x = conv(F.Activation(bn(x), act_type="relu"))
        return x + residual


@_block_doc
class BasicBlockV2(_BlockV2):
    r"""BasicBlock V2 from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper (ResNet V2 18 and 34): pre-activation,
    the shortcut convolution applied to the activated input.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self._add_shortcut(channels, stride, downsample, in_channels)


@_block_doc
class BottleneckV2(_BlockV2):
    r"""Bottleneck V2 from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper (ResNet V2 50, 101, 152): pre-activation,
    the stride on the 3x3 convolution.
    """
    _convs = 3

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self._add_shortcut(channels, stride, downsample, in_channels)


def _add_stem(features, channels, thumbnail):
    """The first layers: a 7x7 stride-2 convolution, BatchNorm, ReLU and 3x3 stride-2 max
    pooling, or with ``thumbnail`` (small images) one 3x3 stride-1 convolution."""
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False))
        features.add(nn.BatchNorm())
        features.add(nn.Activation("relu"))
        features.add(nn.MaxPool2D(3, 2, 1))


def _make_stage(block, layers, channels, stride, stage_index, in_channels):
    """Stage ``stage_index`` (prefix ``stage<i>_``): ``layers`` blocks, the first one
    striding and projecting when the channel count changes."""
    stage = nn.HybridSequential(prefix="stage%d_" % stage_index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(layers - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


class ResNetV1(HybridBlock):
    r"""ResNet V1 model from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper.

    Parameters
    ----------
    block : gluon.HybridBlock
        Class for the residual block. Options are BasicBlockV1, BottleneckV1.
    layers : list of int
        Numbers of layers in each block
    channels : list of int
        Numbers of channels in each block. Length should be one larger than layers list.
    classes : int, default 1000
        Number of classification classes.
    thumbnail : bool, default False
        Enable thumbnail (a 3x3 stride-1 first convolution, no pooling: small images).
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            _add_stem(self.features, channels[0], thumbnail)
            for i, num_layer in enumerate(layers):
                self.features.add(_make_stage(block, num_layer, channels[i + 1],
                                              1 if i == 0 else 2, i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    r"""ResNet V2 model from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper: the input goes through a BatchNorm
    without scale and shift first, and a BatchNorm and ReLU close the features.

    The parameters are ResNetV1's; ``block`` is BasicBlockV2 or BottleneckV2.
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _add_stem(self.features, channels[0], thumbnail)
            in_channels = channels[0]
            for i, num_layer in enumerate(layers):
                self.features.add(_make_stage(block, num_layer, channels[i + 1],
                                              1 if i == 0 else 2, i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation("relu"))
            self.features.add(nn.GlobalAvgPool2D())
            self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# number of layers: (block type, blocks per stage, channels of the stem and of each stage)
resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}

resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


@_pretrained_doc
def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""ResNet V1 model from `"Deep Residual Learning for Image Recognition"
    <http://arxiv.org/abs/1512.03385>`_ paper.
    ResNet V2 model from `"Identity Mappings in Deep Residual Networks"
    <https://arxiv.org/abs/1603.05027>`_ paper.

    Parameters
    ----------
    version : int
        Version of ResNet. Options are 1, 2.
    num_layers : int
        Numbers of layers. Options are 18, 34, 50, 101, 152.
    """
    assert num_layers in resnet_spec, \
        "Invalid number of layers: %d. Options are %s" % (num_layers, str(resnet_spec.keys()))
    block_type, layers, channels = resnet_spec[num_layers]
    assert 1 <= version <= 2, "Invalid resnet version: %d. Options are 1 and 2." % version
    block_class = resnet_block_versions[version - 1][block_type]
    net = resnet_net_versions[version - 1](block_class, layers, channels, **kwargs)
    if pretrained:
        _load_pretrained(net, "resnet%d_v%d" % (num_layers, version), ctx, root)
    return net


def _constructor(version, num_layers):
    """The named constructor ``resnet<num_layers>_v<version>(**kwargs)``."""
    def constructor(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    paper = ('`"Deep Residual Learning for Image Recognition" <http://arxiv.org/abs/1512.03385>`_'
             if version == 1 else
             '`"Identity Mappings in Deep Residual Networks" <https://arxiv.org/abs/1603.05027>`_')
    constructor.__name__ = constructor.__qualname__ = "resnet%d_v%d" % (num_layers, version)
    constructor.__doc__ = "ResNet-%d V%d model from the %s paper." % (num_layers, version, paper)
    return _pretrained_doc(constructor)


resnet18_v1 = _constructor(1, 18)
resnet34_v1 = _constructor(1, 34)
resnet50_v1 = _constructor(1, 50)
resnet101_v1 = _constructor(1, 101)
resnet152_v1 = _constructor(1, 152)
resnet18_v2 = _constructor(2, 18)
resnet34_v2 = _constructor(2, 34)
resnet50_v2 = _constructor(2, 50)
resnet101_v2 = _constructor(2, 101)
resnet152_v2 = _constructor(2, 152)
