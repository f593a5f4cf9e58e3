"""The GluonCV 0.10.5 models of tests/test_gluoncv_models.py and their inputs.

Shared by ``tools/make_extra_fixtures_gluoncv.py`` (run in MXNet 1.9.1 with GluonCV, it
records the outputs) and the test, which rebuilds the same input here; the parameters come
from tests/model_zoo_params.py. Inputs are small so that the recorded outputs stay small.
"""
import importlib.util
import re
import zlib

import numpy as np

import model_zoo_params

SKIP_REASON = "GluonCV is not installed (bash tools/install_clients.sh VENV)"


def client_model_zoo():
    """GluonCV's ``model_zoo`` imported through neogluon's ``import mxnet`` alias, or None
    when GluonCV is not installed (the tests' skip condition; never called in MXNet)."""
    if importlib.util.find_spec("gluoncv") is None:
        return None
    import neogluon_alias  # pylint: disable=import-outside-toplevel
    neogluon_alias.activate()
    from gluoncv import model_zoo  # pylint: disable=import-outside-toplevel
    return model_zoo


NO_BASE = dict(pretrained=False, pretrained_base=False)
MODELS = {
    "resnet18_v1b": dict(kwargs=dict(pretrained=False), shape=(2, 3, 32, 32)),
    "mobilenetv3_small": dict(kwargs=dict(pretrained=False), shape=(2, 3, 32, 32)),
    "ssd_512_mobilenet1.0_voc": dict(kwargs=NO_BASE, shape=(1, 3, 128, 128)),
    "yolo3_mobilenet1.0_voc": dict(kwargs=NO_BASE, shape=(1, 3, 128, 128)),
    # 300 regions through ResNet's last stage take 20 s, 32 take 2 s (the predefined model
    # sets these counts itself: they are set on the built model)
    "faster_rcnn_resnet50_v1b_voc": dict(kwargs=NO_BASE, shape=(1, 3, 128, 128), head_gain=0.25,
                                         attrs={"_rpn_test_post_nms": 32, "rpn._test_pre_nms": 400,
                                                "rpn._test_post_nms": 32}),
    "fcn_resnet50_voc": dict(kwargs=dict(NO_BASE, crop_size=48, base_size=64), shape=(1, 3, 48, 48)),
}


def get_model(model_zoo, name):
    """``model_zoo.get_model(name, ...)`` with the model's ``attrs`` set."""
    net = model_zoo.get_model(name, **MODELS[name]["kwargs"])
    for path, value in MODELS[name].get("attrs", {}).items():
        *blocks, attr = path.split(".")
        owner = net
        for b in blocks:
            owner = getattr(owner, b)
        setattr(owner, attr, value)
    return net


def model_input(name):
    """The float32 input of ``name``: uniform in [-1, 1), a function of the name only."""
    shape = MODELS[name]["shape"]
    rng = np.random.RandomState(zlib.crc32(("gluoncv:" + name).encode()))
    return rng.uniform(-1.0, 1.0, int(np.prod(shape))).reshape(shape).astype(np.float32)


# the detection heads, whose weights a model's ``head_gain`` scales (default 1): Faster
# R-CNN's box offsets then stay small enough that exp() does not turn float32 rounding into
# errors above 1e-4 (boxes of 2000 pixels)
HEADS = re.compile(r"predictor|rpn\.(score|loc)|yolooutput")


KIND = re.compile(r"[._](weight|gamma|beta|bias|running_mean|running_var|moving_mean|moving_var)$")


def param_value(key, shape, head_gain=1.0):
    """``key``'s value: model_zoo_params' formula for its kind (SymbolBlock parameters such as
    SSD's ``features.expand_bn0_moving_var`` end in ``_kind``), the detection heads scaled
    down."""
    kind = KIND.search(key)
    kind = kind.group(1).replace("moving", "running") if kind else "bias"
    value = model_zoo_params.param_value(key + "." + kind, shape)
    if key.endswith("weight") and HEADS.search(key):
        value *= np.float32(head_gain)
    return value


def set_params(name, net, constant_type, array):
    """Every parameter of ``net`` but its constants (anchors, offsets) from the formula
    (``array`` makes the framework's array of a numpy one)."""
    for key, param in net._collect_params_with_prefix().items():
        if not isinstance(param, constant_type):
            param.set_data(array(param_value(key, param.shape, MODELS[name].get("head_gain", 1.0))))
