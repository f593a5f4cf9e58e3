"""mx.io iterators against MXNet 1.9.1's recorded batches (tools/make_extra_fixtures_legacy.py)."""
import json
import os

import numpy as np
import pytest

import neogluon as mx

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "legacy")


def _fixture(name):
    with open(os.path.join(FIX, name + ".json")) as f:
        meta = json.load(f)
    return meta, np.load(os.path.join(FIX, name + ".npz"))


IO_META, IO_ARR = _fixture("io_core")


def _iter_inputs(kind):
    x = np.arange(10 * 3, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.float32)
    return {
        "single": lambda: (x, y),
        "small": lambda: (x[:3], y[:3]),
        "dict": lambda: ({"b_data": x, "a_data": x * 2}, {"lab": y}),
        "list": lambda: ([x, x + 100], [y, y * 3]),
        "int": lambda: (mx.nd.array(x, dtype="int32"), np.arange(10, dtype=np.int64)),
        "tnc": lambda: (np.arange(4 * 6 * 2, dtype=np.float32).reshape(4, 6, 2), np.arange(4 * 6).reshape(4, 6)),
        "nolabel": lambda: (x, None),
    }[kind]()


def _descs(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in descs]


@pytest.mark.parametrize("case", sorted(IO_META))
def test_ndarrayiter_matches_mxnet(case):
    rec = IO_META[case]
    np.random.seed(7)
    data, label = _iter_inputs(rec["kind"])
    it = mx.io.NDArrayIter(data, label, **rec["kwargs"])
    assert _descs(it.provide_data) == rec["provide_data"]
    assert _descs(it.provide_label) == rec["provide_label"]
    got = []
    for ep in range(rec["epochs"]):
        for b, batch in enumerate(it):
            key = "%s/%d/%d" % (case, ep, b)
            got.append(dict(epoch=ep, pad=batch.pad, n_data=len(batch.data), n_label=len(batch.label)))
            for i, d in enumerate(batch.data):
                want = IO_ARR["%s/d%d" % (key, i)]
                assert d.dtype == want.dtype and d.shape == want.shape
                np.testing.assert_array_equal(d.asnumpy(), want)
            for i, d in enumerate(batch.label):
                np.testing.assert_array_equal(d.asnumpy(), IO_ARR["%s/l%d" % (key, i)])
        it.reset()
    assert got == rec["batches"]


def test_datadesc_and_databatch():
    d = mx.io.DataDesc("data", (2, 3))
    assert d == ("data", (2, 3)) and d.dtype is np.float32 and d.layout == "NCHW"
    assert repr(d) == "DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]"
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1 and mx.io.DataDesc.get_batch_axis(None) == 0
    descs = mx.io.DataDesc.get_list([("a", (1,)), ("b", (2,))], [("a", np.int32), ("b", np.float16)])
    assert [x.dtype for x in descs] == [np.int32, np.float16]
    b = mx.io.DataBatch([mx.nd.zeros((2, 3))], [mx.nd.zeros((2,))], pad=1)
    assert str(b) == "DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]"
    with pytest.raises(AssertionError):
        mx.io.DataBatch(mx.nd.zeros((2, 3)))


def test_ndarrayiter_errors():
    with pytest.raises(TypeError):
        mx.io.NDArrayIter(3)
    with pytest.raises(mx.MXNetError, match="last_batch_handle"):
        mx.io.NDArrayIter(np.zeros((4, 2)), batch_size=2, last_batch_handle="wrap")
    with pytest.raises(mx.MXNetError, match="examples"):
        mx.io.NDArrayIter(np.zeros((4, 2)), np.zeros(3), batch_size=2)


def test_ndarrayiter_hard_reset_drops_rolled_over():
    it = mx.io.NDArrayIter(np.arange(5, dtype=np.float32), batch_size=2, last_batch_handle="roll_over")
    assert len(list(it)) == 2
    it.hard_reset()
    first = it.next()
    assert first.pad == 0 and first.data[0].asnumpy().tolist() == [0, 1]


