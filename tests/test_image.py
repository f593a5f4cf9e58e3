"""mx.image against MXNet 1.9.1: decoding, resizing, padding, crops and the augmenters.

Expected outputs come from tools/make_extra_fixtures_vision.py (run under MXNet 1.9.1); the
random augmenters draw from Python's ``random`` and ``numpy.random`` exactly as MXNet's, so
they are compared with both seeded as the generator seeded them.
"""
import json
import os
import random

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon import nd, image  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
CASES = json.load(open(os.path.join(HERE, "cases.json")))
IMAGES = sorted(os.listdir(os.path.join(HERE, "images")))


def blob(name):
    with open(os.path.join(HERE, "images", name), "rb") as f:
        return f.read()


def check(key, got, exact=True, atol=1e-4):
    want = EXPECTED[key]
    got = got.asnumpy() if isinstance(got, nd.NDArray) else np.asarray(got)
    assert got.shape == want.shape, key
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    if exact:
        np.testing.assert_array_equal(got, want, err_msg=key)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=atol,
                                   err_msg=key)


@pytest.fixture(scope="module")
def img():
    return image.imdecode(blob("rgb420.jpg"))


def seeded(seed):
    random.seed(seed)
    np.random.seed(seed)


# ----------------------------------------------------------------------------- decoding
@pytest.mark.parametrize("name", IMAGES)
@pytest.mark.parametrize("flag", [0, 1])
@pytest.mark.parametrize("to_rgb", [0, 1])
def test_imdecode_gives_mxnets_pixels(name, flag, to_rgb):
    check("decode/%s/%d/%d" % (name, flag, to_rgb), image.imdecode(blob(name), flag=flag, to_rgb=to_rgb))


@pytest.mark.parametrize("name", IMAGES)
def test_imread(name):
    check("imread/%s" % name, image.imread(os.path.join(HERE, "images", name)))


def test_imdecode_accepts_numpy_and_ndarray():
    want = EXPECTED["decode/rgb.png/1/1"]
    buf = np.frombuffer(blob("rgb.png"), dtype=np.uint8)
    np.testing.assert_array_equal(image.imdecode(buf).asnumpy(), want)
    np.testing.assert_array_equal(image.imdecode(nd.array(buf.copy(), dtype="uint8")).asnumpy(), want)


def test_np_mode_gives_np_arrays():
    """Under npx.set_np() MXNet 1.9.1's mx.image reads, decodes and resizes through _npi_cvimread,
    _npi_cvimdecode and _npi_cvimresize: mx.np.ndarray results (d2l's BananasDataset calls
    ``imread(...).astype('float32').transpose(2, 0, 1)``, a NumPy-style transpose), and so are the
    crops and augmenters that resize; the pixels are the same."""
    from neogluon import np as mnp, npx
    path = os.path.join(HERE, "images", "rgb.png")
    want = EXPECTED["decode/rgb.png/1/1"]
    npx.set_np()
    try:
        read, decoded = image.imread(path), image.imdecode(blob("rgb.png"))
        for got in (read, decoded):
            assert isinstance(got, mnp.ndarray)
            np.testing.assert_array_equal(got.asnumpy(), want)
        assert read.astype("float32").transpose(2, 0, 1).shape == (3,) + want.shape[:2]
        resized = image.imresize(read, 5, 4)
        assert isinstance(resized, mnp.ndarray) and resized.shape == (4, 5, 3)
        for got in (image.resize_short(read, 4), image.fixed_crop(read, 0, 0, 3, 3, (5, 5)),
                    image.ForceResizeAug((4, 4))(read)):
            assert isinstance(got, mnp.ndarray)
    finally:
        npx.reset_np()
    assert type(image.imread(path)) is nd.NDArray
    np.testing.assert_array_equal(image.imresize(image.imread(path), 5, 4).asnumpy(), resized.asnumpy())


