"""Record MXNet 1.9.1's answers for mx.recordio, mx.image and gluon.data.vision.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_vision.py [OUTDIR]

MXNet's wheel exposes no image encoder to Python (``recordio.pack_img`` needs a cv2 that
the reference environment lacks), so the JPEG/PNG images are encoded first by the project's
interpreter ($NEOGLUON_PYTHON, default /work/venv/bin/python) with OpenCV; MXNet then
decodes them. OUTDIR (default tests/fixtures/extra/vision) gets:

- ``images/*``: the encoded images;
- ``*.rec``/``*.idx``: record files written by MXNet's MXRecordIO / MXIndexedRecordIO;
- ``records.json``: the records written to each file (hex), for reading back and rewriting;
- ``expected.npz``: MXNet's outputs, keyed by case name (``cases.json`` says what each is).
"""
import json
import os
import random
import subprocess
import sys

import numpy as np
import mxnet as mx
from mxnet import nd, recordio, image, gluon
from mxnet.gluon.data.vision import transforms as T

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                          "fixtures", "extra", "vision")
PY = os.environ.get("NEOGLUON_PYTHON", "/work/venv/bin/python")
EXPECTED, CASES = {}, {}


def record(name, value, note):
    EXPECTED[name] = value.asnumpy() if isinstance(value, nd.NDArray) else np.asarray(value)
    CASES[name] = note


# ----------------------------------------------------------------------------- images
ENCODE = r"""
import sys, cv2, numpy as np
out = sys.argv[1]
rs = np.random.RandomState(14)
h, w = 29, 37
yy, xx = np.mgrid[0:h, 0:w]
rgb = np.stack([xx * 255 // (w - 1), yy * 255 // (h - 1), (xx + yy) * 4 % 256], -1).astype(np.float64)
rgb = np.clip(rgb + rs.normal(0, 25, rgb.shape), 0, 255).astype(np.uint8)
bgr = rgb[:, :, ::-1].copy()
gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
cv2.imwrite(out + "/rgb420.jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
cv2.imwrite(out + "/rgb444.jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 95,
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444])
cv2.imwrite(out + "/progressive.jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 80, cv2.IMWRITE_JPEG_PROGRESSIVE, 1])
cv2.imwrite(out + "/gray.jpg", gray, [cv2.IMWRITE_JPEG_QUALITY, 90])
cv2.imwrite(out + "/rgb.png", bgr)
alpha = (xx * 7 % 256).astype(np.uint8)[:, :, None]
cv2.imwrite(out + "/rgba.png", np.concatenate([bgr, alpha], -1))
cv2.imwrite(out + "/gray.png", gray)
cv2.imwrite(out + "/rgb16.png", bgr.astype(np.uint16) * 257)
big = cv2.resize(bgr, (64, 48), interpolation=cv2.INTER_CUBIC)
cv2.imwrite(out + "/big.jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 85])
"""
IMAGES = ["rgb420.jpg", "rgb444.jpg", "progressive.jpg", "gray.jpg", "rgb.png", "rgba.png", "gray.png",
          "rgb16.png", "big.jpg"]


def make_images():
    os.makedirs(os.path.join(OUT, "images"), exist_ok=True)
    subprocess.run([PY, "-c", ENCODE, os.path.join(OUT, "images")], check=True)
    return {n: open(os.path.join(OUT, "images", n), "rb").read() for n in IMAGES}


def decode_cases(blobs):
    for n, b in blobs.items():
        for flag in (0, 1):
            for to_rgb in (0, 1):
                record("decode/%s/%d/%d" % (n, flag, to_rgb), image.imdecode(b, flag=flag, to_rgb=to_rgb),
                       "mx.image.imdecode(buf, flag, to_rgb)")
        record("imread/%s" % n, image.imread(os.path.join(OUT, "images", n)), "mx.image.imread(path)")


