"""MXNet 1.9.1's optimizers on neogluon's update operators.

An :class:`Optimizer` turns ``(index, weight, grad, state)`` into an in-place weight
update: the per-parameter learning rate and weight decay come from ``learning_rate`` (or
the ``lr_scheduler`` at ``num_update``) times ``lr_mult``/``wd_mult`` (from a Gluon
Parameter in ``param_dict``, from ``set_lr_mult``/``set_wd_mult`` or the ``__lr_mult__``/
``__wd_mult__`` attributes of ``sym``); gradients are multiplied by ``rescale_grad`` and
clipped to ``clip_gradient``. ``multi_precision=True`` keeps a float32 master copy of
float16 weights. The optimizers call the registry's fused update operators where MXNet
does (``sgd_mom_update``, ``adam_update``, ...) and reproduce MXNet's NDArray arithmetic
where it has none (AdaGrad, AdaDelta, Adamax, Nadam, DCASGD, SGLD).

:class:`Updater` holds the states by index, as ``get_updater`` returns it to Trainer and
KVStore users; ``get_states``/``set_states`` pickle them (with the optimizer if asked).
"""
import math
import numbers
import os
import warnings

import numpy
import torch

from .. import ndarray as nd
from ..base import register_by_name
from ..ndarray import NDArray
from ..operator import registry as _registry
from ..operator.optimizer_ops import nag_mom_update_inplace
from . import fused
from . import states as _states

__all__ = ["Optimizer", "SGD", "NAG", "Signum", "FTML", "LAMB", "DCASGD", "SGLD", "Adam", "AdamW", "AdaGrad",
           "RMSProp", "AdaDelta", "Ftrl", "Adamax", "Nadam", "Test", "ccSGD", "Updater", "create",
           "get_updater", "register"]


def _zeros_like(weight, dtype=None):
    return nd.zeros(weight.shape, weight.context, dtype=dtype or weight.dtype)


def _fp16(weight):
    return weight.dtype == numpy.float16


def _fp16_warning(name="the"):
    warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow convergence. "
                  "Consider using multi_precision=True option of %s optimizer" % name)



def _read_attr(op, name, value):
    """``value`` of the attribute ``name`` as the operator ``op`` reads it, for the fused
    paths that do not call it: ``Trainer.step(num_tokens)`` with a 0-d ``mx.np`` array
    leaves ``rescale_grad`` an array, which MXNet's update operators read as its number."""
    if isinstance(value, numbers.Number):
        return value
    return _registry.get(op).parse_attr(name, value)

