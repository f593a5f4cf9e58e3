"""``mx.io.ImageRecordIter``'s default-augmenter arguments against MXNet 1.9.1
(tools/make_extra_fixtures_image_record_aug.py): rotation, shear, random scale, size bounds,
fill value, pad, crop size, mirror, brightness/contrast/saturation, HSL, PCA noise, random
contrast and illumination, and ``mean_img``.

Deterministic configurations are compared value by value. OpenCV's ``warpAffine`` rounds
differently in MXNet's OpenCV 3.4.2 and the OpenCV here: warped pixels differ by at most 3
grey levels, 0.3 on average, without bias. MXNet's random draws come from its C++
generator: each image MXNet gave is explained by the augmentation of some draw (an integer
angle, an HSL triple, a shear) or compared in distribution (PCA noise)."""
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon.io.image_aug_default import DefaultAugmenter, _EIGVAL, _EIGVEC  # noqa: E402
from image_record_aug_cases import CONFIGS, EPOCHS, REC, SHAPE  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "image_record_aug")
BATCHES = np.load(os.path.join(HERE, "batches.npz"))
WARPED = ["rotate", "rotate_fill", "scale", "aspect_shear_zero"]
EXACT = ["img_size", "pad", "mirror", "crop_size"]


def batch(name, epoch=0, **extra):
    kwargs = dict(CONFIGS[name], **extra)
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=7, **kwargs)
    for _ in range(epoch):
        it.reset()
    return it.next().data[0].asnumpy()


def images():
    """The 7 decoded images (HWC uint8 RGB) of the record file."""
    rec = mx.recordio.MXRecordIO(REC, "r")
    out = []
    while True:
        record = rec.read()
        if record is None:
            return out
        out.append(mx.image.imdecode(mx.recordio.unpack(record)[1]).asnumpy())


class Draws:
    """A stand-in generator giving the augmenter chosen draws."""

    def __init__(self, uniforms=(), integer=0):
        self.uniforms = list(uniforms)
        self.integer = integer

    def random(self):
        return self.uniforms.pop(0) if self.uniforms else 0.5

    def randint(self, low, high):
        return self.integer


def augmented(img, draws, **kwargs):
    return DefaultAugmenter(SHAPE, draws, **kwargs)(img).transpose(2, 0, 1).astype(np.float32)


@pytest.mark.parametrize("name", WARPED)
def test_warps_match_mxnet_up_to_opencv_rounding(name):
    diff = np.abs(batch(name) - BATCHES[name + "/0"])
    assert diff.max() <= 3 and diff.mean() < 0.35, (diff.max(), diff.mean())


@pytest.mark.parametrize("name", EXACT)
def test_size_bounds_pad_and_mirror_match_mxnet(name):
    np.testing.assert_array_equal(batch(name), BATCHES[name + "/0"])


def test_mean_img_is_computed_saved_and_used_as_mxnet(tmp_path):
    path = str(tmp_path / "mean.bin")
    got = batch("mean_img", mean_img=path)
    want_mean = mx.nd.load(os.path.join(HERE, "mean_img.bin"))["mean_img"].asnumpy()
    np.testing.assert_allclose(mx.nd.load(path)["mean_img"].asnumpy(), want_mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, BATCHES["mean_img/0"], rtol=1e-5, atol=1e-5)
    # MXNet's own file is read as it is
    mxnet_file = str(tmp_path / "mxnet_mean.bin")
    shutil.copy(os.path.join(HERE, "mean_img.bin"), mxnet_file)
    np.testing.assert_allclose(batch("mean_img", mean_img=mxnet_file), BATCHES["mean_img/0"], rtol=1e-5,
                               atol=1e-5)


def test_mean_img_of_another_shape_is_an_error(tmp_path):
    path = str(tmp_path / "mean.bin")
    mx.nd.save(path, {"mean_img": mx.nd.zeros((3, 4, 4))})
    with pytest.raises(mx.MXNetError, match="mean image of .*mean.bin has shape"):
        batch("mean_img", mean_img=path)


def explained(want, candidates):
    """The mean absolute difference of the candidate closest to ``want``, and its index."""
    errors = [np.abs(c - want).mean() for c in candidates]
    return min(errors), int(np.argmin(errors))


def test_max_rotate_angle_draws_integer_angles_in_range():
    imgs = images()
    picked = set()
    for epoch in range(EPOCHS["max_rotate_angle"]):
        want = BATCHES["max_rotate_angle/%d" % epoch]
        for img, w in zip(imgs, want):
            angles = range(-3, 4)
            err, k = explained(w, [augmented(img, Draws(integer=a), max_rotate_angle=3) for a in angles])
            assert err < 0.35
            picked.add(angles[k])
    assert len(picked) > 2
    ours = batch("max_rotate_angle")
    for img, o in zip(imgs, ours):
        assert explained(o, [augmented(img, Draws(integer=a), max_rotate_angle=3) for a in range(-3, 4)])[0] == 0


def _hsl_draw(k, limit):
    """The uniform draw in [0, 1) that gives the HSL offset ``k`` for the range ``limit``."""
    value = k + 0.25 if k >= 0 else k - 0.25
    return min(max((value + limit) / (2.0 * limit), 0.0), 0.999999)