def resize_cases(img):
    f32 = img.astype("float32") * 0.7 + 3.3
    for interp in range(5):
        for w, h in ((20, 15), (50, 41), (30, 20), (37, 60)):
            record("imresize/u8/%d/%dx%d" % (interp, w, h), image.imresize(img, w, h, interp=interp), "imresize uint8")
            if (w, h) in ((20, 15), (50, 41)):
                record("imresize/f32/%d/%dx%d" % (interp, w, h), image.imresize(f32, w, h, interp=interp),
                       "imresize float32")
    big = image.imdecode(open(os.path.join(OUT, "images", "big.jpg"), "rb").read())
    for w, h in ((17, 13), (40, 30), (64, 47), (100, 75), (23, 90)):
        record("imresize/big/%dx%d" % (w, h), image.imresize(big, w, h, interp=2), "bicubic, more sizes")
    for t in range(5):
        record("border/%d" % t, image.copyMakeBorder(img, 2, 3, 4, 1, type=t, values=(10, 20, 30)),
               "copyMakeBorder(2, 3, 4, 1, type, values=(10, 20, 30))")
    record("border/value", image.copyMakeBorder(img, 1, 1, 2, 2, value=7), "copyMakeBorder value=7")
    for interp in (0, 1, 2, 3, 4, 9):
        record("resize_short/%d" % interp, image.resize_short(img, 20, interp=interp), "resize_short(img, 20)")
        record("resize_short_up/%d" % interp, image.resize_short(img, 45, interp=interp), "resize_short(img, 45)")
    record("fixed_crop", image.fixed_crop(img, 3, 4, 20, 15), "fixed_crop(3, 4, 20, 15)")
    record("fixed_crop_size", image.fixed_crop(img, 3, 4, 20, 15, size=(12, 10)), "fixed_crop(..., size=(12, 10))")
    out, rect = image.center_crop(img, (20, 16))
    record("center_crop", out, "center_crop(img, (20, 16))")
    record("center_crop_rect", rect, "its rectangle")
    out, rect = image.center_crop(img, (50, 40))
    record("center_crop_big", out, "center_crop(img, (50, 40)): scaled down then resized")
    record("center_crop_big_rect", rect, "its rectangle")
    record("scale_down", image.scale_down((640, 480), (720, 120)), "scale_down((640, 480), (720, 120))")
    record("color_normalize", image.color_normalize(f32.copy(), nd.array([100, 110, 120]), nd.array([50, 60, 70])),
           "color_normalize")


def error(name, fn):
    """Record the first line of the MXNetError MXNet raises (for the message's gist)."""
    try:
        fn()
    except mx.MXNetError as e:
        CASES.setdefault("errors", {})[name] = [l for l in str(e).splitlines() if "MXNetError" in l][-1]
    else:
        raise AssertionError(name + " did not fail")


def seeded(seed):
    random.seed(seed)
    np.random.seed(seed)


def augmenter_cases(img):
    f32 = img.astype("float32")
    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])
    augs = {
        "ResizeAug": lambda: image.ResizeAug(20),
        "ResizeAug_interp1": lambda: image.ResizeAug(45, interp=1),
        "ForceResizeAug": lambda: image.ForceResizeAug((25, 18)),
        "RandomCropAug": lambda: image.RandomCropAug((20, 16)),
        "RandomSizedCropAug": lambda: image.RandomSizedCropAug((20, 16), 0.3, (0.75, 1.33)),
        "CenterCropAug": lambda: image.CenterCropAug((20, 16)),
        "HorizontalFlipAug": lambda: image.HorizontalFlipAug(0.5),
        "BrightnessJitterAug": lambda: image.BrightnessJitterAug(0.3),
        "ContrastJitterAug": lambda: image.ContrastJitterAug(0.3),
        "SaturationJitterAug": lambda: image.SaturationJitterAug(0.3),
        "HueJitterAug": lambda: image.HueJitterAug(0.3),
        "ColorJitterAug": lambda: image.ColorJitterAug(0.3, 0.2, 0.1),
        "LightingAug": lambda: image.LightingAug(0.1, eigval, eigvec),
        "ColorNormalizeAug": lambda: image.ColorNormalizeAug(nd.array([123.68, 116.28, 103.53]),
                                                             nd.array([58.395, 57.12, 57.375])),
        "RandomGrayAug": lambda: image.RandomGrayAug(0.5),
        "CastAug": lambda: image.CastAug("float16"),
        "RandomOrderAug": lambda: image.RandomOrderAug([image.BrightnessJitterAug(0.2),
                                                        image.ContrastJitterAug(0.2), image.HorizontalFlipAug(0.5)]),
        "SequentialAug": lambda: image.SequentialAug([image.CenterCropAug((20, 16)), image.HorizontalFlipAug(1)]),
    }
    dumps = {}
    for name, make in augs.items():
        for seed in (1, 2, 3):
            seeded(seed)
            aug = make()
            src = img if name.endswith(("CropAug", "ResizeAug", "ResizeAug_interp1")) else f32.copy()
            record("aug/%s/%d" % (name, seed), aug(src), "%s, python random and numpy seeded with %d" % (name, seed))
        d = make().dumps()
        dumps[name] = d if isinstance(d, str) else json.dumps(d)
    full = dict(resize=40, rand_crop=True, rand_resize=True, rand_mirror=True, mean=True, std=True,
                brightness=0.2, contrast=0.2, saturation=0.2, hue=0.1, pca_noise=0.1, rand_gray=0.3)
    for seed in (1, 2, 3, 4):
        seeded(seed)
        src = img
        auglist = image.CreateAugmenter((3, 24, 20), **full)
        for a in auglist:
            src = a(src)
        record("create_augmenter/%d" % seed, src, "CreateAugmenter((3, 24, 20), everything on)")
    seeded(5)
    src = img
    for a in image.CreateAugmenter((3, 16, 16)):
        src = a(src)
    record("create_augmenter/default", src, "CreateAugmenter((3, 16, 16))")
    dumps["CreateAugmenter"] = [a.dumps() if isinstance(a.dumps(), str) else json.dumps(a.dumps())
                                for a in image.CreateAugmenter((3, 24, 20), **full)]
    CASES["dumps"] = dumps


