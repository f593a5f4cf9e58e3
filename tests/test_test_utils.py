"""mx.test_utils against MXNet 1.9.1 (recorded cases), plus its failure messages."""
import os
import numpy as np
import pytest

import neogluon as mx
from neogluon import test_utils as tu
from api_cases import cases, run_case


@pytest.mark.parametrize("case", cases("test_utils"))
def test_mxnet_case(case):
    run_case(case)


def test_failure_message_names_the_worst_element():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[1.0, 2.5], [3.0, 4.1]])
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, rtol=0, atol=0.01, names=("mine", "theirs"))
    msg = str(info.value)
    assert "Location of maximum error: (0, 1), mine=2.00000000, theirs=2.50000000" in msg
    assert "mismatch 50.000000%" in msg
    assert "rtol=0.000000e+00, atol=1.000000e-02" in msg
    assert "(1, 1)" in msg  # the second mismatch is listed too


def test_failure_message_with_nan():
    with pytest.raises(AssertionError, match="Location of maximum error: \\(1,\\)"):
        tu.assert_almost_equal(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


def test_ndarray_inputs_use_their_dtype_tolerance():
    tu.assert_almost_equal(mx.nd.array([1.0], dtype="float16"), mx.nd.array([1.05], dtype="float16"))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(mx.nd.array([1.0], dtype="float64"), mx.nd.array([1.0001], dtype="float64"))


def test_ignore_nan():
    tu.assert_almost_equal_ignore_nan(np.array([np.nan, 1.0]), np.array([5.0, 1.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([np.nan, 1.0]), np.array([5.0, 2.0]))


def test_assert_exception_reports_a_missing_error():
    with pytest.raises(AssertionError, match="did not raise ValueError"):
        tu.assert_exception(lambda: None, ValueError)


def test_rand_ndarray_context_and_sparse():
    x = tu.rand_ndarray((2, 3), ctx=mx.cpu())
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.context == mx.cpu()
    r = tu.rand_ndarray((10, 10), stype="csr", density=0.3)
    assert r.stype == "csr" and r.shape == (10, 10) and type(r).__name__ == "CSRNDArray"


def test_sparse_helpers_as_mxnet():
    """MXNet's test_utils sparse helpers; the structure (random values aside) MXNet 1.9.1 gives
    for the same calls (its powerlaw rows 2, 4, 8, 16, then the rest)."""
    np.random.seed(0)
    csr, (indptr, _, _) = tu.rand_sparse_ndarray((5, 16), "csr", density=0.5, distribution="powerlaw")
    assert csr.stype == "csr" and np.diff(indptr.asnumpy()).tolist() == [2, 4, 8, 16, 10]
    arr, (val, idx) = tu.rand_sparse_ndarray((6, 3), "row_sparse", rsp_indices=np.array([1, 4]), data_init=2.0,
                                             modifier_func=lambda v: v + 1)
    assert arr.stype == "row_sparse" and idx.tolist() == [1, 4] and val.tolist() == [[3.0] * 3] * 2
    assert arr.asnumpy()[:, 0].tolist() == [0.0, 3.0, 0.0, 0.0, 3.0, 0.0]
    empty, (values, rows) = tu.rand_sparse_ndarray((4, 2), "row_sparse", density=0.0)
    assert empty.stype == "row_sparse" and values.shape == rows.shape == (0,)
    assert tu.create_sparse_array_zd((5, 2), "row_sparse", density=0.9, rsp_indices=[3, 0]).indices.asnumpy() \
        .tolist() == [0, 3]
    with pytest.raises(ValueError, match="num_rows \\* num_cols \\* density >= 2 \\* num_rows"):
        tu.rand_sparse_ndarray((5, 4), "csr", density=0.1, distribution="powerlaw")
    with pytest.raises(AssertionError, match="unknown storage type"):
        tu.rand_sparse_ndarray((5,), "dense")
    sp = pytest.importorskip("scipy.sparse")
    c = tu.create_sparse_array((20, 30), "csr", density=0.2, data_init=7.0, shuffle_csr_indices=True)
    assert c.stype == "csr" and len(c.data.asnumpy()) == 120 and set(c.data.asnumpy().tolist()) == {7.0}
    m = sp.rand(4, 50, 0.5, format="csr", random_state=0)
    rows_before = [sorted(m.indices[m.indptr[i]:m.indptr[i + 1]]) for i in range(4)]
    tu.shuffle_csr_column_indices(m)  # each row's column indices permuted, the data left in place
    assert [sorted(m.indices[m.indptr[i]:m.indptr[i + 1]]) for i in range(4)] == rows_before


def test_random_uniform_arrays_range():
    a, b = tu.random_uniform_arrays((100,), (3, 2), low=-2.0, high=-1.0)
    assert a.dtype == np.float32 and b.shape == (3, 2)
    assert ((a >= -2.0) & (a < -1.0)).all()


def test_rand_shape_bounds():
    for _ in range(20):
        shape = tu.rand_shape_nd(3, dim=2)
        assert len(shape) == 3 and all(1 <= d <= 2 for d in shape)
        assert all(0 <= d <= 1 for d in tu.rand_shape_3d(1, 1, 1, allow_zero_size=True))


def test_same_array_detects_shared_memory():
    a = mx.nd.zeros((2, 3))
    assert tu.same_array(a, a.reshape((2, 3)))
    assert not tu.same_array(a, a.copy())


def test_small_helpers():
    assert tu.default_numeric_eps()[np.dtype(np.float32)] == 1.0 / 2 ** 9
    assert tu.get_etol() == 0 and tu.get_etol(0.1) == 0.1
    assert tu.effective_dtype(mx.nd.zeros((1,))) == np.dtype(np.float32)
    assert tu.list_gpus() == list(range(mx.num_gpus()))
    with pytest.raises(ValueError):
        with tu.environment("A", "b", "c"):
            pass


def test_retry_reruns_failed_assertions():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2

    @tu.retry(2)
    def broken():
        calls.append(1)
        raise AssertionError("always")

    with pytest.raises(AssertionError, match="always"):
        broken()


def test_random_sample():
    sample = tu.random_sample([1, 2, 3, 4], 3)
    assert len(sample) == 3 and len(set(sample)) == 3 and set(sample) <= {1, 2, 3, 4}
    with pytest.raises(ValueError):
        tu.random_sample([1], 2)


# ---------------------------------------------------------------- the rest of MXNet's helpers (values from MXNet 1.9.1)
def test_small_helpers_give_mxnets_values():
    tu = mx.test_utils
    a = np.array([[1., 2.], [3., 4.]])
    assert tu.locationError(a, a + 0.5, (1, 0), ("x", "y"), True) == \
        "Location of maximum error: (1, 0), x=3.00000000, y=3.50000000"
    assert tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1)).tolist() == [[8.0], [8.0], [8.0]]
    np.testing.assert_array_equal(tu.assign_each(np.array([1, 2, 3]), lambda v: v * 2), [2., 4., 6.])
    np.testing.assert_array_equal(tu.assign_each2(np.array([1., 2]), np.array([3., 4]), lambda x, y: x * y), [3., 8.])
    t2 = tu.create_2d_tensor(2, 3)
    assert t2.asnumpy().tolist() == [[0, 0, 0], [1, 1, 1]] and t2.dtype == np.int64
    assert tu.create_vector(3).dtype == np.int64
    assert tu.get_identity_mat_batch(2).shape == (2, 2, 2) and tu.get_identity_mat(2).dtype == np.float32
    x = mx.sym.var("x")
    assert tu.same_symbol_structure(mx.sym.exp(x), mx.sym.exp(mx.sym.var("y")))
    assert not tu.same_symbol_structure(mx.sym.exp(x), mx.sym.log(x))
    np.testing.assert_array_equal(tu.simple_forward(mx.sym.square(x), x=np.array([1., 2.])), [1., 4.])
    with pytest.raises(AssertionError, match="Error rate"):
        tu.assert_almost_equal_with_err(np.array([1., 2, 3, 4]), np.array([1., 2, 3, 5]), etol=0.2)
    tu.assert_almost_equal_with_err(np.array([1., 2, 3, 4]), np.array([1., 2, 3, 5]), etol=0.3)
    with pytest.raises(AssertionError):
        tu.checkShapes(np.ones(2), np.ones(3))
    assert not tu.has_tvm_ops() and tu.is_op_runnable()


def test_numeric_grad_and_check_consistency():
    tu = mx.test_utils
    x = mx.sym.var("x")
    ex = mx.sym.square(x).simple_bind(mx.cpu(), x=(3,))
    grad = tu.numeric_grad(ex, {"x": np.array([1., 2., 3.], dtype=np.float32)}, eps=1e-2)["x"]
    np.testing.assert_allclose(grad, [2., 4., 6.], rtol=1e-3)  # MXNet: [2.000004, 3.9999723, 5.9999466]
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(0), "data": (2, 4), "type_dict": {"data": np.float64}},
                {"ctx": mx.cpu(0), "data": (2, 4), "type_dict": {"data": np.float32}}]
    gt = tu.check_consistency(sym, ctx_list)
    assert set(gt) >= {"fc_output", "fc_weight"}
    broken = [sym, mx.sym.FullyConnected(mx.sym.var("data") * 2, num_hidden=3, name="fc")]  # same names, other values
    with pytest.raises(AssertionError, match="exceeds tolerance"):
        tu.check_consistency(broken, ctx_list)
    assert tu.check_speed(sym, N=2, data=(2, 4)) > 0 and tu.check_speed(sym, N=2, typ="forward", data=(2, 4)) > 0


