"""Per-call overhead of ``mx.nd`` operators on small arrays, next to raw torch in the same run.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_ndarray.py [--mxnet /tmp/mxref/bin/python]

For each case it times the neogluon call and the equivalent torch call in interleaved
rounds (best of N, so a busy machine disturbs both alike) and prints the ratio; the
issue's target is at most 1.5x torch. With ``--mxnet PYTHON`` the same cases also run
under real MXNet 1.9.1 in that interpreter (a side venv; numpy 1.x cannot share this
process) and a column with MXNet's time is added.
"""
import argparse
import json
import subprocess
import sys
import timeit

# name -> (setup, neogluon statement, torch statement); MXNet runs the neogluon statement
CASES = {
    "add 32x32": ("a = nd.ones((32, 32)); b = nd.ones((32, 32))", "a + b", "ta + tb"),
    "mul scalar 32x32": ("a = nd.ones((32, 32))", "a * 2.0", "ta * 2.0"),
    "relu 32x32": ("a = nd.ones((32, 32))", "nd.relu(a)", "torch.relu(ta)"),
    "dot 64x64": ("a = nd.ones((64, 64)); b = nd.ones((64, 64))", "nd.dot(a, b)", "torch.matmul(ta, tb)"),
    "sum axis 32x32": ("a = nd.ones((32, 32))", "a.sum(axis=1)", "ta.sum(dim=1)"),
    "FullyConnected 16x32->32": ("a = nd.ones((16, 32)); b = nd.ones((32, 32)); c = nd.zeros((32,))",
                                 "nd.FullyConnected(a, b, c, num_hidden=32)",
                                 "torch.nn.functional.linear(ta, tb, tc)"),
    "reshape (0,-1)": ("a = nd.ones((8, 4, 4))", "a.reshape((0, -1))", "ta.reshape(ta.shape[0], -1)"),
    "slice [2:10]": ("a = nd.ones((32, 32))", "a[2:10]", "ta[2:10]"),
}


def _globals(lib, setup):
    g = {}
    exec("import %s as mx; nd = mx.nd" % lib, g)  # pylint: disable=exec-used
    exec(setup, g)  # pylint: disable=exec-used
    if lib == "neogluon":
        import torch
        g["torch"] = torch
        for k in ("a", "b", "c"):
            if k in g:
                g["t" + k] = g[k]._t
    return g


def best(stmt, g, number, rounds):
    return min(timeit.repeat(stmt, globals=g, number=number, repeat=rounds)) / number


def run(lib, number, rounds):
    """Time every case under ``lib`` ('neogluon' with torch alongside, or 'mxnet')."""
    out = {}
    for name, (setup, nd_stmt, torch_stmt) in CASES.items():
        g = _globals(lib, setup)
        if lib == "mxnet":
            stmt = "(%s).wait_to_read()" % nd_stmt
            best(stmt, g, number, 2)  # warm-up
            out[name] = best(stmt, g, number, rounds)
            continue
        t_nd = t_torch = float("inf")
        for _ in range(rounds):  # interleaved, so both see the same machine load
            t_nd = min(t_nd, best(nd_stmt, g, number, 1))
            t_torch = min(t_torch, best(torch_stmt, g, number, 1))
        out[name] = (t_nd, t_torch)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--number", type=int, default=2000, help="calls per timing")
    parser.add_argument("--rounds", type=int, default=15, help="timings per case (best is kept)")
    parser.add_argument("--mxnet", metavar="PYTHON", help="an interpreter with mxnet==1.9.1 installed")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # running under MXNet's interpreter
        print(json.dumps(run("mxnet", args.number, args.rounds)))
        return 0
    import torch
    torch.set_num_threads(1)
    ours = run("neogluon", args.number, args.rounds)
    theirs = {}
    if args.mxnet:
        res = subprocess.run([args.mxnet, __file__, "--child", "--number", str(args.number),
                              "--rounds", str(args.rounds)], capture_output=True, text=True, check=True,
                             env={"OMP_NUM_THREADS": "1", "MXNET_ENGINE_TYPE": "NaiveEngine"})
        theirs = json.loads(res.stdout.strip().splitlines()[-1])
    head = "%-26s %12s %12s %8s" % ("case (per call)", "neogluon", "torch", "ratio")
    if theirs:
        head += " %12s %10s" % ("MXNet 1.9.1", "MXNet/ours")
    print(head)
    for name, (t_nd, t_torch) in ours.items():
        line = "%-26s %10.2fus %10.2fus %7.2fx" % (name, t_nd * 1e6, t_torch * 1e6, t_nd / t_torch)
        if name in theirs:
            line += " %10.2fus %9.1fx" % (theirs[name] * 1e6, theirs[name] / t_nd)
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
