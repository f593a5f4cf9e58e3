"""AMP's dynamic loss scaler (MXNet's ``mx.contrib.amp.loss_scaler.LossScaler``)."""
import logging

import torch

__all__ = ["LossScaler"]


class LossScaler:
    """Dynamic loss scale: starts at 2**16, halves after a step whose gradients overflow
    (the step is skipped), doubles after 2000 steps without overflow, at most 2**24."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` is inf or NaN; updates the next scale."""
        grads = [g._t for p in params if p.grad_req != "null" and p._grad is not None  # pylint: disable=protected-access
                 for g in p.list_grad()]
        overflow = any(not bool(torch.isfinite(g).all()) for g in grads)
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