def detection_cases(img):
    label = np.array([[0, 0.1, 0.2, 0.6, 0.7], [1, 0.3, 0.1, 0.9, 0.5], [-1, -1, -1, -1, -1]], dtype=np.float32)
    f32 = img.astype("float32")
    augs = {
        "DetHorizontalFlipAug": lambda: image.DetHorizontalFlipAug(0.5),
        "DetRandomCropAug": lambda: image.DetRandomCropAug(min_object_covered=0.3, area_range=(0.3, 1.0)),
        "DetRandomPadAug": lambda: image.DetRandomPadAug(area_range=(1, 2.0)),
        "DetBorrowAug": lambda: image.DetBorrowAug(image.BrightnessJitterAug(0.2)),
        "DetRandomSelectAug": lambda: image.DetRandomSelectAug([image.DetHorizontalFlipAug(1),
                                                                 image.DetBorrowAug(image.CastAug())], skip_prob=0.3),
    }
    for name, make in augs.items():
        for seed in (1, 2, 3):
            seeded(seed)
            out, lab = make()(f32.copy(), label.copy())
            record("det/%s/%d/img" % (name, seed), out, name)
            record("det/%s/%d/label" % (name, seed), lab, name)
    for seed in (1, 2):
        seeded(seed)
        augs = image.CreateDetAugmenter((3, 24, 20), resize=40, rand_crop=0.5, rand_pad=0.5, rand_gray=0.2,
                                        rand_mirror=True, mean=True, std=True, brightness=0.1, contrast=0.1,
                                        saturation=0.1, hue=0.1, pca_noise=0.05)
        src, lab = img, label.copy()
        for a in augs:
            src, lab = a(src, lab)
        record("det/create/%d/img" % seed, src, "CreateDetAugmenter, everything on")
        record("det/create/%d/label" % seed, lab, "its label")


# ----------------------------------------------------------------------------- records
def record_cases(blobs):
    magic = (0xced7230a).to_bytes(4, "little")
    payloads = [b"", b"a", b"ab", b"abc", b"abcd", b"hello world", magic, b"xy" + magic + b"z",
                magic + b"1234" + magic, b"abcd" + magic + magic + b"q", bytes(range(256)) * 3]
    w = recordio.MXRecordIO(os.path.join(OUT, "plain.rec"), "w")
    for p in payloads:
        w.write(p)
    w.close()
    records = {"plain.rec": [p.hex() for p in payloads]}
    headers = [(0, 3.0, 7, 0), (0, [1.0, 2.5, -3.0], 8, 1), (5, 4.0, 9, 0), (0, np.array([0.5, 0.25]), 2 ** 40, 3)]
    packed = [recordio.pack(recordio.IRHeader(*h), b"payload%d" % i) for i, h in enumerate(headers)]
    w = recordio.MXIndexedRecordIO(os.path.join(OUT, "packed.idx"), os.path.join(OUT, "packed.rec"), "w")
    for i, p in enumerate(packed):
        w.write_idx(i * 3 + 1, p)
    w.close()
    records["packed.rec"] = [p.hex() for p in packed]
    records["packed_keys"] = [i * 3 + 1 for i in range(len(packed))]
    unpacked = []
    for p in packed:
        h, s = recordio.unpack(p)
        lab = h.label.tolist() if isinstance(h.label, np.ndarray) else h.label
        unpacked.append([h.flag, lab, h.id, h.id2, s.hex()])
    records["unpacked"] = unpacked
    # an image dataset: im2rec's layout (scalar label, id = index)
    w = recordio.MXIndexedRecordIO(os.path.join(OUT, "images.idx"), os.path.join(OUT, "images.rec"), "w")
    names = ["rgb420.jpg", "rgb444.jpg", "progressive.jpg", "rgb.png", "big.jpg", "gray.jpg"]
    for i, n in enumerate(names):
        label = float(i % 3) if i != 4 else [1.0, 2.0]
        w.write_idx(i, recordio.pack(recordio.IRHeader(0, label, i, 0), blobs[n]))
    w.close()
    records["images.rec"] = names
    with open(os.path.join(OUT, "records.json"), "w") as f:
        json.dump(records, f, indent=1)


