"""Large-batch SGD optimizers of MXNet 1.9.1: ``LARS`` (layer-wise adaptive rate scaling)
and ``LBSGD`` (large-batch SGD with learning-rate warm-up and gradient accumulation).

Both end in MXNet's SGD operators (``sgd_update``, ``sgd_mom_update``, their ``mp_`` and
``preloaded_multi_`` forms) with a per-parameter learning rate computed as MXNet does.
"""
import logging
import math
import os

import numpy

from .. import ndarray as nd
from .optimizer import Optimizer, _MasterCopyFirst, _fp16, _fp16_warning, _zeros_like, register

__all__ = ["LARS", "LBSGD"]


def _no_lars(name):
    """BatchNorm's gamma/beta and biases keep the plain learning rate."""
    return name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")


@register
class LARS(_MasterCopyFirst):
    """SGD whose learning rate for each weight is scaled by
    ``eta * ||w|| / (||rescale_grad * g|| + wd * ||w|| + eps)`` (1 where a norm is 0); with
    ``momentum_correction`` the momentum follows a changing learning rate
    (``momentum * lr / last_lr``). Dense parameters are updated in MXNet's aggregated groups
    of ``MXNET_OPTIMIZER_AGGREGATION_SIZE`` with ``multi_sum_sq``/``multi_lars`` and the
    preloaded multi-tensor SGD operators; others one by one."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        """The learning rates of ``indices``, remembering the previous scheduler value for
        the momentum correction."""
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._lr_mult(i) for i in indices]

    def _lr_mult(self, index):
        if index in self.param_dict:
            return self.param_dict[index].lr_mult
        if index in self.lr_mult:
            return self.lr_mult[index]
        if index in self.idx2name:
            return self.lr_mult.get(self.idx2name[index], 1.0)
        return 1.0

    def set_wd_mult(self, args_wd_mult):
        """Weight decay only on names ending in ``_weight`` (or set by ``__wd_mult__``)."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not n.endswith("_weight")}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and "__wd_mult__" in attr[name]:
                    self.wd_mult[name] = float(attr[name]["__wd_mult__"])
        self.wd_mult.update(args_wd_mult)

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _name(self, index):
        return self.idx2name[index] if index in self.idx2name else str(index)

    def _l2norm(self, v, rescale=False):
        v = v.astype("float32")
        if rescale:
            v = v * self.rescale_grad
        return float(nd.norm(v).asnumpy().reshape(-1)[0])

    def _get_lars(self, index, weight, grad, lr, wd):
        if _no_lars(self._name(index)):
            return lr
        w_norm, g_norm = self._l2norm(weight), self._l2norm(grad, rescale=True)
        lars = self.eta * w_norm / (g_norm + wd * w_norm + self.eps) if w_norm > 0.0 and g_norm > 0.0 else 1.0
        return lars * lr

    def _kwargs(self):
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = (self.momentum * (self.cur_lr / self.last_lr)
                                  if self.momentum_correction and self.last_lr != 0 else self.momentum)
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        return kwargs

    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        dense = all(getattr(w, "stype", "default") == "default" and getattr(g, "stype", "default") == "default"
                    for w, g in zip(weights, grads))
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        kwargs = self._kwargs()
        if dense:
            self._aggregated(indices, weights, grads, states, lrs, wds, kwargs, multi_precision)
            return
        for i, w, g, s, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            lr = self._get_lars(i, w, g, lr, wd)
            if not multi_precision:
                if s is not None:
                    nd.sgd_mom_update(w, g, s, out=w, lazy_update=self.lazy_update, lr=lr, wd=wd, **kwargs)
                else:
                    nd.sgd_update(w, g, out=w, lazy_update=self.lazy_update, lr=lr, wd=wd, **kwargs)
            elif s[0] is not None:
                nd.mp_sgd_mom_update(w, g, s[0], s[1], out=w, lr=lr, wd=wd, **kwargs)
            else:
                nd.mp_sgd_update(w, g, s[1], out=w, lr=lr, wd=wd, **kwargs)

    def _aggregated(self, indices, weights, grads, states, lrs, wds, kwargs, multi_precision):
        """MXNet's dense path: LARS rates for the scaled weights by ``multi_lars``, then the
        preloaded multi-tensor SGD in groups of ``aggregate_num`` (scaled weights first)."""
        names = [self._name(i) for i in indices]
        order = [i for i, n in enumerate(names) if not _no_lars(n)]
        n_lars = len(order)
        order += [i for i, n in enumerate(names) if _no_lars(n)]
        ctx = weights[0].context
        new_lrs = nd.array([lrs[i] for i in order], ctx=ctx, dtype="float32")
        new_wds = nd.array([wds[i] for i in order], ctx=ctx, dtype="float32")
        w = [weights[i] for i in order]
        g = [grads[i] for i in order]
        s = [states[i] for i in order]
        if n_lars:
            w_sum_sq = nd.multi_sum_sq(*w[:n_lars], num_arrays=n_lars)
            g_sum_sq = nd.multi_sum_sq(*g[:n_lars], num_arrays=n_lars)
            nd.multi_lars(new_lrs[:n_lars], w_sum_sq, g_sum_sq, new_wds[:n_lars], eta=self.eta, eps=self.eps,
                          rescale_grad=self.rescale_grad, out=new_lrs[:n_lars])
        size = max(self.aggregate_num, 1)
        for start in range(0, len(indices), size):
            end = min(start + size, len(indices))
            ws, gs, ss = w[start:end], g[start:end], s[start:end]
            if not multi_precision:
                per = [[a, b, c] for a, b, c in zip(ws, gs, ss)] if self.momentum > 0 else [[a, b] for a, b in
                                                                                             zip(ws, gs)]
                op = nd.preloaded_multi_sgd_mom_update if self.momentum > 0 else nd.preloaded_multi_sgd_update
            else:
                per = ([[a, b, c[0], c[1]] for a, b, c in zip(ws, gs, ss)] if self.momentum > 0
                       else [[a, b, c[1]] for a, b, c in zip(ws, gs, ss)])
                op = (nd.preloaded_multi_mp_sgd_mom_update if self.momentum > 0
                      else nd.preloaded_multi_mp_sgd_update)
            flat = [x for item in per for x in item]
            op(*(flat + [new_lrs[start:end], new_wds[start:end]]), out=ws, num_weights=len(ws), **kwargs)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(weight, (tuple, list)) else weight
        self._update_impl(index, weight, grad, state, multi_precision=self.multi_precision and _fp16(first))


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradients of ``batch_scale`` consecutive updates are averaged and
    applied once, with the learning rate multiplied during ``warmup_epochs`` by a warm-up
    factor growing to ``batch_scale`` ('linear', 'power2', 'sqrt') or by a LARS ratio
    ('lars', clipped to [0.01, 100]); the updates in between apply nothing (lr 0)."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear", warmup_epochs=5,
                 batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60, **kwargs):
        super().__init__(multi_precision=multi_precision, **kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, updates_per_epoch=%d)",
                     batch_scale, warmup_epochs, warmup_strategy, updates_per_epoch)
        self.momentum = momentum
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        """The momentum (None without); for a float16 weight under multi_precision,
        ``(momentum, weight32)`` as MXNet's."""
        if self.multi_precision and _fp16(weight):
            momentum = _zeros_like(weight, numpy.float32) if self.momentum != 0.0 else None
            return (momentum, weight.astype(numpy.float32))
        if _fp16(weight):
            _fp16_warning("the SGD")
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _get_lbmult(self, nup):
        """The warm-up factor after ``nup`` updates."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        frac = nup / nwup
        return {"linear": 1.0 + (maxmult - 1) * frac, "power2": 1.0 + (maxmult - 1) * frac * frac,
                "sqrt": 1.0 + (maxmult - 1) * math.sqrt(float(frac))}.get(self.warmup_strategy, 1.0)

    def _l2norm(self, v):
        """The squared norm (MXNet's name)."""
        return float((v * v).asnumpy().sum())

    def _get_lars(self, weight, g, wd):
        w2, g2 = self._l2norm(weight), self._l2norm(g)
        return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)

    def _reset_cum_gradient(self, index):
        self.cumgrads[index]["cum_grad"] = 0

    def _get_cum_gradient(self, index):
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index, cgrad):
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the parameter's running sum; counts from the start epoch's updates."""
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad["num_cums"] > 0:
            cgrad = {"cum_grad": cgrad["cum_grad"] + grad, "num_cums": cgrad["num_cums"] + 1}
        else:
            cgrad = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    def update(self, index, weight, grad, state):
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        lbmult = (self._get_lars(weight, grad, wd) if self.warmup_strategy == "lars"
                  else self._get_lbmult(cgrad["num_cums"]))
        lr = lr * lbmult
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        if not isinstance(state, (list, tuple)):
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)
        elif state[0] is not None:
            nd.mp_sgd_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)
        self._reset_cum_gradient(index)
