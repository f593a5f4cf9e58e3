"""The Estimator's per-batch training and evaluation steps."""
from .... import autograd
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """MXNet 1.9.1's default ``fit_batch`` / ``evaluate_batch``: split a (data, label)
    batch over the estimator's contexts, run the network (recording for training), the
    loss, and backward. Subclass and override either method to customise a step."""

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Predictions and losses of ``estimator.val_net`` on a validation batch:
        returns (data, label, pred, loss), each a list with one entry per context."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward under ``autograd.record()`` and backward on a training batch (the
        parameter update is GradientUpdateHandler's): returns (data, label, pred, loss)."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for value in loss:
            value.backward()
        return data, label, pred, loss
