"""Record MXNet 1.9.1's answers to the sparse-storage cases of ``tests/sparse_cases.py``
(constructors, conversions, operators with their output storage types, gradients, lazy
optimizer updates, the bytes ``nd.save`` writes).

Run with the reference interpreter (never imported by neogluon or its tests)::

    MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 /work/venvs/mxscipy/bin/python tools/make_extra_fixtures_sparse.py

where /work/venvs/mxscipy is a venv with mxnet==1.9.1, numpy==1.23.5 and scipy==1.10.1 (MXNet's
scipy paths: COO input, scipy csr_matrix input, ``asscipy``).

It writes ``tests/fixtures/extra/sparse/cases.json`` (per case and output: the storage
type, dtype and shape of an array, or the value of a number or string; the exception type
of a case MXNet refuses) and ``values.npz`` (dense values, stored components, bytes).
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import sparse_cases  # noqa: E402  (the case bodies, shared with tests/test_sparse.py)

OUT = os.path.join(HERE, "..", "tests", "fixtures", "extra", "sparse")


def record(key, value, arrays):
    if isinstance(value, mx.nd.NDArray):
        arrays[key + ":dense"] = value.asnumpy()
        if value.stype == "csr":
            arrays[key + ":data"], arrays[key + ":indices"] = value.data.asnumpy(), value.indices.asnumpy()
            arrays[key + ":indptr"] = value.indptr.asnumpy()
        elif value.stype == "row_sparse":
            arrays[key + ":data"], arrays[key + ":indices"] = value.data.asnumpy(), value.indices.asnumpy()
        return {"kind": "array", "stype": value.stype, "dtype": np.dtype(value.dtype).name,
                "shape": list(value.shape)}
    if isinstance(value, bytes):
        arrays[key + ":bytes"] = np.frombuffer(value, np.uint8)
        return {"kind": "bytes"}
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return {"kind": "value", "value": value if isinstance(value, str) else float(value)}
    raise TypeError("%s: cannot record %r" % (key, type(value)))


def main():
    os.makedirs(OUT, exist_ok=True)
    cases, arrays = {}, {}
    for name, fn in sparse_cases.CASES.items():
        got = {}
        try:  # MXNet reports some errors only when a value is read: recording is part of the case
            res = fn(mx, np)
            outputs = {k: record("%s/%s" % (name, k), v, got) for k, v in res.items()}
        except mx.MXNetError as e:
            cases[name] = {"error": "MXNetError", "message": str(e).strip().split("\n")[-1][:300]}
            continue
        except Exception as e:  # pylint: disable=broad-except
            cases[name] = {"error": type(e).__name__, "message": str(e).strip().split("\n")[-1][:300]}
            continue
        arrays.update(got)
        cases[name] = {"outputs": outputs}
    for name, ops in sparse_cases.OPS.items():  # what tools/make_op_coverage.py counts as recorded
        if ops and "outputs" in cases[name]:
            cases[name]["ops"] = [{"op": op} for op in ops]
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, "values.npz"), **arrays)
    print("recorded %d cases (%d refused)" % (len(cases), sum("error" in c for c in cases.values())))


if __name__ == "__main__":
    main()
