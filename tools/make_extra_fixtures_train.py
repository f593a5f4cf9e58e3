"""Record MXNet 1.9.1's optimizer operators, optimizer trajectories, learning-rate
schedules, metrics and Trainer steps for tests/test_{optimizer,lr_scheduler,metric,trainer}.py.

Run with the side venv:  /tmp/mxref/bin/python tools/make_extra_fixtures_train.py [NAME ...]
Writes tests/fixtures/extra/train/{ops,optimizers,metrics,trainer,nets}.{json,npz} and
schedulers.json (with NAMEs, only those files).
"""
import json
import os
import pickle
import sys

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "train")

F32, F16 = "float32", "float16"


# ----------------------------------------------------------------------------- operators
# (case name, operator, [(input, dtype, kind)], attrs); kind: 'n' normal, 'p' positive,
# 'big' positive and large (rmspropalex's n), 'w32' the float32 copy of the first input
OP_CASES = [
    ("sgd", "sgd_update", [("weight", F32, "n"), ("grad", F32, "n")],
     dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)),
    ("sgd_noclip", "sgd_update", [("weight", F32, "n"), ("grad", F32, "n")], dict(lr=0.2, wd=0.1)),
    ("sgd_mom", "sgd_mom_update", [("weight", F32, "n"), ("grad", F32, "n"), ("mom", F32, "n")],
     dict(lr=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)),
    ("mp_sgd", "mp_sgd_update", [("weight", F16, "n"), ("grad", F16, "n"), ("weight32", F32, "w32")],
     dict(lr=0.1, wd=0.01, rescale_grad=2.0, clip_gradient=1.0)),
    ("mp_sgd_mom", "mp_sgd_mom_update",
     [("weight", F16, "n"), ("grad", F16, "n"), ("mom", F32, "n"), ("weight32", F32, "w32")],
     dict(lr=0.1, momentum=0.8, wd=0.01, rescale_grad=0.5)),
    ("nag", "nag_mom_update", [("weight", F32, "n"), ("grad", F32, "n"), ("mom", F32, "n")],
     dict(lr=0.1, momentum=0.9, wd=0.1, rescale_grad=0.5, clip_gradient=0.3)),
    ("mp_nag", "mp_nag_mom_update",
     [("weight", F16, "n"), ("grad", F16, "n"), ("mom", F32, "n"), ("weight32", F32, "w32")],
     dict(lr=0.1, momentum=0.9, wd=0.1, clip_gradient=0.5)),
    ("signsgd", "signsgd_update", [("weight", F32, "n"), ("grad", F32, "n")], dict(lr=0.1, wd=0.1)),
    ("signum", "signum_update", [("weight", F32, "n"), ("grad", F32, "n"), ("mom", F32, "n")],
     dict(lr=0.1, momentum=0.9, wd=0.1, rescale_grad=0.5, clip_gradient=0.3, wd_lh=0.05)),
    ("adam", "adam_update", [("weight", F32, "n"), ("grad", F32, "n"), ("mean", F32, "n"), ("var", F32, "p")],
     dict(lr=0.01, beta1=0.8, beta2=0.9, epsilon=1e-6, wd=0.5, rescale_grad=0.5, clip_gradient=0.3)),
    ("adamw", "_adamw_update",
     [("weight", F32, "n"), ("grad", F32, "n"), ("mean", F32, "n"), ("var", F32, "p"), ("rescale_grad", F32, "s")],
     dict(lr=0.01, beta1=0.8, beta2=0.9, epsilon=1e-6, wd=0.5, eta=0.7, clip_gradient=0.3)),
    ("adamw_skip", "_adamw_update",
     [("weight", F32, "n"), ("grad", F32, "n"), ("mean", F32, "n"), ("var", F32, "p"), ("rescale_grad", F32, "0")],
     dict(lr=0.01, wd=0.5, eta=0.7)),
    ("mp_adamw", "_mp_adamw_update",
     [("weight", F16, "n"), ("grad", F16, "n"), ("mean", F32, "n"), ("var", F32, "p"), ("weight32", F32, "w32"),
      ("rescale_grad", F32, "s")],
     dict(lr=0.01, wd=0.1, eta=1.0)),
    ("rmsprop", "rmsprop_update", [("weight", F32, "n"), ("grad", F32, "n"), ("n", F32, "p")],
     dict(lr=0.01, gamma1=0.9, epsilon=1e-6, wd=0.1, rescale_grad=0.5, clip_gradient=0.3, clip_weights=0.8)),
    ("rmspropalex", "rmspropalex_update",
     [("weight", F32, "n"), ("grad", F32, "n"), ("n", F32, "big"), ("g", F32, "n"), ("delta", F32, "n")],
     dict(lr=0.01, gamma1=0.9, gamma2=0.8, epsilon=1e-6, wd=0.1, rescale_grad=0.5, clip_gradient=0.3)),
    ("ftrl", "ftrl_update", [("weight", F32, "n"), ("grad", F32, "n"), ("z", F32, "n"), ("n", F32, "p")],
     dict(lr=0.1, lamda1=0.2, beta=0.5, wd=0.1, rescale_grad=0.5, clip_gradient=0.8)),
    ("ftml", "ftml_update",
     [("weight", F32, "n"), ("grad", F32, "n"), ("d", F32, "p"), ("v", F32, "p"), ("z", F32, "n")],
     dict(lr=0.1, beta1=0.6, beta2=0.9, epsilon=1e-6, t=3, wd=0.1, rescale_grad=0.5, clip_grad=0.3)),
    ("lamb1", "lamb_update_phase1",
     [("weight", F32, "n"), ("grad", F32, "n"), ("mean", F32, "n"), ("var", F32, "p")],
     dict(beta1=0.8, beta2=0.9, epsilon=1e-6, t=2, wd=0.1, rescale_grad=0.5, clip_gradient=0.3)),
    ("lamb1_nobias", "lamb_update_phase1",
     [("weight", F32, "n"), ("grad", F32, "n"), ("mean", F32, "n"), ("var", F32, "p")],
     dict(t=2, wd=0.1, bias_correction=False)),
    ("lamb2", "lamb_update_phase2",
     [("weight", F32, "n"), ("g", F32, "n"), ("r1", F32, "s"), ("r2", F32, "s")],
     dict(lr=0.1, lower_bound=0.1, upper_bound=5.0)),
    ("lamb2_zero", "lamb_update_phase2",
     [("weight", F32, "n"), ("g", F32, "n"), ("r1", F32, "0"), ("r2", F32, "s")], dict(lr=0.1)),
    ("mp_lamb1", "mp_lamb_update_phase1",
     [("weight", F16, "n"), ("grad", F16, "n"), ("mean", F32, "n"), ("var", F32, "p"), ("weight32", F32, "w32")],
     dict(t=1, wd=0.1)),
    ("mp_lamb2", "mp_lamb_update_phase2",
     [("weight", F16, "n"), ("g", F32, "n"), ("r1", F32, "s"), ("r2", F32, "s"), ("weight32", F32, "w32")],
     dict(lr=0.1)),
]


