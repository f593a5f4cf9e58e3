"""Every module of MXNet 1.9.1's package imports and every recorded public name exists
(``neogluon/_mxnet_names.json``, made by ``tools/make_mxnet_names.py``): real where neogluon
builds it, else served so that importing code loads and using it raises "not implemented
yet". The coverage figures are printed with the test output."""
import importlib
import sys

import pytest

import neogluon
from neogluon import _names


@pytest.fixture(scope="module")
def report():
    return _names.coverage()


def stand_in(kind):
    """(MXNet name, object) of a class ('c') or function ('f') served as a stand-in by a
    module neogluon has no file for: found in the table, as modules get built over time."""
    for mxmod, info in sorted(_names.table().items()):
        module = importlib.import_module(_names.neogluon_name(mxmod))
        if not _names.is_stand_in(module):
            continue
        for name, entry in sorted(info["names"].items()):
            if entry[0] == kind and entry[1] == mxmod and _names.is_stand_in(getattr(module, name)):
                return mxmod + "." + name, getattr(module, name)
    pytest.skip("every module of MXNet's table has a neogluon file")


def test_every_module_imports_and_every_name_exists(report, capsys):
    assert report["failed"] == {}
    assert report["missing"] == []
    mods, names = report["modules"], report["names"]
    n_mod = len(mods["real"]) + len(mods["synthesised"])
    n_names = len(names["implemented"]) + len(names["not_implemented"])
    assert n_mod == len(_names.table())
    assert n_names == sum(len(m["names"]) for m in _names.table().values())
    with capsys.disabled():
        print("\nMXNet 1.9.1 coverage: %d modules (%d with a neogluon file, %d served from the table); "
              "%d names: %d implemented (%.1f%%), %d not implemented yet (%.1f%%)"
              % (n_mod, len(mods["real"]), len(mods["synthesised"]), n_names, len(names["implemented"]),
                 100.0 * len(names["implemented"]) / n_names, len(names["not_implemented"]),
                 100.0 * len(names["not_implemented"]) / n_names))


def test_real_names_win_and_served_names_fill_in():
    import neogluon.gluon.loss as loss
    assert loss.L2Loss.__module__ == "neogluon.gluon.loss"        # the module's own
    import neogluon.kvstore as kvstore
    assert _names.is_stand_in(kvstore.KVStoreServer)               # MXNet's, served (no parameter server)
    assert neogluon.operator.CustomOp.__module__ == "neogluon.operator.custom"
    assert neogluon.nd.NDArray is neogluon.ndarray.ndarray.NDArray  # a re-export resolves
    # a served name that re-exports a name defined elsewhere is the same object
    import neogluon.contrib.amp.amp as amp  # MXNet's amp.py imports NDArray; neogluon's does not
    assert "NDArray" not in amp.__dict__ and amp.NDArray is neogluon.ndarray.ndarray.NDArray
    with pytest.raises(AttributeError):
        neogluon.gluon.loss.no_such_name  # pylint: disable=pointless-statement


def test_stand_ins_raise_when_used_not_when_imported():
    name, cls = stand_in("c")
    with pytest.raises(neogluon.MXNetError, match="^%s is not implemented yet" % name.replace(".", r"\.")):
        cls()
    name, func = stand_in("f")
    with pytest.raises(neogluon.MXNetError, match="^%s is not implemented yet" % name.replace(".", r"\.")):
        func(None, None)
    assert "not implemented yet" in func.__doc__


def test_stand_in_classes_can_be_subclassed_at_import():
    name, base = stand_in("c")

    class Mine(base):
        def __init__(self):  # pylint: disable=super-init-not-called
            self.built = True

    assert Mine().built

    class Calls(base):
        pass
    with pytest.raises(neogluon.MXNetError, match="%s is not implemented yet" % name.rpartition(".")[2]):
        Calls()


def test_constants_and_outside_objects_are_real():
    assert neogluon.base.string_types == (str,)
    assert neogluon.base.numeric_types[:2] == (float, int)
    import neogluon.contrib.amp.lists.symbol_fp16 as fp16
    assert "Convolution" in fp16.FP16_FUNCS
    assert neogluon.ndarray.ndarray.py_slice is slice
    import numpy
    assert neogluon.test_utils.np is numpy


