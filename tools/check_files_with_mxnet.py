"""Round-trip neogluon's ``nd.save``/``nd.load`` against real MXNet 1.9.1, both ways.

Not part of CI (it needs the reference environment). Run it with the project's Python::

    python3 tools/check_files_with_mxnet.py [--mxnet-python /tmp/mxref/bin/python]

1. neogluon saves a set of arrays (every dtype, empty, 0-d, bool, bfloat16, list / dict /
   single array forms) and their numpy contents;
2. MXNet (in a subprocess of the reference Python) loads each file, checks the contents,
   saves the same arrays itself, and also writes files from the numpy contents;
3. neogluon checks that MXNet's files are byte-identical to its own and loads them back.

Exits non-zero on the first mismatch it reports.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import neogluon as mx  # noqa: E402
from neogluon.ndarray.ndarray import NDArray  # noqa: E402

# Runs under MXNet: argv[1] is the work directory, argv[2:] the case names.
MXNET_SIDE = r'''
import os, sys, json
import numpy as np
import mxnet as mx
work, cases = sys.argv[1], sys.argv[2:]
BF16 = np.dtype([("bfloat16", np.uint16)])
meta = json.load(open(os.path.join(work, "meta.json")))

def as_np(a):
    return a.astype("float32").asnumpy() if a.dtype == BF16 else a.asnumpy()

def from_np(key, v):
    if meta[key] == "bfloat16":
        return mx.nd.amp_cast(mx.nd.array(v, dtype="float32"), dtype=BF16)
    return mx.nd.array(v, dtype=v.dtype)

failed = 0
for case in cases:
    kind = meta[case]
    expect = dict(np.load(os.path.join(work, case + ".npz")))
    np_shape = any(v.ndim == 0 for v in expect.values())
    with mx.util.np_shape(np_shape):
        got = mx.nd.load(os.path.join(work, case + ".ng.nd"))
        items = got.items() if isinstance(got, dict) else [(str(i), a) for i, a in enumerate(got)]
        for key, a in items:
            v = as_np(a)
            if a.dtype != BF16 and v.dtype != expect[key].dtype or not np.array_equal(v, expect[key], equal_nan=True):
                print("MXNet read %s[%s] wrongly: %s %s" % (case, key, v.dtype, v.shape)); failed += 1
        mx.nd.save(os.path.join(work, case + ".resaved.nd"), got)
        arrays = {k: from_np(case + "/" + k, v) for k, v in expect.items()}
        if kind == "dict":
            data = arrays
        else:
            data = [arrays[str(i)] for i in range(len(arrays))]
            data = data[0] if kind == "single" else data
        mx.nd.save(os.path.join(work, case + ".mx.nd"), data)
sys.exit(1 if failed else 0)
'''


def cases():
    """name -> (kind, {key: numpy array}, {key: 'bfloat16'} for arrays to store as bfloat16)."""
    rs = np.random.RandomState(7)
    every = {dt: (rs.randn(2, 3) * 50).astype(dt) for dt in
             ("float32", "float64", "float16", "uint8", "int32", "int8", "int64")}
    every["bool"] = rs.rand(4) > 0.5
    return {
        "dict_every_dtype": ("dict", every, {}),
        "list_shapes": ("list", {"0": rs.randn(1).astype("float32"), "1": rs.randn(2, 3, 4, 5).astype("float64"),
                                 "2": np.zeros((0, 3), "float32"), "3": np.zeros((2, 0), "int64"),
                                 "4": rs.randn(64, 65).astype("float32")}, {}),
        "single": ("single", {"0": np.arange(6, dtype="int32").reshape(2, 3)}, {}),
        "empty_list": ("list", {}, {}),
        "names": ("dict", {"a.b": np.ones(2, "float32"), "w\u00e9ight": np.zeros(1, "int8")}, {}),
        "np_scalar": ("list", {"0": np.array(3.5, "float32"), "1": np.arange(3, dtype="float32")}, {}),
        "bfloat16": ("list", {"0": np.array([1.5, -2.25, 3.0], "float32")}, {"0": "bfloat16"}),
    }


def to_nd(value, bf16):
    t = torch.from_numpy(np.array(value, order="C"))
    return NDArray(t.to(torch.bfloat16) if bf16 else t)


def save_neogluon(work, name, kind, arrays, bf16):
    nds = {k: to_nd(v, k in bf16) for k, v in arrays.items()}
    if kind == "dict":
        data = nds
    else:
        data = [nds[str(i)] for i in range(len(nds))]
        data = data[0] if kind == "single" else data
    mx.nd.save(os.path.join(work, name + ".ng.nd"), data)
    np.savez(os.path.join(work, name + ".npz"), **arrays)


def check_back(work, name, arrays, bf16):
    """MXNet's files equal neogluon's byte for byte, and neogluon reads them back exactly."""
    problems = []
    ours = open(os.path.join(work, name + ".ng.nd"), "rb").read()
    for suffix in (".resaved.nd", ".mx.nd"):
        if not os.path.exists(os.path.join(work, name + suffix)):
            problems.append("MXNet wrote no %s%s" % (name, suffix))
            continue
        theirs = open(os.path.join(work, name + suffix), "rb").read()
        if theirs != ours:
            problems.append("%s%s differs from neogluon's file (%d vs %d bytes)" % (name, suffix, len(theirs), len(ours)))
        got = mx.nd.load(os.path.join(work, name + suffix))
        items = got.items() if isinstance(got, dict) else [(str(i), a) for i, a in enumerate(got)]
        for key, a in items:
            value = a._t.float().numpy() if key in bf16 else a.asnumpy()
            if (key not in bf16 and value.dtype != arrays[key].dtype) or not np.array_equal(value, arrays[key], equal_nan=True):
                problems.append("neogluon read %s%s[%s] wrongly" % (name, suffix, key))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet-python", default=os.environ.get("MXNET_PYTHON", "/tmp/mxref/bin/python"))
    args = parser.parse_args()
    all_cases = cases()
    with tempfile.TemporaryDirectory() as work:
        meta = {}
        for name, (kind, arrays, bf16) in all_cases.items():
            save_neogluon(work, name, kind, arrays, bf16)
            meta[name] = kind
            meta.update({"%s/%s" % (name, k): ("bfloat16" if k in bf16 else str(v.dtype)) for k, v in arrays.items()})
        with open(os.path.join(work, "meta.json"), "w") as f:
            json.dump(meta, f)
        run = subprocess.run([args.mxnet_python, "-c", MXNET_SIDE, work] + list(all_cases), check=False)
        problems = {name: check_back(work, name, arrays, bf16) for name, (_, arrays, bf16) in all_cases.items()}
    if run.returncode != 0:
        problems["(MXNet side)"] = ["MXNet could not read neogluon's files correctly (see above)"]
    failed = [name for name, found in problems.items() if found]
    for name in failed:
        for p in problems[name]:
            print("MISMATCH:", p)
    print("%d passed, %d failed" % (len(all_cases) - len(failed), len(failed)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
