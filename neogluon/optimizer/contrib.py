"""``mx.optimizer.contrib``: MXNet 1.9.1's contributed optimizers (``GroupAdaGrad``)."""
import torch

from .. import ndarray as nd
from ..ndarray import NDArray
from .optimizer import Optimizer, _clipped

register = Optimizer.register  # pylint: disable=invalid-name

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of a 2-d weight::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(square(grad), axis=1, keepdims=True)
        weight -= lr * grad / sqrt(history + eps)

    A row_sparse gradient updates only its rows (``nd.contrib.group_adagrad_update``).
    Weight decay is not supported (an ``AssertionError``, as MXNet)."""

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        assert len(weight.shape) == 2
        return nd.zeros((weight.shape[0], 1), weight.context, stype=weight.stype)  # history

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        assert wd == 0, "Weight decay is not supported for GroupAdaGrad"
        if grad.stype == "row_sparse":
            kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kwargs["clip_gradient"] = self.clip_gradient
            nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kwargs)
            return
        g = _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        history = state._t
        history.add_((g * g).mean(1, keepdim=True))
        weight._t.sub_(lr * g / (history + self.float_stable_eps).sqrt())
