"""Record what MXNet 1.9.1's record iterators do with ``dtype`` for
tests/test_image_record_dtype.py (run with /work/mxvenv/bin/python; the cases are in
tests/image_record_dtype_cases.py). Writes tests/fixtures/extra/image_record_dtype/dtypes.npz:
``dtype/<iterator>/<dtype>`` (the batch's dtype name, or ``error: <MXNet's message>``) and
``batch/<dtype>`` (ImageRecordIter's batches of those dtypes).
"""
import os
import re
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)
from image_record_dtype_cases import BATCH_DTYPES, DET_REC, DTYPES, FIXTURES, IMAGE_REC, ITERATORS, NORM  # noqa: E402


def message(e):
    """The first line of MXNet's error message (after 'Check failed:'), without time stamps."""
    lines = [line for line in str(e).splitlines() if line.strip() and not line.startswith(("Traceback", "  File",
                                                                                              "Stack", "[bt]"))]
    return re.sub(r"\[\d\d:\d\d:\d\d\] ", "", lines[0].split("Check failed:")[-1].strip())  # no time stamps


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    arrays = {}
    for iterator in ITERATORS:
        rec = DET_REC if iterator == "ImageDetRecordIter" else IMAGE_REC
        for dtype in DTYPES:
            kwargs = {} if dtype is None else dict(dtype=dtype)
            try:
                it = getattr(mx.io, iterator)(path_imgrec=rec, data_shape=(3, 20, 24), batch_size=3,
                                              preprocess_threads=1, **kwargs)
                result = np.dtype(it.next().data[0].dtype).name
            except mx.MXNetError as e:
                result = "error: " + message(e)
            arrays["dtype/%s/%s" % (iterator, dtype)] = np.array(result)
    for dtype in BATCH_DTYPES:
        it = mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=7, preprocess_threads=1,
                                   dtype=dtype, **NORM)
        arrays["batch/" + dtype] = it.next().data[0].asnumpy()
    np.savez_compressed(os.path.join(FIXTURES, "dtypes.npz"), **arrays)
    for k, v in arrays.items():
        print(k, v.shape, v if v.dtype.kind == "U" else "")


if __name__ == "__main__":
    main()