def test_hsl_offsets_explain_every_mxnet_image():
    imgs = images()
    triples = [(h, s, l) for h in range(-3, 3) for s in range(-4, 4) for l in range(-5, 5)]
    picked = set()
    for epoch in range(EPOCHS["hsl"]):
        want = BATCHES["hsl/%d" % epoch]
        for img, w in zip(imgs, want):
            cands = [augmented(img, Draws([_hsl_draw(h, 3), _hsl_draw(s, 4), _hsl_draw(l, 5)]),
                               random_h=3, random_s=4, random_l=5) for h, s, l in triples]
            err, k = explained(w, cands)
            assert err < 0.02, err  # a few pixels 1 apart: OpenCV's HLS conversion rounding
            picked.add(triples[k])
    assert len(picked) > 5


def test_shear_is_a_draw_in_range():
    imgs = images()
    shears = np.linspace(-0.3, 0.3, 241)
    for epoch in range(EPOCHS["shear"]):
        want = BATCHES["shear/%d" % epoch]
        for img, w in zip(imgs, want):
            cands = [augmented(img, Draws([(s + 0.3) / 0.6]), max_shear_ratio=0.3) for s in shears]
            assert explained(w, cands)[0] < 0.35  # no shear: 4 to 22


def _pca_weights(out, base):
    """The PCA weights (alpha) of each image: the per-channel offset (median over pixels not
    clipped) projected on the eigenvectors, divided by the eigenvalues."""
    alphas = []
    for o, b in zip(out, base):
        offset = np.array([np.median((o[c] - b[c])[(o[c] > 0) & (o[c] < 255)]) for c in range(3)])
        alphas.append(_EIGVEC.T @ offset / _EIGVAL)
    return np.array(alphas)


def test_pca_noise_has_mxnets_distribution():
    base = batch("pca_noise", pca_noise=0.0)
    theirs = np.concatenate([_pca_weights(BATCHES["pca_noise/%d" % e], base) for e in range(EPOCHS["pca_noise"])])
    it = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=7, pca_noise=0.5, seed=5)
    ours, first = [], None
    for _ in range(EPOCHS["pca_noise"]):
        out = it.next().data[0].asnumpy()
        first = out if first is None else first
        ours.append(_pca_weights(out, base))
        it.reset()
    ours = np.concatenate(ours)
    # the first weight is the best determined (the offsets are rounded to integers)
    for alphas in (theirs, ours):
        assert 0.3 < alphas[:, 0].std() < 0.75, alphas[:, 0].std()
        assert abs(alphas[:, 0].mean()) < 0.3
    # every pixel moves by its image's offset: the offsets explain the outputs
    for out in (BATCHES["pca_noise/0"], first):
        for o, b in zip(out, base):
            offset = np.array([np.median(o[c] - b[c]) for c in range(3)]).reshape(3, 1, 1)
            assert np.abs(np.clip(b + offset, 0, 255) - o).max() <= 1


def test_unsupported_arguments_raise():
    with pytest.raises(mx.MXNetError, match="no_such_argument"):
        mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=2, no_such_argument=True)
    with pytest.raises(mx.MXNetError, match="inter_method"):
        mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=2, rotate=10, inter_method=7)


def _fit_jitter(kind, out, base):
    """The factor ``alpha`` that explains one image's jitter, and the largest difference of
    the reconstruction (clipped and rounded, as OpenCV) from ``out`` (HWC float arrays)."""
    import cv2
    # MXNet's grey levels read its RGB pixels as BGR
    grey = cv2.cvtColor(base.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float64)[:, :, None]
    anchor = {"brightness": 0.0, "contrast": grey.mean(), "saturation": grey}[kind]
    anchor = np.broadcast_to(anchor, base.shape)
    ok = (out > 0) & (out < 255) & (np.abs(base - anchor) > 8)
    alpha = np.sum((out - anchor)[ok] * (base - anchor)[ok]) / np.sum((base - anchor)[ok] ** 2)
    rebuilt = np.clip(np.rint(base * alpha + anchor * (1 - alpha)), 0, 255)
    return alpha, np.abs(rebuilt - out).max()


@pytest.mark.parametrize("kind", ["brightness", "contrast", "saturation"])
def test_color_jitter_is_explained_by_one_factor_per_image(kind):
    base = batch("rotate", rotate=-1).transpose(0, 2, 3, 1)  # the plain centre crops
    ours = mx.io.ImageRecordIter(path_imgrec=REC, data_shape=SHAPE, batch_size=7, seed=2, **CONFIGS[kind])
    for out in [BATCHES["%s/%d" % (kind, e)] for e in range(EPOCHS[kind])] + [ours.next().data[0].asnumpy()]:
        alphas = []
        for o, b in zip(out.transpose(0, 2, 3, 1), base):
            alpha, err = _fit_jitter(kind, o, b)
            assert 0.69 < alpha < 1.31 and err <= 1, (alpha, err)
            alphas.append(alpha)
        assert np.std(alphas) > 0.02


def test_random_contrast_and_illumination_scale_and_shift_before_std():
    base = batch("rotate", rotate=-1)
    mean = np.array([100.0, 110.0, 120.0]).reshape(3, 1, 1)
    factor = (0.5 / np.array([2.0, 3.0, 4.0])).reshape(3, 1, 1)
    ours = batch("contrast_illumination")
    for out in [BATCHES["contrast_illumination/%d" % e] for e in range(2)] + [ours]:
        for o, b in zip(out, base):
            x = (b - mean).ravel()
            design = np.stack([x, np.ones_like(x)], 1)
            (c, i), *_ = np.linalg.lstsq(design, (o / factor).ravel(), rcond=None)
            assert np.abs(design @ [c, i] - (o / factor).ravel()).max() < 1e-3
            assert 0.7 <= c <= 1.3 and -20 <= i <= 20

