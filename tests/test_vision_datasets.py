"""gluon.data.vision datasets: the record file MXNet 1.9.1 wrote read as MXNet reads it, and
MNIST/FashionMNIST/CIFAR10/CIFAR100 from tiny files in the standard formats written here."""
import gzip
import json
import os
import shutil
import struct
import tarfile

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from neogluon import gluon  # noqa: E402
from neogluon.gluon.data import vision  # noqa: E402

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
EXPECTED = np.load(os.path.join(HERE, "expected.npz"))
RECORDS = json.load(open(os.path.join(HERE, "records.json")))


def test_image_record_dataset_matches_mxnet():
    ds = vision.ImageRecordDataset(os.path.join(HERE, "images.rec"))
    assert len(ds) == len(RECORDS["images.rec"])
    for i in range(len(ds)):
        img, label = ds[i]
        np.testing.assert_array_equal(img.asnumpy(), EXPECTED["ImageRecordDataset/%d/img" % i])
        np.testing.assert_array_equal(np.asarray(label), EXPECTED["ImageRecordDataset/%d/label" % i])
    gray = vision.ImageRecordDataset(os.path.join(HERE, "images.rec"), flag=0)
    np.testing.assert_array_equal(gray[0][0].asnumpy(), EXPECTED["ImageRecordDataset/flag0/0"])


def test_image_record_dataset_in_dataloader_workers():
    ds = vision.ImageRecordDataset(os.path.join(HERE, "images.rec"))
    ds = ds.transform_first(vision.transforms.Compose([vision.transforms.Resize((16, 12)),
                                                        vision.transforms.ToTensor()]))
    keep = gluon.data.dataset.SimpleDataset([0, 1, 2, 3, 5])
    pairs = keep.transform(lambda i: (ds[i][0], np.float32(np.asarray(ds[i][1]).ravel()[0])))
    single = [b for b in gluon.data.DataLoader(pairs, batch_size=5)]
    multi = [b for b in gluon.data.DataLoader(pairs, batch_size=5, num_workers=2)]
    np.testing.assert_array_equal(single[0][0].asnumpy(), multi[0][0].asnumpy())
    assert single[0][0].shape == (5, 3, 12, 16)


def test_record_workers_reopen_the_file():
    """Each DataLoader worker reads the .rec through its own handle (the reader pickles)."""
    rec = vision.ImageRecordDataset(os.path.join(HERE, "images.rec"))
    ds = gluon.data.SimpleDataset([0, 1, 2, 3]).transform(lambda i: rec[i][0].asnumpy().sum())
    sums = [float(x.asscalar()) for x in gluon.data.DataLoader(ds, batch_size=1, num_workers=2)]
    want = [float(EXPECTED["ImageRecordDataset/%d/img" % i].sum()) for i in range(4)]
    assert sums == want


def _write_images(root, layout):
    cv2 = pytest.importorskip("cv2")
    for rel, value in layout.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        cv2.imwrite(path, np.full((5, 4, 3), value, np.uint8))


def test_image_folder_dataset(tmp_path):
    _write_images(str(tmp_path), {"dog/b.png": 30, "dog/a.png": 20, "cat/x.png": 10, "cat/y.jpg": 200})
    (tmp_path / "cat" / "notes.txt").write_text("skip me")
    (tmp_path / "README").write_text("not a folder")
    with pytest.warns(UserWarning):
        ds = vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"]
    assert [(os.path.basename(p), lab) for p, lab in ds.items] == [("x.png", 0), ("y.jpg", 0), ("a.png", 1),
                                                                 ("b.png", 1)]
    img, label = ds[2]
    assert img.shape == (5, 4, 3) and label == 1 and int(img.asnumpy()[0, 0, 0]) == 20
    with pytest.warns(UserWarning):
        ds = vision.ImageFolderDataset(str(tmp_path), flag=0, transform=lambda x, y: (x.shape, y + 10))
    assert ds[0] == ((5, 4, 1), 10)


def test_image_list_dataset(tmp_path):
    _write_images(str(tmp_path), {"a.png": 1, "b.png": 2})
    (tmp_path / "list.lst").write_text("0\t3\ta.png\n5\t1\t2\tb.png\n")
    ds = vision.ImageListDataset(str(tmp_path), "list.lst")
    assert len(ds) == 2
    img, label = ds[1]
    assert img.shape == (5, 4, 3) and label.asnumpy().tolist() == [1.0, 2.0]
    ds = vision.ImageListDataset(str(tmp_path), [[4, "a.png"], [[1, 2], "b.png"]])
    assert ds[0][1].asnumpy().tolist() == [4.0] and ds[1][1].asnumpy().tolist() == [1.0, 2.0]


# ----------------------------------------------------------------------------- the standard data sets
def _idx_files(root, prefix, n, gz=True):
    rs = np.random.RandomState(1)
    images = rs.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rs.randint(0, 10, n).astype(np.uint8)
    opener = gzip.open if gz else open
    suffix = ".gz" if gz else ""
    with opener(os.path.join(root, "%s-images-idx3-ubyte%s" % (prefix, suffix)), "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with opener(os.path.join(root, "%s-labels-idx1-ubyte%s" % (prefix, suffix)), "wb") as f:
        f.write(struct.pack(">II", 2049, n) + labels.tobytes())
    return images, labels


@pytest.mark.parametrize("cls", [vision.MNIST, vision.FashionMNIST])
def test_mnist_reads_idx_files(tmp_path, cls):
    images, labels = _idx_files(str(tmp_path), "train", 7)
    _idx_files(str(tmp_path), "t10k", 3, gz=False)
    ds = cls(root=str(tmp_path))
    assert len(ds) == 7
    img, label = ds[4]
    assert img.shape == (28, 28, 1) and img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], images[4])
    assert label == labels[4] and label.dtype == np.int32
    test = cls(root=str(tmp_path), train=False, transform=lambda x, y: (x.astype("float32") / 255, y))
    assert len(test) == 3 and test[0][0].dtype == np.float32


