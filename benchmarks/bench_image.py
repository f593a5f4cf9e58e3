"""Image input pipeline throughput: JPEG decode + augment + batch, neogluon vs MXNet 1.9.1.

    python benchmarks/bench_image.py [--mxnet /work/mxref/bin/python] [--images 512] [--rounds 5]
                                     [--epochs 3] [--workers 2] [--batch-size 32] [--thread-pool]
                                     [--normalize sample|batch|worker] [--pipeline augmenters|transforms]
                                     [--baseline OTHER_TREE] [--under-load]

It writes ``--images`` JPEGs (160x120, quality 90, drawn noise and shapes) into a .rec/.idx
with ``mx.recordio``, then times full epochs of the same pipeline:

- neogluon: ``gluon.data.vision.ImageRecordDataset`` + ``transform_first`` with mx.image's
  augmenters (resize the short side to 112 bilinear, random 96x96 crop, random mirror, cast,
  ImageNet mean/std), HWC -> CHW, batched by a ``gluon.data.DataLoader`` with ``--workers``
  worker processes (0: in the main process; ``--thread-pool``: worker threads). With
  ``--pipeline transforms`` the per-sample work is gluon's transforms instead (``Resize(112,
  keep_ratio=True)``, ``RandomCrop(96)``, ``RandomFlipLeftRight``, ``ToTensor``, ``Normalize``
  with the mean/std over 255: the same float32 values up to rounding), as most Gluon scripts
  write it. With ``--normalize batch`` the samples stay uint8 HWC after the mirror and each
  batch is cast, transposed to NCHW and normalized (``nd.image.normalize``) in the loop that
  takes it (the same float32 values: ``(pixel - mean) / std``; the time counted);
  ``--normalize worker`` does the same per batch in the DataLoader's ``batchify_fn``, i.e. in
  the workers;
- MXNet 1.9.1: ``mx.io.ImageRecordIter`` (its C++ decoder and augmenter) with the same
  settings and ``preprocess_threads=--workers`` (at least 1), in a subprocess of ``--mxnet``;
- with ``--baseline TREE``: the neogluon pipeline again, importing neogluon from another
  source tree (e.g. ``/work/main``: before/after a change in one run).

Each round runs every contender in a fresh process (one warm-up epoch, which starts the
workers and fills the caches, then ``--epochs`` timed epochs), in an order that rotates from
round to round, so that the load of a shared machine hits all alike; the report gives images/s
per round, the median, the spread (min-max) and the median of the per-round ratios. Less
sensitive to the load: the CPU time per image of each (neogluon: the parent's and its worker
processes' together, and the parent's per batch; MXNet: its process, all threads), and the
load average before and after. ``--under-load`` runs a CPU-bound neighbour (torch matmuls on
one thread, as ``bench_workloads.py --under-load``) through all rounds: one of the 2 cores
taken by another job.
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

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)

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
for e in range(epochs + 1):  # the first epoch warms up the reader threads
    it.reset()
    start, cpu0, n = time.perf_counter(), time.process_time(), 0
    for b in it:
        b.data[0].wait_to_read()
        n += batch - b.pad
    rates.append(n / (time.perf_counter() - start))
    cpu.append((time.process_time() - cpu0) / n)
print(json.dumps({"rates": rates[1:], "cpu": cpu[1:]}))
""" % dict(crop=CROP, resize=RESIZE, m0=MEAN[0], m1=MEAN[1], m2=MEAN[2], s0=STD[0], s1=STD[1], s2=STD[2])

# a CPU-bound neighbour for --under-load (bench_workloads.py's): one core busy with torch matmuls
NEIGHBOUR = r"""
import torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a)
"""


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


def gluon_transforms():
    """The same pipeline with gluon's transforms, per sample (``--pipeline transforms``)."""
    from neogluon.gluon.data.vision import transforms
    return transforms.Compose([
        transforms.Resize(RESIZE, keep_ratio=True), transforms.RandomCrop(CROP), transforms.RandomFlipLeftRight(),
        transforms.ToTensor(), transforms.Normalize([m / 255 for m in MEAN], [s / 255 for s in STD])])


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


def neogluon_loader(rec, batch, workers, thread_pool=False, per_sample=True, batchify_fn=None,
                    pipeline="augmenters"):
    from neogluon import gluon
    transform = gluon_transforms() if pipeline == "transforms" and per_sample else Augment(per_sample)
    ds = gluon.data.vision.ImageRecordDataset(rec).transform_first(transform)
    return gluon.data.DataLoader(ds, batch_size=batch, num_workers=workers, last_batch="keep",
                                 thread_pool=thread_pool, batchify_fn=batchify_fn)