def test_distribution_checks():
    tu = mx.test_utils
    rng = np.random.RandomState(0)
    assert tu.mean_check(lambda n: rng.normal(1.0, 2.0, size=n), 1.0, 2.0, nsamples=100000)
    assert tu.var_check(lambda n: rng.normal(1.0, 2.0, size=n), 2.0, nsamples=100000)
    assert not tu.mean_check(lambda n: rng.normal(1.5, 2.0, size=n), 1.0, 2.0, nsamples=100000)
    scipy_stats = pytest.importorskip("scipy.stats")
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: scipy_stats.norm.ppf(q, 0, 1), 5)
    assert len(buckets) == 5 and probs == [0.2] * 5 and buckets[0][0] == -np.inf
    ps = tu.verify_generator(lambda n: rng.normal(0, 1, size=n), buckets, probs, nsamples=20000, nrepeat=3)
    assert len(ps) == 3
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: rng.normal(0.5, 1, size=n), buckets, probs, nsamples=20000, nrepeat=3)
    p, obs, exp = tu.chi_square_check(lambda n: rng.randint(0, 3, size=n), [0, 1, 2], [1 / 3.] * 3, nsamples=3000)
    assert obs.sum() == 3000 and exp.tolist() == [1000] * 3 and p > 1e-4