def test_mnist_missing_files_say_where(tmp_path):
    with pytest.raises(mx.MXNetError) as info:
        vision.MNIST(root=str(tmp_path / "nowhere"))
    msg = str(info.value)
    assert "train-images-idx3-ubyte.gz" in msg and "train-labels-idx1-ubyte.gz" in msg
    assert str(tmp_path / "nowhere") in msg and "downloads nothing" in msg


def _cifar_records(n, label_bytes, seed):
    rs = np.random.RandomState(seed)
    labels = rs.randint(0, 100, (n, label_bytes)).astype(np.uint8)
    pixels = rs.randint(0, 256, (n, 3072)).astype(np.uint8)
    return labels, pixels, np.concatenate([labels, pixels], 1).tobytes()


def test_cifar10_reads_binary_batches(tmp_path):
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    parts = []
    for i in range(1, 6):
        labels, pixels, raw = _cifar_records(2, 1, i)
        (folder / ("data_batch_%d.bin" % i)).write_bytes(raw)
        parts.append((labels, pixels))
    (folder / "test_batch.bin").write_bytes(_cifar_records(3, 1, 9)[2])
    ds = vision.CIFAR10(root=str(tmp_path))
    assert len(ds) == 10
    img, label = ds[5]     # batch 3, record 1
    labels, pixels = parts[2]
    np.testing.assert_array_equal(img.asnumpy(), pixels[1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert label == labels[1, 0] and label.dtype == np.int32
    assert len(vision.CIFAR10(root=str(tmp_path), train=False)) == 3


def test_cifar100_labels_and_archive(tmp_path):
    src = tmp_path / "src" / "cifar-100-binary"
    src.mkdir(parents=True)
    labels, pixels, raw = _cifar_records(4, 2, 3)
    (src / "train.bin").write_bytes(raw)
    (src / "test.bin").write_bytes(_cifar_records(1, 2, 4)[2])
    root = tmp_path / "root"
    root.mkdir()
    with tarfile.open(str(root / "cifar-100-binary.tar.gz"), "w:gz") as tar:
        tar.add(str(src), arcname="cifar-100-binary")
    shutil.rmtree(str(tmp_path / "src"))
    coarse = vision.CIFAR100(root=str(root))
    fine = vision.CIFAR100(root=str(root), fine_label=True)
    assert [int(coarse[i][1]) for i in range(4)] == labels[:, 0].tolist()
    assert [int(fine[i][1]) for i in range(4)] == labels[:, 1].tolist()
    np.testing.assert_array_equal(fine[2][0].asnumpy(), pixels[2].reshape(3, 32, 32).transpose(1, 2, 0))


def test_cifar_missing_files_say_where(tmp_path):
    with pytest.raises(mx.MXNetError) as info:
        vision.CIFAR10(root=str(tmp_path))
    msg = str(info.value)
    assert os.path.join(str(tmp_path), "cifar-10-batches-bin", "data_batch_1.bin") in msg
    assert "cifar-10-binary.tar.gz" in msg


def test_corrupt_mnist_is_an_error(tmp_path):
    _idx_files(str(tmp_path), "train", 4)
    with gzip.open(str(tmp_path / "train-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">II", 2049, 9) + b"\0" * 9)
    with pytest.raises(mx.MXNetError, match="train-"):
        vision.MNIST(root=str(tmp_path))


def test_record_dataset_in_a_thread_pool():
    """Threads share one reader: read_idx is atomic, so each gets whole records."""
    rec = vision.ImageRecordDataset(os.path.join(HERE, "images.rec"))
    ds = gluon.data.SimpleDataset(list(range(5)) * 6).transform(lambda i: float(rec[i][0].asnumpy().sum()))
    sums = [float(x.asscalar()) for x in gluon.data.DataLoader(ds, batch_size=1, num_workers=3, thread_pool=True)]
    want = [float(EXPECTED["ImageRecordDataset/%d/img" % i].sum()) for i in range(5)] * 6
    assert sums == want


class _ResizeDataset(mx.gluon.data.Dataset):
    """Resizes an image with OpenCV in the worker."""

    def __len__(self):
        return 4

    def __getitem__(self, idx):
        img = mx.nd.array(np.full((64, 64, 3), idx, dtype=np.uint8), dtype=np.uint8)
        return mx.image.imresize(img, 16, 16)


def test_workers_after_the_parent_used_opencv_threads():
    """A parent that ran OpenCV's thread pool (a large resize) forks DataLoader workers that
    use OpenCV: changing OpenCV's thread count in such a child waits for pool threads that
    do not exist there (it hung the workers), so an inherited cv2 keeps its setting."""
    big = mx.nd.array(np.random.RandomState(0).randint(0, 255, (1500, 1500, 3)), dtype=np.uint8)
    for _ in range(2):
        mx.image.imresize(big, 700, 700)
    loader = mx.gluon.data.DataLoader(_ResizeDataset(), batch_size=2, num_workers=2, timeout=60)
    batches = [b.asnumpy() for b in loader]
    assert [b.shape for b in batches] == [(2, 16, 16, 3)] * 2 and batches[1][1, 0, 0, 0] == 3
