"""Gluon end to end: the tutorial's LeNet and a 3-layer MLP, imperative vs hybridized vs raw torch.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_gluon.py [--mxnet /tmp/mxref/bin/python] [--quick] [--clock cpu]

For each network and batch size it times inference (predict mode) and one training step
(forward under ``autograd.record()``, a sum-of-squares loss, backward and
``gluon.Trainer('sgd', {'learning_rate': 0.01}).step(1)``) for the block run
imperatively, the block hybridized, and the same network written in raw torch (eager:
``zero_grad``, forward, loss, backward, ``torch.optim.SGD(lr=0.01).step()``, the same
update), in interleaved rounds: times are the best of N, ratios the median over rounds of
the ratio within a round (paired, so the drifts of a shared machine cancel). The targets
of issue 4: hybridized faster than imperative at every batch size, and within 1.2x of raw
torch. ``--mxnet PYTHON`` also runs the Gluon cases under real MXNet 1.9.1 in that
interpreter (a side venv) and adds its columns.
"""
import argparse
import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

LR = 0.01
BATCHES = {"lenet": (1, 16, 256), "mlp": (1, 16, 256)}


def _load_lenet():
    """neogluon/cli/lenet.py, loaded by path: it imports nothing, so MXNet's interpreter
    (without torch or neogluon) builds the very same network."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "neogluon", "cli", "lenet.py")
    spec = importlib.util.spec_from_file_location("tutorial_lenet", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_lenet


def build(mx, name):
    """The Gluon network (tutorial LeNet or MLP 784-256-128-10) and its input shape without batch."""
    if name == "lenet":
        return _load_lenet()(mx), (1, 28, 28)
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(10))
    return net, (784,)


def gluon_cases(mx, name, batch, hybrid):
    """(infer, train) closures for a Gluon network."""
    net, shape = build(mx, name)
    net.initialize(mx.init.Xavier())
    x = mx.nd.random.uniform(shape=(batch,) + shape)
    net(x)
    if hybrid:
        net.hybridize()
        net(x)
    params = net.collect_params()
    trainer = mx.gluon.Trainer(params, "sgd", {"learning_rate": LR})
    last = list(params.values())[-1]

    def infer():
        net(x).wait_to_read()

    def train():
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(1)
        last.data().wait_to_read()
    return infer, train


def torch_cases(name, batch):
    """The same networks in raw torch (eager), with the same step."""
    import torch
    import torch.nn.functional as F

    if name == "lenet":
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = torch.nn.Conv2d(1, 6, 5)
                self.conv2 = torch.nn.Conv2d(6, 16, 5)
                self.fc1 = torch.nn.Linear(256, 120)
                self.fc2 = torch.nn.Linear(120, 84)
                self.fc3 = torch.nn.Parameter(torch.randn(10, 84) * 0.1)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), 2)
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = x.reshape(x.shape[0], -1)
                x = F.relu(self.fc1(x))
                x = F.relu(self.fc2(x))
                return x.matmul(self.fc3.t())
        net, shape = Net(), (1, 28, 28)
    else:
        net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                                  torch.nn.ReLU(), torch.nn.Linear(128, 10))
        shape = (784,)
    x = torch.rand((batch,) + shape)
    opt = torch.optim.SGD(net.parameters(), lr=LR)

    def infer():
        with torch.no_grad():
            net(x)

    def train():
        opt.zero_grad()
        (net(x) ** 2).sum().backward()
        opt.step()
    return infer, train


CLOCK = time.perf_counter


def best(fn, rounds, number):
    fn()
    times = []
    for _ in range(rounds):
        t0 = CLOCK()
        for _ in range(number):
            fn()
        times.append((CLOCK() - t0) / number)
    return min(times)


def run(lib, quick):
    """{(net, batch, step): {column: seconds}} for one library ('neogluon', 'mxnet')."""
    mx = importlib.import_module(lib)
    results = {}
    rounds = 6 if quick else 40  # many short rounds: the best one is the least disturbed
    for name, batches in BATCHES.items():
        for batch in batches:
            number = max(2, (10 if quick else 20) // batch)
            imp = gluon_cases(mx, name, batch, False)
            hyb = gluon_cases(mx, name, batch, True)
            cols = {"imperative": imp, "hybridized": hyb}
            if lib == "neogluon":
                cols["torch"] = torch_cases(name, batch)
            for step in (0, 1):
                key = "%s b%d %s" % (name, batch, ("infer", "train")[step])
                res = {c: [] for c in cols}
                names = list(cols)
                for r in range(rounds):  # interleaved: each round times every column once,
                    for c in names[r % len(names):] + names[:r % len(names)]:  # in a rotating order
                        res[c].append(best(cols[c][step], 1, number))
                results[key] = {c: min(v) for c, v in res.items()}
                results[key]["paired"] = {"%s/%s" % (a, b): statistics.median(x / y for x, y in zip(res[a], res[b]))
                                          for a, b in PAIRS if a in res and b in res}
    return results


# ratios reported as the median over rounds of the ratio within a round: the columns of a
# round ran back to back, so a machine that drifts (a shared VM) cancels out of them
PAIRS = (("hybridized", "imperative"), ("hybridized", "torch"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", help="a Python interpreter with MXNet 1.9.1, to add its columns")
    parser.add_argument("--lib", default="neogluon", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time with the wall clock, or with the process's CPU time (steadier on a shared "
                             "machine; the same with OMP_NUM_THREADS=1)")
    args = parser.parse_args()
    global CLOCK  # pylint: disable=global-statement
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.lib != "neogluon":
        print(json.dumps(run(args.lib, args.quick)))
        return
    results = run("neogluon", args.quick)
    ref = {}
    if args.mxnet:
        cmd = [args.mxnet, __file__, "--lib", "mxnet", "--clock", args.clock] + (["--quick"] if args.quick else [])
        ref = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    head = "%-20s %12s %12s %12s %9s %9s" % ("case", "imperative", "hybridized", "torch", "hyb/imp", "hyb/torch")
    if ref:
        head += " %12s %12s" % ("mx imp", "mx hyb")
    print(head)
    for key, r in results.items():
        line = "%-20s %10.1fus %10.1fus %10.1fus %9.3f %9.3f" % (
            key, r["imperative"] * 1e6, r["hybridized"] * 1e6, r["torch"] * 1e6,
            r["paired"]["hybridized/imperative"], r["paired"]["hybridized/torch"])
        if key in ref:
            line += " %10.1fus %10.1fus" % (ref[key]["imperative"] * 1e6, ref[key]["hybridized"] * 1e6)
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
