"""mx.io.ImageRecordIter against MXNet 1.9.1's C++ iterator (tools/make_extra_fixtures_vision.py):
centre crops, resize, mean/std/scale, round_batch's padding and epoch continuation."""
import json
import os

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
PADS = json.load(open(os.path.join(HERE, "cases.json")))["iter_pads"]
REC = os.path.join(HERE, "iter.rec")
CONFIGS = {"plain": {}, "resize_mean": dict(resize=26, mean_r=123.0, mean_g=117.0, mean_b=104.0, std_r=58.0,
                                            std_g=57.0, std_b=57.5),
           "scale": dict(scale=1.0 / 255, resize=24)}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_matches_mxnet(name):
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=3, preprocess_threads=1,
                               **CONFIGS[name])
    assert it.provide_data[0].shape == (3, 3, 20, 24) and it.provide_label[0].shape == (3,)
    epochs = 2 if name == "plain" else 1
    got = []
    for epoch in range(epochs):
        for i, batch in enumerate(it):
            for part, arr in (("data", batch.data[0]), ("label", batch.label[0])):
                want = EXPECTED["ImageRecordIter/%s/%d/%d/%s" % (name, epoch, i, part)]
                np.testing.assert_allclose(arr.asnumpy(), want, rtol=1e-6, atol=1e-6)
            got.append([epoch, i, batch.pad])
        it.reset()
    assert got == PADS["ImageRecordIter/%s" % name]


def test_without_round_batch():
    """The real images match; the fill is zeros and ``pad`` counts it (MXNet: stale memory, pad 0)."""
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=3, round_batch=False)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    last = batches[2].data[0].asnumpy()
    np.testing.assert_array_equal(last[0], EXPECTED["ImageRecordIter/no_round/0/2/data"][0])
    assert not last[1:].any()
    it.reset()
    np.testing.assert_array_equal(it.next().label[0].asnumpy(), EXPECTED["ImageRecordIter/no_round/1/0/label"])


def test_random_crop_mirror_and_shuffle():
    base = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=7)
    centre = base.next().data[0].asnumpy()
    it = mx.io.ImageRecordIter(path_imgrec=REC, path_imgidx=os.path.join(HERE, "iter.idx"), data_shape=(3, 20, 24),
                               batch_size=7, rand_crop=True, rand_mirror=True, shuffle=True, seed=3)
    labels = []
    for _ in range(3):
        batch = it.next()
        labels.append(batch.label[0].asnumpy().tolist())
        assert batch.data[0].shape == (7, 3, 20, 24)
        it.reset()
    assert all(sorted(lab) == sorted([0, 1, 2, 3, 0, 1, 2]) for lab in labels)
    assert len({tuple(lab) for lab in labels}) > 1
    again = mx.io.ImageRecordIter(path_imgrec=REC, path_imgidx=os.path.join(HERE, "iter.idx"),
                                  data_shape=(3, 20, 24), batch_size=7, rand_crop=True, rand_mirror=True,
                                  shuffle=True, seed=3)
    assert again.next().label[0].asnumpy().tolist() == labels[0]
    assert centre.shape == (7, 3, 20, 24)


def test_unsupported_and_bad_arguments():
    with pytest.raises(mx.MXNetError, match="no_such_argument"):
        mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 20, 24), batch_size=2, no_such_argument=True)
    # an image smaller than data_shape is scaled up, as MXNet 1.9.1 does (values checked in
    # tests/test_image_record_variants.py against MXNet's batches)
    assert mx.io.ImageRecordIter(path_imgrec=REC, data_shape=(3, 40, 40), batch_size=2).next().data[0].shape \
        == (2, 3, 40, 40)
