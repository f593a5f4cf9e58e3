"""Issue 17's benchmark suite: seven workloads, inference and training step, neogluon against
MXNet 1.9.1, raw torch and torch.compile, alternately in one run.

    OMP_NUM_THREADS=1 python benchmarks/bench_workloads.py --mxnet /work/mx19/bin/python
        [--quick] [--only lenet_b1 ...] [--rounds 7] [--under-load] [--no-fresh] [--threads 1]

(also ``neogluon bench --only workloads [--mxnet PYTHON] [--under-load] [--full]``).

Workloads (the issue's five, an LSTM language model and an MLP), each defined once over the
Gluon API and built by whichever ``mx`` module runs it (this file imports neither torch nor
neogluon at module level, so MXNet's interpreter loads it too), and once in raw torch:

- ``lenet_b1``, ``lenet_b16``: the hybridization tutorial's LeNet (neogluon/cli/lenet.py);
- ``resnet18_b1``: ``model_zoo.vision.resnet18_v1()``, 224x224, batch 1;
- ``bert_b8``: a BERT-style encoder, 2 layers, 256 units, 4 heads, FFN 1024, GELU, batch
  8 x 128 tokens;
- ``lstmcell_b32``: embedding, ``rnn.LSTMCell(256)`` unrolled 20 steps, decoder, batch 32;
- ``lstm_lm_b32``: embedding, ``rnn.LSTM(256, num_layers=2)`` over T=35, decoder, batch 32;
- ``mlp_b64``: Dense 512-512-10 at batch 64.

Variants: ``imperative`` (no hybridize), ``hybridized`` (``hybridize()``, the straight-line
graph), ``static`` (``hybridize(static_alloc=True, static_shape=True)``: neogluon's compiled
backend), ``torch`` (eager), ``torch.compile``; with ``--mxnet``: ``mx hybridized``
(static_alloc+static_shape) and ``mx MKLDNN`` (``backend='MKLDNN'``, inference only).
Inference is a predict-mode call; the training step is forward under ``autograd.record()``,
``mean(out**2)``, backward and ``Trainer('sgd', lr=0.01).step(batch)`` (torch: zero_grad,
forward, loss, backward, ``SGD(lr=0.01/batch).step()``). Every (variant, mode) has its own
network instance (so a frozen inference graph is never invalidated by a training step).

Method: one worker process per library (neogluon + torch in ``sys.executable``, MXNet in
``--mxnet``), never both timing at once. In each round every variant runs ``calls`` calls in
a rotating order; a round's figure for a variant is the median of its calls. Reported: the
median over rounds (ms), and the speed ratios ``reference / variant`` computed within each
round, as median [min-max] over rounds (so a shared machine's drifts cancel). ``first s``
and ``peak MB`` come from a fresh process per variant (``--no-fresh`` skips them): the first
two inference calls (a compiled prediction compiles at its second call) and the first two
training steps, and ``ru_maxrss`` after both; compiled variants
get an empty inductor cache, then a second fresh process on that cache (``cached s``).
``--threads 0`` leaves each library its own thread count (neogluon adapts it to the free
cores, neogluon/threads.py; MXNet uses its default). ``--clock cpu`` times by the worker process's CPU time instead (steadier on a loaded
machine). ``--under-load`` repeats the timing (always by the wall clock) with a concurrent CPU-bound torch process
(``--neighbour-threads`` threads of matmuls, 1 by default) and reports, per workload and variant, the median and
95th-percentile slowdown of single calls, loaded / alone.
"""
import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

# compile in the timed call, as the figures count it (by default the first compilation of a graph
# runs in a child process while the plain graph serves: executor/warm.py)
os.environ.setdefault("NEOGLUON_COMPILE_BACKGROUND", "0")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LR = 0.01
VOCAB, EMBED, HIDDEN = 2000, 256, 256

