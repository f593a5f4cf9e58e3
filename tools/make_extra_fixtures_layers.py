"""Record MXNet 1.9.1's answers for the Gluon layers (gluon.nn, gluon.contrib.nn) and
losses (gluon.loss).

Run with the reference interpreter (never imported by neogluon or its tests)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_layers.py

Each case builds one block from a JSON-able spec (class path, positional and keyword
arguments, children for containers) inside a fresh ``mx.name.NameManager``, initialises
it, runs it once to finish deferred initialisation, then overwrites every parameter with
seeded random values. It records, in ``tests/fixtures/extra/layers/<case>.npz``:

- ``in<i>``: the inputs; ``param<j>``: the parameter values set (in collect_params order);
- ``predict``: the output outside ``autograd.record``;
- ``train``: the output under ``autograd.record()`` (train mode), ``head``: the head
  gradient given to ``backward``, ``grad_in<i>`` / ``grad_param<j>``: the gradients of
  the inputs listed in ``grad`` and of the parameters whose grad_req is not 'null';
- ``after_param<j>``: every parameter after the training pass (BatchNorm's running
  statistics move).

``cases.json`` holds each case's spec, input names, the parameter names, shapes and
grad_reqs (before and after initialisation), the reprs before and after initialisation,
``graph``: the [op, name] nodes of the Symbol the block builds when called on
``mx.sym.var`` inputs, and the flags ``predict_only`` (only the prediction is recorded:
random layers, and what MXNet cannot differentiate) and ``hybridizable`` (False where
MXNet itself cannot hybridize the block).
``tests/test_nn_layers.py`` and ``tests/test_loss.py`` replay them, imperatively and
hybridized.
"""
import json
import os
import shutil
import zlib

import numpy as np
import mxnet as mx
from mxnet import autograd, gluon

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "extra", "layers")
RNG = np.random.RandomState(20240)
CASES = {}
ARRAYS = {}


# ----------------------------------------------------------------------------- inputs
def uni(*shape, lo=-2.0, hi=2.0, dtype="float32"):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def ints(high, *shape):
    return RNG.randint(0, high, size=shape).astype("float32")


def const(values, dtype="float32"):
    return np.array(values, dtype=dtype)


def block(cls, *args, children=(), **kwargs):
    """A JSON-able description of a block: ``cls`` is 'nn.Dense', 'loss.L2Loss', ..."""
    return dict(cls=cls, args=list(args), kwargs=kwargs, children=list(children))


def case(name, spec, inputs, grad=(), predict_only=False, hybridizable=True):
    """``inputs``: ordered (name, array or None) pairs, passed positionally."""
    CASES[name] = dict(spec=spec, inputs=[n for n, _ in inputs], grad=list(grad),
                       predict_only=predict_only, hybridizable=hybridizable,
                       none_inputs=[n for n, a in inputs if a is None])
    ARRAYS[name] = {n: a for n, a in inputs if a is not None}


# ----------------------------------------------------------------------------- gluon.nn
X2 = uni(3, 4)
X3 = uni(2, 3, 5)
X4 = uni(2, 3, 4, 5)
X5 = uni(1, 2, 3, 4, 4)

case("Dense", block("nn.Dense", 5), [("x", X2)], grad=["x"])
case("Dense_relu_nobias_in_units", block("nn.Dense", 5, activation="relu", use_bias=False,
                                         in_units=4), [("x", X2)], grad=["x"])
case("Dense_no_flatten", block("nn.Dense", 3, flatten=False, activation="tanh"),
     [("x", X3)], grad=["x"])
case("Dense_flatten_3d", block("nn.Dense", 4), [("x", X3)], grad=["x"])
case("Dense_float64", block("nn.Dense", 3, dtype="float64"),
     [("x", uni(3, 4, dtype="float64"))], grad=["x"])
case("Dropout_predict", block("nn.Dropout", 0.5, axes=(1,)), [("x", X3)], predict_only=True)
case("Dropout_zero", block("nn.Dropout", 0.0), [("x", X3)], grad=["x"])

case("BatchNorm", block("nn.BatchNorm"), [("x", X4)], grad=["x"])
case("BatchNorm_axis_last_noscale", block("nn.BatchNorm", axis=-1, scale=False, momentum=0.5),
     [("x", X3)], grad=["x"])
