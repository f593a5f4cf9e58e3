"""Train a small CNN from a RecordIO file of JPEGs: the MXNet image data path end to end.

The script draws its own images (three classes: a disc, a square, a cross, at random places,
sizes and colours on noisy backgrounds), encodes them as JPEG and packs them with
``mx.recordio`` into ``shapes.rec`` + ``shapes.idx`` (the layout ``im2rec`` writes). It then
trains a hybridized CNN on ``gluon.data.vision.ImageRecordDataset`` through a ``DataLoader``
(with worker processes if asked), augmenting with ``mx.image``'s augmenters (random crop,
mirror, colour jitter) and ``transforms.ToTensor``/``Normalize``, shows a tqdm progress bar
and saves a plot of the loss.

    python examples/image_recordio_cnn.py [--out DIR] [--images 600] [--epochs 3] [--workers 2]

Needs ``pip install 'neogluon[vision,demo]'`` (OpenCV; tqdm and matplotlib).
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402  pylint: disable=wrong-import-position
from neogluon import autograd, gluon, image, recordio  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon import nn  # noqa: E402  pylint: disable=wrong-import-position
from neogluon.gluon.data.vision import ImageRecordDataset, transforms  # noqa: E402  pylint: disable=wrong-import-position

CLASSES = ("disc", "square", "cross")
SIZE = 40      # stored images are SIZE x SIZE
CROP = 32      # the network sees CROP x CROP crops


def draw(label, rs):
    """One SIZE x SIZE BGR image of class ``label``."""
    import cv2  # pylint: disable=import-outside-toplevel
    img = rs.randint(0, 60, (SIZE, SIZE, 3)).astype(np.uint8)
    colour = tuple(int(c) for c in rs.randint(120, 256, 3))
    r = int(rs.randint(7, 12))
    cx, cy = (int(v) for v in rs.randint(r + 4, SIZE - r - 4, 2))
    if label == 0:
        cv2.circle(img, (cx, cy), r, colour, -1)
    elif label == 1:
        cv2.rectangle(img, (cx - r, cy - r), (cx + r, cy + r), colour, -1)
    else:
        cv2.line(img, (cx - r, cy - r), (cx + r, cy + r), colour, 3)
        cv2.line(img, (cx - r, cy + r), (cx + r, cy - r), colour, 3)
    return img


def write_records(prefix, count, seed=0):
    """Pack ``count`` drawn JPEGs into ``prefix.rec``/``prefix.idx`` with their labels."""
    rs = np.random.RandomState(seed)
    writer = recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "w")
    for i in range(count):
        label = i % len(CLASSES)
        header = recordio.IRHeader(0, float(label), i, 0)
        writer.write_idx(i, recordio.pack_img(header, draw(label, rs), quality=90, img_fmt=".jpg"))
    writer.close()


class Augment:
    """mx.image augmenters (random crop, mirror, colour jitter) on the decoded HWC image,
    then ToTensor and Normalize; picklable, so DataLoader workers can run it."""

    def __init__(self, train):
        self.augs = image.CreateAugmenter((3, CROP, CROP), rand_crop=train, rand_mirror=train,
                                          brightness=0.2 if train else 0, contrast=0.2 if train else 0)
        self.to_tensor = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.5, 0.25)])

    def __call__(self, img):
        for aug in self.augs:
            img = aug(img)
        return self.to_tensor(img.clip(0, 255))


def small_cnn():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(64, activation="relu"), nn.Dense(len(CLASSES)))
    return net


def accuracy(net, loader):
    metric = mx.metric.Accuracy()
    for x, y in loader:
        metric.update([y], [net(x)])
    return metric.get()[1]


def plot_loss(losses, path):
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(np.arange(1, len(losses) + 1), losses, lw=1, label="batch loss")
    if len(losses) >= 10:
        smooth = np.convolve(losses, np.ones(10) / 10, mode="valid")
        ax.plot(np.arange(10, len(losses) + 1), smooth, lw=2, label="mean of 10")
    ax.set_xlabel("step")
    ax.set_ylabel("softmax cross-entropy")
    ax.set_title("small CNN on shapes.rec")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=None, help="folder for shapes.rec/.idx and loss.png (default: a temp dir)")
    parser.add_argument("--images", type=int, default=600)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--max-steps", type=int, default=None, help="stop after this many steps (for tests)")
    parser.add_argument("--lr", type=float, default=0.003)
    args = parser.parse_args(argv)
    from tqdm import tqdm  # pylint: disable=import-outside-toplevel

    out = args.out or tempfile.mkdtemp(prefix="neogluon_shapes_")
    os.makedirs(out, exist_ok=True)
    prefix = os.path.join(out, "shapes")
    write_records(prefix, args.images)
    print("wrote %d JPEG records to %s.rec (%d bytes)" % (args.images, prefix, os.path.getsize(prefix + ".rec")))

    mx.random.seed(0)
    np.random.seed(0)
    records = ImageRecordDataset(prefix + ".rec")
    split = int(len(records) * 0.8)
    train_set = _Subset(records, 0, split)
    test_set = _Subset(records, split, len(records))
    train = gluon.data.DataLoader(train_set.transform_first(Augment(True)), batch_size=args.batch_size,
                                  shuffle=True, num_workers=args.workers, last_batch="discard")
    test = gluon.data.DataLoader(test_set.transform_first(Augment(False)), batch_size=64,
                                 num_workers=args.workers)

    net = small_cnn()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": args.lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses, step = [], 0
    for epoch in range(args.epochs):
        bar = tqdm(train, desc="epoch %d/%d" % (epoch + 1, args.epochs), unit="batch", leave=True,
                   file=sys.stdout, mininterval=0.5)
        for x, y in bar:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
            losses.append(float(loss.mean().asscalar()))
            bar.set_postfix(loss="%.3f" % losses[-1])
            step += 1
            if args.max_steps and step >= args.max_steps:
                break
        bar.close()
        if args.max_steps and step >= args.max_steps:
            break
    acc = accuracy(net, test)
    plot = os.path.join(out, "loss.png")
    plot_loss(losses, plot)
    print("%d steps; final loss %.4f; test accuracy %.3f" % (step, losses[-1], acc))
    print("loss plot: %s" % plot)
    return 0


class _Subset(gluon.data.Dataset):
    """Samples ``start`` to ``stop`` of a dataset."""

    def __init__(self, data, start, stop):
        self._data, self._start, self._stop = data, start, stop

    def __len__(self):
        return self._stop - self._start

    def __getitem__(self, idx):
        if not 0 <= idx < len(self):
            raise IndexError(idx)
        return self._data[self._start + idx]


if __name__ == "__main__":
    sys.exit(main())
