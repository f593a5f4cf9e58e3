"""gluon.data.vision.transforms against MXNet 1.9.1, imperatively and hybridized, and the
export of a hybridized transform chain (the same -symbol.json as MXNet's)."""
import json
import os
import random
import re

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon import nd, gluon  # noqa: E402
from neogluon.gluon.data.vision import transforms as T  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
CASES = json.load(open(os.path.join(HERE, "cases.json")))


@pytest.fixture(scope="module")
def img():
    return nd.array(EXPECTED["decode/rgb420.jpg/1/1"], dtype="uint8")


def check(key, got):
    want = EXPECTED[key]
    got = got.asnumpy()
    assert got.shape == want.shape and got.dtype == want.dtype, (key, got.shape, want.shape, got.dtype)
    if want.dtype == np.uint8:
        np.testing.assert_array_equal(got, want, err_msg=key)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=key)


CASES_TF = {
    "ToTensor": lambda: T.ToTensor(), "Cast": lambda: T.Cast("float16"),
    "Normalize": lambda: T.Normalize(0.5, 0.25),
    "Resize": lambda: T.Resize(20), "Resize_keep": lambda: T.Resize(20, keep_ratio=True),
    "Resize_tuple": lambda: T.Resize((20, 25), interpolation=2),
    "CenterCrop": lambda: T.CenterCrop(16), "CenterCrop_big": lambda: T.CenterCrop((50, 40)),
    "CropResize": lambda: T.CropResize(2, 3, 20, 18),
    "CropResize_size": lambda: T.CropResize(2, 3, 20, 18, size=(10, 12), interpolation=1),
    "Compose": lambda: T.Compose([T.Resize(30), T.CenterCrop(24), T.ToTensor(),
                                  T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))]),
    "RandomBrightness0": lambda: T.RandomBrightness(0), "RandomLighting0": lambda: T.RandomLighting(0),
}


@pytest.mark.parametrize("name", sorted(CASES_TF))
def test_transform_matches_mxnet(img, name):
    tf = CASES_TF[name]()
    x = {"Normalize": nd.image.to_tensor(img), "RandomBrightness0": img.astype("float32"),
         "RandomLighting0": img.astype("float32")}.get(name, img)
    check("tf/%s" % name, tf(x))
    if isinstance(tf, gluon.HybridBlock):
        tf.hybridize()
        check("tf/%s/hybrid" % name, tf(x))
        check("tf/%s/hybrid" % name, tf(x))  # the cached graph, second call


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_resized_crop_seeded(img, seed):
    random.seed(seed)
    np.random.seed(seed)
    check("tf/RandomResizedCrop/%d" % seed, T.RandomResizedCrop((20, 16))(img))


def test_hybridized_chain_exports_mxnets_json(img, tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(T.Resize((20, 15)), T.CropResize(1, 2, 10, 8), T.ToTensor(),
            T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3)))
    net.hybridize()
    check("transform_json/out", net(img))
    net.export(str(tmp_path / "tf"))
    got = json.load(open(str(tmp_path / "tf-symbol.json")))
    want = CASES["transform_json"]
    # node names carry process-wide block counters (resize0_ in a fresh process); the rest is equal
    strip = lambda nodes: [dict(n, name=re.sub(r"\d+_", "_", n["name"])) for n in nodes]  # noqa: E731
    assert strip(got["nodes"]) == strip(want["nodes"])
    assert got["heads"] == want["heads"] and got["arg_nodes"] == want["arg_nodes"]
    loaded = gluon.SymbolBlock.imports(str(tmp_path / "tf-symbol.json"), ["data"])
    check("transform_json/out", loaded(img))


def test_compose_groups_hybrid_runs():
    c = T.Compose([T.Resize(30), T.ToTensor(), T.CenterCrop(5), T.ToTensor()])
    kinds = [type(b).__name__ for b in c._children.values()]
    assert kinds == ["HybridSequential", "CenterCrop", "ToTensor"]


def test_hybrid_compose(img):
    hc = T.HybridCompose([T.Resize(30), T.ToTensor(), T.Normalize(0.5, 0.25)])
    want = T.Normalize(0.5, 0.25)(T.ToTensor()(T.Resize(30)(img))).asnumpy()
    np.testing.assert_allclose(hc(img).asnumpy(), want, rtol=1e-6)
    hc.hybridize()
    np.testing.assert_allclose(hc(img).asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="HybridBlocks only"):
        T.HybridCompose([T.CenterCrop(3)])


