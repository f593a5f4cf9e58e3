"""Data-parallel training throughput with Trainer(kvstore='dist_sync') for 1 and 2 workers
on this machine (gloo over 127.0.0.1), and the communication time per step.

    python benchmarks/bench_dist.py [--rounds 3] [--steps 40] [--batch 256]

Each round runs a 1-worker job and a 2-worker job alternately (the machine is shared, so
they see the same load); each worker has OMP_NUM_THREADS=1 and trains an MLP
(784-512-512-10, SGD with momentum) on its share of a global batch of ``--batch`` synthetic
examples, calling ``trainer.allreduce_grads()`` and ``trainer.update()`` separately so the
all-reduce is timed on its own. Rank 0 reports the global throughput (examples/s over the
timed steps, after 5 warm-up steps) and the median all-reduce time per step. Printed: each
job's median over the rounds, the 2-worker/1-worker throughput ratio per round, and its
spread.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(steps, batch):
    import numpy as np
    import neogluon as mx
    from neogluon import autograd, gluon, nd
    kv = mx.kv.create("dist_sync")
    share = batch // kv.num_workers
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(512, activation="relu"), gluon.nn.Dense(512, activation="relu"), gluon.nn.Dense(10))
    mx.random.seed(1)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9}, kvstore=kv,
                            update_on_kvstore=False)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rs = np.random.RandomState(kv.rank)
    x = nd.array(rs.rand(share, 784).astype("float32"))
    y = nd.array(rs.randint(0, 10, share).astype("float32"))
    comm = []
    for step in range(steps + 5):
        if step == 5:
            kv.barrier()
            start = time.perf_counter()
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        t0 = time.perf_counter()
        trainer.allreduce_grads()
        comm.append(time.perf_counter() - t0)
        trainer.update(batch)
    nd.waitall()
    kv.barrier()
    elapsed = time.perf_counter() - start
    if kv.rank == 0:
        print(json.dumps({"throughput": steps * batch / elapsed, "comm_ms": 1000 * statistics.median(comm[5:]),
                          "step_ms": 1000 * elapsed / steps}))


def job(n, steps, batch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    procs = []
    for rank in range(n):
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(n), RANK=str(rank),
                   OMP_NUM_THREADS="1", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", "--steps", str(steps),
                                       "--batch", str(batch)], env=env, stdout=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=600)[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit("a worker of the %d-worker job failed" % n)
    return json.loads(outs[0].strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.steps, args.batch)
        return
    results = {1: [], 2: []}
    for _ in range(args.rounds):
        for n in (1, 2):
            results[n].append(job(n, args.steps, args.batch))
    print("MLP 784-512-512-10, global batch %d, %d timed steps, %d rounds, OMP_NUM_THREADS=1 per worker, %d CPUs"
          % (args.batch, args.steps, args.rounds, os.cpu_count()))
    for n in (1, 2):
        rows = results[n]
        print("%d worker(s): %8.0f examples/s  step %6.1f ms  all-reduce %5.2f ms/step (medians)"
              % (n, statistics.median(r["throughput"] for r in rows), statistics.median(r["step_ms"] for r in rows),
                 statistics.median(r["comm_ms"] for r in rows)))
    ratios = [b["throughput"] / a["throughput"] for a, b in zip(results[1], results[2])]
    print("2 workers / 1 worker throughput: median %.2fx, range %.2f-%.2fx over %d rounds"
          % (statistics.median(ratios), min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
