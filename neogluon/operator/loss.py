"""Output and loss operators with MXNet's own gradients: SoftmaxOutput, *RegressionOutput, MakeLoss, CTCLoss, ...

MXNet's output layers are identity-like in the forward pass and define their gradient
directly (``softmax - label`` and so on), ignoring the head gradient. Each is a
``torch.autograd.Function`` whose backward writes that gradient; labels get a zero
gradient, as in MXNet.
"""
import math

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .registry import Bool, Float, Str, register, same_shape, shape_rule

def _normalization():
    return Str("null", choices=("batch", "null", "valid"))


def _shape(t):
    return tuple(t.shape)


def _label_grad(ctx, label):
    """MXNet gives labels a zero gradient."""
    return torch.zeros_like(label) if ctx.needs_input_grad[1] else None


# ----------------------------------------------------------------------------- SoftmaxOutput
def _as_rows(data, label, multi_output, preserve_shape):
    """Data as (rows, classes) and the label as one target per row (or a row of
    probabilities), following MXNet's three SoftmaxOutput layouts. Returns the 2-d data,
    the label rows and a function mapping a 2-d result back to the data's layout."""
    n = data.shape[0]
    if multi_output:
        k = data.shape[1]
        x = data.reshape(n, k, -1).transpose(1, 2).reshape(-1, k)
        rows = x.shape[0]

        def back(t):
            return t.reshape(n, -1, k).transpose(1, 2).reshape(data.shape)
        if label.numel() != rows:
            raise MXNetError("Operator SoftmaxOutput: with multi_output the label must have %d elements "
                             "(data %s), got shape %s" % (rows, _shape(data), _shape(label)))
        return x, label.reshape(-1), back
    x = data.reshape(-1, data.shape[-1]) if preserve_shape else data.reshape(n, -1)
    rows = x.shape[0]
    if _shape(label) == _shape(data):
        return x, label.reshape(x.shape), lambda t: t.reshape(data.shape)
    if label.numel() < rows:
        raise MXNetError("Operator SoftmaxOutput: label shape %s does not match data shape %s"
                         % (_shape(label), _shape(data)))
    return x, label.reshape(-1)[:rows], lambda t: t.reshape(data.shape)


def _softmax_output_grad(out, label, o):
    """MXNet's SoftmaxOutput gradient for 2-d ``out`` (rows, classes) and per-row labels."""
    k = out.shape[1]
    if label.dim() == 2:  # probabilities, one row per sample
        grad, keep = out - label.to(out.dtype), None
    else:
        onehot = (torch.arange(k, device=out.device) == label.long()[:, None]).to(out.dtype)
        if o["smooth_alpha"]:
            alpha = o["smooth_alpha"]
            onehot = onehot * (1 - alpha) + (1 - onehot) * (alpha / (k - 1))
        grad = out - onehot
        keep = label != o["ignore_label"]
        if o["use_ignore"]:
            grad = grad * keep[:, None].to(out.dtype)
    if o["normalization"] == "batch":
        count = out.shape[0]
    elif o["normalization"] == "valid" and keep is not None:
        count = max(int(keep.sum()), 1)
    else:
        count = 1
    return grad * (o["grad_scale"] / count)


def _softmax_output_infer(attrs, shapes):
    data = shapes[0]
    if data is None or shapes[1] is not None:
        return shapes
    if attrs["multi_output"]:
        label = (data[0], math.prod(data[2:]))
    else:
        label = tuple(data[:-1])
    return [data, label]


class _SoftmaxOutputFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, label, o):  # pylint: disable=arguments-differ
        x, rows_label, back = _as_rows(data, label, o["multi_output"], o["preserve_shape"])
        out = F.softmax(x, 1)
        ctx.save_for_backward(out, rows_label, label)
        ctx.o, ctx.back = o, back
        return back(out)

    @staticmethod
    def backward(ctx, head):  # pylint: disable=arguments-differ
        out, rows_label, label = ctx.saved_tensors
        grad = _softmax_output_grad(out, rows_label, ctx.o)
        if ctx.o["out_grad"]:
            # MXNet 1.9.1 scales by the tensor in the head-gradient slot, which holds the output
            grad = grad * out
        return ctx.back(grad), _label_grad(ctx, label), None


@register("SoftmaxOutput", inputs=("data", "label"), aliases=["Softmax"],
          params=dict(grad_scale=Float(1.0), ignore_label=Float(-1.0), multi_output=Bool(False),
                      use_ignore=Bool(False), preserve_shape=Bool(False), normalization=_normalization(),
                      out_grad=Bool(False), smooth_alpha=Float(0.0)),
          infer_args=_softmax_output_infer)
