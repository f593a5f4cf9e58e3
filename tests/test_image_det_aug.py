"""``mx.io.ImageDetRecordIter``'s random augmentation (SSD crop samplers, padding, colour
distortions) against MXNet 1.9.1
(tools/make_extra_fixtures_image_det_aug.py, cases in tests/image_det_aug_cases.py).

MXNet's draws come from its C++ generator: deterministic settings are compared value by value;
random ones image by image (each label is the projection of the record's objects into the crop
box read from the pixels, each colour change one offset or factor) and in distribution
(two-sample KS tests of crop boxes, kept objects, pad scales and colour offsets, MXNet's draws
against neogluon's, both seeded)."""
import os

import numpy as np
import pytest

pytest.importorskip("cv2")
import cv2  # noqa: E402

import neogluon as mx  # noqa: E402
from image_det_aug_cases import (ACCEPTED, BAD_LABELS, BOX_SHAPE, COLOUR_EPOCHS, COLOUR_THEN_PAD,  # noqa: E402
                                 COLOURS, COORDS, COPIES, CROPS, DETERMINISTIC, EPOCHS, ERRORS, FIXTURES, HEADER,
                                 HEIGHT, MEAN, OBJECTS, PAD, PAD_EPOCHS, PAD_SHAPE, PALETTE, WHITE, WIDTH, crop_draws,
                                 epochs, palette, white_regions)
from test_random_resized_crop import ks_pvalue  # noqa: E402

BATCHES = np.load(os.path.join(FIXTURES, "batches.npz"))