class Optimizer:
    """The base class: learning rate and weight decay bookkeeping, the registry and the
    multi-precision wrapper. Subclasses define ``create_state`` and ``update``."""

    opt_registry = {}

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None):
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if self.lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if self.lr_scheduler is not None and learning_rate is not None:
            if self.lr_scheduler.base_lr != learning_rate:
                print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                                  "``learning_rate`` in optimizer."))
                self.lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise AssertionError('param_idx2name should be a dict of param indexes to names.')
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry
    @staticmethod
    def register(klass):
        """Register an optimizer class under its lower-cased name (for ``create``)."""
        return register_by_name(Optimizer.opt_registry, klass, "optimizer")

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An optimizer instance from its registered (case-insensitive) name."""
        if name.lower() in Optimizer.opt_registry:
            return Optimizer.opt_registry[name.lower()](**kwargs)
        raise ValueError('Cannot find optimizer %s' % name)

    # -- learning rate
    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate; refused (UserWarning, as MXNet) when a scheduler is set."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the optimizer "
                              "only when the LRScheduler of the optimizer is undefined.")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):  # pylint: disable=unused-argument
        raise DeprecationWarning

    def _sym_mult(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def set_lr_mult(self, args_lr_mult):
        """Per-parameter learning-rate multipliers by name or index (over the ``__lr_mult__``
        attributes of ``sym``)."""
        self.lr_mult = self._sym_mult('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def _no_wd_name(self, name):
        return not (name.endswith('_weight') or name.endswith('_gamma'))

    def set_wd_mult(self, args_wd_mult):
        """Per-parameter weight-decay multipliers; as in MXNet, named parameters other than
        ``*_weight``/``*_gamma`` get no weight decay unless told otherwise."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if self._no_wd_name(n)}
        self.wd_mult.update(self._sym_mult('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    # -- per-index bookkeeping
    def _set_current_context(self, device_id):
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _mult(self, index, attr, table):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._mult(i, 'lr_mult', self.lr_mult) for i in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * self._mult(i, 'wd_mult', self.wd_mult) for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _clip_kwargs(self, key='clip_gradient'):
        """MXNet passes clip_gradient to the operators only when it is set and non-zero."""
        return {key: self.clip_gradient} if self.clip_gradient else {}

    # -- states and updates
    def create_state(self, index, weight):
        """The optimizer state for a weight (None for stateless optimizers)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """``(weight32, state)`` for a float16 weight under multi_precision, else the state."""
        if self.multi_precision and _fp16(weight):
            weight_master_copy = weight.astype(numpy.float32)
            return (weight_master_copy,) + (self.create_state(index, weight_master_copy),)
        if _fp16(weight) and not self.multi_precision:
            _fp16_warning()
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise TypeError("%s does not define update(index, weight, grad, state)" % type(self).__name__)

    def fused_update(self, indices, weights, grads, states):  # pylint: disable=unused-argument
        """Update a group of parameters at once when this optimizer has a multi-tensor
        path that gives the same results as updating them one by one; False (nothing
        done) otherwise. The Updater tries it first."""
        return False

    def update_multi_precision(self, index, weight, grad, state):
        """Update through the float32 master copy when multi_precision applies."""
        if self.multi_precision and _fp16(weight):
            weight_master_copy, original_state = state[0], state[1]
            self.update(index, weight_master_copy, grad.astype(numpy.float32), original_state)
            nd.Cast(weight_master_copy, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def __getstate__(self):
        ret = self.__dict__.copy()
        del ret['param_dict']
        return ret

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register  # pylint: disable=invalid-name
create = Optimizer.create_optimizer  # pylint: disable=invalid-name


class _MasterCopyFirst(Optimizer):
    """SGD-like optimizers whose fused ``mp_`` operators take ``(state, weight32)``."""

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and _fp16(weight):
            weight_master_copy = weight.astype(numpy.float32)
            return (self.create_state(index, weight_master_copy), weight_master_copy)
        if _fp16(weight) and not self.multi_precision:
            _fp16_warning("the " + type(self).__name__)
        return self.create_state(index, weight)

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _step_kwargs(self, index):
        self._update_count(index)
        return self._op_kwargs(self._get_lr(index), self._get_wd(index))

    def _op_kwargs(self, lr, wd):
        kwargs = {'rescale_grad': self.rescale_grad, 'lr': lr, 'wd': wd}
        if self.momentum > 0:
            kwargs['momentum'] = self.momentum
        kwargs.update(self._clip_kwargs())
        return kwargs

    def _use_mp(self, weight, state):
        if isinstance(weight, (list, tuple)):  # an aggregated group shares one dtype
            return self.multi_precision and _fp16(weight[0])
        return self.multi_precision and _fp16(weight) and isinstance(state, (tuple, list))

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=self._use_mp(weight, state))

    def _each(self, index, weight, grad, state, fn):
        """Apply ``fn(weight, grad, state, op_kwargs)`` to one parameter or to each of an
        aggregated list. As MXNet, an aggregated list counts its updates first and then
        reads its learning rates (the scheduler sees the list's ``num_update``)."""
        if isinstance(index, (list, tuple)):
            self._update_count(index)
            for w, g, s, lr, wd in zip(weight, grad, state, self._get_lrs(index), self._get_wds(index)):
                fn(w, g, s, self._op_kwargs(lr, wd))
        else:
            fn(weight, grad, state, self._step_kwargs(index))


@register
class SGD(_MasterCopyFirst):
    """Stochastic gradient descent with optional momentum (``sgd_update``/``sgd_mom_update``,
    their ``mp_`` variants under multi_precision)."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', "4"))

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        def one(w, g, s, kwargs):
            if not multi_precision:
                if s is not None:
                    nd.sgd_mom_update(w, g, s, out=w, lazy_update=self.lazy_update, **kwargs)
                else:
                    nd.sgd_update(w, g, out=w, lazy_update=self.lazy_update, **kwargs)
            elif s[0] is not None:
                nd.mp_sgd_mom_update(w, g, s[0], s[1], out=w, **kwargs)
            else:
                nd.mp_sgd_update(w, g, s[1], out=w, **kwargs)
        self._each(index, weight, grad, state, one)

    def fused_update(self, indices, weights, grads, states):
        """All the (non multi-precision) updates of a group in one multi-tensor SGD step,
        with the counts and learning rates of MXNet's aggregated lists of
        ``aggregate_num``."""
        if type(self)._update_impl is not SGD._update_impl or self._use_mp(weights, None):
            return False
        moms = None if self.momentum == 0.0 else [s._t for s in states]
        w, g = [x._t for x in weights], [x._t for x in grads]
        if not fused.groupable(w, g, *(moms,) if moms else ()):
            return False
        if self.lr_scheduler is None and type(self)._get_lrs is Optimizer._get_lrs \
                and type(self)._get_wds is Optimizer._get_wds:
            # the rates do not follow num_update: counting the lists one after the other is counting them all
            self._update_count(indices)
            lrs, wds = list(map(float, self._get_lrs(indices))), list(map(float, self._get_wds(indices)))
        else:
            lrs, wds = [], []
            size = max(self.aggregate_num, 1)
            for start in range(0, len(indices), size):
                chunk = indices[start:start + size]
                self._update_count(chunk)
                lrs.extend(map(float, self._get_lrs(chunk)))
                wds.extend(map(float, self._get_wds(chunk)))
        clip = self.clip_gradient if self.clip_gradient else -1.0
        rescale = _read_attr("multi_sgd_mom_update" if moms else "multi_sgd_update", "rescale_grad",
                             self.rescale_grad)
        fused.sgd(w, g, moms, lrs, wds, self.momentum if self.momentum > 0 else 0.0, rescale, clip,
                  fused.scratch(self))
        return True


@register  # pylint: disable=invalid-name
class ccSGD(SGD):
    """Deprecated alias of SGD."""


@register
class NAG(_MasterCopyFirst):
    """Nesterov accelerated gradient (``nag_mom_update``; plain SGD without momentum)."""

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        kwargs = self._step_kwargs(index)
        if not multi_precision:
            if state is not None:
                nag_mom_update_inplace(weight._t, grad._t, state._t, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, **kwargs)
        elif state[0] is not None:
            nd.mp_nag_mom_update(weight, grad, state[0], state[1], out=weight, **kwargs)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, **kwargs)


@register
class Signum(Optimizer):
    """Signum (sign of the momentum; signSGD without momentum)."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        kwargs = {'rescale_grad': self.rescale_grad, 'lr': self._get_lr(index), 'wd': self._get_wd(index)}
        if self.momentum > 0:
            kwargs['momentum'] = self.momentum
        kwargs.update(self._clip_kwargs())
        if self.wd_lh:
            kwargs['wd_lh'] = self.wd_lh
        if state is not None:
            nd.signum_update(weight, grad, state, out=weight, **kwargs)
        else:
            nd.signsgd_update(weight, grad, out=weight, **kwargs)


@register
class FTML(Optimizer):
    """Follow the Moving Leader (``ftml_update``)."""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))  # d, v, z

    def update(self, index, weight, grad, state):
        self._update_count(index)
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad, 't': self._index_update_count[index]}
        kwargs.update(self._clip_kwargs('clip_grad'))
        prev_d, prev_v, prev_z = state
        nd.ftml_update(weight, grad, prev_d, prev_v, prev_z, out=weight, lr=self._get_lr(index),
                       wd=self._get_wd(index), **kwargs)


