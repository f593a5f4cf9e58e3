"""Safe file access for every saver and loader: atomic writes, and reads of regular files only.

MXNet 1.9.1 opens the target of ``nd.save``, ``save_parameters``, ``export``,
``Symbol.save`` and ``Trainer.save_states`` with truncation and writes in place, so a full
disk, a file-size limit or a kill mid-write destroys the previous good file. Here every
writer goes through :func:`atomic_write` (or :func:`atomic_write_all` for a pair of files
that belong together, such as ``export``'s ``-symbol.json`` and ``.params``): the bytes
go to a temporary file in the target's directory, are flushed and fsynced, and only then
renamed over the target. On any failure the previous file is untouched, the temporary
file is removed, and an :class:`~neogluon.base.MXNetError` names the path and the cause.

:func:`read_file` is the loaders' side: it refuses what is not a regular file (a
directory, ``/dev/zero``, a FIFO) before reading a byte, so no loader can read forever,
and it reads exactly the file's size.
"""
import errno
import hashlib
import json
import os
import shutil
import stat
import uuid

from .base import MXNetError

__all__ = ["atomic_write", "atomic_write_all", "read_file", "file_error", "read_record", "write_record"]

_ERROR_TYPES = {}


def file_error(message, err=None):
    """An MXNetError that is also the OSError subclass of ``err`` (FileNotFoundError,
    IsADirectoryError, PermissionError, ...), so code written for MXNet's Python-level file
    functions (``Trainer.load_states`` raises FileNotFoundError there) still catches it."""
    base = type(err) if isinstance(err, OSError) and not isinstance(err, MXNetError) else None
    if base is None:
        return MXNetError(message)
    if base not in _ERROR_TYPES:
        _ERROR_TYPES[base] = type("MXNet" + base.__name__, (MXNetError, base), {"__module__": __name__})
    error = _ERROR_TYPES[base](message)
    error.errno = err.errno
    return error


def _to_bytes(data):
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _target(path):
    """The file a write to ``path`` replaces: a symlink's target (so the link keeps pointing
    at the new contents, as writing through ``open`` does)."""
    path = os.fspath(path)
    return os.path.realpath(path) if os.path.islink(path) else path


def _kind(mode):
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _error(what, path, err):
    cause = err.strerror or str(err) if isinstance(err, OSError) else "%s: %s" % (type(err).__name__, err)
    return file_error("%s: cannot write %r: %s (the previous file, if any, is unchanged)" % (what, path, cause), err)


def _write_temp(path, blob):
    """Write ``blob`` into a new temporary file beside ``path``, flushed and fsynced; its name."""
    directory, base = os.path.split(path)
    while True:
        tmp = os.path.join(directory, ".%s.%s.tmp" % (base, uuid.uuid4().hex[:12]))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as f:
            view, done = memoryview(blob), 0
            while done < len(view):
                done += f.write(view[done:])
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_dir(directory):
    """Make the renames durable (best effort: not every file system can fsync a directory)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _check_target(path, what):
    """True when ``path`` is a device or FIFO, written in place (a rename cannot replace it)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as e:
        raise _error(what, path, e) from e
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISDIR(mode):
        raise _error(what, path, IsADirectoryError(errno.EISDIR, "it is a directory"))
    return True


def atomic_write(path, data, what="save"):
    """Replace the file ``path`` by ``data`` (bytes, or str written as UTF-8) atomically."""
    atomic_write_all([(path, data)], what)