# name -> (batch, input maker name); order = the table's order
WORKLOADS = {
    "lenet_b1": 1, "lenet_b16": 16, "resnet18_b1": 1, "bert_b8": 8,
    "lstmcell_b32": 32, "lstm_lm_b32": 32, "mlp_b64": 64,
}
NG_VARIANTS = ("imperative", "hybridized", "static", "torch", "torch.compile")
MX_VARIANTS = ("mx hybridized", "mx MKLDNN")
COMPILED = ("static", "torch.compile")
MODES = ("infer", "train")
NEIGHBOUR_THREADS = [1]  # the neighbour's torch threads (--neighbour-threads): one busy core by default
NEIGHBOUR = r'''
import torch
a = torch.randn(512, 512)
while True:
    a = torch.tanh(a @ a)
'''


# ---------------------------------------------------------------------- inputs (numpy, both libraries)
def inputs(workload):
    """The workload's inputs as numpy arrays (seeded): images, token ids, or begin states."""
    import numpy as np
    rng = np.random.RandomState(0)
    batch = WORKLOADS[workload]
    kind = workload.rsplit("_", 1)[0]
    if kind == "lenet":
        return [rng.uniform(-1, 1, (batch, 1, 28, 28)).astype("float32")]
    if kind == "resnet18":
        return [rng.uniform(-1, 1, (batch, 3, 224, 224)).astype("float32")]
    if kind == "bert":
        return [rng.uniform(-1, 1, (batch, 128, 256)).astype("float32")]
    if kind == "mlp":
        return [rng.uniform(-1, 1, (batch, 784)).astype("float32")]
    steps, layers = (20, None) if kind == "lstmcell" else (35, 2)
    tokens = rng.randint(0, VOCAB, (steps, batch)).astype("float32")
    state = (batch, HIDDEN) if layers is None else (layers, batch, HIDDEN)
    return [tokens, np.zeros(state, "float32"), np.zeros(state, "float32")]


