"""Record MXNet 1.9.1's answers to the classic programs of ``tests/legacy_program_cases.py``
(InsightFace-style training, custom operators, legacy iterators, symbol graphs and executors,
kvstore, optimizers and schedulers, bucketing RNNs, control flow inside a Module).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxclients/bin/python tools/make_legacy_program_fixtures.py [case ...]

It writes ``tests/fixtures/extra/legacy_programs/<case>.npz``: each value a case returns, as a
numpy array (NDArrays densified, strings and numbers as 0-d arrays, lists as arrays). MXNet 1.9.1
now and then crashes (a segmentation fault in its iterator threads, seen in the LibSVMIter case):
run the cases not yet written again, by name.
"""
import os
import sys
import tempfile

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import legacy_program_cases  # noqa: E402  (the programs, shared with tests/test_legacy_programs.py)

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "legacy_programs")


def as_array(value):
    if isinstance(value, mx.nd.NDArray):
        return value.asnumpy()
    return np.asarray(value)


def main(names):
    os.makedirs(OUT, exist_ok=True)
    for name in names or sorted(legacy_program_cases.CASES):
        with tempfile.TemporaryDirectory() as tmp:
            res = legacy_program_cases.run(name, mx, tmp)
        np.savez_compressed(os.path.join(OUT, name + ".npz"), **{k: as_array(v) for k, v in res.items()})
        print(name, len(res))


if __name__ == "__main__":
    main(sys.argv[1:])
