"""Run MXNet 1.x code unchanged: make ``import mxnet`` resolve to neogluon.

``alias_mxnet()`` puts an import hook first on ``sys.meta_path`` that serves the name
``mxnet`` and every dotted name under it (``mxnet.gluon``, ``mxnet.gluon.nn``,
``mxnet.ndarray``, ...) with the neogluon module of the same path, the way Pillow serves
``import PIL``; ``unalias_mxnet()`` takes it out again. The hook itself lives in the
standard-library-only package :mod:`neogluon_alias`, which ``neogluon alias install`` also
loads from a ``.pth`` file at interpreter start.

    >>> from neogluon.compat import alias_mxnet
    >>> alias_mxnet()
    >>> import mxnet as mx              # neogluon's API, mx.__version__ == "1.9.1"
    >>> from mxnet.gluon import nn      # neogluon.gluon.nn

Every module of MXNet 1.9.1's package imports (those neogluon has not built are served from
MXNet's recorded module table, see :mod:`neogluon._names`); a name MXNet never had raises
the usual ``ModuleNotFoundError`` naming ``mxnet.<that name>``.
"""
from neogluon_alias import (ALIAS, TARGET, MXNetAliasFinder, alias_mxnet, unalias_mxnet,  # noqa: F401
                            is_aliased, activate, find_real_mxnet, is_neogluon_view)

__all__ = ["alias_mxnet", "unalias_mxnet", "is_aliased", "MXNetAliasFinder"]
