"""``neogluon.compat.alias_mxnet``: ``import mxnet`` and its submodules resolve to neogluon."""
import importlib
import importlib.util
import pickle
import sys
import types

import numpy as np
import pytest

import neogluon
from neogluon.compat import alias_mxnet, is_aliased, unalias_mxnet


@pytest.fixture
def aliased():
    assert "mxnet" not in sys.modules
    alias_mxnet()
    yield
    unalias_mxnet()


def test_top_level_and_from_imports(aliased):
    import mxnet as mx
    from mxnet import autograd, gluon, nd
    assert mx.__neogluon__ is neogluon and mx.__name__ == "mxnet"
    assert mx.__version__ == "1.9.1" and neogluon.__version__ != "1.9.1"  # the API level clients check
    assert mx.gluon is neogluon.gluon and mx.nd is neogluon.nd
    assert (gluon, nd, autograd) == (neogluon.gluon, neogluon.nd, neogluon.autograd)
    assert mx.nd.ones((2, 3)).shape == (2, 3)


@pytest.mark.parametrize("name", ["mxnet.gluon", "mxnet.gluon.nn", "mxnet.gluon.loss", "mxnet.gluon.rnn",
                                  "mxnet.gluon.data", "mxnet.ndarray", "mxnet.symbol", "mxnet.autograd",
                                  "mxnet.initializer", "mxnet.optimizer", "mxnet.metric", "mxnet.lr_scheduler",
                                  "mxnet.context", "mxnet.random", "mxnet.test_utils", "mxnet.nd", "mxnet.sym"])
def test_submodules_are_neogluons(aliased, name):
    module = importlib.import_module(name)
    expected = importlib.import_module("neogluon" + name[len("mxnet"):]) if name not in ("mxnet.nd", "mxnet.sym") \
        else getattr(neogluon, name.split(".")[1])
    assert module is expected
    assert sys.modules[name] is expected


def test_dotted_import_statements(aliased):
    import mxnet.gluon.nn
    import mxnet.gluon.nn as nn
    from mxnet.gluon import nn as nn2
    assert mxnet.gluon.nn is nn is nn2 is neogluon.gluon.nn  # noqa: F821  pylint: disable=undefined-variable
    layer = nn.Dense(3, in_units=2)
    assert type(layer).__module__.startswith("neogluon.")


def test_modules_keep_their_own_spec(aliased):
    import mxnet.gluon  # noqa: F401
    assert neogluon.__spec__.name == "neogluon"
    assert neogluon.gluon.__spec__.name == "neogluon.gluon"
    assert not hasattr(neogluon.autograd, "__path__")
    importlib.reload(neogluon.lr_scheduler)


def test_objects_pickle_under_neogluon_names(aliased):
    import mxnet as mx
    arr = pickle.loads(pickle.dumps(mx.nd.array([1, 2])))
    np.testing.assert_array_equal(arr.asnumpy(), [1, 2])
    assert b"mxnet" not in pickle.dumps(mx.nd.array([1]))


def test_missing_modules_raise_module_not_found(aliased):
    with pytest.raises(ModuleNotFoundError) as err:
        import mxnet.no_such_module  # noqa: F401  pylint: disable=unused-import
    assert err.value.name == "mxnet.no_such_module"
    with pytest.raises(ImportError):
        from mxnet import no_such_thing  # noqa: F401  pylint: disable=unused-import


def test_modules_neogluon_lacks_come_from_mxnets_table(aliased):
    from neogluon import _names
    served = [m for m in sorted(_names.table()) if importlib.util.find_spec(_names.neogluon_name(m)) is not None
              and _names.is_stand_in(importlib.import_module(_names.neogluon_name(m)))]
    if not served:
        pytest.skip("every module of MXNet's table has a neogluon file")
    module = importlib.import_module(served[0])
    assert module is sys.modules["neogluon" + served[0][len("mxnet"):]]
    assert _names.is_stand_in(module)


def test_other_names_are_not_served(aliased):
    with pytest.raises(ModuleNotFoundError):
        import mxnetfoo  # noqa: F401  pylint: disable=unused-import


def test_idempotent_and_reversible():
    assert not is_aliased()
    first, second = alias_mxnet(), alias_mxnet()
    try:
        assert first is second
        assert sum(f is first for f in sys.meta_path) == 1
        import mxnet.gluon.nn  # noqa: F401
        assert is_aliased()
    finally:
        unalias_mxnet()
    assert not is_aliased()
    assert not [name for name in sys.modules if name == "mxnet" or name.startswith("mxnet.")]
    with pytest.raises(ModuleNotFoundError):
        import mxnet  # noqa: F401
    unalias_mxnet()  # a second call is harmless


def test_refuses_when_a_real_mxnet_is_imported(monkeypatch):
    fake = types.ModuleType("mxnet")
    fake.__file__ = "/somewhere/mxnet/__init__.py"
    monkeypatch.setitem(sys.modules, "mxnet", fake)
    with pytest.raises(ImportError, match="already imported"):
        alias_mxnet()
    assert not is_aliased()
