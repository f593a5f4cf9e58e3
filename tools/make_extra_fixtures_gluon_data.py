"""Record MXNet 1.9.1's answers for the gluon.data and gluon.utils cases.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_gluon_data.py

Each case is a snippet run with ``mx``, ``gluon``, ``np``, ``os``, ``tempfile``,
``warnings`` and ``IntervalSampler`` in scope; the value of its last line (or the
exception it raises: class and message) is recorded. The cases and answers go to
``tests/fixtures/extra/gluon_data/cases.json``; ``tests/test_gluon_data.py`` and
``tests/test_gluon_utils.py`` run the same snippets with ``import neogluon as mx``.
"""
import ast
import json
import os
import tempfile
import textwrap
import warnings

import numpy as np
import mxnet as mx
from mxnet import gluon

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "gluon_data",
                   "cases.json")
CASES = []


def case(group, name, snippet, setup=""):
    """Add a case: ``setup`` lines, then ``snippet`` (each dedented on its own)."""
    code = "\n".join(textwrap.dedent(part).strip() for part in (setup, snippet) if part)
    CASES.append({"group": group, "name": name, "code": code})


# ----------------------------------------------------------------------------- samplers
case("sampler", "sequential_start", "list(gluon.data.SequentialSampler(5, 3))")
case("sampler", "sequential_len", "len(gluon.data.SequentialSampler(5, 3))")
for mode in ("keep", "discard", "rollover"):
    for length, bs in ((10, 3), (9, 3), (2, 5), (0, 2)):
        case("sampler", "batch_%s_%d_%d" % (mode, length, bs), """
            b = gluon.data.BatchSampler(gluon.data.SequentialSampler(%d), %d, %r)
            [(len(b), list(b)) for _ in range(4)]
            """ % (length, bs, mode))
case("sampler", "batch_bad_mode_iter", """
    list(gluon.data.BatchSampler(gluon.data.SequentialSampler(10), 3, 'foo'))""")
case("sampler", "batch_bad_mode_even_iter", """
    list(gluon.data.BatchSampler(gluon.data.SequentialSampler(9), 3, 'foo'))""")
case("sampler", "batch_bad_mode_len", """
    len(gluon.data.BatchSampler(gluon.data.SequentialSampler(9), 3, 'foo'))""")
case("sampler", "random_seeded", """
    np.random.seed(3)
    s = gluon.data.RandomSampler(7)
    [list(s) for _ in range(3)] + [len(s)]""")
case("sampler", "filter", "list(gluon.data.FilterSampler(lambda x: x % 3 == 0, list(range(10))))")
case("sampler", "filter_len", "len(gluon.data.FilterSampler(lambda x: x > 6, list(range(10))))")
case("sampler", "interval", "list(IntervalSampler(13, interval=3))")
case("sampler", "interval_no_rollover", "list(IntervalSampler(13, interval=3, rollover=False))")
case("sampler", "interval_equal", "list(IntervalSampler(4, 4))")
case("sampler", "interval_too_big", "IntervalSampler(3, 4)")

# ----------------------------------------------------------------------------- datasets
case("dataset", "array_mixed_item", """
    ds = gluon.data.ArrayDataset(np.arange(12).reshape(6, 2), mx.nd.arange(6) * 2,
                                 mx.nd.ones((6, 3)), list('abcdef'))
    ds[4]""")
case("dataset", "array_single", "gluon.data.ArrayDataset(np.arange(12.).reshape(6, 2))[5]")
case("dataset", "array_single_nd1d", "gluon.data.ArrayDataset(mx.nd.arange(6))[5]")
case("dataset", "array_len", "len(gluon.data.ArrayDataset(list(range(7)), np.zeros(7)))")
case("dataset", "array_mismatch", "gluon.data.ArrayDataset(np.zeros(5), list(range(7)), np.zeros(5))")
case("dataset", "array_mismatch_nd", "gluon.data.ArrayDataset(mx.nd.zeros((5, 2)), mx.nd.zeros(4))")
case("dataset", "array_empty", "gluon.data.ArrayDataset()")
case("dataset", "simple", """
    ds = gluon.data.SimpleDataset([1, 'a', 2.5])
    (len(ds), ds[1], ds[2])""")
