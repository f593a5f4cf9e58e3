"""mx.recordio against files written by MXNet 1.9.1 (tools/make_extra_fixtures_vision.py).

Reading: every record MXNet wrote comes back. Writing: the same records written here give
the same bytes (so MXNet reads them), .idx files included. Damaged files raise MXNetError
naming the file and the byte offset.
"""
import json
import os
import pickle

import numpy as np
import pytest

import neogluon as mx
from neogluon import recordio

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "vision")
RECORDS = json.load(open(os.path.join(HERE, "records.json")))


def fixture(name):
    return os.path.join(HERE, name)


def read_all(reader):
    out = []
    while True:
        rec = reader.read()
        if rec is None:
            return out
        out.append(rec)


def test_reads_mxnets_plain_file():
    want = [bytes.fromhex(h) for h in RECORDS["plain.rec"]]
    reader = recordio.MXRecordIO(fixture("plain.rec"), "r")
    assert read_all(reader) == want
    reader.reset()
    assert reader.read() == want[0]
    reader.close()


def test_writes_mxnets_bytes(tmp_path):
    """Payloads holding the magic number (aligned and not) are split as dmlc splits them."""
    path = str(tmp_path / "plain.rec")
    writer = recordio.MXRecordIO(path, "w")
    for h in RECORDS["plain.rec"]:
        writer.write(bytes.fromhex(h))
    writer.close()
    assert open(path, "rb").read() == open(fixture("plain.rec"), "rb").read()


def test_indexed_read_and_write(tmp_path):
    keys = RECORDS["packed_keys"]
    want = [bytes.fromhex(h) for h in RECORDS["packed.rec"]]
    reader = recordio.MXIndexedRecordIO(fixture("packed.idx"), fixture("packed.rec"), "r")
    assert reader.keys == keys
    for k, w in reversed(list(zip(keys, want))):
        assert reader.read_idx(k) == w
    reader.close()
    idx, rec = str(tmp_path / "p.idx"), str(tmp_path / "p.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for k, w in zip(keys, want):
        writer.write_idx(k, w)
    writer.close()
    assert open(rec, "rb").read() == open(fixture("packed.rec"), "rb").read()
    assert open(idx).read() == open(fixture("packed.idx")).read()


def test_pack_and_unpack_match_mxnet():
    headers = [(0, 3.0, 7, 0), (0, [1.0, 2.5, -3.0], 8, 1), (5, 4.0, 9, 0), (0, np.array([0.5, 0.25]), 2 ** 40, 3)]
    for i, h in enumerate(headers):
        packed = recordio.pack(recordio.IRHeader(*h), b"payload%d" % i)
        assert packed.hex() == RECORDS["packed.rec"][i]
        header, s = recordio.unpack(packed)
        flag, label, id_, id2, rest = RECORDS["unpacked"][i]
        assert (header.flag, header.id, header.id2, s.hex()) == (flag, id_, id2, rest)
        assert np.asarray(header.label).tolist() == label
        if flag:
            assert header.label.dtype == np.float32


def test_pack_img_roundtrip():
    cv2 = pytest.importorskip("cv2")
    img = (np.arange(8 * 6 * 3) % 251).astype(np.uint8).reshape(8, 6, 3)
    packed = recordio.pack_img(recordio.IRHeader(0, 2.0, 1, 0), img, img_fmt=".png")
    header, decoded = recordio.unpack_img(packed)
    assert header.label == 2.0
    np.testing.assert_array_equal(decoded, img)
    assert cv2 is not None


@pytest.mark.parametrize("cut", [3, 30, 37])
def test_truncated_file_names_file_and_offset(tmp_path, cut):
    data = open(fixture("plain.rec"), "rb").read()
    path = str(tmp_path / "cut.rec")
    open(path, "wb").write(data[:cut])
    reader = recordio.MXRecordIO(path, "r")
    with pytest.raises(mx.MXNetError, match=r"cut\.rec.*byte offset \d+"):
        read_all(reader)


def test_garbage_names_offset(tmp_path):
    path = str(tmp_path / "bad.rec")
    good = open(fixture("plain.rec"), "rb").read()[:20]   # the first two records: '' and 'a'
    open(path, "wb").write(good + b"not a record at all")
    reader = recordio.MXRecordIO(path, "r")
    assert reader.read() == b""
    assert reader.read() == b"a"
    with pytest.raises(mx.MXNetError, match=r"bad\.rec.*magic.*byte offset 20"):
        reader.read()


def test_open_errors(tmp_path):
    with pytest.raises(mx.MXNetError, match="missing.rec"):
        recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")
    with pytest.raises(ValueError, match="Invalid flag x"):
        recordio.MXRecordIO(str(tmp_path / "x.rec"), "x")


def test_pickle_reopens_reader():
    reader = recordio.MXIndexedRecordIO(fixture("packed.idx"), fixture("packed.rec"), "r")
    reader.read_idx(4)
    copy = pickle.loads(pickle.dumps(reader))
    assert copy.keys == reader.keys
    assert copy.read_idx(1).hex() == RECORDS["packed.rec"][0]
