"""GluonTS 0.14.4 (``gluonts.mx``) cases shared by tests/test_client_gluonts.py and
tools/make_client_fixtures_gluonts.py (which records MXNet 1.9.1's answers).

Every case is deterministic: a small estimator's training network gets parameters drawn from
a seeded numpy generator and one batch made by the estimator's own transformation and training
data loader from synthetic series (the loader's instance sampling draws from numpy's global
RandomState, seeded, whose stream is the same in both environments); its loss and the L1 norm
of each parameter's gradient are recorded. Quantile/point forecasters' prediction networks and
the distributions' deterministic methods (log_prob, mean, stddev, cdf, quantile, crps) are
recorded the same way.
"""
import warnings

import numpy as np

try:
    import pandas as pd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import gluonts.mx  # noqa: F401  (imports mxnet: neogluon through the alias, or MXNet 1.9.1)
    SKIP_REASON = None
except ImportError as e:  # the client is not installed (CI): the tests skip
    SKIP_REASON = "gluonts is not installed (%s)" % e

PL = 4
FREQ = "H"


def uni(n=4, T=40, cat=False, dyn=False, pos=False):
    from gluonts.dataset.common import ListDataset
    rng = np.random.RandomState(0)
    out = []
    for i in range(n):
        t = np.sin(np.arange(T) / 5) + rng.normal(0, .1, T) + 2
        if pos:
            t = np.round(np.abs(t) * 3)
        d = {"start": pd.Period("2020-01-01", freq=FREQ), "target": t}
        if cat:
            d["feat_static_cat"] = [i % 3]
        if dyn:
            d["feat_dynamic_real"] = [np.cos(np.arange(T) / 5)]
        out.append(d)
    return ListDataset(out, freq=FREQ)


def multi(n=4, T=40, dim=3):
    from gluonts.dataset.common import ListDataset
    rng = np.random.RandomState(0)
    return ListDataset([{"start": pd.Period("2020-01-01", freq=FREQ),
                         "target": np.sin(np.arange(T)[None] / 5 + np.arange(dim)[:, None])
                         + rng.normal(0, .1, (dim, T)) + 2} for _ in range(n)], freq=FREQ, one_dim_target=False)


