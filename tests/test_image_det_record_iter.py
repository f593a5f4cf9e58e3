"""``mx.io.ImageDetRecordIter``'s deterministic path against MXNet 1.9.1's batches
(tools/make_extra_fixtures_image_det_record_iter.py): the images resized to data_shape and
normalized, the labels ``[C, H, W, len, label...]`` padded. MXNet's first epoch after a
reset that follows construction starts at the second record (its prefetcher); neogluon starts
at the first, so the second epoch's batches are compared; with ``round_batch=False`` MXNet
leaves stale rows in the last batch (neogluon zero-fills them), so only its real rows are."""
import os

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from image_det_record_iter_cases import (CONFIGS, FIXTURES, PAD, PAD_EPOCHS, REC, WHITE,  # noqa: E402
                                         WHITE_COPIES, WHITE_SHAPE)
from test_random_resized_crop import ks_pvalue  # noqa: E402

BATCHES = np.load(os.path.join(FIXTURES, "batches.npz"))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batches_equal_mxnet(name):
    shape, batch_size, kwargs = CONFIGS[name]
    it = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=shape, batch_size=batch_size, **kwargs)
    assert tuple(it.provide_label[0].shape) == tuple(BATCHES[name + "/label_shape"])
    it.reset()
    batches = list(it)
    k = 0
    while "%s/1/%d/data" % (name, k) in BATCHES:
        key = "%s/1/%d/" % (name, k)
        pad = int(BATCHES[key + "pad"])
        real = batch_size - pad if not kwargs.get("round_batch", True) else batch_size
        assert batches[k].pad == pad
        got, want = batches[k].data[0].asnumpy(), BATCHES[key + "data"]
        assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got[:real], want[:real], rtol=1e-6, atol=1e-5)
        np.testing.assert_array_equal(batches[k].label[0].asnumpy()[:real], BATCHES[key + "label"][:real])
        k += 1
    assert k == len(batches)


def test_label_pad_width_and_label_width_checks():
    it = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=2, rand_crop_prob=0.0)
    assert it.next().label[0].shape == (2, 18)
    with pytest.raises(mx.MXNetError, match="label_pad_width: 5 smaller than estimated width: 14"):
        mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=2, label_pad_width=5)
    with pytest.raises(mx.MXNetError, match="label but label_width is set to 26"):
        mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=2, label_width=26)


def test_rand_mirror_prob_flips_about_half():
    it = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=3, rand_mirror_prob=0.5,
                                  seed=2)
    plain = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=3)
    base = plain.next().data[0].asnumpy()
    flips = 0
    for _ in range(20):
        it.reset()
        data = it.next().data[0].asnumpy()
        for i in range(3):
            flipped = np.array_equal(data[i], base[i][:, :, ::-1])
            assert flipped or np.array_equal(data[i], base[i])
            flips += flipped
    assert 15 < flips < 45


def test_rand_pad_boxes_follow_the_image_and_match_mxnet_in_distribution():
    """White images with one box over all of it, padded with black: the box neogluon reports is
    the white region (to two pixels: MXNet truncates the borders to whole pixels of the canvas
    and keeps the label's float position, then the canvas is resized), and the boxes' sides and
    corners are distributed as MXNet's (tests/test_image_det_aug.py checks the borders exactly)."""
    _, h, w = WHITE_SHAPE
    it = mx.io.ImageDetRecordIter(path_imgrec=WHITE, data_shape=WHITE_SHAPE, batch_size=WHITE_COPIES, seed=4,
                                  **PAD)
    found = []
    for _ in range(PAD_EPOCHS):
        it.reset()
        batch = it.next()
        data, labels = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        for img, label in zip(data, labels):
            ys, xs = np.nonzero(img[0] > 128)
            box = label[7:11]
            np.testing.assert_allclose([xs.min() / w, ys.min() / h, (xs.max() + 1) / w, (ys.max() + 1) / h], box,
                                       atol=2.01 / min(h, w))
        found.append(labels)
    ours, theirs = np.concatenate(found), BATCHES["pad/labels"]
    for column in (7, 8, 9, 10):
        assert ks_pvalue(ours[:, column], theirs[:, column]) > 0.01, column
    sides = lambda lab: lab[:, 9] - lab[:, 7]  # noqa: E731
    assert ks_pvalue(sides(ours), sides(theirs)) > 0.01