def softmax_output(data, label, **o):
    """Softmax (over axis 1 with ``multi_output``, the last axis with ``preserve_shape``,
    else over the flattened sample) whose gradient is MXNet's ``softmax - onehot(label)``
    (label smoothing with ``smooth_alpha``, ignored rows with ``use_ignore``), scaled by
    ``grad_scale`` / the ``normalization`` count; the head gradient is not used. A label of
    the data's shape is taken as probabilities."""
    if data.dim() < 2:
        raise MXNetError("Operator SoftmaxOutput: data must have at least 2 dimensions, got shape %s"
                         % (_shape(data),))
    return _SoftmaxOutputFn.apply(data, label, o)


# ----------------------------------------------------------------------------- regression outputs
def _regression_infer(attrs, shapes):
    if shapes[0] is None or shapes[1] is not None:
        return shapes
    return [shapes[0], shapes[0]]


class _RegressionFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, label, transform, grad_fn, grad_scale):  # pylint: disable=arguments-differ
        if label.numel() != data.numel():
            raise MXNetError("Operator RegressionOutput: label shape %s does not match data shape %s"
                             % (_shape(label), _shape(data)))
        out = transform(data)
        ctx.save_for_backward(out, label)
        ctx.grad_fn, ctx.scale = grad_fn, grad_scale / (label.numel() / label.shape[0])
        return out

    @staticmethod
    def backward(ctx, head):  # pylint: disable=arguments-differ
        out, label = ctx.saved_tensors
        grad = ctx.grad_fn(out - label.reshape(out.shape).to(out.dtype)) * ctx.scale
        return grad, _label_grad(ctx, label), None, None, None


def _regression(name, transform, grad_fn, doc):
    def impl(data, label, *, grad_scale):
        return _RegressionFn.apply(data, label, transform, grad_fn, grad_scale)
    impl.__doc__ = doc
    register(name, inputs=("data", "label"), params=dict(grad_scale=Float(1.0)),
             infer_args=_regression_infer)(impl)


_regression("LinearRegressionOutput", torch.clone, lambda d: d,
            "Identity forward; gradient ``(out - label) * grad_scale / num_output`` (num_output: "
            "label elements per sample), ignoring the head gradient.")
_regression("LogisticRegressionOutput", torch.sigmoid, lambda d: d,
            "Sigmoid forward; gradient ``(sigmoid(x) - label) * grad_scale / num_output``, "
            "ignoring the head gradient.")
_regression("MAERegressionOutput", torch.clone, torch.sign,
            "Identity forward; gradient ``sign(out - label) * grad_scale / num_output``, "
            "ignoring the head gradient.")


# ----------------------------------------------------------------------------- MakeLoss, make_loss
class _MakeLossFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, grad_scale, normalization, valid_thresh):  # pylint: disable=arguments-differ
        if normalization == "batch":
            count = data.shape[0] if data.dim() else 1
        elif normalization == "valid":
            count = max(int((data > valid_thresh).sum()), 1)
        else:
            count = 1
        ctx.value = grad_scale / count
        return data.clone()

    @staticmethod
    def backward(ctx, head):  # pylint: disable=arguments-differ
        return torch.full_like(head, ctx.value), None, None, None


@register("MakeLoss", params=dict(grad_scale=Float(1.0), valid_thresh=Float(0.0), normalization=_normalization()))
def make_loss_layer(data, *, grad_scale, valid_thresh, normalization):
    """Identity forward; the gradient is ``grad_scale`` everywhere (the head gradient is not
    used), divided by the batch size (``batch``) or by the number of elements above
    ``valid_thresh`` (``valid``)."""
    return _MakeLossFn.apply(data, grad_scale, normalization, valid_thresh)


@register("make_loss", output_names=lambda attrs: ["loss"])
def make_loss(data):
    """Identity forward; a gradient of ones, whatever the head gradient."""
    return _MakeLossFn.apply(data, 1.0, "null", 0.0)


# ----------------------------------------------------------------------------- SVMOutput
class _SVMOutputFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, data, label, margin, coef, use_linear):  # pylint: disable=arguments-differ
        ctx.save_for_backward(data, label)
        ctx.args = (margin, coef, use_linear)
        return data.clone()

    @staticmethod
    def backward(ctx, head):  # pylint: disable=arguments-differ
        data, label = ctx.saved_tensors
        margin, coef, use_linear = ctx.args
        x = data.reshape(-1, data.shape[-1])
        is_label = torch.arange(x.shape[1], device=x.device) == label.reshape(-1).long()[:, None]
        signed = torch.where(is_label, x, -x)  # the score's distance to the margin, per class
        active = (signed < margin).to(x.dtype)
        direction = torch.where(is_label, -1.0, 1.0).to(x.dtype)
        slope = active if use_linear else 2 * (margin - signed) * active
        grad = (direction * slope * coef).reshape(data.shape)
        return grad, _label_grad(ctx, label), None, None, None