def estimator(name):
    """``(estimator, dataset)`` of case ``name``."""
    from gluonts.dataset.common import ListDataset
    from gluonts import mx as g
    from gluonts.mx import distribution as d
    T = g.Trainer(epochs=1)
    B = dict(batch_size=3)
    deepar = dict(freq=FREQ, prediction_length=PL, context_length=6, num_cells=5, num_layers=1, dropout_rate=0.0,
                  lags_seq=[1, 2], trainer=T, **B)
    if name == "deepar_studentt":
        return g.DeepAREstimator(**dict(deepar, num_layers=2, lags_seq=[1, 2, 4], use_feat_static_cat=True,
                                        cardinality=[3], use_feat_dynamic_real=True)), uni(cat=True, dyn=True)
    if name == "deepar_negbin":
        return g.DeepAREstimator(distr_output=d.NegativeBinomialOutput(), **deepar), uni(pos=True)
    if name == "deepar_pwl":
        return g.DeepAREstimator(distr_output=d.PiecewiseLinearOutput(num_pieces=3), **deepar), uni()
    if name == "deepar_mixture":
        return g.DeepAREstimator(distr_output=d.MixtureDistributionOutput([d.GaussianOutput(), d.StudentTOutput()]),
                                 **deepar), uni()
    if name == "deepar_isqf":
        return g.DeepAREstimator(distr_output=d.ISQFOutput(num_pieces=2, qk_x=[0.1, 0.5, 0.9]), **deepar), uni()
    if name == "deepar_gamma_laplace_poisson":
        return g.DeepAREstimator(distr_output=d.MixtureDistributionOutput(
            [d.GammaOutput(), d.LaplaceOutput(), d.PoissonOutput()]), **deepar), uni(pos=True)
    if name == "sff":
        return g.SimpleFeedForwardEstimator(prediction_length=PL, context_length=8, num_hidden_dimensions=[6, 5],
                                            trainer=T, **B), uni()
    if name == "mqcnn":
        return g.MQCNNEstimator(freq=FREQ, prediction_length=PL, context_length=8, channels_seq=[4, 3],
                                dilation_seq=[1, 2], kernel_size_seq=[2, 2], decoder_mlp_dim_seq=[4],
                                use_feat_static_cat=True, cardinality=[3], use_feat_dynamic_real=True, trainer=T,
                                **B), uni(cat=True, dyn=True)
    if name == "mqrnn":
        return g.MQRNNEstimator(freq=FREQ, prediction_length=PL, context_length=8, trainer=T, **B), uni()
    if name == "transformer":
        return g.TransformerEstimator(freq=FREQ, prediction_length=PL, context_length=6, model_dim=4,
                                      inner_ff_dim_scale=2, num_heads=2, dropout_rate=0.0, lags_seq=[1, 2],
                                      trainer=T, **B), uni()
    if name == "deepstate":
        return g.DeepStateEstimator(freq=FREQ, prediction_length=PL, past_length=12, cardinality=[3], num_cells=5,
                                    num_layers=1, dropout_rate=0.0, trainer=T, **B), uni(cat=True)
    if name == "deepfactor":
        return g.DeepFactorEstimator(freq=FREQ, prediction_length=PL, context_length=8, num_hidden_global=5,
                                     num_factors=3, num_hidden_local=3, trainer=T, **B), uni(cat=True)
    if name == "gp":
        return g.GaussianProcessEstimator(freq=FREQ, prediction_length=PL, context_length=8, cardinality=4,
                                          trainer=T, **B), \
            ListDataset([dict(e, feat_static_cat=[i]) for i, e in enumerate(uni())], freq=FREQ)
    if name == "lstnet":
        return g.LSTNetEstimator(prediction_length=PL, context_length=12, num_series=3, skip_size=2, ar_window=3,
                                 channels=4, kernel_size=3, rnn_num_cells=5, rnn_num_layers=1, skip_rnn_num_cells=3,
                                 dropout_rate=0.0, trainer=T, **B), multi()
    if name == "nbeats":
        return g.NBEATSEstimator(freq=FREQ, prediction_length=PL, context_length=8, num_stacks=2, widths=[6, 6],
                                 num_blocks=[1], num_block_layers=[2], expansion_coefficient_lengths=[2, 3],
                                 sharing=[True], stack_types=["T", "S"], trainer=T, **B), uni()
    if name == "nbeats_generic":
        return g.NBEATSEstimator(freq=FREQ, prediction_length=PL, context_length=8, num_stacks=2, widths=[6],
                                 num_blocks=[1], num_block_layers=[2], sharing=[False], loss_function="MAPE",
                                 trainer=T, **B), uni()
    if name == "tft":
        return g.TemporalFusionTransformerEstimator(
            freq=FREQ, prediction_length=PL, context_length=6, hidden_dim=4, num_heads=2, dropout_rate=0.0,
            static_cardinalities={"feat_static_cat": 3}, dynamic_feature_dims={"feat_dynamic_real": 1},
            trainer=T, **B), uni(cat=True, dyn=True)
    if name == "canonical":
        return g.CanonicalRNNEstimator(freq=FREQ, prediction_length=PL, context_length=6, num_cells=5, num_layers=1,
                                       trainer=T), uni()
    if name == "deepvar":
        return g.DeepVAREstimator(freq=FREQ, prediction_length=PL, context_length=6, target_dim=3, num_cells=5,
                                  num_layers=1, dropout_rate=0.0, lags_seq=[1, 2], trainer=T, **B), multi()
    if name == "gpvar":
        return g.GPVAREstimator(freq=FREQ, prediction_length=PL, context_length=6, target_dim=3, num_cells=5,
                                num_layers=1, dropout_rate=0.0, rank=2, lags_seq=[1, 2], shuffle_target_dim=False,
                                trainer=T, **B), multi()
    if name == "deepvar_hierarchical":  # its loss samples: a workflow case only
        S = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
        bottom = np.abs(np.random.RandomState(0).normal(2, .3, (2, 40)))
        return g.DeepVARHierarchicalEstimator(freq=FREQ, prediction_length=PL, context_length=8, S=S, num_cells=5,
                                              lags_seq=[1, 2], num_samples_for_loss=5, trainer=T, **B), \
            ListDataset([{"start": pd.Period("2020-01-01", freq=FREQ), "target": S @ bottom}] * 4, freq=FREQ,
                        one_dim_target=False)
    raise KeyError(name)


