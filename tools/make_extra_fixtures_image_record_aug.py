"""Record MXNet 1.9.1's ``mx.io.ImageRecordIter`` with its default augmenter's arguments for
tests/test_image_record_aug.py (run with /work/mxref/bin/python):

- deterministic ones, compared value by value: a fixed ``rotate`` (with ``fill_value``), a
  fixed random scale, ``max/min_img_size``, ``pad``, ``mirror``, ``mean_img`` (the mean image
  MXNet computes and saves when the file is missing, and the batches normalized with it);
- random ones, whose draws come from MXNet's C++ generator: the batches of two epochs, which
  the tests explain image by image (each is the augmentation for some draw) or compare in
  distribution: ``max_rotate_angle``, ``random_h/s/l``, ``pca_noise``, ``max_shear_ratio``.

Inputs: tests/fixtures/extra/vision/iter.rec (7 JPEG/PNG images). Writes
tests/fixtures/extra/image_record_aug/{batches.npz,mean_img.bin}.
"""
import os

import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from image_record_aug_cases import CONFIGS, EPOCHS, REC, SHAPE  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "image_record_aug")
def main():
    os.makedirs(OUT, exist_ok=True)
    mean_path = os.path.join(OUT, "mean_img.bin")
    if os.path.exists(mean_path):
        os.remove(mean_path)
    arrays = {}
    for name, kwargs in CONFIGS.items():
        kwargs = {k: (mean_path if v == "MEAN" else v) for k, v in kwargs.items()}
        it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=7, preprocess_threads=1,
                                   seed=1, **kwargs)
        for epoch in range(EPOCHS.get(name, 1)):
            it.reset()
            batch = it.next()
            arrays["%s/%d" % (name, epoch)] = batch.data[0].asnumpy()
        print(name, kwargs)
    np.savez_compressed(os.path.join(OUT, "batches.npz"), **arrays)


if __name__ == "__main__":
    main()
