"""``path_imglist`` of ``mx.io.ImageRecordIter``, its variants and ``ImageDetRecordIter`` against
MXNet 1.9.1 (tools/make_extra_fixtures_image_record_imglist.py, cases in
tests/image_record_imglist_cases.py): the list's labels replace the records' header labels, by
the record header's id; ``label_width`` values a line (the path and further values unread), or
for detection all values but the path, the longest line setting ``label_pad_width``; MXNet's
errors; the lines MXNet reads silently wrong are refused, naming the file and line."""
import os
import re
import warnings

import numpy as np
import pytest

pytest.importorskip("cv2")

import neogluon as mx  # noqa: E402
from image_record_imglist_cases import (CASES, CLS_IDS, CLS_REC, DET_LONGEST, ERRORS, FIXTURES, LENIENT,  # noqa: E402
                                        PARTS, QUIRKS, SHAPE, SHUFFLE, SHUFFLE_EPOCHS, UNEVEN, UNEVEN_SIDES, epoch,
                                        list_path, make, pairs)

RECORDED = np.load(os.path.join(FIXTURES, "batches.npz"))


def recorded_epoch(name):
    batches, n = [], 0
    while "case/%s/%d/data" % (name, n) in RECORDED:
        batches.append(tuple(RECORDED["case/%s/%d/%s" % (name, n, part)] for part in ("data", "label", "pad")))
        n += 1
    return batches


def assert_epoch_equal(got, want, name):
    assert len(got) == len(want), name
    for (data, label, pad), (want_data, want_label, want_pad) in zip(got, want):
        assert data.dtype == want_data.dtype, name
        np.testing.assert_allclose(data.astype(np.float64), want_data.astype(np.float64), rtol=1e-6, atol=1e-5)
        np.testing.assert_array_equal(label, want_label, err_msg=name)
        assert pad == int(want_pad), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_batches_equal_mxnet(name):
    iterator, imglist, kwargs = CASES[name]
    assert_epoch_equal(epoch(make(mx.io, iterator, imglist, kwargs)), recorded_epoch(name), name)


