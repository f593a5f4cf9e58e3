"""mx.image.ImageIter against MXNet 1.9.1's batches (tools/make_extra_fixtures_vision.py):
record files with and without an index, image lists, every last_batch_handle, and a
seeded shuffled/augmented run (Python's random decides as in MXNet)."""
import json
import os
import random

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon import image  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
PADS = json.load(open(os.path.join(HERE, "cases.json")))["iter_pads"]
REC, IDX = os.path.join(HERE, "iter.rec"), os.path.join(HERE, "iter.idx")


def compare(name, it, epochs=2, atol=1e-4):
    got = []
    for epoch in range(epochs):
        for i, batch in enumerate(it):
            assert isinstance(batch, mx.io.DataBatch)
            for part, arr in (("data", batch.data[0]), ("label", batch.label[0])):
                want = EXPECTED["%s/%d/%d/%s" % (name, epoch, i, part)]
                assert arr.shape == want.shape and arr.dtype == want.dtype, (name, epoch, i, part)
                np.testing.assert_allclose(arr.asnumpy(), want, rtol=1e-5, atol=atol, err_msg="%s %d %d %s"
                                           % (name, epoch, i, part))
            got.append([epoch, i, batch.pad])
        it.reset()
    assert got == PADS[name]


@pytest.mark.parametrize("handle", ["pad", "discard", "roll_over"])
def test_indexed_record_iter(handle):
    it = image.ImageIter(3, (3, 20, 24), path_imgrec=REC, path_imgidx=IDX, last_batch_handle=handle)
    assert it.provide_data == [("data", (3, 3, 20, 24))] and it.provide_label == [("softmax_label", (3,))]
    compare("ImageIter/%s" % handle, it)


def test_sequential_record_iter():
    compare("ImageIter/sequential", image.ImageIter(3, (3, 20, 24), path_imgrec=REC), epochs=1)


def test_seeded_shuffle_and_augmenters():
    random.seed(3)
    np.random.seed(3)
    it = image.ImageIter(2, (3, 20, 24), path_imgrec=REC, path_imgidx=IDX, shuffle=True, rand_crop=True,
                         rand_mirror=True, brightness=0.1, resize=30)
    compare("ImageIter/random", it, atol=2e-3)


def test_image_list_file():
    it = image.ImageIter(2, (3, 16, 16), path_imglist=os.path.join(HERE, "iter.lst"),
                         path_root=os.path.join(HERE, "images"))
    compare("ImageIter/imglist", it, epochs=1)


def test_image_list_in_memory():
    it = image.ImageIter(4, (3, 16, 16), imglist=[[1.0, "rgb.png"], [[2.0, 3.0], "big.jpg"], [4.0, 5.0, "gray.png"]],
                         path_root=os.path.join(HERE, "images"), label_width=2)
    compare("ImageIter/imglist_list", it, epochs=1)


def test_bad_arguments_and_broken_images(tmp_path):
    with pytest.raises(ValueError, match="3 channels"):
        image.ImageIter(2, (1, 8, 8), path_imgrec=REC)
    with pytest.raises(ValueError, match="CxHxW"):
        image.ImageIter(2, (8, 8), path_imgrec=REC)
    (tmp_path / "bad.jpg").write_bytes(b"not a jpeg")
    it = image.ImageIter(1, (3, 8, 8), imglist=[[0.0, "bad.jpg"]], path_root=str(tmp_path))
    with pytest.raises(RuntimeError, match="Broken image filename: bad.jpg"):
        it.next()
