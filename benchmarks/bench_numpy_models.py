"""np-style models (an LSTM language model, the d2l book's pieces): a training step on
neogluon vs MXNet 1.9.1, timed alternately.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_numpy_models.py --mxnet /work/mxref/bin/python [--rounds 15]

The models, parameters and batches are those of tests/test_numpy_models.py
(``tests/fixtures/extra/numpy_models``): small (vocabulary 12, widths 6 to 16, batch 4), so
a step measures the np/npx front end, the Gluon blocks and autograd more than the kernels.
A step is the loss under ``autograd.record()``, ``backward`` and an SGD update. MXNet runs
in a worker process (its interpreter from ``--mxnet``) that times the same step on
request; each round times every case on neogluon then on MXNet, back to back, and the
reported ratio (neogluon / MXNet time) is the median over rounds of the ratio within a
round, with its interquartile range (the drift of a shared machine cancels within a round),
beside the ratio of the best times.
"""
import argparse
import importlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "tests", "fixtures", "extra", "numpy_models")


def closures(lib):
    """{case label: a function doing one training step} for ``lib`` ('neogluon' or 'mxnet')."""
    import numpy as onp
    mx = importlib.import_module(lib)
    np, npx, autograd, gluon = mx.np, mx.npx, mx.autograd, mx.gluon
    nn, rnn = gluon.nn, gluon.rnn
    npx.set_np()
    env = dict(np=np, npx=npx, nn=nn, rnn=rnn, gluon=gluon, autograd=autograd, math=math)
    exec(open(os.path.join(MODELS, "models.py.txt")).read(), env)  # pylint: disable=exec-used
    out = {}
    for case, spec in env["CASES"].items():
        for hybridize in (False, True) if spec.get("hybridizable") else (False,):
            rec = dict(onp.load(os.path.join(MODELS, case + ".npz")))
            data = [np.array(rec["x%d" % j], dtype=rec["x%d" % j].dtype)
                    for j in range(sum(k.startswith("x") for k in rec))]
            net, scratch = spec["build"]()
            net.initialize()
            if hybridize:
                net.hybridize()
            env["first_forward"](case, net, data)
            params = env["set_parameters"](net, scratch, {k[2:]: v for k, v in rec.items() if k.startswith("p:")})
            trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1e-3}) \
                if params is None and len(net.collect_params().keys()) else None

            def step(net=net, case=case, data=data, params=params, trainer=trainer):
                with autograd.record():
                    loss = env["CASES"][case]["loss"](net, *data)
                loss.backward()
                if params is not None:
                    for p in params:
                        p -= 1e-3 * p.grad
                elif trainer is not None:
                    trainer.step(1)
            out[case + (" (hybridized)" if hybridize else "")] = step
    return out, mx.nd.waitall


def timed(fn, number, sync):
    """Seconds per call; ``sync`` waits for all pending work (MXNet runs asynchronously)."""
    sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return (time.perf_counter() - t0) / number


def worker():
    """Time the step of the case named on each stdin line (``label<TAB>number``)."""
    steps, sync = closures("mxnet")
    for fn in steps.values():
        fn()
    print(json.dumps(sorted(steps)), flush=True)
    for line in sys.stdin:
        label, number = line.rstrip("\n").split("\t")
        print(timed(steps[label], int(number), sync), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", required=True, help="a Python interpreter with MXNet 1.9.1")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=5, help="steps per timing")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    proc = subprocess.Popen([args.mxnet, __file__, "--mxnet", args.mxnet, "--worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    labels = json.loads(proc.stdout.readline())
    ours, sync = closures("neogluon")
    for fn in ours.values():
        fn()
    samples = {label: [] for label in labels}
    for _ in range(args.rounds):
        for label in labels:
            t_ng = timed(ours[label], args.number, sync)
            proc.stdin.write("%s\t%d\n" % (label, args.number))
            proc.stdin.flush()
            t_mx = float(proc.stdout.readline())
            samples[label].append((t_ng, t_mx))
    proc.stdin.close()
    proc.wait()
    print("load: %s" % os.getloadavg().__repr__())
    head = "%-36s %12s %12s %8s %16s %10s" % ("training step", "neogluon", "MXNet 1.9.1", "ratio", "ratio IQR",
                                             "best/best")
    print(head)
    print("-" * len(head))
    for label in labels:
        ratios = sorted(a / b for a, b in samples[label])
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        best_ng, best_mx = min(a for a, _ in samples[label]), min(b for _, b in samples[label])
        print("%-36s %10.2fms %10.2fms %8.2f %7.2f - %5.2f %10.2f" % (
            label, best_ng * 1e3, best_mx * 1e3, statistics.median(ratios), q[0], q[2], best_ng / best_mx))


if __name__ == "__main__":
    main()