case("BatchNorm_global_stats", block("nn.BatchNorm", use_global_stats=True, in_channels=3),
     [("x", X4)], grad=["x"])
case("BatchNorm_nocenter_eps", block("nn.BatchNorm", center=False, epsilon=1e-2,
                                     in_channels=3), [("x", X3)], grad=["x"])
case("BatchNormReLU", block("nn.BatchNormReLU"), [("x", X4)], grad=["x"])
case("SyncBatchNorm", block("contrib.nn.SyncBatchNorm", num_devices=1), [("x", X4)],
     grad=["x"])
case("InstanceNorm", block("nn.InstanceNorm"), [("x", X3)], grad=["x"])
case("InstanceNorm_axis2_scale", block("nn.InstanceNorm", axis=2, scale=True, in_channels=5),
     [("x", X3)], grad=["x"])
case("LayerNorm", block("nn.LayerNorm"), [("x", X3)], grad=["x"])
case("LayerNorm_axis1_nocenter", block("nn.LayerNorm", axis=1, center=False, epsilon=1e-3),
     [("x", X3)], grad=["x"])
case("GroupNorm", block("nn.GroupNorm", num_groups=2), [("x", uni(2, 4, 3, 2))], grad=["x"])
case("Embedding", block("nn.Embedding", 10, 4), [("x", ints(10, 2, 3))])
case("Embedding_float64", block("nn.Embedding", 6, 3, dtype="float64"), [("x", ints(6, 4))])
case("Flatten", block("nn.Flatten"), [("x", X4)], grad=["x"])
case("Lambda_tanh", block("nn.Lambda", "tanh"), [("x", X3)], grad=["x"])
case("HybridLambda_relu", block("nn.HybridLambda", "relu"), [("x", X3)], grad=["x"])

for act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    case("Activation_" + act, block("nn.Activation", act), [("x", X3)], grad=["x"])
case("LeakyReLU", block("nn.LeakyReLU", 0.1), [("x", X3)], grad=["x"])
case("PReLU", block("nn.PReLU"), [("x", X3)], grad=["x"])
case("PReLU_channels", block("nn.PReLU", in_channels=3), [("x", X3)], grad=["x"])
case("ELU", block("nn.ELU", alpha=0.5), [("x", X3)], grad=["x"])
case("SELU", block("nn.SELU"), [("x", X3)], grad=["x"])
case("Swish", block("nn.Swish", beta=2.0), [("x", X3)], grad=["x"])
case("GELU", block("nn.GELU"), [("x", X3)], grad=["x"])

case("Conv1D", block("nn.Conv1D", 4, 3), [("x", uni(2, 3, 8))], grad=["x"])
case("Conv1D_strided", block("nn.Conv1D", 4, 3, strides=2, padding=1, dilation=2,
                             use_bias=False, in_channels=3), [("x", uni(2, 3, 9))], grad=["x"])
case("Conv2D", block("nn.Conv2D", 4, (3, 2), strides=(2, 1), padding=(1, 0),
                     activation="relu"), [("x", X4)], grad=["x"])
case("Conv2D_groups", block("nn.Conv2D", 4, 3, groups=2, padding=1), [("x", uni(2, 4, 5, 5))],
     grad=["x"])
case("Conv3D", block("nn.Conv3D", 3, 2, strides=(1, 2, 2)), [("x", X5)], grad=["x"])
case("Conv1DTranspose", block("nn.Conv1DTranspose", 3, 3, strides=2, output_padding=1),
     [("x", uni(2, 2, 5))], grad=["x"])
case("Conv2DTranspose", block("nn.Conv2DTranspose", 3, (3, 2), strides=2, padding=1,
                              output_padding=(1, 0)), [("x", X4)], grad=["x"])
case("Conv2DTranspose_groups", block("nn.Conv2DTranspose", 4, 3, groups=2, use_bias=False,
                                     in_channels=4), [("x", uni(2, 4, 3, 3))], grad=["x"])
case("Conv3DTranspose", block("nn.Conv3DTranspose", 2, 2, strides=2, activation="sigmoid"),
     [("x", X5)], grad=["x"])

case("MaxPool1D", block("nn.MaxPool1D"), [("x", uni(2, 3, 7))], grad=["x"])
case("MaxPool2D_ceil", block("nn.MaxPool2D", 3, 2, padding=1, ceil_mode=True),
     [("x", uni(2, 3, 6, 7))], grad=["x"])
