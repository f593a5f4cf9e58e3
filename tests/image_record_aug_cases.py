"""The ImageRecordIter configurations recorded by tools/make_extra_fixtures_image_record_aug.py
and replayed by tests/test_image_record_aug.py (``"MEAN"``: the mean image's path)."""
import os

REC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "vision", "iter.rec")
SHAPE = (3, 20, 24)
CONFIGS = {
    "rotate": dict(rotate=30),
    "rotate_fill": dict(rotate=45, fill_value=0, resize=30),
    "scale": dict(max_random_scale=1.5, min_random_scale=1.5),
    "img_size": dict(max_img_size=40, min_img_size=30, resize=26),
    "aspect_shear_zero": dict(max_aspect_ratio=0.0, max_shear_ratio=0.0, rotate=10, inter_method=2),
    "pad": dict(pad=4, fill_value=7),
    "mirror": dict(mirror=True),
    "mean_img": dict(mean_img="MEAN", std_r=2.0, std_g=3.0, std_b=4.0, scale=0.5),
    "crop_size": dict(max_crop_size=26, min_crop_size=26),
    # random
    "max_rotate_angle": dict(max_rotate_angle=3),
    "hsl": dict(random_h=3, random_s=4, random_l=5),
    "pca_noise": dict(pca_noise=0.5),
    "shear": dict(max_shear_ratio=0.3),
    "brightness": dict(brightness=0.3),
    "contrast": dict(contrast=0.3),
    "saturation": dict(saturation=0.3),
    "contrast_illumination": dict(max_random_contrast=0.3, max_random_illumination=20, mean_r=100.0, mean_g=110.0,
                                  mean_b=120.0, std_r=2.0, std_g=3.0, std_b=4.0, scale=0.5),
}
EPOCHS = {"max_rotate_angle": 2, "hsl": 2, "pca_noise": 6, "shear": 2, "brightness": 2, "contrast": 2,
          "saturation": 2, "contrast_illumination": 2}
