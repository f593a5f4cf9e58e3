"""Record MXNet 1.9.1's ``mx.io.ImageRecordIter(random_resized_crop=True, ...)`` for
tests/test_random_resized_crop.py (run with /work/mxref/bin/python; the cases are in
tests/random_resized_crop_cases.py):

- coords.rec: PNGs whose pixels are their coordinates (written here with a small PNG encoder:
  MXNet's environment has no OpenCV to encode);
- batches.npz: ``explained/<epoch>`` (bilinear crops of the photos of vision/iter.rec, one area
  and aspect 1: the tests find the position that gives MXNet's pixels), ``det/<name>`` (the
  deterministic cases), ``boxes/<name>`` (the crop boxes of ``EPOCHS`` x ``COPIES`` draws, read
  from nearest-neighbour outputs), ``error/<name>`` (MXNet's error message).
"""
import os
import struct
import sys
import zlib

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from random_resized_crop_cases import (BOX_SHAPE, COORDS, COPIES, DETERMINISTIC, DISTRIBUTION, EPOCHS,  # noqa: E402
                                       ERRORS, EXPLAINED, FIXTURES, HEIGHT, JPEG, WIDTH, boxes)


def png(rgb):
    """The PNG bytes of an HxWx3 uint8 RGB image (8-bit, every row with the Sub filter)."""
    h, w, _ = rgb.shape
    sub = rgb.copy()
    sub[:, 1:] = rgb[:, 1:] - rgb[:, :-1]  # uint8: modulo 256, as PNG's filter
    raw = b"".join(b"\1" + sub[r].tobytes() for r in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def write_coords():
    rec = mx.recordio.MXRecordIO(COORDS, "w")
    for i in range(COPIES):
        img = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        img[:, :, 0] = np.arange(WIDTH)[None, :]
        img[:, :, 1] = np.arange(HEIGHT)[:, None]
        img[:, :, 2] = i
        rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), png(img)))
    rec.close()


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    write_coords()
    arrays = {}
    it = mx.io.ImageRecordIter(path_imgrec=JPEG, data_shape=EXPLAINED["shape"], batch_size=7, preprocess_threads=1,
                               **EXPLAINED["kwargs"])
    for epoch in range(EXPLAINED["epochs"]):
        it.reset()
        arrays["explained/%d" % epoch] = it.next().data[0].asnumpy()
    for name, (shape, kwargs) in DETERMINISTIC.items():
        it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=shape, batch_size=COPIES, preprocess_threads=1,
                                   **kwargs)
        arrays["det/" + name] = it.next().data[0].asnumpy()
    for name, kwargs in DISTRIBUTION.items():
        it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=BOX_SHAPE, batch_size=COPIES, preprocess_threads=1,
                                   inter_method=0, **kwargs)
        found = []
        for _ in range(EPOCHS):
            it.reset()
            found.append(boxes(it.next().data[0].asnumpy()))
        arrays["boxes/" + name] = np.concatenate(found)
    for name, kwargs in ERRORS.items():
        try:
            it = mx.io.ImageRecordIter(path_imgrec=COORDS, data_shape=(3, 32, 32), batch_size=2,
                                       preprocess_threads=1, **kwargs)
            it.next()
            raise SystemExit("no error for %s" % name)
        except mx.MXNetError as e:
            arrays["error/" + name] = np.array(str(e).split("Check failed:")[-1].strip().splitlines()[0])
    np.savez_compressed(os.path.join(FIXTURES, "batches.npz"), **arrays)
    for k, v in arrays.items():
        print(k, v.shape, v if k.startswith("error") else "")


if __name__ == "__main__":
    main()
