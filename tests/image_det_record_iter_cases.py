"""Configurations of ``mx.io.ImageDetRecordIter`` recorded by
tools/make_extra_fixtures_image_det_record_iter.py (MXNet 1.9.1) and replayed by
tests/test_image_det_record_iter.py: the deterministic path (resize to data_shape, normalize,
labels padded)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.join(HERE, "fixtures", "extra", "vision", "det.rec")
FIXTURES = os.path.join(HERE, "fixtures", "extra", "image_det_record_iter")
# name: (data_shape, batch_size, kwargs); the batches of two epochs
CONFIGS = {
    "plain": ((3, 20, 24), 2, {}),
    "norm_pad": ((3, 32, 30), 3, dict(mean_r=10.0, mean_g=20.0, mean_b=30.0, std_r=2.0, std_g=3.0, std_b=4.0,
                                      label_pad_width=20, label_pad_value=-2.0)),
    "scale_nearest": ((3, 16, 16), 2, dict(scale=0.5, inter_method=0, round_batch=False)),
    "gray": ((1, 18, 22), 3, dict(mean_r=5.0)),
    "mirror_all": ((3, 20, 24), 3, dict(rand_mirror_prob=1.0, mean_g=3.0)),
}
EPOCHS = 2

# rand_pad_prob: white images with one box over the whole image, padded with 0; the labels of
# PAD_EPOCHS epochs (the padded box) compared in distribution
WHITE = os.path.join(FIXTURES, "white.rec")
WHITE_SHAPE = (3, 40, 60)
WHITE_COPIES = 4
PAD = dict(rand_pad_prob=0.8, max_pad_scale=2.5, fill_value=0)
PAD_EPOCHS = 60