def atomic_write_all(files, what="save"):
    """Write every ``(path, data)`` of ``files``, all or none: each goes to a temporary file
    first; only when all are written are they renamed over their targets, and if a rename
    fails the targets already replaced are restored from hard-linked backups."""
    renamed, direct = [], []
    for path, data in files:
        path = _target(path)
        (direct if _check_target(path, what) else renamed).append((path, _to_bytes(data)))
    files = renamed
    temps = []
    try:
        for path, blob in files:
            temps.append((_write_temp(path, blob), path))
    except BaseException as e:
        for tmp, _ in temps:
            _remove(tmp)
        if isinstance(e, (OSError, ValueError)):
            raise _error(what, files[len(temps)][0], e) from e
        raise
    _commit(temps, what)
    for path, blob in direct:
        try:
            with open(path, "wb") as f:
                f.write(blob)
        except OSError as e:
            raise _error(what, path, e) from e


def _backup(path):
    """A hard link to (or, where links are unsupported, a copy of) the current ``path``;
    None when there is no such file."""
    if not os.path.exists(path):
        return None
    directory, base = os.path.split(path)
    backup = os.path.join(directory, ".%s.%s.bak" % (base, uuid.uuid4().hex[:12]))
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)
    return backup


def _commit(temps, what):
    """Rename every temporary file over its target; on failure undo the renames done.
    Several files are backed up first, so that a failed rename can restore the others."""
    backups = []
    try:
        for _, path in temps:
            backups.append(_backup(path) if len(temps) > 1 else None)
    except OSError as e:
        for leftover in [tmp for tmp, _ in temps] + [b for b in backups if b is not None]:
            _remove(leftover)
        raise _error(what, temps[len(backups)][1], e) from e
    done = []
    try:
        for (tmp, path), backup in zip(temps, backups):
            os.replace(tmp, path)
            done.append((path, backup))
    except OSError as e:
        for path, backup in reversed(done):
            if backup is not None:
                os.replace(backup, path)
            else:
                _remove(path)
        for tmp, _ in temps[len(done):]:
            _remove(tmp)
        raise _error(what, temps[len(done)][1], e) from e
    finally:
        for backup in backups:
            if backup is not None:
                _remove(backup)
    for directory in {os.path.dirname(path) for _, path in temps}:
        _sync_dir(directory)


def _read_all(fd, size):
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_file(path, what="load", text=False):
    """The contents of the regular file ``path`` (bytes, or str decoded as UTF-8 with ``text``).

    A missing file, a directory, a device such as ``/dev/zero``, a FIFO or (with ``text``)
    bytes that are not UTF-8 raise an MXNetError naming ``what`` and the file. The file is
    opened non-blocking, so a FIFO with no writer cannot hang the caller."""
    path = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise file_error("%s: cannot open %r: %s" % (what, path, getattr(e, "strerror", None) or e), e) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            blob = _read_all(fd, info.st_size)
    except OSError as e:
        raise file_error("%s: cannot read %r: %s" % (what, path, e.strerror or e), e) from None
    finally:
        os.close(fd)
    if not stat.S_ISREG(info.st_mode):
        cause = IsADirectoryError(errno.EISDIR, "") if stat.S_ISDIR(info.st_mode) else None
        raise file_error("%s: %r is %s, not a regular file" % (what, path, _kind(info.st_mode)), cause)
    if not text:
        return blob
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MXNetError("%s: %r is not UTF-8 text (byte %d: %s)" % (what, path, e.start, e.reason)) from None


def file_digest(path, algorithm="sha256"):
    """The hexadecimal digest (``hashlib`` algorithm name) of the file's contents, read in
    4 MiB blocks: the model store's SHA-1 check and the compiled packages' SHA-256 record."""
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def read_record(path):
    """A small JSON record kept beside a cache (the compiled backend's measured choices): ``{}``
    when the file is missing, unreadable or not JSON (``path`` None or empty: no record)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, TypeError, ValueError):
        return {}


def write_record(path, record):
    """Write :func:`read_record`'s ``record`` with :func:`atomic_write` (a reader never sees
    half a file); nothing when ``path`` is empty or not writable: the record is a cache,
    measured again by the next process."""
    if not path:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, json.dumps(record, indent=0, sort_keys=True), "write record")
    except (OSError, MXNetError):
        pass
