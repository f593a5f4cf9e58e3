"""GluonTS 0.14.4's MXNet models (``gluonts.mx``) through ``import mxnet`` (neogluon's alias).

Workflows a user runs (train briefly with features and Trainer callbacks, predict, serialize
and deserialize the predictor through files, evaluate), and deterministic numbers compared
with MXNet 1.9.1 (tools/make_client_fixtures_gluonts.py, cases in tests/gluonts_cases.py):
the training networks' losses and gradients for fixed parameters and a fixed batch
(imperatively and hybridized), two epochs of GluonTS's Trainer, quantile/point forecasters' prediction networks, and the
distributions' log_prob/mean/stddev/cdf/quantile/crps.

GluonTS is not installed by CI: these tests skip without it (``bash tools/install_clients.sh
VENV`` installs it; run this file with VENV's python). The neogluon defects they found are
tested on their own (test_block.py, test_ops_misc.py).
"""
import json
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import gluonts_cases as C  # noqa: E402

pytestmark = [pytest.mark.skipif(C.SKIP_REASON is not None, reason=C.SKIP_REASON or ""),
              pytest.mark.filterwarnings("ignore")]

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "extra", "gluonts")
with open(os.path.join(HERE, "cases.json")) as _f:
    CASES = json.load(_f)
_FLAT = np.load(os.path.join(HERE, "values.npz"))["values"]


def recorded(key):
    """MXNet 1.9.1's value ``key`` (see tools/make_client_fixtures_gluonts.py)."""
    offset, shape = CASES["values"][key]
    return _FLAT[offset:offset + int(np.prod(shape))].reshape(shape)


@pytest.mark.parametrize("mode", ["imperative", "hybridized"])
@pytest.mark.parametrize("name", C.MODELS)
def test_training_network_matches_mxnet(name, mode):
    loss, grads, _ = C.training(name, mode == "hybridized")
    want = recorded("train/%s/%s" % (name, mode))
    np.testing.assert_allclose(loss, want[0], rtol=1e-4)
    assert len(grads) == len(want) - 1
    # float32 sums of |grad| over parameters; the transformer's attention grads differ most (4e-4)
    np.testing.assert_allclose(grads, want[1:], rtol=2e-3, atol=1e-5)


