"""Per-call overhead of mx.np arithmetic on small arrays vs raw torch (a benchmark, not a test).

    PYTHONPATH=$PWD python tools/bench_numpy_overhead.py

Each round times N calls of every variant, alternating, and reports per-call microseconds
(median over rounds) and the ratio to torch with its spread (min..max over rounds)."""
import statistics
import timeit

import torch

import neogluon as mx
from neogluon import np

N, ROUNDS = 20000, 9
ta, tb = torch.ones(4, 4), torch.ones(4, 4)
a, b = np.ones((4, 4)), np.ones((4, 4))
na, nb = mx.nd.ones((4, 4)), mx.nd.ones((4, 4))
CASES = {
    "a + b": (lambda: ta + tb, lambda: a + b, lambda: na + nb),
    "a * 2.0": (lambda: ta * 2.0, lambda: a * 2.0, lambda: na * 2.0),
    "np.exp(a)": (lambda: torch.exp(ta), lambda: np.exp(a), lambda: mx.nd.exp(na)),
    "a.sum()": (lambda: ta.sum(), lambda: a.sum(), lambda: na.sum()),
    "a[1]": (lambda: ta[1], lambda: a[1], lambda: na[1]),
}
for name, fns in CASES.items():
    times = [[], [], []]
    for _ in range(ROUNDS):
        for i, fn in enumerate(fns):
            times[i].append(timeit.timeit(fn, number=N) / N * 1e6)
    ratios = [m / t for m, t in zip(times[1], times[0])]
    nd_ratios = [m / t for m, t in zip(times[2], times[0])]
    print("%-10s torch %.2fus  mx.np %.2fus  ratio %.2f (%.2f..%.2f)  | mx.nd %.2fus ratio %.2f"
          % (name, statistics.median(times[0]), statistics.median(times[1]), statistics.median(ratios),
             min(ratios), max(ratios), statistics.median(times[2]), statistics.median(nd_ratios)))
