"""``mx.contrib.tensorboard``: ``LogMetricsCallback``, which writes a training's metrics as
TensorBoard scalars (MXNet 1.9.1's ``mxnet/contrib/tensorboard.py``).

MXNet writes through ``mxboard``'s ``SummaryWriter``; neogluon takes the first of
``mxboard``, ``tensorboardX`` and ``torch.utils.tensorboard`` that imports (the same
``add_scalar(name, value, global_step)``). ``pip install neogluon[tensorboard]`` installs
tensorboardX.
"""
import importlib

__all__ = ["LogMetricsCallback"]

_WRITERS = ("mxboard", "tensorboardX", "torch.utils.tensorboard")


def _summary_writer(logging_dir):
    missing = []
    for module in _WRITERS:
        try:
            writer = importlib.import_module(module).SummaryWriter
        except ImportError as err:
            missing.append("%s (%s)" % (module, err))
            continue
        return writer(logging_dir)
    raise ImportError("mx.contrib.tensorboard.LogMetricsCallback needs a TensorBoard SummaryWriter: install the "
                      "'tensorboard' extra (pip install neogluon[tensorboard], which brings tensorboardX) or "
                      "mxboard; none imports: " + "; ".join(missing))


class LogMetricsCallback:
    """A ``batch_end_callback``/``eval_end_callback`` writing each metric of
    ``param.eval_metric`` as a TensorBoard scalar at step ``param.epoch``, named
    ``<prefix>-<metric>`` when ``prefix`` is given.

    >>> batch_end_callbacks = [mx.contrib.tensorboard.LogMetricsCallback('logs/train')]
    >>> eval_end_callbacks = [mx.contrib.tensorboard.LogMetricsCallback('logs/eval')]
    >>> model.fit(train, ..., batch_end_callback=batch_end_callbacks, eval_end_callback=eval_end_callbacks)
    """

    def __init__(self, logging_dir, prefix=None):
        self.prefix = prefix
        self.summary_writer = _summary_writer(logging_dir)

    def __call__(self, param):
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = "%s-%s" % (self.prefix, name)
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