def test_compare_optimizer_and_gluon_hybridize_consistency():
    tu = mx.test_utils
    tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
                         mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), (3, 4), np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1), mx.optimizer.SGD(learning_rate=0.2), (3, 4),
                             np.float32)

    def builder(prefix):
        net = mx.gluon.nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(3, in_units=4), mx.gluon.nn.Activation("tanh"))
        return net
    tu.check_gluon_hybridize_consistency(builder, [mx.nd.array(np.random.rand(2, 4))])
    m = tu.new_matrix_with_real_eigvals_nd((2, 3, 3))
    assert m.shape == (2, 3, 3) and np.all(np.abs(np.linalg.eigvals(m).imag) < 1e-6)
    s = tu.new_sym_matrix_with_real_eigvals_2d(3)
    np.testing.assert_allclose(s, s.T, atol=1e-10)


def test_data_helpers_read_local_files(tmp_path, monkeypatch):
    import gzip
    import struct
    tu = mx.test_utils
    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(0)
    for prefix, n in (("train", 5), ("t10k", 3)):
        labels, images = rng.randint(0, 10, n).astype(np.uint8), rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
        with gzip.open("%s-labels-idx1-ubyte.gz" % prefix, "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())
        with gzip.open("%s-images-idx3-ubyte.gz" % prefix, "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    data = tu.get_mnist()
    assert data["train_data"].shape == (5, 1, 28, 28) and data["train_data"].dtype == np.float32
    assert data["test_label"].dtype == np.int8 and data["test_label"].shape == (3,)
    (tmp_path / "src.bin").write_bytes(b"abc")
    url = (tmp_path / "src.bin").as_uri()
    assert tu.download(url, fname="file.bin", dirname="d") == os.path.join("d", "file.bin")
    assert open("d/file.bin", "rb").read() == b"abc"
    (tmp_path / "src.bin").write_bytes(b"new")
    tu.download(url, fname="file.bin", dirname="d")  # kept: exists and no overwrite
    assert open("d/file.bin", "rb").read() == b"abc"
    tu.download(url, fname="file.bin", dirname="d", overwrite=True)
    assert open("d/file.bin", "rb").read() == b"new"
    assert tu.download_model("no-such-model") == (None, 0)
    import bz2
    with bz2.open("corpus.txt.bz2", "wb") as f:
        f.write(b"hello\n")
    tu.get_bz2_data(".", "corpus.txt", "http://x/corpus.txt.bz2", "corpus.txt.bz2")
    assert open("corpus.txt").read() == "hello\n" and not os.path.exists("corpus.txt.bz2")
