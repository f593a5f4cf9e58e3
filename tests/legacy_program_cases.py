"""Classic MXNet programs (Symbol, Module, legacy iterators, custom operators, kvstore, optimizers),
written once and run twice: by ``tools/make_legacy_program_fixtures.py`` on MXNet 1.9.1 (which
records what each returns) and by ``tests/test_legacy_programs.py`` on neogluon (which compares).

A case is a function ``(mx, tmp)`` (the framework module and a fresh directory) written as MXNet's
old examples and the projects built on them (InsightFace, example/rnn/bucketing, example/sparse,
example/numpy-ops) wrote it, on tiny synthetic data with parameters drawn from seeded numpy
generators. It returns a dict of NDArrays, numpy arrays, numbers or strings; a step that MXNet
refuses is recorded as ``"<ExceptionType>: <message start>"``. This module imports neither MXNet
nor neogluon.
"""
import importlib.util
import json
import os
import random
import re

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def run(name, mx, tmp):
    """Case ``name`` under a fresh NameManager, so that its automatic names (``blockgrad0``) do not
    depend on the cases run before it."""
    with mx.name.NameManager():
        return CASES[name](mx, tmp)


def _params(shapes, seed, skip=()):
    """Parameters as InsightFace-style scripts load them: gamma near 1, variances near 1, the rest small."""
    rng = np.random.RandomState(seed)
    out = {}
    for name, shape in sorted(shapes.items()):
        if name in skip:
            continue
        if name.endswith("gamma"):
            out[name] = 1 + 0.1 * rng.randn(*shape)
        elif name.endswith("var"):
            out[name] = 1 + 0.1 * rng.rand(*shape)
        else:
            out[name] = 0.1 * rng.randn(*shape)
    return out


def _error(e):
    """``Type: message start``; MXNet's C++ errors end with a ``MXNetError: <message>`` line."""
    last = str(e).strip().split("\n")[-1]
    if last.startswith("MXNetError: "):
        last = last[len("MXNetError: "):]
    last = re.sub(r"^\[[0-9:]+\] [^ ]+:[0-9]+: ", "", last)  # MXNet's "[17:37:20] file.cc:412: " prefix
    return "%s: %s" % (type(e).__name__, last[:60])


# ----------------------------------------------------------------------------- InsightFace
def _insightface_symbol(mx, head, nc=5, emb_size=8):
    """InsightFace's recognition graph: a small ResNet-ish body ending in the ``fc1`` embedding
    (BatchNorm with fix_gamma), an ArcFace or CosFace margin head of mx.sym ops, three outputs."""
    def unit(x, nf, name):
        x = mx.sym.Convolution(x, num_filter=nf, kernel=(3, 3), stride=(1, 1), pad=(1, 1), no_bias=True,
                               name=name + "_conv")
        x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + "_bn")
        return mx.sym.LeakyReLU(x, act_type="leaky", slope=0.25, name=name + "_relu")

    data = mx.sym.Variable("data")
    data = data - 127.5
    data = data * 0.0078125
    x = unit(data, 4, "stage1")
    x = x + unit(x, 4, "stage2")
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name="bn1")
    x = mx.sym.Dropout(x, p=0.0)
    emb = mx.sym.FullyConnected(x, num_hidden=emb_size, name="pre_fc1")
    emb = mx.sym.BatchNorm(emb, fix_gamma=True, eps=2e-5, momentum=0.9, name="fc1")
    label = mx.sym.Variable("softmax_label")
    s = 8.0
    w = mx.sym.Variable("fc7_weight", shape=(nc, emb_size), lr_mult=1.0, wd_mult=5.0)
    w = mx.sym.L2Normalization(w, mode="instance")
    nemb = mx.sym.L2Normalization(emb, mode="instance", name="fc1n") * s
    fc7 = mx.sym.FullyConnected(data=nemb, weight=w, no_bias=True, num_hidden=nc, name="fc7")
    if head == "arcface":
        zy = mx.sym.pick(fc7, label, axis=1)
        cos_t = zy / s
        t = mx.sym.arccos(cos_t) + 0.5
        diff = mx.sym.cos(t) * s - zy
        diff = mx.sym.expand_dims(diff, 1)
        gt_one_hot = mx.sym.one_hot(label, depth=nc, on_value=1.0, off_value=0.0)
        fc7 = fc7 + mx.sym.broadcast_mul(gt_one_hot, diff)
    else:
        fc7 = fc7 - mx.sym.one_hot(label, depth=nc, on_value=s * 0.35, off_value=0.0)
    softmax = mx.sym.SoftmaxOutput(data=fc7, label=label, name="softmax", normalization="valid")
    ce = -mx.sym.sum(mx.sym.pick(mx.sym.log(softmax + 1e-30), label, axis=1)) / 4
    return mx.sym.Group([mx.sym.BlockGrad(emb), softmax, mx.sym.BlockGrad(ce)])


def _insightface_metrics(mx):
    class AccMetric(mx.metric.EvalMetric):
        def __init__(self):
            self.axis = 1
            super(AccMetric, self).__init__("acc", axis=self.axis, output_names=None, label_names=None)
            self.count = 0

        def update(self, labels, preds):
            self.count += 1
            pred_label = mx.ndarray.argmax(preds[1], axis=self.axis).asnumpy().astype("int32").flatten()
            label = labels[0].asnumpy().astype("int32").flatten()
            self.sum_metric += (pred_label.flat == label.flat).sum()
            self.num_inst += len(pred_label.flat)

    class LossValueMetric(mx.metric.EvalMetric):
        def __init__(self):
            super(LossValueMetric, self).__init__("lossvalue", axis=1, output_names=None, label_names=None)

        def update(self, labels, preds):
            self.sum_metric += preds[-1].asnumpy()[0]
            self.num_inst += 1.0
    return AccMetric, LossValueMetric


