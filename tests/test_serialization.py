"""``nd.save`` / ``nd.load`` / ``nd.load_frombuffer`` in MXNet 1.9.1's binary format.

Files written by MXNet (tests/fixtures/mxnet-1.9.1 and tests/fixtures/extra/io, made by
tools/make_extra_fixtures_io.py) must load to exactly their contents and be written back
byte for byte; corrupt files must raise MXNetError.
"""
import json
import os
import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import neogluon as mx
from neogluon.base import MXNetError
from neogluon.ndarray import serialization
from neogluon.ndarray.ndarray import NDArray

HERE = os.path.dirname(__file__)
REF = os.path.join(HERE, "fixtures", "mxnet-1.9.1")
EXTRA = os.path.join(HERE, "fixtures", "extra", "io")
EXTRA_CASES = json.load(open(os.path.join(EXTRA, "cases.json")))["cases"]
SHARED = [("ndarray/list.nd", "ndarray/list.npz"), ("ndarray/dict.nd", "ndarray/dict.npz"),
          ("params/nested.params", "params/nested.npz")]


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def items(loaded):
    return list(loaded.items()) if isinstance(loaded, dict) else [(str(i), a) for i, a in enumerate(loaded)]


def assert_same(array, expected, dtype_name=None):
    if dtype_name == "bfloat16":
        assert array._t.dtype == torch.bfloat16
        value = array._t.float().numpy()
    else:
        value = array.asnumpy()
        assert value.dtype == expected.dtype
    assert value.shape == expected.shape
    np.testing.assert_array_equal(value, expected)


def resave_bytes(tmp_path, loaded):
    path = tmp_path / "resaved.nd"
    mx.nd.save(str(path), loaded)
    return read_bytes(path)


# ------------------------------------------------------------------ files written by MXNet
@pytest.mark.parametrize("nd_file,npz_file", SHARED)
def test_mxnet_fixture_loads_exactly(nd_file, npz_file):
    loaded = mx.nd.load(os.path.join(REF, nd_file))
    expected = np.load(os.path.join(REF, npz_file))
    assert isinstance(loaded, list) == nd_file.startswith("ndarray/list")
    for key, array in items(loaded):
        assert_same(array, expected[key])
    # the params fixture's npz also holds the forward pass's input and output
    assert {k for k in expected if not k.startswith("__")} == {k for k, _ in items(loaded)}


@pytest.mark.parametrize("nd_file,npz_file", SHARED)
def test_mxnet_fixture_resaves_identically(tmp_path, nd_file, npz_file):
    path = os.path.join(REF, nd_file)
    assert resave_bytes(tmp_path, mx.nd.load(path)) == read_bytes(path)


def test_dict_keeps_file_order():
    loaded = mx.nd.load(os.path.join(REF, "ndarray", "dict.nd"))
    assert list(loaded) == list(np.load(os.path.join(REF, "ndarray", "dict.npz")))


@pytest.mark.parametrize("case", sorted(EXTRA_CASES))
def test_mxnet_edge_case_files(tmp_path, case):
    info = EXTRA_CASES[case]
    path = os.path.join(EXTRA, case)
    loaded = mx.nd.load(path)
    expected = np.load(os.path.join(EXTRA, case.replace(".nd", ".npz")))
    assert isinstance(loaded, dict) == (info["kind"] == "dict")
    assert [k for k, _ in items(loaded)] == list(expected)
    for key, array in items(loaded):
        assert_same(array, expected[key], info["dtypes"][key])
    if info["resave_identical"]:
        assert resave_bytes(tmp_path, loaded) == read_bytes(path)


def test_numpy_shape_file_keeps_scalar_shape():
    loaded = mx.nd.load(os.path.join(EXTRA, "np_shape.nd"))
    assert [a.shape for a in loaded] == [(), (0, 2), (2,)]


def test_load_frombuffer_matches_load():
    path = os.path.join(REF, "ndarray", "dict.nd")
    blob = read_bytes(path)
    for buf in (blob, bytearray(blob), memoryview(blob)):
        got = mx.nd.load_frombuffer(buf)
        for (k1, a), (k2, b) in zip(items(got), items(mx.nd.load(path))):
            assert k1 == k2
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


# ------------------------------------------------------------------ round trips
ALL_DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
              "int16", "uint16", "uint32", "uint64"]


