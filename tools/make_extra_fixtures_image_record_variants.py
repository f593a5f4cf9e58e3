"""Record MXNet 1.9.1's ``ImageRecordUInt8Iter``, ``ImageRecordInt8Iter``,
``ImageRecordIter_v1``, ``ImageRecordUInt8Iter_v1`` and ``ImageRecordIter`` on images smaller
than ``data_shape`` for tests/test_image_record_variants.py (run with /work/mxref/bin/python;
the cases are in tests/image_record_variants_cases.py).

Writes tests/fixtures/extra/image_record_variants/batches.npz: ``<name>/data``,
``<name>/label``, ``<name>/dtype`` (the provided data dtype) and, for the random cases,
``<name>/<epoch>``.
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from image_record_variants_cases import EPOCHS, FIXTURES, RANDOM, REC, VARIANTS  # noqa: E402


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    arrays = {}
    for name, (cls, shape, kwargs) in VARIANTS.items():
        it = getattr(mx.io, cls)(path_imgrec=REC, data_shape=shape, batch_size=7, preprocess_threads=1, **kwargs)
        batch = it.next()
        arrays[name + "/data"] = batch.data[0].asnumpy()
        arrays[name + "/label"] = batch.label[0].asnumpy()
        arrays[name + "/dtype"] = np.array(np.dtype(it.provide_data[0].dtype).name)
        print(name, arrays[name + "/data"].dtype, arrays[name + "/data"].shape)
    for name, (cls, shape, kwargs) in RANDOM.items():
        it = getattr(mx.io, cls)(path_imgrec=REC, data_shape=shape, batch_size=7, preprocess_threads=1, **kwargs)
        for epoch in range(EPOCHS):
            it.reset()
            arrays["%s/%d" % (name, epoch)] = it.next().data[0].asnumpy()
    np.savez_compressed(os.path.join(FIXTURES, "batches.npz"), **arrays)


if __name__ == "__main__":
    main()