case("MaxPool2D_NHWC", block("nn.MaxPool2D", layout="NHWC"), [("x", uni(2, 4, 6, 3))],
     grad=["x"])
case("MaxPool3D", block("nn.MaxPool3D", 2, 1), [("x", X5)], grad=["x"])
case("AvgPool1D_nopad_count", block("nn.AvgPool1D", 3, padding=1, count_include_pad=False),
     [("x", uni(2, 3, 7))], grad=["x"])
case("AvgPool2D", block("nn.AvgPool2D"), [("x", X4)], grad=["x"])
case("AvgPool2D_ceil", block("nn.AvgPool2D", 3, 2, 1, ceil_mode=True, count_include_pad=False),
     [("x", uni(2, 3, 6, 7))], grad=["x"])
case("AvgPool3D", block("nn.AvgPool3D"), [("x", X5)], grad=["x"])
for kind in ("Max", "Avg"):
    case("Global%sPool1D" % kind, block("nn.Global%sPool1D" % kind), [("x", X3)], grad=["x"])
    case("Global%sPool2D" % kind, block("nn.Global%sPool2D" % kind), [("x", X4)], grad=["x"])
    case("Global%sPool3D" % kind, block("nn.Global%sPool3D" % kind), [("x", X5)], grad=["x"])
case("GlobalAvgPool2D_NHWC", block("nn.GlobalAvgPool2D", layout="NHWC"), [("x", X4)],
     grad=["x"])
case("ReflectionPad2D", block("nn.ReflectionPad2D", 2), [("x", X4)], grad=["x"])

MLP = [block("nn.Dense", 6, activation="relu"), block("nn.Dropout", 0.0),
       block("nn.Dense", 3)]
case("HybridSequential", block("nn.HybridSequential", children=MLP), [("x", X2)], grad=["x"])
case("Sequential", block("nn.Sequential", children=MLP), [("x", X2)], grad=["x"])
case("HybridSequential_conv", block("nn.HybridSequential", children=[
    block("nn.Conv2D", 4, 3, padding=1), block("nn.BatchNorm"), block("nn.Activation", "relu"),
    block("nn.MaxPool2D"), block("nn.Flatten"), block("nn.Dense", 2)]),
    [("x", X4)], grad=["x"])
case("HybridConcurrent", block("contrib.nn.HybridConcurrent", axis=1, children=[
    block("nn.Dense", 3), block("nn.Dense", 2, activation="relu"), block("contrib.nn.Identity")]),
    [("x", X2)], grad=["x"])
case("Concurrent", block("contrib.nn.Concurrent", children=[
    block("nn.Dense", 2), block("contrib.nn.Identity")]), [("x", X2)], grad=["x"])
case("PixelShuffle1D", block("contrib.nn.PixelShuffle1D", 2), [("x", uni(1, 4, 3))],
     grad=["x"])
case("PixelShuffle2D", block("contrib.nn.PixelShuffle2D", (2, 3)), [("x", uni(1, 12, 2, 2))],
     grad=["x"])
case("PixelShuffle3D", block("contrib.nn.PixelShuffle3D", 2), [("x", uni(1, 16, 2, 3, 1))],
     grad=["x"])

# ----------------------------------------------------------------------------- gluon.loss
P = uni(3, 4)
L = uni(3, 4)
SW = uni(3, 1, lo=0.0, hi=1.0)
B01 = RNG.randint(0, 2, size=(3, 4)).astype("float32")
SIGNED = B01 * 2 - 1
PROB = uni(3, 4, lo=0.05, hi=0.95)
case("L2Loss", block("loss.L2Loss"), [("pred", P), ("label", L)], grad=["pred", "label"])
case("L2Loss_weighted", block("loss.L2Loss", weight=2.0),
     [("pred", uni(3, 1)), ("label", uni(3)), ("sample_weight", uni(3, 1, lo=0, hi=1))],
     grad=["pred"])
case("L1Loss", block("loss.L1Loss"), [("pred", P), ("label", L), ("sample_weight", SW)],
     grad=["pred"])
case("L1Loss_batch_axis1", block("loss.L1Loss", batch_axis=1),
     [("pred", uni(3, 4, 2)), ("label", uni(3, 4, 2))], grad=["pred"])
