"""``mx.io.ImageDetRecordIter``'s random augmentation (crop samplers, padding, colour
distortions), as recorded from MXNet 1.9.1 by
tools/make_extra_fixtures_image_det_aug.py and replayed by tests/test_image_det_aug.py.

- ``COORDS``: ``COPIES`` PNGs of 200x150 whose red value is the column and green value the row
  (blue: the image's index), with the objects ``OBJECTS`` (label ``[3, 6, 7.5, objects...]``:
  a header of 3 values and a 6th value per object, both carried through by MXNet): a
  nearest-neighbour output of ``BOX_SHAPE`` shows the crop's box exactly;
- ``PALETTE``: ``COPIES`` 16x16 images of 256 random colours (``palette()``), one object.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "image_det_aug")
COORDS = os.path.join(FIXTURES, "coords.rec")
PALETTE = os.path.join(FIXTURES, "palette.rec")
WHITE = os.path.join(HERE, "fixtures", "extra", "image_det_record_iter", "white.rec")  # 60x40, one box [0,0,1,1]
WIDTH, HEIGHT, COPIES = 200, 150, 16
OBJECTS = np.array([[0, 0.1, 0.1, 0.3, 0.4, 0.5], [1, 0.5, 0.2, 0.9, 0.6, 1.5], [2, 0.05, 0.7, 0.95, 0.95, 2.5],
                    [3, 0.6, 0.65, 0.7, 0.8, 3.5]], np.float32)
HEADER = np.array([3, 6, 7.5], np.float32)
BOX_SHAPE = (3, 224, 224)  # larger than any crop: every source row and column shows

# compared value by value (data and labels): settings where nothing random changes the image
DETERMINISTIC = {
    # no crop can have an IOU of 0.99 with an object: every trial is refused, the image is kept
    "crop_refused": (COORDS, (3, 75, 100), dict(rand_crop_prob=1.0, min_crop_overlaps=(0.99,),
                                                max_crop_trials=(5,))),
    "no_trials": (COORDS, (3, 75, 100), dict(rand_crop_prob=1.0, max_crop_trials=(0,), min_crop_scales=(0.2,))),
    "no_samplers": (COORDS, (3, 75, 100), dict(rand_crop_prob=1.0, num_crop_sampler=0)),
    # offsets U(-1, 1) * 1 truncate to 0: the image is not converted to HLS at all
    "unit_hsl": (PALETTE, (3, 16, 16), dict(random_hue_prob=1.0, max_random_hue=1, random_saturation_prob=1.0,
                                            max_random_saturation=1, random_illumination_prob=1.0,
                                            max_random_illumination=1)),
    # pads below a scale of 1.05 are not made
    "pad_below_threshold": (COORDS, (3, 75, 100), dict(rand_pad_prob=1.0, max_pad_scale=1.04)),
    "mirror_pad_prob0": (COORDS, (3, 75, 100), dict(rand_mirror_prob=1.0, rand_pad_prob=0.0, max_pad_scale=3.0)),
    # the shorter side to 100 first (133x100), then to data_shape: 133 columns show
    "resize_nearest": (COORDS, BOX_SHAPE, dict(resize=100, inter_method=0)),
    "resize_linear": (COORDS, (3, 75, 100), dict(resize=120)),
    # resize_mode: the image (aspect kept, sides truncated) at the top left, zeros around; the
    # label's H, W are the image's
    "shrink_down": (COORDS, (3, 77, 93), dict(resize_mode="shrink", mean_r=10.0, std_r=2.0, mean_g=4.0)),
    "shrink_fits": (COORDS, (3, 151, 500), dict(resize_mode="shrink", mean_b=3.0)),
    "fit_up": (COORDS, (3, 301, 397), dict(resize_mode="fit", mean_r=10.0)),
    "fit_up_wide": (COORDS, (3, 151, 500), dict(resize_mode="fit", inter_method=0)),
    "fit_down_tall": (COORDS, (3, 91, 50), dict(resize_mode="fit", std_g=2.0)),
    "fit_crop": (COORDS, (3, 120, 120), dict(resize_mode="fit", rand_crop_prob=1.0, min_crop_overlaps=(0.99,),
                                             max_crop_trials=(3,), rand_mirror_prob=1.0)),
}

# mean_img: computed over one pass of the (augmented) data and saved when the file is missing,
# as ImageRecordIter's (MXNet's file: FIXTURES/mean_img.bin)
MEAN = ((3, 30, 40), dict(std_r=2.0, scale=0.5, rand_mirror_prob=0.0))

# crop boxes (read from the pixels), labels and kept objects of EPOCHS x COPIES draws, compared
# in distribution and explained image by image
_SSD = dict(rand_crop_prob=1.0, min_crop_scales=(0.3,), max_crop_scales=(1.0,), min_crop_aspect_ratios=(0.5,),
            max_crop_aspect_ratios=(2.0,))
CROPS = {
    "center": _SSD,
    "overlap_emit": dict(_SSD, crop_emit_mode="overlap", emit_overlap_thresh=0.5),
    "min_overlap": dict(_SSD, min_crop_scales=(0.1,), min_crop_overlaps=(0.5,)),
    "coverages": dict(_SSD, min_crop_scales=(0.1,), min_crop_object_coverages=(0.9,),
                      max_crop_sample_coverages=(0.6,)),
    "max_overlap": dict(_SSD, min_crop_scales=(0.1,), max_crop_overlaps=(0.2,), crop_emit_mode="overlap",
                        emit_overlap_thresh=0.1),
    # SSD's samplers: any crop, then minimum IOUs (one value given for all is repeated)
    "ssd_samplers": dict(rand_crop_prob=1.0, num_crop_sampler=4, min_crop_scales=(0.3,), max_crop_scales=(1.0,),
                         min_crop_aspect_ratios=(0.5,), max_crop_aspect_ratios=(2.0,),
                         min_crop_overlaps=(0.0, 0.1, 0.5, 0.7), max_crop_trials=(25, 25, 25, 50)),
    # the first sampler never succeeds (in whichever order): every image is cropped by the second
    "fallthrough": dict(rand_crop_prob=1.0, num_crop_sampler=2, min_crop_scales=(0.3, 0.5),
                        max_crop_scales=(0.31, 0.51), min_crop_overlaps=(0.99, 0.0), max_crop_trials=(5, 25)),
    # the samplers are tried in a random order: half of the crops are small (in order: all)
    "sampler_order": dict(rand_crop_prob=1.0, num_crop_sampler=2, min_crop_scales=(0.2, 0.8),
                          max_crop_scales=(0.21, 0.81), crop_emit_mode="overlap", emit_overlap_thresh=0.0),
    "half": dict(_SSD, rand_crop_prob=0.5),
    # fill_value 300 is saturated to 255 (above any coordinate)
    "pad_then_crop": dict(_SSD, rand_pad_prob=1.0, max_pad_scale=2.0, fill_value=300),
}
EPOCHS = 25

# pad: white images (one box over all of it) padded with black, nearest-neighbour upsampled to
# PAD_SHAPE: the white region and the label give the pad's scale and offsets
PAD_SHAPE = (3, 400, 600)
PAD = dict(rand_pad_prob=0.9, max_pad_scale=2.5, fill_value=-5, inter_method=0)  # -5: saturated to 0
PAD_EPOCHS = 40

# colour: per-image offsets and factors inferred from the PALETTE outputs
COLOURS = {
    "hue": dict(random_hue_prob=1.0, max_random_hue=30),
    "saturation": dict(random_saturation_prob=1.0, max_random_saturation=60),
    "illumination": dict(random_illumination_prob=1.0, max_random_illumination=60),
    "contrast": dict(random_contrast_prob=1.0, max_random_contrast=0.5),
    "hue_half": dict(random_hue_prob=0.5, max_random_hue=20),
    "contrast_grey": dict(random_contrast_prob=1.0, max_random_contrast=0.5),  # data_shape (1, 16, 16)
}
COLOUR_EPOCHS = 10
# the colour distortions come before the pad: the fill keeps its value (nearest-neighbour output)
COLOUR_THEN_PAD = ((3, 48, 48), dict(random_contrast_prob=1.0, max_random_contrast=0.5, rand_pad_prob=1.0,
                                     max_pad_scale=3.0, fill_value=200, inter_method=0))

# MXNet's errors (when the iterator is made, or on the first batch), by the argument they name
ERRORS = {
    "min_crop_scales": dict(rand_crop_prob=1.0, min_crop_scales=(0.3, 0.5)),
    "max_crop_scales": dict(rand_crop_prob=1.0, min_crop_scales=(0.5,), max_crop_scales=(0.5,)),
    "max_crop_scales<=1": dict(rand_crop_prob=1.0, max_crop_scales=(1.5,)),
    "min_crop_scales>=0": dict(min_crop_scales=(-0.5,)),
    "max_crop_aspect_ratios": dict(min_crop_aspect_ratios=(2.0,), max_crop_aspect_ratios=(1.0,)),
    "min_crop_aspect_ratios": dict(min_crop_aspect_ratios=(-1.0,)),
    "max_crop_overlaps": dict(min_crop_overlaps=(0.8,), max_crop_overlaps=(0.5,)),
    "max_crop_sample_coverages": dict(min_crop_sample_coverages=(0.8,), max_crop_sample_coverages=(0.5,)),
    "max_crop_object_coverages": dict(min_crop_object_coverages=(0.8,), max_crop_object_coverages=(0.5,)),
    "max_crop_trials": dict(num_crop_sampler=2, max_crop_trials=(25, 25, 25)),
    "crop_emit_mode": dict(crop_emit_mode="foo"),
    "emit_overlap_thresh": dict(emit_overlap_thresh=-0.5),
    "random_hue_prob": dict(random_hue_prob=1.0, max_random_hue=10, data_shape=(1, 16, 16)),
    "dtype": dict(dtype="float16"),
    "label_width": dict(label_width=20),  # the records' labels have 27 values
    "resize_mode": dict(resize_mode="stretch"),
    # crops of less than a pixel: OpenCV's resize fails in MXNet (on the first batch)
    "min_crop_scales<pixel": dict(rand_crop_prob=1.0, min_crop_scales=(0.0,), max_crop_scales=(0.004,),
                                  crop_emit_mode="overlap", emit_overlap_thresh=0.0, max_crop_trials=(200,)),
}
# records whose label MXNet refuses: (label, the word neogluon's message and MXNet's share); the
# records are written to FIXTURES/bad_<name>.rec
BAD_LABELS = {
    "no_object": ([2, 5], "label_width"),
    "header_width": ([1, 5, 0, 0.1, 0.1, 0.5, 0.5, 0], "header_width"),
    "object_width": ([2, 4, 0, 0.1, 0.1, 0.5, 1, 0.2, 0.2, 0.6], "object_width"),
    "ragged": ([2, 5, 0, 0.1, 0.1, 0.5, 0.5, 1, 0.2], "object_width"),
}
# accepted by MXNet (no range checks on these)
ACCEPTED = {
    "probabilities_out_of_range": dict(rand_crop_prob=2.0, rand_pad_prob=-1.0, max_pad_scale=2.0,
                                       random_hue_prob=-1.0, max_random_hue=10),
    "negative_samplers": dict(rand_crop_prob=1.0, num_crop_sampler=-1, min_crop_scales=(0.1, 0.2)),
    "max_overlap_above_1": dict(rand_crop_prob=1.0, max_crop_overlaps=(1.5,)),
    "string_tuples": dict(rand_crop_prob=1.0, min_crop_scales="(0.3,)", max_crop_scales="0.9"),
}

def palette():
    """The PALETTE image: 16x16 random RGB colours (HWC uint8)."""
    return np.random.RandomState(0).randint(0, 256, (16, 16, 3)).astype(np.uint8)


def coords_image(index):
    img = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    img[:, :, 0] = np.arange(WIDTH)[None, :]
    img[:, :, 1] = np.arange(HEIGHT)[:, None]
    img[:, :, 2] = index
    return img


def crop_boxes(batch, fill=None):
    """(x, y, width, height) of the source pixels shown by each nearest-neighbour output of
    COORDS (pixels of the value ``fill`` in red, the padding, left out)."""
    out = []
    for img in batch:
        red, green = img[0], img[1]
        mask = red != fill if fill is not None else np.ones(red.shape, bool)
        r, g = red[mask], green[mask]
        out.append((r.min(), g.min(), r.max() - r.min() + 1, g.max() - g.min() + 1))
    return np.array(out, np.int64)


def epochs(it, count):
    """(data, label) numpy arrays of the first batch of ``count`` epochs (each after a reset)."""
    for _ in range(count):
        it.reset()
        batch = it.next()
        yield batch.data[0].asnumpy(), batch.label[0].asnumpy()


def white_regions(batches):
    """The white region (x0, y0, x1, y1) of each padded WHITE output of ``batches`` ((data,
    label) pairs), their labels, and the set of the other pixel values (the fill)."""
    boxes, labels, fill = [], [], set()
    for data, label in batches:
        for img in data:
            ys, xs = np.nonzero(img[0] > 128)
            boxes.append((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
            fill.update(np.unique(img[0][img[0] <= 128]).tolist())
        labels.append(label)
    return np.array(boxes), np.concatenate(labels), fill


def crop_draws(it, kwargs):
    """The crop boxes (``crop_boxes``) and labels of the first batch of ``EPOCHS`` epochs of ``it``
    (made with the CROPS arguments ``kwargs``: a ``fill_value`` is left out of the boxes)."""
    boxes, labels = [], []
    for data, label in epochs(it, EPOCHS):
        boxes.append(crop_boxes(data, fill=255 if "fill_value" in kwargs else None))
        labels.append(label)
    return np.concatenate(boxes), np.concatenate(labels)
