"""ONNX Runtime on neogluon's ONNX export vs neogluon hybridized: ResNet-18, a BERT-style encoder and an SSD-like detector head.

    python benchmarks/bench_onnx.py [--rounds 8] [--threads 1]

The parent builds each model in neogluon (seeded weights), exports it with
``mx.onnx.export_block`` and checks that ONNX Runtime gives neogluon's outputs. Two worker
processes (this file run with ``--worker``) then load the model, one as a hybridized
neogluon block (the same parameters, from the exported ``.params``), one as an ONNX Runtime
session on the ``.onnx`` file, and warm up. The parent asks them in turn, never both at once,
to time a few forward passes, alternating which goes first from round to round; per case it
prints each one's best and median time per pass and the ONNX Runtime/neogluon ratio of every
round's medians: its median and its spread (min-max over rounds). Both workers get
``--threads`` intra-op threads (OMP/MKL for torch, ``intra_op_num_threads`` for ONNX Runtime).
Needs the ``neogluon[onnx]`` extra.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {  # name -> (model, input shapes, passes per round)
    "resnet18_v1 b1": ("resnet18", [(1, 3, 224, 224)], 10),
    "resnet18_v1 b16": ("resnet18", [(16, 3, 224, 224)], 2),
    "encoder b8 T128": ("encoder", [(8, 128), (8,)], 3),
    # anchors, box_decode, softmax and box_nms (ONNX NonMaxSuppression) on 15360 anchors x 3 classes
    "ssd_head b1 128": ("ssd_head", [(1, 3, 128, 128)], 5),
}


def _paths():
    sys.path.insert(0, os.path.join(HERE, ".."))
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))


def build(kind):
    """The neogluon block of a case, hybridized, with seeded parameters."""
    _paths()
    import numpy as np
    import neogluon as mx
    from onnx_nets import Encoder, ssd_head
    if kind == "ssd_head":
        data = mx.sym.var("data")
        net = mx.gluon.SymbolBlock(ssd_head(data), [data])
        net.initialize(mx.init.Normal(0.3))
        net.hybridize()
        return net, mx, np
    if kind == "resnet18":
        net = mx.gluon.model_zoo.vision.resnet18_v1()
    else:
        net = Encoder(vocab=1000, units=256, heads=4, hidden=1024, layers=4, max_len=128)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    return net, mx, np


def inputs_for(np, shapes, kind):
    rng = np.random.RandomState(0)
    if kind in ("resnet18", "ssd_head"):
        return [rng.uniform(-1, 1, shapes[0]).astype(np.float32)]
    return [rng.randint(0, 1000, shapes[0]).astype(np.float32),
            rng.randint(shapes[0][1] // 2, shapes[0][1] + 1, shapes[1]).astype(np.float32)]


def worker(lib, kind, shapes, prefix, threads):
    """Serve timing requests on stdin: a line ``<passes>`` answers with the JSON list of the
    seconds each pass took."""
    shapes = json.loads(shapes)
    if lib == "neogluon":
        net, mx, np = build(kind)
        xs = [mx.nd.array(a) for a in inputs_for(np, shapes, kind)]
        net(*xs)
        net.load_parameters(prefix + ".params")

        def run():
            out = net(*xs)
            for o in out if isinstance(out, (list, tuple)) else [out]:
                o.wait_to_read()
    else:
        import numpy as np
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        sess = ort.InferenceSession(prefix + ".onnx", opts, providers=["CPUExecutionProvider"])
        feeds = {i.name: a for i, a in zip(sess.get_inputs(), inputs_for(np, shapes, kind))}

        def run():
            sess.run(None, feeds)
    for _ in range(3):
        run()
    print("ready", flush=True)
    for line in sys.stdin:
        times = []
        for _ in range(int(line)):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)


def export(kind, shapes, prefix):
    """Export the case's model and check ONNX Runtime against neogluon (rtol 1e-4)."""
    net, mx, np = build(kind)
    xs = inputs_for(np, shapes, kind)
    want = net(*[mx.nd.array(a) for a in xs])
    want = [w.asnumpy() for w in (want if isinstance(want, (list, tuple)) else [want])]
    net.save_parameters(prefix + ".params")
    mx.onnx.export_block(net, prefix + ".onnx", in_shapes=shapes)
    from onnx_nets import ort_run
    for got, w in zip(ort_run(prefix + ".onnx", xs), want):
        np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-4 * float(np.abs(w).max()))


def start(lib, kind, shapes, prefix, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", lib, kind, json.dumps(shapes),
                             prefix, str(threads)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if line != "ready":
        raise RuntimeError("the %s worker did not start (%r)" % (lib, line))
    return proc


def ask(proc, passes):
    proc.stdin.write("%d\n" % passes)
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases")
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        lib, kind, shapes, prefix, threads = args.worker
        worker(lib, kind, shapes, prefix, int(threads))
        return
    print("load before: %s" % os.getloadavg().__repr__())
    tmp = tempfile.mkdtemp(prefix="bench_onnx")
    for name in args.case or CASES:
        kind, shapes, passes = CASES[name]
        prefix = os.path.join(tmp, name.replace(" ", "_"))
        export(kind, shapes, prefix)
        procs = {lib: start(lib, kind, shapes, prefix, args.threads) for lib in ("neogluon", "onnxruntime")}
        times = {lib: [] for lib in procs}
        ratios = []
        for r in range(args.rounds):
            order = ("neogluon", "onnxruntime") if r % 2 == 0 else ("onnxruntime", "neogluon")
            medians = {}
            for lib in order:
                t = ask(procs[lib], passes)
                times[lib] += t
                medians[lib] = statistics.median(t)
            ratios.append(medians["onnxruntime"] / medians["neogluon"])
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
        print("%-18s neogluon best %.2f ms median %.2f ms | onnxruntime best %.2f ms median %.2f ms | "
              "ORT/neogluon %.2f (spread %.2f-%.2f over %d rounds)" % (
                  name, 1e3 * min(times["neogluon"]), 1e3 * statistics.median(times["neogluon"]),
                  1e3 * min(times["onnxruntime"]), 1e3 * statistics.median(times["onnxruntime"]),
                  statistics.median(ratios), min(ratios), max(ratios), args.rounds), flush=True)
    print("load after: %s" % os.getloadavg().__repr__())


if __name__ == "__main__":
    main()