def _insightface(mx, tmp, head):
    import logging
    logging.getLogger().setLevel(logging.INFO)
    rng = np.random.RandomState(1)
    X = rng.uniform(0, 255, (16, 3, 8, 8)).astype("float32")
    Y = rng.randint(0, 5, (16,)).astype("float32")
    out = _insightface_symbol(mx, head)
    arg_shapes, _, aux_shapes = out.infer_shape(data=(4, 3, 8, 8), softmax_label=(4,))
    args = {k: mx.nd.array(v) for k, v in _params(dict(zip(out.list_arguments(), arg_shapes)), 0,
                                                   skip=("data", "softmax_label")).items()}
    auxs = {k: mx.nd.array(v) for k, v in _params(dict(zip(out.list_auxiliary_states(), aux_shapes)), 3).items()}
    train = mx.io.NDArrayIter(X, Y, batch_size=4, shuffle=False, label_name="softmax_label")
    train = mx.io.PrefetchingIter(train) if head == "arcface" else mx.io.ResizeIter(train, 3)
    AccMetric, LossValueMetric = _insightface_metrics(mx)
    metric = mx.metric.CompositeEvalMetric([AccMetric(), LossValueMetric()])
    prefix = os.path.join(tmp, "model")
    mod = mx.mod.Module(out, context=mx.cpu(), fixed_param_names=["stage1_conv_weight"])
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=5e-4, rescale_grad=1.0 / 4)
    mod.fit(train, begin_epoch=0, num_epoch=2, eval_metric=metric, kvstore="device", optimizer=opt,
            arg_params=args, aux_params=auxs, allow_missing=False,
            batch_end_callback=mx.callback.Speedometer(4, 2), epoch_end_callback=mx.callback.do_checkpoint(prefix))
    res = {"outputs": " ".join(out.list_outputs())}
    for name, value in metric.get_name_value():
        res["metric_" + name] = value
    arg, aux = mod.get_params()
    res.update({"arg_" + k: v for k, v in arg.items()})
    res.update({"aux_" + k: v for k, v in aux.items()})
    sym, ap, xp = mx.model.load_checkpoint(prefix, 2)
    res["checkpoint_names"] = " ".join(sorted(ap) + sorted(xp))
    res["checkpoint_fc1_gamma"] = ap["fc1_gamma"]  # fix_gamma: MXNet's training forward wrote 1 into it
    # feature extraction as InsightFace's verification/deploy scripts do it
    feats = mx.mod.Module(sym.get_internals()["fc1_output"], context=mx.cpu(), label_names=None)
    feats.bind(data_shapes=[("data", (4, 3, 8, 8))], for_training=False)
    feats.set_params(ap, xp, allow_extra=True)
    feats.forward(mx.io.DataBatch([mx.nd.array(X[:4])]), is_train=False)
    res["features"] = feats.get_outputs()[0]
    # fine-tune with a new classifier: fc7 missing from the given parameters
    ft = mx.mod.Module(out, context=mx.cpu())
    ft.bind(data_shapes=[("data", (4, 3, 8, 8))], label_shapes=[("softmax_label", (4,))])
    ft.init_params(initializer=mx.init.Constant(0.05), aux_params=xp, allow_missing=True,
                   arg_params={k: v for k, v in ap.items() if not k.startswith("fc7")})
    ft.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.05})
    batch = mx.io.DataBatch([mx.nd.array(X[4:8])], [mx.nd.array(Y[4:8])])
    ft.forward_backward(batch)
    ft.update()
    ft.forward(batch, is_train=False)
    for i, o in enumerate(ft.get_outputs()):
        res["finetune_out%d" % i] = o
    arg, _ = ft.get_params()
    res["finetune_fc7_weight"] = arg["fc7_weight"]
    res["finetune_score"] = [v for _, v in ft.score(mx.io.NDArrayIter(X, Y, batch_size=4), AccMetric())]
    return res


@case
def insightface_arcface(mx, tmp):
    return _insightface(mx, tmp, "arcface")


@case
def insightface_cosface(mx, tmp):
    return _insightface(mx, tmp, "cosface")


@case
def batchnorm_fix_gamma_writes_one(mx, tmp):
    """BatchNorm(fix_gamma=True) normalises with gamma = 1 and a zero gamma gradient, and its training
    forward writes 1 into the gamma array (MXNet's MKL-DNN and cuDNN kernels do; MXNet's engine does not
    order that write before later reads of the array, so it is checked where an update follows)."""
    x = mx.sym.var("data")
    net = mx.sym.BatchNorm(x, fix_gamma=True, name="bn")
    args = {"data": mx.nd.array(np.arange(12).reshape(2, 2, 3)), "bn_gamma": mx.nd.array([2., 3.]),
            "bn_beta": mx.nd.array([0.5, 0.1])}
    ex = net.bind(mx.cpu(), args=args, args_grad={k: mx.nd.zeros_like(v) for k, v in args.items()},
                  aux_states=[mx.nd.zeros(2), mx.nd.ones(2)])
    res = {"inference_out": ex.forward(is_train=False)[0].asnumpy(),
           "train_out": ex.forward(is_train=True)[0].asnumpy()}
    ex.backward(mx.nd.ones((2, 2, 3)))
    res["gamma_grad"] = ex.grad_dict["bn_gamma"]
    # a Module trained with weight decay: gamma is 1 at each forward, so it ends at 1 - lr * wd
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=3, name="fc"),
                                                              fix_gamma=True, name="bn"), name="softmax"))
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(mx.init.Constant(0.5))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 0.01})
    rng = np.random.RandomState(0)
    for _ in range(3):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(rng.randn(4, 5))], [mx.nd.array([0, 1, 2, 0])]))
        mod.update()
    res["module_gamma"] = mod.get_params()[0]["bn_gamma"]
    return res


@case
def feedforward_mlp(mx, tmp):
    """The pre-Module API of MXNet's first examples: mx.model.FeedForward fitted on numpy arrays
    (shuffled, roll_over batches) with eval_data, callbacks and checkpoints, then predict/score,
    save/load, pickling, FeedForward.create and an epoch_size with an Optimizer object."""
    import pickle
    np.random.seed(0)
    rng = np.random.RandomState(0)
    X, Y = rng.randn(20, 6).astype("f"), rng.randint(0, 3, 20).astype("f")
    net = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.Variable("data"), name="fc1", num_hidden=8), name="relu1",
                            act_type="relu")
    net = mx.sym.FullyConnected(mx.sym.BatchNorm(net, name="bn"), name="fc2", num_hidden=3)
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    given = {"fc1_weight": mx.nd.array(rng.randn(8, 6) * 0.3), "fc2_weight": mx.nd.array(rng.randn(3, 8) * 0.3),
             "extra": mx.nd.ones(1)}
    model = mx.model.FeedForward(net, ctx=mx.cpu(), num_epoch=3, numpy_batch_size=8, learning_rate=0.1,
                                 momentum=0.9, wd=1e-4, initializer=mx.init.Constant(0.05), arg_params=given,
                                 allow_extra_params=True)
    seen = []
    model.fit(X, Y, eval_data=(X[:10], Y[:10]), eval_metric="acc",
              batch_end_callback=lambda p: seen.append([p.epoch, p.nbatch, p.eval_metric.get()[1]]
                                                       + p.locals["data_batch"].label[0].asnumpy().tolist()),
              epoch_end_callback=mx.callback.do_checkpoint(os.path.join(tmp, "ff")))
    res = {"batches": seen, "checkpoints": " ".join(sorted(os.listdir(tmp)))}
    res.update({"arg_" + k: v for k, v in model.arg_params.items()})
    res.update({"aux_" + k: v for k, v in model.aux_params.items()})
    res["predict"] = model.predict(X)
    out, data, label = model.predict(mx.io.NDArrayIter(X, Y, batch_size=6), return_data=True)
    res.update(predict_iter=out, predict_data=data, predict_label=label)
    res["score_ce"] = model.score(mx.io.NDArrayIter(X, Y, batch_size=7), eval_metric="ce")
    res["score_two_batches"] = model.score(mx.io.NDArrayIter(X, Y, batch_size=7), num_batch=2)
    model.save(os.path.join(tmp, "saved"))
    res["loaded_predict"] = mx.model.FeedForward.load(os.path.join(tmp, "saved"), 3, numpy_batch_size=5).predict(X[:7])
    res["pickled_predict"] = pickle.loads(pickle.dumps(model)).predict(X[:3])
    created = mx.model.FeedForward.create(net, X, Y, num_epoch=1, numpy_batch_size=10,
                                          initializer=mx.init.Constant(0.02), learning_rate=0.5)
    res["create_fc2_weight"] = created.arg_params["fc2_weight"]
    short = mx.model.FeedForward(net, num_epoch=2, epoch_size=3, optimizer=mx.optimizer.Adam(learning_rate=0.01),
                                 initializer=mx.init.Constant(0.03))
    short.fit(mx.io.NDArrayIter(X, Y, batch_size=4))
    res["epoch_size_fc2_weight"] = short.arg_params["fc2_weight"]
    return res