def test_star_import_follows_mxnet():
    scope = {}
    exec("from neogluon.test_utils import *", scope)  # pylint: disable=exec-used
    assert scope["np"] is sys.modules["numpy"]
    assert scope["mx"] is neogluon
    assert callable(scope["assert_almost_equal"]) and callable(scope["discard_stderr"])
    scope = {}
    exec("from neogluon.base import *", scope)  # MXNet's __all__ there is ['MXNetError']
    assert scope["MXNetError"] is neogluon.MXNetError


def test_modules_held_as_attributes_import_as_modules():
    import neogluon.ndarray.contrib as contrib
    assert contrib is neogluon.nd.contrib
    from neogluon.metric import ndarray  # GluonTS: 'from mxnet.metric import ndarray'
    assert ndarray is neogluon.ndarray


def test_a_module_mxnet_has_as_a_package_takes_submodules():
    import neogluon.gluon.contrib.data.sampler as sampler  # neogluon has gluon/contrib/data.py
    assert hasattr(sampler, "IntervalSampler")


def test_names_neogluon_defines_in_another_file_resolve_to_the_real_object():
    """MXNet defines its augmenters in image/image.py and CSVIter in io/io.py; neogluon in
    image/augmenters.py and io/text_iters.py: MXNet's paths (and star-imports of them, as
    mx.image's own) give the real classes, never a stand-in."""
    from neogluon.image import augmenters
    from neogluon.io import text_iters
    from neogluon.gluon.rnn import conv_rnn_cell
    import neogluon.image.image
    import neogluon.image.detection
    import neogluon.io.io
    import neogluon.gluon.contrib.rnn.conv_rnn_cell as contrib_conv
    assert neogluon.image.image.RandomOrderAug is augmenters.RandomOrderAug
    assert neogluon.image.detection.RandomOrderAug is augmenters.RandomOrderAug
    assert neogluon.image.RandomOrderAug is augmenters.RandomOrderAug
    assert neogluon.io.io.CSVIter is text_iters.CSVIter
    assert contrib_conv.Conv1DGRUCell is conv_rnn_cell.Conv1DGRUCell


def test_generated_operator_functions_resolve_to_neogluons():
    """MXNet defines its operator functions in generated modules (``ndarray.gen_op``) and
    re-exports them (``optimizer.optimizer.sgd_update``, ``contrib.ndarray.box_nms``): each
    is neogluon's generated function of the same operator, not a stand-in."""
    import numpy as np
    mx = neogluon
    gen_op = importlib.import_module("neogluon.ndarray.gen_op")
    assert gen_op.Activation is mx.nd.op.Activation
    assert importlib.import_module("neogluon.symbol.gen_contrib").box_nms is mx.sym.contrib.box_nms
    contrib_nd = importlib.import_module("neogluon.contrib.ndarray")
    assert contrib_nd.box_nms is mx.nd.contrib.box_nms
    sgd_update = importlib.import_module("neogluon.optimizer.optimizer").sgd_update
    assert not _names.is_stand_in(sgd_update)
    w = mx.nd.ones((2,))
    sgd_update(w, mx.nd.ones((2,)), lr=0.5, wd=0.0, out=w)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.5])
    # an operator neogluon has not registered stays a stand-in
    assert _names.is_stand_in(importlib.import_module("neogluon.ndarray.gen_contrib").count_sketch)  # CUDA-only


def test_nd_np_is_mxnets_numpy_interface_not_numpy():
    """``mx.nd.np`` is MXNet's imperative NumPy interface (the functions mx.np is built on),
    not the numpy package; ``mx.sym.np`` is MXNet's module too."""
    mx = neogluon
    assert mx.nd.np.__name__ == "neogluon.ndarray.numpy" and mx.sym.np.__name__ == "neogluon.symbol.numpy"
    assert mx.nd.np.add is mx.np.add and mx.nd.np.random.uniform is mx.np.random.uniform
    assert mx.nd.np.linalg.norm is mx.np.linalg.norm
    assert isinstance(mx.nd.np.add(mx.np.ones((2, 1)), mx.np.ones((3,))), mx.np.ndarray)


