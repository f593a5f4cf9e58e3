"""The ImageRecordIter(random_resized_crop=True) configurations recorded by
tools/make_extra_fixtures_random_resized_crop.py and replayed by
tests/test_random_resized_crop.py.

- ``COORDS``: a .rec of ``COPIES`` PNGs of 200x150 whose red value is the column and green
  value the row (blue: the image's index): a nearest-neighbour output that upsamples the
  crop shows its box exactly;
- ``JPEG``: tests/fixtures/extra/vision/iter.rec (JPEG and PNG photos of 37x29 and 64x48).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "random_resized_crop")
COORDS = os.path.join(FIXTURES, "coords.rec")
JPEG = os.path.join(HERE, "fixtures", "extra", "vision", "iter.rec")
WIDTH, HEIGHT, COPIES = 200, 150, 16
BOX_SHAPE = (3, 224, 224)  # larger than any crop: every source row and column shows
# crops compared value by value (bilinear): one area, aspect 1 -> only the position is random
EXPLAINED = dict(shape=(3, 20, 24), epochs=3,
                 kwargs=dict(random_resized_crop=True, min_random_area=0.5, max_random_area=0.5,
                             min_aspect_ratio=1.0, max_aspect_ratio=1.0))
# deterministic: the whole image (area 1, its own aspect ratio); no try fits -> the centre crop
DETERMINISTIC = {
    "whole": ((3, 90, 120), dict(random_resized_crop=True, min_aspect_ratio=WIDTH / HEIGHT,
                                 max_aspect_ratio=WIDTH / HEIGHT)),
    "fallback": ((3, 64, 64), dict(random_resized_crop=True, min_random_area=0.9, max_random_area=0.9,
                                   min_aspect_ratio=3.0, max_aspect_ratio=3.0)),
    "off": ((3, 64, 64), dict(random_resized_crop=True)),
}
# compared in distribution: the boxes of EPOCHS x COPIES draws
DISTRIBUTION = {
    "imagenet": dict(random_resized_crop=True, min_random_area=0.08, max_random_area=1.0, min_aspect_ratio=3 / 4,
                     max_aspect_ratio=4 / 3),
    "max_aspect_only": dict(random_resized_crop=True, min_random_area=0.25, max_random_area=0.5,
                            max_aspect_ratio=0.5),
    "fixed_ratio_swap": dict(random_resized_crop=True, min_random_area=0.3, max_random_area=0.3,
                             min_aspect_ratio=0.5, max_aspect_ratio=0.5),
}
EPOCHS = 25
# errors MXNet raises (on the first batch; neogluon when the iterator is made)
ERRORS = {
    "rand_crop": dict(random_resized_crop=True, rand_crop=True, min_random_area=0.5),
    "scale": dict(random_resized_crop=True, min_random_scale=0.5),
    "crop_size": dict(random_resized_crop=True, max_crop_size=20, min_crop_size=10),
    "area_order": dict(random_resized_crop=True, min_random_area=0.5, max_random_area=0.25),
    "ratio_order": dict(random_resized_crop=True, min_random_area=0.5, min_aspect_ratio=2.0, max_aspect_ratio=1.0),
    "ratio_zero": dict(random_resized_crop=True, min_random_area=0.5, min_aspect_ratio=0.0),
}


def boxes(batch):
    """(x, y, width, height) of the crop shown by each nearest-neighbour output of COORDS."""
    import numpy as np
    out = []
    for img in batch:
        red, green = img[0], img[1]
        out.append((red.min(), green.min(), red.max() - red.min() + 1, green.max() - green.min() + 1))
    return np.array(out, np.int64)