# ----------------------------------------------------------------------------- custom operators
def _register_custom_ops(mx):
    if getattr(mx, "_legacy_program_ops", False):
        return

    # the custom-operator tutorial's Python softmax (op_type "softmax"), shared with tests/test_custom_op.py
    spec = importlib.util.spec_from_file_location(
        "custom_op_ops", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "extra", "custom_op",
                                      "ops.py"))
    ops = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ops)
    ops.define(mx)

    class FocalLoss(mx.operator.CustomOp):
        def __init__(self, gamma, alpha):
            self.gamma, self.alpha = gamma, alpha

        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], mx.nd.softmax(in_data[0], axis=1))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            p, onehot = out_data[0], mx.nd.one_hot(in_data[1], out_data[0].shape[1])
            pt = mx.nd.sum(p * onehot, axis=1, keepdims=True)
            self.assign(in_grad[0], req[0], self.alpha * (1 - pt) ** self.gamma * (p - onehot) / p.shape[0])
            self.assign(in_grad[1], req[1], mx.nd.zeros_like(in_data[1]))

    @mx.operator.register("legacy_focal")
    class FocalProp(mx.operator.CustomOpProp):
        def __init__(self, gamma=2, alpha=0.25):
            super(FocalProp, self).__init__(need_top_grad=False)
            self.gamma, self.alpha = float(gamma), float(alpha)

        def list_arguments(self):
            return ["data", "label"]

        def list_outputs(self):
            return ["output"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return FocalLoss(self.gamma, self.alpha)

    class Proposal(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            s = in_data[0].asnumpy()
            idx = np.argsort(-s.reshape(s.shape[0], -1), axis=1, kind="stable")[:, :3]
            rois = np.concatenate([np.repeat(np.arange(s.shape[0]), 3)[:, None], idx.reshape(-1, 1) % 3,
                                   idx.reshape(-1, 1) // 4, idx.reshape(-1, 1) % 3 + 1, idx.reshape(-1, 1) // 4 + 1],
                                  axis=1).astype("float32")
            self.assign(out_data[0], req[0], mx.nd.array(rois))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], 0)

    @mx.operator.register("legacy_proposal")
    class ProposalProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(ProposalProp, self).__init__(need_top_grad=False)

        def list_arguments(self):
            return ["score"]

        def list_outputs(self):
            return ["rois"]

        def infer_shape(self, in_shape):
            return in_shape, [(in_shape[0][0] * 3, 5)], []

        def create_operator(self, ctx, shapes, dtypes):
            return Proposal()
    mx._legacy_program_ops = True


@case
def custom_loss_operators_in_module(mx, tmp):
    """example/numpy-ops' Python softmax and a focal loss (need_top_grad=False) trained by Module.fit."""
    _register_custom_ops(mx)
    rng = np.random.RandomState(0)
    X, Y = rng.randn(12, 6).astype("f"), rng.randint(0, 3, 12).astype("f")
    res = {}
    for name in ("softmax", "focal"):
        data, label = mx.sym.var("data"), mx.sym.var("softmax_label")
        fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
        if name == "softmax":
            net = mx.sym.Custom(data=fc, label=label, name="softmax", op_type="softmax")
        else:
            net = mx.sym.Custom(fc, label, op_type="legacy_focal", gamma=2, alpha=0.5, name="softmax")
        res[name + "_arguments"] = " ".join(net.list_arguments())
        mod = mx.mod.Module(net)
        it = mx.io.NDArrayIter(X, Y, batch_size=4)
        w = np.random.RandomState(1).randn(3, 6) * 0.1
        mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.5},
                arg_params={"fc1_weight": mx.nd.array(w), "fc1_bias": mx.nd.zeros(3)}, eval_metric="acc")
        arg, _ = mod.get_params()
        res[name + "_weight"], res[name + "_bias"] = arg["fc1_weight"], arg["fc1_bias"]
        res[name + "_score"] = [v for _, v in mod.score(it, ["acc", "ce"])]
        res[name + "_predict"] = mod.predict(it)
    return res


@case
def custom_proposal_without_gradient(mx, tmp):
    """A proposal-like Custom op (no gradient) feeding ROIPooling through BlockGrad."""
    _register_custom_ops(mx)
    rng = np.random.RandomState(2)
    data = mx.sym.var("data")
    score = mx.sym.Convolution(data, num_filter=1, kernel=(1, 1), name="score")
    rois = mx.sym.Custom(score=score, op_type="legacy_proposal", name="rois")
    pooled = mx.sym.ROIPooling(data, mx.sym.BlockGrad(rois), pooled_size=(2, 2), spatial_scale=1.0)
    net = mx.sym.Group([mx.sym.MakeLoss(mx.sym.sum(pooled) + mx.sym.sum(score)), mx.sym.BlockGrad(rois)])
    ex = net.simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    for name in sorted(ex.arg_dict):
        ex.arg_dict[name][:] = mx.nd.array(rng.randn(*ex.arg_dict[name].shape))
    ex.forward(is_train=True)
    ex.backward()
    return {"loss": ex.outputs[0], "rois": ex.outputs[1], "grad_data": ex.grad_dict["data"],
            "grad_score_weight": ex.grad_dict["score_weight"]}


# ----------------------------------------------------------------------------- data iterators and files
@case
def text_iterators(mx, tmp):
    """CSVIter, LibSVMIter (CSRNDArray batches) and MNISTIter on files written here."""
    import struct
    rng = np.random.RandomState(0)
    res = {}
    np.savetxt(os.path.join(tmp, "x.csv"), rng.randn(10, 3).astype("f"), delimiter=",")
    np.savetxt(os.path.join(tmp, "y.csv"), rng.randint(0, 2, (10, 1)).astype("f"), delimiter=",")
    it = mx.io.CSVIter(data_csv=os.path.join(tmp, "x.csv"), data_shape=(3,), label_csv=os.path.join(tmp, "y.csv"),
                       label_shape=(1,), batch_size=4, round_batch=True)
    res["csv_provide"] = "%s %s" % (it.provide_data[0].shape, it.provide_label[0].shape)
    res["csv_batches"] = np.stack([np.concatenate([b.data[0].asnumpy(), b.label[0].asnumpy().reshape(4, 1),
                                                   np.full((4, 1), b.pad)], 1) for b in it])
    with open(os.path.join(tmp, "a.libsvm"), "w") as f:
        f.write("1 0:1.5 3:2\n0 1:-1\n1 2:0.5 4:3\n0 0:1\n1 3:1 4:1\n")
    with open(os.path.join(tmp, "l.libsvm"), "w") as f:
        f.write("0 0:1 1:2\n0 1:1\n0 0:3\n0 1:4\n0 0:5\n")
    it = mx.io.LibSVMIter(data_libsvm=os.path.join(tmp, "a.libsvm"), data_shape=(5,),
                          label_libsvm=os.path.join(tmp, "l.libsvm"), label_shape=(2,), batch_size=2)
    for k, b in enumerate(it):
        res["libsvm_stypes%d" % k] = "%s %s %d" % (b.data[0].stype, b.label[0].stype, b.pad)
        res["libsvm_data%d" % k] = b.data[0]
        res["libsvm_indptr%d" % k] = b.data[0].indptr
        res["libsvm_indices%d" % k] = b.data[0].indices
        res["libsvm_label%d" % k] = b.label[0]
    imgs, labs = rng.randint(0, 256, (7, 28, 28)), rng.randint(0, 10, 7)
    for path, arr, magic in (("img", imgs, 2051), ("lab", labs, 2049)):
        with open(os.path.join(tmp, path), "wb") as f:
            f.write(struct.pack(">II", magic, arr.shape[0]))
            if arr.ndim == 3:
                f.write(struct.pack(">II", arr.shape[1], arr.shape[2]))
            f.write(arr.astype(np.uint8).tobytes())
    for flat in (False, True):
        it = mx.io.MNISTIter(image=os.path.join(tmp, "img"), label=os.path.join(tmp, "lab"), batch_size=3,
                             shuffle=False, flat=flat, silent=True)
        batches = list(it)
        res["mnist_first%d" % flat] = batches[0].data[0]
        res["mnist_labels%d" % flat] = np.concatenate([b.label[0].asnumpy() for b in batches])
        res["mnist_pads%d" % flat] = [b.pad for b in batches]
    return res


