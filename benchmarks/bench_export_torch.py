"""The exported PyTorch module (eager and torch.compile) vs neogluon hybridized (vs MXNet 1.9.1).

    python benchmarks/bench_export_torch.py [--rounds 7] [--mxnet /work/mxref/bin/python]

Inference (predict mode, no autograd) on ResNet-18 (224x224, batch 1 and 8) and on the
BERT-style encoder of the tests (tests/export_torch_models.py at 4 layers, 256 units,
4 heads, batch 8 x 64 tokens). Per workload the model is built and initialised in
neogluon, hybridized, written by ``export_torch`` and loaded back from the generated file
(``exported eager``), and that module is also put through ``torch.compile``
(``exported compiled``, its first call reported). With ``--mxnet``, the same graph and
weights (``HybridBlock.export``) run in MXNet 1.9.1 in a worker process
(``SymbolBlock.imports``, hybridized). In each round every variant runs ``--calls`` passes
in turn, one after the other, and keeps its best pass; the reported ratios are the median
and min-max over rounds of each round's ratio to neogluon hybridized (above 1: faster than
neogluon), so a shared machine's drifts cancel. Outputs are checked equal first.
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
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))  # the encoder, shared with the tests

import neogluon as mx  # noqa: E402
from neogluon.executor.torch_export import load_module  # noqa: E402


def resnet18():
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    net.initialize(mx.init.Xavier())
    return net


def encoder():
    from export_torch_models import BertEncoder
    net = BertEncoder(vocab=1000, units=256, heads=4, layers=4, max_len=128)
    net.initialize(mx.init.Xavier())
    return net


def resnet_inputs(batch):
    return [np.random.RandomState(0).uniform(-1, 1, (batch, 3, 224, 224)).astype("float32")]


def encoder_inputs(batch):
    rng = np.random.RandomState(0)
    return [rng.randint(0, 1000, (batch, 64)).astype("float32"), rng.randint(1, 65, (batch,)).astype("float32")]


WORKLOADS = {
    "ResNet-18 b1": (resnet18, resnet_inputs, 1),
    "ResNet-18 b8": (resnet18, resnet_inputs, 8),
    "encoder b8x64": (encoder, encoder_inputs, 8),
}

MX_WORKER = r"""
import json, sys, time, warnings
import numpy as np, mxnet as mx
warnings.simplefilter("ignore")
prefix, n = sys.argv[1], int(sys.argv[2])
inputs = [mx.nd.array(a) for a in np.load(prefix + "-inputs.npz").values()]
names = ["data"] if n == 1 else ["data%d" % i for i in range(n)]
net = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", names, prefix + "-0000.params")
net.hybridize(static_alloc=True, static_shape=True)
out = net(*inputs)
np.save(prefix + "-mxnet-out.npy", out.asnumpy())
print("ready", flush=True)
for line in sys.stdin:
    times = []
    for _ in range(int(line)):
        t = time.perf_counter()
        net(*inputs).wait_to_read()
        times.append(time.perf_counter() - t)
    print(json.dumps(times), flush=True)