def det_iter(rec, shape, batch_size=COPIES, seed=0, **kwargs):
    return mx.io.ImageDetRecordIter(path_imgrec=rec, data_shape=shape, batch_size=batch_size, seed=seed, **kwargs)


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_cases_equal_mxnet(name):
    rec, shape, kwargs = DETERMINISTIC[name]
    batch = det_iter(rec, shape, **kwargs).next()
    np.testing.assert_allclose(batch.data[0].asnumpy(), BATCHES["det/%s/data" % name], rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(batch.label[0].asnumpy(), BATCHES["det/%s/label" % name])


def test_mean_img_is_computed_saved_and_used_as_mxnet(tmp_path):
    shape, kwargs = MEAN
    path = str(tmp_path / "mean.bin")
    got = det_iter(COORDS, shape, batch_size=4, mean_img=path, **kwargs).next().data[0].asnumpy()
    want = mx.nd.load(os.path.join(FIXTURES, "mean_img.bin"))["mean_img"].asnumpy()
    np.testing.assert_allclose(mx.nd.load(path)["mean_img"].asnumpy(), want, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(got, BATCHES["mean_img/data"], rtol=1e-6, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# crops: boxes read from the pixels of nearest-neighbour outputs


def our_crops(name, seed=1):
    kwargs = CROPS[name]
    return crop_draws(det_iter(COORDS, BOX_SHAPE, seed=seed, inter_method=0, **kwargs), kwargs)


def objects_of(label):
    """The (objects, 6) rows of one padded label row, after checking its header."""
    size = int(label[3])
    assert (label[:3] == BOX_SHAPE).all() and (label[4 + size:] == -1).all()
    np.testing.assert_array_equal(label[4:7], HEADER)
    return label[7:4 + size].reshape(-1, 6)


def _ratios(box):
    """IOU, intersection over the crop's area and over each object's area, for a crop box
    (x, y, w, h) in fractions of the image."""
    x, y, w, h = box
    left, top = np.maximum(OBJECTS[:, 1], x), np.maximum(OBJECTS[:, 2], y)
    right, bottom = np.minimum(OBJECTS[:, 3], x + w), np.minimum(OBJECTS[:, 4], y + h)
    inter = np.clip(right - left, 0, None) * np.clip(bottom - top, 0, None)
    area = (OBJECTS[:, 3] - OBJECTS[:, 1]) * (OBJECTS[:, 4] - OBJECTS[:, 2])
    return inter / (w * h + area - inter), inter / (w * h), inter / area


def explain(name, box, objects):
    """Check one crop: the kept objects are those the emit mode keeps for the crop box (whose
    float corners are within a pixel of ``box``, given in pixels), projected into it; the
    sampler's constraints hold for some object."""
    kwargs = CROPS[name]
    px, py, pw, ph = (float(v) for v in box)
    mid = ((px + 0.5) / WIDTH, (py + 0.5) / HEIGHT, (pw + 0.5) / WIDTH, (ph + 0.5) / HEIGHT)
    if kwargs.get("crop_emit_mode") == "overlap":
        coverage = _ratios(mid)[2]
        thresh = kwargs["emit_overlap_thresh"]
        sure_in, sure_out = coverage > thresh + 0.06, coverage <= thresh - 0.06
    else:
        cx, cy = (OBJECTS[:, 1] + OBJECTS[:, 3]) / 2 * WIDTH, (OBJECTS[:, 2] + OBJECTS[:, 4]) / 2 * HEIGHT
        sure_in = (cx >= px + 1) & (cx < px + pw) & (cy >= py + 1) & (cy < py + ph)
        sure_out = (cx < px) | (cx >= px + pw + 2) | (cy < py) | (cy >= py + ph + 2)
    kept = set(objects[:, 0].astype(int).tolist())
    assert kept, "a crop keeps at least one object"
    assert set(np.nonzero(sure_in)[0]) <= kept and not kept & set(np.nonzero(sure_out)[0]), (box, kept)
    for row in objects:
        source = OBJECTS[int(row[0])]
        assert row[5] == source[5]
        want = [(source[1] * WIDTH - px) / pw, (source[2] * HEIGHT - py) / ph, (source[3] * WIDTH - px) / pw,
                (source[4] * HEIGHT - py) / ph]
        np.testing.assert_allclose(row[1:5], np.clip(want, 0, 1), atol=2.5 / min(pw, ph))
    iou, sample, cover = _ratios(mid)
    slack = 0.06
    ok = np.ones(len(OBJECTS), bool)
    for (low, high), value in ((("min_crop_overlaps", "max_crop_overlaps"), iou),
                               (("min_crop_sample_coverages", "max_crop_sample_coverages"), sample),
                               (("min_crop_object_coverages", "max_crop_object_coverages"), cover)):
        if low in kwargs and kwargs.get("num_crop_sampler", 1) == 1:
            ok &= value >= kwargs[low][0] - slack
        if high in kwargs and kwargs.get("num_crop_sampler", 1) == 1:
            ok &= value <= kwargs[high][0] + slack
    assert ok.any(), (name, box)


def _uncropped(boxes):
    return (boxes[:, 2] == WIDTH) & (boxes[:, 3] == HEIGHT)


@pytest.mark.parametrize("source", ["mxnet", "neogluon"])
@pytest.mark.parametrize("name", sorted(set(CROPS) - {"pad_then_crop"}))
def test_crop_labels_are_the_objects_projected_into_the_crop(name, source):
    if source == "mxnet":
        boxes, labels = BATCHES["crops/%s/boxes" % name], BATCHES["crops/%s/labels" % name]
    else:
        boxes, labels = our_crops(name)
    cropped = 0
    for box, label in zip(boxes, labels):
        objects = objects_of(label)
        if _uncropped(box[None])[0]:
            np.testing.assert_array_equal(objects, OBJECTS)
            continue
        cropped += 1
        explain(name, box, objects)
    if name in ("half", "min_overlap"):  # probability 0.5; 25 trials for an IOU of 0.5 often fail
        assert 0.35 < cropped / len(boxes) < 0.65
    else:  # every image is cropped (a trial is found among 25)
        assert cropped >= 0.9 * len(boxes)
    if name == "fallthrough":  # the second sampler: scale 0.5 of a 200x150 image, aspect 1: 86x86 pixels
        assert cropped == len(boxes)
        assert set(boxes[:, 2].tolist()) <= {86, 87, 88} and set(boxes[:, 3].tolist()) <= {86, 87, 88}


def _features(boxes, labels):
    x, y, w, h = boxes.T.astype(np.float64)
    kept = labels[:, 3] - 3
    return {"x": x, "y": y, "width": w, "height": h, "area": w * h, "aspect": w / h, "centre_x": x + w / 2,
            "centre_y": y + h / 2, "kept": kept, "first_xmin": labels[:, 8], "first_ymax": labels[:, 11]}


@pytest.mark.parametrize("name", sorted(CROPS))
def test_crops_match_mxnet_in_distribution(name):
    theirs = _features(BATCHES["crops/%s/boxes" % name], BATCHES["crops/%s/labels" % name])
    ours = _features(*our_crops(name))
    assert len(ours["x"]) == len(theirs["x"]) == EPOCHS * COPIES
    for key in theirs:
        p = ks_pvalue(theirs[key], ours[key])
        assert p > 0.01, (name, key, p)  # (the draws are seeded: no flakiness)
    cropped = [np.mean(f["area"] < WIDTH * HEIGHT) for f in (theirs, ours)]
    assert abs(cropped[0] - cropped[1]) < 0.1, cropped
    if name == "sampler_order":  # scale 0.2 or 0.8 of the image: the first sampler tried wins
        for features in (theirs, ours):
            assert 0.35 < np.mean(features["width"] < 100) < 0.75
    # the crop's aspect ratio in pixels is in the sampler's range (up to the pixel truncation)
    if name in ("center", "overlap_emit", "min_overlap", "coverages"):
        for features in (theirs, ours):
            assert features["aspect"].min() > 0.5 * 0.9 and features["aspect"].max() < 2.0 * 1.1


def test_pad_then_crop_cuts_the_padded_image():
    """Padding comes before cropping: crops show the fill (255) and parts of the image smaller
    than the crop; the labels still fall inside the output."""
    for boxes, labels in ((BATCHES["crops/pad_then_crop/boxes"], BATCHES["crops/pad_then_crop/labels"]),
                          our_crops("pad_then_crop")):
        kept = [objects_of(label) for label in labels]
        assert all(len(k) for k in kept)
        rows = np.concatenate(kept)
        assert (rows[:, 1:5] >= 0).all() and (rows[:, 1:5] <= 1).all()
        assert (rows[:, 1] <= rows[:, 3]).all() and (rows[:, 2] <= rows[:, 4]).all()
        assert np.mean(boxes[:, 2] * boxes[:, 3] < 0.5 * WIDTH * HEIGHT) > 0.3


# ---------------------------------------------------------------------------------------------
# pad


def _pad_layout(label, shape=PAD_SHAPE):
    """The white region (x0, y0, x1, y1) in the output that the label's pad gives: the scale
    and offsets from the box, the borders truncated to pixels as MXNet does, the canvas
    upsampled by nearest neighbour."""
    f = np.float32
    x0, y0, x1, y1 = (f(v) for v in label[7:11])
    scale = f(1) / (x1 - x0)
    x, y = -x0 * scale, -y0 * scale
    cols, rows = 60, 40
    left, top = int(-x * f(cols)), int(-y * f(rows))
    right, bottom = int((scale + x - 1) * f(cols)), int((scale + y - 1) * f(rows))
    width, height = cols + left + right, rows + top + bottom
    _, out_h, out_w = shape
    return (left * out_w / width, top * out_h / height, (left + cols) * out_w / width, (top + rows) * out_h / height)


def our_pads(seed=4):
    return white_regions(epochs(det_iter(WHITE, PAD_SHAPE, batch_size=4, seed=seed, **PAD), PAD_EPOCHS))


def test_pad_is_explained_by_its_label_and_matches_mxnet():
    """The white image sits in the canvas where the label's box says, to the truncated pixel
    (one canvas pixel is 4 output pixels or more): MXNet's pads and ours; the scales (below
    1.05: no pad) and offsets are distributed alike; the fill -5 is saturated to 0."""
    ours = our_pads()
    theirs = BATCHES["pad/boxes"], BATCHES["pad/labels"], set(BATCHES["pad/fill"].tolist())
    found = {}
    for source, (boxes, labels, fill) in (("mxnet", theirs), ("neogluon", ours)):
        assert fill == {0.0}
        for box, label in zip(boxes, labels):
            np.testing.assert_allclose(box, _pad_layout(label), atol=1.01)
        padded = labels[:, 9] - labels[:, 7] < 1
        scale = 1 / (labels[:, 9] - labels[:, 7])
        found[source] = padded, scale[padded], labels[padded][:, 7] * scale[padded], labels[padded][:, 8]
        assert scale[padded].min() >= 1.05 and scale.max() <= 2.5
    # probability 0.9, then no pad below a scale of 1.05 (of U(1, 2.5)): 87% padded
    for padded, *_ in found.values():
        assert 0.78 < padded.mean() < 0.95, padded.mean()
    for k in range(1, 4):
        p = ks_pvalue(found["mxnet"][k], found["neogluon"][k])
        assert p > 0.01, (k, p)


# ---------------------------------------------------------------------------------------------
# colour


def _hls_shift(img, h, s, l_):
    hls = cv2.cvtColor(img, cv2.COLOR_RGB2HLS).astype(int) + [h, l_, s]
    return cv2.cvtColor(np.clip(hls, 0, [180, 255, 255]).astype(np.uint8), cv2.COLOR_HLS2RGB)


def _offsets(name, outputs):
    """The HLS offset explaining each output, and the mean error of the explanation."""
    kwargs = COLOURS[name]
    limit = max(v for k, v in kwargs.items() if k.startswith("max_"))
    base = palette()
    found, errors = [], []
    for out in outputs:
        out = out.transpose(1, 2, 0).astype(int)
        best = None
        for k in range(-limit, limit + 1):
            args = {"hue": (k, 0, 0), "hue_half": (k, 0, 0), "saturation": (0, k, 0), "illumination": (0, 0, k)}[name]
            err = np.abs(_hls_shift(base, *args).astype(int) - out).mean() if k else np.abs(base - out).mean()
            if best is None or err < best[0]:
                best = (err, k)
        errors.append(best[0])
        found.append(best[1])
    return np.array(found), np.array(errors)


def our_colours(name, seed=3):
    shape = (1, 16, 16) if name.endswith("grey") else (3, 16, 16)
    it = det_iter(PALETTE, shape, seed=seed, **COLOURS[name])
    return np.concatenate([d for d, _ in epochs(it, COLOUR_EPOCHS)]).astype(np.uint8)


@pytest.mark.parametrize("name", ["hue", "saturation", "illumination", "hue_half"])
def test_hls_offsets_explain_each_image_and_match_mxnet(name):
    """Each output is the palette with one integer offset added to H, S or L (of the true
    colours); MXNet's OpenCV 3.4 rounds a few HLS conversions otherwise (a few pixels off);
    the offsets, U(-max, max) truncated, are distributed alike."""
    theirs, their_err = _offsets(name, BATCHES["colour/" + name])
    ours, our_err = _offsets(name, our_colours(name))
    assert their_err.max() < 0.1 and our_err.max() == 0
    limit = max(v for k, v in COLOURS[name].items() if k.startswith("max_"))
    for found in (theirs, ours):
        assert np.abs(found).max() < limit and len(set(found.tolist())) > 10
    if name == "hue_half":  # probability 0.5: half the images are unchanged
        for found in (theirs, ours):
            assert 0.35 < np.mean(found == 0) < 0.65
    assert ks_pvalue(theirs, ours) > 0.01


def _contrast_factors(outputs, base):
    factors = []
    for out in outputs:
        out = out.astype(np.float64)
        ok = (out < 255) & (base > 20)
        c = np.median(out[ok] / base[ok])
        # the rounding of pixel * c (float32, saturated) explains every pixel
        rebuilt = np.clip(np.rint(base * c), 0, 255)
        assert np.abs(rebuilt - out).max() <= 1, np.abs(rebuilt - out).max()
        factors.append(c)
    return np.array(factors)


@pytest.mark.parametrize("name", ["contrast", "contrast_grey"])
def test_contrast_scales_the_pixels_as_mxnet(name):
    """``max_random_contrast``: pixels times ``1 + U(-max, max)`` (no mean subtracted, unlike
    ImageRecordIter's), on colour and grey images alike."""
    grey = name.endswith("grey")
    base = det_iter(PALETTE, (1, 16, 16) if grey else (3, 16, 16), batch_size=1).next().data[0].asnumpy()[0]
    theirs = _contrast_factors(BATCHES["colour/" + name], base)
    ours = _contrast_factors(our_colours(name), base)
    for found in (theirs, ours):
        assert 0.49 < found.min() and found.max() < 1.51 and found.std() > 0.15
    assert ks_pvalue(theirs, ours) > 0.01


def test_colours_change_before_the_pad():
    """Contrast then pad: the fill (200) keeps its value (the most frequent colour of the padded
    images: 97.5% of them, below a scale of 1.05 nothing is padded), the palette changes."""
    shape, kwargs = COLOUR_THEN_PAD
    ours = np.concatenate([d for d, _ in epochs(det_iter(PALETTE, shape, seed=2, **kwargs), 2)]).astype(np.uint8)
    base = {tuple(p) for p in palette().reshape(-1, 3)}
    for outputs in (BATCHES["colour_then_pad"], ours):
        changed = filled = 0
        for out in outputs:
            pixels = out.reshape(3, -1).T
            values, counts = np.unique(pixels, axis=0, return_counts=True)
            filled += (values[np.argmax(counts)] == 200).all()
            changed += not {tuple(p) for p in pixels[(pixels != 200).any(1)]} <= base
        assert filled >= 0.8 * len(outputs) and changed > len(outputs) // 2, (filled, changed)


# ---------------------------------------------------------------------------------------------
# argument checks


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_mxnet_argument_errors(name):
    argument = name.split("<")[0].split(">")[0]
    # MXNet's messages name the argument, but for a tuple of the wrong length ('param->ndim()'),
    # HLS on grey images (OpenCV's assertion), dtype (TBlob) and invalid modes (the value)
    if name not in ("min_crop_scales", "max_crop_trials", "random_hue_prob", "dtype", "crop_emit_mode",
                    "label_width", "resize_mode", "min_crop_scales<pixel"):
        assert argument in str(BATCHES["error/" + name])
    else:
        assert any(word in str(BATCHES["error/" + name])
                   for word in ("param->ndim()", "OpenCV", "TBlob", "'foo'", "label_width", "'stretch'"))
    kwargs = dict(ERRORS[name])
    shape = kwargs.pop("data_shape", (3, 32, 32))
    with pytest.raises(mx.MXNetError, match=argument):
        det_iter(COORDS, shape, batch_size=4, **kwargs).next()


@pytest.mark.parametrize("name", sorted(BAD_LABELS))
def test_labels_mxnet_refuses(name):
    word = BAD_LABELS[name][1]
    assert word in str(BATCHES["bad_label/" + name])
    with pytest.raises(mx.MXNetError, match=word):
        det_iter(os.path.join(FIXTURES, "bad_%s.rec" % name), (3, 20, 20), batch_size=1)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_arguments_mxnet_accepts(name):
    it = det_iter(COORDS, (3, 32, 32), batch_size=4, **ACCEPTED[name])
    assert it.next().label[0].shape == tuple(BATCHES["accepted/" + name])


def test_grey_images_take_contrast_but_not_hls_offsets():
    it = det_iter(PALETTE, (1, 16, 16), batch_size=2, random_hue_prob=1.0, max_random_hue=1)
    assert it.next().data[0].shape == (2, 1, 16, 16)  # offsets of 0 only: no HLS conversion
    with pytest.raises(mx.MXNetError, match="random_saturation_prob need 3-channel"):
        det_iter(PALETTE, (1, 16, 16), random_saturation_prob=0.5, max_random_saturation=5)


def test_ignored_arguments_name_themselves():
    """ImageRecordIter's augmenter arguments and unknown names, which MXNet's detection iterator
    ignores silently, are ignored with a warning naming them (the batches are those without
    them); an unknown resize_mode is MXNet's error."""
    with pytest.raises(mx.MXNetError, match="resize_mode"):
        det_iter(COORDS, (3, 32, 32), resize_mode="stretch")
    plain = det_iter(COORDS, (3, 32, 32)).next()
    for name, value in [("rand_crop", True), ("mirror", True), ("rand_mirror", True), ("max_rotate_angle", 10),
                        ("pad", 2), ("brightness", 0.2), ("random_h", 3), ("no_such_argument", 1)]:
        with pytest.warns(UserWarning, match=name):
            batch = det_iter(COORDS, (3, 32, 32), **{name: value}).next()
        np.testing.assert_array_equal(batch.data[0].asnumpy(), plain.data[0].asnumpy())
        np.testing.assert_array_equal(batch.label[0].asnumpy(), plain.label[0].asnumpy())