@case
def sparse_linear_classification(mx, tmp):
    """example/sparse/linear_classification: LibSVMIter's csr batches, sparse.dot with a row_sparse
    weight, LogisticRegressionOutput, one Module step per batch."""
    with open(os.path.join(tmp, "a.libsvm"), "w") as f:
        f.write("1 0:1.5 3:2\n0 1:-1\n1 2:0.5 4:3\n0 0:1\n1 3:1 4:1\n")
    it = mx.io.LibSVMIter(data_libsvm=os.path.join(tmp, "a.libsvm"), data_shape=(5,), batch_size=2)
    x = mx.sym.Variable("data", stype="csr")
    w = mx.sym.Variable("weight", shape=(5, 1), init=mx.init.Constant(0.1), stype="row_sparse")
    net = mx.sym.LogisticRegressionOutput(data=mx.sym.sparse.dot(x, w), label=mx.sym.Variable("softmax_label"))
    mod = mx.mod.Module(symbol=net, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params()
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5, "rescale_grad": 0.5})
    metric = mx.metric.create(["mse"])
    res = {}
    for epoch in range(2):
        metric.reset()
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
            mod.update_metric(metric, batch.label)
        res["mse%d" % epoch] = metric.get()[1][0]
        it.reset()
    arg, _ = mod.get_params()
    res["weight_stype"], res["weight"] = arg["weight"].stype, arg["weight"]
    return res


@case
def files_recordio_profiler(mx, tmp):
    """MXIndexedRecordIO packing, nd.save/load of dicts and lists, a profiler dump."""
    res = {}
    rec_path, idx_path = os.path.join(tmp, "d.rec"), os.path.join(tmp, "d.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, "w")
    for i in range(5):
        header = mx.recordio.IRHeader(0, [float(i), float(i) / 2] if i % 2 else float(i), i, 0)
        writer.write_idx(i * 10, mx.recordio.pack(header, b"payload-%d" % i))
    writer.close()
    reader = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, "r")
    res["record_keys"] = reader.keys
    header, payload = mx.recordio.unpack(reader.read_idx(30))
    res["record_30"] = "%s %s %s %s" % (header.flag, np.asarray(header.label).tolist(), header.id, payload)
    reader.close()
    mx.nd.save(os.path.join(tmp, "dict.nd"), {"a": mx.nd.array([1, 2]), "b": mx.nd.ones((2, 2), dtype="float16")})
    loaded = mx.nd.load(os.path.join(tmp, "dict.nd"))
    res["nd_dict"] = "%s %s" % (sorted(loaded), loaded["b"].dtype.__name__)
    mx.nd.save(os.path.join(tmp, "list.nd"), [mx.nd.arange(3), mx.nd.array([[1]], dtype="int32")])
    loaded = mx.nd.load(os.path.join(tmp, "list.nd"))
    res["nd_list"] = "%s %s" % (type(loaded).__name__, loaded[1].dtype.__name__)
    res["nd_list_1"] = loaded[1]
    prof = os.path.join(tmp, "profile.json")
    mx.profiler.set_config(profile_all=True, filename=prof, aggregate_stats=True)
    mx.profiler.set_state("run")
    (mx.nd.ones((3, 3)) * 2).sum().wait_to_read()
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    with open(prof) as f:
        res["profile_keys"] = " ".join(sorted(json.load(f)))
    return res


# ----------------------------------------------------------------------------- symbol graphs
def _attr_graph(mx):
    with mx.AttrScope(ctx_group="dev1", lr_mult="0.5"):
        data = mx.sym.var("data")
        with mx.name.Prefix("blk_"):
            act = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=4, name="fc1"), act_type="relu",
                                    name="relu1")
    w2 = mx.sym.var("fc2_weight", lr_mult=0.0, wd_mult=2.0)
    b2 = mx.sym.var("fc2_bias", attr={"__lr_mult__": "3"})
    fc2 = mx.sym.FullyConnected(act, weight=w2, bias=b2, num_hidden=3, name="fc2")
    return data, act, fc2, mx.sym.SoftmaxOutput(fc2, name="softmax")


@case
def symbol_attributes_and_json_lr_mult(mx, tmp):
    """AttrScope, name.Prefix, attr_dict, get_children, infer_shape_partial and a tojson/load_json
    round trip whose __lr_mult__/__wd_mult__ Module's optimizer honours."""
    data, act, fc2, out = _attr_graph(mx)
    res = {"arguments": " ".join(out.list_arguments()),
           "attr_dict": json.dumps(out.attr_dict(), sort_keys=True),
           "list_attr": json.dumps(fc2.list_attr(), sort_keys=True),
           "children": " ".join(fc2.get_children().list_outputs()),
           "leaf_children": str(data.get_children()),
           "scoped_attr": "%s %s" % (act.attr("ctx_group"), act.attr("lr_mult")),
           "infer_partial": str(out.infer_shape_partial(data=(0, 5))),
           "infer_partial_none": str(fc2.infer_shape_partial())}
    try:
        out.list_attr(recursive=True)
    except DeprecationWarning as e:
        res["list_attr_recursive"] = _error(e)
    js = out.tojson()
    loaded = mx.sym.load_json(js)
    res["json_round_trip"] = loaded.tojson() == js
    rng = np.random.RandomState(0)
    X, Y = rng.randn(8, 5).astype("f"), rng.randint(0, 3, 8).astype("f")
    mod = mx.mod.Module(loaded)
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    shapes = dict(zip(loaded.list_arguments(), loaded.infer_shape(data=(4, 5))[0]))
    mod.init_params(arg_params={k: mx.nd.array(rng.randn(*shapes[k]) * 0.3) for k in sorted(mod._param_names)})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 0.01})
    for i in range(2):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(X[i * 4:i * 4 + 4])], [mx.nd.array(Y[i * 4:i * 4 + 4])]))
        mod.update()
    res.update({"param_" + k: v for k, v in mod.get_params()[0].items()})
    return res