MODELS = ["deepar_studentt", "deepar_negbin", "deepar_pwl", "deepar_mixture", "deepar_isqf",
          "deepar_gamma_laplace_poisson", "sff", "mqcnn", "mqrnn", "transformer", "deepstate", "deepfactor", "gp",
          "lstnet", "nbeats", "nbeats_generic", "tft", "canonical", "deepvar", "gpvar"]
# networks whose prediction is deterministic (quantiles or a point forecast)
PREDICTIONS = ["mqcnn", "nbeats", "lstnet", "tft"]


def _seed():
    import mxnet as mx
    np.random.seed(0)
    mx.random.seed(0)


def batch(name):
    """``(estimator, transformation, batch)``: the first training batch of case ``name``."""
    _seed()
    est, ds = estimator(name)
    tf = est.create_transformation()
    loader = est.create_training_data_loader(tf.apply(ds))
    return est, tf, next(iter(loader))


def _nd(batch, names):
    import mxnet as mx
    return [mx.nd.array(batch[k].asnumpy(), dtype=batch[k].dtype) for k in names]


def _set_params(net, inputs):
    import mxnet as mx
    net.initialize(mx.init.Xavier())
    net(*inputs)  # deferred shapes
    rng = np.random.RandomState(1)
    params = list(net.collect_params().values())
    for p in params:
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape), dtype=p.dtype))
    return params


def training(name, hybridize):
    """The mean loss of the training network of case ``name`` on its first batch and the L1
    norm of each parameter's gradient (``hybridize``: with GluonTS Trainer's options)."""
    import mxnet as mx
    from gluonts.mx.util import get_hybrid_forward_input_names
    est, _, b = batch(name)
    _seed()
    net = est.create_training_network()
    if hybridize:
        net.hybridize(static_alloc=True, static_shape=True)
    inputs = _nd(b, get_hybrid_forward_input_names(type(net)))
    params = _set_params(net, inputs)
    with mx.autograd.record():
        out = net(*inputs)
        loss = (out[0] if isinstance(out, (list, tuple)) else out).mean()
    loss.backward()
    # the norm through NDArray ops: MXNet's asnumpy of a oneDNN-laid-out gradient fails
    grads = [float(p.grad().abs().sum().asscalar()) if p.grad_req != "null" else 0.0 for p in params]
    return float(loss.asscalar()), grads, [p.name for p in params]


def prediction(name, hybridize):
    """The outputs of the prediction network (parameters from the seeded generator) of case
    ``name`` on its first training batch."""
    from gluonts.mx.util import get_hybrid_forward_input_names
    est, tf, b = batch(name)
    _seed()
    train_net = est.create_training_network()
    _set_params(train_net, _nd(b, get_hybrid_forward_input_names(type(train_net))))
    net = est.create_predictor(tf, train_net).prediction_net
    if hybridize:
        net.hybridize()
    out = net(*_nd(b, get_hybrid_forward_input_names(type(net))))
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def distribution_outputs():
    from gluonts.mx import distribution as d
    return {
        "gaussian": d.GaussianOutput(), "studentt": d.StudentTOutput(), "laplace": d.LaplaceOutput(),
        "gamma": d.GammaOutput(), "beta": d.BetaOutput(), "negbin": d.NegativeBinomialOutput(),
        "poisson": d.PoissonOutput(), "pwl": d.PiecewiseLinearOutput(num_pieces=4),
        "isqf": d.ISQFOutput(num_pieces=3, qk_x=[0.1, 0.5, 0.9]), "uniform": d.UniformOutput(),
        "mixture": d.MixtureDistributionOutput([d.GaussianOutput(), d.StudentTOutput()]),
        "genpareto": d.GenParetoOutput(), "logitnormal": d.LogitNormalOutput(),
        "binned": d.BinnedOutput(bin_centers=__import__("mxnet").nd.array([-1.0, 0.0, 0.5, 1.0, 2.0])),
        "categorical": d.CategoricalOutput(num_cats=4),
        "mvgauss": d.MultivariateGaussianOutput(dim=3), "lowrank": d.LowrankMultivariateGaussianOutput(dim=3, rank=2),
        "dirichlet": d.DirichletOutput(dim=3),
    }


