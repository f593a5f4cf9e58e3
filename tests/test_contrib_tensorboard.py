"""``mx.contrib.tensorboard.LogMetricsCallback``: a Module's metrics written as TensorBoard
scalars, named and stepped as MXNet 1.9.1 does (``<prefix>-<metric>`` at ``param.epoch``).
The writer is mxboard's, tensorboardX's or torch's SummaryWriter (the 'tensorboard' extra)."""
import glob
import sys
import types

import numpy as np
import pytest

import neogluon as mx
from neogluon.contrib import tensorboard


class _Writer:
    def __init__(self, logdir):
        self.logdir, self.scalars = logdir, []

    def add_scalar(self, name, value, global_step=None):
        self.scalars.append((name, float(value), global_step))


def _fit(callback):
    rng = np.random.RandomState(0)
    X, Y = rng.randn(8, 3).astype("float32"), rng.randn(8).astype("float32")
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=1, name="fc"),
                                        mx.sym.var("lin_reg_label"), name="lro")
    mod = mx.mod.Module(net, data_names=["data"], label_names=["lin_reg_label"])
    it = mx.io.NDArrayIter(X, Y, batch_size=4, label_name="lin_reg_label")
    mod.fit(it, eval_metric=["mse", "mae"], num_epoch=2, batch_end_callback=callback,
            eval_data=it, eval_end_callback=callback, initializer=mx.init.Zero())


def test_metrics_are_written_per_batch_with_the_prefix(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "mxboard", types.SimpleNamespace(SummaryWriter=_Writer))
    cb = tensorboard.LogMetricsCallback(str(tmp_path), prefix="train")
    assert cb.summary_writer.logdir == str(tmp_path)
    _fit(cb)
    # 2 batches per epoch and one evaluation after each of the 2 epochs, each writing both
    # metrics: the sequence MXNet 1.9.1 writes (values rounded to 5 places)
    assert [(n, round(v, 5), step) for n, v, step in cb.summary_writer.scalars] == [
        ("train-mse", 1.82602, 0), ("train-mae", 0.98927, 0), ("train-mse", 1.49872, 0), ("train-mae", 0.93939, 0),
        ("train-mse", 1.47611, 0), ("train-mae", 0.93202, 0), ("train-mse", 1.80964, 1), ("train-mae", 0.98922, 1),
        ("train-mse", 1.47784, 1), ("train-mae", 0.93505, 1), ("train-mse", 1.4562, 1), ("train-mae", 0.9277, 1)]
    cb(mx.model.BatchEndParam(epoch=3, nbatch=0, eval_metric=None, locals=None))  # no metric: nothing written
    assert len(cb.summary_writer.scalars) == 12


def test_missing_writer_names_the_extra(monkeypatch):
    for module in tensorboard._WRITERS:
        monkeypatch.setitem(sys.modules, module, None)  # import fails
    with pytest.raises(ImportError, match=r"neogluon\[tensorboard\]"):
        tensorboard.LogMetricsCallback("logs")


def test_tensorboardx_writes_event_files(tmp_path):
    pytest.importorskip("tensorboardX")
    cb = tensorboard.LogMetricsCallback(str(tmp_path))
    _fit(cb)
    cb.summary_writer.flush()
    assert glob.glob(str(tmp_path / "events.out.tfevents.*"))
