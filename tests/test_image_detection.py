"""mx.image.detection against MXNet 1.9.1: the box-moving augmenters (seeded as MXNet's draw
from Python's random), CreateDetAugmenter's pipeline and ImageDetIter's batches."""
import json
import os
import random

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon import image, nd  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
PADS = json.load(open(os.path.join(HERE, "cases.json")))["iter_pads"]
LABEL = np.array([[0, 0.1, 0.2, 0.6, 0.7], [1, 0.3, 0.1, 0.9, 0.5], [-1, -1, -1, -1, -1]], dtype=np.float32)
AUGS = {
    "DetHorizontalFlipAug": lambda: image.DetHorizontalFlipAug(0.5),
    "DetRandomCropAug": lambda: image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.3, 1.0)),
    "DetRandomPadAug": lambda: image.DetRandomPadAug(area_range=(1, 2.0)),
    "DetBorrowAug": lambda: image.DetBorrowAug(image.BrightnessJitterAug(0.2)),
    "DetRandomSelectAug": lambda: image.DetRandomSelectAug([image.DetHorizontalFlipAug(1),
                                                             image.DetBorrowAug(image.CastAug())], skip_prob=0.3),
}


def seeded(seed):
    random.seed(seed)
    np.random.seed(seed)


@pytest.fixture(scope="module")
def img():
    return nd.array(EXPECTED["decode/rgb420.jpg/1/1"], dtype="uint8")


def close(got, key):
    want = EXPECTED[key]
    got = got.asnumpy() if isinstance(got, nd.NDArray) else np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (key, got.shape, want.shape, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=key)


@pytest.mark.parametrize("name", sorted(AUGS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_det_augmenter_seeded(img, name, seed):
    seeded(seed)
    out, label = AUGS[name]()(img.astype("float32"), LABEL.copy())
    close(out, "det/%s/%d/img" % (name, seed))
    close(label, "det/%s/%d/label" % (name, seed))


@pytest.mark.parametrize("seed", [1, 2])
def test_create_det_augmenter(img, seed):
    seeded(seed)
    augs = image.CreateDetAugmenter((3, 24, 20), resize=40, rand_crop=0.5, rand_pad=0.5, rand_gray=0.2,
                                    rand_mirror=True, mean=True, std=True, brightness=0.1, contrast=0.1,
                                    saturation=0.1, hue=0.1, pca_noise=0.05)
    src, lab = img, LABEL.copy()
    for a in augs:
        src, lab = a(src, lab)
    close(src, "det/create/%d/img" % seed)
    close(lab, "det/create/%d/label" % seed)


def compare(name, it, epochs=2):
    got = []
    for epoch in range(epochs):
        for i, batch in enumerate(it):
            close(batch.data[0], "%s/%d/%d/data" % (name, epoch, i))
            close(batch.label[0], "%s/%d/%d/label" % (name, epoch, i))
            got.append([epoch, i, batch.pad])
        it.reset()
    assert got == PADS[name]


def test_image_det_iter_default():
    it = image.ImageDetIter(2, (3, 20, 24), path_imgrec=os.path.join(HERE, "det.rec"),
                            path_imgidx=os.path.join(HERE, "det.idx"))
    assert it.provide_label == [("label", (2, 2, 5))]
    compare("ImageDetIter/default", it)


def test_image_det_iter_seeded_random():
    seeded(4)
    it = image.ImageDetIter(2, (3, 20, 24), path_imgrec=os.path.join(HERE, "det.rec"),
                            path_imgidx=os.path.join(HERE, "det.idx"), shuffle=True, rand_crop=0.5, rand_pad=0.5,
                            rand_mirror=True, mean=True, std=True)
    compare("ImageDetIter/random", it)


def test_label_shape_changes():
    it = image.ImageDetIter(2, (3, 20, 24), path_imgrec=os.path.join(HERE, "det.rec"),
                            path_imgidx=os.path.join(HERE, "det.idx"))
    it.reshape(label_shape=(4, 5))
    assert it.provide_label == [("label", (2, 4, 5))]
    assert it.next().label[0].shape == (2, 4, 5)
    with pytest.raises(ValueError, match="reduce label count"):
        it.reshape(label_shape=(1, 5))
    other = image.ImageDetIter(1, (3, 20, 24), path_imgrec=os.path.join(HERE, "det.rec"),
                               path_imgidx=os.path.join(HERE, "det.idx"))
    it.sync_label_shape(other)
    assert other.label_shape == (4, 5)
    with pytest.raises(RuntimeError, match="Label shape is invalid"):
        image.ImageDetIter._parse_label(np.array([2, 5, 1.0]))
    assert mx.image.detection.DetBorrowAug(image.CastAug()).dumps()[0] == "detborrowaug"