def test_custom_dataiter_protocol():
    class Count(mx.io.DataIter):
        def __init__(self):
            super().__init__(batch_size=2)
            self.i = 0

        def iter_next(self):
            self.i += 1
            return self.i <= 3

        def getdata(self):
            return [mx.nd.full((2,), self.i)]

        def getlabel(self):
            return None

        def getpad(self):
            return 0

    batches = list(Count())
    assert [b.data[0].asnumpy().tolist() for b in batches] == [[1, 1], [2, 2], [3, 3]]
    assert batches[0].index is None and batches[0].pad == 0


# ----------------------------------------------------------------------------- CSV, LibSVM, MNIST, wrappers
sys_path_added = os.path.dirname(__file__)
import sys  # noqa: E402
sys.path.insert(0, sys_path_added)
import legacy_models as lm  # noqa: E402

IT_META, IT_ARR = _fixture("iters")


@pytest.mark.parametrize("case,cls,kwargs,epochs", lm.ITER_CASES, ids=[c[0] for c in lm.ITER_CASES])
def test_file_iterators_match_mxnet(tmp_path, case, cls, kwargs, epochs):
    rec = IT_META[case]
    it = lm.make_iter(mx, cls, kwargs, lm.write_iter_inputs(str(tmp_path)))
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_data] == rec["provide_data"]
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in it.provide_label] == rec["provide_label"]
    got = []
    for ep in range(epochs):
        for b, batch in enumerate(it):
            got.append([ep, batch.pad])
            np.testing.assert_allclose(batch.data[0].asnumpy(), IT_ARR["%s/%d/%d/d" % (case, ep, b)], rtol=1e-6)
            np.testing.assert_array_equal(batch.label[0].asnumpy(), IT_ARR["%s/%d/%d/l" % (case, ep, b)])
        it.reset()
    assert got == rec["batches"]


def test_file_iterator_errors(tmp_path):
    paths = lm.write_iter_inputs(str(tmp_path))
    with pytest.raises(mx.MXNetError, match="data_shape"):
        mx.io.CSVIter(data_csv=paths["d.csv"], data_shape=(4,), batch_size=2)
    with pytest.raises(mx.MXNetError, match="cannot read"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(3,))
    with pytest.raises(mx.MXNetError, match="round_batch"):
        mx.io.LibSVMIter(data_libsvm=paths["s.libsvm"], data_shape=(5,), round_batch=False)
    with pytest.raises(mx.MXNetError, match="feature index 4"):
        mx.io.LibSVMIter(data_libsvm=paths["s.libsvm"], data_shape=(4,))
    with pytest.raises(mx.MXNetError, match="not an MNIST image file"):
        mx.io.MNISTIter(image=paths["lab"], label=paths["lab"])


def test_mnist_shuffle_is_mxnets_std_shuffle():
    """Permutations of 250 examples MXNet 1.9.1's MNISTIter gave for seeds 0 and 3."""
    from neogluon.io.mnist import std_shuffle_order
    want = IT_META["std_shuffle_250"]
    for seed in (0, 3):
        assert std_shuffle_order(250, seed).tolist() == want[str(seed)]


def test_resize_and_prefetching_iter_match_mxnet():
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(x, np.arange(10), batch_size=3), 5)
    assert [[b.data[0].asnumpy().tolist(), b.pad] for b in it] == IT_META["resize"]
    it.reset()
    assert [[b.data[0].asnumpy().tolist(), b.pad] for b in it] == IT_META["resize_again"]
    it = mx.io.PrefetchingIter([mx.io.NDArrayIter({"data": x}, np.arange(10), batch_size=4),
                                mx.io.NDArrayIter({"data": x * 2}, np.arange(10) + 1, batch_size=4)],
                               rename_data=[{"data": "a"}, {"data": "b"}])
    assert [[d.name, list(d.shape)] for d in it.provide_data + it.provide_label] == IT_META["prefetch_provide"]
    got = [[[d.asnumpy().tolist() for d in b.data], [lb.asnumpy().tolist() for lb in b.label], b.pad] for b in it]
    assert got == IT_META["prefetch"]
    it.reset()
    assert len(list(it)) == len(IT_META["prefetch"])
    it.close()
