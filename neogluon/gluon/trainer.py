"""``gluon.Trainer``: applies an optimizer to a set of Parameters, as MXNet 1.9.1 does.

``step(batch_size)`` scales gradients by ``rescale_grad / batch_size``, sums them across
the parameters' contexts and updates every parameter whose ``grad_req`` is not 'null'. A
gradient that no backward pass wrote since the last step is stale: ``step`` raises MXNet's
UserWarning unless ``ignore_stale_grad=True``, which skips such parameters.

The KVStore follows MXNet's rules (``model._create_kvstore``): with one context and a local
type there is none and one updater per context applies the optimizer; with several contexts
a local :class:`~neogluon.kvstore.KVStore` ('device' by default, or the one given) sums the
gradients, and with ``update_on_kvstore`` (the default then) runs the optimizer itself and
pulls the new weights into every copy; otherwise the summed gradients are pulled back and
each context's updater updates its copy. A distributed ``kvstore`` ('dist_sync',
'dist_device_sync', 'dist_async', 'horovod', 'byteps'; see :mod:`neogluon.kvstore.dist`)
is created even with one context; the gradients are then summed across workers too, so
``step(batch_size)`` should be given the global batch size to average over it. As in
MXNet, 'dist_async' always updates on the KVStore, and with ``update_on_kvstore`` on a
distributed store the ``1/batch_size`` of the first step is kept (a later step with
another batch size raises UserWarning).
"""
import os

from .. import kvstore as kvs
from .. import optimizer as opt
from .. import threads
from ..fileio import atomic_write, read_file
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


def _param_list(params):
    if isinstance(params, (dict, ParameterDict)):
        params = [params[key] for key in sorted(params.keys())]
    if not isinstance(params, (list, tuple)):
        raise ValueError("First argument must be a list or dict of Parameters, got %s." % type(params))
    for param in params:
        if not isinstance(param, Parameter):
            raise ValueError("First argument must be a list or dict of Parameters, got list of %s." % type(param))
    return list(params)


