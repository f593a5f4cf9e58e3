"""``mx.mod.PythonModule`` and ``PythonLossModule``: modules written in Python, as MXNet 1.9.1's.

A PythonModule has no parameters; subclasses implement ``_compute_output_shapes``,
``forward``, ``backward``, ``get_outputs`` and ``get_input_grads``. PythonLossModule passes its
input through as ``<name>_output`` and, in ``backward``, returns ``grad_func(scores, labels)``
as the input gradient (used as the last module of a SequentialModule).
"""
import logging

from .. import ndarray as nd
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A parameter-less module whose computation is Python code."""

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    @property
    def data_names(self):
        return self._data_names

    @property
    def output_names(self):
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    def get_params(self):
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Nothing to initialize."""

    def update(self):
        """Nothing to update."""

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Record the shapes (checked against the names) and compute the output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise AssertionError("Python module only support write gradient")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        if [x[0] for x in data_shapes] != list(self._data_names):
            raise AssertionError("PythonModule.bind: data shapes %s do not match data_names %s"
                                 % (data_shapes, self._data_names))
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            if self._label_names is None or [x[0] for x in label_shapes] != list(self._label_names):
                raise AssertionError("PythonModule.bind: label shapes %s do not match label_names %s"
                                     % (label_shapes, self._label_names))
        self._output_shapes = self._compute_output_shapes()  # (MXNet leaves ``binded`` False here)

    def _compute_output_shapes(self):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Nothing to optimize."""


class PythonLossModule(PythonModule):
    """A loss written in Python: output = input, input gradient = ``grad_func(scores, labels)``."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        if len(data_names) != 1 or len(label_names) != 1:
            raise AssertionError("PythonLossModule takes one data and one label input")
        if grad_func is not None and not callable(grad_func):
            raise AssertionError("grad_func must be callable")
        self._scores = None
        self._labels = None
        self._scores_grad = None
        self._grad_func = grad_func

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        return [self._scores]

    def backward(self, out_grads=None):
        if out_grads is not None:
            raise AssertionError("For a loss module, out_grads should be None")
        if not self.for_training:
            raise AssertionError("PythonLossModule.backward needs for_training=True")
        self._backward_impl()

    def _backward_impl(self):
        if self._grad_func is None:
            raise NotImplementedError()
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        return [self._scores_grad]

    def install_monitor(self, mon):
        raise NotImplementedError()