def _make_input(rng, kind, dtype, shape, first):
    if kind == "w32":
        return first.astype(np.float32)
    if kind == "s":
        return np.array([rng.uniform(0.5, 2.0)], dtype=dtype)
    if kind == "0":
        return np.zeros((1,), dtype=dtype)
    x = rng.standard_normal(shape)
    if kind == "p":
        x = np.abs(x) + 0.1
    elif kind == "big":
        x = np.abs(x) + 2.0
    return x.astype(dtype)


def make_ops():
    rng = np.random.default_rng(0)
    arrays, cases = {}, []
    for case, op, inputs, attrs in OP_CASES:
        first = None
        nds = []
        for name, dtype, kind in inputs:
            x = _make_input(rng, kind, dtype, (3, 4), first)
            first = x if first is None else first
            arrays["%s/in:%s" % (case, name)] = x
            nds.append(mx.nd.array(x, dtype=dtype))
        fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
        out = fn(*nds, **attrs)
        arrays["%s/out" % case] = out.asnumpy()
        for (name, _, _), a in zip(inputs, nds):
            arrays["%s/after:%s" % (case, name)] = a.asnumpy()
        cases.append(dict(case=case, op=op, inputs=[i[0] for i in inputs], attrs=attrs))
    # the sparse AdaGrad kernel only takes row_sparse gradients in MXNet: every row present
    w = rng.standard_normal((3, 4)).astype(np.float32)
    g = rng.standard_normal((3, 4)).astype(np.float32)
    h = (np.abs(rng.standard_normal((3, 4))) + 0.1).astype(np.float32)
    attrs = dict(lr=0.1, epsilon=1e-6, rescale_grad=0.5, clip_gradient=0.3)
    hist, out = mx.nd.array(h), mx.nd.array(w)
    mx.nd.sparse.adagrad_update(out, mx.nd.array(g).tostype("row_sparse"), hist, out=out, **attrs)
    arrays.update({"adagrad/in:weight": w, "adagrad/in:grad": g, "adagrad/in:history": h,
                   "adagrad/out": out.asnumpy(), "adagrad/after:weight": w, "adagrad/after:grad": g,
                   "adagrad/after:history": hist.asnumpy()})
    cases.append(dict(case="adagrad", op="_sparse_adagrad_update", inputs=["weight", "grad", "history"],
                      attrs=attrs))
    return cases, arrays


