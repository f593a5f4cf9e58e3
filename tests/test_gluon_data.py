"""gluon.data against MXNet 1.9.1: samplers, datasets and the DataLoader.

The recorded cases (tests/fixtures/extra/gluon_data/cases.json, made by
tools/make_extra_fixtures_gluon_data.py) run here with ``import neogluon as mx`` and are
compared by type, dtype, shape and value, errors by class and message. Worker processes
and threads must give exactly the batches of the single-process loader.
"""
import ast
import json
import os
import pickle
import tempfile
import time
import warnings

import numpy as np
import pytest
from multiprocessing.reduction import ForkingPickler

import neogluon as mx
from neogluon import gluon
from neogluon.gluon.data import (ArrayDataset, BatchSampler, DataLoader, SequentialSampler,
                                 SimpleDataset)

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "gluon_data", "cases.json")
CASES = json.load(open(FIXTURE))["cases"]


def cases(*groups):
    """pytest parameters for the recorded cases of ``groups``."""
    return [pytest.param(c, id="%s-%s" % (c["group"], c["name"])) for c in CASES if c["group"] in groups]


def run_snippet(code):
    """The value of the snippet's last line, run with neogluon as ``mx``."""
    env = {"mx": mx, "gluon": gluon, "np": np, "os": os, "tempfile": tempfile, "warnings": warnings,
           "IntervalSampler": gluon.data.IntervalSampler}
    tree = ast.parse(code)
    last = tree.body.pop()
    exec(compile(tree, "<case>", "exec"), env)  # pylint: disable=exec-used
    return eval(compile(ast.Expression(last.value), "<case>", "eval"), env)  # pylint: disable=eval-used


def _check_array(actual, expected, where):
    cls = mx.nd.NDArray if expected["kind"] == "ndarray" else np.ndarray
    assert isinstance(actual, cls), "%s: %r is not a %s" % (where, type(actual), cls.__name__)
    dtype = np.dtype(actual.dtype).name
    assert dtype == expected["dtype"], "%s: dtype %s, MXNet %s" % (where, dtype, expected["dtype"])
    assert list(actual.shape) == expected["shape"], \
        "%s: shape %s, MXNet %s" % (where, actual.shape, expected["shape"])
    values = actual.asnumpy() if cls is mx.nd.NDArray else actual
    want = np.asarray(expected["value"], np.float64).reshape(expected["shape"])
    np.testing.assert_allclose(values.astype(np.float64), want, rtol=1e-6, atol=1e-6, err_msg=where)


def check_value(actual, expected, where="result"):
    """Compare a neogluon value with its MXNet encoding (see the generator's ``encode``)."""
    kind = expected["kind"]
    if kind in ("ndarray", "numpy"):
        _check_array(actual, expected, where)
    elif kind == "npscalar":
        assert isinstance(actual, np.generic), "%s: %r is not a numpy scalar" % (where, type(actual))
        assert actual.dtype.name == expected["dtype"], \
            "%s: dtype %s, MXNet %s" % (where, actual.dtype, expected["dtype"])
        assert actual.item() == pytest.approx(expected["value"], rel=1e-6, nan_ok=True), where
    elif kind in ("list", "tuple"):
        assert type(actual).__name__ == kind, "%s: %r is not a %s" % (where, type(actual), kind)
        assert len(actual) == len(expected["items"]), \
            "%s: length %d, MXNet %d" % (where, len(actual), len(expected["items"]))
        for i, (a, e) in enumerate(zip(actual, expected["items"])):
            check_value(a, e, "%s[%d]" % (where, i))
    else:
        assert type(actual).__name__ == expected["type"], \
            "%s: %r, MXNet gives a %s" % (where, actual, expected["type"])
        want = pytest.approx(expected["value"]) if expected["type"] == "float" else expected["value"]
        assert actual == want, "%s: %r, MXNet %r" % (where, actual, expected["value"])


def check_case(case):
    """Run a recorded case and compare with MXNet's answer (value, or error and message)."""
    expected = case["expected"]
    if expected["kind"] == "error":
        with pytest.raises(Exception) as info:
            run_snippet(case["code"])
        assert type(info.value).__name__ == expected["type"], \
            "raised %r, MXNet raised %s(%s)" % (info.value, expected["type"], expected["message"])
        assert str(info.value) == expected["message"]
    else:
        check_value(run_snippet(case["code"]), expected)


@pytest.mark.parametrize("case", cases("sampler", "dataset", "loader"))
def test_mxnet_case(case):
    check_case(case)


# ----------------------------------------------------------------------------- workers
def _labels(loader):
    return [[b.asnumpy().tolist() for b in batch] for batch in loader]


def _scaled(x, y):
    """A transform defined at module level (workers need no pickling under fork anyway)."""
    return x * 2, y


def test_workers_match_single_process():
    data = np.arange(60, dtype=np.float32).reshape(20, 3)
    ds = ArrayDataset(mx.nd.array(data), np.arange(20)).transform(_scaled)
    expected = []
    for seed in (0, 1):
        np.random.seed(seed)
        expected.append(_labels(DataLoader(ds, batch_size=6, shuffle=True, last_batch="rollover")))
    for kwargs in ({"num_workers": 2}, {"num_workers": 2, "thread_pool": True},
                   {"num_workers": 2, "prefetch": 1}):
        got = []
        loader = None
        for seed in (0, 1):
            np.random.seed(seed)
            loader = DataLoader(ds, batch_size=6, shuffle=True, last_batch="rollover", **kwargs)
            got.append(_labels(loader))
        assert got == expected, kwargs
        assert len(loader) == 3


