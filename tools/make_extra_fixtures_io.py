"""Write MXNet 1.9.1 ``mx.nd.save`` files for the edge cases of the binary format.

Run with the reference environment (never part of the project or CI)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_io.py [OUTDIR]

OUTDIR (default tests/fixtures/extra/io) gets, per case, ``<case>.nd`` (MXNet's file),
``<case>.npz`` (its contents as dense numpy arrays; keys are the names, or "0", "1", ...
for a list; bfloat16 contents as float32) and ``cases.json``: for each case whether it is
a list or a dict, every array's dtype name, and whether neogluon must re-save it to the
same bytes (not for sparse arrays, which neogluon loads densified).

It also copies, from MXNet's operator dump (/tmp/ref/ops.json, or the path in $MXNET_OPS_JSON),
the schemas of the sampling operators and their aliases into ``random_ops.json`` for
tests/test_random.py.
"""
import json
import os
import sys

import numpy as np
import mxnet as mx
from mxnet import nd

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                          "fixtures", "extra", "io")
rs = np.random.RandomState(1909)
BF16 = np.dtype([("bfloat16", np.uint16)])
CASES = {}


def arr(values, dtype):
    return nd.array(np.asarray(values), dtype=dtype)


def write(case, data, note, resave=True, np_shape=False):
    """Save ``data`` with MXNet and record its contents as MXNet reads them back."""
    path = os.path.join(OUT, case + ".nd")
    with mx.util.np_shape(np_shape):
        nd.save(path, data)
        loaded = nd.load(path)
        items = loaded.items() if isinstance(loaded, dict) else (("%d" % i, a) for i, a in enumerate(loaded))
        contents, dtypes = {}, {}
        for key, a in items:
            if a.dtype == BF16:
                contents[key], dtypes[key] = a.astype("float32").asnumpy(), "bfloat16"
            else:
                contents[key] = a.tostype("default").asnumpy() if a.stype != "default" else a.asnumpy()
                dtypes[key] = np.dtype(a.dtype).name
    np.savez(os.path.join(OUT, case + ".npz"), **contents)
    CASES[case + ".nd"] = {"kind": "dict" if isinstance(data, dict) else "list", "dtypes": dtypes,
                           "resave_identical": resave, "note": note}


def is_sampling_op(name, real):
    """The operators of neogluon/operator/random.py (the numpy-API _npi_ names excluded)."""
    if name.startswith("_npi_"):
        return False
    return real.startswith("_random_") or real == "_shuffle" or (
        real.startswith("_sample_") and real != "_sample_unique_zipfian")


def write_sampling_schemas():
    with open(os.environ.get("MXNET_OPS_JSON", "/tmp/ref/ops.json")) as f:
        ops = json.load(f)
    subset = {name: info for name, info in ops.items() if is_sampling_op(name, info["real"])}
    with open(os.path.join(OUT, "random_ops.json"), "w") as f:
        json.dump(subset, f, indent=1, sort_keys=True)


def main():
    os.makedirs(OUT, exist_ok=True)
    write_sampling_schemas()
    write("scalar_like", {"one": arr([2.5], "float32"), "one_int": arr([2 ** 40], "int64"),
                          "one_1x1": arr([[-1.25]], "float64")},
          "one-element arrays of shape (1,) and (1, 1)")
    write("empty", [arr(np.zeros((0,)), "float32"), arr(np.zeros((0, 3)), "float32"),
                    arr(np.zeros((2, 0, 4)), "int32"), arr(np.zeros((0,)), "bool"), arr(np.zeros((0,)), "float16")],
          "0-size arrays: shapes with a 0 dimension are written with context and type but no data")
    write("bool", {"mask": arr(rs.rand(3, 4) > 0.5, "bool"), "all_true": arr([True, True], "bool")},
          "bool arrays (type flag 7, one byte per element)")
    write("single", arr(rs.randn(2, 3), "float16"), "nd.save of one NDArray (a list of one, no names)")
    write("empty_list", [], "nd.save of an empty list (an empty dict writes the same bytes)")
    write("names", {"layer0.weight": arr(rs.randn(2, 2), "float32"), "w\u00e9ight/\u03b2": arr([1, 2, 3], "int8"),
                    "x" * 300: arr([7], "uint8")},
          "names with dots, UTF-8 and a long name")
    write("all_dtypes", [arr(rs.randn(3), "float32"), arr([np.inf, -np.inf, -0.0, 1e300], "float64"),
                         arr([65504, -0.5, 6e-8], "float16"), arr([0, 255, 128], "uint8"), arr([-2 ** 31, 2 ** 31 - 1], "int32"),
                         arr([-128, 127], "int8"), arr([-2 ** 62, 2 ** 62 + 3], "int64"), arr([True, False, True], "bool")],
          "one array of every dtype MXNet 1.9.1's Python API has, with extreme values")
    write("np_shape", [arr(np.float32(3.5), "float32"), arr(np.zeros((0, 2)), "float32"), arr([1, 2], "int64")],
          "saved under numpy shape semantics (V3 magic): a 0-d scalar, a 0-size array", np_shape=True)
    row_sparse = arr([[0, 0, 0], [1, 2, 3], [0, 0, 0], [4, 5, 6]], "float32").tostype("row_sparse")
    csr = arr([[0, 7, 0], [1, 0, 3], [0, 0, 0]], "float64").tostype("csr")
    csr_built = nd.sparse.csr_matrix(([7.0, 1.0, 3.0], [1, 0, 2], [0, 1, 3, 3]), shape=(3, 3))
    write("sparse", {"row_sparse": row_sparse, "csr": csr, "csr_built": csr_built},
          "row_sparse and csr arrays (loaded densified by neogluon)", resave=False)
    write("bfloat16", [nd.amp_cast(arr([1.5, -2.25, 3.0, 1e-3], "float32"), dtype=BF16)],
          "a bfloat16 array (type flag 12), made with amp_cast")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"generator": "tools/make_extra_fixtures_io.py", "mxnet": mx.__version__, "cases": CASES},
                  f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