# ----------------------------------------------------------------------------- optimizers
STEPS = 4
SHAPES = [(4, 3), (3,)]
NAMES = {0: "fc_weight", 1: "fc_bias"}

# (config name, optimizer, kwargs, dtype, extra): extra may set 'idx2name', 'lr_mult', 'wd_mult', 'sched'
OPT_CASES = [
    ("sgd", "sgd", dict(learning_rate=0.1, wd=0.01), F32, {}),
    ("sgd_mom_clip", "sgd", dict(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.2),
     F32, {}),
    ("sgd_mult", "sgd", dict(learning_rate=0.1, momentum=0.5, wd=0.1), F32,
     dict(idx2name=True, lr_mult={"fc_weight": 2.0}, wd_mult={1: 0.5})),
    ("sgd_names", "sgd", dict(learning_rate=0.1, wd=0.1), F32, dict(idx2name=True)),
    ("sgd_sched", "sgd", dict(momentum=0.9), F32,
     dict(sched=["FactorScheduler", dict(step=2, factor=0.5, base_lr=0.2)])),
    ("sgd_fp16", "sgd", dict(learning_rate=0.1, momentum=0.9, wd=0.01, multi_precision=True), F16, {}),
    ("sgd_fp16_nomom", "sgd", dict(learning_rate=0.1, wd=0.01, multi_precision=True, clip_gradient=0.5), F16, {}),
    ("nag", "nag", dict(learning_rate=0.1, momentum=0.9, wd=0.01, clip_gradient=0.3), F32, {}),
    ("nag_nomom", "nag", dict(learning_rate=0.1, wd=0.01), F32, {}),
    ("nag_fp16", "nag", dict(learning_rate=0.1, momentum=0.9, wd=0.01, multi_precision=True), F16, {}),
    ("adam", "adam", dict(learning_rate=0.01, wd=0.1, rescale_grad=0.5, clip_gradient=0.3), F32, {}),
    ("adam_fp16", "adam", dict(learning_rate=0.01, wd=0.1, multi_precision=True), F16, {}),
    ("rmsprop", "rmsprop", dict(learning_rate=0.01, wd=0.1, clip_gradient=0.5), F32, {}),
    ("rmsprop_centered", "rmsprop", dict(learning_rate=0.01, centered=True, clip_weights=0.9, wd=0.1), F32, {}),
    ("adagrad", "adagrad", dict(learning_rate=0.1, wd=0.1, clip_gradient=0.5, rescale_grad=0.5), F32, {}),
    ("adadelta", "adadelta", dict(wd=0.1, rho=0.8, clip_gradient=0.5), F32, {}),
    ("adamax", "adamax", dict(wd=0.1, clip_gradient=0.5), F32, {}),
    ("nadam", "nadam", dict(learning_rate=0.01, wd=0.1, clip_gradient=0.5), F32, {}),
    ("ftrl", "ftrl", dict(learning_rate=0.1, lamda1=0.05, wd=0.1, clip_gradient=0.5), F32, {}),
    ("signum", "signum", dict(learning_rate=0.01, momentum=0.9, wd=0.1, wd_lh=0.01, clip_gradient=0.5), F32, {}),
    ("signsgd", "signum", dict(learning_rate=0.01, momentum=0.0, wd=0.1), F32, {}),
    ("lamb", "lamb", dict(learning_rate=0.01, wd=0.1, lower_bound=0.01, upper_bound=10.0, clip_gradient=0.5),
     F32, {}),
    ("lamb_nobias", "lamb", dict(learning_rate=0.01, wd=0.1, bias_correction=False), F32, {}),
    ("lamb_fp16", "lamb", dict(learning_rate=0.01, wd=0.1, multi_precision=True), F16, {}),
    ("ftml", "ftml", dict(learning_rate=0.01, wd=0.1, clip_gradient=0.5), F32, {}),
    # (DCASGD with momentum fails inside MXNet 1.9.1 itself: `if mom:` on an array)
    ("dcasgd_nomom", "dcasgd", dict(learning_rate=0.1, wd=0.1), F32, {}),
    ("test", "test", dict(rescale_grad=0.5), F32, {}),
]


