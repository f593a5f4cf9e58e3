"""``path_imglist`` of MXNet 1.9.1's record iterators, recorded by
tools/make_extra_fixtures_image_record_imglist.py and replayed by tests/test_image_record_imglist.py.

cls.rec: 7 uniform 8x8 images (pixel value ``10 * (k + 1)`` for the k-th record) whose header
ids (``CLS_IDS``) are neither their positions nor in order, with 2-value header labels
``[k, k + 0.5]``. det.rec: 4 such images (ids ``DET_IDS``) with a one-object detection header
label of class 0. The lists give other labels, so a batch shows where each label came from.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "extra", "image_record_imglist")
CLS_REC = os.path.join(FIXTURES, "cls.rec")
DET_REC = os.path.join(FIXTURES, "det.rec")
SHAPE = (3, 8, 8)
CLS_IDS = (40, 12, 33, 7, 25, 18, 51)
DET_IDS = (9, 3, 14, 6)
DET_HEADER = [2, 5, 0, 0.1, 0.1, 0.5, 0.5]


def cls_line(i, sep="\t"):
    return sep.join([str(i), "%d" % (100 + i), "%d" % (200 + i), "%d" % (300 + i), "img_%d.jpg" % i]) + "\n"


def det_label(i, objects):
    """A detection label: header [2, 6] (objects of 6 values), then ``objects`` objects of class ``i``."""
    return [2, 6] + sum(([i, 0.1 * k, 0.1, 0.1 * k + 0.3, 0.6, k] for k in range(objects)), [])


def det_line(i, objects, sep="\t", path=True):
    values = [str(i)] + ["%g" % v for v in det_label(i, objects)] + (["box_%d.png" % i] if path else [])
    return sep.join(values) + "\n"


_CLS = "".join(cls_line(i) for i in reversed(CLS_IDS))  # the lines in another order than the records
_DET = "".join(det_line(i, 1 + n % 3) for n, i in enumerate(DET_IDS[::-1]))
# list name -> its text (written to FIXTURES/<name>.lst)
LISTS = {
    "cls": _CLS,
    "cls_no_path": "".join("%d\t%d\n" % (i, 1000 + i) for i in CLS_IDS),
    "cls_spaces": "  " + "".join(cls_line(i, " ") for i in CLS_IDS[:3]).replace("\n", "\r\n\n")
                  + "%d nan inf 1e3 a.jpg\n%d -2.5 +.5 7E-1 b.jpg\n" % CLS_IDS[3:5]
                  + "".join(cls_line(i, " \t ") for i in CLS_IDS[5:]).rstrip("\n"),
    "cls_extra": _CLS + cls_line(1000) + cls_line(0),
    "cls_missing": "".join(cls_line(i) for i in CLS_IDS if i != CLS_IDS[4]),
    "cls_index_only": _CLS + "7\n",
    "cls_whitespace_line": _CLS + " \t \n",
    "cls_leading_blank": "\n" + _CLS,
    "empty": "",
    # MXNet reads these silently wrong (C's atol/atof); refused here
    "cls_not_number": _CLS.replace("\t%d\t" % (100 + CLS_IDS[2]), "\tabc\t"),
    "cls_number_prefix": _CLS.replace("\t%d\t" % (100 + CLS_IDS[2]), "\t12abc\t"),
    "cls_index_float": _CLS.replace("%d\t" % CLS_IDS[2], "%d.9\t" % CLS_IDS[2], 1),
    "cls_duplicate": _CLS + "%d\t5\t5\t5\tagain.jpg\n" % CLS_IDS[2],
    "det": _DET,
    "det_fixed": "".join(det_line(i, 2) for i in DET_IDS),
    "det_spaces": "  " + _DET.replace("\t", " \t "),
    "det_blank_lines": _DET.replace("\n", "\n\n"),
    "det_crlf": _DET.replace("\n", "\r\n"),
    "det_trailing_space": _DET.replace("\n", " \t\n"),
    "det_extra": _DET + det_line(999, 5),
    "det_missing": "".join(det_line(i, 1) for i in DET_IDS[:3]),
    "det_no_path": "".join(det_line(i, 1, path=False) for i in DET_IDS),
    "det_empty_label": _DET + "%d\tnolabel.png\n" % 77,
    "det_index_only": _DET + "77\n",
}
# the longest label of "det" (3 objects) and the batches' label row for it
DET_LONGEST = len(det_label(0, 3))

# name -> (iterator, list name or "" for none, kwargs): every batch of one epoch recorded
CASES = {
    "lw1": ("ImageRecordIter", "cls", {}),
    "lw3": ("ImageRecordIter", "cls", dict(label_width=3)),
    "no_path": ("ImageRecordIter", "cls_no_path", {}),
    "spaces": ("ImageRecordIter", "cls_spaces", dict(label_width=3)),
    "extra_lines": ("ImageRecordIter", "cls_extra", dict(label_width=2)),
    "round_batch": ("ImageRecordIter", "cls", dict(label_width=2, batch_size=3)),
    "parts": ("ImageRecordIter", "cls", dict(label_width=3, num_parts=2, part_index=1, batch_size=2)),
    "dtype_uint8": ("ImageRecordIter", "cls", dict(label_width=2, dtype="uint8")),
    "v1": ("ImageRecordIter_v1", "cls", dict(label_width=2)),
    "uint8": ("ImageRecordUInt8Iter", "cls", dict(label_width=2)),
    "uint8_v1": ("ImageRecordUInt8Iter_v1", "cls", dict(label_width=2)),
    "int8": ("ImageRecordInt8Iter", "cls", dict(label_width=2, mean_r=15)),
    "no_list": ("ImageRecordIter", "", dict(label_width=2)),
    "det_greedy": ("ImageDetRecordIter", "det", {}),
    "det_fixed": ("ImageDetRecordIter", "det_fixed", dict(label_width=14)),
    "det_width_cut": ("ImageDetRecordIter", "det_fixed", dict(label_width=8)),  # the first object only
    "det_spaces": ("ImageDetRecordIter", "det_spaces", {}),
    "det_extra_line": ("ImageDetRecordIter", "det_extra", {}),
    "det_pad_width": ("ImageDetRecordIter", "det", dict(label_pad_width=30, label_pad_value=-7)),
    "det_parts": ("ImageDetRecordIter", "det", dict(num_parts=2, part_index=1, batch_size=1)),
    "det_round_batch": ("ImageDetRecordIter", "det", dict(batch_size=3)),
    "det_no_list": ("ImageDetRecordIter", "", {}),
}
# name -> (iterator, list name, kwargs, our message (regex), a piece of MXNet's recorded message)
ERRORS = {
    "missing_id": ("ImageRecordIter", "cls_missing", {}, "cls_missing.lst has no line for the record with id %d"
                   % CLS_IDS[4], "fail to find imagelabel for id %d" % CLS_IDS[4]),
    "too_wide": ("ImageRecordIter", "cls", dict(label_width=5), r"cls.lst, line 1: 4 value\(s\) after the index, "
                 "label_width is 5", "Bad ImageList format"),
    "index_only": ("ImageRecordIter", "cls_index_only", {}, r"cls_index_only.lst, line 8: 0 value\(s\) after the "
                   "index, label_width is 1", "Bad ImageList format"),
    "whitespace_line": ("ImageRecordIter", "cls_whitespace_line", {}, "line 8: the line is only whitespace",
                        "Bad ImageList format"),
    "leading_blank": ("ImageRecordIter", "cls_leading_blank", {}, "line 1: the list starts with an empty line, "
                      "which MXNet 1.9.1 refuses", "Bad ImageList format"),
    "empty_file": ("ImageRecordIter", "empty", {}, "empty.lst is an empty file",
                   "Cannot find any files that matches the URI pattern"),
    "no_file": ("ImageRecordIter", "no_such_file", {}, "path_imglist .*no_such_file.lst: No such file",
                "Cannot find any files that matches the URI pattern"),
    "header_width": ("ImageRecordIter", "", {}, "provides a 2-dimensional label but label_width is set to 1",
                     "rec file provide 2-dimensional label but label_width is set to 1"),
    "header_width3": ("ImageRecordInt8Iter", "", dict(label_width=3),
                      "provides a 2-dimensional label but label_width is set to 3",
                      "rec file provide 2-dimensional label but label_width is set to 3"),
    "label_width_0": ("ImageRecordIter", "cls", dict(label_width=0), "value 0 for Parameter label_width should be "
                      "greater equal to 1", "value 0 for Parameter label_width should be greater equal to 1"),
    "det_missing_id": ("ImageDetRecordIter", "det_missing", {}, "det_missing.lst has no line for the record with id "
                       "%d" % DET_IDS[3], "fail to find imagelabel for id %d" % DET_IDS[3]),
    "det_pad_small": ("ImageDetRecordIter", "det", dict(label_pad_width=DET_LONGEST - 1),
                      "label_pad_width: %d smaller than estimated width: %d" % (DET_LONGEST - 1, DET_LONGEST),
                      "label_pad_width: %d smaller than estimated width: %d" % (DET_LONGEST - 1, DET_LONGEST)),
    "det_too_wide": ("ImageDetRecordIter", "det", dict(label_width=20), r"line 1: \d+ value\(s\) after the index, "
                     "label_width is 20", "Bad ImageList format"),
    "det_no_path": ("ImageDetRecordIter", "det_no_path", {}, "the line of id %d in path_imglist .*det_no_path.lst "
                    "has no detection label .* 5 values after the header are not a multiple of object_width 6"
                    % DET_IDS[0], "(label_width - header_width) % object_width_ == 0"),
    "det_empty_label": ("ImageDetRecordIter", "det_empty_label", {}, "line 5: no label between the index and the "
                        "path 'nolabel.png'", "Bad ImageList format: empty label"),
    "det_index_only": ("ImageDetRecordIter", "det_index_only", {}, "line 5: no path after the index",
                       "Bad ImageList format"),
}
# name -> (list name, kwargs, our message): MXNet gives batches (recorded: their labels), wrong
QUIRKS = {
    "not_number": ("cls_not_number", {}, r"line 5: label 1, 'abc', is not a number"),
    "number_prefix": ("cls_number_prefix", {}, r"line 5: label 1, '12abc', is not a number"),
    "index_float": ("cls_index_float", {}, r"line 5: the index '33.9' is not a record id"),
    "duplicate": ("cls_duplicate", {}, r"line 8: index 33 is also on line 5"),
    "path_as_label": ("cls", dict(label_width=4), r"line 1: label 4, 'img_51.jpg', is not a number \(label_width 4 "
                      "reads the line's last value: is it the path\\?\\)"),
}
# name -> (list name, the case whose batches neogluon gives): MXNet's variable-width reading takes
# the path for a label when a line ends with whitespace (CR of CRLF too) and fails (recorded)
# (MXNet's line reader leaves all but the last of a run of line ends in the line: a line before
# an empty line, or of CRLF ends, ends with whitespace)
LENIENT = {"det_crlf": ("det_crlf", "det_greedy"), "det_trailing_space": ("det_trailing_space", "det_greedy"),
           "det_blank_lines": ("det_blank_lines", "det_greedy")}
# num_parts: records of these sizes (pixels a side of random PNGs, so of unequal bytes) in
# uneven.rec with uneven.idx, each with its position as label; recorded: each part's labels
UNEVEN = os.path.join(FIXTURES, "uneven.rec")
UNEVEN_SIDES = (40, 8, 8, 8, 30, 8, 8)
PARTS = (2, 3, 4, 9)
SHUFFLE = {"cls": ("ImageRecordIter", "cls", dict(label_width=3)), "det": ("ImageDetRecordIter", "det", {})}
SHUFFLE_EPOCHS = 3


def list_path(name):
    return os.path.join(FIXTURES, name + ".lst")


def make(io, iterator, imglist, kwargs, **extra):
    """The iterator ``iterator`` of ``io`` (mx.io) over cls.rec or det.rec with ``imglist``."""
    kwargs = dict(kwargs)
    batch_size = kwargs.pop("batch_size", 4)
    rec = DET_REC if iterator == "ImageDetRecordIter" else CLS_REC
    return getattr(io, iterator)(path_imgrec=rec, data_shape=SHAPE, batch_size=batch_size,
                                 path_imglist=list_path(imglist) if imglist else "", **kwargs, **extra)


def epoch(it):
    """(data, label, pad) of each batch of one epoch."""
    return [(b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad) for b in it]


def pairs(batches):
    """The sorted (pixel value, label...) rows of the batches' images (pads left out)."""
    rows = []
    for data, label, pad in batches:
        n = len(data) - pad
        rows += [(float(data[k, 0, 0, 0]),) + tuple(np.atleast_1d(label[k]).tolist()) for k in range(n)]
    return sorted(rows)
