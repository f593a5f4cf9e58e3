"""Sparse storage (``csr``, ``row_sparse``) against MXNet 1.9.1's recorded answers.

Each case of ``tests/sparse_cases.py`` runs here on neogluon and was run on MXNet by
``tools/make_extra_fixtures_sparse.py``: every output array must have MXNet's storage
type, dtype, shape, dense value and stored components (values, indices, indptr); a case
MXNet refuses must raise the same exception type; bytes (``nd.save``) must be identical.
"""
import json
import os

import numpy as np
import pytest

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray import serialization

import sparse_cases

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "sparse")
with open(os.path.join(FIXTURES, "cases.json")) as _f:
    RECORDED = json.load(_f)
VALUES = np.load(os.path.join(FIXTURES, "values.npz"))

# cases whose values come from float arithmetic in a different order (sums, products)
TOLERANCE = {"dot_operators": 1e-5, "reductions": 1e-5, "grad_dot_row_sparse": 1e-5, "adam_lazy": 1e-5,
             "adam_not_lazy": 1e-5, "sgd_lazy": 1e-6, "sgd_not_lazy": 1e-6, "sgd_lazy_no_momentum": 1e-6, "adagrad_row_sparse": 1e-5, "ftrl_row_sparse": 1e-5,
             "unary_operators": 1e-6, "binary_operators": 1e-6, "train_linear_csr_lazy_adam": 1e-5,
             "train_linear_csr_lazy_sgd": 1e-5, "train_embedding_sparse_grad": 1e-5, "train_row_sparse_parameter": 1e-5,
             "train_embedding_two_contexts": 1e-5, "train_embedding_two_contexts_on_kvstore": 1e-5,
             "train_embedding_two_contexts_not_on_kvstore": 1e-5, "module_linear_regression_csr": 1e-5}
ERRORS = {"MXNetError": MXNetError, "ValueError": ValueError, "TypeError": TypeError,
          "NotImplementedError": NotImplementedError, "RuntimeError": RuntimeError, "ImportError": ImportError, "AttributeError": AttributeError,
          "ModuleNotFoundError": ModuleNotFoundError}


def _compare(key, got, want, tol):
    if want["kind"] == "bytes":
        assert got == VALUES[key + ":bytes"].tobytes(), key
        return
    if want["kind"] == "value":
        if isinstance(want["value"], str):
            assert got == want["value"], key
        else:
            assert float(got) == want["value"], key
        return
    assert isinstance(got, mx.nd.NDArray), key
    assert got.stype == want["stype"], "%s: stype %s, MXNet %s" % (key, got.stype, want["stype"])
    assert np.dtype(got.dtype).name == want["dtype"], "%s: dtype %s, MXNet %s" % (key, got.dtype, want["dtype"])
    assert list(got.shape) == want["shape"], key
    parts = [("dense", got.asnumpy())]
    if got.stype == "csr":
        parts += [("data", got.data.asnumpy()), ("indices", got.indices.asnumpy()), ("indptr", got.indptr.asnumpy())]
    elif got.stype == "row_sparse":
        parts += [("data", got.data.asnumpy()), ("indices", got.indices.asnumpy())]
    nnz = int(VALUES[key + ":indptr"][-1]) if got.stype == "csr" else None
    for part, value in parts:
        ref = VALUES["%s:%s" % (key, part)]
        if nnz is not None and part in ("data", "indices"):
            ref = ref[:nnz]  # MXNet may allocate more than it stores (x - x): the rest is uninitialised
        assert value.shape == ref.shape and value.dtype == ref.dtype, \
            "%s %s: %s %s, MXNet %s %s" % (key, part, value.shape, value.dtype, ref.shape, ref.dtype)
        np.testing.assert_allclose(value, ref, rtol=tol, atol=tol, err_msg="%s %s" % (key, part))


@pytest.mark.parametrize("name", sorted(sparse_cases.CASES))
def test_sparse_case(name):
    want = RECORDED[name]
    fn = sparse_cases.CASES[name]
    if "error" in want:
        with pytest.raises(ERRORS[want["error"]]):
            res = fn(mx, np)
            for v in res.values():  # MXNet reported some errors when the value was read
                if isinstance(v, mx.nd.NDArray):
                    v.asnumpy()
        return
    res = fn(mx, np)
    assert sorted(res) == sorted(want["outputs"])
    for k, v in res.items():
        _compare("%s/%s" % (name, k), v, want["outputs"][k], TOLERANCE.get(name, 0))


def test_dgl_subgraph_unsorted_vertices_raise():
    """MXNet 1.9.1 checks the same ('The input vertex list has to be sorted'), but from an
    engine thread, so its process aborts: it cannot be recorded, only raised here."""
    x = mx.nd.sparse.csr_matrix(sparse_cases.G)
    with pytest.raises(MXNetError, match="has to be sorted"):
        mx.nd.contrib.dgl_subgraph(x, mx.nd.array([2, 0], dtype="int64"), return_mapping=False)


