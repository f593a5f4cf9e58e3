r"""``mx.gluon.model_zoo.vision``: the predefined vision networks of MXNet 1.9.1, with its
parameter names and shapes, so MXNet's pretrained ``.params`` files load unchanged.

-  `AlexNet <https://arxiv.org/abs/1404.5997>`_
-  `DenseNet <https://arxiv.org/abs/1608.06993>`_
-  `Inception V3 <http://arxiv.org/abs/1512.00567>`_
-  `ResNet V1 <https://arxiv.org/abs/1512.03385>`_
-  `ResNet V2 <https://arxiv.org/abs/1603.05027>`_
-  `SqueezeNet <https://arxiv.org/abs/1602.07360>`_
-  `VGG <https://arxiv.org/abs/1409.1556>`_
-  `MobileNet <https://arxiv.org/abs/1704.04861>`_
-  `MobileNetV2 <https://arxiv.org/abs/1801.04381>`_

A constructor builds a model with random weights (``vision.resnet18_v1()``); with
``pretrained=True`` it loads MXNet's pretrained parameters from the local model store
(``$MXNET_HOME/models``, see ``model_store``), which must hold the file already: nothing is
downloaded.

All pre-trained models expect input images normalized in the same way,
i.e. mini-batches of 3-channel RGB images of shape (N x 3 x H x W),
where N is the batch size, and H and W are expected to be at least 224.
The images have to be loaded in to a range of [0, 1] and then normalized
using ``mean = [0.485, 0.456, 0.406]`` and ``std = [0.229, 0.224, 0.225]``.
"""
# pylint: disable=wildcard-import
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403

_models = {"resnet18_v1": resnet18_v1,  # noqa: F405
           "resnet34_v1": resnet34_v1,  # noqa: F405
           "resnet50_v1": resnet50_v1,  # noqa: F405
           "resnet101_v1": resnet101_v1,  # noqa: F405
           "resnet152_v1": resnet152_v1,  # noqa: F405
           "resnet18_v2": resnet18_v2,  # noqa: F405
           "resnet34_v2": resnet34_v2,  # noqa: F405
           "resnet50_v2": resnet50_v2,  # noqa: F405
           "resnet101_v2": resnet101_v2,  # noqa: F405
           "resnet152_v2": resnet152_v2,  # noqa: F405
           "vgg11": vgg11,  # noqa: F405
           "vgg13": vgg13,  # noqa: F405
           "vgg16": vgg16,  # noqa: F405
           "vgg19": vgg19,  # noqa: F405
           "vgg11_bn": vgg11_bn,  # noqa: F405
           "vgg13_bn": vgg13_bn,  # noqa: F405
           "vgg16_bn": vgg16_bn,  # noqa: F405
           "vgg19_bn": vgg19_bn,  # noqa: F405
           "alexnet": alexnet,  # noqa: F405
           "densenet121": densenet121,  # noqa: F405
           "densenet161": densenet161,  # noqa: F405
           "densenet169": densenet169,  # noqa: F405
           "densenet201": densenet201,  # noqa: F405
           "squeezenet1.0": squeezenet1_0,  # noqa: F405
           "squeezenet1.1": squeezenet1_1,  # noqa: F405
           "inceptionv3": inception_v3,  # noqa: F405
           "mobilenet1.0": mobilenet1_0,  # noqa: F405
           "mobilenet0.75": mobilenet0_75,  # noqa: F405
           "mobilenet0.5": mobilenet0_5,  # noqa: F405
           "mobilenet0.25": mobilenet0_25,  # noqa: F405
           "mobilenetv2_1.0": mobilenet_v2_1_0,  # noqa: F405
           "mobilenetv2_0.75": mobilenet_v2_0_75,  # noqa: F405
           "mobilenetv2_0.5": mobilenet_v2_0_5,  # noqa: F405
           "mobilenetv2_0.25": mobilenet_v2_0_25}  # noqa: F405


def get_model(name, **kwargs):
    """Returns a pre-defined model by name (case-insensitive), as MXNet 1.9.1.

    Parameters
    ----------
    name : str
        Name of the model.
    pretrained : bool
        Whether to load the pretrained weights for model (from the local model store).
    classes : int
        Number of classes for the output layer.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, default '$MXNET_HOME/models'
        Location for keeping the model parameters.

    Returns
    -------
    gluon.HybridBlock
        The model.
    """
    name = name.lower()
    if name not in _models:
        raise ValueError("Model %s is not supported. Available options are\n\t%s" % (
            name, "\n\t".join(sorted(_models.keys()))))
    return _models[name](**kwargs)