def test_random_flips_and_colour_transforms_hybridize(img):
    mx.random.seed(11)
    x = img.astype("float32")
    lr = x.asnumpy()[:, ::-1]
    for tf in (T.RandomFlipLeftRight(), T.RandomFlipTopBottom(), T.RandomBrightness(0.3), T.RandomContrast(0.3),
               T.RandomSaturation(0.3), T.RandomHue(0.1), T.RandomColorJitter(0.2, 0.2, 0.2, 0.1),
               T.RandomLighting(0.1)):
        tf.hybridize()
        outs = [tf(x).asnumpy() for _ in range(6)]
        assert all(o.shape == x.shape and o.dtype == np.float32 for o in outs)
        assert any(not np.array_equal(outs[0], o) for o in outs[1:]), type(tf).__name__  # it is random
    flips = [T.RandomFlipLeftRight()(x).asnumpy() for _ in range(40)]
    assert all(np.array_equal(f, lr) or np.array_equal(f, x.asnumpy()) for f in flips)


def test_random_crop_pads_and_crops(img):
    random.seed(4)
    out = T.RandomCrop(16, pad=2)(img)
    assert out.shape == (16, 16, 3)
    random.seed(4)
    padded = mx.image.copyMakeBorder(img, 2, 2, 2, 2, type=0, values=(0.0, 0.0, 0.0))
    want, _ = mx.image.random_crop(padded, (16, 16), 1)
    np.testing.assert_array_equal(out.asnumpy(), want.asnumpy())


def test_random_gray(img):
    gray = T.RandomGray(p=1.0)(img.astype("float32")).asnumpy()
    assert np.allclose(gray[:, :, 0], gray[:, :, 1]) and np.allclose(gray[:, :, 1], gray[:, :, 2])
    want = img.asnumpy().astype(np.float32) @ np.array([0.21, 0.72, 0.07], np.float32)
    np.testing.assert_allclose(gray[:, :, 0], want, rtol=1e-5)
    same = T.RandomGray(p=0.0)(img)
    np.testing.assert_array_equal(same.asnumpy(), img.asnumpy())


def test_random_apply(img):
    random.seed(0)
    tf = T.RandomApply(T.Cast("float16"), p=0.5)
    dtypes = {str(tf(img).dtype) for _ in range(30)}
    assert dtypes == {"<class 'numpy.uint8'>", "<class 'numpy.float16'>"}


def test_hybrid_random_apply(img):
    mx.random.seed(5)
    x = img.astype("float32")
    tf = T.HybridRandomApply(T.RandomFlipLeftRight(), p=0.5)
    tf.hybridize()
    outs = [tf(x).asnumpy() for _ in range(20)]
    assert all(o.shape == x.shape for o in outs)
    bright = T.HybridRandomApply(T.Normalize(0.0, 0.5), p=0.5)
    seen = {float(bright(nd.image.to_tensor(img)).asnumpy()[0, 0, 0]) for _ in range(30)}
    assert len(seen) == 2  # applied (x / 0.5) or not


def test_transform_first_and_dataloader_workers(tmp_path):
    data = nd.array(np.random.RandomState(0).randint(0, 255, (6, 8, 8, 3)), dtype="uint8")
    ds = gluon.data.ArrayDataset(data, np.arange(6))
    tf = T.Compose([T.ToTensor(), T.Normalize(0.5, 0.25)])
    for workers in (0, 2):
        loader = gluon.data.DataLoader(ds.transform_first(tf), batch_size=3, num_workers=workers)
        batches = list(loader)
        assert len(batches) == 2
        x, y = batches[1]
        assert x.shape == (3, 3, 8, 8)
        np.testing.assert_allclose(x.asnumpy()[0], (data.asnumpy()[3].transpose(2, 0, 1) / 255.0 - 0.5) / 0.25,
                                   rtol=1e-5, atol=1e-6)
        assert y.asnumpy().tolist() == [3, 4, 5]


needs_sampler = pytest.mark.skipif(not mx.operator.exists("BilinearSampler"),
                                   reason="BilinearSampler comes with the spatial operators (operator issue)")


@needs_sampler
@pytest.mark.parametrize("seed", [1, 2])
def test_random_rotation_seeded(img, seed):
    for key, kwargs in (("tf/RandomRotation/%d", {}), ("tf/RandomRotation_zoom/%d", dict(zoom_in=True))):
        random.seed(seed)
        np.random.seed(seed)
        check(key % seed, T.RandomRotation((-30, 30), **kwargs)(nd.image.to_tensor(img)))


def test_rotation_arguments(img):
    with pytest.raises(ValueError, match="ordered tuple"):
        T.RandomRotation((30, -30))
    with pytest.raises(TypeError, match="float32"):
        T.Rotate(10)(img)
    with pytest.raises(ValueError, match="cannot be both True"):
        mx.image.imrotate(nd.image.to_tensor(img), 10, zoom_in=True, zoom_out=True)
    np.random.seed(0)
    same = T.RandomRotation((-30, 30), rotate_with_proba=0.0)(img)
    assert same is img
