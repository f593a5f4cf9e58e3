"""GluonCV 0.10.5's detectors and segmentation net exported to ONNX: SSD, YOLOv3, Faster
R-CNN and FCN (the models of tests/gluoncv_models.py, their parameters from the same
formula) through ``mx.onnx.export_block``, checked by ``onnx.checker`` and run in ONNX
Runtime against neogluon hybridized (rtol 1e-4).

GluonCV is installed by CI's last stage only: these tests skip without it (``bash
tools/install_clients.sh VENV``, plus onnx and onnxruntime; run this file with VENV's python).
Every stage covers the same converters on small SSD-like and Faster R-CNN-like heads
(tests/test_onnx_detection.py).
"""
import os
import sys
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import neogluon as mx  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from gluoncv_models import SKIP_REASON, client_model_zoo, get_model, model_input, set_params  # noqa: E402
from onnx_nets import ort_run  # noqa: E402

model_zoo = client_model_zoo()

# building, running and exporting the four models at two opsets takes 1 to 3 minutes
pytestmark = [pytest.mark.skipif(model_zoo is None, reason=SKIP_REASON), pytest.mark.slow]

NAMES = ["ssd_512_mobilenet1.0_voc", "yolo3_mobilenet1.0_voc", "faster_rcnn_resnet50_v1b_voc", "fcn_resnet50_voc"]


def _outputs(result):
    return [o.asnumpy() for o in (result if isinstance(result, (list, tuple)) else [result])]


@pytest.mark.parametrize("opset", [13, 17])
@pytest.mark.parametrize("name", NAMES)
def test_gluoncv_model_exports(name, opset, tmp_path):
    if not hasattr(np, "float"):  # GluonCV 0.10.5's anchor code uses np.float
        np.float = float
    mx.name.NameManager._current.value = mx.name.NameManager()
    net = get_model(model_zoo, name)
    x = mx.nd.array(model_input(name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.initialize()
    net.hybridize()
    net(x)
    set_params(name, net, mx.gluon.Constant, mx.nd.array)
    want = _outputs(net(x))
    path = mx.onnx.export_block(net, str(tmp_path / "m.onnx"), in_shapes=[x.shape], opset_version=opset)
    onnx.checker.check_model(path, full_check=True)
    got = [np.asarray(o) for o in ort_run(path, [x.asnumpy()])]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape
        scale = max(1.0, float(np.abs(w).max()))
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5 * scale, err_msg="%s output %d" % (name, i))
