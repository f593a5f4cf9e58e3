"""The optimizers behind :class:`~neogluon.contrib.svrg_optimization.svrg_module.SVRGModule`
(MXNet 1.9.1's ``svrg_optimizer.py``): ``_SVRGOptimizer`` sends the updates of a
parameter to the optimizer the user chose and those of the full-gradient keys
(``<name>_full``) to ``_AssignmentOptimizer``, which stores the gradient as the value (how
the full gradients are summed in a KVStore)."""
from ... import optimizer as _opt

__all__ = []

# the keyword arguments of Optimizer.__init__: the rest belong to the wrapped optimizer
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate", "lr_scheduler", "sym",
                "begin_num_update", "multi_precision", "param_dict")


@_opt.Optimizer.register
class _AssignmentOptimizer(_opt.Optimizer):
    """``weight[:] = grad``: accumulates full gradients in the KVStore (SVRGModule only)."""

    def update(self, index, weight, grad, state):
        weight[:] = grad


@_opt.Optimizer.register
class _SVRGOptimizer(_opt.Optimizer):
    """Two optimizers in one (SVRGModule only): ``default_optimizer`` (a name, created with
    every keyword given, or an Optimizer) for the parameters and ``_AssignmentOptimizer`` for
    the keys whose name contains ``full``."""

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**self._check_params(**kwargs))
        if isinstance(default_optimizer, str):
            self.default_opt = _opt.create(default_optimizer, **kwargs)
        else:
            self.default_opt = default_optimizer
        self.aux_opt = _opt.create(_AssignmentOptimizer.__name__)

    @staticmethod
    def _check_params(**kwargs):
        """The keyword arguments that ``Optimizer.__init__`` takes."""
        return {key: value for key, value in kwargs.items() if key in _BASE_PARAMS}

    def update(self, index, weight, grad, state):
        if "full" in self._check_index(index):
            self.aux_opt.update(index, weight, grad, state)
        else:
            self.default_opt.update(index, weight, grad, state)

    def create_state(self, index, weight):
        if "full" in self._check_index(index):
            return self.aux_opt.create_state(index, weight)
        return self.default_opt.create_state(index, weight)

    def _check_index(self, index):
        """The parameter name of ``index`` (an int of ``idx2name``, or the name itself)."""
        if index in self.idx2name.values():
            return index
        return self.idx2name[index]
