"""Sparse storage against MXNet 1.9.1, alternately in one script.

    OMP_NUM_THREADS=1 python benchmarks/bench_sparse.py --mxnet /work/mxref/bin/python [--rounds 7]

Cases (the same numpy-generated data on both sides):

* ``dot(csr, dense)``: a 10k x 10k csr at 1% density times a 10k x 64 dense array;
* ``dot(csr.T, dense)``: the same csr, transposed, times a 10k x 64 array (row_sparse out);
* ``embedding step``: one training step of ``Embedding(100000, 64, sparse_grad=True)`` on a
  batch of 256 x 16 indices, a squared loss, ``backward`` and a Gluon ``Trainer`` step with
  lazy Adam (the row_sparse gradient updates only the rows the batch looks up).

MXNet runs as a child process of its interpreter that times one case on request: each
round times a case here, then the same case there, so both see the same machine load.
The report gives, per case, the best time of each side and the median ratio
MXNet/neogluon with its spread (min-max over the rounds); > 1 means neogluon is faster.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

N, DENSITY, COLS = 10000, 0.01, 64
VOCAB, DIM, BATCH, TOKENS = 100000, 64, 256, 16


def _csr_parts():
    rs = np.random.RandomState(0)
    nnz = int(N * N * DENSITY)
    rows, cols = rs.randint(0, N, nnz), rs.randint(0, N, nnz)
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    keep = np.ones(nnz, bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])  # no duplicates
    rows, cols = rows[keep], cols[keep]
    indptr = np.zeros(N + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=N), out=indptr[1:])
    data = rs.uniform(-1, 1, rows.size).astype(np.float32)
    return data, cols.astype(np.int64), indptr, rs.uniform(-1, 1, (N, COLS)).astype(np.float32)


def make_cases(mx):
    """name -> a function running the case once (results computed, not just queued)."""
    data, indices, indptr, dense = _csr_parts()
    x = mx.nd.sparse.csr_matrix((data, indices, indptr), shape=(N, N))
    w = mx.nd.array(dense)

    def dot():
        mx.nd.sparse.dot(x, w).wait_to_read()

    def dot_t():
        y = mx.nd.sparse.dot(x, w, transpose_a=True)
        y.data.wait_to_read()

    net = mx.gluon.nn.Embedding(VOCAB, DIM, sparse_grad=True)
    net.initialize(mx.init.Uniform(0.1))
    trainer = mx.gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01, "lazy_update": True},
                               kvstore=None)
    rs = np.random.RandomState(1)
    batches = [mx.nd.array(rs.randint(0, VOCAB, (BATCH, TOKENS))) for _ in range(4)]
    step = [0]

    def embedding_step():
        idx = batches[step[0] % len(batches)]
        step[0] += 1
        with mx.autograd.record():
            loss = (net(idx) ** 2).sum()
        loss.backward()
        trainer.step(BATCH)
        net.weight.data().wait_to_read()

    return {"dot(csr, dense)": (dot, 5), "dot(csr.T, dense)": (dot_t, 2), "embedding step": (embedding_step, 10)}


def time_case(fn, number):
    fn()  # warm-up
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def child():
    import mxnet as mx  # pylint: disable=import-error
    cases = make_cases(mx)
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        fn, number = cases[name]
        print(json.dumps(time_case(fn, number)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet", metavar="PYTHON", required=True, help="an interpreter with mxnet==1.9.1")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return 0
    import torch
    import neogluon as mx
    torch.set_num_threads(1)
    proc = subprocess.Popen([args.mxnet, __file__, "--child", "--mxnet", args.mxnet], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True,
                            env={"OMP_NUM_THREADS": "1", "MXNET_STORAGE_FALLBACK_LOG_VERBOSE": "0"})
    cases = make_cases(mx)
    assert proc.stdout.readline().strip() == "ready"
    results = {name: ([], []) for name in cases}
    for _ in range(args.rounds):
        for name, (fn, number) in cases.items():
            ours = time_case(fn, number)
            proc.stdin.write(name + "\n")
            proc.stdin.flush()
            theirs = json.loads(proc.stdout.readline())
            results[name][0].append(ours)
            results[name][1].append(theirs)
    proc.stdin.close()
    proc.wait()
    print("%-20s %12s %12s %22s" % ("case", "neogluon", "MXNet 1.9.1", "MXNet/ours (min-max)"))
    for name, (ours, theirs) in results.items():
        ratios = [t / o for o, t in zip(ours, theirs)]
        print("%-20s %10.2fms %10.2fms %8.2fx (%.2f-%.2f)" % (name, min(ours) * 1e3, min(theirs) * 1e3,
                                                           statistics.median(ratios), min(ratios), max(ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
