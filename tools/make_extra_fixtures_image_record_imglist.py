"""Record what MXNet 1.9.1's record iterators do with ``path_imglist`` for
tests/test_image_record_imglist.py (run with /work/mxvenv/bin/python; the cases are in
tests/image_record_imglist_cases.py). Writes tests/fixtures/extra/image_record_imglist/:
cls.rec, det.rec, uneven.rec/.idx and the ``<name>.lst`` lists (the inputs), and batches.npz:
``case/<name>/<batch>/data|label|pad`` (every batch of one epoch), ``error/<name>`` (MXNet's
message), ``lenient/<name>`` (MXNet's message for a list read here), ``quirk/<name>`` (the
labels MXNet reads from a list refused here), ``parts/<indexed>/<num_parts>/<part_index>``
(the labels of a part of uneven.rec, through uneven.idx or not) and ``shuffle/<name>`` (the
distinct (pixel, label) rows of SHUFFLE_EPOCHS shuffled epochs).
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)
from image_record_imglist_cases import (CASES, CLS_IDS, CLS_REC, DET_HEADER, DET_IDS, DET_REC, ERRORS,  # noqa: E402
                                        FIXTURES, LENIENT, LISTS, PARTS, QUIRKS, SHAPE, SHUFFLE,
                                        SHUFFLE_EPOCHS, UNEVEN, UNEVEN_SIDES, epoch, list_path, make,
                                        pairs)
from make_extra_fixtures_image_record_dtype import message  # noqa: E402
from make_extra_fixtures_random_resized_crop import png  # noqa: E402


def write_inputs():
    for path, ids, label in ((CLS_REC, CLS_IDS, lambda k: [k, k + 0.5]), (DET_REC, DET_IDS, lambda k: DET_HEADER)):
        rec = mx.recordio.MXRecordIO(path, "w")
        for k, i in enumerate(ids):
            img = np.full((8, 8, 3), 10 * (k + 1), np.uint8)
            rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, np.array(label(k), np.float32), i, 0), png(img)))
        rec.close()
    rec = mx.recordio.MXIndexedRecordIO(UNEVEN[:-4] + ".idx", UNEVEN, "w")
    noise = np.random.RandomState(0)
    for k, side in enumerate(UNEVEN_SIDES):
        img = noise.randint(0, 256, (side, side, 3)).astype(np.uint8)
        rec.write_idx(k, mx.recordio.pack(mx.recordio.IRHeader(0, float(k), k, 0), png(img)))
    rec.close()
    for name, text in LISTS.items():
        with open(list_path(name), "w", newline="") as f:
            f.write(text)


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    write_inputs()
    arrays = {}
    for name, (iterator, imglist, kwargs) in CASES.items():
        for n, (data, label, pad) in enumerate(epoch(make(mx.io, iterator, imglist, kwargs, preprocess_threads=1))):
            arrays["case/%s/%d/data" % (name, n)], arrays["case/%s/%d/label" % (name, n)] = data, label
            arrays["case/%s/%d/pad" % (name, n)] = np.array(pad)
    for name, (iterator, imglist, kwargs, _, _) in ERRORS.items():
        try:
            epoch(make(mx.io, iterator, imglist, kwargs, preprocess_threads=1))
            raise SystemExit("no error for %s" % name)
        except mx.MXNetError as e:
            arrays["error/" + name] = np.array(message(e))
    for name, (imglist, _) in LENIENT.items():
        try:
            epoch(make(mx.io, "ImageDetRecordIter", imglist, {}, preprocess_threads=1))
            raise SystemExit("no error for %s" % name)
        except mx.MXNetError as e:
            arrays["lenient/" + name] = np.array(message(e))
    for name, (imglist, kwargs, _) in QUIRKS.items():
        batches = epoch(make(mx.io, "ImageRecordIter", imglist, kwargs, preprocess_threads=1))
        arrays["quirk/" + name] = np.array(pairs(batches), np.float32)
    for idx in ("", UNEVEN[:-4] + ".idx"):
        for num_parts in PARTS:
            for part in range(num_parts):
                try:  # an empty part: MXNet's first batch (read when it is made) stops the iteration
                    it = mx.io.ImageRecordIter(path_imgrec=UNEVEN, path_imgidx=idx, data_shape=SHAPE, batch_size=1,
                                               resize=8, num_parts=num_parts, part_index=part, preprocess_threads=1)
                    labels = [b.label[0].asnumpy()[0] for b in it]
                except StopIteration:
                    labels = []
                arrays["parts/%s/%d/%d" % (bool(idx), num_parts, part)] = np.array(labels, np.float32)
    for name, (iterator, imglist, kwargs) in SHUFFLE.items():
        it = make(mx.io, iterator, imglist, kwargs, preprocess_threads=1, shuffle=True, seed=5)
        rows = []
        for _ in range(SHUFFLE_EPOCHS):
            rows += pairs(epoch(it))
            it.reset()
        arrays["shuffle/" + name] = np.unique(np.array(rows, np.float32), axis=0)
    np.savez_compressed(os.path.join(FIXTURES, "batches.npz"), **arrays)
    for k, v in arrays.items():
        print(k, v.shape, v if v.dtype.kind == "U" or k.startswith("quirk") else "")


if __name__ == "__main__":
    main()