def sample(shape, dtype, seed=0):
    values = np.random.RandomState(seed).randn(*shape) * 100
    return values > 0 if dtype == "bool" else values.astype(dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_every_dtype(tmp_path, dtype):
    arrays = {"a": sample((3, 4), dtype), "empty": sample((0, 2), dtype), "one": sample((1,), dtype)}
    path = str(tmp_path / "x.nd")
    mx.nd.save(path, {k: mx.nd.array(v, dtype=dtype) for k, v in arrays.items()})
    loaded = mx.nd.load(path)
    for key, value in arrays.items():
        assert_same(loaded[key], value)


def test_round_trip_forms(tmp_path):
    x = mx.nd.array([[1, 2], [3, 4]], dtype="int64")
    path = str(tmp_path / "x.nd")
    mx.nd.save(path, x)
    single = mx.nd.load(path)
    assert isinstance(single, list) and len(single) == 1
    np.testing.assert_array_equal(single[0].asnumpy(), x.asnumpy())
    mx.nd.save(path, [])
    assert mx.nd.load(path) == []
    mx.nd.save(path, {})
    assert mx.nd.load(path) == []
    mx.nd.save(tmp_path / "pathlike.nd", [x])
    assert mx.nd.load(tmp_path / "pathlike.nd")[0].shape == (2, 2)


def test_empty_list_and_dict_bytes():
    header = struct.pack("<QQQQ", 0x112, 0, 0, 0)
    assert serialization.dumps([]) == header
    assert serialization.dumps({}) == header


def test_bfloat16_round_trip():
    t = torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16)
    loaded = mx.nd.load_frombuffer(serialization.dumps([NDArray(t)]))
    assert loaded[0]._t.dtype == torch.bfloat16
    assert torch.equal(loaded[0]._t, t)


def test_zero_dim_array_is_written_in_numpy_shape_layout():
    blob = serialization.dumps([NDArray(torch.tensor(2.0)), mx.nd.array([1, 2])])
    second = 24 + 4 + 4 + 4 + 12 + 4  # after the scalar's magic, stype, ndim 0, context, flag, data
    assert struct.unpack_from("<I", blob, 24)[0] == struct.unpack_from("<I", blob, second)[0] == serialization.V3_MAGIC
    assert [a.shape for a in mx.nd.load_frombuffer(blob)] == [(), (2,)]