case("SigmoidBCELoss", block("loss.SigmoidBCELoss"), [("pred", P), ("label", B01)],
     grad=["pred"])
case("SigmoidBCELoss_from_sigmoid", block("loss.SigmoidBinaryCrossEntropyLoss",
                                          from_sigmoid=True, weight=0.5),
     [("pred", PROB), ("label", B01), ("sample_weight", SW)], grad=["pred"])
case("SigmoidBCELoss_pos_weight", block("loss.SigmoidBCELoss"),
     [("pred", P), ("label", B01), ("sample_weight", None),
      ("pos_weight", uni(4, lo=0.5, hi=3))], grad=["pred"])
case("SigmoidBCELoss_from_sigmoid_pos_weight", block("loss.SigmoidBCELoss", from_sigmoid=True),
     [("pred", PROB), ("label", B01), ("sample_weight", SW),
      ("pos_weight", uni(4, lo=0.5, hi=3))], grad=["pred"])
case("SoftmaxCELoss", block("loss.SoftmaxCELoss"), [("pred", uni(3, 5)), ("label", ints(5, 3))],
     grad=["pred"])
case("SoftmaxCELoss_dense_label", block("loss.SoftmaxCrossEntropyLoss", sparse_label=False),
     [("pred", uni(3, 5)), ("label", uni(3, 5, lo=0, hi=1))], grad=["pred", "label"])
case("SoftmaxCELoss_from_logits_weighted", block("loss.SoftmaxCELoss", from_logits=True,
                                                 weight=0.5),
     [("pred", uni(3, 5, lo=-3, hi=-0.1)), ("label", ints(5, 3)), ("sample_weight", SW)],
     grad=["pred"])
case("SoftmaxCELoss_axis1", block("loss.SoftmaxCELoss", axis=1),
     [("pred", uni(2, 4, 3)), ("label", ints(4, 2, 3))], grad=["pred"])
case("KLDivLoss", block("loss.KLDivLoss"),
     [("pred", np.log(PROB)), ("label", uni(3, 4, lo=0.0, hi=1.0))], grad=["pred", "label"])
case("KLDivLoss_not_from_logits", block("loss.KLDivLoss", from_logits=False),
     [("pred", P), ("label", uni(3, 4, lo=0.0, hi=1.0)), ("sample_weight", SW)], grad=["pred"])
case("HuberLoss", block("loss.HuberLoss", rho=0.5), [("pred", P), ("label", L)],
     grad=["pred", "label"])
case("HingeLoss", block("loss.HingeLoss", margin=2), [("pred", P), ("label", SIGNED)],
     grad=["pred"])
case("SquaredHingeLoss", block("loss.SquaredHingeLoss"),
     [("pred", P), ("label", SIGNED), ("sample_weight", SW)], grad=["pred"])
case("LogisticLoss", block("loss.LogisticLoss"), [("pred", P), ("label", SIGNED)], grad=["pred"])
case("LogisticLoss_binary", block("loss.LogisticLoss", label_format="binary"),
     [("pred", P), ("label", B01)], grad=["pred"])
case("TripletLoss", block("loss.TripletLoss", margin=0.5),
     [("pred", uni(3, 2, 2)), ("positive", uni(3, 2, 2)), ("negative", uni(3, 2, 2))],
     grad=["pred", "positive", "negative"])
case("CTCLoss", block("loss.CTCLoss"),
     [("pred", uni(2, 6, 4)), ("label", const([[0, 1, 1], [2, -1, -1]]))], grad=["pred"])
case("CTCLoss_TNC_lengths", block("loss.CTCLoss", layout="TNC", label_layout="TN", weight=2.0),
     [("pred", uni(6, 2, 4)), ("label", const([[1, 0], [2, 2], [0, -1]])),
      ("pred_lengths", const([6, 5])), ("label_lengths", const([3, 2])),
      ("sample_weight", const([0.5, 1.0]))], grad=["pred"])
case("PoissonNLLLoss", block("loss.PoissonNLLLoss"),
     [("pred", uni(3, 4, lo=-1, hi=1)), ("target", ints(4, 3, 4))], grad=["pred"])