def dataset_cases():
    ds = gluon.data.vision.ImageRecordDataset(os.path.join(OUT, "images.rec"))
    for i in range(len(ds)):
        img, label = ds[i]
        record("ImageRecordDataset/%d/img" % i, img, "ImageRecordDataset(images.rec)[i]")
        record("ImageRecordDataset/%d/label" % i, label, "its label")
    ds = gluon.data.vision.ImageRecordDataset(os.path.join(OUT, "images.rec"), flag=0)
    record("ImageRecordDataset/flag0/0", ds[0][0], "flag=0")


# ----------------------------------------------------------------------------- iterators
ITER_IMAGES = ["rgb420.jpg", "rgb444.jpg", "progressive.jpg", "rgb.png", "big.jpg", "rgba.png", "rgb16.png"]


def record_batches(name, it, epochs=2):
    """Every batch of ``epochs`` epochs (reset between): data, label, pad."""
    pads = []
    for epoch in range(epochs):
        for i, batch in enumerate(it):
            record("%s/%d/%d/data" % (name, epoch, i), batch.data[0], name)
            record("%s/%d/%d/label" % (name, epoch, i), batch.label[0], name)
            pads.append([epoch, i, batch.pad])
        it.reset()
    CASES.setdefault("iter_pads", {})[name] = pads


def iter_cases(blobs):
    rec, idx = os.path.join(OUT, "iter.rec"), os.path.join(OUT, "iter.idx")
    w = recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, n in enumerate(ITER_IMAGES):
        w.write_idx(i, recordio.pack(recordio.IRHeader(0, float(i % 4), i, 0), blobs[n]))
    w.close()
    with open(os.path.join(OUT, "iter.lst"), "w") as f:
        for i, n in enumerate(ITER_IMAGES):
            f.write("%d\t%f\t%s\n" % (i, float(i % 4) + 0.5, n))
    for handle in ("pad", "discard", "roll_over"):
        it = image.ImageIter(3, (3, 20, 24), path_imgrec=rec, path_imgidx=idx, last_batch_handle=handle)
        record_batches("ImageIter/%s" % handle, it)
    it = image.ImageIter(3, (3, 20, 24), path_imgrec=rec)
    record_batches("ImageIter/sequential", it, epochs=1)
    seeded(3)
    it = image.ImageIter(2, (3, 20, 24), path_imgrec=rec, path_imgidx=idx, shuffle=True, rand_crop=True,
                         rand_mirror=True, brightness=0.1, resize=30)
    record_batches("ImageIter/random", it)
    it = image.ImageIter(2, (3, 16, 16), path_imglist=os.path.join(OUT, "iter.lst"),
                         path_root=os.path.join(OUT, "images"))
    record_batches("ImageIter/imglist", it, epochs=1)
    it = image.ImageIter(4, (3, 16, 16), imglist=[[1.0, "rgb.png"], [[2.0, 3.0], "big.jpg"], [4.0, 5.0, "gray.png"]],
                         path_root=os.path.join(OUT, "images"), label_width=2)
    record_batches("ImageIter/imglist_list", it, epochs=1)
    for name, kwargs in (("plain", {}), ("resize_mean", dict(resize=26, mean_r=123.0, mean_g=117.0, mean_b=104.0,
                                                                std_r=58.0, std_g=57.0, std_b=57.5)),
                         ("scale", dict(scale=1.0 / 255, resize=24)), ("no_round", dict(round_batch=False))):
        it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 20, 24), batch_size=3, preprocess_threads=1,
                                   **kwargs)
        record_batches("ImageRecordIter/%s" % name, it, epochs=2 if name in ("plain", "no_round") else 1)


