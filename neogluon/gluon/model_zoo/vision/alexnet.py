"""AlexNet of ``gluon.model_zoo.vision`` with MXNet 1.9.1's layers and parameter names
(``alexnet0_conv0_weight`` ..., structural ``features.0.weight`` ..., ``output.weight``)."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import _load_pretrained, _pretrained_doc

__all__ = ["AlexNet", "alexnet"]


class AlexNet(HybridBlock):
    r"""AlexNet model from the `"One weird trick..." <https://arxiv.org/abs/1404.5997>`_ paper.

    Parameters
    ----------
    classes : int, default 1000
        Number of classes for the output layer.
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                self.features.add(nn.Conv2D(64, kernel_size=11, strides=4, padding=2,
                                            activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Conv2D(192, kernel_size=5, padding=2, activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                for channels in (384, 256, 256):
                    self.features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                                activation="relu"))
                self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu"))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


@_pretrained_doc
def alexnet(pretrained=False, ctx=cpu(), root=None, **kwargs):
    r"""AlexNet model from the `"One weird trick..." <https://arxiv.org/abs/1404.5997>`_ paper.
    """
    net = AlexNet(**kwargs)
    return _load_pretrained(net, "alexnet", ctx, root) if pretrained else net
