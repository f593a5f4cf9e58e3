"""``mx.recordio``: MXNet's RecordIO files (``.rec``, with an ``.idx`` index), byte for byte.

The format is dmlc-core's: each record is a 4-byte magic ``0xced7230a``, a 4-byte word
``cflag << 29 | length`` and the payload, zero-padded to a multiple of 4 bytes. A payload
that contains the magic at a 4-byte-aligned offset is split there into parts (cflag 1 for
the first, 2 for the middle ones, 3 for the last) and the magic is dropped from the data,
as dmlc's ``RecordIOWriter`` does, so that a reader can resynchronise on the magic. The
index file has one ``key\\tbyte offset`` line per record. ``pack``/``unpack`` add MXNet's
``IRHeader`` (``struct 'IfQQ'``: flag, label, id, id2; an array label is stored as float32
after the header with ``flag`` set to its length). A record that is cut short or does not
start with the magic raises MXNetError naming the file and the byte offset.
"""
from collections import namedtuple
import os
import numbers
import struct
import threading

import numpy as np

from .base import MXNetError

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LENGTH_MASK = (1 << 29) - 1


def _split_at_magic(buf):
    """The parts dmlc's writer emits for ``buf``: (cflag, bytes) pairs."""
    parts, start = [], 0
    pos = buf.find(_MAGIC_BYTES)
    while pos != -1 and pos + 4 <= (len(buf) >> 2) << 2:
        if pos % 4 == 0:
            parts.append((1 if start == 0 else 2, buf[start:pos]))
            start = pos + 4
            pos = buf.find(_MAGIC_BYTES, start)
        else:
            pos = buf.find(_MAGIC_BYTES, pos + 1)
    parts.append((3 if start else 0, buf[start:]))
    return parts


def encode_record(buf):
    """The bytes dmlc's ``RecordIOWriter::WriteRecord`` writes for one record."""
    buf = bytes(buf)
    if len(buf) >= 1 << 29:
        raise MXNetError("RecordIO only accept record less than 2^29 bytes, got %d" % len(buf))
    out = []
    for cflag, part in _split_at_magic(buf):
        out.append(_MAGIC_BYTES + struct.pack("<I", (cflag << 29) | len(part)) + part)
    out.append(b"\0" * (-len(buf) % 4))
    return b"".join(out)


class MXRecordIO:
    """Reads or writes a sequential RecordIO file (``flag`` 'r' or 'w'), as MXNet's does.

    Picklable: a copy reopens the file (at its start) in the process that unpickles it,
    which is how DataLoader workers get their own handle."""

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._file = None
        self._lock = threading.Lock()
        self.open()

    def open(self):
        if self.flag not in ("r", "w"):
            raise ValueError("Invalid flag %s" % self.flag)
        self.writable = self.flag == "w"
        try:
            self._file = open(self.uri, "wb" if self.writable else "rb")
        except OSError as e:
            raise MXNetError('LocalFileSystem: Open "%s": %s' % (self.uri, e.strerror)) from None
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # pylint: disable=broad-except
            pass

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_file"] = None
        d["_lock"] = None
        d["is_open_on_pickle"] = self.is_open
        d["is_open"] = False
        return d

    def __setstate__(self, d):
        was_open = d.pop("is_open_on_pickle", False)
        self.__dict__ = d
        self._lock = threading.Lock()
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != os.getpid():  # (current_process().pid, as MXNet: the same, 20x slower)
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self):
        if not self.is_open:
            return
        self._file.close()
        self._file = None
        self.is_open = False
        self.pid = None

    def reset(self):
        """Close and reopen: a reader starts again from the first record."""
        self.close()
        self.open()

    def write(self, buf):
        """Append one record (bytes)."""
        assert self.writable
        self._check_pid(allow_reset=False)
        self._file.write(encode_record(buf))

    def read(self):
        """The next record's bytes, or None at the end of the file."""
        assert not self.writable
        self._check_pid(allow_reset=False)
        return self._read_record()

    def _fail(self, offset, why):
        raise MXNetError("Invalid RecordIO File %s: %s at byte offset %d" % (self.uri, why, offset))

    def _read_record(self):
        f = self._file
        chunks = []
        while True:
            offset = f.tell()
            head = f.read(8)
            if not head:
                if chunks:
                    self._fail(offset, "the file ends inside a multi-part record")
                return None
            if len(head) < 8:
                self._fail(offset, "truncated record header (%d of 8 bytes)" % len(head))
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                self._fail(offset, "no RecordIO magic number (found 0x%08x)" % magic)
            cflag, length = lrec >> 29, lrec & _LENGTH_MASK
            padded = (length + 3) & ~3
            data = f.read(padded)
            if len(data) < padded:
                self._fail(offset, "truncated record (needs %d bytes of data, the file has %d)"
                           % (padded, len(data)))
            chunks.append(data[:length])
            if cflag in (0, 3):
                return _MAGIC_BYTES.join(chunks)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index (``idx_path``): random access by key, as MXNet's."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = str(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for lineno, line in enumerate(iter(self.fidx.readline, ""), 1):
                fields = line.strip().split("\t")
                try:
                    key, pos = self.key_type(fields[0]), int(fields[1])
                except (ValueError, IndexError):
                    raise MXNetError("Invalid index file %s: line %d is %r, expected 'key<TAB>offset'"
                                     % (self.idx_path, lineno, line)) from None
                self.idx[key] = pos
                self.keys.append(key)

    def close(self):
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx):
        """Move the reader to the record with key ``idx``."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        try:
            pos = self.idx[idx]
        except KeyError:
            raise KeyError("%r is not a key of the index %s" % (idx, self.idx_path)) from None
        self._file.seek(pos)

    def tell(self):
        """The byte offset where the next record will be written."""
        assert self.writable
        return self._file.tell()

    def read_idx(self, idx):
        """The record with key ``idx`` (safe to call from several threads at once)."""
        with self._lock:
            self.seek(idx)
            return self.read()

    def write_idx(self, idx, buf):
        """Append a record under key ``idx`` and index it."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """A record's header: ``flag`` (set to the label's length for an array label),
``label`` (a float or an array of floats), ``id`` and ``id2`` (the id's high-order bits)."""
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Header + bytes -> one record's payload, as MXNet's ``recordio.pack``."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """A record's payload -> (IRHeader, the bytes after it); an array label comes back as a
    float32 numpy array."""
    if len(s) < _IR_SIZE:
        raise MXNetError("recordio.unpack: a record of %d bytes is shorter than its %d-byte header"
                         % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def unpack_img(s, iscolor=-1):
    """A record's payload -> (IRHeader, the image decoded by OpenCV, BGR as cv2 gives it)."""
    from .opencv import cv2_module
    cv2 = cv2_module()
    header, s = unpack(s)
    img = cv2.imdecode(np.frombuffer(s, dtype=np.uint8), iscolor)
    return header, img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Encode a (BGR, as cv2) image with OpenCV and pack it with ``header``, as MXNet's."""
    from .opencv import cv2_module
    cv2 = cv2_module()
    params = None
    if img_fmt.upper() in (".JPG", ".JPEG"):
        params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    elif img_fmt.upper() == ".PNG":
        params = [cv2.IMWRITE_PNG_COMPRESSION, quality]
    ret, buf = cv2.imencode(img_fmt, np.asarray(img), params)
    assert ret, "failed to encode image"
    return pack(header, buf.tobytes())