def test_save_ignores_autograd_state_and_layout():
    x = mx.nd.array(np.arange(6).reshape(2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    transposed = NDArray(torch.arange(6, dtype=torch.float32).reshape(2, 3).t())
    loaded = mx.nd.load_frombuffer(serialization.dumps([y, transposed]))
    np.testing.assert_array_equal(loaded[0].asnumpy(), np.arange(6).reshape(2, 3) * 2)
    np.testing.assert_array_equal(loaded[1].asnumpy(), np.arange(6).reshape(2, 3).T)


@settings(max_examples=40, deadline=None)
@given(shapes=st.lists(st.lists(st.integers(0, 4), min_size=1, max_size=4), max_size=4),
       dtype=st.sampled_from(ALL_DTYPES), named=st.booleans())
def test_round_trip_property(shapes, dtype, named):
    arrays = [sample(s, dtype, seed=i) for i, s in enumerate(shapes)]
    nds = [mx.nd.array(a, dtype=dtype) for a in arrays]
    data = {"p%d" % i: a for i, a in enumerate(nds)} if named else nds
    blob = serialization.dumps(data)
    loaded = mx.nd.load_frombuffer(blob)
    assert serialization.dumps(loaded) == blob
    for (_, got), want in zip(items(loaded), arrays):
        assert_same(got, want)


# ------------------------------------------------------------------ older layouts, sparse, devices
def test_loads_v1_and_oldest_layouts():
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32).tobytes()
    v1 = struct.pack("<IIqqiii", serialization.V1_MAGIC, 2, 2, 3, 1, 0, 0) + data
    oldest = struct.pack("<IIIiii", 2, 2, 3, 1, 0, 0) + data
    for record in (v1, oldest):
        blob = struct.pack("<QQQ", 0x112, 0, 1) + record + struct.pack("<Q", 0)
        (arr,) = mx.nd.load_frombuffer(blob)
        np.testing.assert_array_equal(arr.asnumpy(), [[1, 2, 3], [4, 5, 6]])


def test_sparse_arrays_load_sparse():
    loaded = mx.nd.load(os.path.join(EXTRA, "sparse.nd"))
    assert loaded["row_sparse"].stype == "row_sparse" and loaded["csr"].stype == "csr"
    with open(os.path.join(EXTRA, "sparse.nd"), "rb") as f:
        assert serialization.dumps(loaded) == f.read()
    np.testing.assert_array_equal(loaded["row_sparse"].asnumpy(), [[0, 0, 0], [1, 2, 3], [0, 0, 0], [4, 5, 6]])
    np.testing.assert_array_equal(loaded["csr"].asnumpy(), [[0, 7, 0], [1, 0, 3], [0, 0, 0]])
    assert loaded["csr"].dtype == np.float64


def test_saved_context_is_the_arrays():
    blob = serialization.dumps([mx.nd.ones((2,))])
    dev_type, dev_id = struct.unpack_from("<ii", blob, 24 + 8 + 4 + 8)
    assert (dev_type, dev_id) == (1, 0)


def gpu_record(dev_id):
    return (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiIqiii", serialization.V2_MAGIC, 0, 1, 2, 2, dev_id, 0)
            + np.array([1, 2], np.float32).tobytes() + struct.pack("<Q", 0))


def test_gpu_saved_array_loads_on_cpu_without_that_gpu():
    (arr,) = mx.nd.load_frombuffer(gpu_record(99))
    assert arr.context == mx.cpu()
    np.testing.assert_array_equal(arr.asnumpy(), [1, 2])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_gpu_arrays_round_trip():
    (arr,) = mx.nd.load_frombuffer(gpu_record(0))
    assert arr.context == mx.gpu(0)
    assert serialization.dumps([arr]) == gpu_record(0)


# ------------------------------------------------------------------ errors
def test_every_truncation_raises():
    blob = read_bytes(os.path.join(REF, "ndarray", "list.nd"))
    for cut in range(len(blob)):
        with pytest.raises(MXNetError, match="Invalid NDArray file format"):
            mx.nd.load_frombuffer(blob[:cut])


def test_truncated_file_names_the_file(tmp_path):
    path = tmp_path / "cut.params"
    path.write_bytes(read_bytes(os.path.join(REF, "params", "nested.params"))[:1000])
    with pytest.raises(MXNetError, match="cut.params.*truncated at byte"):
        mx.nd.load(str(path))


def corrupt(offset, fmt, value):
    blob = bytearray(read_bytes(os.path.join(REF, "ndarray", "list.nd")))
    struct.pack_into("<" + fmt, blob, offset, value)
    return bytes(blob)


CORRUPT = {
    "bad magic": (corrupt(0, "Q", 0x113), "bad magic number"),
    "huge array count": (corrupt(16, "Q", 2 ** 60), "number of arrays"),
    "unknown storage type": (corrupt(28, "i", 7), "unknown storage type 7"),
    "reads out of step": (corrupt(32, "i", 2), "Invalid NDArray file format"),
    "negative dimension": (corrupt(36, "q", -3), "negative dimension"),
    "unknown type flag": (corrupt(52, "i", 42), "unknown type flag 42"),
    "names do not match": (corrupt(236, "Q", 1) + struct.pack("<Q", 1) + b"a", "1 names for 3 arrays"),
    "none array": (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", serialization.V2_MAGIC, 0, 0)
                   + struct.pack("<Q", 0), "uninitialised"),
    "bad name": (struct.pack("<QQQQ", 0x112, 0, 0, 1) + struct.pack("<Q", 2) + b"\xff\xfe", "UTF-8"),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_files_raise(case):
    blob, message = CORRUPT[case]
    with pytest.raises(MXNetError, match=message):
        mx.nd.load_frombuffer(blob)


def test_missing_file_raises(tmp_path):
    with pytest.raises(MXNetError, match="cannot open"):
        mx.nd.load(str(tmp_path / "missing.nd"))


def test_bad_arguments():
    x = mx.nd.ones((1,))
    with pytest.raises(TypeError, match="dict str->NDArray"):
        serialization.dumps({1: x})
    with pytest.raises(TypeError, match="dict str->NDArray"):
        serialization.dumps([x, np.ones(1)])
    with pytest.raises(ValueError, match="needs to either be"):
        serialization.dumps((x,))
    with pytest.raises(TypeError, match="fname required"):
        mx.nd.load(3)
    with pytest.raises(TypeError, match="buf required"):
        mx.nd.load_frombuffer("not bytes")
