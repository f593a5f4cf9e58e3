"""``mx.metric``: evaluation metrics, with MXNet 1.9.1's arithmetic and names.

A metric accumulates ``sum_metric`` and ``num_inst`` over ``update(labels, preds)`` calls
(lists of NDArrays, or single NDArrays); ``get()`` returns ``(name, sum_metric/num_inst)``.
Metrics with global statistics also keep ``global_sum_metric``/``global_num_inst``, which
survive ``reset_local()``. ``create`` builds a metric from a registered name ('acc',
'ce', 'top_k_accuracy', ...), a callable, a list (a ``CompositeEvalMetric``) or a config.
"""
import json
import math
from collections import OrderedDict

import numpy

from .base import numeric_types
from .registry import ClassRegistry
from .ndarray import NDArray

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity",
           "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation", "PCC",
           "Loss", "Torch", "Caffe", "CustomMetric", "np", "create", "register", "alias",
           "check_label_shapes"]

_METRICS = ClassRegistry("metric")  # its base, EvalMetric, is set below


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raise ValueError unless labels and preds have the same length (or, with ``shape``,
    the same shape); with ``wrap`` single NDArrays become one-element lists."""
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}".format(label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def _numpy(x):
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


def _column(x):
    """MXNet's regression metrics treat a 1-d array as a column."""
    return x.reshape(x.shape[0], 1) if x.ndim == 1 else x


# ----------------------------------------------------------------------------- registry
def register(klass, name=None):
    """Register a metric class under its lower-cased class name (or ``name``)."""
    return _METRICS.register(klass, name)


def alias(*aliases):
    """Class decorator registering a metric under further names."""
    return _METRICS.alias(*aliases)


def _create(name, *args, **kwargs):
    if isinstance(name, EvalMetric):
        if args or kwargs:
            raise AssertionError("metric is already an instance. Additional arguments are invalid")
        return name
    if isinstance(name, dict):
        config = dict(name)
        return _create(config.pop("metric"), **config)
    if not isinstance(name, str):
        raise AssertionError("metric must be of string type")
    if name.startswith('['):
        name, kwargs = json.loads(name)
        return _create(name, **kwargs)
    if name.startswith('{'):
        return _create(json.loads(name))
    return _METRICS.create(name, *args, **kwargs)


def create(metric=None, *args, **kwargs):
    """A metric from a name, an instance, a callable ``feval(label, pred)``, a list of
    those (a CompositeEvalMetric) or a config dict/JSON string."""
    if metric is None:
        metric = kwargs.pop("metric")
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


