"""The Gluon Estimator: MXNet 1.9.1's ``fit``/``evaluate`` loop driven by event handlers."""
import copy
import logging
import sys
import warnings

from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as metric_loss
from ...data import DataLoader
from ...loss import Loss as gluon_loss
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin, TrainEnd,
                            ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ["Estimator"]

_EVENTS = (("train_begin", TrainBegin), ("epoch_begin", EpochBegin), ("batch_begin", BatchBegin),
           ("batch_end", BatchEnd), ("epoch_end", EpochEnd), ("train_end", TrainEnd))


def _has_handler(event_handlers, kind):
    return any(isinstance(handler, kind) for handler in event_handlers)


class Estimator:
    """Train and evaluate a Gluon network as MXNet 1.9.1's Estimator does.

    ``net`` is trained on ``loss`` with ``trainer`` (default: SGD, learning rate 0.001, with a
    warning) on ``context`` (default: gpu(0) if there is one, else cpu()); it is initialised
    with ``initializer`` unless already initialised. Training metrics are renamed
    ``'training <name>'`` (default: accuracy for a softmax cross-entropy loss, plus the mean
    loss); validation metrics (default: copies of the training ones) ``'validation <name>'``.
    ``val_net``/``val_loss`` default to ``net``/``loss``; ``batch_processor`` supplies
    ``fit_batch``/``evaluate_batch``. Logs go to ``self.logger`` (stdout, level INFO).
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self._check_loss(val_loss) if val_loss is not None else self.loss
        self.val_net = val_net if val_net is not None else self.net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0
        self.train_data = None

    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, gluon_loss):
            raise ValueError("loss must be a Loss, refer to gluon.loss.Loss:{}".format(loss))
        return loss

    @staticmethod
    def _check_context(context):
        gpus = num_gpus()
        available_gpus = [gpu(i) for i in range(gpus)]
        if not context:
            if gpus > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default."
                              "To utilize all your GPUs, specify context as a list of gpus, "
                              "e.g. context=[mx.gpu(0), mx.gpu(1)] ")
            return [gpu(0)] if gpus > 0 else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError("context must be a Context or a list of Context, "
                             "for example mx.cpu() or [mx.gpu(0), mx.gpu(1)], "
                             "refer to mxnet.Context:{}".format(context))
        for ctx in context:
            if ctx not in available_gpus and not str(ctx).startswith("cpu"):
                raise ValueError("%s is not available, please make sure your context is in one "
                                 "of: mx.cpu(), %s" % (ctx, ", ".join(str(c) for c in available_gpus)))
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, "fit_batch", None))
                and callable(getattr(batch_processor, "evaluate_batch", None))):
            raise ValueError("Customized Batch Processor must contain fit_batch()"
                             " and evaluate_batch() methods")
        return batch_processor

    def _initialize(self, initializer):
        """Initialise the parameters not yet initialised (never re-initialise)."""
        if not self._is_initialized():
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. "
                          "You don't need to pass initializer if you already "
                          "initialized your net. "
                          "You can use net.initialize(init=your_initializer, force_reinit=True)"
                          "to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer "
                          "with learning rate 0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError("Trainer must be a Gluon Trainer instance, refer to "
                             "gluon.Trainer:{}".format(trainer))
        return trainer

    def _is_initialized(self):
        params = self.net.collect_params()
        try:
            for name in params:
                params[name].list_ctx()
        except RuntimeError:
            return False
        return True

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(metric_loss(self.loss.name.rstrip("1234567890")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if "training" in metric.name:
                metric.name = metric.name.replace("training", "validation")
            else:
                metric.name = "validation " + metric.name

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run ``val_net`` over ``val_data`` (a DataLoader) as one validation epoch, updating
        ``val_metrics``; a MetricHandler and LoggingHandler are added unless given."""
        if not isinstance(val_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, you "
                             "can transform your DataIter or any NDArray into Gluon DataLoader. "
                             "Refer to gluon.data.DataLoader")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._categorize_handlers(self._prepare_default_validation_handlers(event_handlers))
        for handler in handlers["epoch_begin"]:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in handlers["batch_begin"]:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in handlers["batch_end"]:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in handlers["epoch_end"]:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Train for exactly one of ``epochs`` or ``batches`` on ``train_data`` (a
        DataLoader), validating on ``val_data`` after each epoch. StoppingHandler,
        GradientUpdateHandler, MetricHandler, LoggingHandler (and ValidationHandler with
        ``val_data``) are added unless ``event_handlers`` has one of their kind."""
        if not isinstance(train_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, you "
                             "can transform your DataIter or any NDArray into Gluon DataLoader. "
                             "Refer to gluon.data.dataloader")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, "
                             "train by number of epochs or number of batches."
                             "Please specify one and only one of: epochs or batches.")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        self.train_data = train_data
        handlers = self._categorize_handlers(self._prepare_default_handlers(val_data, event_handlers))
        for handler in handlers["train_begin"]:
            handler.train_begin(self)
        while not self._fit_epoch(train_data, handlers, batch_axis):
            pass
        for handler in handlers["train_end"]:
            handler.train_end(self)

    def _fit_epoch(self, train_data, handlers, batch_axis):
        """One training epoch; True when a handler asks to stop training."""
        for handler in handlers["epoch_begin"]:
            handler.epoch_begin(self)
        for batch in train_data:
            for handler in handlers["batch_begin"]:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
            results = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                       for handler in handlers["batch_end"]]
            if any(results):
                break
        results = [handler.epoch_end(self) for handler in handlers["epoch_end"]]
        return any(results)

    def _finish_handlers(self, event_handlers, added, known_metrics):
        """Append the default handlers, check that mixed-in user handlers use this
        estimator's metrics, and sort by priority."""
        mixing = event_handlers and added
        event_handlers.extend(added)
        if mixing:
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known_metrics)
        event_handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return event_handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = [StoppingHandler(self.max_epoch, self.max_batch)]
        if not _has_handler(event_handlers, GradientUpdateHandler):
            added.append(GradientUpdateHandler())
        if not _has_handler(event_handlers, MetricHandler):
            added.append(MetricHandler(metrics=self.train_metrics))
        if not _has_handler(event_handlers, ValidationHandler) and val_data:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if not _has_handler(event_handlers, LoggingHandler):
            added.append(LoggingHandler(metrics=self.train_metrics))
        return self._finish_handlers(event_handlers, added, set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not _has_handler(event_handlers, MetricHandler):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not _has_handler(event_handlers, LoggingHandler):
            added.append(LoggingHandler(metrics=self.val_metrics))
        return self._finish_handlers(event_handlers, added, set(self.val_metrics))

    @staticmethod
    def _categorize_handlers(event_handlers):
        """``{event: handlers implementing it}``, so that only those are called."""
        return {event: [h for h in event_handlers if isinstance(h, mixin)] for event, mixin in _EVENTS}
