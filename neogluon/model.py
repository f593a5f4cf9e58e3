"""``mx.model``: checkpoint files and the callback record of MXNet 1.9.1's legacy training API.

``save_checkpoint``/``load_checkpoint`` write and read ``prefix-symbol.json`` and
``prefix-%04d.params`` (``arg:``/``aux:`` keys) exactly as MXNet does. ``FeedForward``, deprecated
since MXNet 0.10, is kept only as a name that tells its user to move to ``mx.mod.Module``.
"""
import logging
from collections import namedtuple

from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError
from .context import cpu

__all__ = ["BatchEndParam", "save_checkpoint", "load_params", "load_checkpoint", "FeedForward"]

# what batch_end_callback receives
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params``."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    save_dict = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``, split on the ``arg:``/``aux:`` prefixes."""
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    arg_params, aux_params = {}, {}
    if not save_dict:
        logging.warning("Params file '%s' is empty", fname)
        return arg_params, aux_params
    if not isinstance(save_dict, dict):
        raise MXNetError("load_params: %s holds a list of arrays, not the named 'arg:'/'aux:' arrays "
                         "of a checkpoint" % fname)
    for k, v in save_dict.items():
        tp, name = k.split(":", 1) if ":" in k else ("", k)
        if tp == "arg":
            arg_params[name] = v
        if tp == "aux":
            aux_params[name] = v
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and ``prefix-%04d.params``."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


class FeedForward:
    """MXNet's deprecated pre-Module model API; neogluon refuses it with the replacement to use."""

    def __init__(self, *args, **kwargs):
        raise MXNetError("mx.model.FeedForward is deprecated (since MXNet 0.10) and not provided by neogluon; "
                         "use mx.mod.Module: mod = mx.mod.Module(symbol, context=ctx); mod.fit(train_iter, ...)")

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """Refused like the constructor; load with ``mx.mod.Module.load(prefix, epoch)``."""
        raise MXNetError("mx.model.FeedForward.load is not provided by neogluon; use "
                         "mx.mod.Module.load(prefix, epoch) or mx.model.load_checkpoint(prefix, epoch)")

    @staticmethod
    def create(*args, **kwargs):
        """Refused like the constructor; use ``mx.mod.Module(...).fit(...)``."""
        raise MXNetError("mx.model.FeedForward.create is not provided by neogluon; use mx.mod.Module(...).fit(...)")