def test_imdecode_errors():
    with pytest.raises(ValueError, match="buf must be of type bytes"):
        image.imdecode("not bytes")
    with pytest.raises(mx.MXNetError, match="Decoding failed"):
        image.imdecode(b"definitely not an image")
    with pytest.raises(mx.MXNetError, match="no_such_file.jpg"):
        image.imread("/nonexistent/no_such_file.jpg")


# ----------------------------------------------------------------------------- resizing and padding
@pytest.mark.parametrize("interp", range(5))
@pytest.mark.parametrize("size", [(20, 15), (50, 41), (30, 20), (37, 60)])
def test_imresize(img, interp, size):
    w, h = size
    check("imresize/u8/%d/%dx%d" % (interp, w, h), image.imresize(img, w, h, interp=interp))
    if (w, h) in ((20, 15), (50, 41)):
        f32 = img.astype("float32") * 0.7 + 3.3
        check("imresize/f32/%d/%dx%d" % (interp, w, h), image.imresize(f32, w, h, interp=interp), exact=False)


@pytest.mark.parametrize("size", [(17, 13), (40, 30), (64, 47), (100, 75), (23, 90)])
def test_bicubic_as_opencv_342(size):
    """MXNet's default interpolation on a 64x48 image to sizes up and down."""
    big = image.imdecode(blob("big.jpg"))
    check("imresize/big/%dx%d" % size, image.imresize(big, *size, interp=2))


@pytest.mark.parametrize("border", range(5))
def test_copy_make_border(img, border):
    check("border/%d" % border, image.copyMakeBorder(img, 2, 3, 4, 1, type=border, values=(10, 20, 30)))


def test_copy_make_border_value(img):
    check("border/value", image.copyMakeBorder(img, 1, 1, 2, 2, value=7))


@pytest.mark.parametrize("interp", [0, 1, 2, 3, 4, 9])
def test_resize_short(img, interp):
    check("resize_short/%d" % interp, image.resize_short(img, 20, interp=interp))
    check("resize_short_up/%d" % interp, image.resize_short(img, 45, interp=interp))


def test_crops(img):
    check("fixed_crop", image.fixed_crop(img, 3, 4, 20, 15))
    check("fixed_crop_size", image.fixed_crop(img, 3, 4, 20, 15, size=(12, 10)))
    out, rect = image.center_crop(img, (20, 16))
    check("center_crop", out)
    assert list(rect) == EXPECTED["center_crop_rect"].tolist()
    out, rect = image.center_crop(img, (50, 40))
    check("center_crop_big", out)
    assert list(rect) == EXPECTED["center_crop_big_rect"].tolist()
    assert list(image.scale_down((640, 480), (720, 120))) == EXPECTED["scale_down"].tolist()


def test_color_normalize(img):
    f32 = img.astype("float32") * 0.7 + 3.3
    out = image.color_normalize(f32.copy(), nd.array([100, 110, 120]), nd.array([50, 60, 70]))
    check("color_normalize", out, exact=False)


def test_unknown_interp():
    with pytest.raises(ValueError, match="Unknown interp method 7"):
        image.resize_short(nd.zeros((4, 4, 3), dtype="uint8"), 2, interp=7)


