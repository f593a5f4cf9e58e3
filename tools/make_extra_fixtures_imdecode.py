"""Record MXNet 1.9.1's answers behind the legacy ``_imdecode`` for tests/test_imdecode.py.
Run with the reference interpreter::

    /work/mxref/bin/python tools/make_extra_fixtures_imdecode.py

MXNet's ``_imdecode`` decodes with OpenCV as stored (``cv::imdecode`` with flag -1, or 0
for one channel), crops and subtracts a mean; but MXNet 1.9.1 hands ``str_img`` to C++ as
a NUL-terminated string, so from Python it fails on any real image: that error is
recorded. The pixels it would crop are recorded from MXNet's own OpenCV through
``_cvimdecode`` (``to_rgb=False``: as stored, BGR; flag 1 drops an alpha channel, which
the PNG's ``source`` pixels give).

Writes tests/fixtures/extra/imdecode/: ``<image>.png`` (RGB, RGBA and grey PNGs written
here with zlib), ``values.npz`` (``<image>:flag1``, ``<image>:flag0`` and ``<image>:source`` HWC uint8 pixels)
and ``cases.json`` (per image, the operator and MXNet's error for it).
"""
import json
import os
import struct
import zlib

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "imdecode")


def png(pixels):
    """A PNG file of HWC (or HW) uint8 pixels: colour type 2 (RGB), 6 (RGBA) or 0 (grey)."""
    pixels = pixels if pixels.ndim == 3 else pixels[:, :, None]
    h, w, c = pixels.shape
    kind = {1: 0, 3: 2, 4: 6}[c]

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + pixels[i].tobytes() for i in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, kind, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(9)
    images = {"rgb": rng.randint(0, 256, (6, 7, 3)), "rgba": rng.randint(0, 256, (5, 4, 4)),
              "grey": rng.randint(0, 256, (4, 6))}
    values, cases = {}, {}
    for name, pixels in images.items():
        data = png(pixels.astype(np.uint8))
        with open(os.path.join(OUT, name + ".png"), "wb") as f:
            f.write(data)
        buf = mx.nd.array(np.frombuffer(data, np.uint8), dtype="uint8")
        values[name + ":source"] = pixels.astype(np.uint8)
        for flag in (1, 0):
            values["%s:flag%d" % (name, flag)] = mx.nd._internal._cvimdecode(buf, flag=flag, to_rgb=False).asnumpy()
        c = 1 if pixels.ndim == 2 else pixels.shape[2]
        try:
            mx.nd._internal._imdecode(mx.nd.zeros((c,) + pixels.shape[:2]), 0, 0, 0, pixels.shape[1],
                                      pixels.shape[0], c, len(data), str_img=data.decode("latin-1")).asnumpy()
            cases[name] = {"op": "_imdecode", "error": None}
        except mx.base.MXNetError as err:
            message = [ln for ln in str(err).split("\n") if ln.startswith("MXNetError")][0]
            cases[name] = {"op": "_imdecode", "error": message}
    np.savez(os.path.join(OUT, "values.npz"), **values)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)
    print(cases)


if __name__ == "__main__":
    main()
