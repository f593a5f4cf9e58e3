"""Detection operators, neogluon against MXNet 1.9.1, measured alternately in one run:
box_nms on 10,000 boxes, ROIAlign on Faster R-CNN sized inputs and MultiBoxDetection on
SSD300 sized inputs (8732 anchors, 21 classes).

    python benchmarks/bench_detection.py [--mxnet /work/mxref/bin/python] [--rounds 7]

MXNet runs in a worker process of the reference interpreter (neogluon never imports it);
each round times every case once in each framework (the best of a few calls), so both
see the same machine load. Prints, per case, the median wall and process CPU time of each
and the median and range of the per-round ratios neogluon / MXNet (below 1: neogluon is
faster). On a shared machine, ``OMP_NUM_THREADS=1`` (given to both) and the CPU-time
ratios are the steadier comparison.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def boxes(rng, n, extent=1000.0, low=10.0, high=100.0):
    xy = rng.uniform(0, extent, (n, 2))
    return np.concatenate([xy, xy + rng.uniform(low, high, (n, 2))], 1)


def make_cases():
    """name -> (operator path under nd, inputs, attributes); the same numbers in both processes."""
    rng = np.random.RandomState(0)
    n = 10000
    dets = np.concatenate([rng.randint(0, 20, (n, 1)), rng.uniform(0, 1, (n, 1)), boxes(rng, n)], 1)
    dets = dets.astype("float32")[None]
    feat = rng.uniform(-1, 1, (2, 256, 38, 50)).astype("float32")
    roi_xy = rng.uniform(0, 500, (300, 2))
    rois = np.concatenate([rng.randint(0, 2, (300, 1)), roi_xy, roi_xy + rng.uniform(16, 300, (300, 2))], 1)
    rois = rois.astype("float32")
    logits = rng.uniform(-3, 3, (4, 21, 8732))
    prob = (np.exp(logits) / np.exp(logits).sum(1, keepdims=True)).astype("float32")
    loc = rng.uniform(-0.5, 0.5, (4, 8732 * 4)).astype("float32")
    anchors = (boxes(rng, 8732, extent=0.9, low=0.02, high=0.3) / 1.0).astype("float32")[None]
    return {
        "box_nms 10k boxes": ("contrib.box_nms", [dets], dict(overlap_thresh=0.5)),
        "box_nms 10k boxes per class, topk 2000": ("contrib.box_nms", [dets],
                                                   dict(overlap_thresh=0.45, id_index=0, topk=2000,
                                                        valid_thresh=0.01)),
        "ROIAlign 300 rois 7x7 sample 2": ("contrib.ROIAlign", [feat, rois],
                                           dict(pooled_size=(7, 7), spatial_scale=0.0625, sample_ratio=2)),
        "ROIAlign 300 rois 7x7 adaptive": ("contrib.ROIAlign", [feat, rois],
                                           dict(pooled_size=(7, 7), spatial_scale=0.0625)),
        "MultiBoxDetection 4 x 8732 anchors": ("contrib.MultiBoxDetection", [prob, loc, anchors],
                                               dict(nms_threshold=0.45, threshold=0.01, nms_topk=400)),
    }


def runner(mx, cases, name):
    path, inputs, attrs = cases[name]
    fn = mx.nd
    for part in path.split("."):
        fn = getattr(fn, part)
    arrays = [mx.nd.array(a) for a in inputs]

    def run():
        out = fn(*arrays, **attrs)
        (out[0] if isinstance(out, (list, tuple)) else out).wait_to_read()
    return run


def best_of(run, calls):
    """(best wall time, best process CPU time) of a few calls."""
    wall = cpu = float("inf")
    for _ in range(calls):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def worker():
    """The MXNet side: reads case names, answers the best time of a few calls."""
    import mxnet as mx  # the reference interpreter only
    cases = make_cases()
    runs = {}
    for line in sys.stdin:
        name, calls = line.rstrip("\n").rsplit("\t", 1)
        if name not in runs:
            runs[name] = runner(mx, cases, name)
            runs[name]()  # warm up
        print(json.dumps(best_of(runs[name], int(calls))), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mxnet", default="/work/mxref/bin/python", help="interpreter with MXNet 1.9.1")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import neogluon as mx
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.Popen([args.mxnet, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    cases = make_cases()
    ours = {name: runner(mx, cases, name) for name in cases}
    for run in ours.values():
        run()  # warm up
    times = {name: ([], []) for name in cases}
    for _ in range(args.rounds):
        for name in cases:
            proc.stdin.write("%s\t%d\n" % (name, args.calls))
            proc.stdin.flush()
            theirs = json.loads(proc.stdout.readline())
            times[name][0].append(best_of(ours[name], args.calls))
            times[name][1].append(theirs)
    proc.stdin.close()
    proc.wait()
    import torch
    print("torch threads: %d (OMP_NUM_THREADS=%s)" % (torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS",
                                                                                           "unset")))
    for what, k in (("wall", 0), ("CPU", 1)):
        print("\n%-40s %12s %12s %8s %17s" % ("case (%s time)" % what, "neogluon ms", "MXNet ms", "ratio",
                                              "ratio range"))
        for name, (a, b) in times.items():
            a, b = np.array(a)[:, k], np.array(b)[:, k]
            ratios = a / b
            print("%-40s %12.2f %12.2f %8.2f %8.2f - %6.2f" % (name, 1e3 * np.median(a), 1e3 * np.median(b),
                                                             np.median(ratios), ratios.min(), ratios.max()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        main()