@case
def old_symbol_json_files(mx, tmp):
    """Symbol files of MXNet before 0.9 ("param" and "attr" per node, plain lr_mult/ctx_group keys,
    no mxnet_version) and of 0.9.x (aux variables without __init__), as MXNet 1.9.1's reader
    upgrades them, trained by Module (the plain lr_mult honoured); hidden keys as operator keywords."""
    old = {"nodes": [
        {"op": "null", "param": {}, "name": "data", "inputs": [], "backward_source_id": -1},
        {"op": "null", "param": {}, "name": "fc1_weight", "inputs": [], "backward_source_id": -1,
         "attr": {"lr_mult": "0.5", "wd_mult": "2", "__wd_mult__": "7", "ctx_group": "a", "my_lr_mult": "3"}},
        {"op": "null", "param": {}, "name": "fc1_bias", "inputs": [], "backward_source_id": -1},
        {"op": "FullyConnected", "param": {"no_bias": "False", "num_hidden": "3"}, "attr": {"lr_mult": "0"},
         "name": "fc1", "inputs": [[0, 0], [1, 0], [2, 0]], "backward_source_id": -1},
        {"op": "null", "param": {}, "name": "g", "inputs": []}, {"op": "null", "param": {}, "name": "b", "inputs": []},
        {"op": "null", "param": {}, "name": "mm", "inputs": []},
        {"op": "null", "param": {}, "name": "mv", "inputs": []},
        {"op": "BatchNorm", "param": {"eps": "0.001", "fix_gamma": "False"}, "name": "bn",
         "inputs": [[3, 0], [4, 0], [5, 0], [6, 0], [7, 0]]},
        {"op": "null", "param": {}, "name": "softmax_label", "inputs": [], "backward_source_id": -1},
        {"op": "SoftmaxOutput", "param": {"grad_scale": "1", "ignore_label": "-1", "multi_output": "False",
                                          "normalization": "null", "use_ignore": "False"},
         "name": "softmax", "inputs": [[8, 0], [9, 0]], "backward_source_id": -1}],
        "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 9], "heads": [[10, 0]]}
    res = {}
    for version in (None, 903, 904):
        if version:
            old["attrs"] = {"mxnet_version": ["int", version]}
        with open(os.path.join(tmp, "old-symbol.json"), "w") as f:
            json.dump(old, f)
        net = mx.sym.load(os.path.join(tmp, "old-symbol.json"))
        res["attr_dict_%s" % version] = json.dumps(net.attr_dict(), sort_keys=True)
    res["arguments"] = " ".join(net.list_arguments())
    res["auxiliary_states"] = " ".join(net.list_auxiliary_states())
    rng = np.random.RandomState(4)
    mod = mx.mod.Module(net)
    mod.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(4, 5))[0]))
    mod.init_params(arg_params={k: mx.nd.array(rng.randn(*shapes[k])) for k in ("fc1_weight", "fc1_bias", "g", "b")},
                    aux_params={"mm": mx.nd.zeros(3), "mv": mx.nd.ones(3)})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 0.01})
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(rng.randn(4, 5))], [mx.nd.array([0, 1, 2, 1])]))
    mod.update()
    res.update({"param_" + k: v for k, v in mod.get_params()[0].items()})
    net = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc", lr_mult=2.0, ctx_group="dev")
    res["keyword_attrs"] = json.dumps(net.attr_dict(), sort_keys=True)
    return res


@case
def metrics_initializers_checkpoints(mx, tmp):
    """mx.metric classes (custom and numpy-function metrics too), initializers given as variable
    attributes, Mixed and Load, and a Module checkpoint with optimizer states resumed by Module.load."""
    rng = np.random.RandomState(0)
    pred, lab = mx.nd.array(rng.rand(6, 3)), mx.nd.array([0, 1, 2, 2, 1, 0])
    pred2, lab2 = mx.nd.array(rng.rand(6, 2)), mx.nd.array([0, 1, 1, 0, 1, 1])
    res = {}
    for name, m, l, p in [
            ("acc", mx.metric.Accuracy(), lab, pred), ("top2", mx.metric.TopKAccuracy(top_k=2), lab, pred),
            ("f1", mx.metric.F1(), lab2, pred2), ("f1micro", mx.metric.F1(average="micro"), lab2, pred2),
            ("mcc", mx.metric.MCC(), lab2, pred2), ("ppl", mx.metric.Perplexity(ignore_label=None), lab, pred),
            ("ce", mx.metric.CrossEntropy(), lab, pred), ("nll", mx.metric.NegativeLogLikelihood(), lab, pred),
            ("pearson", mx.metric.PearsonCorrelation(), mx.nd.array(rng.rand(6)), mx.nd.array(rng.rand(6))),
            ("mae", mx.metric.MAE(), mx.nd.array(rng.rand(6, 2)), mx.nd.array(rng.rand(6, 2))),
            ("rmse", mx.metric.RMSE(), mx.nd.array(rng.rand(6, 1)), mx.nd.array(rng.rand(6, 1))),
            ("loss", mx.metric.Loss(), None, mx.nd.array(rng.rand(6))),
            ("custom", mx.metric.CustomMetric(lambda l, p: float(np.abs(l - p.argmax(1)).sum()), name="myerr"),
             lab, pred),
            ("np", mx.metric.np(lambda l, p: float((p.argmax(1) == l).mean())), lab, pred)]:
        for _ in range(2):
            m.update([l] if l is not None else [], [p])
        res["metric_" + name] = "%s %r %r" % (m.get()[0], round(float(m.get()[1]), 5),
                                              round(float(m.get_global()[1]), 5))
    comp = mx.metric.create(["acc", "ce", mx.metric.TopKAccuracy(2)])
    comp.update([lab], [pred])
    res["composite"] = [v for _, v in comp.get_name_value()]
    w = mx.sym.var("fc_weight", init=mx.init.Constant(0.7))
    net = mx.sym.FullyConnected(mx.sym.FullyConnected(mx.sym.var("data"), weight=w, num_hidden=2, name="fc"),
                                num_hidden=2, name="fc2")
    mod = mx.mod.Module(net, label_names=None)
    mod.bind([("data", (1, 3))])
    mod.init_params(mx.init.Mixed([".*fc2_weight", ".*"], [mx.init.Constant(0.2), mx.init.Zero()]))
    res.update({"mixed_" + k: v for k, v in mod.get_params()[0].items()})
    mx.nd.save(os.path.join(tmp, "p.nd"), {"arg:fc2_bias": mx.nd.ones(2) * 5})
    mod.init_params(mx.init.Load(os.path.join(tmp, "p.nd"), default_init=mx.init.One()), force_init=True)
    res.update({"load_" + k: v for k, v in mod.get_params()[0].items()})
    X, Y = rng.randn(8, 3).astype("f"), rng.randint(0, 2, 8).astype("f")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc"), name="softmax")
    mod = mx.mod.Module(net)
    it = mx.io.NDArrayIter(X, Y, batch_size=4)
    prefix = os.path.join(tmp, "m")
    mod.fit(it, num_epoch=2, optimizer="adam", optimizer_params={"learning_rate": 0.1},
            arg_params={"fc_weight": mx.nd.array(rng.randn(2, 3)), "fc_bias": mx.nd.zeros(2)},
            epoch_end_callback=mx.callback.module_checkpoint(mod, prefix, period=1, save_optimizer_states=True))
    res["files"] = " ".join(sorted(f for f in os.listdir(tmp) if f.startswith("m-")))
    resumed = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    resumed.fit(it, begin_epoch=2, num_epoch=3, optimizer="adam", optimizer_params={"learning_rate": 0.1})
    mod.fit(it, begin_epoch=2, num_epoch=3, optimizer="adam", optimizer_params={"learning_rate": 0.1})
    res["resumed_weight"] = resumed.get_params()[0]["fc_weight"]
    res["continued_weight"] = mod.get_params()[0]["fc_weight"]
    return res