def _sched(spec):
    return getattr(mx.lr_scheduler, spec[0])(**spec[1]) if spec else None


def _optimizer(name, kwargs, extra):
    kwargs = dict(kwargs)
    if extra.get("idx2name"):
        kwargs["param_idx2name"] = NAMES
    if extra.get("sched"):
        kwargs["lr_scheduler"] = _sched(extra["sched"])
    opt = mx.optimizer.create(name, **kwargs)
    if "lr_mult" in extra:
        opt.set_lr_mult(extra["lr_mult"])
    if "wd_mult" in extra:
        opt.set_wd_mult(extra["wd_mult"])
    return opt


def _adamw_manual(weights, grads, lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6, wd=0.1, rescale=0.5, clip=0.3):
    """AdamW as neogluon's optimizer defines it, driven through MXNet's _adamw_update."""
    states = [(mx.nd.zeros(w.shape), mx.nd.zeros(w.shape)) for w in weights]
    traj = [[] for _ in weights]
    for t in range(1, STEPS + 1):
        for i, (w, (m, v)) in enumerate(zip(weights, states)):
            eta = lr * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
            mx.nd._internal._adamw_update(w, grads[t - 1][i], m, v, mx.nd.array([rescale]), out=w, lr=1.0, eta=eta,
                                          wd=wd, beta1=beta1, beta2=beta2, epsilon=epsilon, clip_gradient=clip)
            traj[i].append(w.asnumpy())
    return traj


def make_optimizers():
    rng = np.random.default_rng(1)
    init = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]
    arrays = {"init:%d" % i: w for i, w in enumerate(init)}
    for t in range(STEPS):
        for i, g in enumerate(grads[t]):
            arrays["grad:%d:%d" % (t, i)] = g
    cases = []
    for case, name, kwargs, dtype, extra in OPT_CASES:
        opt = _optimizer(name, kwargs, extra)
        updater = mx.optimizer.get_updater(opt)
        weights = [mx.nd.array(w, dtype=dtype) for w in init]
        traj = [[] for _ in weights]
        for t in range(STEPS):
            for i, w in enumerate(weights):
                updater(i, mx.nd.array(grads[t][i], dtype=dtype), w)
                traj[i].append(w.asnumpy())
        for i, tr in enumerate(traj):
            arrays["%s/traj:%d" % (case, i)] = np.stack(tr)
        cases.append(dict(case=case, optimizer=name, kwargs=kwargs, dtype=dtype, extra=extra,
                          num_update=opt.num_update))
    traj = _adamw_manual([mx.nd.array(w) for w in init], [[mx.nd.array(g) for g in gs] for gs in grads])
    for i, tr in enumerate(traj):
        arrays["adamw/traj:%d" % i] = np.stack(tr)
    cases.append(dict(case="adamw", optimizer="adamw",
                      kwargs=dict(learning_rate=0.01, wd=0.1, rescale_grad=0.5, clip_gradient=0.3), dtype=F32,
                      extra={}, num_update=STEPS))
    return cases, arrays


# ----------------------------------------------------------------------------- schedulers
SCHED_CASES = [
    ("factor", "FactorScheduler", dict(step=3, factor=0.5, stop_factor_lr=1e-3, base_lr=0.1)),
    ("factor_warmup", "FactorScheduler", dict(step=2, factor=0.7, base_lr=0.1, warmup_steps=4,
                                              warmup_begin_lr=0.01)),
    ("multifactor", "MultiFactorScheduler", dict(step=[3, 7, 12], factor=0.3, base_lr=1.0)),
    ("multifactor_warmup", "MultiFactorScheduler", dict(step=[5, 9], factor=0.5, base_lr=0.5, warmup_steps=3,
                                                        warmup_begin_lr=0.1, warmup_mode="constant")),
    ("poly", "PolyScheduler", dict(max_update=20, base_lr=0.1, pwr=2, final_lr=1e-3)),
    ("poly_warmup", "PolyScheduler", dict(max_update=20, base_lr=0.1, pwr=1.5, warmup_steps=5,
                                          warmup_begin_lr=0.02)),
    ("cosine", "CosineScheduler", dict(max_update=20, base_lr=0.1, final_lr=0.01)),
    ("cosine_warmup", "CosineScheduler", dict(max_update=25, base_lr=0.3, warmup_steps=4)),
]


