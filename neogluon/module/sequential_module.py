"""``mx.mod.SequentialModule``: modules chained output-to-input, as MXNet 1.9.1's.

Each module after the first is bound with ``inputs_need_grad`` (when training) so that
``backward`` passes each module's input gradients to the one before it; ``take_labels=True``
gives a module the batch's labels (and makes it update the metric); ``auto_wiring=True``
renames the previous outputs to the module's data names.
"""
import copy
import logging

from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A container running its modules one after the other."""

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {SequentialModule.META_TAKE_LABELS, SequentialModule.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` (keywords: ``take_labels``, ``auto_wiring``); returns self for chaining."""
        for key in kwargs:
            if key not in self._meta_keys:
                raise AssertionError('Unknown meta "%s", a typo?' % key)
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._require("binded")
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        self._require("binded")
        return self._label_shapes

    @property
    def output_shapes(self):
        self._require("binded")
        return self._modules[-1].output_shapes

    def get_params(self):
        self._require("binded", "params_initialized")
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize every module's parameters; a name used by two modules is an error."""
        if self.params_initialized and not force_init:
            return
        self._require("binded")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        arg_owner, aux_owner = {}, {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            for owner, names in ((arg_owner, arg), (aux_owner, aux)):
                for name in names:
                    if name in owner:
                        raise AssertionError('Duplicated parameter names: name "%s" in layer %d (%s) is already '
                                             'used in layer %d (%s).' % (name, i, type(module), owner[name],
                                                                         type(self._modules[owner[name]])))
                    owner[name] = i
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind each module on the previous module's output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise AssertionError("inputs_need_grad=True needs for_training=True")
        if shared_module is not None:
            raise AssertionError("Shared module is not supported")
        if not self._modules:
            raise AssertionError("Attempting to bind an empty SequentialModule")
        self.binded = True
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        anybody_needs_label = False
        for i, (module, meta) in enumerate(zip(self._modules, self._metas)):
            my_label_shapes = None
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                my_label_shapes = label_shapes
                anybody_needs_label = True
            if meta.get(SequentialModule.META_AUTO_WIRING, False):
                data_names = module.data_names
                if len(data_names) != len(my_data_shapes):
                    raise AssertionError("auto_wiring: module %d takes %d inputs, the previous gives %d"
                                         % (i, len(data_names), len(my_data_shapes)))
                my_data_shapes = [(new, shape) for new, (_, shape) in zip(data_names, my_data_shapes)]
            module.bind(data_shapes=my_data_shapes, label_shapes=my_label_shapes, for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and i > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            my_data_shapes = module.output_shapes
        if not anybody_needs_label:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        self._require("binded", "params_initialized")
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        """Forward through each module, feeding its outputs to the next."""
        self._require("binded", "params_initialized")
        data_batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, "provide_data"):
                names = [x[0] for x in module.output_shapes]
                data_batch.provide_data = [(name, x.shape) for name, x in zip(names, data_batch.data)]

    def backward(self, out_grads=None):
        """Backward from the last module, passing input gradients down."""
        self._require("binded", "params_initialized")
        for i in reversed(range(len(self._modules))):
            self._modules[i].backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = self._modules[i].get_input_grads()

    def update(self):
        self._require("binded", "params_initialized", "optimizer_initialized")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._require("binded", "params_initialized")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._require("binded", "params_initialized")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update the metric from the modules given ``take_labels``."""
        self._require("binded", "params_initialized")
        for meta, module in zip(self._metas, self._modules):
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._require("binded")
        for module in self._modules:
            module.install_monitor(mon)
