"""Record MXNet 1.9.1's answers for normalisation, softmax and loss/output operators
beyond the shared fixtures.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_norm.py

Writes to ``tests/fixtures/extra/norm/``:

* ``<case>.npz`` for each operator case: the operator (``op``), its attributes as a JSON
  string (``attrs``), the input names in order (``inputs``) and the auxiliary ones
  (``aux``); the inputs (``in:<name>``); the outputs in predict mode (``out:<i>``); the
  outputs of a recorded train-mode pass (``trainout:<i>``, absent when random), the head
  gradients (``head:<i>``), the gradients (``grad:<name>``) and the auxiliary states
  after that pass (``auxafter:<name>``);
* ``infer.json``: the argument and auxiliary shapes ``Symbol.infer_shape`` gives from the
  data shape alone, and ``list_outputs``, for a grid of configurations.
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "norm")


def _nd(v):
    return mx.nd.array(v, dtype=v.dtype)


def _op(namespace, op):
    """``mx.nd.<op>`` / ``mx.sym.<op>``, looking ``_contrib_X`` up as ``contrib.X``."""
    if op.startswith("_contrib_"):
        return getattr(namespace.contrib, op[len("_contrib_"):])
    return getattr(namespace, op)


def _as_list(out):
    return out if isinstance(out, (list, tuple)) else [out]


def op_case(name, op, attrs, inputs, aux=(), grads=(), random_train=False, train=True, head_seed=0):
    """Run ``mx.nd.<op>`` on the given inputs (an ordered dict name -> numpy array, the
    auxiliary states last) in predict mode, then (unless ``train`` is false) recorded in
    train mode with a backward pass; save everything under ``name``."""
    fn = _op(mx.nd, op)
    rec = {"op": op, "attrs": json.dumps(attrs), "inputs": json.dumps(list(inputs)), "aux": json.dumps(list(aux))}
    rec.update({"in:" + k: v for k, v in inputs.items()})
    outs = _as_list(fn(*[_nd(v) for v in inputs.values()], **attrs))
    rec.update({"out:%d" % i: o.asnumpy() for i, o in enumerate(outs)})
    if train:
        _train_pass(rec, fn, attrs, inputs, aux, grads, random_train, head_seed)
    np.savez(os.path.join(OUT, name + ".npz"), **rec)


def _train_pass(rec, fn, attrs, inputs, aux, grads, random_train, head_seed):
    arrays = {k: _nd(v) for k, v in inputs.items()}
    for g in grads:
        arrays[g].attach_grad()
    with mx.autograd.record(train_mode=True):
        outs = _as_list(fn(*arrays.values(), **attrs))
    rng = np.random.RandomState(head_seed)
    heads = [rng.uniform(-1, 1, o.shape).astype(o.dtype) for o in outs]
    if not random_train:
        rec.update({"trainout:%d" % i: o.asnumpy() for i, o in enumerate(outs)})
    if grads:
        mx.autograd.backward(outs, [_nd(h) for h in heads])
        rec.update({"head:%d" % i: h for i, h in enumerate(heads)})
        rec.update({"grad:" + g: arrays[g].grad.asnumpy() for g in grads})
    rec.update({"auxafter:" + a: arrays[a].asnumpy() for a in aux})


def rand(seed, *shape, low=-1.0, high=1.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def bn_inputs(seed, shape, axis=1, dtype=np.float32):
    c = shape[axis]
    return dict(data=rand(seed, *shape, low=-2, high=3, dtype=dtype),
                gamma=rand(seed + 1, c, low=0.5, high=2, dtype=dtype), beta=rand(seed + 2, c, dtype=dtype),
                moving_mean=rand(seed + 3, c, dtype=dtype), moving_var=rand(seed + 4, c, low=0.5, high=2, dtype=dtype))


def norm_cases():
    aux = ("moving_mean", "moving_var")
    args = ("data", "gamma", "beta")
    op_case("bn_output_mean_var", "BatchNorm", dict(fix_gamma=False, output_mean_var=True, momentum=0.7),
            bn_inputs(1, (4, 3, 2, 2)), aux, args)
    op_case("bn_global_stats", "BatchNorm", dict(fix_gamma=False, use_global_stats=True, output_mean_var=True),
            bn_inputs(2, (3, 4, 5)), aux, args)
    op_case("bn_axis_last", "BatchNorm", dict(fix_gamma=False, axis=-1, eps=1e-4), bn_inputs(3, (5, 2, 3), axis=-1),
            aux, args)
    op_case("bn_axis2", "BatchNorm", dict(axis=2, momentum=0.5), bn_inputs(4, (2, 3, 4, 2), axis=2), aux, args)
    op_case("bn_2d", "BatchNorm", dict(fix_gamma=False), bn_inputs(5, (6, 3)), aux, args)
    op_case("bn_float64", "BatchNorm", dict(fix_gamma=False, output_mean_var=True),
            bn_inputs(6, (4, 2, 3), dtype=np.float64), aux, args)
    op_case("sync_bn", "_contrib_SyncBatchNorm", dict(fix_gamma=False, key="k", output_mean_var=True),
            bn_inputs(7, (4, 3, 2)), aux, args)
    op_case("layernorm_omv_axis1", "LayerNorm", dict(axis=1, output_mean_var=True),
            dict(data=rand(10, 2, 4, 3, low=-2, high=2), gamma=rand(11, 4), beta=rand(12, 4)), (), args)
    op_case("layernorm_axis0", "LayerNorm", dict(axis=0, eps=1e-3),
            dict(data=rand(13, 3, 5), gamma=rand(14, 3), beta=rand(15, 3)), (), args)
    op_case("groupnorm_omv", "GroupNorm", dict(num_groups=3, output_mean_var=True, eps=1e-3),
            dict(data=rand(16, 2, 6, 4, low=-2, high=3), gamma=rand(17, 3), beta=rand(18, 3)), (), args)
    op_case("groupnorm_one_group", "GroupNorm", dict(),
            dict(data=rand(19, 3, 4, 2, 2), gamma=rand(20, 1), beta=rand(21, 1)), (), args)
    op_case("instancenorm_3d", "InstanceNorm", dict(eps=1e-5),
            dict(data=rand(22, 2, 3, 7, low=-3, high=1), gamma=rand(23, 3), beta=rand(24, 3)), (), args)


def activation_cases():
    x = rand(30, 3, 4, 5, low=-3, high=3)
    # MXNet 1.9.1's imperative rrelu crashes in train mode: predict mode only
    op_case("rrelu", "LeakyReLU", dict(act_type="rrelu", lower_bound=0.2, upper_bound=0.4), dict(data=x),
            train=False)
    op_case("prelu_scalar_gamma", "LeakyReLU", dict(act_type="prelu"),
            dict(data=x, gamma=np.array([0.3], np.float32)), (), ("data", "gamma"))
    op_case("elu_default_slope", "LeakyReLU", dict(act_type="elu"), dict(data=x), (), ("data",))
    op_case("leaky_default", "LeakyReLU", dict(), dict(data=x), (), ("data",))
    op_case("gelu_4d", "LeakyReLU", dict(act_type="gelu"), dict(data=rand(31, 2, 2, 2, 2, low=-4, high=4)),
            (), ("data",))
    op_case("softrelu_large", "Activation", dict(act_type="softrelu"),
            dict(data=np.array([-30, -5, 0, 5, 19, 21, 40], np.float32)), (), ("data",))


def softmax_cases():
    x = rand(40, 3, 4, 5, low=-3, high=3)
    op_case("softmax_temp_float64", "softmax", dict(axis=1, temperature=0.5, dtype="float64"), dict(data=x),
            (), ("data",))
    op_case("softmax_float16_to_float32", "softmax", dict(dtype="float32"),
            dict(data=rand(41, 2, 6, dtype=np.float16)), (), ("data",))
    op_case("softmax_length_axis1", "softmax", dict(axis=1, use_length=True),
            dict(data=x, length=np.array([[1, 4, 2, 3, 4], [2, 2, 4, 1, 3], [4, 3, 1, 2, 2]], np.int32)),
            (), ("data",))
    op_case("softmax_length_int64", "softmax", dict(use_length=True, temperature=2.0),
            dict(data=x[0], length=np.array([5, 1, 3, 0], np.int64)), (), ("data",))
    op_case("log_softmax_temp", "log_softmax", dict(axis=0, temperature=3.0), dict(data=x), (), ("data",))
    op_case("softmin_axis1_float64", "softmin", dict(axis=1, dtype="float64"), dict(data=x), (), ("data",))
    op_case("softmax_activation_channel", "SoftmaxActivation", dict(mode="channel"),
            dict(data=rand(42, 2, 3, 2, 2, low=-2, high=2)), (), ("data",))
    op_case("softmax_activation_instance_4d", "SoftmaxActivation", dict(),
            dict(data=rand(43, 2, 3, 2, 2, low=-2, high=2)), (), ("data",))
    op_case("softmax_cross_entropy", "softmax_cross_entropy", dict(),
            dict(data=rand(44, 4, 5, low=-3, high=3), label=np.array([0, 4, 2, 2], np.float32)), (), ("data",))


def output_cases():
    x = rand(50, 5, 4, low=-2, high=2)
    lab = np.array([1, 0, -1, 3, -1], np.float32)
    both = ("data", "label")
    op_case("so_ignore_valid", "SoftmaxOutput", dict(use_ignore=True, normalization="valid", grad_scale=2.0),
            dict(data=x, label=lab), (), both)
    op_case("so_valid_without_ignore", "SoftmaxOutput", dict(normalization="valid"), dict(data=x, label=lab), (), both)
    op_case("so_batch_ignore_label", "SoftmaxOutput", dict(normalization="batch", use_ignore=True, ignore_label=3),
            dict(data=x, label=lab), (), both)
    op_case("so_smooth", "SoftmaxOutput", dict(smooth_alpha=0.2), dict(data=x, label=np.abs(lab)), (), both)
    op_case("so_out_grad", "SoftmaxOutput", dict(out_grad=True), dict(data=x, label=np.abs(lab)), (), both)
    op_case("so_prob_label", "SoftmaxOutput", dict(grad_scale=0.5),
            dict(data=x, label=np.eye(4, dtype=np.float32)[[1, 0, 2, 3, 3]] * 0.5 + 0.125), (), both)
    x4 = rand(51, 2, 3, 2, 2, low=-2, high=2)
    op_case("so_multi_output_valid", "SoftmaxOutput", dict(multi_output=True, use_ignore=True, normalization="valid"),
            dict(data=x4, label=np.array([[0, 2, -1, 1], [1, 1, 0, -1]], np.float32)), (), both)
    op_case("so_multi_output_batch_3d_label", "SoftmaxOutput", dict(multi_output=True, normalization="batch"),
            dict(data=x4, label=np.array([[[0, 2], [2, 1]], [[1, 1], [0, 0]]], np.float32)), (), both)
    op_case("so_preserve_shape", "SoftmaxOutput", dict(preserve_shape=True),
            dict(data=x4[:, :, :, 0], label=np.array([[0, 1, 1], [1, 0, 1]], np.float32)), (), both)
    op_case("so_flatten_3d", "SoftmaxOutput", dict(),
            dict(data=x4[:, :, :, 0], label=np.array([[5, 1, 1], [2, 0, 1]], np.float32)), (), both)
    y = rand(52, 2, 3, 2)
    for op in ("LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"):
        op_case(op + "_scaled", op, dict(grad_scale=3.0), dict(data=rand(53, 2, 3, 2), label=y), (), both)
    op_case("linreg_flat_label", "LinearRegressionOutput", dict(), dict(data=rand(54, 2, 6), label=y), (), both)
    for norm in ("null", "batch", "valid"):
        op_case("makeloss_" + norm, "MakeLoss", dict(normalization=norm, grad_scale=2.5, valid_thresh=0.2),
                dict(data=x), (), ("data",))
    svm_label = np.array([1, 0, 3, 2, 2], np.float32)
    op_case("svm_l2", "SVMOutput", dict(margin=0.5, regularization_coefficient=2.0),
            dict(data=x, label=svm_label), (), both)
    op_case("svm_l1", "SVMOutput", dict(use_linear=True, margin=1.5), dict(data=x, label=svm_label), (), both)


def ctc_cases():
    data = rand(60, 6, 3, 5, low=-2, high=2)
    first = np.array([[1, 2, 0, 0], [3, 3, 4, 0], [2, 4, 1, 3]], np.float32)
    last = np.array([[0, 1, -1, -1], [2, 2, 3, -1], [1, 3, 0, 2]], np.float32)
    op_case("ctc_first", "CTCLoss", dict(), dict(data=data, label=first), (), ("data",))
    op_case("ctc_last", "CTCLoss", dict(blank_label="last"), dict(data=data, label=last), (), ("data",))
    op_case("ctc_lengths", "CTCLoss", dict(use_data_lengths=True, use_label_lengths=True),
            dict(data=data, label=first, data_lengths=np.array([6, 4, 5], np.float32),
                 label_lengths=np.array([2, 1, 3], np.float32)), (), ("data",))
    op_case("ctc_label_lengths_only", "ctc_loss", dict(use_label_lengths=True, blank_label="last"),
            dict(data=data, label=last, label_lengths=np.array([1, 3, 2], np.float32)), (), ("data",))
    op_case("ctc_data_lengths_only", "_contrib_CTCLoss", dict(use_data_lengths=True),
            dict(data=data, label=first, data_lengths=np.array([5, 6, 6], np.float32)), (), ("data",))


# ----------------------------------------------------------------------------- shape inference
INFER = [
    ("BatchNorm", dict(), (4, 3, 5, 5)),
    ("BatchNorm", dict(axis=-1, output_mean_var=True), (4, 3, 7)),
    ("_contrib_SyncBatchNorm", dict(key="a"), (2, 5, 3)),
    ("LayerNorm", dict(), (2, 3, 4)),
    ("LayerNorm", dict(axis=1, output_mean_var=True), (2, 3, 4)),
    ("GroupNorm", dict(num_groups=4, output_mean_var=True), (2, 8, 3)),
    ("InstanceNorm", dict(), (2, 3, 4, 4)),
    ("LeakyReLU", dict(act_type="prelu"), (2, 6, 4)),
    ("LeakyReLU", dict(act_type="rrelu"), (2, 6)),
    ("Dropout", dict(), (2, 6)),
    ("SoftmaxOutput", dict(), (4, 3, 5)),
    ("SoftmaxOutput", dict(multi_output=True), (4, 3, 5, 2)),
    ("LinearRegressionOutput", dict(), (4, 3)),
    ("SVMOutput", dict(), (4, 3)),
    ("softmax", dict(use_length=True), (4, 3)),
    ("make_loss", dict(), (4, 3)),
]


def infer_cases():
    rows = []
    for op, attrs, shape in INFER:
        sym = _op(mx.sym, op)(mx.sym.var("data"), name="x", **attrs)
        arg_shapes, _, aux_shapes = sym.infer_shape_partial(data=shape)
        rows.append(dict(op=op, attrs=attrs, data=shape,
                         args=[[n, list(s) if s else None] for n, s in zip(sym.list_arguments(), arg_shapes)],
                         aux=[[n, list(s)] for n, s in zip(sym.list_auxiliary_states(), aux_shapes)],
                         outputs=sym.list_outputs()))
    with open(os.path.join(OUT, "infer.json"), "w") as f:
        json.dump(rows, f, indent=1)


def main():
    os.makedirs(OUT, exist_ok=True)
    mx.random.seed(0)
    norm_cases()
    activation_cases()
    softmax_cases()
    output_cases()
    ctc_cases()
    infer_cases()


if __name__ == "__main__":
    main()