def test_multiarray_has_the_fallback_functions_as_mxnet():
    """MXNet's numpy/multiarray.py star-imports its fallback module: ``mxnet.numpy.multiarray.in1d``
    (``msort``, ``trapz``, ``alltrue`` ...) is ``mx.np.in1d`` (values from MXNet 1.9.1)."""
    import numpy as np
    mx = neogluon
    m = importlib.import_module("neogluon.numpy.multiarray")
    assert m.in1d is mx.np.in1d and m.isin is mx.np.isin and m.trapz is mx.np.trapz
    assert m.in1d(mx.np.array([1, 2, 5]), mx.np.array([2, 5])).asnumpy().tolist() == [False, True, True]
    np.testing.assert_array_equal(m.msort(mx.np.array([[3, 1], [1, 2]])).asnumpy(), [[1., 1.], [3., 2.]])
    assert float(m.trapz(mx.np.array([1., 2, 3]))) == 4.0
    assert not bool(m.alltrue(mx.np.array([1, 0])))


def test_nd_npx_is_npx():
    """``mx.nd.npx`` (``mx.nd.numpy_extension``): MXNet's imperative npx operator functions,
    the same objects as ``mx.npx``'s (values from MXNet 1.9.1)."""
    import numpy as np
    mx = neogluon
    assert mx.nd.npx is mx.nd.numpy_extension
    assert mx.nd.npx.softmax is mx.npx.softmax and mx.nd.npx._op.relu is mx.npx.relu
    assert mx.nd.npx.image.resize is mx.npx.image.resize and mx.nd.npx.random.uniform_n is mx.npx.random.uniform_n
    assert mx.nd.npx.__all__[:3] == ["activation", "arange_like", "batch_dot"]
    x = mx.np.array([[-1., 2., 0.5]])
    out = mx.nd.npx.relu(x)
    assert isinstance(out, mx.np.ndarray) and out.asnumpy().tolist() == [[0., 2., 0.5]]
    np.testing.assert_allclose(mx.nd.npx.softmax(x).asnumpy(), [[0.03911257, 0.785597, 0.17529039]], rtol=1e-6)
    np.testing.assert_allclose(mx.nd.npx.sigmoid(x).asnumpy(), [[0.26894143, 0.880797, 0.62245935]], rtol=1e-6)
    assert mx.nd.npx.one_hot(mx.np.array([0, 2]), 3).asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    assert mx.nd.npx.reshape(mx.np.ones((2, 3, 4)), (-2, -1)).shape == (2, 12)
    assert mx.nd.npx.image.flip_left_right(mx.np.array([[[1.], [2.]]])).reshape(-1).asnumpy().tolist() == [2., 1.]
    assert mx.nd.npx.random.uniform_n(mx.np.array([0., 1.]), mx.np.array([0., 1.]), batch_shape=(3,)).shape == (3, 2)


def test_contrib_namespaces_and_nd_np_op_are_modules_of_their_own():
    """``mx.contrib.ndarray``/``symbol`` (and their ``nd``/``sym`` aliases) give the contrib
    operator functions of ``mx.nd.contrib``/``mx.sym.contrib``; ``mx.nd.np._op`` gives
    ``mx.np``'s functions (MXNet 1.9.1: isposinf of [1, inf, -inf] is [False, True, False])."""
    mx = neogluon
    for name in ("neogluon.contrib.ndarray", "neogluon.contrib.symbol", "neogluon.ndarray.numpy._op"):
        assert not _names.is_stand_in(importlib.import_module(name))
    assert mx.contrib.nd is mx.contrib.ndarray and mx.contrib.sym is mx.contrib.symbol
    assert mx.contrib.nd.box_nms is mx.nd.contrib.box_nms and mx.contrib.sym.quantize is mx.sym.contrib.quantize
    assert _names.is_stand_in(mx.contrib.nd.count_sketch)  # CUDA-only: still says so
    with pytest.raises(AttributeError):
        mx.contrib.nd.no_such_name  # pylint: disable=pointless-statement
    op = importlib.import_module("neogluon.ndarray.numpy._op")
    assert op.add is mx.nd.np.add
    assert op.isposinf(mx.np.array([1., float("inf"), -float("inf")])).tolist() == [False, True, False]