def make_schedulers():
    out = []
    for case, cls, kwargs in SCHED_CASES:
        sched = getattr(mx.lr_scheduler, cls)(**kwargs)
        out.append(dict(case=case, cls=cls, kwargs=kwargs, lrs=[sched(n) for n in range(31)]))
    return out


# ----------------------------------------------------------------------------- metrics
def _probs(rng, n, k):
    x = rng.uniform(0.05, 1.0, (n, k))
    return (x / x.sum(axis=1, keepdims=True)).astype(np.float32)


def make_metrics():
    rng = np.random.default_rng(2)
    data = {
        "cls": [(rng.integers(0, 4, 8).astype(np.float32), _probs(rng, 8, 4)) for _ in range(2)],
        "bin": [(rng.integers(0, 2, 10).astype(np.float32), _probs(rng, 10, 2)) for _ in range(2)],
        "reg": [(rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32))
                for _ in range(2)],
        "reg2": [(rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32))
                 for _ in range(2)],
        "seq": [(rng.integers(0, 5, (2, 3)).astype(np.float32), _probs(rng, 6, 5))
                for _ in range(2)],
        "loss": [(np.zeros(1, np.float32), rng.uniform(0, 2, (5,)).astype(np.float32)) for _ in range(2)],
        "labels_as_pred": [(rng.integers(0, 3, 7).astype(np.float32), rng.integers(0, 3, 7).astype(np.float32))
                           for _ in range(2)],
    }
    cases = [
        ("acc", "acc", {}, "cls"), ("acc_same_shape", "accuracy", {}, "labels_as_pred"),
        ("topk", "top_k_accuracy", dict(top_k=2), "cls"), ("topk3", "TopKAccuracy", dict(top_k=3), "cls"),
        ("f1_macro", "f1", {}, "bin"), ("f1_micro", "f1", dict(average="micro"), "bin"),
        ("mcc_macro", "mcc", {}, "bin"), ("mcc_micro", "mcc", dict(average="micro"), "bin"),
        ("mae", "mae", {}, "reg"), ("mse", "mse", {}, "reg"), ("rmse", "rmse", {}, "reg2"),
        ("ce", "ce", {}, "cls"), ("nll", "nll_loss", dict(eps=1e-8), "cls"),
        ("perplexity", "perplexity", dict(ignore_label=None), "cls"),
        ("perplexity_ignore", "perplexity", dict(ignore_label=1), "seq"),
        ("pearson", "pearsonr", {}, "reg"), ("pearson_micro", "pearsonr", dict(average="micro"), "reg2"),
        ("pcc", "pcc", {}, "cls"), ("loss", "loss", {}, "loss"),
        ("composite", ["acc", "ce", "mae"], {}, "cls"),
    ]
    arrays, out = {}, []
    for name, batches in data.items():
        for j, (label, pred) in enumerate(batches):
            arrays["%s:%d:label" % (name, j)] = label
            arrays["%s:%d:pred" % (name, j)] = pred
    for case, metric, kwargs, dname in cases:
        if isinstance(metric, list):
            m = mx.metric.create(metric)
        else:
            m = mx.metric.create(metric, **kwargs)
        batches = data[dname]
        record = {}
        for j, (label, pred) in enumerate(batches):
            m.update([mx.nd.array(label)], [mx.nd.array(pred)])
            record["get:%d" % j] = m.get()
        m.reset_local()
        m.update([mx.nd.array(batches[0][0])], [mx.nd.array(batches[0][1])])
        record["local"] = m.get()
        record["global"] = m.get_global()
        out.append(dict(case=case, metric=metric, kwargs=kwargs, data=dname, nbatch=len(batches), **record))
    return out, arrays


# ----------------------------------------------------------------------------- Trainer
TRAINER_CASES = [
    ("sgd", "sgd", dict(learning_rate=0.1, momentum=0.9, wd=0.01)),
    ("adam", "adam", dict(learning_rate=0.01, clip_gradient=0.5)),
    ("rmsprop_sched", "rmsprop", dict(lr_scheduler=["FactorScheduler", dict(step=2, factor=0.5, base_lr=0.05)])),
]