def test_labels_follow_the_record_ids_not_the_line_order():
    """The list's lines are in reverse record order; each image (pixel 10 * (k + 1)) gets the
    label of its header id."""
    data, label, _ = recorded_epoch("lw1")[0]
    ids = [CLS_IDS[int(v) // 10 - 1] for v in data[:, 0, 0, 0]]
    np.testing.assert_array_equal(label, [100 + i for i in ids])
    got = epoch(make(mx.io, "ImageRecordIter", "cls", {}))[0]
    np.testing.assert_array_equal(got[1], label)


@pytest.mark.parametrize("name", sorted(SHUFFLE))
def test_shuffled_records_keep_their_labels(name):
    """MXNet's shuffle draws differ (its C++ generator): each image comes with the label of its id
    in both, over SHUFFLE_EPOCHS epochs, and the order is shuffled."""
    iterator, imglist, kwargs = SHUFFLE[name]
    it = make(mx.io, iterator, imglist, kwargs, shuffle=True, seed=5)
    rows, orders = [], []
    for _ in range(SHUFFLE_EPOCHS):
        batches = epoch(it)
        rows += pairs(batches)
        orders.append([v for data, _, _ in batches for v in data[:, 0, 0, 0]])
        it.reset()
    np.testing.assert_array_equal(np.unique(np.array(rows, np.float32), axis=0), RECORDED["shuffle/" + name])
    assert any(order != sorted(order) for order in orders)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_mxnet(name):
    iterator, imglist, kwargs, ours, theirs = ERRORS[name]
    assert theirs in str(RECORDED["error/" + name])
    with pytest.raises(mx.MXNetError, match="%s: .*%s" % (iterator, ours)):
        epoch(make(mx.io, iterator, imglist, kwargs))


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_lines_mxnet_reads_wrong_are_refused(name):
    """MXNet gives batches for these lists (recorded: a label of C's atof/atol, the last of two
    lines, the path read as 0); neogluon refuses them, naming the file and the line."""
    imglist, kwargs, ours = QUIRKS[name]
    assert RECORDED["quirk/" + name].shape[0] == len(CLS_IDS)
    with pytest.raises(mx.MXNetError, match="ImageRecordIter: path_imglist .*%s.lst, %s" % (imglist, ours)):
        make(mx.io, "ImageRecordIter", imglist, kwargs)


def test_mxnet_quirks_recorded():
    """What MXNet 1.9.1 makes of those lines (the third record, pixel 30, is id 33's)."""
    third = {name: RECORDED["quirk/" + name][2].tolist() for name in QUIRKS}
    assert third["not_number"] == [30, 0] and third["number_prefix"] == [30, 12]
    assert third["index_float"] == [30, 133] and third["duplicate"] == [30, 5]
    assert third["path_as_label"] == [30, 133, 233, 333, 0]


@pytest.mark.parametrize("name", sorted(LENIENT))
def test_line_ends_mxnet_misreads_give_the_labels(name):
    """A detection list line ending with whitespace (CRLF, a line before an empty one, spaces):
    MXNet's reading takes the path as a label and fails its label check (recorded); the path
    is the path here."""
    imglist, same_as = LENIENT[name]
    assert "object_width_ == 0 (1 vs. 0)" in str(RECORDED["lenient/" + name])
    assert_epoch_equal(epoch(make(mx.io, "ImageDetRecordIter", imglist, {})), recorded_epoch(same_as), name)


def test_detection_list_sets_the_label_shape():
    """The longest line of the list, ids of no record too (MXNet's estimate), sets the padded width."""
    it = make(mx.io, "ImageDetRecordIter", "det", {})
    assert it.provide_label[0].shape == (4, 4 + DET_LONGEST)
    assert make(mx.io, "ImageDetRecordIter", "det_extra", {}).provide_label[0].shape[1] > 4 + DET_LONGEST


def test_empty_path_imglist_is_no_list():
    """'' is MXNet's default: the header labels, for every iterator, without a warning."""
    for iterator in ("ImageRecordIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordInt8Iter"):
        label = getattr(mx.io, iterator)(path_imgrec=CLS_REC, data_shape=SHAPE, batch_size=7, label_width=2,
                                         path_imglist="").next().label[0].asnumpy()
        np.testing.assert_array_equal(label[:, 1] - label[:, 0], 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = epoch(make(mx.io, "ImageDetRecordIter", "", {}))
    assert_epoch_equal(got, recorded_epoch("det_no_list"), "det_no_list")


def test_list_file_names_the_iterator_and_line(tmp_path):
    path = tmp_path / "bad.lst"
    path.write_text("1\t2\timg.jpg\n2\tx\timg.jpg\n")
    with pytest.raises(mx.MXNetError, match=r"ImageRecordUInt8Iter: path_imglist .*bad.lst, line 2: label 1, 'x'"):
        mx.io.ImageRecordUInt8Iter(path_imgrec=CLS_REC, data_shape=SHAPE, batch_size=2, path_imglist=str(path))
    assert os.path.exists(list_path("cls"))


@pytest.mark.parametrize("indexed", [False, True])
def test_parts_as_mxnet(indexed):
    """dmlc's splits: through the index ceil(records / num_parts) records a part; without it the
    file's bytes, so records of unequal sizes make parts of unequal counts (recorded)."""
    idx = UNEVEN[:-4] + ".idx" if indexed else ""
    for num_parts in PARTS:
        for part in range(num_parts):
            it = mx.io.ImageRecordIter(path_imgrec=UNEVEN, path_imgidx=idx, data_shape=SHAPE, batch_size=1, resize=8,
                                       num_parts=num_parts, part_index=part)
            labels = [b.label[0].asnumpy()[0] for b in it]
            np.testing.assert_array_equal(labels, RECORDED["parts/%s/%d/%d" % (indexed, num_parts, part)],
                                          err_msg="%d/%d" % (part, num_parts))
    sizes = [len(RECORDED["parts/False/2/%d" % k]) for k in range(2)]
    assert sizes == [1, len(UNEVEN_SIDES) - 1]  # the first record is more than half the file


def test_list_lines_and_indexes(tmp_path):
    """Line numbers count \\n, \\r and \\r\\n ends (MXNet's line ends); an index must be an ASCII
    integer of a record id's range (uint64)."""
    path = tmp_path / "ends.lst"
    path.write_bytes(b"40\t1\ta\r12\t2\tb\r\n\n33\tx\tc\n")
    with pytest.raises(mx.MXNetError, match="ends.lst, line 4: label 1, 'x'"):
        mx.io.ImageRecordIter(path_imgrec=CLS_REC, data_shape=SHAPE, batch_size=2, path_imglist=str(path))
    for index in ("\u0663", str(1 << 64), "+5"):
        path.write_text("%s\t1\ta\n" % index)
        with pytest.raises(mx.MXNetError, match="line 1: the index '%s' is not a record id" % re.escape(index)):
            mx.io.ImageRecordIter(path_imgrec=CLS_REC, data_shape=SHAPE, batch_size=2, path_imglist=str(path))


def test_list_labels_are_not_moved_by_the_augmenter():
    """The detection augmenter moves a label's boxes: the list's labels stay as read, every epoch."""
    it = make(mx.io, "ImageDetRecordIter", "det", dict(rand_mirror_prob=1.0))
    first = epoch(it)
    it.reset()
    second = epoch(it)
    for (_, a, _), (_, b, _) in zip(first, second):
        np.testing.assert_array_equal(a, b)
    plain = recorded_epoch("det_greedy")[0][1]
    assert not np.array_equal(first[0][1], plain)  # mirrored boxes
