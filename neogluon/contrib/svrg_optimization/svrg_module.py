"""``SVRGModule``: a Module trained with Stochastic Variance Reduced Gradient (Johnson &
Zhang, 2013), as MXNet 1.9.1's ``mxnet/contrib/svrg_optimization/svrg_module.py``.

Every ``update_freq`` epochs the module computes the full gradient (the average over every
batch of the data) at a snapshot of its weights, kept by a second Module bound to the same
symbol. Each update then uses ``g(w, batch) - g(snapshot, batch) + full_gradient`` in place
of the batch gradient, passed to the chosen optimizer through ``_SVRGOptimizer``.
"""
import logging

from ... import context as _context
from ... import ndarray as nd
from ...module import Module
from ...module.module import _create_kvstore
from ... import optimizer as _opt
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """A Module trained with SVRG; ``update_freq`` (a positive int) is how many epochs pass
    between two computations of the full gradient. The other arguments are Module's.

    >>> mod = SVRGModule(symbol=lro, data_names=['data'], label_names=['lin_reg_label'], update_freq=2)
    >>> mod.fit(di, eval_metric='mse', optimizer='sgd', optimizer_params=(('learning_rate', 0.025),),
    ...         num_epoch=num_epoch, kvstore='local')
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=_context.cpu(), work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None, update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger, context=context,
                         work_load_list=work_load_list, fixed_param_names=fixed_param_names,
                         state_names=state_names, group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int):
            raise TypeError("update_freq in SVRGModule must be an integer to represent the frequency for "
                            "calculating full gradients")
        if update_freq <= 0:
            raise ValueError("update_freq in SVRGModule must be a positive integer to represent the frequency for "
                             "calculating full gradients")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names, label_names, logger, context, work_load_list,
                               fixed_param_names, state_names, group2ctxs, compression_params)
        self._param_dict = None
        self._ctx_len = len(self._context)

    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind this module and, for training, the snapshot module."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind, shared_module,
                     grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                               shared_module, grad_req)

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """``optimizer`` wrapped in an ``_SVRGOptimizer``; with a KVStore, the keys
        ``<param>_full`` in it sum the full gradients."""
        self._param_dict = [{key: nd.zeros(shape=value.shape, ctx=self._context[i])
                             for key, value in self.get_params()[0].items()} for i in range(self._ctx_len)]
        svrg_optimizer = self._create_optimizer(_SVRGOptimizer.__name__, default_opt=optimizer, kvstore=kvstore,
                                                optimizer_params=optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg_optimizer, optimizer_params=optimizer_params,
                               force_init=force_init)
        if self._kvstore:
            for idx, param_on_devs in enumerate(self._exec_group.param_arrays):
                name = self._exec_group.param_names[idx]
                self._kvstore.init(name + "_full", nd.zeros(shape=self._arg_params[name].shape))
                if self._update_on_kvstore:
                    self._kvstore.pull(name + "_full", param_on_devs, priority=-idx)

    def _create_optimizer(self, optimizer, default_opt, kvstore, optimizer_params):
        """The ``_SVRGOptimizer``, with Module's ``rescale_grad`` and indices, plus one index
        per ``<param>_full`` key."""
        batch_size = self._exec_group.batch_size
        kv_store, update_on_kvstore = _create_kvstore(kvstore, self._ctx_len, self._arg_params)
        if kv_store and "dist" in kv_store.type and "_sync" in kv_store.type:
            batch_size *= kv_store.num_workers
        idx2name = {}
        if update_on_kvstore:
            idx2name.update(enumerate(self._exec_group.param_names))
        else:
            for k in range(self._ctx_len):
                idx2name.update({i * self._ctx_len + k: n for i, n in enumerate(self._exec_group.param_names)})
        for key in self._param_dict[0]:
            idx2name[max(idx2name) + 1] = key + "_full"
        optimizer_params = dict(optimizer_params)
        optimizer_params.setdefault("rescale_grad", 1.0 / batch_size)
        optimizer_params["default_optimizer"] = default_opt
        optimizer_params["param_idx2name"] = idx2name
        return _opt.create(optimizer, **optimizer_params)

    def forward(self, data_batch, is_train=None):
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """Replace the batch gradients by SVRG's and apply the optimizer."""
        self._update_svrg_gradients()
        super().update()

    def update_full_grads(self, train_data):
        """Snapshot the weights into the auxiliary module and average its gradients over
        every batch of ``train_data`` (a padded last batch counts as its fraction)."""
        param_names = self._exec_group.param_names
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        train_data.reset()
        nbatch = 0
        padding = 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for ctx in range(self._ctx_len):
                for index, name in enumerate(param_names):
                    grads = self._mod_aux._exec_group.grad_arrays[index][ctx]
                    self._param_dict[ctx][name] = self._param_dict[ctx][name] + grads
            padding = batch.pad
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in param_names:
            grad_list = []
            for i in range(self._ctx_len):
                self._param_dict[i][name] /= true_num_batch
                grad_list.append(self._param_dict[i][name])
            if self._kvstore:
                self._accumulate_kvstore(name, grad_list)

    def _accumulate_kvstore(self, key, value):
        """Sum the devices' (and workers') full gradients through the KVStore key ``<key>_full``."""
        self._kvstore.push(key + "_full", value)
        barrier = getattr(self._kvstore, "_barrier", None)
        if barrier is not None:
            barrier()
        self._kvstore.pull(key + "_full", value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight, g_special_weight_all_batch):
        """``g(w, batch) - g(snapshot, batch) + full_gradient``, written into the first array."""
        g_curr_batch_curr_weight -= g_curr_batch_special_weight
        g_curr_batch_curr_weight += g_special_weight_all_batch
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        for ctx in range(self._ctx_len):
            for index, name in enumerate(self._exec_group.param_names):
                g_curr = self._exec_group.grad_arrays[index][ctx]
                g_special = self._mod_aux._exec_group.grad_arrays[index][ctx]
                self._exec_group.grad_arrays[index][ctx] = self._svrg_grads_update_rule(
                    g_curr, g_special, self._param_dict[ctx][name])

    def _fit_epoch(self, train_data, epoch, eval_metric, batch_end_callback, monitor, sparse_row_id_fn):
        """Module's epoch of ``fit``, the full gradient recomputed first every ``update_freq`` epochs."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        train_data.reset()
        return super()._fit_epoch(train_data, epoch, eval_metric, batch_end_callback, monitor, sparse_row_id_fn)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
