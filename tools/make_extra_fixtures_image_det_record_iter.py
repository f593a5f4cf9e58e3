"""Record MXNet 1.9.1's ``mx.io.ImageDetRecordIter`` (deterministic settings) for
tests/test_image_det_record_iter.py (run with /work/mxref/bin/python; the cases are in
tests/image_det_record_iter_cases.py). Writes
tests/fixtures/extra/image_det_record_iter/batches.npz: ``<name>/<epoch>/data|label|pad``,
``<name>/label_shape``, ``pad/labels`` (the padded boxes of white.rec, written here))."""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)
from image_det_record_iter_cases import (CONFIGS, EPOCHS, FIXTURES, PAD, PAD_EPOCHS, REC, WHITE,  # noqa: E402
                                         WHITE_COPIES, WHITE_SHAPE)
from make_extra_fixtures_random_resized_crop import png  # noqa: E402


def write_white():
    rec = mx.recordio.MXRecordIO(WHITE, "w")
    _, h, w = WHITE_SHAPE
    for i in range(WHITE_COPIES):
        label = np.array([2, 5, 1, 0, 0, 1, 1], np.float32)
        rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, label, i, 0), png(np.full((h, w, 3), 255, np.uint8))))
    rec.close()


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    arrays = {}
    for name, (shape, batch_size, kwargs) in CONFIGS.items():
        it = mx.io.ImageDetRecordIter(path_imgrec=REC, data_shape=shape, batch_size=batch_size,
                                      preprocess_threads=1, **kwargs)
        arrays[name + "/label_shape"] = np.array(it.provide_label[0].shape)
        for epoch in range(EPOCHS):
            it.reset()
            for k, batch in enumerate(it):
                key = "%s/%d/%d/" % (name, epoch, k)
                arrays[key + "data"] = batch.data[0].asnumpy()
                arrays[key + "label"] = batch.label[0].asnumpy()
                arrays[key + "pad"] = np.array(batch.pad)
        print(name, sorted(k for k in arrays if k.startswith(name)))
    write_white()
    it = mx.io.ImageDetRecordIter(path_imgrec=WHITE, data_shape=WHITE_SHAPE, batch_size=WHITE_COPIES,
                                  preprocess_threads=1, **PAD)
    found = []
    for _ in range(PAD_EPOCHS):
        it.reset()
        found.append(it.next().label[0].asnumpy())
    arrays["pad/labels"] = np.concatenate(found)
    np.savez_compressed(os.path.join(FIXTURES, "batches.npz"), **arrays)


if __name__ == "__main__":
    main()
