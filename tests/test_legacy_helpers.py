"""Small MXNet 1.9.1 modules kept for old code: ``mx.contrib.autograd`` (the first autograd
API), ``mx.contrib.io.DataLoaderIter``, ``mx.misc``'s schedulers, ``mx.error`` and
``nd.contrib.rand_zipfian``; expected values are MXNet 1.9.1's for the same calls."""
import math

import numpy as np
import pytest

import neogluon as mx
from neogluon.contrib import autograd as contrib_ag


def test_contrib_autograd_grad_and_loss():
    f = contrib_ag.grad_and_loss(lambda x, y: (x * y).sum(), argnum=[0])
    grads, loss = f(mx.nd.array([1., 2.]), mx.nd.array([3., 4.]))
    np.testing.assert_array_equal(grads[0].asnumpy(), [3., 4.])  # MXNet: [3. 4.], loss [11.]
    np.testing.assert_array_equal(loss.asnumpy(), [11.])
    np.testing.assert_array_equal(contrib_ag.grad(lambda x: (x * x).sum())(mx.nd.array([1., 2.]))[0].asnumpy(),
                                  [2., 4.])
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()
    with contrib_ag.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with contrib_ag.test_section():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
        assert mx.autograd.is_training()
    assert not mx.autograd.is_training()
    with pytest.raises(AssertionError, match="list or tuple"):
        contrib_ag.backward(mx.nd.ones(1))


def test_dataloader_iter_pads_the_last_batch():
    from neogluon.contrib.io import DataLoaderIter
    ds = mx.gluon.data.ArrayDataset(mx.nd.arange(10).reshape((5, 2)), mx.nd.arange(5))
    it = DataLoaderIter(mx.gluon.data.DataLoader(ds, batch_size=2))
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]  # MXNet: 0, 0, 1; the padding values are undefined
    assert batches[2].data[0].asnumpy()[0].tolist() == [8., 9.] and batches[2].label[0].asnumpy()[0] == 4.
    assert str(it.provide_data) == "[DataDesc[data,(2, 2),float32,NCHW]]"
    assert str(it.provide_label) == "[DataDesc[softmax_label,(2,),float32,NCHW]]"
    it.reset()
    assert next(it).data[0].asnumpy().tolist() == [[0., 1.], [2., 3.]]


def test_misc_factor_scheduler_and_error_classes():
    import neogluon.misc  # not imported by the package, as in MXNet
    f = neogluon.misc.FactorScheduler(3, 0.5)
    assert [f(i) for i in range(8)] == [0.01, 0.01, 0.01, 0.005, 0.005, 0.005, 0.0025, 0.0025]
    with pytest.raises(ValueError, match="greater or equal than 1"):
        neogluon.misc.FactorScheduler(0)
    err = mx.error.InternalError("boom")
    assert isinstance(err, mx.MXNetError) and str(err).startswith("boom\nMXNet hint: You hit an internal error.")
    assert mx.base.error_types["InternalError"] is mx.error.InternalError


def test_rand_zipfian_expected_counts():
    mx.random.seed(0)
    samples, exp_true, exp_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3, 0]), 4, 5)
    assert samples.dtype == np.int64 and exp_true.dtype == np.float64 and samples.shape == (4,)
    np.testing.assert_allclose(exp_true.asnumpy(), [0.49815515, 1.54741123], rtol=1e-7)  # MXNet's values
    s = samples.asnumpy().astype(np.float64)
    np.testing.assert_allclose(exp_sampled.asnumpy(), np.log((s + 2) / (s + 1)) / math.log(6) * 4)
    assert ((samples.asnumpy() >= 0) & (samples.asnumpy() < 5)).all()


@pytest.mark.parametrize("layout", ["TNC", "NTC"])
@pytest.mark.parametrize("masked", [False, True])
def test_dynamic_unroll_gives_mxnets_outputs(layout, masked):
    import os
    from neogluon.gluon.contrib.rnn.rnn_cell import dynamic_unroll
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "contrib_rnn")
    rec = np.load(os.path.join(here, "dynamic_unroll.npz"))
    cell = mx.gluon.rnn.LSTMCell(4, input_size=3, prefix="l_")
    cell.load_parameters(os.path.join(here, "dynamic_unroll.params"))
    x = mx.nd.array(rec["x"])
    inputs = x if layout == "TNC" else x.transpose((1, 0, 2))
    out, states = dynamic_unroll(cell, inputs, cell.begin_state(2), layout=layout,
                                 valid_length=mx.nd.array(rec["valid_length"]) if masked else None)
    key = "%s_%s" % (layout, "masked" if masked else "full")
    np.testing.assert_allclose(out.asnumpy(), rec[key + "_out"], rtol=1e-5, atol=1e-6)
    assert len(states) == 2
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.asnumpy(), rec["%s_state%d" % (key, i)], rtol=1e-5, atol=1e-6)