@pytest.mark.parametrize("mode", ["imperative", "hybridized"])
@pytest.mark.parametrize("name", C.TRAINED)
def test_trainer_loop_matches_mxnet(name, mode):
    """Two epochs of GluonTS's Trainer (Adam with clip_gradient and weight decay, the
    learning-rate reduction callback it adds) from a seeded initializer: the logged epoch
    losses and the trained weights."""
    losses, norms = C.trained(name, mode == "hybridized")
    want = recorded("trained/%s/%s" % (name, mode))
    np.testing.assert_allclose(losses, want[:2], rtol=1e-4)
    np.testing.assert_allclose(norms, want[2:], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("name", C.PREDICTIONS)
def test_prediction_network_matches_mxnet(name, hybridize):
    """NBEATS's hybridized prediction network given all four batch fields fed future_target to
    a Dense weight (inputs the graph does not use, test_block.py)."""
    outs = C.prediction(name, hybridize)
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o, recorded("pred/%s/%d" % (name, i)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", C.DISTRIBUTIONS)
def test_distribution_matches_mxnet(name):
    """The mixture's mean/stddev/variance call ``F.broadcast_mul(a, b, axis=-1)``, which MXNet
    accepts (test_ops_misc.py)."""
    got = C.distribution(name)
    errors = CASES["distributions"][name]
    for m, v in got.items():
        if m in errors:
            assert v == errors[m], m
        else:
            assert not isinstance(v, str), "%s.%s raised %s" % (name, m, v)
            np.testing.assert_allclose(v, recorded("distr/%s/%s" % (name, m)), rtol=1e-4, atol=1e-5, err_msg=m)


def _forecasts(predictor, ds, seed=0):
    import mxnet as mx
    from gluonts.evaluation import make_evaluation_predictions
    mx.random.seed(seed)
    np.random.seed(seed)
    fit, ts = make_evaluation_predictions(ds, predictor, num_samples=8)
    return list(fit), list(ts)


@pytest.mark.parametrize("hybridize", [True, False])
def test_deepar_train_serialize_evaluate(tmp_path, hybridize):
    """DeepAR with a static category and a dynamic real feature, Trainer callbacks and
    validation data; the predictor written to files and read back forecasts the same samples
    for the same seed; the Evaluator's metrics are finite."""
    from pathlib import Path
    from gluonts.evaluation import Evaluator
    from gluonts.model.predictor import Predictor
    from gluonts.mx import DeepAREstimator, Trainer
    from gluonts.mx.trainer.callback import TerminateOnNaN, TrainingHistory
    from gluonts.mx.trainer.learning_rate_scheduler import LearningRateReduction
    history = TrainingHistory()
    ds = C.uni(n=6, T=60, cat=True, dyn=True)
    est = DeepAREstimator(freq=C.FREQ, prediction_length=C.PL, context_length=8, num_cells=6, num_layers=1,
                          lags_seq=[1, 2], use_feat_static_cat=True, cardinality=[3], use_feat_dynamic_real=True,
                          batch_size=4, trainer=Trainer(epochs=2, num_batches_per_epoch=2, hybridize=hybridize,
                                                        callbacks=[history, TerminateOnNaN(),
                                                                   LearningRateReduction(objective="min", patience=1)]))
    pred = est.train(ds, validation_data=ds)
    assert len(history.loss_history) == 2 and np.isfinite(history.validation_loss_history).all()
    pred.serialize(Path(tmp_path))
    assert {"prediction_net-0000.params", "prediction_net-network.json"} <= set(os.listdir(tmp_path))
    back = Predictor.deserialize(Path(tmp_path))
    fit, ts = _forecasts(pred, ds)
    fit2, _ = _forecasts(back, ds)
    assert len(fit) == 6 and fit[0].samples.shape == (8, C.PL)
    for a, b in zip(fit, fit2):
        np.testing.assert_allclose(a.samples, b.samples, rtol=1e-5, atol=1e-6)
    agg, per_item = Evaluator(num_workers=None)(ts, fit)
    assert len(per_item) == 6 and np.isfinite([agg["MASE"], agg["mean_wQuantileLoss"]]).all()


@pytest.mark.parametrize("name", ["mqcnn", "nbeats", "tft"])
def test_quantile_forecasters_round_trip(tmp_path, name):
    """Deterministic forecasters (quantiles, NBEATS's point forecast): one hybridized
    training epoch, then the deserialized predictor's forecasts equal the original's."""
    from pathlib import Path
    from gluonts.model.predictor import Predictor
    from gluonts.mx import Trainer
    est, ds = C.estimator(name)
    est.trainer = Trainer(epochs=1, num_batches_per_epoch=2, hybridize=True)
    pred = est.train(ds)
    pred.serialize(Path(tmp_path))
    back = Predictor.deserialize(Path(tmp_path))
    fit, _ = _forecasts(pred, ds)
    fit2, _ = _forecasts(back, ds)
    for a, b in zip(fit, fit2):
        qa, qb = (np.stack([f.quantile(q) for q in (0.1, 0.5, 0.9)]) for f in (a, b))
        assert np.isfinite(qa).all()
        np.testing.assert_allclose(qa, qb, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_more_estimators_train_and_predict():
    """Estimators with their own prediction paths (state space, GP, factor, multivariate,
    hierarchical, LSTNet, WaveNet's sampler, MQRNN, Transformer, renewal processes), one brief
    hybridized epoch each, then forecasts. DeepVARHierarchical's CRPS loss broadcasts with
    NDArray.broadcast_like's padding rule (test_ndarray.py)."""
    from gluonts.mx import (DeepRenewalProcessEstimator, Trainer, WaveNetEstimator)
    from gluonts.evaluation import MultivariateEvaluator, Evaluator
    names = ["deepstate", "gp", "deepfactor", "deepvar", "gpvar", "deepvar_hierarchical", "lstnet", "mqrnn",
             "transformer", "canonical"]
    ests = [C.estimator(n) for n in names]
    ests.append((WaveNetEstimator(freq=C.FREQ, prediction_length=C.PL, embedding_dimension=3, n_residue=4, n_skip=4,
                                  dilation_depth=2, n_stacks=1, num_bins=16, batch_size=3), C.uni(pos=True)))
    ests.append((DeepRenewalProcessEstimator(prediction_length=C.PL, context_length=8, num_cells=4, num_layers=1,
                                             batch_size=3), C.uni(pos=True)))
    for (est, ds), name in zip(ests, names + ["wavenet", "renewal"]):
        # DeepVARHierarchical's constructor turns hybridize off (its loss calls mx.nd.dot)
        est.trainer = Trainer(epochs=1, num_batches_per_epoch=2, hybridize=name != "deepvar_hierarchical")
        fit, ts = _forecasts(est.train(ds), ds)
        assert len(fit) == 4, name
        if name in ("deepvar", "gpvar", "deepvar_hierarchical", "lstnet"):
            agg, _ = MultivariateEvaluator(target_agg_funcs={"sum": np.sum})(ts, fit)
        elif name != "renewal":
            agg, _ = Evaluator(num_workers=None)(ts, fit)
        assert name == "renewal" or np.isfinite(agg["mean_wQuantileLoss"]), name