@register
class LAMB(Optimizer):
    """Layer-wise adaptive moments (``lamb_update_phase1``/``phase2`` with the norms of the
    weight and of the Adam direction)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', "45"))))

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def _bounds(self):
        kwargs = {}
        if self.lower_bound:
            kwargs['lower_bound'] = self.lower_bound
        if self.upper_bound:
            kwargs['upper_bound'] = self.upper_bound
        return kwargs

    def _update_one(self, index, weight, grad, state, multi_precision, aggregated):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'bias_correction': self.bias_correction, 'rescale_grad': self.rescale_grad,
                  't': self._index_update_count[index]}
        kwargs.update(self._clip_kwargs())
        if not multi_precision:
            mean, var = state
            g = nd.lamb_update_phase1(weight, grad, mean, var, wd=wd, **kwargs)
            nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight, **self._bounds())
            return
        weight32, (mean, var) = state
        g = nd.mp_lamb_update_phase1(weight, grad, mean, var, weight32, wd=wd, **kwargs)
        if aggregated:
            # MXNet's multi_mp_lamb_update (the Updater's path) advances the master weight
            nd.lamb_update_phase2(weight32, g, weight32.norm(), g.norm(), lr=lr, out=weight32, **self._bounds())
            nd.Cast(weight32, dtype=weight.dtype, out=weight)
        else:
            # mp_lamb_update_phase2 leaves weight32 as it was, as in MXNet 1.9.1
            nd.mp_lamb_update_phase2(weight, g, weight32.norm(), g.norm(), weight32, lr=lr, out=weight,
                                     **self._bounds())

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        aggregated = isinstance(index, (list, tuple))
        if not aggregated:
            index, weight, grad, state = [index], [weight], [grad], [state]
        for i, w, g, s in zip(index, weight, grad, state):
            self._update_one(i, w, g, s, multi_precision, aggregated)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(weight, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state, multi_precision=self.multi_precision and _fp16(first))


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD, with MXNet's NDArray arithmetic."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        mom = _zeros_like(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        w, g = weight._t, _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        mom, previous_weight = state
        step = -lr * (g + wd * w + self.lamda * g * g * (w - previous_weight._t))
        if mom is not None:
            mom._t.mul_(self.momentum).add_(step)
            step = mom._t
        previous_weight._t.copy_(w)
        w.add_(step)


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: a half SGD step plus N(0, lr) noise."""

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        w, g = weight._t, _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        w.add_(-lr / 2 * (g + wd * w))
        w.add_(nd.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype, ctx=weight.context)._t)


