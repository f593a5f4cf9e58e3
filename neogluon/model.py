"""``mx.model``: checkpoint files and the callback record of MXNet 1.9.1's legacy training API.

``save_checkpoint``/``load_checkpoint`` write and read ``prefix-symbol.json`` and
``prefix-%04d.params`` (``arg:``/``aux:`` keys) exactly as MXNet does. ``FeedForward``, deprecated
since MXNet 0.10, trains, predicts and checkpoints as MXNet 1.9.1's (on ``mx.mod.Module``).
"""
import logging
import time
import warnings
from collections import namedtuple

import numpy as np

from . import io
from . import metric
from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError
from .context import Context, cpu
from .io import DataDesc

__all__ = ["BatchEndParam", "save_checkpoint", "load_params", "load_checkpoint", "FeedForward"]

# what batch_end_callback receives
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Write ``prefix-symbol.json`` (when ``symbol`` is given) and ``prefix-%04d.params``."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    save_dict = {"arg:%s" % k: v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({"aux:%s" % k: v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``, split on the ``arg:``/``aux:`` prefixes."""
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    arg_params, aux_params = {}, {}
    if not save_dict:
        logging.warning("Params file '%s' is empty", fname)
        return arg_params, aux_params
    if not isinstance(save_dict, dict):
        raise MXNetError("load_params: %s holds a list of arrays, not the named 'arg:'/'aux:' arrays "
                         "of a checkpoint" % fname)
    for k, v in save_dict.items():
        tp, name = k.split(":", 1) if ":" in k else ("", k)
        if tp == "arg":
            arg_params[name] = v
        if tp == "aux":
            aux_params[name] = v
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and ``prefix-%04d.params``."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


def _check_arguments(symbol):
    """MXNet's check that no argument or auxiliary-state name repeats in ``symbol``."""
    for names, what in ((symbol.list_arguments(), "arguments"), (symbol.list_auxiliary_states(), "auxiliary states")):
        seen = set()
        for name in names:
            if name in seen:
                raise ValueError(("Find duplicated argument name \"%s\", please make the weight name non-duplicated"
                                  "(using name arguments), %s are %s") % (name, what, str(names)))
            seen.add(name)


def _multiple_callbacks(callbacks, *args, **kwargs):
    if isinstance(callbacks, (list, tuple)):
        for cb in callbacks:
            cb(*args, **kwargs)
    elif callbacks:
        callbacks(*args, **kwargs)


def _default_eval_end_callback():
    from .callback import LogValidationMetricsCallback  # callback imports this module
    return LogValidationMetricsCallback()