# ---------------------------------------------------------------------- Gluon networks (any mx)
def gluon_net(mx, workload):
    """The workload's network built with ``mx`` (neogluon or MXNet 1.9.1)."""
    gluon, nn = mx.gluon, mx.gluon.nn
    kind = workload.rsplit("_", 1)[0]
    if kind == "lenet":
        import importlib.util
        spec = importlib.util.spec_from_file_location("tutorial_lenet", os.path.join(ROOT, "neogluon", "cli",
                                                                                     "lenet.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.build_lenet(mx)
    if kind == "resnet18":
        return mx.gluon.model_zoo.vision.resnet18_v1()
    if kind == "mlp":
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"), nn.Dense(10))
        return net
    if kind == "bert":
        return _bert(mx, layers=2, units=256, heads=4, hidden=1024)
    rnn = gluon.rnn

    class LM(gluon.HybridBlock):
        def __init__(self, cell, **kwargs):
            super().__init__(**kwargs)
            self._cell = cell
            with self.name_scope():
                self.embedding = nn.Embedding(VOCAB, EMBED)
                if cell:
                    self.rnn = rnn.LSTMCell(HIDDEN, input_size=EMBED)
                else:
                    self.rnn = rnn.LSTM(HIDDEN, num_layers=2, input_size=EMBED)
                self.decoder = nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

        def hybrid_forward(self, F, x, h, c):
            if self._cell:
                out, _ = self.rnn.unroll(20, self.embedding(x), begin_state=[h, c], layout="TNC",
                                         merge_outputs=True)
            else:
                out, _ = self.rnn(self.embedding(x), [h, c])
            return self.decoder(out)
    return LM(kind == "lstmcell")


def _bert(mx, layers, units, heads, hidden):
    gluon, nn = mx.gluon, mx.gluon.nn
    scale = 1.0 / (units // heads) ** 0.5

    class EncoderLayer(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.qkv = nn.Dense(3 * units, flatten=False, in_units=units)
                self.proj = nn.Dense(units, flatten=False, in_units=units)
                self.ln1 = nn.LayerNorm(in_channels=units)
                self.ffn1 = nn.Dense(hidden, flatten=False, in_units=units)
                self.ffn2 = nn.Dense(units, flatten=False, in_units=hidden)
                self.ln2 = nn.LayerNorm(in_channels=units)

        def hybrid_forward(self, F, x):  # x: (N, T, C)
            qkv = F.transpose(F.reshape(self.qkv(x), shape=(0, 0, 3 * heads, -1)), axes=(0, 2, 1, 3))
            q, k, v = F.split(qkv, num_outputs=3, axis=1)  # (N, H, T, D) each
            q, k, v = (F.reshape(a, shape=(-3, -2)) for a in (q, k, v))  # (N*H, T, D)
            att = F.softmax(F.batch_dot(q * scale, k, transpose_b=True), axis=-1)
            out = F.reshape(F.batch_dot(att, v), shape=(-4, -1, heads, 0, 0))  # (N, H, T, D)
            out = F.reshape(F.transpose(out, axes=(0, 2, 1, 3)), shape=(0, 0, -1))
            x = self.ln1(x + self.proj(out))
            return self.ln2(x + self.ffn2(F.LeakyReLU(self.ffn1(x), act_type="gelu")))

    net = nn.HybridSequential()
    with net.name_scope():
        for _ in range(layers):
            net.add(EncoderLayer())
    return net


# ---------------------------------------------------------------------- the same networks in torch
def torch_net(workload):
    import torch
    import torch.nn.functional as F
    t = torch.nn
    kind = workload.rsplit("_", 1)[0]
    if kind == "lenet":
        class LeNet(t.Module):
            def __init__(self):
                super().__init__()
                self.conv1, self.conv2 = t.Conv2d(1, 6, 5), t.Conv2d(6, 16, 5)
                self.fc1, self.fc2 = t.Linear(256, 120), t.Linear(120, 84)
                self.fc3 = t.Parameter(torch.randn(10, 84) * 0.1)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), 2)
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = F.relu(self.fc2(F.relu(self.fc1(x.reshape(x.shape[0], -1)))))
                return x.matmul(self.fc3.t())
        return LeNet()
    if kind == "mlp":
        return t.Sequential(t.Linear(784, 512), t.ReLU(), t.Linear(512, 512), t.ReLU(), t.Linear(512, 10))
    if kind == "resnet18":
        class Basic(t.Module):
            def __init__(self, cin, cout, stride):
                super().__init__()
                self.body = t.Sequential(t.Conv2d(cin, cout, 3, stride, 1, bias=False), t.BatchNorm2d(cout), t.ReLU(),
                                         t.Conv2d(cout, cout, 3, 1, 1, bias=False), t.BatchNorm2d(cout))
                self.down = None if stride == 1 and cin == cout else t.Sequential(
                    t.Conv2d(cin, cout, 1, stride, bias=False), t.BatchNorm2d(cout))

            def forward(self, x):
                return F.relu(self.body(x) + (x if self.down is None else self.down(x)))
        layers = [t.Conv2d(3, 64, 7, 2, 3, bias=False), t.BatchNorm2d(64), t.ReLU(), t.MaxPool2d(3, 2, 1)]
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Basic(cin, cout, stride), Basic(cout, cout, 1)]
            cin = cout
        return t.Sequential(*layers, t.AdaptiveAvgPool2d(1), t.Flatten(), t.Linear(512, 1000))
    if kind == "bert":
        units, heads = 256, 4

        class EncoderLayer(t.Module):
            def __init__(self):
                super().__init__()
                self.qkv, self.proj = t.Linear(units, 3 * units), t.Linear(units, units)
                self.ffn1, self.ffn2 = t.Linear(units, 1024), t.Linear(1024, units)
                self.ln1, self.ln2 = t.LayerNorm(units), t.LayerNorm(units)

            def forward(self, x):
                n, T, _ = x.shape
                q, k, v = self.qkv(x).reshape(n, T, 3, heads, -1).permute(2, 0, 3, 1, 4)
                att = torch.softmax(q * (units // heads) ** -0.5 @ k.transpose(-1, -2), -1)
                out = (att @ v).transpose(1, 2).reshape(n, T, units)
                x = self.ln1(x + self.proj(out))
                return self.ln2(x + self.ffn2(F.gelu(self.ffn1(x))))
        return t.Sequential(EncoderLayer(), EncoderLayer())

    class LM(t.Module):
        def __init__(self, cell):
            super().__init__()
            self.cell = cell
            self.embedding = t.Embedding(VOCAB, EMBED)
            self.rnn = t.LSTMCell(EMBED, HIDDEN) if cell else t.LSTM(EMBED, HIDDEN, 2)
            self.decoder = t.Linear(HIDDEN, VOCAB)

        def forward(self, x, h, c):
            x = self.embedding(x.long())
            if not self.cell:
                return self.decoder(self.rnn(x, (h, c))[0])
            outs = []
            for step in x:
                h, c = self.rnn(step, (h, c))
                outs.append(h)
            return self.decoder(torch.stack(outs))
    return LM(kind == "lstmcell")


# ---------------------------------------------------------------------- one variant's closures
def closure(lib, workload, variant, mode):
    """A no-argument function running one inference call or one training step."""
    arrays = inputs(workload)
    batch = WORKLOADS[workload]
    if variant in ("torch", "torch.compile"):
        import torch
        torch.manual_seed(0)
        net = torch_net(workload)
        net.train(mode == "train")
        if variant == "torch.compile":
            # torch.compile(module) runs every module through one shared helper frame whose
            # dynamo cache holds 8 entries by default: this process compiles more modules than
            # that, and the ninth would silently run eagerly
            import torch._dynamo
            torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 256)
        run = torch.compile(net) if variant == "torch.compile" else net
        xs = [torch.from_numpy(a) for a in arrays]
        if mode == "infer":
            def infer():
                with torch.no_grad():
                    run(*xs)
            return infer
        opt = torch.optim.SGD(net.parameters(), lr=LR / batch)

        def train():
            opt.zero_grad()
            out = run(*xs)
            (out * out).mean().backward()
            opt.step()
        return train
    mx = sys.modules[lib]
    mx.random.seed(0)
    net = gluon_net(mx, workload)
    net.initialize(mx.init.Xavier())
    xs = [mx.nd.array(a) for a in arrays]
    if variant in ("static", "mx hybridized"):
        net.hybridize(static_alloc=True, static_shape=True)
    elif variant == "mx MKLDNN":
        net.hybridize(backend="MKLDNN", static_alloc=True, static_shape=True)
    elif variant == "hybridized":
        net.hybridize()
    if mode == "infer":
        def infer():
            net(*xs).wait_to_read()
        return infer
    net(*xs)  # deferred initialisation before the Trainer sees the parameters
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})

    def train():
        with mx.autograd.record():
            out = net(*xs)
            loss = (out * out).mean()
        loss.backward()
        trainer.step(batch)
        mx.nd.waitall()
    return train