# ----------------------------------------------------------------------------- base
class EvalMetric:
    """Base class of all metrics: local and global accumulators, ``get``/``reset``."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        """The metric's configuration, enough for ``create`` to rebuild it."""
        config = self._kwargs.copy()
        config.update({'metric': self.__class__.__name__, 'name': self.name,
                       'output_names': self.output_names, 'label_names': self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from dicts of name -> NDArray, picking ``output_names``/``label_names``."""
        pred = [pred[n] for n in self.output_names] if self.output_names is not None else list(pred.values())
        label = [label[n] for n in self.label_names] if self.label_names is not None else list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        raise TypeError("%s does not define update(labels, preds)" % type(self).__name__)

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, count):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    @staticmethod
    def _pairs(name, value):
        name = name if isinstance(name, list) else [name]
        value = value if isinstance(value, list) else [value]
        return list(zip(name, value))

    def get_name_value(self):
        return self._pairs(*self.get())

    def get_global_name_value(self):
        if not self._has_global_stats:
            return self.get_name_value()
        return self._pairs(*self.get_global())


_METRICS.base = EvalMetric


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns lists of names and values."""

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError("Metric index {} is out of range 0 and {}".format(index, len(self.metrics)))

    def update_dict(self, labels, preds):  # pylint: disable=arguments-renamed
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", ()):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, "metrics", ()):
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend([name] if isinstance(name, str) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [m.get_config() for m in self.metrics]})
        return config


# ----------------------------------------------------------------------------- classification
@register
@alias('acc')
class Accuracy(EvalMetric):
    """Fraction of correct predictions; predictions with more dimensions than the labels
    are reduced with argmax over ``axis``."""

    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _numpy(pred)
            label = _numpy(label)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=self.axis)
            pred = pred.astype('int32').ravel()
            label = label.astype('int32').ravel()
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest predictions."""

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise AssertionError('Please use Accuracy if top_k is no more than 1')
        self.name += '_%d' % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _numpy(pred).astype('float32')
            if pred.ndim > 2:
                raise AssertionError('Predictions should be no more than 2 dims')
            label = _numpy(label).astype('int32')
            check_label_shapes(label, pred)
            if pred.ndim == 1:
                # MXNet compares argpartition's indices with the labels here; kept for parity
                num_correct = (numpy.argpartition(pred, -self.top_k).ravel() == label.ravel()).sum()
                self.sum_metric += num_correct
            else:
                top_k = min(pred.shape[1], self.top_k)
                top = numpy.argsort(-pred, axis=1, kind='stable')[:, :top_k]
                num_correct = (top == label.reshape(-1, 1)).any(axis=1).sum()
                self.sum_metric += num_correct
                self.global_sum_metric += num_correct
            self.num_inst += pred.shape[0]
            self.global_num_inst += pred.shape[0]


class _BinaryClassificationMetrics:
    """Confusion counts (local and global) of a binary classifier, for F1 and MCC."""

    _FIELDS = ("true_positives", "false_negatives", "false_positives", "true_negatives")

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        pred = _numpy(pred)
        label = _numpy(label).astype('int32')
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError("%s currently only supports binary classification." % self.__class__.__name__)
        pred_true, label_true = pred_label == 1, label == 1
        counts = ((pred_true & label_true).sum(), (~pred_true & label_true).sum(),
                  (pred_true & ~label_true).sum(), (~pred_true & ~label_true).sum())
        for field, n in zip(self._FIELDS, counts):
            setattr(self, field, getattr(self, field) + int(n))
            setattr(self, "global_" + field, getattr(self, "global_" + field) + int(n))

    def local_reset_stats(self):
        for field in self._FIELDS:
            setattr(self, field, 0)

    def reset_stats(self):
        for field in self._FIELDS:
            setattr(self, field, 0)
            setattr(self, "global_" + field, 0)

    def _counts(self, use_global):
        p = "global_" if use_global else ""
        return [float(getattr(self, p + f)) for f in self._FIELDS]

    def _fscore(self, use_global):
        tp, fn, fp, _ = self._counts(use_global)
        precision = tp / (tp + fp) if tp + fp > 0 else 0.
        recall = tp / (tp + fn) if tp + fn > 0 else 0.
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.

    @property
    def fscore(self):
        return self._fscore(False)

    @property
    def global_fscore(self):
        return self._fscore(True)

    def matthewscc(self, use_global=False):
        tp, fn, fp, tn = self._counts(use_global)
        if not tp + fn + fp + tn:
            return 0.
        denom = 1.
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    @property
    def total_examples(self):
        return sum(self._counts(False))

    @property
    def global_total_examples(self):
        return sum(self._counts(True))


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a per-update score averaged over updates ('macro') or the score of all
    samples so far ('micro')."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self.metrics = _BinaryClassificationMetrics()
        EvalMetric.__init__(self, name=name, output_names=output_names, label_names=label_names,
                            has_global_stats=True)

    def _score(self, use_global):
        raise TypeError("abstract")

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred)
        if self.average == "macro":
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self.metrics.reset_stats()
        else:
            self.sum_metric = self._score(False) * self.metrics.total_examples
            self.global_sum_metric = self._score(True) * self.metrics.global_total_examples
            self.num_inst = self.metrics.total_examples
            self.global_num_inst = self.metrics.global_total_examples

    def reset(self):
        self.sum_metric = 0.
        self.num_inst = 0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0
        self.metrics.reset_stats()

    def reset_local(self):
        self.sum_metric = 0.
        self.num_inst = 0
        self.metrics.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier (class 1 positive; predictions are per-class scores)."""

    def __init__(self, name='f1', output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.global_fscore if use_global else self.metrics.fscore


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier."""

    def __init__(self, name='mcc', output_names=None, label_names=None, average="macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global)


@register
class PCC(EvalMetric):
    """Multi-class Matthews correlation from a growing confusion matrix."""

    def __init__(self, name='pcc', output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _numpy(label).astype('int32')
            pred = _numpy(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype('int32')
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred, label), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the labels (picked on ``axis``),
    skipping ``ignore_label``."""

    def __init__(self, ignore_label, axis=-1, name='perplexity', output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise AssertionError("%d labels but %d predictions" % (len(labels), len(preds)))
        loss, num = 0., 0
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label), _numpy(pred)
            if label.size != pred.size / pred.shape[-1]:
                raise AssertionError("shape mismatch: %s vs. %s" % (label.shape, pred.shape))
            label = label.reshape(label.size)
            prob = _pick(pred, label.astype('int32'), self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(prob.dtype)
                num -= ignore.sum()
                prob = prob * (1 - ignore) + ignore
            loss -= float(numpy.log(numpy.maximum(prob, 1e-10)).sum(dtype=numpy.float32))
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


def _pick(pred, index, axis):
    """MXNet's ``pick`` (clipped indices) of a label per position, flattened."""
    axis = axis % pred.ndim
    moved = numpy.moveaxis(pred, axis, -1).reshape(-1, pred.shape[axis])
    idx = numpy.clip(index.reshape(-1), 0, pred.shape[axis] - 1)
    return moved[numpy.arange(moved.shape[0]), idx]


# ----------------------------------------------------------------------------- regression
class _Regression(EvalMetric):
    """Mean over updates of a per-batch error (MXNet counts one instance per batch)."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    @staticmethod
    def _error(label, pred):
        raise TypeError("abstract")

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._add(self._error(_column(_numpy(label)), _column(_numpy(pred))), 1)


@register
class MAE(_Regression):
    """Mean absolute error."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_Regression):
    """Mean squared error."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root mean squared error (of each batch, averaged over batches)."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LogLoss(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` over samples (rows of the predictions)."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _numpy(label).ravel()
            pred = _numpy(pred)
            if label.shape[0] != pred.shape[0]:
                raise AssertionError((label.shape[0], pred.shape[0]))
            prob = pred[numpy.arange(label.shape[0]), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), label.shape[0])


@register
@alias('ce')
class CrossEntropy(_LogLoss):
    """Cross-entropy of predicted probabilities against integer labels."""

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LogLoss):
    """Negative log-likelihood of predicted probabilities against integer labels."""

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: averaged per update ('macro') or
    over all values seen, with running moments ('micro')."""

    def __init__(self, name='pearsonr', output_names=None, label_names=None, average='macro'):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def reset_micro(self):
        self._sse_p = self._mean_p = self._sse_l = self._mean_l = 0
        self._pred_nums = self._label_nums = 0
        self._conv = 0

    def reset(self):
        super().reset()
        if self.average == 'micro':
            self.reset_micro()

    @staticmethod
    def update_variance(new_values, *aggregate):
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        m_2 += numpy.sum(delta * (new_values - mean))
        return count, mean, m_2

    def update_cov(self, label, pred):
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _numpy(label).ravel().astype(numpy.float64)
            pred = _numpy(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                label, self._label_nums, self._mean_l, self._sse_l)
            self.update_cov(label, pred)
            self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        denom = (n - 1) * numpy.sqrt(self._sse_p / (n - 1)) * numpy.sqrt(self._sse_l / (n - 1))
        return (self.name, self._conv / denom)


# ----------------------------------------------------------------------------- losses, custom
@register
class Loss(EvalMetric):
    """Mean of the given loss values (labels are ignored)."""

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            values = _numpy(pred)
            self._add(float(values.sum(dtype=values.dtype)), values.size)


@register
class Torch(Loss):
    """Dummy metric for torch criterions (a Loss named 'torch')."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions (a Loss named 'caffe')."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from ``feval(label, pred)`` on numpy arrays, returning a value (one
    instance) or a ``(sum_metric, num_inst)`` pair."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if name.find('<') != -1:
                name = 'custom(%s)' % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(_numpy(label), _numpy(pred))
            if isinstance(reval, tuple):
                self._add(*reval)
            else:
                self._add(reval, 1)

    def get_config(self):
        raise TypeError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):  # pylint: disable=invalid-name
    """A CustomMetric from a function of numpy ``(label, pred)``."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
