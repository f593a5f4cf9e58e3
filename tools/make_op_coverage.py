"""Write the operator coverage table: every legacy operator name of MXNet 1.9.1, whether
neogluon registers it, where its recorded MXNet cases are, and why it is missing if it is.

Run from the project's environment (it reads neogluon's registry; MXNet's operator list
comes from the reference interpreter through a subprocess, once, and is kept in
``tests/fixtures/mxnet_op_names.txt``)::

    PYTHONPATH=$PWD python tools/make_op_coverage.py            # rewrite the table
    PYTHONPATH=$PWD python tools/make_op_coverage.py --refresh  # re-read MXNet's list too

MXNet's list is ``MXListAllOpNames`` of the CPU build minus the ``_backward_*`` passes and
the NumPy interface (``_np*``, ``_npi*``, ``_npx*``). The table,
``tests/fixtures/op_coverage.tsv``, has one line per name: ``name``, ``status``
(``registered``, ``open`` or ``omitted``), ``cases`` (the fixture files that record MXNet's
answers for the name's operator, or why there can be none) and ``note`` (for a name not
registered: the one-line reason). ``tests/test_op_coverage.py`` checks it against the
registry and the fixtures.
"""
import argparse
import fnmatch
import glob
import json
import os
import subprocess
import sys
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
NAMES = os.path.join(FIXTURES, "mxnet_op_names.txt")
TABLE = os.path.join(FIXTURES, "op_coverage.tsv")
MXPYTHON = os.environ.get("MXNET_PYTHON", "/work/mxref/bin/python")

_LIST_SCRIPT = r"""
import ctypes
import mxnet
from mxnet.base import _LIB, check_call, py_str
size, names = ctypes.c_uint(), ctypes.POINTER(ctypes.c_char_p)()
check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
print("\n".join(sorted(py_str(names[i]) for i in range(size.value))))
"""

OPEN = "open: issue 12"

# Names neogluon does not register on purpose (status 'omitted'), with the reason; matched in
# order with fnmatch patterns.
OMITTED = [
    ("_contrib_backward_*", "a backward pass (MXNet's gradient node); neogluon differentiates with autograd"),
    ("_split_v2_backward", "a backward pass (MXNet's gradient node); neogluon differentiates with autograd"),
    ("_broadcast_backward", "a backward pass (MXNet's gradient node); neogluon differentiates with autograd"),
    ("_CachedOp", "MXNet's node for a hybridized block inside a graph; neogluon's executor inlines the block"),
    ("_CachedOpThreadSafe", "MXNet's node for a hybridized block inside a graph; neogluon's executor inlines the block"),
    ("_NoGradient", "MXNet's placeholder for a missing gradient inside its backward graph"),
    ("_CrossDeviceCopy", "inserted by MXNet's executor between devices (group2ctx); neogluon runs a graph on one device"),
    ("_copyto", "NDArray.copyto's engine operation, not an operator a graph or user calls"),
    ("_NDArray", "the NDArrayOp frontend's C callback operator: mx.operator.NDArrayOp runs as a Custom node"),
    ("_Native", "the NumpyOp frontend's C callback operator: mx.operator.NumpyOp runs as a Custom node"),
    ("_sg_mkldnn_*", "an MKL-DNN subgraph fusion written only by optimize_for('MKLDNN'); no model file contains it"),
    ("_contrib_quantize_asym", "MXNet 1.9.1's CPU build crashes (segmentation fault) running it, imperatively or "
                               "in a bound graph: no answer to match"),
    ("_contrib_quantized_rnn", "MXNet 1.9.1's INT8 LSTM (oneDNN only, reached through quantize_net); not built"),
    ("_contrib_fft", "GPU-only in MXNet 1.9.1 (its CPU build raises 'fft is only available for GPU')"),
    ("_contrib_ifft", "GPU-only in MXNet 1.9.1 (its CPU build raises 'ifft is only available for GPU')"),
    ("_contrib_count_sketch", "GPU-only in MXNet 1.9.1 (its CPU build raises 'CountSketch is only available for GPU')"),
    ("_set_value", "MXNet 0.x's fill of an out= array (arr[:] = v) with no inputs or shape; NDArray assignment does it"),
]

