"""``mx.error``: MXNet's structured error classes, registered by name as MXNet's are."""
from .base import MXNetError, register_error

__all__ = ["MXNetError", "register"]

register = register_error


@register_error
class InternalError(MXNetError):
    """An internal error; the message gets MXNet's hint to report it."""

    def __init__(self, msg):
        if "MXNet hint:" not in msg:
            msg += ("\nMXNet hint: You hit an internal error. Please open an issue in "
                    "https://github.com/apache/incubator-mxnet/issues/new/choose to report it.")
        super().__init__(msg)


register_error("ValueError", ValueError)
register_error("TypeError", TypeError)
register_error("AttributeError", AttributeError)
register_error("IndexError", IndexError)
register_error("NotImplementedError", NotImplementedError)
