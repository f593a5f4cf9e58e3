"""Hostile inputs for the file loaders and operators, and the check every one must pass:
an MXNetError, or a correct result, with memory bounded by a constant times the input.

Shared by tests/test_safe_fuzz.py (hypothesis draws the mutations) and
tools/fuzz_safe_files.py (a long campaign with ``random``, run offline).

Each ``check_*`` returns "error" (an MXNetError) or "ok" (a result that passed its
consistency checks) and raises AssertionError for anything else: another exception type,
an allocation above the bound, or a result that contradicts itself.
"""
import json
import os
import struct
import tracemalloc

import numpy as np

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray import serialization
from neogluon.optimizer import states as states_io

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
PARAMS_FILES = ["mxnet-1.9.1/params/nested.params", "mxnet-1.9.1/ndarray/list.nd", "mxnet-1.9.1/ndarray/dict.nd",
                "extra/io/sparse.nd", "extra/io/np_shape.nd", "extra/io/bfloat16.nd", "extra/block/model17.params"]
JSON_FILES = ["mxnet-1.9.1/models/lenet-symbol.json", "mxnet-1.9.1/models/mlp_bn_dropout-symbol.json",
              "mxnet-1.9.1/ops/split-symbol.json", "mxnet-1.9.1/ops/add_n-symbol.json"]
STATES_FILES = ["extra/states/sgd_momentum.states", "extra/states/adam.states", "extra/states/sgd_mp_scheduler.states"]

# bytes allocated (as Python and numpy see them) per input byte, plus a fixed allowance
MEMORY_FACTOR = 32
MEMORY_ALLOWANCE = 8 << 20


