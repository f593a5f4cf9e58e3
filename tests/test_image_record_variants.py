"""``ImageRecordUInt8Iter``, ``ImageRecordInt8Iter``, ``ImageRecordIter_v1``,
``ImageRecordUInt8Iter_v1`` and ``ImageRecordIter`` on images smaller than ``data_shape``,
against MXNet 1.9.1's batches (tools/make_extra_fixtures_image_record_variants.py): dtypes and
values exact (bicubic resizing within 1 grey level: MXNet's OpenCV 3.4 rounds differently)."""
import os

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from image_record_variants_cases import EPOCHS, FIXTURES, RANDOM, REC, VARIANTS  # noqa: E402

BATCHES = np.load(os.path.join(FIXTURES, "batches.npz"))


def make(cls, shape, kwargs):
    return getattr(mx.io, cls)(path_imgrec=REC, data_shape=shape, batch_size=7, **kwargs)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_batches_equal_mxnet(name):
    cls, shape, kwargs = VARIANTS[name]
    it = make(cls, shape, kwargs)
    batch = it.next()
    data = batch.data[0].asnumpy()
    want = BATCHES[name + "/data"]
    assert np.dtype(it.provide_data[0].dtype).name == str(BATCHES[name + "/dtype"])
    assert data.dtype == want.dtype and data.shape == want.shape
    tol = 1 if kwargs.get("inter_method") == 2 else 0
    assert np.abs(data.astype(np.int64) - want.astype(np.int64)).max() <= tol
    np.testing.assert_array_equal(batch.label[0].asnumpy(), BATCHES[name + "/label"])


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_crop_of_small_images_explained(name):
    """Each of MXNet's random crops of an upscaled small image is a crop neogluon can give:
    the image resized as MXNet, cut at some position (all positions tried)."""
    import cv2
    cls, shape, kwargs = RANDOM[name]
    _, h, w = shape
    fixed = dict(kwargs, rand_crop=False)
    ours = make(cls, shape, dict(kwargs, seed=5))
    positions = set()
    for epoch in range(EPOCHS):
        ours.reset()
        got = ours.next().data[0].asnumpy()
        assert got.shape == BATCHES["%s/%d" % (name, epoch)].shape
    recs = mx.recordio.MXRecordIO(REC, "r")
    for i in range(7):
        _, payload = mx.recordio.unpack(recs.read())
        img = mx.image.imdecode(payload).asnumpy()  # 8-bit RGB, as the iterator decodes
        if "resize" in fixed:
            r = fixed["resize"]
            rows, cols = img.shape[:2]
            size = (r, rows * r // cols) if cols < rows else (cols * r // rows, r)
            img = cv2.resize(img, size, interpolation=cv2.INTER_LINEAR)
        rows, cols = img.shape[:2]
        if rows < h or cols < w:
            factor = max(h / rows, w / cols)
            img = cv2.resize(img, (max(w, int(cols * factor)), max(h, int(rows * factor))),
                             interpolation=cv2.INTER_LINEAR)
        rows, cols = img.shape[:2]
        for epoch in range(EPOCHS):
            want = BATCHES["%s/%d" % (name, epoch)][i].transpose(1, 2, 0)
            hits = [(y, x) for y in range(rows - h + 1) for x in range(cols - w + 1)
                    if np.array_equal(img[y:y + h, x:x + w], want)]
            assert hits, (name, epoch, i)
            positions.add(hits[0])
    assert len(positions) > 1


def test_int8_saturates_and_uint8_ignores_normalization():
    it = mx.io.ImageRecordInt8Iter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=7, mean_r=200.0)
    data = it.next().data[0].asnumpy()
    raw = mx.io.ImageRecordUInt8Iter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=7, mean_r=200.0,
                                      std_g=5.0).next().data[0].asnumpy()
    np.testing.assert_array_equal(data[:, 0], np.maximum(raw[:, 0].astype(np.int64) - 200, -128))
    np.testing.assert_array_equal(data[:, 1], np.minimum(raw[:, 1], 127))
    assert isinstance(mx.io.ImageRecordIter_v1(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=7),
                      mx.io.DataIter)
