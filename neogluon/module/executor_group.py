"""The executors of a Module, one per context, each given a slice of the batch.

MXNet 1.9.1's ``DataParallelExecutorGroup`` semantics on neogluon's executor
(``Symbol.simple_bind``): the batch is split along each input's layout ``N`` axis in proportion
to ``work_load_list``; outputs are concatenated back (``merge_multi_context``); parameters
read back by ``get_params`` are the average of the copies. With a ``shared_group`` the
parameter, gradient and auxiliary arrays of the shared executors are reused (BucketingModule's
buckets share one set of weights).
"""
from collections import OrderedDict

from .. import ndarray as nd
from ..base import MXNetError
from ..executor import bind as _bind
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "split_input_slice"]


def split_input_slice(batch_size, work_load_list):
    """One slice of ``range(batch_size)`` per device, sized by ``work_load_list`` (MXNet's rule)."""
    total = float(sum(work_load_list))
    batch_num_list = [round(w * batch_size / total) for w in work_load_list]
    batch_num_list[-1] += batch_size - sum(batch_num_list)
    slices, end = [], 0
    for num in batch_num_list:
        begin = int(min(end, batch_size))
        end = int(min(begin + num, batch_size))
        if begin >= end:
            raise ValueError("Too many slices. Some splits are empty.")
        slices.append(slice(begin, end))
    return slices


def _load_general(data, targets, major_axis):
    """Copy each source array (or its slice) into the bound arrays of every executor."""
    for src, dsts, axis in zip(data, targets, major_axis):
        for islice, dst in dsts:
            part = src
            if axis >= 0 and (islice.start != 0 or src.shape[axis] != islice.stop):
                part = nd.slice_axis(src, axis=axis, begin=islice.start, end=islice.stop)
            if tuple(part.shape) != tuple(dst.shape):
                raise MXNetError("Module.forward: input of shape %s for a bound array of shape %s"
                                 % (tuple(part.shape), tuple(dst.shape)))
            dst._t.copy_(part._t.detach())


def _merge_multi_context(outputs, major_axis):
    """Each output's per-device arrays concatenated along its batch axis."""
    rets = []
    for tensors, axis in zip(outputs, major_axis):
        if axis >= 0 and len(tensors) > 1:
            rets.append(nd.concat(*[t.as_in_context(tensors[0].context) for t in tensors], dim=axis))
        else:
            rets.append(tensors[0])
    return rets