@pytest.mark.parametrize("non_uniform", [False, True])
def test_dgl_neighbor_sampling_draws_valid_subgraphs(non_uniform):
    """MXNet's random stream cannot be reproduced: what a random draw must satisfy (the
    draw-free answers are recorded in ``dgl_neighbor_sample_every_neighbour``)."""
    a = sparse_cases._full_graph(mx)
    dense = a.asnumpy()
    seeds = mx.nd.array([1, 3], dtype="int64")
    prob = mx.nd.array([0.9, 0.8, 0.2, 0.4, 0.1])
    draws = []
    for _ in range(2):
        mx.random.seed(7)
        if non_uniform:
            ids, csr, p, layer = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
                a, prob, seeds, num_args=3, num_hops=1, num_neighbor=2, max_num_vertices=5)
        else:
            ids, csr, layer = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
                a, seeds, num_args=2, num_hops=1, num_neighbor=2, max_num_vertices=5)
        draws.append(csr.asnumpy())
        n = int(ids.asnumpy()[-1])
        vertices = ids.asnumpy()[:n]
        assert csr.stype == "csr" and csr.shape == (5, 5) and 3 <= n <= 5
        assert list(vertices) == sorted(set(vertices)) and {1, 3} <= set(vertices)
        sub = csr.asnumpy()
        for r, v in enumerate(vertices):
            row = sub[r]
            assert (row != 0).sum() == (2 if v in (1, 3) else 0)  # only the seeds are expanded (one hop)
            assert all(row[c] == dense[v, c] for c in np.nonzero(row)[0])  # the graph's own edge ids
            assert layer.asnumpy()[r] == (0 if v in (1, 3) else 1)
        if non_uniform:
            np.testing.assert_allclose(p.asnumpy()[:n], prob.asnumpy()[vertices])
    np.testing.assert_array_equal(draws[0], draws[1])  # mx.random.seed makes a draw repeatable


def test_mxnet_written_sparse_files_load_with_their_storage_and_resave_byte_for_byte():
    want = RECORDED["save_bytes"]["outputs"]
    for name in want:
        blob = VALUES["save_bytes/%s:bytes" % name].tobytes()
        loaded = mx.nd.load_frombuffer(blob)
        arrays = list(loaded.values()) if isinstance(loaded, dict) else loaded
        stypes = [a.stype for a in arrays]
        assert stypes == (["csr", "default", "row_sparse"] if name == "list" else
                          ["csr" if name.startswith("csr") else "row_sparse"]), name
        assert serialization.dumps(loaded) == blob, name


def test_pickle_keeps_the_storage():
    import pickle
    c = mx.nd.sparse.csr_matrix(sparse_cases.D)
    r = mx.nd.sparse.row_sparse_array(sparse_cases.R)
    for a in (c, r):
        b = pickle.loads(pickle.dumps(a))
        assert type(b) is type(a) and b.stype == a.stype and b.shape == a.shape
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
        np.testing.assert_array_equal(b.indices.asnumpy(), a.indices.asnumpy())


def test_check_format_names_the_problem():
    c = mx.nd.sparse.csr_matrix(([1.0, 2.0], [2, 0], [0, 2, 2]), shape=(2, 3))  # columns not sorted in row 0
    with pytest.raises(MXNetError, match="not sorted"):
        c.check_format()
    c.check_format(full_check=False)
    r = mx.nd.sparse.row_sparse_array(([[1.0], [2.0]], [3, 1]), shape=(4, 1))
    with pytest.raises(MXNetError, match="strictly increasing"):
        r.check_format()
    mx.nd.sparse.csr_matrix(sparse_cases.D).check_format()


def test_dense_operators_read_sparse_arrays_densely():
    """An operator without a sparse kernel reads a sparse input as its dense value and
    gives a dense result (MXNet's storage fallback); the dense form is made once."""
    c = mx.nd.sparse.csr_matrix(sparse_cases.D)
    out = mx.nd.exp(c)
    assert out.stype == "default"
    np.testing.assert_allclose(out.asnumpy(), np.exp(sparse_cases.D), rtol=1e-6)
    assert c._t is c._t


def test_sparse_arrays_cannot_be_variables():
    c = mx.nd.sparse.csr_matrix(sparse_cases.D)
    with pytest.raises(MXNetError, match="cannot be a variable"):
        c.attach_grad()