DISTRIBUTIONS = ["gaussian", "studentt", "laplace", "gamma", "beta", "negbin", "poisson", "pwl", "isqf", "uniform",
                 "mixture", "genpareto", "logitnormal", "binned", "categorical", "mvgauss",
                 "lowrank", "dirichlet"]
METHODS = ["log_prob", "mean", "stddev", "variance", "cdf", "quantile", "crps", "loss"]


def distribution(name):
    """``{method: values}`` of distribution case ``name``: its output's projection (parameters
    from the seeded generator) applied to fixed features, then each deterministic method the
    distribution has; a method that raises is recorded as the exception's type name."""
    import mxnet as mx
    out = distribution_outputs()[name]
    proj = out.get_args_proj()
    proj.initialize()
    rng = np.random.RandomState(2)
    feats = mx.nd.array(rng.uniform(-1, 1, (2, 3, 5)))
    proj(feats)
    for p in proj.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    distr = out.distribution(proj(feats))
    ev = distr.event_shape
    if name in ("beta", "logitnormal", "uniform"):
        x = rng.uniform(0.05, 0.95, (2, 3) + ev)
    elif name in ("negbin", "poisson"):
        x = rng.randint(0, 5, (2, 3) + ev).astype("float32")
    elif name == "categorical":
        x = rng.randint(0, 4, (2, 3)).astype("float32")
    elif name == "dirichlet":
        x = rng.dirichlet([1, 1, 1], (2, 3))
    else:
        x = rng.uniform(0.1, 2.0, (2, 3) + ev)
    x = mx.nd.array(x)
    res = {}
    for m in METHODS:
        try:
            if m in ("log_prob", "cdf", "crps", "loss"):
                v = getattr(distr, m)(x)
            elif m == "quantile":
                v = distr.quantile(mx.nd.array([0.1, 0.5, 0.9]))
            else:
                v = getattr(distr, m)
            res[m] = v.asnumpy()
        except Exception as e:  # pylint: disable=broad-except
            res[m] = type(e).__name__
    return res


# GluonTS's Trainer loop for a few epochs: Adam with gradient clipping and weight decay, the
# learning-rate reduction callback, the epoch losses it logs and the weights it ends with
TRAINED = ["sff", "deepar_studentt", "mqcnn"]


def _initializer():
    """An initializer drawing each array from a numpy generator seeded by its shape (the same in
    both frameworks, whatever the parameters' names and order)."""
    import mxnet as mx

    class Seeded(mx.init.Initializer):
        def _init_weight(self, name, arr):
            rng = np.random.RandomState(int(np.prod(arr.shape)) + 7 * len(arr.shape))
            arr[:] = mx.nd.array(rng.uniform(-0.3, 0.3, arr.shape), dtype=arr.dtype)

        _init_bias = _init_default = _init_weight
    return Seeded()


def trained(name, hybridize):
    """``(epoch losses, L1 norm of each parameter)`` after two epochs of three batches."""
    from gluonts import mx as g
    from gluonts.mx.trainer.callback import TrainingHistory
    est, ds = estimator(name)
    history = TrainingHistory()
    est.trainer = g.Trainer(epochs=2, num_batches_per_epoch=3, learning_rate=1e-2, clip_gradient=1.0,
                            weight_decay=1e-3, init=_initializer(), hybridize=hybridize, callbacks=[history])
    _seed()
    pred = est.train(ds)
    params = list(pred.prediction_net.collect_params().values())
    return history.loss_history, [float(p.data().abs().sum().asscalar()) for p in params]