@register("SVMOutput", inputs=("data", "label"),
          params=dict(margin=Float(1.0), regularization_coefficient=Float(1.0), use_linear=Bool(False)),
          infer_args=lambda attrs, shapes: (shapes if shapes[0] is None or shapes[1] is not None
                                            else [shapes[0], tuple(shapes[0][:-1])]))
def svm_output(data, label, *, margin, regularization_coefficient, use_linear):
    """Identity forward; the gradient of MXNet's L2-SVM (squared hinge) or, with
    ``use_linear``, L1-SVM (hinge) loss on the scores, ignoring the head gradient."""
    if label.numel() * data.shape[-1] != data.numel():
        raise MXNetError("Operator SVMOutput: label shape %s does not match data shape %s"
                         % (_shape(label), _shape(data)))
    return _SVMOutputFn.apply(data, label, margin, regularization_coefficient, use_linear)


# ----------------------------------------------------------------------------- softmax_cross_entropy
@register("softmax_cross_entropy", inputs=("data", "label"))
def softmax_cross_entropy(data, label):
    """``sum_i -log(softmax(data_i)[label_i])`` over the batch, as a 1-element array."""
    if data.dim() != 2 or label.shape != data.shape[:1]:
        raise MXNetError("Operator softmax_cross_entropy: expected data (batch, classes) and label (batch,), "
                         "got data %s and label %s" % (_shape(data), _shape(label)))
    return F.cross_entropy(data, label.long(), reduction="sum").reshape(1)


# ----------------------------------------------------------------------------- CTCLoss
def _ctc_inputs(attrs):
    names = ["data", "label"]
    if attrs["use_data_lengths"]:
        names.append("data_lengths")
    if attrs["use_label_lengths"]:
        names.append("label_lengths")
    return tuple(names)


def _label_lengths(labels, pad):
    """Each row's length: the position of the first padding value, or the full width."""
    is_pad = labels == pad
    first = is_pad.to(torch.int8).argmax(1)
    return torch.where(is_pad.any(1), first, torch.full_like(first, labels.shape[1]))


def _ctc_lengths_args(args, use_data_lengths, use_label_lengths):
    args = list(args)
    data_lengths = args.pop(0) if use_data_lengths else None
    label_lengths = args.pop(0) if use_label_lengths else None
    return data_lengths, label_lengths


@register("CTCLoss", inputs=_ctc_inputs, signature=("data", "label", "data_lengths", "label_lengths"),
          params=dict(use_data_lengths=Bool(False), use_label_lengths=Bool(False),
                      blank_label=Str("first", choices=("first", "last"))),
          num_outputs=2, num_visible_outputs=1, output_names=lambda attrs: ["output0"],
          aliases=["_contrib_CTCLoss", "ctc_loss", "_contrib_ctc_loss"])
def ctc_loss(data, label, *lengths, use_data_lengths, use_label_lengths, blank_label):
    """Connectionist Temporal Classification loss per sample, for activations ``data`` of
    shape (time, batch, alphabet) (softmax applied inside) and padded labels (batch, L).
    The blank is channel 0 (``first``, labels padded with 0) or the last channel (``last``,
    padded with -1); lengths come from ``data_lengths``/``label_lengths`` when enabled."""
    if data.dim() != 3 or label.dim() != 2 or label.shape[0] != data.shape[1]:
        raise MXNetError("Operator CTCLoss: expected data (time, batch, alphabet) and label (batch, length), "
                         "got data %s and label %s" % (_shape(data), _shape(label)))
    steps, batch, alphabet = data.shape
    data_lengths, label_lengths = _ctc_lengths_args(lengths, use_data_lengths, use_label_lengths)
    labels = label.long()
    first = blank_label == "first"
    if label_lengths is None:
        label_lengths = _label_lengths(labels, 0 if first else -1)
    if data_lengths is None:
        data_lengths = torch.full((batch,), steps, dtype=torch.long, device=data.device)
    log_probs = F.log_softmax(data, -1)
    return F.ctc_loss(log_probs, labels.clamp_min(0), data_lengths.long(), label_lengths.long(),
                      blank=0 if first else alphabet - 1, reduction="none")

# ----------------------------------------------------------------------------- shape rules
# output shapes without a meta run (symbol/infer.py; tests/test_shape_rules.py checks them)
shape_rule("SoftmaxOutput")(same_shape)