def det_iter_cases(blobs):
    rec, idx = os.path.join(OUT, "det.rec"), os.path.join(OUT, "det.idx")
    w = recordio.MXIndexedRecordIO(idx, rec, "w")
    labels = [[2, 5, 0, 0.1, 0.2, 0.6, 0.7, 1, 0.3, 0.1, 0.9, 0.5], [2, 5, 2, 0.05, 0.1, 0.5, 0.9],
              [4, 5, 7, 8, 1, 0.2, 0.2, 0.8, 0.8, 0, 0.0, 0.5, 0.4, 1.0]]
    for i, (n, lab) in enumerate(zip(["rgb420.jpg", "big.jpg", "rgb.png"], labels)):
        w.write_idx(i, recordio.pack(recordio.IRHeader(0, lab, i, 0), blobs[n]))
    w.close()
    it = image.ImageDetIter(2, (3, 20, 24), path_imgrec=rec, path_imgidx=idx)
    record_batches("ImageDetIter/default", it)
    seeded(4)
    it = image.ImageDetIter(2, (3, 20, 24), path_imgrec=rec, path_imgidx=idx, shuffle=True, rand_crop=0.5,
                            rand_pad=0.5, rand_mirror=True, mean=True, std=True)
    record_batches("ImageDetIter/random", it)


# ----------------------------------------------------------------------------- _image_ operators
def op_cases(img):
    u8 = img
    f32 = img.astype("float32")
    batch = nd.stack(u8, u8[::-1], axis=0)
    t = nd.image.to_tensor(u8)
    for dt, x in (("u8", u8), ("f32", f32)):
        record("op/to_tensor/%s" % dt, nd.image.to_tensor(x), "to_tensor HWC")
        record("op/to_tensor_4d/%s" % dt, nd.image.to_tensor(nd.stack(x, x * 0 + x[::-1], axis=0)), "to_tensor NHWC")
        record("op/flip_left_right/%s" % dt, nd.image.flip_left_right(x), "flip_left_right")
        record("op/flip_top_bottom/%s" % dt, nd.image.flip_top_bottom(x), "flip_top_bottom")
        record("op/crop/%s" % dt, nd.image.crop(x, 3, 4, 20, 15), "crop(x=3, y=4, width=20, height=15)")
        for fac in (0.6, 1.4):
            for kind in ("brightness", "contrast", "saturation", "hue"):
                fn = getattr(nd.image, "random_" + kind)
                record("op/%s/%s/%g" % (kind, dt, fac), fn(x, min_factor=fac, max_factor=fac),
                       "random_%s with min_factor = max_factor" % kind)
        record("op/adjust_lighting/%s" % dt, nd.image.adjust_lighting(x, alpha=(0.1, -0.2, 0.3)),
               "adjust_lighting alpha=(0.1, -0.2, 0.3)")
        for interp in range(5):
            record("op/resize/%s/%d" % (dt, interp), nd.image.resize(x, size=(20, 15), interp=interp),
                   "resize size=(20, 15)")
        record("op/resize_int/%s" % dt, nd.image.resize(x, size=20), "resize size=20")
        record("op/resize_keep/%s" % dt, nd.image.resize(x, size=20, keep_ratio=True), "resize size=20 keep_ratio")
        record("op/resize_keep2/%s" % dt, nd.image.resize(x, size=(20, 30), keep_ratio=True),
               "resize size=(20, 30) keep_ratio")
    record("op/resize_4d", nd.image.resize(batch, size=(20, 15)), "resize NHWC")
    record("op/crop_4d", nd.image.crop(batch, 3, 4, 20, 15), "crop NHWC")
    error("op/flip_left_right_4d", lambda: nd.image.flip_left_right(batch))
    error("op/to_tensor_2d", lambda: nd.image.to_tensor(u8[:, :, 0]))
    error("op/normalize_bad", lambda: nd.image.normalize(t, mean=(0.1, 0.2), std=(1, 1)))
    record("op/normalize3", nd.image.normalize(t, mean=(0.4, 0.5, 0.6), std=(0.2, 0.25, 0.3)), "normalize 3")
    record("op/normalize1", nd.image.normalize(t, mean=0.5, std=0.2), "normalize scalar")
    record("op/normalize_4d", nd.image.normalize(nd.stack(t, t * 0.5, axis=0), mean=(0.4, 0.5, 0.6),
                                                 std=(0.2, 0.25, 0.3)), "normalize NCHW")
    # gradients of the differentiable ones
    x = t.copy()
    x.attach_grad()
    head = nd.array(np.random.RandomState(3).uniform(-1, 1, t.shape))
    with mx.autograd.record():
        y = nd.image.normalize(x, mean=(0.4, 0.5, 0.6), std=(0.2, 0.25, 0.3))
    y.backward(head)
    record("grad/normalize", x.grad, "d normalize / d data")
    x = f32.copy()
    x.attach_grad()
    with mx.autograd.record():
        y = nd.image.crop(x, 3, 4, 20, 15)
    y.backward(nd.ones_like(y) * 2)
    record("grad/crop", x.grad, "d crop / d data, head 2")
    x = f32.copy()
    x.attach_grad()
    with mx.autograd.record():
        y = nd.image.flip_left_right(x)
    y.backward(nd.array(np.arange(y.size).reshape(y.shape)))
    record("grad/flip_left_right", x.grad, "d flip / d data, head arange")
    # the JSON of a hybridized transform
    net = gluon.nn.HybridSequential()
    net.add(T.Resize((20, 15)), T.CropResize(1, 2, 10, 8), T.ToTensor(), T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3)))
    net.hybridize()
    net(u8)
    net.export(os.path.join("/tmp", "vision_tf"))
    CASES["transform_json"] = json.load(open("/tmp/vision_tf-symbol.json"))
    record("transform_json/out", net(u8), "Resize, CropResize, ToTensor, Normalize hybridized")


