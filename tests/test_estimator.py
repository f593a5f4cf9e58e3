"""gluon.contrib.estimator against MXNet 1.9.1: the scenarios of
tools/make_extra_fixtures_viz.py replayed with neogluon (same events, log lines, metric
values and checkpoint files), plus argument checks and the progress bar."""
import json
import logging
import os
import re
import warnings

import numpy as np
import pytest

import neogluon as mx
from neogluon.gluon.contrib import estimator as E

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "extra", "viz", "estimator.json")) as _f:
    RECORDED = json.load(_f)

_FLOAT = re.compile(r"-?\d+\.\d+|-?inf")
_TIMES = [(re.compile(r"Finished in \d+\.\d+s"), "Finished in <t>s"),
          (re.compile(r"time/interval: \d+\.\d+s"), "time/interval: <t>s"),
          (re.compile(r"total \d+s"), "total <t>s"),
          # MXNet 1.9.1 logs the new best twice ("improved from B to B"); neogluon logs the
          # previous best first: only the new value is compared
          (re.compile(r"improved from \S+ to"), "improved from <best> to")]


def run_scenario(source, tmp_path):
    """Run a recorded scenario with neogluon as ``mx``; (log, files in the model dir)."""
    model_dir = str(tmp_path / "models")
    os.makedirs(model_dir)
    scope = {"mx": mx, "np": np, "logging": logging, "LOG": [], "MODEL_DIR": model_dir}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(RECORDED["prelude"] + source, scope)  # pylint: disable=exec-used
    return scope["LOG"], sorted(os.listdir(model_dir)), model_dir


def normalise(line, model_dir):
    """(text with numbers masked, numbers) of a log line."""
    if model_dir:
        line = line.replace(model_dir, "<dir>")
    line = re.sub(r"/\S*/tmp\w+", "<dir>", line)
    for pattern, repl in _TIMES:
        line = pattern.sub(repl, line)
    return _FLOAT.sub("<x>", line), [float(x) for x in _FLOAT.findall(line)]


@pytest.mark.parametrize("name", sorted(RECORDED["cases"]))
def test_scenario_matches_mxnet(name, tmp_path):
    expected = RECORDED["cases"][name]
    log, files, model_dir = run_scenario(RECORDED["sources"][name], tmp_path)
    assert files == expected["files"]
    assert len(log) == len(expected["log"]), "\n".join(log)
    for ours, theirs in zip(log, expected["log"]):
        ours_text, ours_nums = normalise(ours, model_dir)
        theirs_text, theirs_nums = normalise(theirs, None)
        assert ours_text == theirs_text
        np.testing.assert_allclose(ours_nums, theirs_nums, atol=2e-4, err_msg=ours)