def _trainer_net():
    net = mx.gluon.nn.Dense(3, in_units=4, prefix="dense0_")
    net.initialize(mx.init.Constant(0.0))
    return net


def make_trainer():
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    b0 = rng.standard_normal((3,)).astype(np.float32)
    xs = [rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3)]
    ys = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(3)]
    arrays = {"w0": w0, "b0": b0}
    for j, (x, y) in enumerate(zip(xs, ys)):
        arrays["x:%d" % j], arrays["y:%d" % j] = x, y
    cases = []
    for case, opt, params in TRAINER_CASES:
        net = _trainer_net()
        net.weight.set_data(mx.nd.array(w0))
        net.bias.set_data(mx.nd.array(b0))
        net.weight.lr_mult = 0.5
        net.bias.wd_mult = 2.0
        kwargs = dict(params)
        if "lr_scheduler" in kwargs:
            kwargs["lr_scheduler"] = _sched(kwargs["lr_scheduler"])
        trainer = mx.gluon.Trainer(net.collect_params(), opt, kwargs)
        lrs = []
        for j, (x, y) in enumerate(zip(xs, ys)):
            with mx.autograd.record():
                loss = ((net(mx.nd.array(x)) - mx.nd.array(y)) ** 2).sum()
            loss.backward()
            trainer.step(5)
            lrs.append(trainer.learning_rate)
            arrays["%s/weight:%d" % (case, j)] = net.weight.data().asnumpy()
            arrays["%s/bias:%d" % (case, j)] = net.bias.data().asnumpy()
        cases.append(dict(case=case, optimizer=opt, params=params, lrs=lrs))
    return cases, arrays


# five hybridized training steps of each network of tests/train_nets.py, from MXNet's own
# Xavier initialisation: optimizer, global-norm clipping (or None), batch axis, input, labels
NETS = {
    "residual_cnn": dict(optimizer=("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}), clip=None,
                         batch_axis=0, x=lambda rng: rng.random((4, 3, 16, 16)), y=lambda rng: rng.integers(0, 10, 4)),
    "lstm_lm": dict(optimizer=("adam", {"learning_rate": 0.01}), clip=1.0, batch_axis=1,
                    x=lambda rng: rng.integers(0, 20, (6, 4)), y=lambda rng: rng.integers(0, 20, (6, 4))),
}


def make_nets():
    """For each network: inputs, initial and final parameters, and the loss of each step
    (BatchNorm's moving averages, momentum SGD with weight decay; a fused LSTM with Adam
    and clip_global_norm)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    import train_nets  # pylint: disable=import-outside-toplevel
    cases, arrays = {}, {}
    for name, spec in NETS.items():
        rng = np.random.default_rng(5)
        x, y = spec["x"](rng).astype(np.float32), spec["y"](rng).astype(np.float32)
        mx.random.seed(7)
        net = getattr(train_nets, name)(mx)
        net.initialize(mx.init.Xavier())
        net(mx.nd.array(x))
        arrays.update({name + "/x": x, name + "/y": y})
        arrays.update({name + "/init/" + k: v.data().asnumpy() for k, v in net.collect_params().items()})
        net.hybridize()
        losses = train_nets.train(mx, net, mx.nd.array(x), mx.nd.array(y), spec["optimizer"], spec["clip"],
                                  spec["batch_axis"])
        arrays.update({name + "/final/" + k: v.data().asnumpy() for k, v in net.collect_params().items()})
        cases[name] = dict(optimizer=spec["optimizer"], clip=spec["clip"], batch_axis=spec["batch_axis"],
                           losses=losses)
    return cases, arrays


MAKERS = dict(ops=make_ops, optimizers=make_optimizers, metrics=make_metrics, trainer=make_trainer,
              nets=make_nets)


def main():
    """Write every file, or only those named on the command line (e.g. ``nets``)."""
    os.makedirs(OUT, exist_ok=True)
    names = sys.argv[1:] or list(MAKERS)
    for name in names:
        cases, arrays = MAKERS[name]()
        np.savez(os.path.join(OUT, name + ".npz"), **arrays)
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            json.dump(cases, f, indent=1)
    if not sys.argv[1:]:
        with open(os.path.join(OUT, "schedulers.json"), "w") as f:
            json.dump(make_schedulers(), f, indent=1)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