def test_worker_batches_are_ndarrays_in_shared_memory():
    loader = DataLoader(ArrayDataset(np.ones((5, 2), np.float16), list(range(5))), batch_size=2,
                        num_workers=2)
    batches = list(loader)
    assert [len(b) for b in batches] == [2, 2, 2]
    x, y = batches[-1]
    assert isinstance(x, mx.nd.NDArray) and x.dtype == np.float16 and x.shape == (1, 2)
    assert y.dtype == np.int64 and y.asnumpy().tolist() == [4]
    assert (x + 1).asnumpy().tolist() == [[2.0, 2.0]]


def test_worker_lambda_batchify_and_two_epochs():
    """The dataset and batchify function reach the workers once, at fork; lambdas work."""
    loader = DataLoader(SimpleDataset(list(range(9))).transform(lambda v: v * v), batch_size=4,
                        batchify_fn=lambda s: mx.nd.array(s).sum(), num_workers=2)
    for _ in range(2):
        assert [b.asscalar() for b in loader] == [14.0, 126.0, 64.0]


def _explode(x):
    raise KeyError("bad sample %d" % x)


def test_worker_error_reaches_the_caller():
    loader = DataLoader(SimpleDataset([1, 2, 3]).transform(_explode), batch_size=2, num_workers=1)
    with pytest.raises(KeyError, match="bad sample 1"):
        list(loader)


def test_thread_pool_timeout():
    slow = SimpleDataset([0, 1]).transform(lambda v: time.sleep(0.5) or v)
    loader = DataLoader(slow, batch_size=1, num_workers=1, thread_pool=True, timeout=0.05)
    with pytest.raises(Exception, match="timed out after 0.05 seconds"):
        list(loader)


# ----------------------------------------------------------------------------- local behaviour
def test_auto_reload_prefetches_next_epoch():
    seen = []
    ds = SimpleDataset(list(range(4))).transform(lambda v: seen.append(v) or v)
    loader = DataLoader(ds, batch_size=2, num_workers=1, thread_pool=True, prefetch=1, auto_reload=True)
    assert loader._iter is not None
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [2, 3]]
    assert loader._iter is not None
    loader.clean()
    assert loader._iter is None


def test_ndarray_pickles_through_forking_pickler():
    a = mx.nd.arange(6).reshape((2, 3))
    b = pickle.loads(ForkingPickler.dumps(a))
    assert isinstance(b, mx.nd.NDArray) and b.asnumpy().tolist() == a.asnumpy().tolist()


def test_pin_memory_without_gpu_keeps_batches():
    loader = DataLoader(np.arange(6, dtype=np.float32), batch_size=4, pin_memory=True)
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]]


def test_interval_sampler_len_counts_produced_indices():
    """MXNet's len is ``length`` even without rollover; here it is what iteration yields."""
    sampler = gluon.data.IntervalSampler(13, 3, rollover=False)
    assert len(sampler) == len(list(sampler)) == 5
    assert len(gluon.data.IntervalSampler(13, 3)) == 13


def test_batch_sampler_over_custom_sampler():
    class Evens(gluon.data.Sampler):
        def __iter__(self):
            return iter(range(0, 10, 2))

        def __len__(self):
            return 5

    batches = BatchSampler(Evens(), 2, "rollover")
    assert list(batches) == [[0, 2], [4, 6]]
    assert len(batches) == 3 and list(batches) == [[8, 0], [2, 4], [6, 8]]
    loader = DataLoader(list(range(10)), batch_sampler=BatchSampler(SequentialSampler(3, 7), 2))
    assert [b.asnumpy().tolist() for b in loader] == [[7, 8], [9]]


def test_dataset_iteration_stops_at_len():
    """Iteration follows ``len`` even when ``__getitem__`` never raises IndexError."""
    class Squares(gluon.data.Dataset):
        def __getitem__(self, idx):
            return idx * idx

        def __len__(self):
            return 4

    assert list(Squares()) == [0, 1, 4, 9]
    assert [s for s in Squares().filter(lambda v: v % 2 == 0)] == [0, 4]
    assert list(Squares().transform(lambda v: -v, lazy=False)) == [0, -1, -4, -9]


def test_dataloader_v1_and_its_queues_give_the_same_batches():
    """MXNet 1.x's first loader (``DataLoaderV1``, kept in ``gluon.data.dataloader``) gives
    the batches of ``DataLoader``, in process and with worker processes; ``_as_in_context``
    moves nested batches (GluonCV uses it)."""
    from neogluon.gluon.data import dataloader
    data = mx.gluon.data.ArrayDataset(mx.nd.arange(20).reshape((10, 2)), mx.nd.arange(10))
    expected = [[b.asnumpy() for b in batch] for batch in mx.gluon.data.DataLoader(data, batch_size=3)]
    for workers in (0, 2):
        loader = dataloader.DataLoaderV1(data, batch_size=3, num_workers=workers)
        assert len(loader) == 4
        got = [[b.asnumpy() for b in batch] for batch in loader]
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            for a, b in zip(g, e):
                np.testing.assert_array_equal(a, b)
    moved = dataloader._as_in_context([mx.nd.ones(2), (mx.nd.zeros(1), 3)], mx.cpu(0))
    assert moved[0].context == mx.cpu(0) and moved[1][1] == 3
    fn, args = dataloader.reduce_ndarray(mx.nd.arange(3))
    np.testing.assert_array_equal(fn(*args).asnumpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="batch_size must be specified"):
        dataloader.DataLoaderV1(data)