def _clipped(g, clip_gradient):
    """MXNet's hand-written optimizers clip whenever clip_gradient is not None."""
    return g.clamp(-clip_gradient, clip_gradient) if clip_gradient is not None else g


@register
class Adam(Optimizer):
    """Adam; the bias correction is folded into the learning rate and the fused
    ``adam_update`` does the rest."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))  # mean, variance

    def _count_lr_wd(self, index):
        """Count the update of ``index``; its bias-corrected learning rate and weight decay."""
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        return lr, wd

    def update(self, index, weight, grad, state):
        lr, wd = self._count_lr_wd(index)
        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad}
        kwargs.update(self._clip_kwargs())
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lazy_update=self.lazy_update, lr=lr, wd=wd, **kwargs)

    def fused_update(self, indices, weights, grads, states):
        """The updates of a group in one multi-tensor ``adam_update`` (not for float16
        weights under multi_precision, nor for subclasses that change ``update``)."""
        if type(self).update is not Adam.update or type(self).update_multi_precision is not \
                Optimizer.update_multi_precision or (self.multi_precision and _fp16(weights[0])):
            return False
        w, g = [x._t for x in weights], [x._t for x in grads]
        means, variances = [s[0]._t for s in states], [s[1]._t for s in states]
        if not fused.groupable(w, g, means, variances):
            return False
        lrs, wds = [], []
        for index in indices:  # one by one, as the per-parameter path counts them
            lr, wd = self._count_lr_wd(index)
            lrs.append(float(lr))
            wds.append(float(wd))
        clip = self.clip_gradient if self.clip_gradient else -1.0
        fused.adam(w, g, means, variances, lrs, wds, self.beta1, self.beta2, self.epsilon,
                   _read_attr("adam_update", "rescale_grad", self.rescale_grad), clip, fused.scratch(self))
        return True


@register
class AdamW(Optimizer):
    """Adam with decoupled weight decay (Loshchilov & Hutter) on MXNet's ``_adamw_update``:
    ``weight -= lr * (mean_hat/(sqrt(var_hat) + epsilon) + wd*weight)``, with the bias
    correction folded into ``lr`` when ``correct_bias``. MXNet 1.9.1 has the operator but
    no optimizer class; this follows MXNet 2.0's ``mx.optimizer.AdamW``."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, correct_bias=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.correct_bias = correct_bias

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if self.correct_bias:
            t = self._index_update_count[index]
            lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        scale = nd.full((1,), self.rescale_grad, ctx=weight.context, dtype=numpy.float32)
        nd._adamw_update(weight, grad, mean, var, scale, out=weight, lr=1.0, eta=lr, wd=wd,  # pylint: disable=protected-access
                         beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, **self._clip_kwargs())