class FeedForward:
    """MXNet's deprecated (since 0.10) single-input, single-output model: ``fit`` on numpy
    arrays or a DataIter, ``predict``/``score``, ``save``/``load``/``create``. It trains as MXNet
    1.9.1's does (numpy input batched by ``NDArrayIter(shuffle=True, last_batch_handle='roll_over')``,
    parameters made by ``initializer(name, array)`` where ``arg_params`` lacks them, the optimizer
    created with ``rescale_grad = 1/batch_size`` and the extra keywords), its steps run by
    ``mx.mod.Module`` (``BucketingModule`` when ``symbol`` is a ``sym_gen(bucket_key)``)."""

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd", initializer=None,
                 numpy_batch_size=128, arg_params=None, aux_params=None, allow_extra_params=False, begin_epoch=0,
                 **kwargs):
        from .initializer import Uniform
        warnings.warn("\033[91mmxnet.model.FeedForward has been deprecated. Please use mxnet.mod.Module "
                      "instead.\033[0m", DeprecationWarning, stacklevel=2)
        if isinstance(symbol, sym.Symbol):
            self.symbol, self.sym_gen = symbol, None
        else:
            if not callable(symbol):
                raise AssertionError("FeedForward: symbol must be a Symbol or a callable sym_gen(bucket_key)")
            self.symbol, self.sym_gen = None, symbol
        self.arg_params, self.aux_params = arg_params, aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        self.ctx = [cpu()] if ctx is None else [ctx] if isinstance(ctx, Context) else ctx
        self.num_epoch, self.epoch_size = num_epoch, epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = Uniform(0.01) if initializer is None else initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self):
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name):
        return name.endswith("data") or name.endswith("label")

    def _init_params(self, inputs, overwrite=False):
        """Parameters and auxiliary states: the given ones copied, the others from the initializer."""
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        input_shapes = {item.name: item.shape for item in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**input_shapes)
        if arg_shapes is None:
            raise AssertionError("FeedForward: cannot infer the parameters' shapes from %s" % input_shapes)
        arg_types, _, aux_types = self.symbol.infer_type(**{item.name: item.dtype for item in inputs})
        arg_names = self.symbol.list_arguments()
        param_names = [k for k in arg_names if k not in input_shapes]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {k: nd.zeros(shape=s, dtype=t) for k, s, t in zip(arg_names, arg_shapes, arg_types)
                      if k in param_names}
        aux_params = {k: nd.zeros(shape=s, dtype=t) for k, s, t in zip(aux_names, aux_shapes, aux_types)}
        for given, params in ((self.arg_params, arg_params), (self.aux_params, aux_params)):
            for k, v in params.items():
                if given and k in given and not overwrite:
                    v[:] = given[k][:]
                else:
                    self.initializer(k, v)
        self.arg_params, self.aux_params = arg_params, aux_params
        return arg_names, list(param_names), aux_names

    def __getstate__(self):
        this = self.__dict__.copy()
        this["_pred_exec"] = None
        return this

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes, type_dict=None):
        shapes = {name: self.arg_params[name].shape for name in self.arg_params}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes is None:
                raise AssertionError("Incomplete input shapes")
            if list(arg_shapes) == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict, **shapes)
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        _check_arguments(self.symbol)
        self._pred_exec = pred_exec

    def _init_iter(self, X, y, is_train):
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError("y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError("y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise ValueError("The numbers of data points and labels not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError("Label must be 1D or 2D (with 2nd dimension being 1)")
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch_size, shuffle=True, last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError("X must be DataIter, NDArray or numpy.ndarray")
        return X

    def _init_eval_iter(self, eval_data):
        if eval_data is None:
            return eval_data
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise ValueError("Eval data is NONE")
            if eval_data[1] is None and isinstance(eval_data[0], io.DataIter):
                return eval_data[0]
            data = np.array(eval_data[0]) if isinstance(eval_data[0], list) else eval_data[0]
            label = np.array(eval_data[1]) if isinstance(eval_data[1], list) else eval_data[1]
            return self._init_iter(data, label, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError("Eval data must be DataIter, or NDArray/numpy.ndarray/list pair (i.e. tuple/list of "
                            "length 2)")
        return eval_data

    def _bind_predictor(self, X, reset):
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        type_dict = {key: value.dtype for key, value in self.arg_params.items()}
        for x in X.provide_data:
            type_dict[x[0]] = x.dtype if isinstance(x, DataDesc) else np.float32
        self._init_predictor(X.provide_data, type_dict)
        return X, [self._pred_exec.arg_dict[x[0]] for x in X.provide_data]

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """The outputs (numpy, padding removed) for ``X``, on the first device; with ``return_data``
        also the data and labels read."""
        X, data_arrays = self._bind_predictor(X, reset)
        batch_size = X.batch_size
        output_list = [[] for _ in self._pred_exec.outputs]
        data_list, label_list = [[] for _ in X.provide_data], [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            real_size = batch_size - batch.pad
            for o_list, o_nd in zip(output_list, self._pred_exec.outputs):
                o_list.append(o_nd[0:real_size].asnumpy())
            if return_data:
                for j, x in enumerate(batch.data):
                    data_list[j].append(x[0:real_size].asnumpy())
                for j, x in enumerate(batch.label):
                    label_list[j].append(x[0:real_size].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break
        outputs = [np.concatenate(x) for x in output_list]
        outputs = outputs[0] if len(outputs) == 1 else outputs
        if not return_data:
            return outputs
        data, label = [np.concatenate(x) for x in data_list], [np.concatenate(x) for x in label_list]
        return outputs, data[0] if len(data) == 1 else data, label[0] if len(label) == 1 else label

    def score(self, X, eval_metric="acc", num_batch=None, batch_end_callback=None, reset=True):
        """``eval_metric``'s value over ``X`` (or its first ``num_batch`` batches)."""
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X, data_arrays = self._bind_predictor(X, reset)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            for src, dst in zip(batch.data, data_arrays):
                src.copyto(dst)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            _multiple_callbacks(batch_end_callback, BatchEndParam(epoch=0, nbatch=i, eval_metric=eval_metric,
                                                                  locals=locals()))
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
            kvstore="local", logger=None, work_load_list=None, monitor=None, eval_end_callback=None,
            eval_batch_end_callback=None):
        """Train for epochs ``begin_epoch`` .. ``num_epoch - 1`` (MXNet's ``_train_multi_device`` loop)."""
        from .module import BucketingModule, Module
        if eval_end_callback is None:
            eval_end_callback = _default_eval_end_callback()
        logger = logger or logging
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self._init_params(data.provide_data + data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        data_names = [x[0] for x in data.provide_data]
        label_names = [x[0] for x in data.provide_label]
        if self.sym_gen:
            mod = BucketingModule(lambda key: (self.sym_gen(key), data_names, label_names),
                                  default_bucket_key=data.default_bucket_key, logger=logger, context=self.ctx,
                                  work_load_list=work_load_list)
        else:
            mod = Module(self.symbol, data_names=data_names, label_names=label_names, logger=logger,
                         context=self.ctx, work_load_list=work_load_list)
        mod.bind(data_shapes=data.provide_data, label_shapes=data.provide_label, for_training=True)
        mod.set_params(self.arg_params, self.aux_params)
        if monitor is not None:
            mod.install_monitor(monitor)
        with warnings.catch_warnings():  # MXNet's FeedForward takes an Optimizer's rescale_grad as it is
            warnings.filterwarnings("ignore", message="Optimizer created manually outside Module")
            mod.init_optimizer(kvstore=kvstore, optimizer=self.optimizer, optimizer_params=dict(self.kwargs))
        data.reset()
        for epoch in range(self.begin_epoch, self.num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            while True:
                do_reset = True
                for data_batch in data:
                    if monitor is not None:
                        monitor.tic()
                    mod.forward_backward(data_batch)
                    mod.update()
                    if monitor is not None:
                        monitor.toc_print()
                    mod.update_metric(eval_metric, data_batch.label)
                    nbatch += 1
                    _multiple_callbacks(batch_end_callback, BatchEndParam(epoch=epoch, nbatch=nbatch,
                                                                          eval_metric=eval_metric, locals=locals()))
                    if self.epoch_size is not None and nbatch >= self.epoch_size:
                        do_reset = False
                        break
                if do_reset:
                    logger.info("Epoch[%d] Resetting Data Iterator", epoch)
                    data.reset()
                if self.epoch_size is None or nbatch >= self.epoch_size:
                    break
            logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            if epoch_end_callback or epoch + 1 == self.num_epoch:
                arg, aux = mod.get_params()
                for given, new in ((self.arg_params, arg), (self.aux_params, aux)):
                    for k, v in new.items():
                        v.copyto(given[k])
            _multiple_callbacks(epoch_end_callback, epoch, self.symbol, self.arg_params, self.aux_params)
            if eval_data:
                eval_metric.reset()
                eval_data.reset()
                total_num_batch = 0
                for i, eval_batch in enumerate(eval_data):
                    mod.forward(eval_batch, is_train=False)
                    mod.update_metric(eval_metric, eval_batch.label)
                    _multiple_callbacks(eval_batch_end_callback, BatchEndParam(epoch=epoch, nbatch=i,
                                                                               eval_metric=eval_metric,
                                                                               locals=locals()))
                    total_num_batch += 1
                _multiple_callbacks(eval_end_callback, BatchEndParam(epoch=epoch, nbatch=total_num_batch,
                                                                     eval_metric=eval_metric, locals=locals()))
                eval_data.reset()
        self._pred_exec = None

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch defaults to ``num_epoch``)."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise AssertionError("FeedForward.save: give the epoch")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward with the checkpoint's symbol and parameters, continuing from ``epoch``."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params, begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd", initializer=None,
               eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None, kvstore="local",
               logger=None, work_load_list=None, eval_end_callback=None, eval_batch_end_callback=None, **kwargs):
        """``FeedForward(symbol, ...)`` fitted on ``X`` (and ``y``)."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size, optimizer=optimizer,
                            initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model