@case
def symbol_composition_and_debug_str(mx, tmp):
    """Calling a symbol to substitute its variables (and MXNet's error for a name that is none),
    deep copies and pickles, scalar arithmetic, multi-output indexing, debug_str."""
    import copy
    import pickle
    x, y, z = mx.sym.var("x"), mx.sym.var("y"), mx.sym.var("z")
    net = mx.sym.Activation(mx.sym.FullyConnected(num_hidden=3, name="fc"), act_type="tanh", name="act")
    res = {"atomic_arguments": " ".join(net.list_arguments()),
           "composed": " ".join(net(fc_data=z * 2).list_arguments()),
           "original_after": " ".join(net.list_arguments())}
    try:
        net(data=z)
    except Exception as e:  # pylint: disable=broad-except
        res["compose_error"] = "%s %s" % (type(e).__name__, "Keyword argument name data not found" in str(e))
    try:
        net(z, y)
    except Exception as e:  # pylint: disable=broad-except
        res["positional_compose_error"] = _error(e)
    composed = mx.sym.exp(mx.sym.var("a"))(a=x + y)
    res["composed_eval"] = composed.eval(ctx=mx.cpu(), x=mx.nd.array([1.]), y=mx.nd.array([0.5]))[0]
    res["deepcopy"] = copy.deepcopy(net).tojson() == net.tojson()
    res["pickle"] = pickle.loads(pickle.dumps(net)).tojson() == net.tojson()
    e = (2 - x) / (y ** 2) + 1 / x - x % 3 + abs(-x) + (x > y) * (x <= 2) + (-x)
    res["arithmetic"] = e.eval(ctx=mx.cpu(), x=mx.nd.array([1.5, -2]), y=mx.nd.array([0.5, 3]))[0]
    res["rpow"] = (2 ** x).eval(x=mx.nd.array([3.]))[0]
    res["internal_names"] = " ".join(e.get_internals().list_outputs())
    sc = mx.sym.SliceChannel(x, num_outputs=3, name="sc")
    res["slice_outputs"] = "%s | %s | %d | %s" % (" ".join(sc.list_outputs()), " ".join(sc[1].list_outputs()),
                                                 len(sc), " ".join(s.name for s in sc))
    bn = mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), name="bn")
    res["debug_str"] = mx.sym.Group([bn, sc[1]]).debug_str()
    res["creation"] = np.concatenate([mx.sym.arange(1, 7, 2, repeat=2).eval()[0].asnumpy(),
                                      mx.sym.full((2,), 3.5).eval()[0].asnumpy()])
    return res


@case
def executor_bind_backward_reshape(mx, tmp):
    """Group, simple_bind with a grad_req dict, backward(out_grads), outputs that exist from the bind
    and are refreshed in place, reshape's sharing and errors, copy_params_from."""
    rng = np.random.RandomState(3)
    data, act, fc2, out = _attr_graph(mx)
    group = mx.sym.Group([fc2, act])
    ex = group.simple_bind(mx.cpu(), data=(2, 5), grad_req={"data": "write", "blk_fc1_weight": "add",
                                                           "blk_fc1_bias": "null", "fc2_weight": "write",
                                                           "fc2_bias": "write"})
    res = {"outputs": " ".join(group.list_outputs()),
           "no_grad": " ".join(k for k, v in sorted(ex.grad_dict.items()) if v is None),
           "bound_output_shapes": str([o.shape for o in ex.outputs])}
    held = ex.outputs[0]
    ex.copy_params_from({k: mx.nd.array(rng.randn(*v.shape)) for k, v in ex.arg_dict.items() if k != "data"})
    ex.arg_dict["data"][:] = mx.nd.array(rng.randn(2, 5))
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones((2, 3)), mx.nd.array(rng.randn(2, 4))])
    res.update({"grad1_" + k: v for k, v in ex.grad_dict.items() if v is not None})
    ex.forward(is_train=True, data=mx.nd.ones((2, 5)))
    ex.backward([mx.nd.ones((2, 3)), mx.nd.ones((2, 4))])
    res["grad2_fc1_weight"] = ex.grad_dict["blk_fc1_weight"]
    res["held_output"] = held.copy()  # the array taken before the forwards holds the last forward's result
    small = ex.reshape(data=(1, 5))
    small.forward()
    res["reshaped_out"] = small.outputs[0]
    small.arg_dict["data"][:] = -1  # a smaller input shares the first elements of the old one
    res["shared_data"] = ex.arg_dict["data"]
    for kwargs in ({"data": (3, 5)}, {"data": (2, 4)}):
        try:
            ex.reshape(**kwargs)
        except Exception as e:  # pylint: disable=broad-except
            res["reshape_error_%d_%d" % kwargs["data"]] = _error(e)
    res["grown_shape"] = str(ex.reshape(data=(3, 5), allow_up_sizing=True).outputs[0].shape)
    res["partial_shape"] = str(ex.reshape(data=(2, 4), partial_shaping=True).arg_dict["blk_fc1_weight"].shape)
    try:
        ex.copy_params_from({"nope": mx.nd.ones(1)})
    except Exception as e:  # pylint: disable=broad-except
        res["copy_error"] = type(e).__name__
    internals = out.get_internals()
    res["internals"] = " ".join(internals.list_outputs())
    res["internal_args"] = " ".join(internals["fc2_output"].list_arguments())
    return res