def applies(variant, mode):
    return not (variant == "mx MKLDNN" and mode == "train")


# ---------------------------------------------------------------------- workers
class Worker:
    """Serves requests for one library in this process (``handle``), so the parent's loop
    is the same whether a library runs here or in a subprocess (:class:`Remote`)."""

    def __init__(self, lib):
        self.lib = lib
        if lib == "neogluon" and ROOT not in sys.path:
            sys.path.insert(0, ROOT)
        __import__(lib)  # neogluon before torch: its thread settings apply (neogluon/threads.py)
        self.fns = {}

    def handle(self, req):
        cmd = req["cmd"]
        if cmd == "setup":  # build the variants, run each three times (compile, warm up); first calls' seconds
            self.fns = {}
            first = {}
            for variant in req["variants"]:
                for mode in MODES:
                    if not applies(variant, mode):
                        continue
                    fn = closure(self.lib, req["workload"], variant, mode)
                    t0 = time.perf_counter()
                    fn()
                    fn()  # (neogluon compiles a prediction at its second call: the first runs the plain graph)
                    first["%s|%s" % (variant, mode)] = time.perf_counter() - t0
                    fn()
                    self.fns[(variant, mode)] = fn
            return {"first": first, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}
        if cmd == "time":
            fn = self.fns[(req["variant"], req["mode"])]
            clock = time.process_time if req.get("clock") == "cpu" else time.perf_counter
            times = []
            for _ in range(req["calls"]):
                t0 = clock()
                fn()
                times.append(clock() - t0)
            return times
        raise ValueError("unknown request %r" % cmd)

    def request(self, req):
        return self.handle(req)

    def close(self):
        self.fns = {}


