"""``neogluon demo``: the hybridization tutorial end to end on real data.

The tutorial's LeNet is trained twice on scikit-learn's digits from the same initial
weights and the same batch order: once imperatively, once after ``hybridize()``, batch by
batch in turn, the order alternating (so that both runs see the same machine load). The
demo prints the test accuracy and the speed-up of the hybridized run as the median of the
paired step-time ratios with its 95% interval, or, when another process made the timings
too noisy to conclude, says so instead of a number (:mod:`neogluon.cli.timing`); it exports the
hybridized model (``lenet-symbol.json``, ``lenet-0000.params``), re-imports it with
``SymbolBlock.imports`` and checks that the outputs agree, and draws the loss and accuracy
curves into ``lenet-curves.png``.
"""
import io
import os
import time

import numpy as np

from ..fileio import atomic_write
from .digits import load_digits_28
from .lenet import build_lenet
from .errors import CLIError
from .timing import describe, paired_ratio

ACCURACY_TARGET = 0.95


def add_arguments(parser):
    parser.add_argument("--epochs", type=positive_int, default=10, help="epochs of each run (default 10)")
    parser.add_argument("--batch-size", type=positive_int, default=32, help="mini-batch size (default 32)")
    parser.add_argument("--lr", type=float, default=0.002,
                        help="Adam's initial learning rate, cosine-decayed to 1%% of it (default 0.002)")
    parser.add_argument("--out", default="neogluon-demo", help="directory for the exported model and the plot "
                        "(default ./neogluon-demo)")
    parser.add_argument("--ctx", choices=("cpu", "gpu"), default="cpu", help="device to train on (default cpu)")
    parser.add_argument("--limit", type=positive_int, default=None,
                        help="train on the first N training images only (a quick smoke run)")
    parser.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the compiled backend's inference figure (its first run compiles for ~15-60 s)")


def positive_int(text):
    """argparse type: an integer >= 1."""
    value = int(text)
    if value <= 0:
        raise ValueError(text)
    return value


positive_int.__name__ = "positive integer"


def run(args):
    import neogluon as mx
    from .progress import progress
    ctx = _context(mx, args.ctx)
    x_train, y_train, x_test, y_test = load_digits_28()
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
    os.makedirs(args.out, exist_ok=True)
    print("neogluon %s demo: the hybridization tutorial's LeNet on scikit-learn's digits "
          "(%d training / %d test images, 28x28), %s" % (mx.__version__, len(x_train), len(x_test), ctx))

    data = _DigitsData(mx, ctx, x_train, y_train, x_test, y_test, args.batch_size)
    nets = _twin_nets(mx, ctx, data.x_test[:2], args.seed)
    nets["hybridized"].hybridize()
    runs = [_Run(mx, mode, net, data, args) for mode, net in nets.items()]
    for epoch in range(args.epochs):
        _train_epoch(runs, data, epoch, args, progress)
    histories = {r.mode: r.history for r in runs}

    imp, hyb = histories["imperative"], histories["hybridized"]
    print("test accuracy: imperative %.1f%%, hybridized %.1f%%%s"
          % (100 * imp["test_acc"][-1], 100 * hyb["test_acc"][-1],
             "" if hyb["test_acc"][-1] >= ACCURACY_TARGET else "  (below %d%%: train longer with --epochs)"
             % (100 * ACCURACY_TARGET)))
    training = paired_ratio(imp["step_times"], hyb["step_times"])
    print(describe(training, "speed-up of the hybridized training step"))
    inference = dict(nets)
    compiled = _compiled_twin(mx, nets["hybridized"], data.x_test[:1], args)
    if compiled is not None:
        inference["compiled"] = compiled
    single = _time_single_image(inference, data.x_test[:1])
    print(describe(paired_ratio(single["imperative"], single["hybridized"]),
                   "speed-up of hybridized inference on one image at a time"))
    if compiled is not None:
        print(describe(paired_ratio(single["hybridized"], single["compiled"]),
                       "speed-up of the compiled backend over plain hybridized inference"))

    agree = _export_and_reimport(mx, nets["hybridized"], data, args.out, ctx)
    png = _plot(histories, training, os.path.join(args.out, "lenet-curves.png"))
    print("wrote %s" % png)
    return 0 if agree else 1


def _context(mx, name):
    if name == "gpu":
        if mx.num_gpus() == 0:
            raise CLIError("--ctx gpu: no GPU is visible to torch on this machine; use --ctx cpu")
        return mx.gpu(0)
    return mx.cpu()


