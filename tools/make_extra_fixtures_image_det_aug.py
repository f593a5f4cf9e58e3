"""Record MXNet 1.9.1's ``mx.io.ImageDetRecordIter`` random augmentation for
tests/test_image_det_aug.py (run with /work/mxvenv/bin/python; the cases are in
tests/image_det_aug_cases.py). Writes tests/fixtures/extra/image_det_aug/:

- coords.rec, palette.rec: the inputs (see the cases' docstring);
- batches.npz: ``det/<name>/data|label`` (deterministic cases, the first batch after the
  iterator is made), ``crops/<name>/boxes|labels`` (crop boxes read from the pixels and the
  labels of ``EPOCHS`` x ``COPIES`` draws), ``pad/boxes|labels`` (the white region of the
  padded images and their labels), ``pad/fill`` (the pixel values outside it),
  ``colour/<name>`` (the augmented palettes, uint8), ``colour_then_pad`` (palettes with
  contrast, padded), ``error/<name>`` (MXNet's message),
  ``accepted/<name>`` (the label shape), ``bad_label/<name>`` (MXNet's message for the record
  FIXTURES/bad_<name>.rec, written here), ``mean_img/data`` (the first batch normalized by the
  mean image MXNet computes and saves to FIXTURES/mean_img.bin).
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, HERE)
from image_det_aug_cases import (ACCEPTED, BAD_LABELS, BOX_SHAPE, COLOUR_EPOCHS, COLOUR_THEN_PAD,  # noqa: E402
                                 COLOURS, COORDS, COPIES, CROPS, DETERMINISTIC, ERRORS, FIXTURES, HEADER, MEAN,
                                 OBJECTS, PAD, PAD_EPOCHS, PAD_SHAPE, PALETTE, WHITE, coords_image, crop_draws, epochs,
                                 palette, white_regions)
from make_extra_fixtures_image_record_dtype import message  # noqa: E402
from make_extra_fixtures_random_resized_crop import png  # noqa: E402


def write_inputs():
    label = np.concatenate([HEADER, OBJECTS.ravel()])
    rec = mx.recordio.MXRecordIO(COORDS, "w")
    for i in range(COPIES):
        rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, label, i, 0), png(coords_image(i))))
    rec.close()
    rec = mx.recordio.MXRecordIO(PALETTE, "w")
    for i in range(COPIES):
        rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, np.array([2, 5, 0, 0.25, 0.25, 0.75, 0.75], np.float32),
                                                        i, 0), png(palette())))
    rec.close()


def det_iter(rec, shape, batch_size=COPIES, **kwargs):
    return mx.io.ImageDetRecordIter(path_imgrec=rec, data_shape=shape, batch_size=batch_size, preprocess_threads=1,
                                    **kwargs)


def main():
    os.makedirs(FIXTURES, exist_ok=True)
    write_inputs()
    arrays = {}
    for name, (rec, shape, kwargs) in DETERMINISTIC.items():
        batch = det_iter(rec, shape, **kwargs).next()
        arrays["det/%s/data" % name] = batch.data[0].asnumpy()
        arrays["det/%s/label" % name] = batch.label[0].asnumpy()
    shape, kwargs = MEAN
    mean_path = os.path.join(FIXTURES, "mean_img.bin")
    if os.path.exists(mean_path):
        os.remove(mean_path)
    arrays["mean_img/data"] = det_iter(COORDS, shape, batch_size=4, mean_img=mean_path, **kwargs).next().data[0]\
        .asnumpy()
    for name, kwargs in CROPS.items():
        boxes, labels = crop_draws(det_iter(COORDS, BOX_SHAPE, inter_method=0, **kwargs), kwargs)
        arrays["crops/%s/boxes" % name], arrays["crops/%s/labels" % name] = boxes, labels
    boxes, labels, fill = white_regions(epochs(det_iter(WHITE, PAD_SHAPE, batch_size=4, **PAD), PAD_EPOCHS))
    arrays["pad/boxes"], arrays["pad/labels"] = boxes, labels
    arrays["pad/fill"] = np.array(sorted(fill))
    for name, kwargs in COLOURS.items():
        shape = (1, 16, 16) if name.endswith("grey") else (3, 16, 16)
        it = det_iter(PALETTE, shape, **kwargs)
        arrays["colour/" + name] = np.concatenate([d for d, _ in epochs(it, COLOUR_EPOCHS)]).astype(np.uint8)
    shape, kwargs = COLOUR_THEN_PAD
    it = det_iter(PALETTE, shape, **kwargs)
    arrays["colour_then_pad"] = np.concatenate([d for d, _ in epochs(it, 2)]).astype(np.uint8)
    for name, kwargs in ERRORS.items():
        kwargs = dict(kwargs)
        shape = kwargs.pop("data_shape", (3, 32, 32))
        try:
            det_iter(COORDS, shape, batch_size=4, **kwargs).next()
            raise SystemExit("no error for %s" % name)
        except mx.MXNetError as e:
            arrays["error/" + name] = np.array(message(e))
    for name, (label, _) in BAD_LABELS.items():
        path = os.path.join(FIXTURES, "bad_%s.rec" % name)
        rec = mx.recordio.MXRecordIO(path, "w")
        rec.write(mx.recordio.pack(mx.recordio.IRHeader(0, np.array(label, np.float32), 0, 0),
                                   png(np.zeros((30, 40, 3), np.uint8))))
        rec.close()
        try:
            det_iter(path, (3, 20, 20), batch_size=1).next()
            raise SystemExit("no error for %s" % name)
        except mx.MXNetError as e:
            arrays["bad_label/" + name] = np.array(message(e).split("Check failed:")[-1].strip())
    for name, kwargs in ACCEPTED.items():
        arrays["accepted/" + name] = np.array(det_iter(COORDS, (3, 32, 32), batch_size=4, **kwargs).next()
                                              .label[0].shape)
    np.savez_compressed(os.path.join(FIXTURES, "batches.npz"), **arrays)
    for k, v in arrays.items():
        print(k, v.shape, v if v.dtype.kind == "U" or k.startswith("accepted") else "")


if __name__ == "__main__":
    main()