class Remote:
    """A worker in a subprocess (``python bench_workloads.py --worker LIB``), JSON lines on pipes."""

    def __init__(self, python, lib, threads, env=None):
        if threads:
            e = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        else:  # the library's own choice (neogluon: its adaptive policy, neogluon/threads.py)
            e = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        for k, v in (env or {}).items():  # None: not set in the worker
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
        if lib == "neogluon":
            e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", lib], env=e,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def request(self, req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the benchmark worker %s died (request %r)" % (self.proc.args[1:], req))
        reply = json.loads(line)
        if isinstance(reply, dict) and "error" in reply:
            raise RuntimeError("benchmark worker: %s" % reply["error"])
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def serve(lib):
    worker = Worker(lib)
    for line in sys.stdin:
        try:
            reply = worker.handle(json.loads(line))
        except Exception as e:  # pylint: disable=broad-except
            import traceback
            traceback.print_exc()
            reply = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(reply), flush=True)


# ---------------------------------------------------------------------- measuring
@contextlib.contextmanager
def neighbour(on=True, threads=None, settle=1.0):
    """While the block runs, a CPU-bound torch process (``threads`` threads of matmuls,
    ``--neighbour-threads`` by default), a child of this process, so in its session and autogroup;
    ``settle`` seconds to start. Nothing when not ``on``."""
    if not on:
        yield None
        return
    nb = subprocess.Popen([sys.executable, "-c", NEIGHBOUR],
                          env=dict(os.environ, OMP_NUM_THREADS=str(threads or NEIGHBOUR_THREADS[0])))
    try:
        time.sleep(settle)
        yield nb
    finally:
        nb.kill()
        nb.wait()


def measure(workers, workload, rounds, calls, loaded=False, clock="wall"):
    """{(variant, mode): [per-round median seconds]} and {(variant, mode): [every call]}, the
    variants of all workers alternating in a rotating order; ``loaded``: each round
    runs beside a CPU-bound torch process."""
    plan = [(w, v, m) for w, variants in workers for v in variants for m in MODES if applies(v, m)]
    per_round = {(v, m): [] for _, v, m in plan}
    calls_all = {(v, m): [] for _, v, m in plan}
    for r in range(rounds):
        with neighbour(on=loaded):
            for w, v, m in plan[r % len(plan):] + plan[:r % len(plan)]:
                times = w.request({"cmd": "time", "variant": v, "mode": m, "calls": calls[workload], "clock": clock})
                per_round[(v, m)].append(statistics.median(times))
                calls_all[(v, m)].extend(times)
    return per_round, calls_all


def fresh(python, lib, workload, variant, threads):
    """First-call seconds and peak RSS of a new process running one variant (both modes);
    compiled variants twice: an empty inductor cache, then the same cache again."""
    runs = []
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(2 if variant in COMPILED else 1):
            w = Remote(python, lib, threads, {"TORCHINDUCTOR_CACHE_DIR": cache})
            try:
                runs.append(w.request({"cmd": "setup", "workload": workload, "variants": [variant]}))
            finally:
                w.close()
    return runs


def ratio_stats(num, den):
    r = [a / b for a, b in zip(num, den)]
    return statistics.median(r), min(r), max(r)


def p95(v):
    v = sorted(v)
    return v[int(0.95 * (len(v) - 1))]


