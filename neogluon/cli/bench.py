"""``neogluon bench``: the benchmarks in benchmarks/, quickly, as one table.

Each row is one case of benchmarks/bench_ndarray.py (per-call overhead of mx.nd),
bench_executor.py (the tutorial's LeNet as a bound symbol), bench_gluon.py (LeNet and an
MLP as Gluon blocks, inference and a training step) and bench_rnn.py (hybridized LSTM
language models), with
its time in neogluon imperative, neogluon hybridized and raw torch ("-" where a column
does not apply). A benchmark module may define ``cli_rows(quick)`` returning
``{case: {"imperative": s, "hybridized": s, "torch": s}}``; the ones above without it are
read through their own functions. It may also accept ``mxnet``, ``under_load`` and
``threads`` (``--mxnet PYTHON``, ``--under-load``, ``--threads``): bench_workloads.py (issue
17's suite: ``neogluon bench --only workloads --full --mxnet /work/mx19/bin/python``) does,
and prints its own detailed table (variants, ratios to MXNet 1.9.1 and torch.compile, first
call, peak memory, slowdown under load) before the common one.
"""
import datetime
import functools
import importlib.util
import os
import platform
import sys

from .errors import CLIError

COLUMNS = ("imperative", "hybridized", "torch")
DEFAULT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "benchmarks")


def add_arguments(parser):
    parser.add_argument("--dir", default=DEFAULT_DIR, help="the benchmarks directory (default: the repository's)")
    parser.add_argument("--only", action="append", metavar="NAME", default=[],
                        help="run only bench_NAME.py (repeatable), e.g. --only ndarray")
    parser.add_argument("--full", action="store_true", help="more rounds: slower, steadier numbers")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1; 0: neogluon's own choice, adapted to the free cores)")
    parser.add_argument("--mxnet", metavar="PYTHON",
                        help="an interpreter with MXNet 1.9.1 (e.g. /work/mx19/bin/python): benchmarks that "
                             "accept it (bench_workloads.py) run the same workloads on MXNet alternately")
    parser.add_argument("--under-load", action="store_true",
                        help="benchmarks that accept it (bench_workloads.py) also time beside a CPU-bound process")


def run(args):
    import torch
    scripts = _find(args.dir, args.only)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    print(machine_note(args.threads))
    from .progress import progress
    rows = []
    bar = progress(scripts, desc="benchmarks", unit="script")
    for name, path in bar:
        module = _load(name, path)
        if hasattr(module, "cli_rows"):
            results = _with_options(module.cli_rows, args)
        elif name in READERS:
            results = functools.partial(READERS[name], module)
        else:
            bar.write("(skipped %s: it defines no cli_rows(quick))" % os.path.basename(path), file=sys.stderr)
            continue
        bar.write("running %s ..." % os.path.basename(path), file=sys.stderr)
        rows.extend((name, case, times) for case, times in results(not args.full).items())
    print(format_table(rows))
    return 0


def _with_options(fn, args):
    """``fn(quick)`` with the options among ``mxnet``, ``under_load``, ``threads`` that it accepts."""
    import inspect
    accepted = inspect.signature(fn).parameters
    extra = {k: getattr(args, k) for k in ("mxnet", "under_load", "threads") if k in accepted}
    return functools.partial(fn, **extra)


def machine_note(threads):
    """One line: date, CPU, cores, torch and Python versions."""
    import torch
    import neogluon
    return "%s  %s, %d cores (torch threads: %d), torch %s, Python %s, neogluon %s" % (
        datetime.date.today().isoformat(), cpu_name(), os.cpu_count() or 0, threads, torch.__version__,
        platform.python_version(), neogluon.__version__)


