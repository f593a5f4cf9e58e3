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
    many labels a line, else all values but the last. ``longest`` is the longest label.

    Kept as arrays (sorted ids, one float32 array of all labels and each line's bounds in it),
    not an object a line, so that a list of ImageNet's size costs its numbers' bytes."""

    def __init__(self, iterator, path, width):
        self.iterator, self.path = iterator, path
        ids, numbers, values, bounds = self._read(width)
        self._order = np.argsort(np.array(ids, np.uint64), kind="stable")
        self._ids = np.array(ids, np.uint64)[self._order]
        self._values, self._bounds = np.array(values, np.float32), np.array(bounds)
        self.longest = int(np.diff(self._bounds).max(initial=0))
        repeated = np.nonzero(self._ids[1:] == self._ids[:-1])[0]
        if repeated.size:
            first, again = self._order[repeated[0]], self._order[repeated[0] + 1]
            self._fail(numbers[again], "index %d is also on line %d (MXNet would keep the last line's labels)"
                       % (ids[again], numbers[first]))

    def _read(self, width):
        """(index, line number) of each line, its labels one after the other and their bounds."""
        try:
            f = open(self.path, encoding="utf-8", errors="replace", newline="")  # lines end at \n, \r or \r\n
        except OSError as e:
            raise MXNetError("%s: path_imglist %s: %s (MXNet 1.9.1: Cannot find any files that matches the URI "
                             "pattern %s)" % (self.iterator, self.path, e.strerror, self.path)) from None
        ids, numbers, values, bounds, number = [], [], [], [0], 0
        with f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if line:
                    ids.append(self._parse(number, line.split(), width, values))
                    numbers.append(number)
                    bounds.append(len(values))
                elif number == 1:
                    self._fail(1, "the list starts with an empty line, which MXNet 1.9.1 refuses (Bad ImageList "
                               "format); it skips the other empty lines")
        if number == 0:
            raise MXNetError("%s: path_imglist %s is an empty file (MXNet 1.9.1 refuses it: Cannot find any files "
                             "that matches the URI pattern %s)" % (self.iterator, self.path, self.path))
        return ids, numbers, values, bounds

    def _fail(self, number, problem):
        raise MXNetError("%s: path_imglist %s, line %d: %s" % (self.iterator, self.path, number, problem))

    def _parse(self, number, texts, width, values):
        """The index of the line ``number`` (split into ``texts``); its labels go to ``values``."""
        if not texts:
            self._fail(number, "the line is only whitespace (MXNet: Bad ImageList format)")
        index = texts[0]
        if not (index.isascii() and index.isdigit() and int(index) < 1 << 64):
            self._fail(number, "the index %r is not a record id (an integer in [0, 2**64))" % index)
        if width > 0:
            if len(texts) - 1 < width:
                self._fail(number, "%d value(s) after the index, label_width is %d (MXNet: Bad ImageList format)"
                           % (len(texts) - 1, width))
            labels = texts[1:1 + width]
        else:
            if len(texts) < 2:
                self._fail(number, "no path after the index (MXNet: Bad ImageList format)")
            labels = texts[1:-1]
            if not labels:
                self._fail(number, "no label between the index and the path %r (MXNet: Bad ImageList format: "
                           "empty label)" % texts[-1])
        for k, text in enumerate(labels, 1):
            if not _NUMBER.fullmatch(text):
                last = width > 0 and k + 1 == len(texts)  # label_width reached the line's last value
                self._fail(number, "label %d, %r, is not a number%s" % (
                    k, text, " (label_width %d reads the line's last value: is it the path?)" % width if last
                    else ""))
            values.append(float(text))
        return int(index)

    def find(self, record_id):
        """The label (float32) of the record whose header id is ``record_id``."""
        pos = int(np.searchsorted(self._ids, np.uint64(record_id)))
        if pos == self._ids.size or int(self._ids[pos]) != int(record_id):
            raise MXNetError("%s: path_imglist %s has no line for the record with id %d (the record header's id; "
                             "MXNet: fail to find imagelabel for id %d)" % (self.iterator, self.path, record_id,
                                                                           record_id))
        row = self._order[pos]
        return self._values[self._bounds[row]:self._bounds[row + 1]].copy()  # the caller's, not a view