def run(workloads, quick=False, mxnet=None, rounds=None, threads=1, under_load=False, fresh_runs=None,
        variants=None, in_process=False, out=sys.stdout, clock="wall"):
    """Run the suite; print the table to ``out``; return the rows
    ``{(workload, mode, variant): {"ms": ..., "vs_mx": (med, lo, hi) | None, ...}}``."""
    rounds = rounds or (2 if quick else 7)
    fresh_runs = (not quick) if fresh_runs is None else fresh_runs
    ng_variants = tuple(variants or NG_VARIANTS)
    if in_process:
        ng = Worker("neogluon")
    else:
        ng = Remote(sys.executable, "neogluon", threads)
    mxw = Remote(mxnet, "mxnet", threads) if mxnet else None
    rows = {}
    try:
        print(note(threads, mxnet, rounds) + ("; CPU time of the worker process" if clock == "cpu" else "; wall clock"),
              file=out)
        for workload in workloads:
            calls = {w: (1 if quick else max(3, min(30, int(0.25 / _guess(w)))))
                     for w in WORKLOADS}
            workers = [(ng, ng_variants)]
            setups = {"neogluon": ng.request({"cmd": "setup", "workload": workload, "variants": list(ng_variants)})}
            if mxw:
                workers.append((mxw, MX_VARIANTS))
                setups["mxnet"] = mxw.request({"cmd": "setup", "workload": workload, "variants": list(MX_VARIANTS)})
            per_round, _ = measure(workers, workload, rounds, calls, clock=clock)
            loaded = None
            if under_load:
                alone_calls = measure(workers, workload, rounds, calls)[1]
                loaded_calls = measure(workers, workload, rounds, calls, loaded=True)[1]
                loaded = (alone_calls, loaded_calls)
            firsts = {}
            if fresh_runs:
                for w, vs in workers:
                    python, lib = (sys.executable, "neogluon") if w is ng else (mxnet, "mxnet")
                    for v in vs:
                        firsts[v] = fresh(python, lib, workload, v, threads)
            for (v, m), meds in per_round.items():
                row = {"ms": statistics.median(meds) * 1e3}
                for ref, key in (("mx hybridized", "vs_mx"), ("torch.compile", "vs_tc"), ("torch", "vs_torch")):
                    if (ref, m) in per_round and ref != v:
                        row[key] = ratio_stats(per_round[(ref, m)], meds)
                if m == "infer" and ("mx MKLDNN", m) in per_round and v not in MX_VARIANTS:
                    best = [min(a, b) for a, b in zip(per_round[("mx hybridized", m)], per_round[("mx MKLDNN", m)])]
                    row["vs_mxbest"] = ratio_stats(best, meds)
                setup = setups["mxnet" if v in MX_VARIANTS else "neogluon"]
                row["warm_first_s"] = setup["first"]["%s|%s" % (v, m)]
                if v in firsts:
                    row["first_s"] = firsts[v][0]["first"]["%s|%s" % (v, m)]
                    row["peak_mb"] = firsts[v][0]["maxrss_mb"]
                    if len(firsts[v]) > 1:
                        row["cached_s"] = firsts[v][1]["first"]["%s|%s" % (v, m)]
                if loaded:
                    a, b = loaded[0][(v, m)], loaded[1][(v, m)]
                    row["load_median"] = statistics.median(b) / statistics.median(a)
                    row["load_p95"] = p95(b) / p95(a)
                rows[(workload, m, v)] = row
            print(format_rows({k: r for k, r in rows.items() if k[0] == workload}, header=workload == workloads[0]),
                  file=out)
            out.flush()
    finally:
        ng.close()
        if mxw:
            mxw.close()
    return rows


def _guess(workload):
    """A rough seconds-per-call, to choose how many calls a round times."""
    return {"lenet_b1": 0.001, "lenet_b16": 0.003, "resnet18_b1": 0.04, "bert_b8": 0.06, "lstmcell_b32": 0.02,
            "lstm_lm_b32": 0.04, "mlp_b64": 0.002}[workload]