@case
def legacy_symbol_operators(mx, tmp):
    """Forward and backward of operators the old examples' symbols use (fcn-xs' Crop and bilinear
    UpSampling, whose weight variable the compose makes, SliceChannel, the SVM/MAE/logistic/softmax
    output layers with their options, SpatialTransformer, Correlation, Pooling conventions, v1 ops)."""
    import zlib
    d, lab = mx.sym.var("data"), mx.sym.var("label")
    length = mx.sym.round(mx.sym.abs(mx.sym.var("len")) * 3) + 1
    syms = {
        "slicechannel": (mx.sym.Group(list(mx.sym.SliceChannel(d, num_outputs=2, axis=1))), dict(data=(2, 4, 3))),
        "crop": (mx.sym.Crop(d, offset=(1, 1), h_w=(2, 2)), dict(data=(1, 2, 4, 4))),
        "crop_like": (mx.sym.Crop(d, mx.sym.var("ref"), center_crop=True), dict(data=(1, 2, 5, 5), ref=(1, 1, 3, 3))),
        "upsampling_bilinear": (mx.sym.UpSampling(d, scale=2, sample_type="bilinear", num_filter=2, num_args=2),
                                dict(data=(1, 2, 3, 3))),
        "concat_missing_input": (mx.sym.Concat(d, d * 2, num_args=3, dim=1), dict(data=(1, 2), concat0_arg2=(1, 3))),
        "deconv_adj": (mx.sym.Deconvolution(d, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1), num_filter=2,
                                            name="dc"), dict(data=(1, 2, 3, 3))),
        "svm": (mx.sym.SVMOutput(d, lab, margin=1.0, regularization_coefficient=0.5), dict(data=(3, 4), label=(3,))),
        "svm_l2": (mx.sym.SVMOutput(d, lab, use_linear=False), dict(data=(3, 4), label=(3,))),
        "mae": (mx.sym.MAERegressionOutput(d, lab, grad_scale=2), dict(data=(3, 2), label=(3, 2))),
        "softmax_multi": (mx.sym.SoftmaxOutput(d, lab, multi_output=True, normalization="valid", use_ignore=True,
                                               ignore_label=1), dict(data=(2, 3, 4), label=(2, 4))),
        "softmax_smooth": (mx.sym.SoftmaxOutput(d, lab, smooth_alpha=0.1, normalization="batch", grad_scale=0.5),
                           dict(data=(3, 4), label=(3,))),
        "kl_sparse": (mx.sym.IdentityAttachKLSparseReg(mx.sym.sigmoid(d), sparseness_target=0.1, penalty=0.01),
                      dict(data=(3, 4))),
        "correlation": (mx.sym.Correlation(d, mx.sym.var("d2"), kernel_size=1, max_displacement=1, pad_size=1),
                        dict(data=(1, 2, 4, 4), d2=(1, 2, 4, 4))),
        "spatial_transformer": (mx.sym.SpatialTransformer(d, mx.sym.var("loc"), target_shape=(3, 3),
                                                          transform_type="affine", sampler_type="bilinear"),
                                dict(data=(1, 1, 4, 4), loc=(1, 6))),
        "pool_full": (mx.sym.Pooling(d, kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full"),
                      dict(data=(1, 1, 6, 6))),
        "pool_v1": (mx.sym.Pooling_v1(d, kernel=(2, 2), stride=(2, 2), pool_type="avg"), dict(data=(1, 2, 5, 5))),
        "conv_v1": (mx.sym.Convolution_v1(d, kernel=(3, 3), num_filter=2, pad=(1, 1), name="cv1"),
                    dict(data=(1, 2, 4, 4))),
        "choose_element": (mx.sym.choose_element_0index(d, mx.sym.round(mx.sym.abs(lab) * 2)),
                           dict(data=(3, 4), label=(3,))),
        "sequence_last": (mx.sym.SequenceLast(d, length, use_sequence_length=True), dict(data=(4, 2, 3), len=(2,))),
        "l2norm_spatial": (mx.sym.L2Normalization(d, mode="spatial"), dict(data=(2, 3, 2, 2))),
    }
    res = {}
    for name, (net, shapes) in sorted(syms.items()):
        ex = net.simple_bind(mx.cpu(), **shapes)
        rng = np.random.RandomState(zlib.crc32(name.encode()) % 1000)
        res[name + "_arguments"] = " ".join(net.list_arguments())
        for k in sorted(ex.arg_dict):
            ex.arg_dict[k][:] = mx.nd.array(rng.uniform(-1, 1, ex.arg_dict[k].shape))
        outs = ex.forward(is_train=True)
        for i, o in enumerate(outs):
            res["%s_out%d" % (name, i)] = o.asnumpy()
        ex.backward([mx.nd.array(rng.uniform(-1, 1, o.shape)) for o in outs])
        res.update({"%s_grad_%s" % (name, k): g for k, g in ex.grad_dict.items() if g is not None})
    return res


# ----------------------------------------------------------------------------- kvstore, optimizers
@case
def kvstore_push_pull_with_optimizer(mx, tmp):
    res = {}
    for kind in ("local", "device"):
        kv = mx.kv.create(kind)
        res[kind + "_type"] = "%s %d %d" % (kv.type, kv.rank, kv.num_workers)
        kv.init(["a", "b"], [mx.nd.ones((2, 2)), mx.nd.zeros(3)])
        kv.push(["a", "b"], [[mx.nd.ones((2, 2)) * 2, mx.nd.ones((2, 2)) * 3], [mx.nd.ones(3), mx.nd.ones(3)]])
        outs = [mx.nd.zeros((2, 2)), mx.nd.zeros(3)]
        kv.pull(["a", "b"], out=outs)
        res[kind + "_a"], res[kind + "_b"] = outs
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5))
        kv.init("c", mx.nd.ones((2, 3)))
        for i in range(3):
            kv.push("c", [mx.nd.ones((2, 3)) * (i + 1), mx.nd.ones((2, 3))])
        outs = [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))]
        kv.pull("c", out=outs)
        res[kind + "_c"] = outs[1]
        out = mx.nd.zeros((2, 3))
        kv.pushpull("c", mx.nd.ones((2, 3)), out=out)
        res[kind + "_pushpull"] = out
    return res


_SCHEDULERS = {
    "multifactor": lambda mx: mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=0.2),
    "poly": lambda mx: mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=0.2, pwr=2, final_lr=0.01,
                                                     warmup_steps=2),
    "cosine": lambda mx: mx.lr_scheduler.CosineScheduler(max_update=8, base_lr=0.2, final_lr=0.0, warmup_steps=3,
                                                         warmup_begin_lr=0.01, warmup_mode="linear"),
    "factor": lambda mx: mx.lr_scheduler.FactorScheduler(step=3, factor=0.7, stop_factor_lr=1e-3, base_lr=0.2,
                                                         warmup_steps=1, warmup_mode="constant",
                                                         warmup_begin_lr=0.05),
}


def _fit_with_scheduler(mx, sched, optimizer):
    rng = np.random.RandomState(0)
    X, Y = rng.randn(24, 4).astype("f"), rng.randint(0, 3, 24).astype("f")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"), name="softmax")
    mod = mx.mod.Module(net)
    lrs = []
    params = {"learning_rate": 0.2, "lr_scheduler": _SCHEDULERS[sched](mx), "wd": 1e-3}
    if optimizer in ("sgd", "nag", "signum", "lars"):
        params["momentum"] = 0.9
    mod.fit(mx.io.NDArrayIter(X, Y, batch_size=6), num_epoch=2, optimizer=optimizer, optimizer_params=params,
            arg_params={"fc_weight": mx.nd.array(np.random.RandomState(1).randn(3, 4) * 0.1),
                        "fc_bias": mx.nd.zeros(3)}, kvstore="local",
            batch_end_callback=lambda param: lrs.append(mod._optimizer._get_lr(0)))
    arg, _ = mod.get_params()
    return {"%s_%s_weight" % (sched, optimizer): arg["fc_weight"], "%s_%s_bias" % (sched, optimizer): arg["fc_bias"],
            "%s_%s_lrs" % (sched, optimizer): lrs, "%s_%s_num_update" % (sched, optimizer): mod._optimizer.num_update}


@case
def lr_schedulers_in_module_fit(mx, tmp):
    """MultiFactor/Poly/Cosine/Factor schedulers with warmup, driven by Module.fit's num_update."""
    res = {}
    for sched in sorted(_SCHEDULERS):
        res.update(_fit_with_scheduler(mx, sched, "sgd"))
        res[sched + "_values"] = [_SCHEDULERS[sched](mx)(i) for i in range(12)]
    return res


@case
def optimizers_under_cosine_schedule(mx, tmp):
    """Each optimizer class through Module.fit with a cosine schedule reaching lr = 0 at its last update
    (FTML and FTRL divide by lr: MXNet's weights become nan there)."""
    res = {}
    for optimizer in ("adam", "nag", "rmsprop", "adagrad", "adadelta", "ftrl", "signum", "lamb", "ftml", "lars",
                      "dcasgd", "nadam"):
        res.update(_fit_with_scheduler(mx, "cosine", optimizer))
    return res