# ----------------------------------------------------------------------------- augmenters
_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
AUGS = {
    "ResizeAug": lambda: image.ResizeAug(20),
    "ResizeAug_interp1": lambda: image.ResizeAug(45, interp=1),
    "ForceResizeAug": lambda: image.ForceResizeAug((25, 18)),
    "RandomCropAug": lambda: image.RandomCropAug((20, 16)),
    "RandomSizedCropAug": lambda: image.RandomSizedCropAug((20, 16), 0.3, (0.75, 1.33)),
    "CenterCropAug": lambda: image.CenterCropAug((20, 16)),
    "HorizontalFlipAug": lambda: image.HorizontalFlipAug(0.5),
    "BrightnessJitterAug": lambda: image.BrightnessJitterAug(0.3),
    "ContrastJitterAug": lambda: image.ContrastJitterAug(0.3),
    "SaturationJitterAug": lambda: image.SaturationJitterAug(0.3),
    "HueJitterAug": lambda: image.HueJitterAug(0.3),
    "ColorJitterAug": lambda: image.ColorJitterAug(0.3, 0.2, 0.1),
    "LightingAug": lambda: image.LightingAug(0.1, _EIGVAL, _EIGVEC),
    "ColorNormalizeAug": lambda: image.ColorNormalizeAug(nd.array([123.68, 116.28, 103.53]),
                                                         nd.array([58.395, 57.12, 57.375])),
    "RandomGrayAug": lambda: image.RandomGrayAug(0.5),
    "CastAug": lambda: image.CastAug("float16"),
    "RandomOrderAug": lambda: image.RandomOrderAug([image.BrightnessJitterAug(0.2),
                                                    image.ContrastJitterAug(0.2), image.HorizontalFlipAug(0.5)]),
    "SequentialAug": lambda: image.SequentialAug([image.CenterCropAug((20, 16)), image.HorizontalFlipAug(1)]),
}


@pytest.mark.parametrize("name", sorted(AUGS))
def test_augmenter_matches_mxnet_seeded(img, name):
    for seed in (1, 2, 3):
        seeded(seed)
        aug = AUGS[name]()
        src = img if name.endswith(("CropAug", "ResizeAug", "ResizeAug_interp1")) else img.astype("float32")
        out = aug(src)
        exact = name.endswith(("CropAug", "ResizeAug", "ResizeAug_interp1", "FlipAug", "SequentialAug", "CastAug"))
        check("aug/%s/%d" % (name, seed), out, exact=exact, atol=2e-3)


@pytest.mark.parametrize("name", sorted(AUGS))
def test_augmenter_dumps(name):
    got = AUGS[name]().dumps()
    got = got if isinstance(got, str) else json.dumps(got)
    assert json.loads(got) == json.loads(CASES["dumps"][name])


FULL = dict(resize=40, rand_crop=True, rand_resize=True, rand_mirror=True, mean=True, std=True,
            brightness=0.2, contrast=0.2, saturation=0.2, hue=0.1, pca_noise=0.1, rand_gray=0.3)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_create_augmenter_pipeline(img, seed):
    seeded(seed)
    src = img
    for aug in image.CreateAugmenter((3, 24, 20), **FULL):
        src = aug(src)
    check("create_augmenter/%d" % seed, src, exact=False, atol=1e-3)


def test_create_augmenter_default(img):
    seeded(5)
    src = img
    for aug in image.CreateAugmenter((3, 16, 16)):
        src = aug(src)
    check("create_augmenter/default", src)


def test_create_augmenter_dumps():
    got = [a.dumps() if isinstance(a.dumps(), str) else json.dumps(a.dumps())
           for a in image.CreateAugmenter((3, 24, 20), **FULL)]
    assert [json.loads(g) for g in got] == [json.loads(w) for w in CASES["dumps"]["CreateAugmenter"]]


def test_missing_opencv_names_the_extra(monkeypatch):
    import sys
    from neogluon import opencv
    monkeypatch.setitem(sys.modules, "cv2", None)
    monkeypatch.setattr(opencv, "_CV2", {})
    with pytest.raises(mx.MXNetError, match=r"neogluon\[vision\]"):
        image.imdecode(blob("rgb.png"))


def test_bad_resize_and_border_arguments_are_mxnet_errors(img):
    with pytest.raises(mx.MXNetError, match="w=0, h=0"):
        image.imresize(img, 0, 0)
    with pytest.raises(mx.MXNetError, match="interp=7"):
        image.imresize(img, 3, 3, interp=7)
    with pytest.raises(mx.MXNetError, match="type=9"):
        image.copyMakeBorder(img, 1, 1, 1, 1, type=9)
