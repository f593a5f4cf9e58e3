"""``gluon.data.vision`` datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100 (read from the
standard files under ``root``), ImageRecordDataset, ImageFolderDataset, ImageListDataset.

Samples are as in MXNet 1.9.1: an HWC uint8 NDArray and an int32 label (numpy scalar),
passed through ``transform(data, label)`` when one is given. Nothing is downloaded: when
the files are missing, the error names them and the folder to put them in (MXNet would
fetch them from its mirror; the files are the same).
"""
import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from ....base import MXNetError, numeric_types
from .... import image, ndarray as nd, recordio
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset",
           "ImageListDataset"]


def _data_home():
    return os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet"))


class _DownloadedDataset(Dataset):
    """A dataset of (data, label) arrays read once from files under ``root``."""

    def __init__(self, root, transform):
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _missing(self, names, archive=None):
        where = "\n".join("  " + os.path.join(self._root, n) for n in names)
        alt = ("\n(or put %s in %s: it is extracted)" % (archive, self._root)) if archive else ""
        raise MXNetError("%s: data files not found, and neogluon downloads nothing. Place the standard "
                         "files at:\n%s%s" % (type(self).__name__, where, alt))


class MNIST(_DownloadedDataset):
    """The MNIST handwritten digits: 28x28x1 uint8 images and int32 labels.

    ``root`` holds ``train-images-idx3-ubyte.gz`` and ``train-labels-idx1-ubyte.gz`` (or
    ``t10k-...`` for ``train=False``); the uncompressed files are read as well."""
    _train = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")
    _test = ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")

    def __init__(self, root=os.path.join(_data_home(), "datasets", "mnist"), train=True, transform=None):
        self._train_mode = train
        super().__init__(root, transform)

    def _open(self, name):
        path = os.path.join(self._root, name)
        if os.path.exists(path):
            return gzip.open(path, "rb")
        if os.path.exists(path[:-3]):
            return open(path[:-3], "rb")
        return None

    def _get_data(self):
        names = self._train if self._train_mode else self._test
        files = [self._open(n) for n in names]
        if None in files:
            for f in files:
                if f is not None:
                    f.close()
            self._missing(names)
        with files[1] as fin:
            magic, count = struct.unpack(">II", fin.read(8))
            label = np.frombuffer(fin.read(), dtype=np.uint8).astype(np.int32)
            self._check(magic, 2049, count, len(label), names[1])
        with files[0] as fin:
            magic, count, rows, cols = struct.unpack(">IIII", fin.read(16))
            self._check(magic, 2051, count, len(label), names[0])
            data = np.frombuffer(bytearray(fin.read()), dtype=np.uint8)
            if data.size != count * rows * cols:
                raise MXNetError("%s: %s holds %d bytes of pixels, its header says %d images of %dx%d"
                                 % (type(self).__name__, names[0], data.size, count, rows, cols))
            data = data.reshape(count, rows, cols, 1)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = label

    def _check(self, magic, want, count, labels, name):
        if magic != want or count != labels:
            raise MXNetError("%s: %s is not an IDX file of %d items (magic %d, expected %d; count %d)"
                             % (type(self).__name__, os.path.join(self._root, name), labels, magic, want, count))


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's file names and format, other images."""

    def __init__(self, root=os.path.join(_data_home(), "datasets", "fashion-mnist"), train=True,
                 transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: 32x32x3 uint8 images and int32 labels, from the binary version's files
    (``root/cifar-10-batches-bin/data_batch_1.bin`` ... ``_5.bin``, ``test_batch.bin``), or
    from ``cifar-10-binary.tar.gz`` in ``root``, which is then extracted."""
    _folder = "cifar-10-batches-bin"
    _archive = "cifar-10-binary.tar.gz"
    _label_bytes = 1

    def __init__(self, root=os.path.join(_data_home(), "datasets", "cifar10"), train=True, transform=None):
        self._train_mode = train
        super().__init__(root, transform)

    def _names(self):
        if self._train_mode:
            return ["data_batch_%d.bin" % i for i in range(1, 6)]
        return ["test_batch.bin"]

    def _label_column(self):
        return 0

    def _read_batch(self, filename):
        with open(filename, "rb") as fin:
            raw = np.frombuffer(bytearray(fin.read()), dtype=np.uint8)
        width = 3072 + self._label_bytes
        if raw.size % width:
            raise MXNetError("%s: %s has %d bytes, not a whole number of %d-byte records"
                             % (type(self).__name__, filename, raw.size, width))
        raw = raw.reshape(-1, width)
        data = raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return data, raw[:, self._label_column()].astype(np.int32)

    def _extract(self, archive):
        """Extract the batch files this data set reads, and nothing else: regular files
        at exactly the expected names (no path of the archive's choosing is written)."""
        wanted = {"%s/%s" % (self._folder, n) for n in self._names()}
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.11.4
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                if member.name in wanted and member.isfile():
                    tar.extract(member, self._root, **safe)

    def _get_data(self):
        paths = [os.path.join(self._root, self._folder, n) for n in self._names()]
        if not all(os.path.exists(p) for p in paths):
            archive = os.path.join(self._root, self._archive)
            if os.path.exists(archive):
                self._extract(archive)
            if not all(os.path.exists(p) for p in paths):
                self._missing([os.path.join(self._folder, n) for n in self._names()], self._archive)
        data, label = zip(*(self._read_batch(p) for p in paths))
        data = np.concatenate(data)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = np.concatenate(label)


class CIFAR100(CIFAR10):
    """CIFAR-100: ``root/cifar-100-binary/train.bin`` or ``test.bin`` (or
    ``cifar-100-binary.tar.gz``); the fine labels (100 classes) with ``fine_label=True``,
    the 20 coarse ones otherwise."""
    _folder = "cifar-100-binary"
    _archive = "cifar-100-binary.tar.gz"
    _label_bytes = 2

    def __init__(self, root=os.path.join(_data_home(), "datasets", "cifar100"), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _names(self):
        return ["train.bin"] if self._train_mode else ["test.bin"]

    def _label_column(self):
        return int(bool(self._fine_label))


class ImageRecordDataset(RecordFileDataset):
    """Images in a RecordIO file (with its ``.idx``), as written by ``im2rec`` or
    ``recordio.pack``: (decoded HWC image, the header's label)."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, img = recordio.unpack(super().__getitem__(idx))
        if self._transform is not None:
            return self._transform(image.imdecode(img, self._flag), header.label)
        return image.imdecode(img, self._flag), header.label


class ImageFolderDataset(Dataset):
    """Images in ``root/<class name>/<file>``: labels number the sorted class folders
    (``synsets``); files other than .jpg/.jpeg/.png are skipped with a warning."""

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn("Ignoring %s, which is not a directory." % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn("Ignoring %s of type %s. Only support %s" % (filename, ext, ", ".join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)


class ImageListDataset(Dataset):
    """Images listed in ``imglist`` (MXNet 2.0's dataset): a ``.lst`` file under ``root``
    (``index<TAB>label(s)<TAB>path`` lines, as ``im2rec`` writes) or a list of
    ``[label(s)..., path]``; samples are (image, label NDArray)."""

    def __init__(self, root=".", imglist=None, flag=1):
        self._root = root
        self._flag = flag
        self._imglist = {}
        self._imgkeys = []
        if isinstance(imglist, str):
            with open(os.path.join(self._root, imglist), "rt") as fin:
                for line in iter(fin.readline, ""):
                    fields = line.strip().split("\t")
                    key = int(fields[0])
                    self._imglist[key] = (nd.array([float(x) for x in fields[1:-1]]), fields[-1])
                    self._imgkeys.append(key)
        elif isinstance(imglist, list):
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1])
                elif isinstance(img[0], numeric_types):
                    label = nd.array([img[0]])
                else:
                    label = nd.array(img[0])
                if not isinstance(img[-1], str):
                    raise MXNetError("ImageListDataset: the last item of each entry must be the image path, got %r"
                                     % (img[-1],))
                self._imglist[key] = (label, img[-1])
                self._imgkeys.append(key)
        elif imglist is not None:
            raise MXNetError("ImageListDataset: imglist must be a .lst file name or a list, got %s"
                             % type(imglist).__name__)

    def __len__(self):
        return len(self._imgkeys)

    def __getitem__(self, idx):
        key = self._imgkeys[idx]
        label, path = self._imglist[key]
        return image.imread(os.path.join(self._root, path), self._flag), label
