"""Configurations recorded by tools/make_extra_fixtures_image_record_variants.py (MXNet 1.9.1)
and replayed by tests/test_image_record_variants.py: the uint8/int8/_v1 variants of
``ImageRecordIter`` and images smaller than ``data_shape``."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.join(HERE, "fixtures", "extra", "vision", "iter.rec")
FIXTURES = os.path.join(HERE, "fixtures", "extra", "image_record_variants")
NORM = dict(mean_r=100.0, mean_g=50.5, mean_b=0.0, std_r=2.0, std_g=3.0, std_b=4.0, scale=0.5)
# (iterator name, data_shape, kwargs)
VARIANTS = {
    "uint8": ("ImageRecordUInt8Iter", (3, 20, 24), {}),
    "uint8_norm": ("ImageRecordUInt8Iter", (3, 20, 24), NORM),
    "uint8_aug": ("ImageRecordUInt8Iter", (3, 20, 24), dict(resize=26, mirror=True, pad=2, fill_value=9)),
    "int8": ("ImageRecordInt8Iter", (3, 20, 24), {}),
    "int8_norm": ("ImageRecordInt8Iter", (3, 20, 24), NORM),
    "int8_gray": ("ImageRecordInt8Iter", (1, 20, 24), dict(mean_r=30.5)),
    "v1": ("ImageRecordIter_v1", (3, 20, 24), NORM),
    "v1_label": ("ImageRecordIter_v1", (3, 20, 24), dict(resize=22, mirror=True)),
    "uint8_v1": ("ImageRecordUInt8Iter_v1", (3, 20, 24), NORM),
    # images (29x37 and 48x64) smaller than data_shape
    "small_both": ("ImageRecordIter", (3, 40, 36), {}),
    "small_width": ("ImageRecordIter", (3, 20, 50), {}),
    "small_height": ("ImageRecordIter", (3, 33, 24), {}),
    "small_nearest": ("ImageRecordIter", (3, 40, 36), dict(inter_method=0)),
    "small_cubic": ("ImageRecordIter", (3, 40, 36), dict(inter_method=2)),
    "small_resize": ("ImageRecordIter", (3, 40, 36), dict(resize=30)),
    "small_resize_down": ("ImageRecordIter", (3, 40, 36), dict(resize=12)),
    "small_square": ("ImageRecordIter", (3, 70, 70), {}),
    "small_uint8": ("ImageRecordUInt8Iter", (3, 31, 39), {}),
}
# random crops of images smaller than data_shape: the batches of EPOCHS epochs
RANDOM = {
    "small_rand_crop": ("ImageRecordIter", (3, 40, 36), dict(rand_crop=True)),
    "small_resize_rand_crop": ("ImageRecordIter", (3, 40, 36), dict(resize=30, rand_crop=True)),
}
EPOCHS = 4