class _DigitsData:
    """The split as NDArrays on ``ctx``, and a DataLoader over the training part."""

    def __init__(self, mx, ctx, x_train, y_train, x_test, y_test, batch_size):
        dataset = mx.gluon.data.ArrayDataset(x_train, y_train)
        self.loader = mx.gluon.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)
        self.x_test = mx.nd.array(x_test, ctx=ctx)
        self.y_test = mx.nd.array(y_test, ctx=ctx)
        self.ctx = ctx


def _twin_nets(mx, ctx, sample, seed):
    """Two LeNets with identical initial weights, for the imperative and hybridized runs."""
    mx.random.seed(seed)
    nets = {"imperative": build_lenet(mx), "hybridized": build_lenet(mx)}
    for net in nets.values():
        net.initialize(mx.init.Xavier(), ctx=ctx)
        net(sample)  # resolve the deferred shapes
    src = list(nets["imperative"].collect_params().values())
    for dst, p in zip(nets["hybridized"].collect_params().values(), src):
        dst.set_data(p.data())
    return nets


class _Run:
    """One of the two training runs: a net, its Trainer, and what each epoch measured."""

    def __init__(self, mx, mode, net, data, args):
        self.mx, self.mode, self.net, self.data, self.args = mx, mode, net, data, args
        schedule = mx.lr_scheduler.CosineScheduler(max_update=args.epochs * len(data.loader), base_lr=args.lr,
                                                   final_lr=args.lr * 0.01)
        self.trainer = mx.gluon.Trainer(net.collect_params(), "adam",
                                        {"learning_rate": args.lr, "lr_scheduler": schedule})
        self.loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        self.history = {"loss": [], "train_acc": [], "test_acc": [], "epoch_time": [], "step_times": []}
        self.steps = 0
        self._begin_epoch()

    def _begin_epoch(self):
        self.metric, self.total_loss, self.count, self.elapsed = self.mx.metric.Accuracy(), 0.0, 0, 0.0

    def step(self, x, y):
        """One training step; its time is recorded except for the first (deferred init, tracing)."""
        mx = self.mx
        start = time.perf_counter()
        with mx.autograd.record():
            out = self.net(x)
            loss = self.loss_fn(out, y)
        loss.backward()
        self.trainer.step(x.shape[0])
        batch_loss = loss.sum().asscalar()
        seconds = time.perf_counter() - start
        if self.steps:  # the first step also pays for warm-up: left out of the times, as in the ratios
            self.elapsed += seconds
            self.history["step_times"].append(seconds)
        self.steps += 1
        self.metric.update([y], [out])
        self.total_loss += batch_loss
        self.count += x.shape[0]

    def end_epoch(self, epoch, bar):
        """Evaluate on the test split, record the epoch and print its line above the bar."""
        history, args = self.history, self.args
        history["epoch_time"].append(self.elapsed)
        history["loss"].append(self.total_loss / self.count)
        history["train_acc"].append(self.metric.get()[1])
        history["test_acc"].append(_accuracy(self.mx, self.net, self.data))
        bar.write("%-10s epoch %d/%d: loss %.4f, train accuracy %.3f, test accuracy %.3f (%.2fs of training steps)"
                  % (self.mode, epoch + 1, args.epochs, history["loss"][-1], history["train_acc"][-1],
                     history["test_acc"][-1], history["epoch_time"][-1]))
        self._begin_epoch()


def _train_epoch(runs, data, epoch, args, progress):
    """One epoch of both runs on the same batches (order fixed by the seed and epoch), each
    batch stepped by both runs back to back, which one goes first alternating."""
    np.random.seed(args.seed + epoch)  # the DataLoader's shuffling
    bar = progress(data.loader, desc="epoch %d/%d" % (epoch + 1, args.epochs), unit="batch")
    for i, (x, y) in enumerate(bar):
        x, y = x.as_in_context(data.ctx), y.as_in_context(data.ctx)
        for r in (runs if i % 2 == 0 else runs[::-1]):
            r.step(x, y)
        bar.set_postfix(loss="%.3f" % (runs[0].total_loss / runs[0].count))
    for r in runs:
        r.end_epoch(epoch, bar)


