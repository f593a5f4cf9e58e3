"""Deterministic parameters and inputs of the model-zoo tests.

Shared by ``tools/make_extra_fixtures_model_zoo.py`` (run in MXNet 1.9.1, it records the
outputs) and ``tests/test_model_zoo.py`` (which rebuilds the same values here), so that no
weight file is committed: a parameter's values depend only on its structural name
(``features.0.weight``) and its shape, an input's only on the model name and shape.
Plain numpy and zlib, so both interpreters compute identical float32 values.
"""
import zlib

import numpy as np

# the smallest input side each family accepts with a 1000-class head (the final fixed-size
# pooling of DenseNet, Inception v3 and SqueezeNet needs near-ImageNet sizes); the others
# run on 32x32 (VGG's and AlexNet's Dense layers then get fewer input units)
MIN_SIDE = {"alexnet": 63, "densenet": 221, "inceptionv3": 299, "squeezenet1.0": 213,
            "squeezenet1.1": 209}
# tensors larger than this repeat one random block of this many values (cheap to build)
PERIOD = 65521


def input_side(name):
    """The input side used for ``name``'s recorded outputs."""
    for key, side in MIN_SIDE.items():
        if name.startswith(key):
            return side
    return 32


def shape_side(name):
    """The input side the parameter shapes are recorded for (the pretrained models')."""
    return 299 if name == "inceptionv3" else 224


def _uniform(key, size, low, high):
    rng = np.random.RandomState(zlib.crc32(key.encode()))
    return np.resize(rng.uniform(low, high, min(size, PERIOD)), size)


def param_value(name, shape):
    """The float32 value of the parameter with structural name ``name`` and ``shape``:
    He-uniform weights, small biases and shifts, BatchNorm scales near 1 and positive
    running variances, so that the deepest networks neither explode nor vanish."""
    shape = tuple(int(s) for s in shape)
    size = int(np.prod(shape))
    kind = name.rsplit(".", 1)[-1]
    if kind == "weight" and len(shape) > 1:
        bound = np.sqrt(6.0 / (size // shape[0]))
        values = _uniform(name, size, -bound, bound)
    elif kind == "gamma":
        values = _uniform(name, size, 0.6, 1.0)
    elif kind == "running_var":
        values = _uniform(name, size, 0.5, 1.5)
    else:  # bias, beta, running_mean
        values = _uniform(name, size, -0.1, 0.1)
    return values.reshape(shape).astype(np.float32)


def input_value(name, shape):
    """The float32 input of model ``name``: uniform in [-1, 1)."""
    size = int(np.prod(shape))
    return _uniform("input:" + name, size, -1.0, 1.0).reshape(shape).astype(np.float32)


def input_shape(name):
    """(batch, 3, side, side): two images for the 32x32 models, one for the large ones."""
    side = input_side(name)
    return (2 if side == 32 else 1, 3, side, side)