def transform_cases(img):
    f32 = img.astype("float32")
    cases = {
        "ToTensor": (T.ToTensor(), img), "Cast": (T.Cast("float16"), img),
        "Normalize": (T.Normalize(0.5, 0.25), nd.image.to_tensor(img)),
        "Resize": (T.Resize(20), img), "Resize_keep": (T.Resize(20, keep_ratio=True), img),
        "Resize_tuple": (T.Resize((20, 25), interpolation=2), img),
        "CenterCrop": (T.CenterCrop(16), img), "CenterCrop_big": (T.CenterCrop((50, 40)), img),
        "CropResize": (T.CropResize(2, 3, 20, 18), img),
        "CropResize_size": (T.CropResize(2, 3, 20, 18, size=(10, 12), interpolation=1), img),
        "Compose": (T.Compose([T.Resize(30), T.CenterCrop(24), T.ToTensor(),
                               T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))]), img),
        "RandomBrightness0": (T.RandomBrightness(0), f32), "RandomLighting0": (T.RandomLighting(0), f32),
    }
    for name, (tf, x) in cases.items():
        record("tf/%s" % name, tf(x), name)
        if isinstance(tf, gluon.HybridBlock):
            tf.hybridize()
            record("tf/%s/hybrid" % name, tf(x), name + " hybridized")
    for seed in (1, 2, 3):
        seeded(seed)
        record("tf/RandomResizedCrop/%d" % seed, T.RandomResizedCrop((20, 16))(img), "RandomResizedCrop seeded")
    for seed in (1, 2):
        seeded(seed)
        record("tf/RandomRotation/%d" % seed, T.RandomRotation((-30, 30))(nd.image.to_tensor(img)),
               "RandomRotation (numpy seeded)")
        seeded(seed)
        record("tf/RandomRotation_zoom/%d" % seed,
               T.RandomRotation((-30, 30), zoom_in=True)(nd.image.to_tensor(img)), "RandomRotation zoom_in")


def main():
    os.makedirs(OUT, exist_ok=True)
    blobs = make_images()
    decode_cases(blobs)
    img = image.imdecode(blobs["rgb420.jpg"])
    resize_cases(img)
    augmenter_cases(img)
    detection_cases(img)
    record_cases(blobs)
    dataset_cases()
    iter_cases(blobs)
    det_iter_cases(blobs)
    op_cases(img)
    transform_cases(img)
    np.savez_compressed(os.path.join(OUT, "expected.npz"), **EXPECTED)
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1, sort_keys=True)
    print("wrote %d arrays to %s" % (len(EXPECTED), OUT))


if __name__ == "__main__":
    main()