case("dataset", "transform_lazy", """
    ds = gluon.data.ArrayDataset(list(range(5)), list(range(10, 15)))
    t = ds.transform(lambda x, y: (x * 2, y + x))
    (len(t), t[3], [t[i] for i in range(len(t))])""")
case("dataset", "transform_eager", """
    calls = []
    ds = gluon.data.SimpleDataset(list(range(4)))
    t = ds.transform(lambda x: calls.append(x) or x * x, lazy=False)
    (calls, [t[i] for i in range(len(t))], type(t).__name__)""")
case("dataset", "transform_first", """
    ds = gluon.data.ArrayDataset(list(range(5)), list(range(10, 15)))
    t = ds.transform_first(lambda x: -x)
    [t[i] for i in range(len(t))]""")
case("dataset", "transform_first_single", """
    t = gluon.data.SimpleDataset([1, 2, 3]).transform_first(lambda x: x + 100)
    [t[i] for i in range(len(t))]""")
case("dataset", "filter", """
    ds = gluon.data.SimpleDataset(list(range(10))).filter(lambda x: x % 4 == 1)
    (len(ds), [ds[i] for i in range(len(ds))])""")
case("dataset", "filter_tuples", """
    ds = gluon.data.ArrayDataset(list(range(6)), list('abcdef')).filter(lambda s: s[1] in 'bdf')
    [ds[i] for i in range(len(ds))]""")
for length, n in ((10, 3), (2, 3), (9, 3), (7, 1)):
    case("dataset", "shard_%d_%d" % (length, n), """
        ds = gluon.data.SimpleDataset(list(range(%d)))
        [[s[i] for i in range(len(s))] for s in (ds.shard(%d, k) for k in range(%d))]
        """ % (length, n, n))
case("dataset", "shard_bad_index", "gluon.data.SimpleDataset([1, 2]).shard(2, 2)")
case("dataset", "shard_negative", "gluon.data.SimpleDataset([1, 2]).shard(2, -1)")
case("dataset", "take", """
    ds = gluon.data.SimpleDataset(list(range(5)))
    [[t[i] for i in range(len(t))] for t in (ds.take(3), ds.take(None), ds.take(100), ds.take(0))]""")
case("dataset", "sample", """
    ds = gluon.data.SimpleDataset(list('abcdefg')).sample(IntervalSampler(7, 3))
    [ds[i] for i in range(len(ds))]""")
case("dataset", "sample_bad", "gluon.data.SimpleDataset([1, 2]).sample([0, 1])")
case("dataset", "chained", """
    ds = gluon.data.SimpleDataset(list(range(20))).filter(lambda x: x % 2 == 0).shard(3, 1)
    ds = ds.transform(lambda x: x * 10).take(2)
    [ds[i] for i in range(len(ds))]""")
case("dataset", "iterate_array", "list(gluon.data.ArrayDataset(np.arange(3), [5, 6, 7]))")

# ----------------------------------------------------------------------------- DataLoader
LOADER_DS = "ds = gluon.data.ArrayDataset(np.arange(20, dtype='float32').reshape(10, 2), list(range(10)))"
for mode in ("keep", "discard", "rollover"):
    case("loader", "sequential_%s" % mode, """
        dl = gluon.data.DataLoader(ds, batch_size=4, last_batch=%r)
        [(len(dl), [b for b in dl]) for _ in range(3)]""" % mode, setup=LOADER_DS)
    case("loader", "shuffle_%s" % mode, """
        np.random.seed(7)
        dl = gluon.data.DataLoader(ds, batch_size=3, shuffle=True, last_batch=%r)
        [[y for x, y in dl] for _ in range(3)]""" % mode, setup=LOADER_DS)
case("loader", "default_len", "len(gluon.data.DataLoader(ds, 3))", setup=LOADER_DS)
case("loader", "batchify_ints", "list(gluon.data.DataLoader(list(range(5)), batch_size=2))")
case("loader", "batchify_floats", "list(gluon.data.DataLoader([0.5, 1.5, 2.5], batch_size=2))")
case("loader", "batchify_np_scalars", """
    list(gluon.data.DataLoader(np.arange(5, dtype='float16'), batch_size=3))""")
case("loader", "batchify_ndarray_dataset", """
    list(gluon.data.DataLoader(mx.nd.arange(12, dtype='int32').reshape((6, 2)), batch_size=4))""")