def format_table(rows):
    """The rows as a fixed-width table, times in microseconds, with hybridized/imperative and
    hybridized/torch ratios where both exist."""
    lines = ["%-9s %-28s %12s %12s %12s %8s %8s" % ("bench", "case", "imperative", "hybridized", "raw torch",
                                                  "hyb/imp", "best/torch")]
    for bench, case, times in rows:
        cells = ["%10.1fus" % (times[c] * 1e6) if times.get(c) else "%12s" % "-" for c in COLUMNS]
        ours = times.get("hybridized") or times.get("imperative")
        paired = times.get("paired", {})  # medians of per-round ratios, where a bench gives them
        hyb_imp = paired.get("hybridized/imperative") or (
            times["hybridized"] / times["imperative"] if times.get("hybridized") and times.get("imperative") else None)
        best_torch = paired.get("hybridized/torch") or (ours / times["torch"] if ours and times.get("torch") else None)
        ratio_imp = "%7.2fx" % hyb_imp if hyb_imp else "%8s" % "-"
        ratio_torch = "%7.2fx" % best_torch if best_torch else "%8s" % "-"
        lines.append("%-9s %-28s %s %s %s" % (bench, case[:28], " ".join(cells), ratio_imp, ratio_torch))
    return "\n".join(lines)


def _find(directory, only):
    if not os.path.isdir(directory):
        raise CLIError("no benchmarks directory at %s (run from a clone of the repository, or give --dir)"
                       % directory)
    found = {f[len("bench_"):-3]: os.path.join(directory, f) for f in sorted(os.listdir(directory))
             if f.startswith("bench_") and f.endswith(".py")}
    unknown = [n for n in only if n not in found]
    if unknown:
        raise CLIError("--only %s: no bench_%s.py in %s (there are: %s)"
                       % (unknown[0], unknown[0], directory, ", ".join(found) or "none"))
    return [(n, found[n]) for n in (only or found)]


def _load(name, path):
    spec = importlib.util.spec_from_file_location("neogluon_bench_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_name():
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ndarray_rows(module, quick):
    number, rounds = (300, 3) if quick else (2000, 15)
    return {case: {"imperative": t_nd, "torch": t_torch}
            for case, (t_nd, t_torch) in module.run("neogluon", number, rounds).items()}


def _executor_rows(module, quick):
    """LeNet as a bound symbol: Executor.forward vs the same operators through mx.nd vs torch."""
    import numpy as np
    import neogluon as mx
    rows = {}
    for batch in (1, 64):
        ex = module.lenet_symbol().simple_bind(mx.cpu(), grad_req="null", data=(batch, 1, 28, 28),
                                               fc3_weight=(10, 84))
        rs = np.random.RandomState(0)
        for arr in ex.arg_dict.values():
            arr[:] = mx.nd.array(rs.uniform(-0.1, 0.1, arr.shape))
        params = ex.arg_dict
        tensors = {k: v._t for k, v in params.items()}
        repeat = (20 if quick else 60) if batch == 1 else (5 if quick else 10)
        times = module.timeit({"imperative": lambda: module.lenet_nd(params), "hybridized": ex.forward,
                               "torch": lambda: module.lenet_torch(tensors)}, repeat, rounds=5 if quick else 15)
        rows["LeNet symbol b%d infer" % batch] = times
    return rows


def _gluon_rows(module, quick):
    return module.run("neogluon", quick)


def _rnn_rows(module, quick):
    """The hybridized LSTM language models (fused layer, unrolled cell) vs torch."""
    rounds, repeat = (2, 1) if quick else (15, 3)
    rows = {}
    for kind, steps, label in (("fused", 35, "fused LSTM 2x256 T=35"), ("cell", 20, "LSTMCell unrolled 20")):
        ms = module.measure(kind, steps, rounds, repeat, module.CLOCKS["wall"])
        for mode, short in (("inference", "infer"), ("train step", "train")):
            rows["%s %s" % (label, short)] = {"hybridized": ms[(mode, "neogluon")] / 1e3,
                                               "torch": ms[(mode, "torch")] / 1e3}
    return rows


READERS = {"ndarray": _ndarray_rows, "executor": _executor_rows, "gluon": _gluon_rows, "rnn": _rnn_rows}