class DataParallelExecutorGroup:
    """Binds ``symbol`` once per context and moves batches, outputs and gradients between them."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=None, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.sparse_param_names = None  # the row_sparse ones, found by Module.update once
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        if not for_training:
            grad_req = "null"
        data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
        if label_shapes is not None:
            label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in label_shapes]
        self.grad_req = self._grad_reqs(grad_req, [x.name for x in data_shapes])
        self.shared_group = shared_group
        self.batch_size = None
        self.slices = None
        self.execs = []
        self._default_execs = None
        self.output_names = symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [DataDesc.get_batch_axis(symbol[i].attr("__layout__")) for i in range(self.num_outputs)]
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_names):
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise MXNetError("Module.bind: %d grad_req values for %d arguments" % (len(grad_req), len(self.arg_names)))
            return dict(zip(self.arg_names, grad_req))
        if not isinstance(grad_req, (str, dict)):
            raise ValueError("grad_req must be one of str, list, tuple, or dict.")
        default = grad_req if isinstance(grad_req, str) else "write"
        reqs = {}
        for k in self.arg_names:
            if k in self.param_names:
                reqs[k] = "null" if k in self.fixed_param_names else default
            elif k in data_names:
                reqs[k] = default if self.inputs_need_grad else "null"
            else:
                reqs[k] = "null"
        if isinstance(grad_req, dict):
            reqs.update(grad_req)
        return reqs

    # -- binding
    def decide_slices(self, data_shapes):
        """The batch axis of each input; sets ``batch_size`` and ``slices`` from the first."""
        major_axis = [DataDesc.get_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            if self.batch_size is not None:
                if shape[axis] != self.batch_size:
                    raise AssertionError("all data must have the same batch size: batch_size = %d, but %s has "
                                         "shape %s" % (self.batch_size, name, shape))
            else:
                self.batch_size = shape[axis]
                self.slices = split_input_slice(self.batch_size, self.workload)
        return major_axis

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Bind (or, with ``reshape``, re-shape) one executor per context."""
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        self.label_layouts = self.decide_slices(label_shapes) if label_shapes is not None else None
        for i in range(len(self.contexts)):
            shapes = self._sliced_shape(data_shapes, i, self.data_layouts)
            if label_shapes is not None:
                shapes += self._sliced_shape(label_shapes, i, self.label_layouts)
            if reshape:
                self.execs[i] = self._default_execs[i].reshape(
                    partial_shaping=True, allow_up_sizing=True, **{d.name: d.shape for d in shapes})
            else:
                self.execs.append(self._bind_ith_exec(i, shapes, shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes is not None else None
        self._collect_arrays()

    def _bind_ith_exec(self, i, shapes, shared_group):
        known = set(self.symbol.list_arguments())
        input_shapes = {d.name: d.shape for d in shapes if d.name in known}
        types = {d.name: d.dtype for d in shapes if d.name in known}
        exe = self.symbol.simple_bind(self.contexts[i], grad_req=self.grad_req, type_dict=types, **input_shapes)
        if shared_group is None:
            return exe
        shared = shared_group.execs[i]
        args = {n: self._share(shared.arg_dict, n, a) for n, a in exe.arg_dict.items()}
        grads = {n: self._share(shared.grad_dict, n, g) for n, g in exe.grad_dict.items()}
        auxs = {n: self._share(shared.aux_dict, n, a) for n, a in exe.aux_dict.items()}
        return _bind(self.symbol, self.contexts[i], args, grads, self.grad_req, auxs)

    def _share(self, shared, name, own):
        if own is None:  # no gradient array (grad_req 'null')
            return None
        if name in self.param_names or name in self.aux_names:
            other = shared.get(name)
            if other is not None and other.shape == own.shape and other.dtype == own.dtype:
                return other
        return own

    def _sliced_shape(self, shapes, i, major_axis):
        out = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            out.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return out

    def _collect_arrays(self):
        execs = self.execs
        self.data_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                            for name, _ in self.data_shapes]
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        if self.label_shapes is not None:
            # None for a label the symbol does not take (a feature extractor bound with labels)
            self.label_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                                 if name in execs[0].arg_dict else None for name, _ in self.label_shapes]
        else:
            self.label_arrays = None
        self.param_arrays = [[e.arg_arrays[i] for e in execs]
                             for i, name in enumerate(self.arg_names) if name in self.param_names]
        if self.for_training:
            self.grad_arrays = [[e.grad_dict.get(name) for e in execs]
                                for name in self.arg_names if name in self.param_names]
        else:
            self.grad_arrays = None
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_dict.get(name) for e in execs]
                                      for name in self.data_names if name in self.arg_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]

    def reshape(self, data_shapes, label_shapes):
        """Re-shape the executors for new input shapes (parameters are kept)."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    # -- parameters
    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy parameter values into every executor."""
        for exe in self.execs:
            exe.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Write the average over the devices of each parameter into ``arg_params``/``aux_params``."""
        for names, blocks, target in ((self.param_names, self.param_arrays, arg_params),
                                      (self.aux_names, self.aux_arrays, aux_params)):
            for name, block in zip(names, blocks):
                total = block[0]._t.detach().to("cpu").clone()
                for w in block[1:]:
                    total += w._t.detach().to("cpu")
                if len(block) > 1:
                    total /= len(block)
                target[name]._t.copy_(total.to(target[name]._t.dtype))

    # -- running
    def forward(self, data_batch, is_train=None):
        """Load the batch's data (and label) into the executors and run them."""
        _load_general(data_batch.data, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None and data_batch.label:
            used = [(lb, t, a) for lb, t, a in zip(data_batch.label, self.label_arrays, self.label_layouts)
                    if t is not None]
            if used:
                _load_general(*zip(*used))
        for exe in self.execs:
            exe.forward(is_train=is_train)

    def get_output_shapes(self):
        """``[(name, shape)]`` of the merged outputs."""
        exe = self.execs[0]
        inputs = {n: exe.arg_dict[n].shape for n in self.data_names + (self.label_names or []) if n in exe.arg_dict}
        _, out_shapes, _ = self.symbol.infer_shape(**inputs)  # the executor has no outputs before a forward
        shapes = []
        for key, out_shape, axis in zip(self.output_names, out_shapes, self.output_layouts):
            shape = list(out_shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((key, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs ``begin:end``, merged across devices or as per-device lists."""
        end = self.num_outputs if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        return _merge_multi_context(outputs, self.output_layouts[begin:end]) if merge_multi_context else outputs

    def get_states(self, merge_multi_context=True):
        if merge_multi_context:
            raise AssertionError("merge_multi_context=True is not supported for get_states yet.")
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the state arrays from ``states`` (per state, per device) or to the scalar ``value``."""
        if states is not None:
            if value is not None:
                raise AssertionError("Only one of states & value can be specified.")
            for src, dsts in zip(states, self.state_arrays):
                for s, d in zip(src, dsts):
                    d._t.copy_(s._t)
        else:
            if value is None:
                raise AssertionError("At least one of states & value must be specified.")
            for dsts in self.state_arrays:
                for d in dsts:
                    d._t.fill_(value)

    def get_input_grads(self, merge_multi_context=True):
        if not self.inputs_need_grad:
            raise AssertionError("bind with inputs_need_grad=True to get input gradients")
        return _merge_multi_context(self.input_grad_arrays, self.data_layouts) if merge_multi_context \
            else self.input_grad_arrays

    def backward(self, out_grads=None):
        """Backward on each executor with its slice of ``out_grads``."""
        if not self.for_training:
            raise AssertionError("re-bind with for_training=True to run backward")
        out_grads = [] if out_grads is None else (out_grads if isinstance(out_grads, (list, tuple)) else [out_grads])
        for exe, islice in zip(self.execs, self.slices):
            sliced = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0:
                    sliced.append(nd.slice_axis(grad, axis=axis, begin=islice.start, end=islice.stop))
                else:
                    sliced.append(grad)
            exe.backward(out_grads=sliced or None)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with each device's outputs and its slice of ``labels``."""
        for k, (exe, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[k]
            else:
                labels_slice = []
                for label, axis in zip(labels, self.label_layouts or [0] * len(labels)):
                    if axis >= 0 and len(self.execs) > 1:
                        labels_slice.append(nd.slice_axis(label, axis=axis, begin=islice.start, end=islice.stop))
                    else:
                        labels_slice.append(label)
            eval_metric.update_dict(OrderedDict(zip(self.label_names or [], labels_slice)),
                                    OrderedDict(zip(self.output_names, exe.outputs)))

    def install_monitor(self, mon):
        for exe in self.execs:
            mon.install(exe)