case("loader", "batchify_ndarray_samples", """
    ds = gluon.data.SimpleDataset([mx.nd.ones((2, 2), dtype='float64') * i for i in range(3)])
    list(gluon.data.DataLoader(ds, batch_size=3))""")
case("loader", "batchify_nested_tuples", """
    ds = gluon.data.SimpleDataset([(mx.nd.ones(2) * i, (i, float(i) / 2)) for i in range(5)])
    list(gluon.data.DataLoader(ds, batch_size=2))""")
case("loader", "batchify_numpy_rows", """
    list(gluon.data.DataLoader(np.arange(12, dtype='uint8').reshape(4, 3), batch_size=2))""")
case("loader", "custom_batchify", """
    dl = gluon.data.DataLoader(list(range(7)), batch_size=3, batchify_fn=lambda s: sum(s))
    list(dl)""")
case("loader", "batch_sampler", """
    bs = gluon.data.BatchSampler(IntervalSampler(7, 2), 3, 'discard')
    dl = gluon.data.DataLoader(list(range(100, 107)), batch_sampler=bs)
    (len(dl), list(dl))""")
case("loader", "sampler_arg", """
    dl = gluon.data.DataLoader(list(range(10)), batch_size=4, sampler=IntervalSampler(10, 3))
    list(dl)""")
case("loader", "no_batch_size", "gluon.data.DataLoader(list(range(4)))")
case("loader", "shuffle_and_sampler", """
    gluon.data.DataLoader(list(range(4)), 2, shuffle=True, sampler=gluon.data.SequentialSampler(4))""")
case("loader", "batch_sampler_and_size", """
    bs = gluon.data.BatchSampler(gluon.data.SequentialSampler(4), 2)
    gluon.data.DataLoader(list(range(4)), 2, batch_sampler=bs)""")
case("loader", "batch_sampler_and_last_batch", """
    bs = gluon.data.BatchSampler(gluon.data.SequentialSampler(4), 2)
    gluon.data.DataLoader(list(range(4)), batch_sampler=bs, last_batch='keep')""")
case("loader", "bad_timeout", "gluon.data.DataLoader(list(range(4)), 2, timeout=0)")
case("loader", "bad_last_batch", "list(gluon.data.DataLoader(list(range(5)), 2, last_batch='x'))")
case("loader", "transform_first_pipeline", """
    ds = gluon.data.ArrayDataset(mx.nd.arange(8).reshape((4, 2)), np.arange(4) % 2)
    dl = gluon.data.DataLoader(ds.transform_first(lambda x: x * 2), batch_size=3)
    list(dl)""")
case("loader", "thread_pool", """
    np.random.seed(11)
    dl = gluon.data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, thread_pool=True)
    [list(dl) for _ in range(2)]""", setup=LOADER_DS)
case("loader", "auto_reload", """
    np.random.seed(5)
    dl = gluon.data.DataLoader(ds, batch_size=4, shuffle=True, auto_reload=True)
    first = [y for x, y in dl]
    np.random.seed(5)
    (first, [y for x, y in dl])""", setup=LOADER_DS)

# ----------------------------------------------------------------------------- gluon.utils
case("utils", "split_even", "gluon.utils.split_data(mx.nd.arange(12).reshape((6, 2)), 3)")
case("utils", "split_uneven", "gluon.utils.split_data(mx.nd.arange(10).reshape((5, 2)), 3, even_split=False)")
case("utils", "split_more_slices", "gluon.utils.split_data(mx.nd.arange(6).reshape((3, 2)), 5, even_split=False)")
case("utils", "split_axis1", "gluon.utils.split_data(mx.nd.arange(24).reshape((2, 6, 2)), 4, 1, False)")
case("utils", "split_one", "gluon.utils.split_data(mx.nd.arange(4), 1)")
case("utils", "split_error", "gluon.utils.split_data(mx.nd.zeros((5, 2)), 2)")
case("utils", "split_error_axis1", "gluon.utils.split_data(mx.nd.zeros((2, 5, 3)), 3, batch_axis=1)")
case("utils", "split_int_dtype", "gluon.utils.split_data(mx.nd.arange(6, dtype='int64'), 2)")
case("utils", "split_and_load_numpy", """
    gluon.utils.split_and_load(np.arange(10).reshape(5, 2), [mx.cpu(0), mx.cpu(0)], even_split=False)""")
