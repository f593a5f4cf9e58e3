"""The labels of an im2rec ``.lst`` file (``path_imglist``) for MXNet 1.9.1's record iterators.

A line is ``index<whitespace>label...<whitespace>path`` (im2rec writes tabs; MXNet splits on
any whitespace). The records' labels are looked up by their header's ``id`` (not by the
line's position): shuffling and ``num_parts`` move records, their labels follow them.

- fixed width (``ImageRecordIter``, and ``ImageDetRecordIter`` with ``label_width > 0``): the
  first ``label_width`` values after the index; the rest of the line (the path, more labels)
  is not read, so a list without paths works;
- variable width (``ImageDetRecordIter`` without ``label_width``): every value between the
  index and the last one (the path).

As MXNet's: empty lines are skipped, but for a first one; an empty file, a missing file, a line with fewer values
than the width, a whitespace-only line and a record whose id is not in the list are errors;
``nan``/``inf`` and exponents are numbers. MXNet reads numbers with C's ``atol``/``atof`` and
takes what they make of anything else; here that is an error naming the file, the line and
the value, because MXNet's result is silently wrong there: a label that is not a number
(``abc`` is 0, ``12abc`` 12), the path read as a label when ``label_width`` is one more than
the labels (``img.jpg`` is 0, ``5.jpg`` 5), an index that is not a non-negative integer
(``102.9`` is 102, ``abc`` 0, ``-1`` never found), and an index on two lines (MXNet keeps the
last line's labels). MXNet's line reader leaves all but the last of a run of line ends in the
line (the CR of CRLF, the first LF before an empty line): such a line, as one ending with
spaces, ends with whitespace, which makes MXNet's variable-width reading take the path as a
label (its detection label check then fails); here the path is the last value all the same.
"""
import re

import numpy as np

from ..base import MXNetError

__all__ = ["LabelList"]

# the numbers C's atof reads whole (decimal, exponent, inf, nan)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf(inity)?|nan)", re.IGNORECASE)


class LabelList:
    """The labels of ``path`` by record id (see the module docstring); ``width`` > 0 reads that
    many labels a line, else all values but the last. ``longest`` is the longest label."""

    def __init__(self, iterator, path, width):
        self.iterator, self.path = iterator, path
        self._labels, self._lines = {}, {}
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise MXNetError("%s: path_imglist %s: %s (MXNet 1.9.1: Cannot find any files that matches the URI "
                             "pattern %s)" % (iterator, path, e.strerror, path)) from None
        if not text:
            raise MXNetError("%s: path_imglist %s is an empty file (MXNet 1.9.1 refuses it: Cannot find any files "
                             "that matches the URI pattern %s)" % (iterator, path, path))
        lines = text.splitlines()
        if not lines[0]:
            raise MXNetError("%s: path_imglist %s: line 1 is empty: MXNet 1.9.1 refuses a list that starts with an "
                             "empty line (Bad ImageList format); it skips the other empty lines" % (iterator, path))
        for number, line in enumerate(lines, 1):
            if line:
                self._add(number, line.split(), width)
        self.longest = max((label.size for label in self._labels.values()), default=0)

    def _fail(self, number, problem):
        raise MXNetError("%s: path_imglist %s, line %d: %s" % (self.iterator, self.path, number, problem))

    def _add(self, number, values, width):
        if not values:
            self._fail(number, "the line is only whitespace (MXNet: Bad ImageList format)")
        index = values[0]
        if not index.isdigit():
            self._fail(number, "the index %r is not a record id (a non-negative integer)" % index)
        if width > 0:
            if len(values) - 1 < width:
                self._fail(number, "%d value(s) after the index, label_width is %d (MXNet: Bad ImageList format)"
                           % (len(values) - 1, width))
            texts = values[1:1 + width]
        else:
            if len(values) < 2:
                self._fail(number, "no path after the index (MXNet: Bad ImageList format)")
            texts = values[1:-1]
            if not texts:
                self._fail(number, "no label between the index and the path %r (MXNet: Bad ImageList format: "
                           "empty label)" % values[-1])
        for k, text in enumerate(texts, 1):
            if not _NUMBER.fullmatch(text):
                last = width > 0 and k + 1 == len(values)  # label_width reached the line's last value
                self._fail(number, "label %d, %r, is not a number%s" % (
                    k, text, " (label_width %d reads the line's last value: is it the path?)" % width if last
                    else ""))
        key = int(index)
        if key in self._lines:
            self._fail(number, "index %d is also on line %d (MXNet would keep the last line's labels)"
                       % (key, self._lines[key]))
        self._lines[key] = number
        self._labels[key] = np.array([float(t) for t in texts], np.float32)

    def find(self, record_id):
        """The label of the record whose header id is ``record_id``."""
        label = self._labels.get(int(record_id))
        if label is None:
            raise MXNetError("%s: path_imglist %s has no line for the record with id %d (the record header's id; "
                             "MXNet: fail to find imagelabel for id %d)" % (self.iterator, self.path, record_id,
                                                                           record_id))
        return label
