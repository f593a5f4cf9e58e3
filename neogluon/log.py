"""MXNet's ``mx.log``: loggers with MXNet's one-letter, coloured line format
(``W0505 00:29:47 3525 file.py:func:1] message``)."""
import logging
import warnings

from logging import CRITICAL, DEBUG, ERROR, INFO, NOTSET, WARNING  # noqa: F401

__all__ = ["get_logger", "getLogger", "CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "NOTSET"]

_LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """Level letter and colour, date, process, location, then the message."""

    def __init__(self):
        super().__init__(datefmt="%m%d %H:%M:%S")

    @staticmethod
    def _color(level):
        if level >= WARNING:
            return "\x1b[31m"
        return "\x1b[32m" if level >= INFO else "\x1b[34m"

    def format(self, record):
        self._style._fmt = (self._color(record.levelno) + _LABELS.get(record.levelno, "U")  # pylint: disable=protected-access
                            + "%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d]\x1b[0m %(message)s")
        return super().format(record)


def getLogger(name=None, filename=None, filemode=None, level=WARNING):  # pylint: disable=invalid-name
    """Deprecated spelling of :func:`get_logger`."""
    warnings.warn("getLogger is deprecated, Use get_logger instead.", DeprecationWarning, stacklevel=2)
    return get_logger(name, filename, filemode, level)


def get_logger(name=None, filename=None, filemode=None, level=WARNING):
    """A logger writing to ``filename`` (mode ``filemode``, 'a' by default) or to stderr in
    MXNet's coloured format; a named logger is set up (handler and level) on the first call only."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", None):
        logger._init_done = True  # pylint: disable=protected-access
        if filename:
            handler = logging.FileHandler(filename, filemode or "a")
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(_Formatter())
        logger.addHandler(handler)
        logger.setLevel(level)
    return logger
