"""``mx.optimizer.contrib``: MXNet 1.9.1's contrib optimizers (``GroupAdaGrad``)."""
import torch

from .. import ndarray as nd
from .optimizer import Optimizer, _clipped, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-D weight (GluonNLP's word embedding
    scripts train with it as ``'groupadagrad'``): ``history += mean(g**2, axis=1)``,
    ``weight -= lr * g / sqrt(history + eps)`` with ``g = clip(rescale_grad * grad)``. A
    row_sparse gradient goes through ``group_adagrad_update`` (only its rows change); weight
    decay is not supported, as in MXNet."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2
        return nd.zeros((weight.shape[0], 1), weight.context, stype=weight.stype)  # history

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        assert self._get_wd(index) == 0, "Weight decay is not supported for GroupAdaGrad"
        if grad.stype == "row_sparse":
            kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kwargs["clip_gradient"] = self.clip_gradient
            nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kwargs)
            return
        g = _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        history = state._t
        history.add_((g * g).mean(dim=1, keepdim=True))
        weight._t.sub_(lr * g / (history + self.float_stable_eps).sqrt())
