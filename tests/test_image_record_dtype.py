"""The ``dtype`` of ``mx.io.ImageRecordIter`` and its variants against MXNet 1.9.1
(tools/make_extra_fixtures_image_record_dtype.py): ImageRecordIter gives float32 batches for
None and 'float32', the batches of ImageRecordUInt8Iter/ImageRecordInt8Iter for 'uint8'/'int8'
and refuses the other types; the UInt8/Int8 iterators take any valid dtype and keep their own
type (MXNet ignores it there); the _v1 iterators and ImageDetRecordIter take only their own
type (MXNet fails on the others); a name outside MXNet's list is refused by all."""
import os

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from image_record_dtype_cases import BATCH_DTYPES, DET_REC, DTYPES, FIXTURES, IMAGE_REC, ITERATORS, NORM  # noqa: E402

RECORDED = np.load(os.path.join(FIXTURES, "dtypes.npz"))


@pytest.mark.parametrize("iterator", ITERATORS)
def test_dtype_as_mxnet(iterator):
    rec = DET_REC if iterator == "ImageDetRecordIter" else IMAGE_REC
    make = getattr(mx.io, iterator)
    checked = 0
    for dtype in DTYPES:
        want = str(RECORDED["dtype/%s/%s" % (iterator, dtype)])
        kwargs = {} if dtype is None else dict(dtype=dtype)
        if want.startswith("error"):
            with pytest.raises(mx.MXNetError, match="%s: .*dtype" % iterator):
                make(path_imgrec=rec, data_shape=(3, 20, 24), batch_size=3, **kwargs)
            continue
        it = make(path_imgrec=rec, data_shape=(3, 20, 24), batch_size=3, **kwargs)
        assert np.dtype(it.provide_data[0].dtype).name == want
        assert np.dtype(it.next().data[0].dtype).name == want, (iterator, dtype)
        checked += 1
    assert checked >= 1


def test_dtype_messages():
    with pytest.raises(mx.MXNetError, match="Invalid Input: 'bogus', valid values are: {None, 'bfloat16'"):
        mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=3, dtype="bogus")
    assert "valid values are: {None, 'bfloat16'" in str(RECORDED["dtype/ImageRecordIter/bogus"])
    # MXNet reads str(dtype): a numpy dtype is its name, a numpy type is not a valid name
    with pytest.raises(mx.MXNetError, match="unknown dtype for ImageRecordIter2: 'float16'"):
        mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=3, dtype=np.dtype("float16"))
    assert "unknown dtype for ImageRecordIter2" in str(RECORDED["dtype/ImageRecordIter/float16"])
    with pytest.raises(mx.MXNetError, match="Invalid Input: '<class 'numpy.float32'>'"):
        mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=3, dtype=np.float32)
    it = mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=3, dtype="None")
    assert it.next().data[0].dtype == np.float32


@pytest.mark.parametrize("dtype", BATCH_DTYPES)
def test_dtype_batches_equal_mxnet(dtype):
    it = mx.io.ImageRecordIter(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=7, dtype=dtype, **NORM)
    got, want = it.next().data[0].asnumpy(), RECORDED["batch/" + dtype]
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, atol=1e-5)
    variant = {"int8": mx.io.ImageRecordInt8Iter, "uint8": mx.io.ImageRecordUInt8Iter}.get(dtype)
    if variant is not None:  # the same batches as the variant's
        same = variant(path_imgrec=IMAGE_REC, data_shape=(3, 20, 24), batch_size=7, **NORM).next().data[0]
        np.testing.assert_array_equal(same.asnumpy(), got)
