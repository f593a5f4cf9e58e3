"""Per-layer times of ResNet-18 batch-1 prediction: neogluon's frozen compiled graph against
MXNet 1.9.1's ``hybridize(backend='MKLDNN')``, from oneDNN's own execution log.

    python benchmarks/bench_layers.py [--mxnet /work/mxvenv/bin/python] [--threads 1 2] [--calls 30]

Both libraries run their convolutions (and the classifier's inner product) as oneDNN
primitives; with ``ONEDNN_VERBOSE=1`` (oneDNN 3.x, torch) / ``DNNL_VERBOSE=1`` (oneDNN 2.4,
MXNet 1.9.1) oneDNN prints each execution with its wall time, which reaches the kernels
inside an AOTInductor package that torch's profiler does not see. Each library runs in a
child process with ``OMP_NUM_THREADS`` fixed, warms up, then makes ``--calls`` timed calls;
the table gives, per layer shape (convolutions of the same shape and post-op summed per
call), the median and the minimum over the calls, and the totals. The minimum is what the
kernel does when nothing else ran on the machine during it (a shared machine's other jobs
make the medians of two-thread runs meaningless: then read the minima). What oneDNN does
not run (inductor's pooling and layout kernels, MXNet's engine) is not in the table: the
totals are the oneDNN part of a call.

Measured 2026-11-28 (load 3-5 from other engineers' jobs; one thread, medians; two threads,
minima), ms per call::

    layer (per call)                 neogluon 1t  MXNet 1t  neogluon 2t (min)
    conv1 7x7 s2                         1.50       1.44        0.86
    64 @ 56x56, 4 convs                  5.40       4.88        2.68
    128 @ 28x28, 3 convs                 3.86       3.59        2.11
    256 @ 14x14, 3 convs                 3.92       3.82        2.08
    512 @ 7x7, 3 convs                   6.03       5.89        3.19
    strided 3x3 (3) + 1x1 (3) convs      2.84       2.59        1.58
    classifier                           0.20       0.18        0.11
    total                               23.75      22.38       12.60

At one thread the two oneDNN versions are within 10% per layer (MXNet's oneDNN 2.4 is 7-11%
faster at 56x56 and 28x28), and near this core's peak (85-99 GMAC/s) except at 7x7, where
each 512x512 convolution streams 9.4 MB of weights from memory (the network's 47 MB of
weights do not stay in the cache between calls: 2.0 ms in the network, 1.3 ms with its
weights cached, benchmarks of the kernel alone). At two threads the convolutions scale
1.75-1.9x; their minima already sum to 12.6 ms, so the 12.7 ms target of issue 17 (1.8x
MKLDNN's 23 ms) needs less arithmetic (Winograd), not a better thread split of oneDNN.
"""
import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = "=====timed calls"

_CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import {lib} as mx
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    net.initialize(mx.init.Xavier())
    net.hybridize({hybridize})
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)).astype("float32"))
    for _ in range(10):
        net(x).wait_to_read()
    print({mark!r}, flush=True)
    for _ in range({calls}):
        net(x).wait_to_read()
""")


def run_child(python, lib, threads, calls, env_extra):
    """The oneDNN log lines of ``calls`` timed calls of the library ``lib`` (a module name)."""
    hybridize = "backend='MKLDNN', static_alloc=True, static_shape=True" if lib == "mxnet" else \
        "static_alloc=True, static_shape=True"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **env_extra)
    if lib != "mxnet":
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    src = _CHILD.format(lib=lib, hybridize=hybridize, mark=MARK, calls=calls)
    out = subprocess.run([python, "-c", src], env=env, capture_output=True, text=True, check=True).stdout
    return out.split(MARK, 1)[1].splitlines()


def layer_times(lines, calls):
    """``{layer: (median ms per call, min ms per call)}`` from oneDNN's execution lines."""
    times = collections.OrderedDict()
    for line in lines:
        fields = line.split(",")
        if len(fields) < 5 or ",exec," not in line or not fields[0].endswith("_verbose"):
            continue
        prim = fields[5] if fields[1] == "v1" else fields[3]
        if prim not in ("convolution", "inner_product"):
            continue  # reorders and pooling: layout work, not the layers
        desc = next((f for f in fields if f.startswith("mb")), "?")
        desc = re.sub(r"dh0.*|_iw.*", "", desc).replace("_", " ")
        key = "%s%s" % (desc, " +sum" if "sum" in line else "")
        times.setdefault(key, []).append(float(fields[-1]))
    table = collections.OrderedDict()
    for key, values in times.items():
        per_call = len(values) / calls  # executions of this shape in one call
        table[key] = (statistics.median(values) * per_call, min(values) * per_call)
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with MXNet 1.9.1")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args(argv)
    for threads in args.threads:
        runs = [("neogluon", run_child(sys.executable, "neogluon", threads, args.calls, {"ONEDNN_VERBOSE": "1"}))]
        if args.mxnet:
            runs.append(("mxnet", run_child(args.mxnet, "mxnet", threads, args.calls, {"DNNL_VERBOSE": "1"})))
        tables = [(name, layer_times(lines, args.calls)) for name, lines in runs]
        print("%d thread(s), %d calls, load %s" % (threads, args.calls, open("/proc/loadavg").read().strip()))
        for name, table in tables:
            print("  %s" % name)
            for key, (med, low) in table.items():
                print("    %-42s median %7.3f ms  min %7.3f ms" % (key, med, low))
            print("    %-42s median %7.3f ms  min %7.3f ms" % ("total", sum(v[0] for v in table.values()),
                                                             sum(v[1] for v in table.values())))


if __name__ == "__main__":
    main()
