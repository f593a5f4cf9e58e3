"""Metric checks shared by the Estimator and its event handlers."""
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric
from ...loss import SoftmaxCrossEntropyLoss


def _check_metrics(metrics):
    """A flat list of EvalMetric from a metric, a CompositeEvalMetric, a list or None."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for metric in metrics.metrics for m in _check_metrics(metric)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    if not all(isinstance(metric, EvalMetric) for metric in metrics):
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         "refer to mxnet.metric.EvalMetric: {}".format(metrics))
    return metrics


def _metric_references(handler):
    """The EvalMetric objects a handler refers to (its ``*metric*`` and ``monitor``
    attributes)."""
    found = []
    for attribute in dir(handler):
        if "metric" not in attribute and attribute != "monitor":
            continue
        value = getattr(handler, attribute, None)
        values = value if isinstance(value, (list, tuple)) else [value]
        found += [v for v in values if isinstance(v, EvalMetric)]
    return found


def _check_handler_metric_ref(handler, known_metrics):
    """Handlers mixed with the default ones must use the estimator's own metric objects."""
    for metric in _metric_references(handler):
        if metric not in known_metrics:
            raise ValueError(
                "Event handler {} refers to a metric instance {} outside of "
                "the known training and validation metrics. Please use the metrics from "
                "estimator.train_metrics and estimator.val_metrics "
                "instead.".format(type(handler).__name__, metric))


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, else nothing."""
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