@register
class AdaGrad(Optimizer):
    """AdaGrad with MXNet's dense arithmetic (history in float32)."""

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)  # history

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if grad.stype == "row_sparse":  # MXNet's sparse kernel: only the rows the gradient stores
            kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kwargs["clip_gradient"] = self.clip_gradient
            nd.sparse.adagrad_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
            return
        w, g = weight._t, _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        history = state._t
        history.add_(g * g)
        w.add_((g / (history + self.float_stable_eps).sqrt() + w * wd) * -lr)


@register
class RMSProp(Optimizer):
    """RMSProp (``rmsprop_update``), or Graves' centered version with ``centered=True``
    (``rmspropalex_update``)."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        n = 3 if self.centered else 1
        return tuple(nd.zeros(weight.shape, weight.context) for _ in range(n))

    def update(self, index, weight, grad, state):
        self._update_count(index)
        kwargs = {'gamma1': self.gamma1, 'epsilon': self.epsilon, 'rescale_grad': self.rescale_grad,
                  'lr': self._get_lr(index), 'wd': self._get_wd(index)}
        if self.centered:
            kwargs['gamma2'] = self.gamma2
        kwargs.update(self._clip_kwargs())
        if self.clip_weights:
            kwargs['clip_weights'] = self.clip_weights
        if self.centered:
            n, g, delta = state
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, **kwargs)
        else:
            nd.rmsprop_update(weight, grad, state[0], out=weight, **kwargs)


@register
class AdaDelta(Optimizer):
    """AdaDelta with MXNet's arithmetic (no learning rate; weight decay added to the step)."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        wd = self._get_wd(index)
        self._update_count(index)
        w, g = weight._t, _clipped(grad._t * self.rescale_grad, self.clip_gradient)
        acc_g, acc_delta = state[0]._t, state[1]._t
        acc_g.mul_(self.rho).add_((1. - self.rho) * g * g)
        current_delta = (acc_delta + self.epsilon).sqrt() / (acc_g + self.epsilon).sqrt() * g
        acc_delta.mul_(self.rho).add_((1. - self.rho) * current_delta * current_delta)
        w.sub_(current_delta + wd * w)


