"""Event handlers of the Gluon Estimator, as in MXNet 1.9.1.

A handler subclasses the mixins of the events it reacts to (``TrainBegin``, ``EpochBegin``,
``BatchBegin``, ``BatchEnd``, ``EpochEnd``, ``TrainEnd``); the estimator calls handlers in
ascending ``priority`` order, and stops training when a ``batch_end``/``epoch_end`` returns
True.
"""
import os
import sys
import time
import warnings

import numpy as np

from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as metric_loss
from .utils import _check_metrics

__all__ = ["TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd",
           "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler",
           "CheckpointHandler", "EarlyStoppingHandler", "GradientUpdateHandler"]


class EventHandler:
    """Base of all event handlers."""


def _check_event_handlers(handlers):
    """A list of EventHandler from one handler, a list of them, or None."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(handler, EventHandler) for handler in handlers):
        raise ValueError("handlers must be an EventHandler or a list of EventHandler, "
                         "got: {}".format(handlers))
    return handlers


class TrainBegin(EventHandler):
    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator, *args, **kwargs):
        return False


def _monitor_op(monitor, mode, who):
    """``np.greater`` or ``np.less``: how ``mode`` ('auto', 'min', 'max') compares the
    monitored values. 'auto' picks 'max' for accuracy and F1 metrics, 'min' otherwise."""
    if mode not in ("auto", "min", "max"):
        warnings.warn("%s mode %s is unknown, fallback to auto mode. %s will use max mode for "
                      "f1 and accuracy metric comparison and use min mode otherwise"
                      % (who, mode, who), RuntimeWarning)
        mode = "auto"
    if mode == "auto":
        name = monitor.get()[0]
        mode = "max" if "acc" in name.lower() or "f1" in name.lower() else "min"
        op_name, other = ("greater", "min") if mode == "max" else ("less", "max")
        warnings.warn("`{}` operator will be used to determine if {} has improved. Please specify "
                      "`mode='{}'` to use the other operator. Specify `mode='{}'` to disable this "
                      "warning.".format(op_name, name, other, mode))
    return np.greater if mode == "max" else np.less


def _worst(monitor_op):
    return -np.inf if monitor_op is np.greater else np.inf


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop training once ``max_epoch`` epochs or ``max_batch`` batches are done (the
    estimator's ``epochs``/``batches`` are read at train begin)."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Reset ``metrics`` at epoch begin and update them at batch end: a ``metric.Loss``
    with the batch losses, any other metric with (label, pred)."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, kwargs["loss"])
            else:
                metric.update(kwargs["label"], kwargs["pred"])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Run ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)`` every
    ``epoch_period`` epochs and, if set, every ``batch_period`` batches."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


def _metrics_text(metrics):
    return "".join("%s: %.4f, " % metric.get() for metric in metrics)


def _progress_bar(total, desc, mode):
    """A tqdm bar on stderr (None without tqdm or when ``mode`` is False); with 'auto' it
    only appears once the epoch has run for two seconds."""
    if mode is False:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="batch", leave=False, file=sys.stderr,
                delay=2.0 if mode == "auto" else 0.0, dynamic_ncols=True)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """MXNet 1.9.1's training log through ``estimator.logger``: the optimizer and learning
    rate at train begin, each epoch's time and ``metrics`` (``log_interval='epoch'``) or
    every ``log_interval`` batches, and a summary at train end.

    In addition, a training epoch shows a tqdm progress bar on stderr with the current
    metrics: ``progress_bar='auto'`` (default) once an epoch has run for two seconds,
    True always, False never.
    """

    def __init__(self, log_interval="epoch", metrics=None, priority=np.inf, progress_bar="auto"):
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        if progress_bar not in (True, False, "auto"):
            raise ValueError("progress_bar must be True, False or 'auto', got %r" % (progress_bar,))
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0
        self.progress_bar = progress_bar
        self._bar = None
        self.train_start = self.epoch_start = self.batch_start = time.time()

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning rate %.4f ",
                              trainer.optimizer.__class__.__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        self._close_bar()
        train_time = time.time() - self.train_start
        msg = "Train finished using total %ds with %d epochs. " % (train_time, self.current_epoch)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self._log_batch(estimator, kwargs["batch"])
        if self._bar is not None:
            self._bar.set_postfix_str(_metrics_text(self.metrics).rstrip(", "), refresh=False)
            self._bar.update(1)
        self.batch_index += 1

    def _log_batch(self, estimator, batch):
        self.log_interval_time += time.time() - self.batch_start
        self.processed_samples += batch[0].shape[0]
        msg = "[Epoch %d][Batch %d][Samples %s] " % (self.current_epoch, self.batch_index,
                                                     self.processed_samples)
        if self.batch_index % self.log_interval == 0:
            msg += "time/interval: %.3fs " % self.log_interval_time
            self.log_interval_time = 0
            estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))

    def _is_training(self):
        return any("training" in metric.name for metric in self.metrics)

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        if not self._is_training():
            estimator.logger.info("Validation Begin")
            return
        estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                              self.current_epoch, estimator.trainer.learning_rate)
        data = getattr(estimator, "train_data", None)
        total = len(data) if hasattr(data, "__len__") else None
        self._close_bar()
        self._bar = _progress_bar(total, "[Epoch %d]" % self.current_epoch, self.progress_bar)

    def epoch_end(self, estimator, *args, **kwargs):
        self._close_bar()
        epoch_time = time.time() - self.epoch_start
        msg = "[Epoch %d] Finished in %.3fs, " % (self.current_epoch, epoch_time)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(", "))
        self.current_epoch += 1
        self.batch_index = 0

    def _close_bar(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save ``<model_prefix>-symbol.json`` after the first batch (hybridized nets), and the
    parameters and trainer states as ``<model_prefix>-epoch<E>batch<B>.params``/``.states``
    every ``epoch_period`` epochs or ``batch_period`` batches, keeping the newest
    ``max_checkpoints``; with ``save_best``, also ``<model_prefix>-best.params``/``.states``
    whenever ``monitor`` improves (``mode``: 'auto', 'min', 'max'). With
    ``resume_from_checkpoint``, training continues from the newest checkpoint in
    ``model_dir`` for the remaining epochs or batches.
    """

    def __init__(self, model_dir, model_prefix="model", monitor=None, verbose=0, save_best=False,
                 mode="auto", epoch_period=1, batch_period=None, max_checkpoints=5,
                 resume_from_checkpoint=False):
        if save_best and not isinstance(monitor, EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects "
                             "from estimator.train_metrics and estimator.val_metrics as monitor.")
        os.makedirs(model_dir, exist_ok=True)
        self.monitor = monitor
        self.verbose = verbose
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.trained_epoch = self.trained_batch = -1
        if save_best:
            self.monitor_op = _monitor_op(monitor, mode, "CheckpointHandler")
            self.best = _worst(self.monitor_op)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = _worst(self.monitor_op)
        if self.resume_from_checkpoint:
            error_msg = ("To use resume from checkpoint, you must only specify the same type of "
                         "period you used for training. For example, if you are training based on "
                         "number of epochs, you must save only based on epochs, and set "
                         "batch_period to None.")
            if estimator.max_batch and not (self.batch_period and not self.epoch_period):
                raise ValueError(error_msg)
            if estimator.max_epoch and not (self.epoch_period and not self.batch_period):
                raise ValueError(error_msg)
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _checkpoint_numbers(self, estimator):
        """(epoch, batch) numbers of the checkpoint being saved, counting resumed training."""
        if not self.resume_from_checkpoint:
            return self.current_epoch, self.current_batch
        epoch = self.current_epoch + self.trained_epoch + 1
        # at an epoch end the batch counter has already moved past the last batch
        batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        return epoch, batch

    def _save_checkpoint(self, estimator):
        prefix = "%s-epoch%dbatch%d" % ((self.model_prefix,) + self._checkpoint_numbers(estimator))
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: trained total %d batches, "
                                  "saving model at %s with prefix: %s", self.current_epoch,
                                  self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                "Skipping save best because %s is not updated, make sure you pass one of the "
                "metric objects estimator.train_metrics and estimator.val_metrics as monitor"
                % name))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved from %0.5f to "
                                      "%0.5f, updating best model at %s with prefix: %s",
                                      self.current_epoch, name, self.best, value, self.model_dir,
                                      prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info("[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, "
                                  "skipping updating best model", self.current_epoch, name,
                                  self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        cached = getattr(estimator.net, "_cached_graph", None)
        if cached:
            cached[1].save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock "
                "to construct your model, and call net.hybridize() before passing to "
                "Estimator in order to save model architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, file_prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, file_prefix + ".params"))
        estimator.trainer.save_states(os.path.join(self.model_dir, file_prefix + ".states"))
        if "best" in file_prefix:
            return
        self.saved_checkpoints.append(file_prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            self._remove_checkpoint(self.saved_checkpoints.pop(0))

    def _remove_checkpoint(self, prefix):
        for fname in os.listdir(self.model_dir):
            if fname in (prefix + ".params", prefix + ".states"):
                os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator):
        self.trained_epoch, self.trained_batch = self._find_latest_checkpoint()
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            msg += ("%d batches" % estimator.max_batch if estimator.max_batch
                    else "%d epochs" % estimator.max_epoch)
            estimator.logger.info(msg)
            return
        msg = ("CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to train for "
               % (self.trained_epoch, self.trained_batch))
        if estimator.max_epoch:
            if self.trained_epoch >= estimator.max_epoch - 1:
                raise ValueError("Found checkpoint with maximum number of epoch %d reached, please "
                                 "specify resume_from_checkpoint=False (default value) if you want "
                                 "to train from scratch." % estimator.max_epoch)
            estimator.max_epoch = estimator.max_epoch - self.trained_epoch - 1
            msg += "%d epochs " % estimator.max_epoch
        if estimator.max_batch:
            if self.trained_batch >= estimator.max_batch - 1:
                raise ValueError("Found checkpoint with maximum number of batch %d reached, please "
                                 "specify resume_from_checkpoint=False (default value) if you want "
                                 "to train from scratch." % self.trained_batch)
            estimator.max_batch = estimator.max_batch - self.trained_batch - 1
            msg += "%d batches " % estimator.max_batch
        prefix = os.path.join(self.model_dir, "%s-epoch%dbatch%d" % (
            self.model_prefix, self.trained_epoch, self.trained_batch))
        for path in (prefix + ".params", prefix + ".states"):
            if not os.path.exists(path):
                raise ValueError("Failed to load checkpoint, %s does not exist" % path)
        estimator.net.load_parameters(prefix + ".params", ctx=estimator.context)
        estimator.trainer.load_states(prefix + ".states")
        estimator.logger.warning(msg)

    def _find_latest_checkpoint(self):
        """(epoch, batch) of the newest ``<prefix>-epoch<E>batch<B>.params`` in model_dir
        ((-1, -1) when none); registers the checkpoints found for rotation."""
        head = self.model_prefix + "-epoch"
        found = []
        for fname in sorted(os.listdir(self.model_dir)):
            if not (fname.startswith(head) and fname.endswith(".params")):
                continue
            epoch, sep, batch = fname[len(head):-len(".params")].partition("batch")
            if not (sep and epoch.isdigit() and batch.isdigit()):
                raise ValueError("Error parsing checkpoint file, please check your checkpoints "
                                 "have the format: {model_name}-epoch{epoch_number}batch"
                                 "{batch_number}.params, there should also be a .states file "
                                 "for each .params file ")
            found.append((int(epoch), int(batch)))
        found.sort()
        self.saved_checkpoints += ["%s%dbatch%d" % (head, e, b) for e, b in found]
        return found[-1] if found else (-1, -1)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stop training when ``monitor`` has not improved by more than ``min_delta`` (over
    ``baseline``, if given) for ``patience`` epochs; ``mode`` 'auto' maximises accuracy
    and F1 metrics and minimises others."""

    def __init__(self, monitor, min_delta=0, patience=0, mode="auto", baseline=None):
        if not isinstance(monitor, EvalMetric):
            raise ValueError("Please provide one of the metric objects from estimator.train_metrics "
                             "and estimator.val_metrics as monitor.")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, "
                             "please specify a simple metric instead.")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.monitor_op = _monitor_op(monitor, mode, "EarlyStopping")
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.best = _worst(self.monitor_op)

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.best = self.baseline if self.baseline is not None else _worst(self.monitor_op)

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                "%s is not updated, make sure you pass one of the metric objects from "
                "estimator.train_metrics and estimator.val_metrics as monitor." % name))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not "
                                  "improving", self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Apply the gradients at each batch end: ``trainer.step`` with the batch size summed
    over the per-context losses."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs["loss"]
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(value.shape[0] for value in losses))
