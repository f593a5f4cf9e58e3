"""The legacy ``_imdecode`` against MXNet 1.9.1's OpenCV (recorded by
tools/make_extra_fixtures_imdecode.py): the decoded pixels as stored (BGR, BGRA, grey),
cropped, CHW, minus the mean. MXNet itself cannot run it from Python on a real image
(its ``str_img`` is cut at the first zero byte): that error is recorded too."""
import json
import os

import numpy as np
import pytest

import neogluon as mx

pytest.importorskip("cv2")
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "imdecode")
V = np.load(os.path.join(HERE, "values.npz"))
CASES = json.load(open(os.path.join(HERE, "cases.json")))


def image(name):
    with open(os.path.join(HERE, name + ".png"), "rb") as f:
        return f.read()


def imdecode(mean, box, c, data, **kwargs):
    x0, y0, x1, y1 = box
    return mx.nd._internal._imdecode(mean, 0, x0, y0, x1, y1, c, len(data), str_img=data, **kwargs)


@pytest.mark.parametrize("name", ["rgb", "rgba"])
def test_colour_image_cropped_minus_mean(name):
    data = image(name)
    bgr = V[name + ":flag1"]                                   # MXNet's OpenCV, as stored
    h, w = bgr.shape[:2]
    mean = np.random.RandomState(0).uniform(0, 50, (3, h - 2, w - 1)).astype("float32")
    out = imdecode(mx.nd.array(mean), (1, 1, w, h - 1), 3, data)
    want = bgr[1:h - 1, 1:w].transpose(2, 0, 1).astype("float32") - mean
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), want)
    whole = imdecode(mx.nd.zeros((3, h, w), dtype="float64"), (0, 0, 0, 0), 3, data.decode("latin-1"))
    assert whole.dtype == np.float64
    np.testing.assert_array_equal(whole.asnumpy(), bgr.transpose(2, 0, 1))


def test_alpha_and_grey_channels():
    rgba = V["rgba:source"]
    out = imdecode(mx.nd.zeros((4,) + rgba.shape[:2]), (0, 0, 0, 0), 4, image("rgba"))
    np.testing.assert_array_equal(out.asnumpy()[3], rgba[:, :, 3])   # BGRA: alpha kept last
    np.testing.assert_array_equal(out.asnumpy()[:3], V["rgba:flag1"].transpose(2, 0, 1))
    for name in ("rgb", "grey"):
        grey = V[name + ":flag0"]
        out = imdecode(mx.nd.zeros((1,) + grey.shape[:2]), (0, 0, 0, 0), 1, image(name))
        np.testing.assert_array_equal(out.asnumpy()[0], grey.reshape(grey.shape[:2]))


def test_errors_name_the_operator():
    assert all(c["op"] == "_imdecode" and "OpenCV Failed to decode image" in c["error"] for c in CASES.values())
    with pytest.raises(mx.MXNetError, match="_imdecode.*OpenCV Failed to decode image"):
        imdecode(mx.nd.zeros((3, 2, 2)), (0, 0, 2, 2), 3, b"not an image")
    with pytest.raises(mx.MXNetError, match="_imdecode.*n_channels <= res.channels"):
        imdecode(mx.nd.zeros((3, 4, 6)), (0, 0, 0, 0), 3, image("grey")[:])
    with pytest.raises(mx.MXNetError, match="_imdecode.*outside the 7x6 image"):
        imdecode(mx.nd.zeros((3, 2, 9)), (0, 0, 9, 2), 3, image("rgb"))


def test_nd_imdecode_legacy_function():
    """``mx.nd.imdecode``: no mean (float32 pixels), a crop, and a 4-d ``out`` filled at ``index``."""
    data, bgr = image("rgb"), V["rgb:flag1"]
    out = mx.nd.imdecode(data)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), bgr.transpose(2, 0, 1))
    crop = mx.nd.imdecode(data, clip_rect=(2, 1, 5, 4), channels=3)
    np.testing.assert_array_equal(crop.asnumpy(), bgr[1:4, 2:5].transpose(2, 0, 1))
    buf = mx.nd.zeros((2, 3) + bgr.shape[:2])
    assert mx.nd.imdecode(data, out=buf, index=1) is buf
    np.testing.assert_array_equal(buf.asnumpy()[1], bgr.transpose(2, 0, 1))
    assert not buf.asnumpy()[0].any()
