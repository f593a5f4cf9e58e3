"""The ``dtype`` argument of MXNet 1.9.1's record iterators, recorded by
tools/make_extra_fixtures_image_record_dtype.py and replayed by tests/test_image_record_dtype.py."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "image_record_dtype")
IMAGE_REC = os.path.join(HERE, "fixtures", "extra", "vision", "iter.rec")
DET_REC = os.path.join(HERE, "fixtures", "extra", "vision", "det.rec")
# (iterator, dtype) -> the batch's dtype or MXNet's error
ITERATORS = ("ImageRecordIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordUInt8Iter_v1",
             "ImageRecordInt8Iter", "ImageDetRecordIter")
DTYPES = (None, "bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8", "bogus")
# ImageRecordIter's batches of these dtypes, compared value by value
NORM = dict(mean_r=100.0, mean_g=50.0, mean_b=-200.0, std_r=2.0, scale=0.5, resize=30)
BATCH_DTYPES = ("int8", "uint8", "float32")