@register
class Ftrl(Optimizer):
    """FTRL-proximal (``ftrl_update``)."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))  # z, n

    def update(self, index, weight, grad, state):
        self._update_count(index)
        kwargs = {'lamda1': self.lamda1, 'beta': self.beta, 'rescale_grad': self.rescale_grad}
        kwargs.update(self._clip_kwargs())
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=self._get_lr(index), wd=self._get_wd(index), **kwargs)


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm), with MXNet's arithmetic."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        lr /= (1. - self.beta1 ** self._index_update_count[index])
        w = weight._t
        g = _clipped(grad._t * self.rescale_grad + wd * w, self.clip_gradient)
        m_t, u_t = state[0]._t, state[1]._t
        m_t.mul_(self.beta1).add_((1. - self.beta1) * g)
        torch.maximum(self.beta2 * u_t, g.abs(), out=u_t)
        w.sub_(lr * m_t / u_t)


@register
class Nadam(Optimizer):
    """Nesterov Adam with MXNet's momentum schedule (one schedule per optimizer, as MXNet)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return (_zeros_like(weight), _zeros_like(weight))

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        w = weight._t
        g = _clipped(grad._t * self.rescale_grad + wd * w, self.clip_gradient)
        momentum_t = self.beta1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))
        momentum_t_1 = self.beta1 * (1. - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m_t, v_t = state[0]._t, state[1]._t
        m_t.mul_(self.beta1).add_((1. - self.beta1) * g)
        v_t.mul_(self.beta2).add_((1. - self.beta2) * g * g)
        grad_prime = g / (1. - self.m_schedule)
        m_t_prime = m_t / (1. - m_schedule_next)
        v_t_prime = v_t / (1. - pow(self.beta2, t))
        m_t_bar = (1. - momentum_t) * grad_prime + momentum_t_1 * m_t_prime
        w.sub_(lr * m_t_bar / (v_t_prime.sqrt() + self.epsilon))


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``weight += rescale_grad * grad`` and the state mirrors it."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    @torch.no_grad()
    def update(self, index, weight, grad, state):
        weight._t.add_(grad._t * self.rescale_grad)
        state._t.copy_(weight._t)


# ----------------------------------------------------------------------------- Updater
class Updater:
    """Applies an optimizer by index, creating each index's state on first use.

    Called as ``updater(index, grad, weight)`` with one index or lists of them (as
    Trainer does); ``get_states``/``set_states`` pickle the states (and the optimizer with
    ``dump_optimizer=True``)."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}

    @property
    def aggregate_updates(self):
        """Whether updates go to the optimizer in groups (its ``aggregate_num`` > 0); it
        follows the optimizer, which ``set_states`` may replace."""
        return self.optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)  # pylint: disable=protected-access
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                indices[i] = idx = idx.decode()
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if self.aggregate_updates:
            self._update_aggregated(indices, weights, grads)
        elif len(indices) < 2 or not _all_dense(weights, grads) or \
                not self.optimizer.fused_update(indices, weights, grads, [self.states[i] for i in indices]):
            for i, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def _update_aggregated(self, indices, weights, grads):
        """MXNet's aggregated path: parameters grouped by dtype, passed as lists of up to
        ``aggregate_num`` (SGD and LAMB use it)."""
        if not weights:
            return  # MXNet's updater takes empty lists and does nothing
        dtype = weights[0]._t.dtype
        if all(w._t.dtype == dtype for w in weights):  # one dtype (the usual case): one group as given
            groups = [(indices, weights, grads)]
        else:
            by_dtype = {}
            for i, w, g in zip(indices, weights, grads):
                by_dtype.setdefault(w._t.dtype, []).append((i, w, g))
            groups = [tuple(list(x) for x in zip(*group)) for group in by_dtype.values()]
        size = self.optimizer.aggregate_num
        for idx, ws, gs in groups:
            if len(idx) > 1 and _all_dense(ws, gs) and \
                    self.optimizer.fused_update(idx, ws, gs, [self.states[i] for i in idx]):
                continue
            group = list(zip(idx, ws, gs))
            for start in range(0, len(group), size):
                c_idx, c_ws, c_gs = (list(x) for x in zip(*group[start:start + size]))
                self.optimizer.update_multi_precision(c_idx, c_ws, c_gs, [self.states[i] for i in c_idx])

    def sync_state_context(self, state, context):
        """The state with every array moved to ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states, source="Updater.set_states"):
        """Restore states (and the optimizer, when it was dumped) from ``get_states``' bytes
        (or MXNet 1.9.1's), read by a restricted unpickler that cannot run code."""
        states = _states.loads(states, source)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        """The states pickled as MXNet 1.9.1 pickles them (with the optimizer when ``dump_optimizer``)."""
        return _states.dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    """An :class:`Updater` for ``optimizer``."""
    return Updater(optimizer)


def _all_dense(weights, grads):
    """Whether a group can take a fused multi-tensor update: a sparse weight or gradient
    (a row_sparse gradient's lazy update) is updated one parameter at a time, as MXNet
    leaves it out of its aggregated updates."""
    return not any(x._sparse for x in weights) and not any(x._sparse for x in grads)