def _scope(tmp_path):
    scope = {"mx": mx, "np": np, "logging": logging, "LOG": [], "MODEL_DIR": str(tmp_path)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(RECORDED["prelude"], scope)  # pylint: disable=exec-used
    return scope


def test_checkpoint_files_load_back(tmp_path):
    s = _scope(tmp_path)
    net = s["make_net"](hybridize=True)
    est = s["make_estimator"](net)
    est.fit(s["loader"](), epochs=1, event_handlers=[E.CheckpointHandler(str(tmp_path), "ck")])
    sym = mx.sym.load(str(tmp_path / "ck-symbol.json"))
    assert sym.list_arguments() == ["data", "net_dense0_weight", "net_dense0_bias",
                                    "net_dense1_weight", "net_dense1_bias"]
    fresh = s["make_net"]()
    fresh.load_parameters(str(tmp_path / "ck-epoch0batch4.params"))
    x = mx.nd.array(s["X"][:3])
    np.testing.assert_allclose(fresh(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)


def test_progress_bar_on_stderr(tmp_path, capsys):
    pytest.importorskip("tqdm")
    s = _scope(tmp_path)
    est = s["make_estimator"]()
    handler = E.LoggingHandler(metrics=est.train_metrics, progress_bar=True)
    est.fit(s["loader"](), epochs=1, event_handlers=[handler])
    err = capsys.readouterr().err
    assert "[Epoch 0]" in err and "/4 [" in err and "batch/s" in err
    assert s["LOG"][-1].startswith("Train finished using total")


def test_progress_bar_hidden_on_short_epochs(tmp_path, capsys):
    s = _scope(tmp_path)
    est = s["make_estimator"]()
    est.fit(s["loader"](), epochs=1)
    assert capsys.readouterr().err == ""


def test_custom_batch_processor(tmp_path):
    s = _scope(tmp_path)
    seen = []

    class Doubling(E.BatchProcessor):
        def fit_batch(self, estimator, train_batch, batch_axis=0):
            seen.append(train_batch[0].shape)
            return super().fit_batch(estimator, (train_batch[0] * 2, train_batch[1]), batch_axis)

    est = s["make_estimator"](batch_processor=Doubling())
    est.fit(s["loader"](), batches=3)
    assert seen == [(5, 4)] * 3


def test_early_stopping_modes():
    loss_metric, acc = mx.metric.Loss("training loss"), mx.metric.Accuracy()
    with pytest.warns(UserWarning, match="`less` operator"):
        assert E.EarlyStoppingHandler(loss_metric).monitor_op is np.less
    with pytest.warns(UserWarning, match="`greater` operator"):
        assert E.EarlyStoppingHandler(acc).monitor_op is np.greater
    assert E.EarlyStoppingHandler(acc, mode="min", min_delta=0.5).min_delta == -0.5
    with pytest.warns(RuntimeWarning, match="mode bogus is unknown"), \
            pytest.warns(UserWarning, match="`greater` operator"):
        E.EarlyStoppingHandler(acc, mode="bogus")


def test_argument_errors(tmp_path):
    s = _scope(tmp_path)
    net, loader = s["make_net"](), s["loader"]()
    est = s["make_estimator"](net)
    with pytest.raises(ValueError, match="loss must be a Loss"):
        E.Estimator(net, loss="l2")
    with pytest.raises(ValueError, match="context must be a Context"):
        E.Estimator(net, mx.gluon.loss.L2Loss(), context="cpu")
    with pytest.raises(ValueError, match="Trainer must be a Gluon Trainer"):
        E.Estimator(net, mx.gluon.loss.L2Loss(), trainer="sgd")
    with pytest.raises(ValueError, match="must contain fit_batch"):
        E.Estimator(net, mx.gluon.loss.L2Loss(), trainer=est.trainer, batch_processor=object())
    with pytest.raises(ValueError, match="metrics must be a Metric"):
        E.Estimator(net, mx.gluon.loss.L2Loss(), train_metrics=["acc"])
    with pytest.raises(ValueError, match="only support input as Gluon DataLoader"):
        est.fit([(mx.nd.zeros((2, 4)), mx.nd.zeros((2,)))], epochs=1)
    with pytest.raises(ValueError, match="exactly one type of iteration"):
        est.fit(loader, epochs=1, batches=2)
    with pytest.raises(ValueError, match="exactly one type of iteration"):
        est.fit(loader)
    with pytest.raises(ValueError, match="only support input as Gluon DataLoader"):
        est.evaluate(None)
    with pytest.raises(ValueError, match="handlers must be an EventHandler"):
        est.fit(loader, epochs=1, event_handlers=[print])
    foreign = E.MetricHandler(metrics=[mx.metric.Accuracy()])
    with pytest.raises(ValueError, match="outside of the known training and validation metrics"):
        est.fit(loader, epochs=1, event_handlers=[foreign])
    with pytest.raises(ValueError, match="log_interval must be"):
        E.LoggingHandler(log_interval="batch")
    with pytest.raises(ValueError, match="provide one of the metric objects"):
        E.CheckpointHandler(str(tmp_path), save_best=True)
    with pytest.raises(ValueError, match="CompositeEvalMetric is not supported"):
        E.EarlyStoppingHandler(mx.metric.CompositeEvalMetric([mx.metric.Accuracy()]))


def test_default_trainer_and_initialisation_warnings(tmp_path):
    s = _scope(tmp_path)
    net = mx.gluon.nn.Dense(1, in_units=4)
    with pytest.warns(UserWarning, match="default SGD optimizer with learning rate 0.001"):
        est = E.Estimator(net, mx.gluon.loss.L2Loss())
    assert est.trainer.learning_rate == 0.001 and est.context == [mx.cpu()]
    assert net.weight.list_ctx() == [mx.cpu()]
    with pytest.warns(UserWarning, match="already fully initialized"):
        E.Estimator(net, mx.gluon.loss.L2Loss(), initializer=mx.init.One(), trainer=est.trainer)
    est.fit(s["loader"](), batches=2)


def test_resume_rejects_finished_training(tmp_path):
    s = _scope(tmp_path)
    est = s["make_estimator"]()
    est.fit(s["loader"](), epochs=2, event_handlers=[E.CheckpointHandler(str(tmp_path), "r")])
    again = s["make_estimator"]()
    with pytest.raises(ValueError, match="maximum number of epoch 2 reached"):
        again.fit(s["loader"](), epochs=2, event_handlers=[
            E.CheckpointHandler(str(tmp_path), "r", resume_from_checkpoint=True)])