class Trainer:
    """Applies an Optimizer on a set of Parameters (MXNet's ``gluon.Trainer``)."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device', compression_params=None,
                 update_on_kvstore=None):
        self._params = _param_list(params)
        self._param2idx = {}
        for i, param in enumerate(self._params):
            self._param2idx[param.name] = i
            param._set_trainer(self)  # pylint: disable=protected-access
        self._compression_params = compression_params
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._kv_initialized = False
        self._params_to_init = []
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad

    def _init_kvstore(self):
        """Create the KVStore as MXNet does (none for one context), on the first step."""
        config = self._kvstore_params
        kvstore = config['kvstore']
        update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', "1")))
        if isinstance(kvstore, kvs.KVStoreBase):
            kv = kvstore
        elif isinstance(kvstore, str):
            distributed = kvstore.startswith("dist") or kvstore in ("horovod", "byteps")
            kv = kvs.create(kvstore) if len(self._contexts) > 1 or distributed else None
        elif kvstore is None:
            kv = None
        else:
            raise TypeError('kvstore must be KVStore, str or None')
        self._distributed = kv is not None and 'dist' in kv.type
        if kv is not None and 'async' in kv.type:
            if config['update_on_kvstore'] is False:
                raise ValueError("Please set update_on_kvstore=True when training in async mode.")
            update_on_kvstore = True
        if config['update_on_kvstore'] is not None:
            update_on_kvstore = config['update_on_kvstore']
        if kv is not None and update_on_kvstore and not kv.is_capable(kvs.KVStore.OPTIMIZER):
            if config['update_on_kvstore']:
                raise ValueError("Please set update_on_kvstore=False when training with %s" % kv.type)
            update_on_kvstore = False
        if kv is not None:
            if self._compression_params:
                kv.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kv.set_optimizer(self._optimizer)
            self._kvstore = kv
            self._update_on_kvstore = update_on_kvstore
            self._params_to_init = list(range(len(self._params)))
        self._kv_initialized = True

    def _init_params(self):
        """Give each parameter's first copy to the KVStore and to every other context (on the first step)."""
        pending = []
        for i in self._params_to_init:
            param = self._params[i]
            if param._deferred_init:  # pylint: disable=protected-access
                pending.append(i)
                continue
            # MXNet 1.9.1 broadcasts the first copy to every context whatever update_on_kvstore
            self._kvstore.broadcast(i, _arrays(param)[0], _arrays(param))
        self._params_to_init = pending

    def _ensure_kvstore(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise AssertionError("All Parameters must be initialized on the same set of contexts, but "
                                     "Parameter %s is initialized on %s while previous Parameters are initialized "
                                     "on %s." % (param.name, str(ctx), str(contexts)))
            contexts = ctx
        return contexts or []

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise AssertionError("optimizer_params must be None if optimizer is an instance of Optimizer "
                                     "instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    # -- learning rate
    @property
    def learning_rate(self):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (refused when it has an lr_scheduler)."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    # -- steps
    def step(self, batch_size, ignore_stale_grad=False):
        """One optimization step: gradients are normalized by ``1/batch_size``, summed
        across contexts and applied."""
        threads.adapt()  # intra-op threads for the cores free now (neogluon/threads.py)
        self._check_and_rescale_grad(self._scale / batch_size)
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def _check_and_rescale_grad(self, scale):
        """Set ``rescale_grad``; with a distributed store updating on the KVStore it cannot change
        after the first step (MXNet's servers keep the optimizer they were sent)."""
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning('Possible change in the `batch_size` from previous `step` detected. Optimizer '
                                  'gradient normalizing factor will not change w.r.t new batch_size when '
                                  'update_on_kvstore=True and when distributed kvstore is used.')
        self._optimizer.rescale_grad = scale

    def allreduce_grads(self):
        """Sum the gradients of every parameter across its contexts (for use with ``update``)."""
        self._ensure_kvstore()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("allreduce_grads() when parameters are updated on kvstore is not supported. "
                                 "Try setting `update_on_kvstore` to False when creating trainer.")
        self._allreduce_grads()

    def _allreduce_grads(self):
        self._ensure_kvstore()
        if not self._kvstore:
            return
        if self._distributed:  # one call: a distributed store all-reduces the keys together
            keys = [i for i, param in enumerate(self._params) if param.grad_req != 'null']
            grads = [self._params[i].list_grad() for i in keys]
            if self._update_on_kvstore:
                self._kvstore.pushpull(keys, grads, out=[_arrays(self._params[i]) for i in keys])
            else:
                self._kvstore.pushpull(keys, grads)
            return
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            if self._update_on_kvstore:
                self._kvstore.pushpull(i, param.list_grad(), out=_arrays(param), priority=-i)
            else:
                self._kvstore.pushpull(i, param.list_grad(), priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the (already all-reduced) gradients normalized by ``1/batch_size``."""
        self._ensure_kvstore()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("update() when parameters are updated on kvstore is not supported. "
                                 "Try setting `update_on_kvstore` to False when creating trainer.")
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _check_fresh(self, param, arrays):
        for data in arrays:
            if not getattr(data, '_fresh_grad', False):
                raise UserWarning(
                    "Gradient of Parameter `%s` on context %s has not been updated by backward since last `step`. "
                    "This could mean a bug in your model that made it only use a subset of the Parameters (Blocks) "
                    "for this iteration. If you are intentionally only using a subset, call step with "
                    "ignore_stale_grad=True to suppress this warning and skip updating of Parameters with stale "
                    "gradient" % (param.name, str(data.context)))

    def _gather(self, ignore_stale_grad):
        """``(indices, grads, weights)`` per context of the parameters to update. As in
        MXNet, each parameter's gradients are checked fresh (or, with ``ignore_stale_grad``,
        stale ones skipped) and marked consumed in turn: a stale one raises after the
        parameters before it were consumed."""
        # pylint: disable=protected-access
        updates = [([], [], []) for _ in self._updaters]
        on_kvstore = bool(self._kvstore and self._update_on_kvstore)
        one = updates[0] if len(updates) == 1 else None
        for i, param in enumerate(self._params):
            if param._grad_req == 'null':
                continue
            arrays, grads = param._data, param._grad
            if arrays is None or grads is None:  # not initialized: the accessors raise MXNet's errors
                arrays, grads = _arrays(param), param.list_grad()
            if one is not None and len(arrays) == 1:  # one context (the usual case), without the loops below
                arr = arrays[0]
                if not getattr(arr, '_fresh_grad', False):
                    if not ignore_stale_grad:
                        self._check_fresh(param, arrays)
                    continue
                if not on_kvstore:
                    one[0].append(i)
                    one[1].append(grads[0])
                    one[2].append(arr)
                    arr._fresh_grad = False
                continue
            if not ignore_stale_grad:
                self._check_fresh(param, arrays)
            if on_kvstore:
                continue  # the KVStore ran the optimizer in _allreduce_grads
            for (indices, grad_list, weights), arr, grad in zip(updates, arrays, grads):
                if not ignore_stale_grad or getattr(arr, '_fresh_grad', False):
                    indices.append(i)
                    grad_list.append(grad)
                    weights.append(arr)
                    arr._fresh_grad = False
        return updates

    def _update(self, ignore_stale_grad=False):
        loss_scaler = getattr(self, '_amp_loss_scaler', None)
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return  # skip the step on overflow
        for updater, (indices, grads, weights) in zip(self._updaters, self._gather(ignore_stale_grad)):
            if indices:
                updater(indices, grads, weights)

    # -- states
    def save_states(self, fname):
        """Save the optimizer states (and the optimizer) to ``fname``."""
        if self._optimizer is None:
            raise AssertionError("the Trainer has no optimizer")
        self._ensure_kvstore()
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        atomic_write(fname, self._updaters[0].get_states(dump_optimizer=True), "Trainer.save_states")

    def load_states(self, fname):
        """Load optimizer states (and the optimizer) saved by ``save_states``."""
        self._ensure_kvstore()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer  # pylint: disable=protected-access
            self._optimizer.param_dict = dict(enumerate(self._params))
            return
        states = read_file(fname, "Trainer.load_states")
        for updater in self._updaters:
            updater.set_states(states, "Trainer.load_states(%r)" % (fname,))
            updater.optimizer = self._updaters[0].optimizer
        self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))


def _arrays(param):
    """A parameter's arrays on every context, 'row_sparse' ones included (their
    ``list_data`` refuses, as MXNet's: a Trainer updates them whole, lazily on the rows a
    row_sparse gradient stores)."""
    return param._check_and_get(param._data, list)  # pylint: disable=protected-access
