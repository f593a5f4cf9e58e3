"""Check that MXNet 1.9.1 reads the RecordIO files neogluon writes (the other direction of
tests/test_recordio.py, which reads MXNet's files and compares written bytes).

    python tools/check_recordio_with_mxnet.py [--mxnet /work/mxref/bin/python]

neogluon writes random records (some holding the RecordIO magic number at aligned and
unaligned offsets, so they are split into parts) and JPEG image records packed with
``pack_img``; MXNet's interpreter then reads them back with ``MXIndexedRecordIO`` (by key, in
reverse) and with ``mx.io.ImageRecordIter``, and neogluon compares the payloads (SHA-1) and
the image batches with its own reading. Exit status 0 when everything agrees.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import recordio  # noqa: E402  pylint: disable=wrong-import-position

READER = r"""
import hashlib, json, sys
import mxnet as mx
d = sys.argv[1]
rec = mx.recordio.MXIndexedRecordIO(d + "/raw.idx", d + "/raw.rec", "r")
raw = {str(k): hashlib.sha1(rec.read_idx(k)).hexdigest() for k in reversed(rec.keys)}
it = mx.io.ImageRecordIter(path_imgrec=d + "/img.rec", data_shape=(3, 24, 24), batch_size=4, resize=28,
                           preprocess_threads=1)
batches = [[b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(), b.pad] for b in it]
print(json.dumps({"raw": raw, "batches": batches}))
"""


def write_files(folder):
    rs = np.random.RandomState(7)
    magic = (0xced7230a).to_bytes(4, "little")
    writer = recordio.MXIndexedRecordIO(folder + "/raw.idx", folder + "/raw.rec", "w")
    raw = {}
    for i in range(40):
        body = rs.bytes(int(rs.randint(0, 300)))
        if i % 3 == 0:
            cut = int(rs.randint(0, len(body) + 1))
            body = body[:cut] + magic + body[cut:]
        writer.write_idx(i, body)
        raw[str(i)] = hashlib.sha1(body).hexdigest()
    writer.close()
    import cv2  # pylint: disable=import-outside-toplevel
    writer = recordio.MXIndexedRecordIO(folder + "/img.idx", folder + "/img.rec", "w")
    for i in range(10):
        img = cv2.GaussianBlur(rs.randint(0, 255, (30 + i, 40, 3)).astype(np.uint8), (5, 5), 0)
        writer.write_idx(i, recordio.pack_img(recordio.IRHeader(0, float(i), i, 0), img, quality=90))
    writer.close()
    return raw


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="recordio_check_")
    raw = write_files(folder)
    out = subprocess.run([args.mxnet, "-c", READER, folder], check=True, capture_output=True, text=True)
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    ok = theirs["raw"] == raw
    print("MXNet reads neogluon's 40 raw records (13 with the magic inside): %s" % ("same" if ok else "DIFFERENT"))
    ours = mx.io.ImageRecordIter(path_imgrec=folder + "/img.rec", data_shape=(3, 24, 24), batch_size=4, resize=28)
    same = True
    for (data, label, pad), batch in zip(theirs["batches"], ours):
        same &= np.array_equal(np.asarray(data, np.float32), batch.data[0].asnumpy())
        same &= label == batch.label[0].asnumpy().tolist() and pad == batch.pad
    print("MXNet's ImageRecordIter on neogluon's pack_img JPEGs gives neogluon's batches: %s"
          % ("same" if same else "DIFFERENT"))
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