# ----------------------------------------------------------------------------- RNN, control flow
@case
def bucketing_lstm_language_model(mx, tmp):
    """example/rnn/bucketing: BucketSentenceIter, a stacked mx.rnn.LSTMCell unrolled per bucket,
    BucketingModule switching buckets, Perplexity, save/load_rnn_checkpoint."""
    random.seed(0)
    np.random.seed(0)
    rng = np.random.RandomState(0)
    sentences = [list(rng.randint(1, 10, rng.randint(2, 9))) for _ in range(30)]
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=4, buckets=[4, 8], invalid_label=0)
    res = {"iter": "%s %s %s %d" % (it.default_bucket_key, it.provide_data, it.provide_label, len(it.idx))}
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=6, prefix="lstm_l%d_" % i))

    def sym_gen(seq_len):
        data, label = mx.sym.Variable("data"), mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=10, output_dim=5, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(data=mx.sym.Reshape(outputs, shape=(-1, 6)), num_hidden=10, name="pred")
        pred = mx.sym.SoftmaxOutput(data=pred, label=mx.sym.Reshape(label, shape=(-1,)), name="softmax",
                                    use_ignore=True, ignore_label=0)
        return pred, ("data",), ("softmax_label",)
    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=it.default_bucket_key, context=mx.cpu())
    model.bind(it.provide_data, it.provide_label)
    sym, _, _ = sym_gen(8)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(4, 8), softmax_label=(4, 8))[0]))
    r = np.random.RandomState(5)
    model.init_params(arg_params={k: mx.nd.array(r.randn(*v) * 0.2) for k, v in sorted(shapes.items())
                                  if k not in ("data", "softmax_label")})
    model.init_optimizer(optimizer="adam", optimizer_params={"learning_rate": 0.01, "wd": 1e-5})
    metric = mx.metric.Perplexity(0)
    batches = []
    for bucket, key in enumerate([4, 8]):
        d = it.data[bucket][:4]
        lab = np.zeros_like(d)
        lab[:, :-1] = d[:, 1:]
        batches.append(mx.io.DataBatch([mx.nd.array(d)], [mx.nd.array(lab)], bucket_key=key,
                                       provide_data=[mx.io.DataDesc("data", d.shape)],
                                       provide_label=[mx.io.DataDesc("softmax_label", d.shape)]))
    for batch in batches * 2:
        model.forward(batch, is_train=True)
        model.backward()
        model.update()
        model.update_metric(metric, batch.label)
    res["perplexity"] = metric.get()[1]
    arg, _ = model.get_params()
    res.update({"param_" + k: v for k, v in arg.items()})
    model.forward(batches[0], is_train=False)
    res["out_bucket4"] = model.get_outputs()[0]
    prefix = os.path.join(tmp, "rnn")
    mx.rnn.save_rnn_checkpoint(stack, prefix, 1, sym, arg, {})
    _, loaded, _ = mx.rnn.load_rnn_checkpoint(stack, prefix, 1)
    res["checkpoint_names"] = " ".join(sorted(loaded))
    res["file_names"] = " ".join(sorted(mx.nd.load(prefix + "-0001.params")))
    x = mx.sym.var("x")
    bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(3, prefix="l_"), mx.rnn.RNNCell(3, prefix="r_"))
    ex = bi.unroll(4, inputs=x, merge_outputs=True)[0].simple_bind(mx.cpu(), x=(2, 4, 5))
    for k in sorted(ex.arg_dict):
        ex.arg_dict[k][:] = mx.nd.array(r.randn(*ex.arg_dict[k].shape) * 0.3)
    res["bidirectional"] = ex.forward()[0]
    fused = mx.rnn.FusedRNNCell(4, num_layers=2, mode="lstm", prefix="f_")
    res["unfused_args"] = " ".join(fused.unfuse().unroll(2, inputs=x, merge_outputs=True)[0].list_arguments())
    return res


@case
def control_flow_in_module(mx, tmp):
    """sym.contrib.foreach as a recurrent step inside a trained Module, while_loop and cond executors."""
    r = np.random.RandomState(0)
    data, h0, w = mx.sym.var("data"), mx.sym.var("h0"), mx.sym.var("w")

    def step(x, states):
        h = mx.sym.tanh(mx.sym.FullyConnected(mx.sym.concat(x, states[0], dim=1), weight=w, no_bias=True,
                                              num_hidden=4))
        return h, [h]
    _, last = mx.sym.contrib.foreach(step, data, [h0])
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(last[0], num_hidden=2, name="out"), name="lro")
    res = {"foreach_args": " ".join(net.list_arguments())}
    mod = mx.mod.Module(net, data_names=["data", "h0"], label_names=["lro_label"])
    try:
        mod.bind(data_shapes=[("data", (3, 2, 5)), ("h0", (2, 4))], label_shapes=[("lro_label", (2, 2))])
    except AssertionError as e:  # batch axis 0 of 'data' is its time axis: the layout must say so
        res["bind_error"] = _error(e)
    mod = mx.mod.Module(net, data_names=["data", "h0"], label_names=["lro_label"])
    mod.bind(data_shapes=[mx.io.DataDesc("data", (3, 2, 5), layout="TNC"), ("h0", (2, 4))],
             label_shapes=[("lro_label", (2, 2))])
    shapes = dict(zip(net.list_arguments(), net.infer_shape(data=(3, 2, 5), h0=(2, 4), lro_label=(2, 2))[0]))
    mod.init_params(arg_params={k: mx.nd.array(r.randn(*shapes[k]) * 0.3) for k in ["w", "out_weight", "out_bias"]})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    batch = mx.io.DataBatch([mx.nd.array(r.randn(3, 2, 5)), mx.nd.zeros((2, 4))], [mx.nd.array(r.randn(2, 2))])
    for _ in range(3):
        mod.forward_backward(batch)
        mod.update()
    mod.forward(batch, is_train=False)
    res["foreach_out"] = mod.get_outputs()[0]
    res["foreach_w"] = mod.get_params()[0]["w"]
    i, s = mx.sym.var("i"), mx.sym.var("s")
    outs, states = mx.sym.contrib.while_loop(lambda i, s: i < 5, lambda i, s: ([i + s], [i + 1, s + i]), [i, s],
                                             max_iterations=7)
    ex = mx.sym.Group(outs + states).bind(mx.cpu(), {"i": mx.nd.array([1]), "s": mx.nd.array([2])})
    for k, o in enumerate(ex.forward()):  # the stacked outputs past the 4 steps run are not written
        res["while_%d" % k] = o[:4] if k == 0 else o
    x, wt = mx.sym.var("data"), mx.sym.var("wt")
    y = mx.sym.contrib.cond(mx.sym.sum(x) > 0, lambda: x * wt, lambda: x - wt)
    ex = mx.sym.MakeLoss(mx.sym.sum(y * y)).bind(
        mx.cpu(), {"data": mx.nd.array([[1., 2.]]), "wt": mx.nd.array([[0.5, -1.]])},
        args_grad={"data": mx.nd.zeros((1, 2)), "wt": mx.nd.zeros((1, 2))})
    for k, value in enumerate(([[1., 2.]], [[-3., 1.]])):
        ex.arg_dict["data"][:] = mx.nd.array(value)
        ex.forward(is_train=True)
        ex.backward()
        res["cond_out%d" % k], res["cond_grad%d" % k] = ex.outputs[0].copy(), ex.grad_dict["wt"].copy()
    return res