def fixture(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return f.read()


class Bounded:
    """Traces Python and numpy allocations and asserts the peak stays within
    ``MEMORY_FACTOR * size + allowance``."""

    def __init__(self, size, what, allowance=MEMORY_ALLOWANCE):
        self.limit = MEMORY_FACTOR * size + allowance
        self.what = what

    def __enter__(self):
        self.started = not tracemalloc.is_tracing()
        if self.started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        self.base = tracemalloc.get_traced_memory()[0]
        return self

    def __exit__(self, *exc):
        peak = tracemalloc.get_traced_memory()[1] - self.base
        if self.started:
            tracemalloc.stop()
        assert peak <= self.limit, "%s allocated %d bytes (bound %d)" % (self.what, peak, self.limit)
        return False


# ----------------------------------------------------------------------------- mutations
EXTREMES = [0, 1, 2, 3, 7, 64, 65, 255, 2 ** 16, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 40, 2 ** 63 - 1,
            -1, -2, -(2 ** 31), -(2 ** 63)]


def truncate(blob, cut):
    return blob[:cut % max(1, len(blob))]


def flip(blob, at, bit):
    b = bytearray(blob)
    if b:
        b[at % len(b)] ^= 1 << (bit % 8)
    return bytes(b)


def set_byte(blob, at, value):
    b = bytearray(blob)
    if b:
        b[at % len(b)] = value % 256
    return bytes(b)


def edit_field(blob, at, width, value):
    """Overwrite a 4- or 8-byte little-endian field at ``at`` (a header edit: a count,
    an ndim, a dimension, a type flag or a length) with ``value``."""
    b = bytearray(blob)
    if len(b) < width:
        return blob
    at = at % (len(b) - width + 1)
    fmt = {4: "<i", 8: "<q"}[width]
    lo, hi = (-(2 ** 31), 2 ** 31 - 1) if width == 4 else (-(2 ** 63), 2 ** 63 - 1)
    struct.pack_into(fmt, b, at, max(lo, min(hi, value)))
    return bytes(b)


def mutate_bytes(blob, kind, a, b):
    """One of the byte-level mutations, chosen by ``kind`` with integer parameters a, b."""
    if kind == "cut":
        return truncate(blob, a)
    if kind == "flip":
        return flip(blob, a, b)
    if kind == "byte":
        return set_byte(blob, a, b)
    width = 4 if kind == "field4" else 8
    return edit_field(blob, a, width, EXTREMES[b % len(EXTREMES)])


BYTE_KINDS = ["cut", "flip", "byte", "field4", "field8"]


# ----------------------------------------------------------------------------- checks
def check_params(blob):
    """``nd.load_frombuffer`` of ``blob``: an MXNetError, or arrays that round-trip."""
    with Bounded(len(blob), "nd.load_frombuffer", MEMORY_ALLOWANCE):
        try:
            loaded = mx.nd.load_frombuffer(blob)
        except MXNetError:
            return "error"
    arrays = list(loaded.values()) if isinstance(loaded, dict) else loaded
    for a in arrays:  # what is loaded is what the file holds (a sparse array is its storage)
        t = a._storage.data if a.stype != "default" else a._t
        assert t.numel() * t.element_size() <= len(blob)
    again = mx.nd.load_frombuffer(serialization.dumps(loaded))
    assert type(again) is type(loaded) and len(again) == len(loaded)
    pairs = zip(again.values(), loaded.values()) if isinstance(loaded, dict) else zip(again, loaded)
    for x, y in pairs:
        assert x.shape == y.shape and x.stype == y.stype and x.dtype == y.dtype
        if x.stype != "default":
            x, y = x._storage, y._storage
            assert all(bool((a == b).all()) for a, b in zip(x.aux, y.aux))
            x, y = x.data, y.data
        else:
            x, y = x._t, y._t
        assert bool((x == y).all()) or bool(x.isnan().any())
    return "ok"


def check_states(blob):
    """``optimizer.states.loads``: an MXNetError, or a dict of states (with an optimizer)."""
    with Bounded(len(blob), "states.loads"):
        try:
            obj = states_io.loads(blob)
        except MXNetError:
            return "error"
    states = obj[0] if isinstance(obj, tuple) else obj
    assert isinstance(states, dict)
    return "ok"


def check_json(text):
    """``sym.load_json`` then the symbol's lists, its JSON and its shapes: MXNetError or consistent."""
    with Bounded(len(text), "sym.load_json"):
        try:
            sym = mx.sym.load_json(text)
            args, outs = sym.list_arguments(), sym.list_outputs()
            again = mx.sym.load_json(sym.tojson())
        except MXNetError:
            return "error"
    assert again.list_arguments() == args and again.list_outputs() == outs
    try:
        sym.infer_shape_partial()
    except MXNetError:
        pass
    return "ok"


# JSON mutations: paths into the parsed graph, and what to put there
JSON_VALUES = [None, True, 0, -1, 1, 3, 2 ** 31, 10 ** 8, 10 ** 30, -(10 ** 8), 1.5, float("inf"), "", "x", "0",
               "-1", "100000000", "(2,", "(1000000000, 1000000000)", "((1,),)", "[1]*2", "null", "\x00",
               [], [0], [0, 0], ["0", 0, 0], [0, 99, 0], [-1, 0, 0], [99, 0, 0], [0, 0, -1], {}, {"a": 1}, ["a"]]
ATTR_KEYS = ["num_args", "num_outputs", "__shape__", "__dtype__", "axis", "shape", "kernel", "num_hidden",
             "num_filter", "act_type", "dim", "squeeze_axis", "depth", "reps", "stride", "pad"]


def _paths(obj, prefix=()):
    """Every (path) to a value inside the parsed JSON graph."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _set(obj, path, value):
    if not path:
        return value
    parent = obj
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return obj


def _delete(obj, path):
    if not path:
        return obj
    parent = obj
    for p in path[:-1]:
        parent = parent[p]
    del parent[path[-1]]
    return obj


def mutate_json(text, kind, a, b):
    """A JSON mutation: replace a value, delete one, set a node attribute to a hostile
    value, nest deeply, or cut the text."""
    if kind == "cut":
        return text[:a % max(1, len(text))]
    if kind == "nest":
        depth = 10 + a % 100000
        return "[" * depth + text + "]" * depth
    graph = json.loads(text)
    paths = list(_paths(graph))
    if kind == "replace":
        graph = _set(graph, paths[a % len(paths)], JSON_VALUES[b % len(JSON_VALUES)])
    elif kind == "delete":
        if len(paths) > 1:
            graph = _delete(graph, paths[1 + a % (len(paths) - 1)])
    elif isinstance(graph, dict) and isinstance(graph.get("nodes"), list) and graph["nodes"] \
            and isinstance(graph["nodes"][a % len(graph["nodes"])], dict):  # "attr": a hostile node attribute
        node = graph["nodes"][a % len(graph["nodes"])]
        value = JSON_VALUES[b % len(JSON_VALUES)]
        attrs = node.setdefault("attrs", {})
        if isinstance(attrs, dict):
            attrs[ATTR_KEYS[(a // 7) % len(ATTR_KEYS)]] = value if isinstance(value, str) else json.dumps(value)
    return json.dumps(graph)


JSON_KINDS = ["replace", "delete", "attr", "cut", "nest"]


# ----------------------------------------------------------------------------- operator arguments
ARG_VALUES = [None, True, -(2 ** 40), -3, -1, 0, 1, 2, 3, 5, 2 ** 40, 0.5, -0.5, float("nan"), "", "abc", "-1",
              "(2,", "(1, -1)", (), (0,), (-1,), (2, -3), (1, 1, 1, 1, 1, 1, 1, 1, 1, 1), ("a",), [2, 2], "float99"]

OP_CASES = {  # operator -> (input shapes, argument names that take the drawn values)
    "one_hot": ([(3,)], ["depth", "on_value", "dtype"]),
    "reshape": ([(2, 3)], ["shape", "reverse"]),
    "slice_axis": ([(4, 3)], ["axis", "begin", "end"]),
    "slice": ([(4, 3)], ["begin", "end", "step"]),
    "transpose": ([(2, 3, 4)], ["axes"]),
    "sum": ([(2, 3)], ["axis", "keepdims", "exclude"]),
    "concat": ([(2, 3), (2, 3)], ["dim", "num_args"]),
    "split": ([(4, 6)], ["num_outputs", "axis", "squeeze_axis"]),
    "take": ([(4, 3), (2,)], ["axis", "mode"]),
    "expand_dims": ([(2, 3)], ["axis"]),
    "swapaxes": ([(2, 3)], ["dim1", "dim2"]),
    "flip": ([(2, 3)], ["axis"]),
    "softmax": ([(2, 3)], ["axis", "temperature"]),
    "topk": ([(2, 5)], ["axis", "k", "ret_typ"]),
    "Pooling": ([(1, 1, 6, 6)], ["kernel", "stride", "pad", "pool_type"]),
    "Convolution": ([(1, 2, 5, 5), (3, 2, 3, 3)], ["kernel", "num_filter", "stride", "dilate", "no_bias"]),
    "FullyConnected": ([(2, 4), (3, 4)], ["num_hidden", "no_bias", "flatten"]),
    "Embedding": ([(2,), (5, 3)], ["input_dim", "output_dim"]),
    "pick": ([(3, 4), (3,)], ["axis", "keepdims", "mode"]),
    "broadcast_axis": ([(1, 3)], ["axis", "size"]),
    "squeeze": ([(1, 3, 1)], ["axis"]),
    "clip": ([(2, 3)], ["a_min", "a_max"]),
    "repeat": ([(2, 3)], ["repeats", "axis"]),
    "tile": ([(2, 3)], ["reps"]),
    "pad": ([(1, 1, 3, 3)], ["mode", "pad_width", "constant_value"]),
}


def bounded_size_args(op, kwargs):
    """Drop argument values that would ask for a legitimately huge output (a tile of 2^40
    copies): a correct implementation would try to allocate it, as MXNet does."""
    for k in ("reps", "repeats", "size", "depth", "num_hidden", "num_filter", "output_dim", "input_dim", "k"):
        v = kwargs.get(k)
        vals = v if isinstance(v, (tuple, list)) else [v]
        if any(isinstance(x, int) and not isinstance(x, bool) and x > 64 for x in vals):
            kwargs[k] = 2
    if op == "pad" and "pad_width" in kwargs:
        vals = kwargs["pad_width"] if isinstance(kwargs["pad_width"], (tuple, list)) else [kwargs["pad_width"]]
        if any(isinstance(x, int) and not isinstance(x, bool) and x > 64 for x in vals):
            kwargs["pad_width"] = (0, 0, 0, 0, 1, 1, 1, 1)
    return kwargs


def check_op(op, values):
    """``mx.nd.<op>`` on small inputs with drawn argument values: MXNetError or NDArray results."""
    shapes, names = OP_CASES[op]
    inputs = [mx.nd.array(np.arange(int(np.prod(s))).reshape(s) % 3) for s in shapes]
    kwargs = bounded_size_args(op, {n: v for n, v in zip(names, values) if v is not None})
    try:
        out = getattr(mx.nd, op)(*inputs, **kwargs)
    except MXNetError:
        return "error"
    outs = out if isinstance(out, (list, tuple)) else [out]
    for o in outs:
        assert isinstance(o, mx.nd.NDArray)
        assert all(isinstance(d, int) and d >= 0 for d in o.shape)
        o.asnumpy()
    return "ok"
