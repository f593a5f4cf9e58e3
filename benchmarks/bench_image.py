"""Image input pipeline throughput: JPEG decode + augment + batch, neogluon vs MXNet 1.9.1.

    python benchmarks/bench_image.py [--mxnet /work/mxref/bin/python] [--images 512] [--rounds 5]
                                     [--workers 2] [--batch-size 32]

It writes ``--images`` JPEGs (160x120, quality 90, drawn noise and shapes) into a .rec/.idx
with ``mx.recordio``, then times full epochs of the same pipeline:

- neogluon: ``gluon.data.vision.ImageRecordDataset`` + ``transform_first`` with mx.image's
  augmenters (resize the short side to 112 bilinear, random 96x96 crop, random mirror, cast,
  ImageNet mean/std), HWC -> CHW, batched by a ``gluon.data.DataLoader`` with ``--workers``
  worker processes (0: in the main process; ``--thread-pool``: worker threads). With
  ``--normalize batch`` the samples stay uint8 HWC after the mirror and each batch is cast,
  transposed to NCHW and normalized (``nd.image.normalize``) in the loop that takes it (the
  same float32 values: ``(pixel - mean) / std``; the time counted); ``--normalize worker`` does
  the same per batch in the DataLoader's ``batchify_fn``, i.e. in the workers;
- MXNet 1.9.1: ``mx.io.ImageRecordIter`` (its C++ decoder and augmenter) with the same
  settings and ``preprocess_threads=--workers`` (at least 1), in a subprocess of ``--mxnet``.

Rounds alternate between the two (one epoch each after a warm-up epoch) so that the load of a
shared machine hits both alike; the report gives images/s per round, the median, the spread
(min-max) and the median of the per-round ratios. With ``--workers 0`` it also gives the CPU
time per image of each (``time.process_time``: less sensitive to a loaded machine than
images per second).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

W, H, RESIZE, CROP = 160, 120, 112, 96
MEAN, STD = (123.68, 116.28, 103.53), (58.395, 57.12, 57.375)

MXNET_CODE = r"""
import json, sys, time
import mxnet as mx
rec, batch, threads, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, %(crop)d, %(crop)d), batch_size=batch,
                           resize=%(resize)d, rand_crop=True, rand_mirror=True, mean_r=%(m0)r, mean_g=%(m1)r,
                           mean_b=%(m2)r, std_r=%(s0)r, std_g=%(s1)r, std_b=%(s2)r, round_batch=False,
                           preprocess_threads=threads, shuffle=False)
rates, cpu = [], []
for e in range(epochs):
    it.reset()
    start, cpu0, n = time.perf_counter(), time.process_time(), 0
    for b in it:
        b.data[0].wait_to_read()
        n += batch - b.pad
    rates.append(n / (time.perf_counter() - start))
    cpu.append((time.process_time() - cpu0) / n)