case("utils", "split_and_load_one", "gluon.utils.split_and_load(mx.nd.arange(5), [mx.cpu()])")
case("utils", "split_and_load_list", "gluon.utils.split_and_load([[1, 2], [3, 4]], [mx.cpu(), mx.cpu()])")
case("utils", "split_and_load_error", "gluon.utils.split_and_load(mx.nd.zeros((3, 2)), [mx.cpu()] * 2)")
case("utils", "clip_scaled", """
    a = [mx.nd.ones((2, 3)), mx.nd.arange(4) - 1.5]
    norm = gluon.utils.clip_global_norm(a, 1.0)
    (norm, a)""")
case("utils", "clip_unscaled", """
    a = [mx.nd.ones((2, 3)) * 0.1, mx.nd.array([0.2, -0.3])]
    norm = gluon.utils.clip_global_norm(a, 5.0)
    (norm, a)""")
case("utils", "clip_no_check", """
    a = [mx.nd.ones((3, 3)), mx.nd.ones((1,))]
    norm = gluon.utils.clip_global_norm(a, 2.0, check_isfinite=False)
    (norm, a)""")
case("utils", "clip_nonfinite", """
    a = [mx.nd.array([np.inf, 1.0]), mx.nd.ones(2)]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        norm = gluon.utils.clip_global_norm(a, 1.0)
    (norm, [(x.category.__name__, str(x.message)) for x in w])""")
case("utils", "clip_empty", "gluon.utils.clip_global_norm([], 1.0)")
case("utils", "check_sha1", """
    d = tempfile.mkdtemp()
    p = os.path.join(d, 'f.bin')
    open(p, 'wb').write(b'neogluon' * 1000)
    (gluon.utils.check_sha1(p, 'a7b1cd0ad4e9d3cf3d9d3c4a1d95f1de1b2fa1f6'),
     gluon.utils.check_sha1(p, __import__('hashlib').sha1(b'neogluon' * 1000).hexdigest()))""")
case("utils", "indent", "gluon.utils._indent('a\\nb\\n c', 2)")
case("utils", "indent_single", "gluon.utils._indent('abc', 4)")
case("utils", "brief_print_list", "(gluon.utils._brief_print_list(range(10)), gluon.utils._brief_print_list('abc'))")
case("utils", "shape_is_known", """
    [gluon.utils.shape_is_known(s) for s in [None, (), (0, 2), (3, 2), (1,)]]""")
case("utils", "shape_is_known_negative", "gluon.utils.shape_is_known((2, -1))")
case("utils", "download_no_file_name", "gluon.utils.download('http://example.com/dir/')")


# ----------------------------------------------------------------------------- recording
def encode(value):
    """A JSON description of a value: its kind, type or dtype, shape and contents."""
    if isinstance(value, mx.nd.NDArray):
        return {"kind": "ndarray", "dtype": np.dtype(value.dtype).name, "shape": list(value.shape),
                "value": value.asnumpy().tolist()}
    if isinstance(value, np.ndarray):
        return {"kind": "numpy", "dtype": value.dtype.name, "shape": list(value.shape),
                "value": value.tolist()}
    if isinstance(value, np.generic):
        return {"kind": "npscalar", "dtype": value.dtype.name, "value": value.item()}
    if isinstance(value, (list, tuple)):
        return {"kind": type(value).__name__, "items": [encode(v) for v in value]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"kind": "py", "type": type(value).__name__, "value": value}
    raise TypeError("cannot record a %s" % type(value))


def run(code):
    """The value of the snippet's last line, run with MXNet."""
    env = {"mx": mx, "gluon": gluon, "np": np, "os": os, "tempfile": tempfile, "warnings": warnings,
           "IntervalSampler": gluon.contrib.data.IntervalSampler}
    tree = ast.parse(code)
    last = tree.body.pop()
    exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
    return eval(compile(ast.Expression(last.value), "<case>", "eval"), env)  # pylint: disable=eval-used


def record(c):
    try:
        c["expected"] = encode(run(c["code"]))
    except Exception as err:  # pylint: disable=broad-except
        c["expected"] = {"kind": "error", "type": type(err).__name__, "message": str(err)}
    return c


def main():
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    cases = [record(c) for c in CASES]
    with open(OUT, "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": cases}, f, indent=1)
    print("%d cases -> %s" % (len(cases), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()