def test_contrib_sparse_embedding_pulls_rows_and_trains_lazily():
    """gluon.contrib.nn.SparseEmbedding (GluonNLP's training BigRNN): row_sparse weight and
    gradient, a Trainer needed before the first forward; values recorded from MXNet 1.9.1."""
    emb = mx.gluon.contrib.nn.SparseEmbedding(6, 2, prefix="se_")
    assert repr(emb) == "SparseEmbedding(6 -> 2, float32)"
    emb.initialize()
    emb.weight.set_data(mx.nd.array(np.arange(12).reshape(6, 2) / 10.0))
    with pytest.raises(RuntimeError, match="when no Trainer is created"):
        emb(mx.nd.array([1, 2]))
    tr = mx.gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9})
    grads = []
    for ids in ([[1, 3], [3, 4]], [1, 2]):
        with mx.autograd.record():
            y = emb(mx.nd.array(ids))
            loss = (y * y).sum()
        loss.backward()
        g = emb.weight.grad()
        grads.append((g.stype, g.indices.asnumpy().tolist(), g.data.asnumpy()))
        tr.step(1)
    assert grads[0][:2] == ("row_sparse", [1, 3, 4]) and grads[1][:2] == ("row_sparse", [1, 2])
    np.testing.assert_allclose(grads[0][2], [[0.4, 0.6], [2.4, 2.8], [1.6, 1.8]], rtol=1e-6)
    np.testing.assert_allclose(grads[1][2], [[0.0, 0.0], [0.8, 1.0]], rtol=1e-6)
    np.testing.assert_allclose(emb.weight.row_sparse_data(mx.nd.arange(6)).asnumpy(),
                               [[0.0, 0.1], [-0.18, -0.27], [0.0, 0.0], [-0.6, -0.7], [0.0, 0.0], [1.0, 1.1]],
                               rtol=1e-6, atol=1e-7)


def test_adagrad_row_sparse_gradient_of_a_dense_weight():
    """MXNet 1.9.1 updates a dense weight and history from a row_sparse gradient in place,
    only the stored rows, with wd = 0 (Embedding(sparse_grad=True) + AdaGrad, as GluonNLP's
    word-embedding training); a weight decay or a separate output is refused. Values from MXNet."""
    e = mx.gluon.nn.Embedding(5, 2, sparse_grad=True)
    e.initialize()
    e.weight.set_data(mx.nd.array(np.arange(10).reshape(5, 2) / 10.0))
    tr = mx.gluon.Trainer(e.collect_params(), "adagrad", {"learning_rate": 0.1, "clip_gradient": 0.5})
    for ids in ([0, 3, 3], [3, 4]):
        with mx.autograd.record():
            loss = (e(mx.nd.array(ids)) ** 2).sum()
        loss.backward()
        tr.step(2)
    np.testing.assert_allclose(e.weight.data().asnumpy(),
                               [[0.0, 0.0], [0.2, 0.3], [0.4, 0.5], [0.429289, 0.529289], [0.7, 0.8]], atol=1e-6)
    np.testing.assert_allclose(tr._updaters[0].states[0].asnumpy(),
                               [[0.0, 0.01], [0.0, 0.0], [0.0, 0.0], [0.5, 0.5], [0.25, 0.25]], atol=1e-6)
    g = mx.nd.sparse.row_sparse_array((np.array([[1., -2, 3], [0.5, 0.5, -1]], dtype="float32"), [1, 3]),
                                      shape=(4, 3))
    w, h = mx.nd.array(np.arange(12).reshape(4, 3) / 10.0), mx.nd.ones((4, 3)) * 0.5
    mx.nd.sparse.adagrad_update(w, g, h, out=w, lr=0.1, wd=0.0, epsilon=1.0)
    np.testing.assert_allclose(w.asnumpy(), [[0.0, 0.1, 0.2], [0.236754, 0.48528, 0.407418], [0.6, 0.7, 0.8],
                                             [0.862204, 0.962204, 1.163246]], atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), [[0.5] * 3, [1.5, 4.5, 9.5], [0.5] * 3, [0.75, 0.75, 1.5]])
    with pytest.raises(MXNetError, match="Operator not implemented"):
        mx.nd.sparse.adagrad_update(w, g, h, out=w, lr=0.1, wd=0.01)
    with pytest.raises(MXNetError, match="kWriteInplace"):
        mx.nd.sparse.adagrad_update(w, g, h, lr=0.1, wd=0.0)


def test_torch_errors_of_sparse_kernels_are_mxnet_errors():
    """A csr dot of mixed dtypes (GluonNLP's CSREmbeddingModel fed a float64 csr_matrix)
    raises MXNetError naming the operator, as MXNet 1.9.1 does, not torch's RuntimeError."""
    csr = mx.nd.ones((2, 3), dtype="float64").tostype("csr")
    with pytest.raises(MXNetError, match=r"Error in operator dot: .*\(inputs: lhs\(2, 3\), rhs\(3, 2\)\)"):
        mx.nd.sparse.dot(csr, mx.nd.ones((3, 2)))