# Notes for names still open (matched in order; anything else is plain OPEN).
OPEN_NOTES = [
    ("_contrib_box_*", OPEN + " (detection operators: another branch)"),
    ("_contrib_bipartite_matching", OPEN + " (detection operators: another branch)"),
    ("_contrib_MultiBox*", OPEN + " (detection operators: another branch)"),
    ("_contrib_*Proposal", OPEN + " (detection operators: another branch)"),
    ("_contrib_*ROI*", OPEN + " (detection operators: another branch)"),
    ("_contrib_*Deformable*", OPEN + " (spatial operators: another branch)"),
    ("BilinearSampler", OPEN + " (spatial operators: another branch)"),
    ("GridGenerator", OPEN + " (spatial operators: another branch)"),
    ("SpatialTransformer", OPEN + " (spatial operators: another branch)"),
    ("Correlation", OPEN + " (spatial operators: another branch)"),
    ("Crop", OPEN + " (spatial operators: another branch)"),
    ("_foreach", OPEN + " (control flow with subgraphs in JSON)"),
    ("_while_loop", OPEN + " (control flow with subgraphs in JSON)"),
    ("_cond", OPEN + " (control flow with subgraphs in JSON)"),
    ("Custom", OPEN + " (the mx.operator.CustomOp frontend is not built)"),
    ("_CustomFunction", OPEN + " (autograd.Function's MXNet node; the mx.operator frontend is not built)"),
    ("_image_*", OPEN + " (mx.nd.image / gluon.data.vision.transforms operators)"),
    ("_cv*", OPEN + " (OpenCV image I/O operators of mx.image)"),
    ("_imdecode", OPEN + " (OpenCV image I/O operators of mx.image)"),
]

# Registered names whose MXNet answers cannot be recorded, with the reason (status stays
# 'registered'; the test accepts these instead of a fixture).
NO_CASES = [
    ("_random_*", "random: MXNet's generator stream cannot be reproduced; tests/test_random.py checks "
                  "distributions statistically"),
    ("_sample_*", "random: see _random_*"),
    ("random_*", "random: see _random_*"),
    ("sample_*", "random: see _random_*"),
    ("normal", "random: see _random_*"),
    ("uniform", "random: see _random_*"),
    ("_shuffle", "random: see _random_*"),
    ("shuffle", "random: see _random_*"),
    ("_image_random_*", "random: torch's generator draws the factors and flips; tests/test_image_ops.py checks "
                        "bounds and distributions (the kernels with fixed factors are recorded)"),
    ("_zeros_without_dtype", "MXNet 1.9.1 cannot run it outside a graph ('Unknown type enum -1'); "
                             "tests/test_ops_misc.py checks its zeros"),
]


def mxnet_names(refresh=False):
    if refresh or not os.path.exists(NAMES):
        out = subprocess.run([MXPYTHON, "-c", _LIST_SCRIPT], capture_output=True, text=True, check=True).stdout
        with open(NAMES, "w") as f:
            f.write(out.strip() + "\n")
    with open(NAMES) as f:
        names = f.read().split()
    return [n for n in names if not n.startswith("_backward_") and not n.startswith(("_np", "_npi", "_npx"))]


def _walk_ops(value, found):
    if isinstance(value, dict):
        op = value.get("op")
        if isinstance(op, str):
            found.add(op)
        for v in value.values():
            _walk_ops(v, found)
    elif isinstance(value, list):
        for v in value:
            _walk_ops(v, found)