# MXNet 1.9.1's PoissonNLLLoss(compute_full=True) multiplies in place (``*=``): that fails
# under autograd.record and in a Symbol, so only its imperative prediction can be recorded
case("PoissonNLLLoss_full", block("loss.PoissonNLLLoss", from_logits=False, compute_full=True),
     [("pred", uni(3, 4, lo=0.1, hi=3)), ("target", uni(3, 4, lo=0.2, hi=4)),
      ("sample_weight", SW)], predict_only=True, hybridizable=False)
case("CosineEmbeddingLoss", block("loss.CosineEmbeddingLoss", margin=0.2),
     [("input1", uni(3, 4)), ("input2", uni(3, 4)), ("label", const([1, -1, -1]))],
     grad=["input1", "input2"])
case("SDMLLoss", block("loss.SDMLLoss"), [("x1", uni(4, 3)), ("x2", uni(4, 3))],
     grad=["x1", "x2"], hybridizable=False)


# ----------------------------------------------------------------------------- recording
def build(spec):
    module, _, name = spec["cls"].rpartition(".")
    namespace = {"nn": gluon.nn, "contrib.nn": gluon.contrib.nn, "loss": gluon.loss}[module]
    blk = getattr(namespace, name)(*spec["args"], **spec["kwargs"])
    if spec["children"]:
        with blk.name_scope():
            blk.add(*[build(child) for child in spec["children"]])
    return blk


def param_info(blk):
    return [[p.name, list(p.shape) if p.shape is not None else None, p.grad_req]
            for p in blk.collect_params().values()]


def param_value(param, rng):
    if param.name.endswith("gamma") and param.grad_req == "null" and "batchnorm" in param.name:
        # BatchNorm(scale=False) fixes gamma: MXNet's operator overwrites it with ones
        return np.ones(param.shape)
    if param.name.endswith("running_var"):
        return rng.uniform(0.5, 1.5, size=param.shape)
    return rng.uniform(-1, 1, size=param.shape)


def run_case(name, meta, arrays):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    with mx.name.NameManager():
        blk = build(meta["spec"])
    meta.update(prefix=blk.prefix, params_before=param_info(blk), repr_before=repr(blk))
    inputs = [None if n in meta["none_inputs"] else mx.nd.array(arrays[n], dtype=arrays[n].dtype)
              for n in meta["inputs"]]
    blk.initialize()
    out = {"in%d" % i: arrays[n] for i, n in enumerate(meta["inputs"]) if n in arrays}
    blk(*inputs)
    params = list(blk.collect_params().values())
    for j, p in enumerate(params):
        value = param_value(p, rng).astype(p.dtype)
        p.set_data(mx.nd.array(value, dtype=p.dtype))
        out["param%d" % j] = value
    meta.update(params_after=param_info(blk), repr_after=repr(blk))
    if meta["hybridizable"] and isinstance(blk, gluon.HybridBlock):
        meta["graph"] = symbolic_nodes(blk, meta)
    out["predict"] = blk(*inputs).asnumpy()
    if not meta["predict_only"]:
        record_training(meta, blk, inputs, params, out, rng)
    return out


def symbolic_nodes(blk, meta):
    """[op, name] of every node of the graph the block builds when called on Symbols."""
    args = [None if n in meta["none_inputs"] else mx.sym.var(n) for n in meta["inputs"]]
    graph = json.loads(blk(*args).tojson())
    return [[node["op"], node["name"]] for node in graph["nodes"]]


def record_training(meta, blk, inputs, params, out, rng):
    grads = [i for i, n in enumerate(meta["inputs"]) if n in meta["grad"]]
    for i in grads:
        inputs[i].attach_grad()
    with autograd.record():
        y = blk(*inputs)
    head = rng.uniform(-1, 1, size=y.shape).astype(y.dtype)
    y.backward(mx.nd.array(head, dtype=y.dtype))
    out["train"] = y.asnumpy()
    out["head"] = head
    for i in grads:
        out["grad_in%d" % i] = inputs[i].grad.asnumpy()
    for j, p in enumerate(params):
        if p.grad_req != "null":
            out["grad_param%d" % j] = p.grad().asnumpy()
        out["after_param%d" % j] = p.data().asnumpy()


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    for name, meta in CASES.items():
        np.savez(os.path.join(OUT, name + ".npz"), **run_case(name, meta, ARRAYS[name]))
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1, sort_keys=True)
    print("recorded %d cases in %s" % (len(CASES), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