"""


def variants(make, make_inputs, batch, work, mxnet, compile_=True):
    """name -> callable(passes) -> best seconds; and the compiled variant's first call."""
    net = make()
    arrays = make_inputs(batch)
    xs = [mx.nd.array(a) for a in arrays]
    net.hybridize()
    ref = net(*xs)
    prefix = os.path.join(work, "model")
    files = net.export_torch(work, *xs, name="model")
    module = load_module(files["py"]).eval()
    module.load_state_dict(torch.load(files["pt"]))
    ts = [x._t for x in xs]
    with torch.no_grad():
        np.testing.assert_allclose(module(*ts).numpy(), ref.asnumpy(), rtol=1e-5, atol=1e-5)
        compiled = torch.compile(module) if compile_ else None
        start = time.perf_counter()
        if compile_:
            compiled(*ts)
        first = time.perf_counter() - start

    def timed(f):
        def run(passes):
            best = float("inf")
            for _ in range(passes):
                t = time.perf_counter()
                f()
                best = min(best, time.perf_counter() - t)
            return best
        return run

    def predict(m):
        with torch.no_grad():
            return m(*ts)

    out = {"neogluon hybridized": timed(lambda: net(*xs).wait_to_read()),
           "exported eager": timed(lambda: predict(module))}
    if compile_:
        out["exported compiled"] = timed(lambda: predict(compiled))
    if mxnet:
        net.export(prefix)
        np.savez(prefix + "-inputs.npz", *arrays)
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        proc = subprocess.Popen([mxnet, "-c", MX_WORKER, prefix, str(len(arrays))], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env)
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the MXNet worker did not start")
        np.testing.assert_allclose(np.load(prefix + "-mxnet-out.npy"), ref.asnumpy(), rtol=1e-4, atol=1e-4)

        def ask(passes):
            proc.stdin.write("%d\n" % passes)
            proc.stdin.flush()
            return min(json.loads(proc.stdout.readline()))
        out["MXNet 1.9.1 hybridized"] = ask
        out["_proc"] = proc
    return out, first


def bench(rounds, calls, mxnet, names=None, compile_=True):
    """{workload: {variant: (median ratio to neogluon, min, max, best seconds)}}, first calls."""
    results, firsts = {}, {}
    for name, (make, make_inputs, batch) in WORKLOADS.items():
        if names and name not in names:
            continue
        with tempfile.TemporaryDirectory() as work:
            fns, firsts[name] = variants(make, make_inputs, batch, work, mxnet, compile_)
            proc = fns.pop("_proc", None)
            try:
                best = {k: [] for k in fns}
                for r in range(rounds):
                    order = list(fns) if r % 2 == 0 else list(fns)[::-1]
                    for k in order:
                        best[k].append(fns[k](calls))
            finally:
                if proc is not None:
                    proc.stdin.close()
                    proc.wait()
        base = best["neogluon hybridized"]
        results[name] = {k: (statistics.median([b / v for b, v in zip(base, best[k])]),
                             min(b / v for b, v in zip(base, best[k])), max(b / v for b, v in zip(base, best[k])),
                             min(best[k])) for k in best}
    return results, firsts


def cli_rows(quick):
    """``neogluon bench``'s rows: neogluon hybridized vs the exported module in torch eager."""
    torch.set_num_threads(1)
    results, _ = bench(2 if quick else 5, 3, None, ["ResNet-18 b1", "encoder b8x64"], compile_=False)
    return {"%s, exported to torch" % k: {"hybridized": v["neogluon hybridized"][3], "torch": v["exported eager"][3]}
            for k, v in results.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=5, help="passes per variant per round (the best is kept)")
    parser.add_argument("--mxnet", nargs="?", const="/work/mxref/bin/python", default=None,
                        help="also time MXNet 1.9.1 with this interpreter (default /work/mxref/bin/python)")
    parser.add_argument("--only", action="append", choices=sorted(WORKLOADS), help="run only this workload")
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    print("inference, predict mode, %d thread(s), load average %.1f at start; speed relative to neogluon "
          "hybridized = per-round best-pass ratio, median [min-max] over %d rounds"
          % (torch.get_num_threads(), os.getloadavg()[0], args.rounds))
    results, firsts = bench(args.rounds, args.calls, args.mxnet, args.only)
    for name, rows in results.items():
        print("\n%s   (torch.compile's first call: %.1f s)" % (name, firsts[name]))
        for k, (med, lo, hi, best) in rows.items():
            print("  %-24s best %8.2f ms   speed vs neogluon hybridized %5.2fx [%4.2f-%4.2f]"
                  % (k, best * 1e3, med, lo, hi))
    print("\nload average %.1f at the end" % os.getloadavg()[0])


if __name__ == "__main__":
    main()
