"""``mx.io.ImageRecordIter(random_resized_crop=True, ...)`` against MXNet 1.9.1's recorded
outputs (tools/make_extra_fixtures_random_resized_crop.py, cases in
tests/random_resized_crop_cases.py): the crops of photos value by value (the position found
among all), the deterministic cases exactly, the crop boxes of random draws in distribution,
and MXNet's argument checks."""
import os
import sys

import numpy as np
import pytest

pytest.importorskip("cv2")
import cv2  # noqa: E402

import neogluon as mx  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_resized_crop_cases import (BOX_SHAPE, COORDS, COPIES, DETERMINISTIC, DISTRIBUTION, EPOCHS,  # noqa: E402
                                       ERRORS, EXPLAINED, FIXTURES, HEIGHT, JPEG, WIDTH, boxes)

BATCHES = np.load(os.path.join(FIXTURES, "batches.npz"))


def ks_pvalue(a, b):
    """The two-sample Kolmogorov-Smirnov test's p-value (asymptotic, with Stephens'
    correction): the largest gap between the two empirical distribution functions."""
    a, b = np.sort(a), np.sort(b)
    values = np.concatenate([a, b])
    gap = np.abs(np.searchsorted(a, values, "right") / len(a) - np.searchsorted(b, values, "right") / len(b)).max()
    en = np.sqrt(len(a) * len(b) / (len(a) + len(b)))
    lam = (en + 0.12 + 0.11 / en) * gap
    if lam < 0.2:  # the series does not converge there; the p-value is 1 to 6 digits
        return 1.0
    k = np.arange(1, 101)
    return float(np.clip(2 * np.sum((-1.0) ** (k - 1) * np.exp(-2 * (k * lam) ** 2)), 0, 1))


def _photos():
    rec = mx.recordio.MXRecordIO(JPEG, "r")
    out = []
    while True:
        item = rec.read()
        if item is None:
            return out
        out.append(mx.image.imdecode(mx.recordio.unpack(item)[1]).asnumpy())


def _explain(img, want, size, shape):
    """The (x, y) of the ``size`` x ``size`` crop of ``img`` whose bilinear resize is ``want``."""
    _, h, w = shape
    rows, cols = img.shape[:2]
    for y in range(rows - size + 1):
        for x in range(cols - size + 1):
            got = cv2.resize(img[y:y + size, x:x + size], (w, h), interpolation=cv2.INTER_LINEAR)
            if np.array_equal(got.transpose(2, 0, 1).astype(np.float32), want):
                return x, y
    return None


@pytest.mark.parametrize("source", ["mxnet", "neogluon"])
def test_photo_crops_are_mxnet_resized_crops(source):
    """One area and aspect 1: every output (MXNet's and ours) is the bilinear resize of a square
    of side round(sqrt(0.5 * rows * cols)) cut somewhere in the photo."""
    shape = EXPLAINED["shape"]
    if source == "mxnet":
        outs = [BATCHES["explained/%d" % e] for e in range(EXPLAINED["epochs"])]
    else:
        it = mx.io.ImageRecordIter(path_imgrec=JPEG, data_shape=shape, batch_size=7, seed=3, **EXPLAINED["kwargs"])
        outs = []
        for _ in range(EXPLAINED["epochs"]):
            it.reset()
            outs.append(it.next().data[0].asnumpy())
    photos = _photos()
    positions = set()
    for out in outs:
        for img, want in zip(photos, out):
            size = int(np.floor(np.sqrt(np.float32(0.5) * np.float32(img.shape[0] * img.shape[1])) + 0.5))
            where = _explain(img, want, size, shape)
            assert where is not None, (source, img.shape)
            positions.add((img.shape, where))
    assert len(positions) > 7  # the positions vary


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_cases_give_mxnet_pixels(name):
    shape, kwargs = DETERMINISTIC[name]
    it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=shape, batch_size=COPIES, **kwargs)
    np.testing.assert_array_equal(it.next().data[0].asnumpy(), BATCHES["det/" + name])


def _our_boxes(kwargs, seed=0):
    it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=BOX_SHAPE, batch_size=COPIES, inter_method=0,
                               seed=seed, **kwargs)
    found = []
    for _ in range(EPOCHS):
        it.reset()
        found.append(boxes(it.next().data[0].asnumpy()))
    return np.concatenate(found)


@pytest.mark.parametrize("name", sorted(DISTRIBUTION))
def test_crop_boxes_match_mxnet_in_distribution(name):
    kwargs = DISTRIBUTION[name]
    theirs, ours = BATCHES["boxes/" + name], _our_boxes(kwargs)
    assert ours.shape == theirs.shape
    for found in (theirs, ours):
        x, y, w, h = found.T
        assert (x >= 0).all() and (y >= 0).all() and (x + w <= WIDTH).all() and (y + h <= HEIGHT).all()
    # sizes, aspect ratios, positions and centres: one distribution (two-sample KS test)
    def features(found):
        x, y, w, h = found.T.astype(np.float64)
        return {"width": w, "height": h, "area": w * h, "ratio": w / h, "x": x, "y": y,
                "centre_x": x + w / 2, "centre_y": y + h / 2}
    a, b = features(theirs), features(ours)
    for key in a:
        p = ks_pvalue(a[key], b[key])
        assert p > 0.01, (name, key, p)  # (the draws are seeded: no flakiness)
    if name == "fixed_ratio_swap":  # sides 67x134 (area 0.3 * 200 * 150, ratio 0.5), swapped half of the time
        for found in (theirs, ours):
            sides = {(int(w), int(h)) for w, h in found[:, 2:]}
            assert sides == {(67, 134), (134, 67)}, sides
            tall = np.mean(found[:, 2] < found[:, 3])
            assert 0.35 < tall < 0.65, tall


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_mxnet_argument_checks(name):
    words = {"rand_crop": "rand_crop", "scale": "min_random_scale", "crop_size": "max_crop_size",
             "area_order": "min_random_area", "ratio_order": "min_aspect_ratio", "ratio_zero": "aspect ratio"}
    for word in words[name].split():
        assert word in str(BATCHES["error/" + name]) or name == "ratio_zero"
    with pytest.raises(mx.MXNetError, match=words[name]):
        mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=(3, 32, 32), batch_size=2, **ERRORS[name])


def test_nearest_neighbour_only_without_the_warp():
    """MXNet takes inter_method=0 for the crops but not for its affine warp."""
    it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=(3, 32, 32), batch_size=2, inter_method=0)
    assert it.next().data[0].shape == (2, 3, 32, 32)
    with pytest.raises(mx.MXNetError, match="inter_method 0"):
        mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=(3, 32, 32), batch_size=2, inter_method=0, rotate=10)