# The vision fixtures (tools/make_extra_fixtures_vision.py) key their cases by what MXNet
# call recorded them rather than by an "op" field: these key prefixes run these operators.
VISION_CASES = os.path.join("extra", "vision", "cases.json")
VISION_CASE_OPS = [
    ("op/adjust_lighting/", "_image_adjust_lighting"), ("op/brightness/", "_image_random_brightness"),
    ("op/contrast/", "_image_random_contrast"), ("op/saturation/", "_image_random_saturation"),
    ("op/hue/", "_image_random_hue"), ("op/crop", "_image_crop"), ("grad/crop", "_image_crop"),
    ("op/flip_left_right", "_image_flip_left_right"), ("grad/flip_left_right", "_image_flip_left_right"),
    ("op/flip_top_bottom", "_image_flip_top_bottom"), ("op/normalize", "_image_normalize"),
    ("grad/normalize", "_image_normalize"), ("op/resize", "_image_resize"), ("op/to_tensor", "_image_to_tensor"),
    ("border/", "_cvcopyMakeBorder"), ("imresize/", "_cvimresize"), ("decode/", "_cvimdecode"),
    ("imread/", "_cvimread"),
]


def _vision_ops(cases, found):
    for key in cases:
        for prefix, op in VISION_CASE_OPS:
            if key.startswith(prefix):
                found.add(op)


def recorded_ops():
    """``{operator name: set of fixture files (relative to tests/fixtures)}`` for every name
    that a recorded fixture runs: ``"op"`` fields of JSON files (case lists and MXNet's
    ``-symbol.json`` graphs) and the ``op`` entry of ``.npz`` cases."""
    import numpy as np
    where = {}
    for path in sorted(glob.glob(os.path.join(FIXTURES, "**", "*"), recursive=True)):
        rel = os.path.relpath(path, FIXTURES)
        found = set()
        if path.endswith(".json"):
            try:
                with open(path) as f:
                    content = json.load(f)
                _walk_ops(content, found)
                if rel == VISION_CASES:
                    _vision_ops(content, found)
            except (ValueError, UnicodeDecodeError):
                continue
        elif path.endswith(".npz"):
            try:
                with np.load(path) as data:
                    if "op" in data.files and data["op"].dtype.kind == "U":
                        found.add(str(data["op"]))
                    for key in data.files:  # the pdf fixtures key cases by distribution
                        if rel == os.path.join("extra", "random", "pdf.npz"):
                            found.add("_random_pdf_" + key.split("/")[0].replace("_log", ""))
            except (ValueError, OSError, zipfile.BadZipFile):
                continue
        for op in found:
            where.setdefault(op, set()).add(os.path.dirname(rel) if path.endswith(".npz") else rel)
    return where


def _match(name, table):
    for pattern, reason in table:
        if fnmatch.fnmatchcase(name, pattern):
            return reason
    return None


def build_rows():
    from neogluon.operator import registry
    recorded = recorded_ops()
    by_op = {}
    for op_name, files in recorded.items():
        if registry.exists(op_name):
            by_op.setdefault(registry.get(op_name), set()).update(files)
    rows = []
    for name in mxnet_names():
        if registry.exists(name):
            files = by_op.get(registry.get(name))
            cases = "; ".join(sorted(files)) if files else ("none: " + (_match(name, NO_CASES) or "not recorded"))
            rows.append((name, "registered", cases, ""))
        else:
            reason = _match(name, OMITTED)
            rows.append((name, "omitted" if reason else "open", "-", reason or _match(name, OPEN_NOTES) or OPEN))
    return rows


def write(rows):
    with open(TABLE, "w") as f:
        f.write("# MXNet 1.9.1's legacy operators in neogluon; written by tools/make_op_coverage.py\n")
        f.write("name\tstatus\tcases\tnote\n")
        for row in rows:
            f.write("\t".join(row) + "\n")


def summary(rows):
    total = len(rows)
    registered = sum(r[1] == "registered" for r in rows)
    omitted = sum(r[1] == "omitted" for r in rows)
    with_cases = sum(r[1] == "registered" and not r[2].startswith("none") for r in rows)
    return ("%d legacy operator names: %d registered (%.1f%%; %d with recorded MXNet cases), "
            "%d omitted with a reason, %d open" % (total, registered, 100.0 * registered / total, with_cases,
                                                   omitted, total - registered - omitted))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refresh", action="store_true", help="re-read MXNet's operator list")
    args = parser.parse_args()
    mxnet_names(args.refresh)
    rows = build_rows()
    write(rows)
    print(summary(rows))


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    main()