def _compiled_twin(mx, net, x, args):
    """The trained net hybridized with the compiled backend (``backend='inductor'``: torch.compile
    with frozen weights), its compilation timed (a prediction runs the plain graph at its first
    call and compiles at its second, by default in a child process: waited for here, then its
    third call takes the compiled code from the caches); None when turned off."""
    from ..executor import inductor
    if args.no_compile or not inductor.wanted({"backend": "inductor"}):
        print("compiled backend: not run (%s)" % ("--no-compile" if args.no_compile else "NEOGLUON_COMPILE=0"))
        return None
    twin = build_lenet(mx)
    twin.initialize(ctx=x.context)
    twin(x)
    for dst, src in zip(twin.collect_params().values(), net.collect_params().values()):
        dst.set_data(src.data())
    twin.hybridize(backend="inductor")
    start = time.perf_counter()
    twin(x)  # the first call runs the plain graph
    twin(x)  # the second compiles: in a child process (executor/warm.py) while the plain graph answers
    graph = twin._cached_op.compiled
    background = bool(graph.warming)
    graph.wait_warm()
    agree = np.allclose(twin(x).asnumpy(), net(x).asnumpy(), rtol=1e-4, atol=1e-5)  # compiled from the caches
    print("compiled backend (hybridize(backend='inductor')): compiling took %.1fs (%s; cached on disk for the next "
          "run); outputs %s" % (time.perf_counter() - start, "in a child process, the plain graph serving meanwhile"
                               if background else "in this process", "agree" if agree else "DO NOT AGREE"))
    return twin


def _time_single_image(nets, x, calls=10, pairs=60):
    """Seconds per prediction of one image, for each net, in ``pairs`` adjacent blocks of
    ``calls`` predictions, the order alternating (see :mod:`neogluon.cli.timing`)."""
    for net in nets.values():  # warm-up
        net(x).wait_to_read()
    modes = list(nets)
    times = {mode: [] for mode in modes}
    for i in range(pairs):
        for mode in (modes if i % 2 == 0 else modes[::-1]):
            start = time.perf_counter()
            for _ in range(calls):
                nets[mode](x).wait_to_read()
            times[mode].append((time.perf_counter() - start) / calls)
    return times


def _accuracy(mx, net, data):
    metric = mx.metric.Accuracy()
    metric.update([data.y_test], [net(data.x_test)])
    return metric.get()[1]


def _export_and_reimport(mx, net, data, out_dir, ctx):
    """Export the hybridized net, load it back with SymbolBlock.imports, compare outputs."""
    prefix = os.path.join(out_dir, "lenet")
    net.export(prefix)
    print("exported %s-symbol.json and %s-0000.params" % (prefix, prefix))
    imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params", ctx=ctx)
    expected, got = net(data.x_test).asnumpy(), imported(data.x_test).asnumpy()
    diff = float(np.max(np.abs(expected - got)))
    agree = bool(np.allclose(expected, got, rtol=1e-5, atol=1e-5))
    print("SymbolBlock.imports: the re-imported model's outputs %s (max abs difference %.1e)"
          % ("agree" if agree else "DO NOT AGREE", diff))
    return agree


def _plot(histories, training, path):
    """Loss, test accuracy and epoch time of both runs, side by side, into ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc, ax_time) = plt.subplots(1, 3, figsize=(13, 4))
    styles = {"imperative": dict(color="tab:blue", marker="o"),
              "hybridized": dict(color="tab:orange", marker="x", linestyle="--")}
    for mode, hist in histories.items():
        epochs = np.arange(1, len(hist["loss"]) + 1)
        ax_loss.plot(epochs, hist["loss"], label=mode, **styles[mode])
        ax_acc.plot(epochs, 100 * np.array(hist["test_acc"]), label=mode + " (test)", **styles[mode])
        ax_acc.plot(epochs, 100 * np.array(hist["train_acc"]), alpha=0.4, color=styles[mode]["color"],
                    label=mode + " (train)")
        ax_time.plot(epochs, hist["epoch_time"], label=mode, **styles[mode])
    ax_loss.set(title="training loss", xlabel="epoch", ylabel="softmax cross-entropy")
    ax_acc.set(title="accuracy", xlabel="epoch", ylabel="%")
    ax_acc.axhline(100 * ACCURACY_TARGET, color="grey", linewidth=0.8, linestyle=":",
                   label="%d%% target" % (100 * ACCURACY_TARGET))
    title = ("time per epoch (training speed-up %.2fx)" % training.median if training.conclusive
             else "time per epoch (speed-up: too noisy to conclude)")
    ax_time.set(title=title, xlabel="epoch", ylabel="seconds of training steps")
    ax_time.set_ylim(bottom=0)
    for ax in (ax_loss, ax_acc, ax_time):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("neogluon: the hybridization tutorial's LeNet on scikit-learn digits")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format=os.path.splitext(path)[1][1:] or "png")
    atomic_write(path, buf.getvalue(), "demo --plot")
    plt.close(fig)
    return path