print(json.dumps([rates, cpu]))
""" % dict(crop=CROP, resize=RESIZE, m0=MEAN[0], m1=MEAN[1], m2=MEAN[2], s0=STD[0], s1=STD[1], s2=STD[2])


def write_records(prefix, count):
    import cv2
    from neogluon import recordio
    rs = np.random.RandomState(0)
    writer = recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "w")
    for i in range(count):
        img = rs.randint(0, 255, (H, W, 3)).astype(np.uint8)
        img = cv2.GaussianBlur(img, (7, 7), 0)
        cv2.circle(img, tuple(int(v) for v in rs.randint(20, 100, 2)), int(rs.randint(8, 30)),
                   tuple(int(c) for c in rs.randint(0, 255, 3)), -1)
        writer.write_idx(i, recordio.pack_img(recordio.IRHeader(0, float(i % 10), i, 0), img, quality=90))
    writer.close()


class Augment:
    """The pipeline of ImageRecordIter(resize, rand_crop, rand_mirror, mean, std) with mx.image
    (``per_sample=False``: up to the mirror, uint8 HWC; see ``finish_batch``)."""

    def __init__(self, per_sample=True):
        from neogluon import image, nd
        self.augs = [image.ResizeAug(RESIZE, interp=1), image.RandomCropAug((CROP, CROP), interp=1),
                     image.HorizontalFlipAug(0.5)]
        if per_sample:
            self.augs += [image.CastAug(), image.ColorNormalizeAug(nd.array(MEAN), nd.array(STD))]
        self.per_sample = per_sample
        self.nd = nd

    def __call__(self, img):
        for aug in self.augs:
            img = aug(img)
        return self.nd.transpose(img, axes=(2, 0, 1)) if self.per_sample else img


def finish_batch(x):
    """A uint8 NHWC batch -> float32 NCHW, ``(pixel - mean) / std`` (ColorNormalizeAug's values)."""
    from neogluon import nd
    return nd.image.normalize(nd.transpose(x, axes=(0, 3, 1, 2)).astype("float32"), mean=MEAN, std=STD)


def worker_batchify(samples):
    """``--normalize worker``'s batchify_fn: stack the uint8 samples and ``finish_batch`` them
    where the batch is made (in the worker processes/threads, not in the loop that takes it)."""
    from neogluon.gluon.data.dataloader import default_batchify_fn
    x, y = default_batchify_fn(samples)
    return finish_batch(x), y


def neogluon_loader(rec, batch, workers, thread_pool=False, per_sample=True, batchify_fn=None):
    from neogluon import gluon
    ds = gluon.data.vision.ImageRecordDataset(rec).transform_first(Augment(per_sample))
    return gluon.data.DataLoader(ds, batch_size=batch, num_workers=workers, last_batch="keep",
                                 thread_pool=thread_pool, batchify_fn=batchify_fn)


def time_epoch(loader, cpu=None, finish=None):
    """Images per second of one epoch (and, into the list ``cpu``, this process's CPU
    seconds per image: all of the work with ``num_workers=0``)."""
    start, cpu0, n = time.perf_counter(), time.process_time(), 0
    for x, _ in loader:
        if finish is not None:
            x = finish(x)
        x.wait_to_read()
        n += x.shape[0]
    if cpu is not None:
        cpu.append((time.process_time() - cpu0) / n)
    return n / (time.perf_counter() - start)


def mxnet_epoch(python, rec, batch, threads, cpu=None):
    out = subprocess.run([python, "-c", MXNET_CODE, rec, str(batch), str(threads), "2"], check=True,
                         capture_output=True, text=True)
    rates, cpus = json.loads(out.stdout.strip().splitlines()[-1])
    if cpu is not None:
        cpu.append(cpus[-1])
    return rates[-1]  # the first epoch warms up the reader threads


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python")
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--thread-pool", action="store_true",
                        help="DataLoader(thread_pool=True): worker threads instead of processes")
    parser.add_argument("--normalize", choices=("sample", "batch", "worker"), default="sample",
                        help="cast + normalize + HWC->CHW per sample (augmenters), per batch in the "
                        "loop that takes it, or per batch in the workers' batchify_fn")
    args = parser.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="bench_image_")
    prefix = os.path.join(tmp, "bench")
    write_records(prefix, args.images)
    rec = prefix + ".rec"
    print("%d JPEGs %dx%d in %s (%d bytes); batch %d; %d worker %s vs %d preprocess_threads; normalized per %s"
          % (args.images, W, H, rec, os.path.getsize(rec), args.batch_size, args.workers,
             "threads" if args.thread_pool else "processes", max(1, args.workers), args.normalize))
    per_sample = args.normalize == "sample"
    loader = neogluon_loader(rec, args.batch_size, args.workers, args.thread_pool, per_sample,
                             worker_batchify if args.normalize == "worker" else None)
    finish = finish_batch if args.normalize == "batch" else None
    time_epoch(loader, finish=finish)  # warm-up: worker start, first decode
    ours, theirs, ratios, our_cpu, their_cpu = [], [], [], [], []
    for r in range(args.rounds):
        a = time_epoch(loader, our_cpu, finish)
        b = mxnet_epoch(args.mxnet, rec, args.batch_size, max(1, args.workers), their_cpu)
        ours.append(a)
        theirs.append(b)
        ratios.append(a / b)
        print("round %d: neogluon %7.1f img/s   MXNet %7.1f img/s   ratio %.2f" % (r + 1, a, b, a / b))
    print("neogluon ImageRecordDataset+DataLoader: median %.1f img/s (min %.1f, max %.1f)"
          % (statistics.median(ours), min(ours), max(ours)))
    print("MXNet 1.9.1 ImageRecordIter:            median %.1f img/s (min %.1f, max %.1f)"
          % (statistics.median(theirs), min(theirs), max(theirs)))
    print("ratio neogluon / MXNet: median %.2f (min %.2f, max %.2f)"
          % (statistics.median(ratios), min(ratios), max(ratios)))
    if args.workers == 0:  # all of neogluon's work is in this process: its CPU time is comparable
        print("CPU time per image: neogluon median %.3f ms, MXNet (1 thread) median %.3f ms"
              % (statistics.median(our_cpu) * 1e3, statistics.median(their_cpu) * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