def note(threads, mxnet, rounds):
    import platform
    return ("# %s UTC, %s, %d cores, load average %.1f, OMP threads %s, Python %s; %d rounds; ratios = reference/variant "
            "per round, median [min-max]%s"
            % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), platform.machine(), os.cpu_count() or 0,
               os.getloadavg()[0], threads or "library's own (neogluon: adaptive)", platform.python_version(), rounds,
               "; mx = MXNet 1.9.1 in %s" % mxnet if mxnet else ""))


def _ratio(r):
    return "%5.2fx [%4.2f-%4.2f]" % r if r else "%19s" % "-"


def _num(v, fmt):
    return fmt % v if v is not None else "%*s" % (len(fmt % 0), "-")


def format_rows(rows, header=True):
    """The table: one line per (workload, mode, variant)."""
    lines = []
    if header:
        lines.append("%-13s %-5s %-14s %9s %19s %19s %19s %7s %7s %7s %7s %7s" % (
            "workload", "mode", "variant", "ms", "vs mx hybridized", "vs mx best(infer)", "vs torch.compile",
            "first s", "cached", "peakMB", "load50", "load95"))
    for (workload, mode, variant), r in rows.items():
        lines.append("%-13s %-5s %-14s %9.3f %19s %19s %19s %7s %7s %7s %7s %7s" % (
            workload, mode, variant, r["ms"], _ratio(r.get("vs_mx")), _ratio(r.get("vs_mxbest")),
            _ratio(r.get("vs_tc")), _num(r.get("first_s"), "%7.2f"), _num(r.get("cached_s"), "%7.2f"),
            _num(r.get("peak_mb"), "%7.0f"), _num(r.get("load_median"), "%6.2fx"), _num(r.get("load_p95"), "%6.2fx")))
    return "\n".join(lines)


def cli_rows(quick, mxnet=None, under_load=False, threads=1):
    """``neogluon bench --only workloads``: print this suite's own table, and give the
    common table its imperative / hybridized (static) / torch columns."""
    rows = run(list(WORKLOADS), quick=quick, mxnet=mxnet, threads=threads, under_load=under_load)
    common = {}
    for (workload, mode, variant), r in rows.items():
        col = {"imperative": "imperative", "static": "hybridized", "torch": "torch"}.get(variant)
        if col:
            common.setdefault("%s %s" % (workload, mode), {})[col] = r["ms"] / 1e3
    return common


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with MXNet 1.9.1 (e.g. /work/mx19/bin/python)")
    parser.add_argument("--only", nargs="+", choices=list(WORKLOADS), help="some workloads only")
    parser.add_argument("--variants", nargs="+", choices=list(NG_VARIANTS), help="some neogluon/torch variants only")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 rounds of 1 call, no fresh processes")
    parser.add_argument("--rounds", type=int)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("OMP_NUM_THREADS", "1")),
                        help="OMP_NUM_THREADS of the workers; 0: unset, each library chooses (neogluon adapts "
                             "to the free cores, neogluon/threads.py)")
    parser.add_argument("--neighbour-threads", type=int, default=1,
                        help="--under-load: torch threads of the CPU-bound neighbour (default 1: one busy core)")
    parser.add_argument("--under-load", action="store_true", help="also time beside a CPU-bound torch process")
    parser.add_argument("--no-fresh", action="store_true", help="skip first-call / peak-memory fresh processes")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time calls by the wall clock, or by the worker process's CPU time (all its threads; "
                             "steadier on a loaded machine, where long calls are preempted). --under-load always "
                             "uses the wall clock")
    args = parser.parse_args(argv)
    if args.worker:
        serve(args.worker)
        return
    NEIGHBOUR_THREADS[0] = args.neighbour_threads
    run(args.only or list(WORKLOADS), quick=args.quick, mxnet=args.mxnet, rounds=args.rounds, threads=args.threads,
        under_load=args.under_load, fresh_runs=False if args.no_fresh else None, variants=args.variants,
        clock=args.clock)


if __name__ == "__main__":
    main()