def _cpu_seconds(pid):
    """User + system CPU seconds of process ``pid`` so far (/proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


def neogluon_worker(args):
    """One contender's run (a fresh process): a warm-up epoch, then ``--epochs`` timed ones;
    JSON images/s, CPU seconds per image (the parent and its worker processes) and the
    parent's CPU seconds per batch."""
    loader = neogluon_loader(args.rec, args.batch_size, args.workers, args.thread_pool, args.normalize == "sample",
                             worker_batchify if args.normalize == "worker" else None, args.pipeline)
    finish = finish_batch if args.normalize == "batch" else None
    time_epoch(loader, finish=finish)  # warm-up: worker start, first decode, caches
    pool = getattr(loader, "_worker_pool", None)
    kids = [p.pid for p in pool._pool] if pool is not None and not args.thread_pool else []
    rates, cpu, parent = [], [], []
    for _ in range(args.epochs):
        before = [_cpu_seconds(k) for k in kids]
        own = []
        rates.append(time_epoch(loader, own, finish))
        work = sum(_cpu_seconds(k) - b for k, b in zip(kids, before)) / args.images
        cpu.append(own[0] + work)
        parent.append(own[0] * args.batch_size)
    print(json.dumps({"rates": rates, "cpu": cpu, "parent": parent}))


def run_contender(name, args, rec):
    if name == "MXNet":
        cmd = [args.mxnet, "-c", MXNET_CODE, rec, str(args.batch_size), str(max(1, args.workers)), str(args.epochs)]
        env = dict(os.environ)
    else:
        tree = TREE if name == "neogluon" else os.path.abspath(args.baseline)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", rec, "--images", str(args.images),
               "--epochs", str(args.epochs), "--workers", str(args.workers), "--batch-size", str(args.batch_size),
               "--normalize", args.normalize, "--pipeline", args.pipeline] + (["--thread-pool"] if args.thread_pool
                                                                              else [])
        env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _spread(values, fmt="%.1f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(values), min(values), max(values))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python")
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3, help="timed epochs per contender and round")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--thread-pool", action="store_true",
                        help="DataLoader(thread_pool=True): worker threads instead of processes")
    parser.add_argument("--normalize", choices=("sample", "batch", "worker"), default="sample",
                        help="cast + normalize + HWC->CHW per sample (augmenters), per batch in the "
                        "loop that takes it, or per batch in the workers' batchify_fn")
    parser.add_argument("--pipeline", choices=("augmenters", "transforms"), default="augmenters",
                        help="per-sample work with mx.image's augmenters or gluon's transforms")
    parser.add_argument("--baseline", help="another neogluon source tree to time alternately (e.g. /work/main)")
    parser.add_argument("--under-load", action="store_true", help="time beside a CPU-bound neighbour process")
    parser.add_argument("--worker", metavar="REC", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        args.rec = args.worker
        return neogluon_worker(args)
    sys.path.insert(0, TREE)
    tmp = tempfile.mkdtemp(prefix="bench_image_")
    prefix = os.path.join(tmp, "bench")
    write_records(prefix, args.images)
    rec = prefix + ".rec"
    per = "per sample (%s)" % args.pipeline if args.normalize == "sample" else "per batch in the %s" % (
        "workers" if args.normalize == "worker" else "loop")
    print("%d JPEGs %dx%d (%d bytes); batch %d; %d worker %s vs %d preprocess_threads; normalized %s; %d epochs "
          "per round%s" % (args.images, W, H, os.path.getsize(rec), args.batch_size, args.workers,
                           "threads" if args.thread_pool else "processes", max(1, args.workers), per, args.epochs,
                           "; beside a CPU-bound neighbour" if args.under_load else ""))
    names = ["neogluon"] + (["baseline"] if args.baseline else []) + ["MXNet"]
    load = [open("/proc/loadavg").read().split()[0]]
    neighbour = None
    if args.under_load:
        neighbour = subprocess.Popen([sys.executable, "-c", NEIGHBOUR], env=dict(os.environ, OMP_NUM_THREADS="1"))
        time.sleep(1.0)
    got = {n: {"rates": [], "cpu": [], "parent": []} for n in names}
    ratios = {n: [] for n in names[:-1]}
    vs_baseline = []
    try:
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            res = {n: run_contender(n, args, rec) for n in order}
            for n in names:
                for k in got[n]:
                    got[n][k].extend(res[n].get(k, []))
            rate = {n: statistics.median(res[n]["rates"]) for n in names}
            for n in ratios:
                ratios[n].append(rate[n] / rate["MXNet"])
            if args.baseline:
                vs_baseline.append(rate["neogluon"] / rate["baseline"])
            print("round %d: " % (r + 1) + "   ".join("%s %7.1f img/s" % (n, rate[n]) for n in names)
                  + "   " + "   ".join("%s/MXNet %.2f" % (n, ratios[n][-1]) for n in ratios))
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    load.append(open("/proc/loadavg").read().split()[0])
    for n in names:
        print("%-9s images/s per epoch: median (min-max) %s; CPU per image %s ms%s"
              % (n, _spread(got[n]["rates"]), _spread([c * 1e3 for c in got[n]["cpu"]], "%.3f"),
                 "; parent CPU per batch %s ms" % _spread([c * 1e3 for c in got[n]["parent"]], "%.2f")
                 if got[n]["parent"] else ""))
    for n in ratios:
        print("ratio %s / MXNet (per round): median %s" % (n, _spread(ratios[n], "%.2f")))
    if vs_baseline:
        print("ratio neogluon / baseline (per round): median %s" % _spread(vs_baseline, "%.2f"))
    print("load average (1 min) before %s, after %s" % tuple(load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
