"""Gluon's ``Parameter``, ``Constant`` and ``ParameterDict``, as in MXNet 1.9.1.

A Parameter holds one copy of its value per context (an NDArray marked as an autograd
variable, whose ``.grad`` buffer receives gradients according to ``grad_req``). A shape
with unknown (0) dimensions defers initialisation until a Block infers the shape and
calls ``_finish_deferred_init``; until then ``data()`` raises
``DeferredInitializationError``. Error messages and types follow MXNet's (many of its
checks are ``assert``s, hence ``AssertionError``).
"""
import re
import warnings
from collections import OrderedDict

import numpy as np
import torch

from .. import autograd, initializer, ndarray
from ..operator import storage as _storage
from ..base import MXNetError, torch_dtype
from ..context import Context, as_context, cpu, current_context
from ..ndarray import NDArray
from ..np_mode import FLAGS as _NP
from ..numpy.multiarray import as_np as _as_np  # under npx.set_np(), data() is an mx.np.ndarray (the same object)
from ..symbol import Symbol, var as _sym_var
from .utils import _brief_print_list, _indent, shape_is_known

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict", "tensor_types"]

tensor_types = (Symbol, NDArray)

_NAMING_HELP = ("For more info on naming, please see "
                "https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html")
_STYPES = ("default", "row_sparse", "csr")


class DeferredInitializationError(MXNetError):
    """Error for unfinished deferred initialization."""


def _check(cond, msg):
    """MXNet's ``assert``-style checks, raised even under ``python -O``."""
    if not cond:
        raise AssertionError(msg)


def _ctx_list(ctx, device=None):
    """A list of Contexts from a Context, a list of them, or None (the current context)."""
    ctx = device if ctx is None else ctx
    if ctx is None:
        return [current_context()]
    if isinstance(ctx, (list, tuple)):
        return [as_context(c) for c in ctx]
    return [as_context(ctx)]


def _ctx_key(ctx):
    """MXNet's lookup key: CPU-like devices (cpu, cpu_pinned, cpu_shared) share ids."""
    return ctx.device_typeid & 1, ctx.device_id


class Parameter:
    """A weight of a Block: one array (and gradient buffer) per context.

    ``grad_req`` is 'write', 'add' or 'null' (forced to 'null' when not
    ``differentiable``); ``shape`` may have unknown 0 dimensions, filled in later;
    ``init`` overrides the default initializer given to ``initialize``."""

    def __init__(self, name, grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0,
                 init=None, allow_deferred_init=False, differentiable=True, stype="default",
                 grad_stype="default"):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._trainer = None
        self._row_sparse_bufs = {}  # id(data) -> (data, its RowSparseNDArray of row_sparse_data)
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        self._shape = None if shape is None else tuple(shape)
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        _check(grad_stype in _STYPES, "grad_stype for Parameter '%s' must be one of 'default', 'row_sparse', "
                                      "or 'csr', but got '%s'" % (name, grad_stype))
        _check(stype in _STYPES, "stype for Parameter '%s' must be one of 'default', 'row_sparse', or 'csr', "
                                 "but got '%s'" % (name, stype))
        self._grad_stype = grad_stype
        self._stype = stype

    def __repr__(self):
        return "Parameter {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                       dtype=self.dtype)

    # ------------------------------------------------------------------ attributes
    @property
    def grad_req(self):
        """'write', 'add' or 'null'; setting it re-creates (or drops) the gradient buffers."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        _check(req in ("write", "add", "null"),
               "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req)
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [d.detach() for d in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The data type, as given (``numpy.float32`` by default); setting it casts."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape, with 0 for dimensions not known yet (None when not given at all); under
        NumPy shape semantics (``npx.set_np()``) an unknown dimension reads -1, as in MXNet."""
        if self._shape is not None and _NP.shape:
            return tuple(-1 if i == 0 else i for i in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        new_shape = tuple(new_shape)
        if self._shape is None:
            self._shape = new_shape
            return
        _check(len(self._shape) == len(new_shape)
               and all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)),
               "Expected shape %s is incompatible with given shape %s." % (str(new_shape), str(self._shape)))
        self._shape = new_shape

    @property
    def stype(self):
        """The storage type requested ('default'; sparse parameters are stored densely)."""
        return self._stype

    @property
    def differentiable(self):
        return self._differentiable

    @property
    def allow_deferred_init(self):
        return self._allow_deferred_init

    def _set_trainer(self, trainer):
        """Remember the Trainer updating this parameter."""
        if self._stype != "default" and self._trainer and trainer and self._trainer is not trainer:
            raise RuntimeError("Failed to set the trainer for Parameter '%s' because it was already set. More "
                               "than one trainers for a %s Parameter is not supported." % (self.name, self._stype))
        self._trainer = trainer

    # ------------------------------------------------------------------ access
    def _check_and_get(self, arr_list, ctx):
        """The array of ``ctx`` in ``arr_list`` (all of them for ``ctx=list``), or MXNet's errors."""
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            idx = self._ctx_map.get(_ctx_key(as_context(ctx)))
            if idx is not None:
                return arr_list[idx]
            raise RuntimeError("Parameter '%s' was not initialized on context %s. It was only initialized on %s."
                               % (self.name, str(ctx), str(self._ctx_list)))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was deferred. Actual "
                "initialization happens during the first forward pass. Please pass one batch of data through the "
                "network before accessing Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % self.name)
        raise RuntimeError("Parameter '%s' has not been initialized. Note that you should initialize parameters "
                           "and create Trainer with Block.collect_params() instead of Block.params because the "
                           "later does not include Parameters of nested child Blocks" % self.name)

    def _check_dense(self, what, ctx=None):
        if self._stype != "default":
            raise RuntimeError("Cannot return %s of Parameter '%s' on ctx %s via %s() because its storage type is "
                               "%s. Please use row_sparse_data() instead." % (
                                   "copies" if what == "list_data" else "a copy", self.name, str(ctx), what,
                                   self._stype))

    def data(self, ctx=None):
        """The value on ``ctx`` (the only copy, or the current context's, by default)."""
        self._check_dense("data", ctx)
        arr = self._check_and_get(self._data, ctx)
        return _as_np(arr) if _NP.array else arr

    def list_data(self):
        """The values on all contexts, in initialization order."""
        self._check_dense("list_data")
        arrs = self._check_and_get(self._data, list)
        return [_as_np(a) for a in arrs] if _NP.array else arrs

    def _check_grad(self):
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because grad_req='null'" % self.name)

    def grad(self, ctx=None):
        """The gradient buffer on ``ctx``."""
        self._check_grad()
        arr = self._check_and_get(self._grad, ctx)
        return _as_np(arr) if _NP.array else arr

    def list_grad(self):
        """The gradient buffers on all contexts."""
        self._check_grad()
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts this parameter is (or, deferred, will be) initialized on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    list_device = list_ctx

    def _rows(self, row_id):
        if self._stype != "row_sparse":
            raise RuntimeError("Cannot return a copy of Parameter %s via row_sparse_data() because its storage "
                               "type is %s. Please use data() instead." % (self.name, self._stype))
        if not isinstance(row_id, NDArray):
            raise TypeError("row_id must have NDArray type, but %s is given" % type(row_id))
        return row_id._t.detach().long().flatten().unique()

    def _keep_rows(self, arr, rows):
        """The RowSparseNDArray of ``arr``'s context, now holding its rows ``rows`` (sorted,
        unique): as in MXNet one array per context, which the next pull overwrites."""
        t = arr._t
        rows = rows.to(t.device)
        if t.requires_grad and autograd.is_recording():
            # the rows as a differentiable lookup: the gradient reaches the parameter as
            # torch's sparse gradient on exactly these rows (MXNet's row_sparse gradient)
            values = torch.nn.functional.embedding(rows, t, sparse=True)
        else:
            values = t.detach()[rows].clone()
        stored = _storage.RowSparse(tuple(t.shape), values, rows)
        buf = self._row_sparse_bufs.get(id(arr))
        if buf is None or buf[0] is not arr:
            buf = self._row_sparse_bufs[id(arr)] = (arr, ndarray.sparse.wrap_stored(stored))
        else:
            buf[1]._set(stored)
        return buf[1]

    def _check_trainer_for_rows(self):
        if self._trainer is None:
            raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with it."
                               % self.name)

    def row_sparse_data(self, row_id):
        """For a 'row_sparse' parameter: a RowSparseNDArray of its value on ``row_id``'s
        context holding the rows in ``row_id`` (sorted, once each), as MXNet's Trainer pulls
        them; like MXNet it needs a Trainer created with the parameter."""
        rows = self._rows(row_id)
        self._check_trainer_for_rows()
        return self._keep_rows(self._check_and_get(self._data, row_id.context), rows)

    def list_row_sparse_data(self, row_id):
        """``row_sparse_data`` on every context."""
        rows = self._rows(row_id)
        self._check_trainer_for_rows()
        return [self._keep_rows(d, rows) for d in self._check_and_get(self._data, list)]

    # ------------------------------------------------------------------ initialization
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(), force_reinit=False, device=None):
        """Create the value on each context of ``ctx`` with ``init`` (else ``self.init``, else
        ``default_init``); with an unknown shape and ``allow_deferred_init`` this waits for
        the shape (``_finish_deferred_init``)."""
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set force_reinit=True to "
                          "re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        ctx = _ctx_list(ctx, device)
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self._shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because it has invalid shape: %s."
                             % (self.name, str(self.shape)))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Initialize now that the shape is known (no-op unless initialization was deferred)."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        _check(shape_is_known(self._shape),
               "Cannot initialize Parameter '%s' because it has invalid shape: %s. Please specify in_units, "
               "in_channels, etc for `Block`s." % (self.name, str(self.shape)))
        with autograd.pause():
            if data is None:
                data = NDArray(torch.zeros(self._shape, dtype=torch_dtype(self.dtype)))
                # under npx.set_np() MXNet hands the initializer an mx.np.ndarray (its _init_weight
                # may then use NumPy semantics, e.g. ``data *= np.abs(data) >= 5``): a view of data
                filled = data.as_np_ndarray() if _NP.array else data
                initializer.create(default_init)(initializer.InitDesc(self.name, {"__init__": init}), filled)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        """Copy ``data`` to every context and attach gradient buffers."""
        self._ctx_list = list(ctx_list)
        self._ctx_map = {}
        for i, ctx in enumerate(self._ctx_list):
            self._ctx_map.setdefault(_ctx_key(ctx), i)
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        """Fresh zero gradient buffers, and the data marked as autograd variables."""
        if self.grad_req == "null":
            self._grad = None
            return
        self._grad = autograd.attach_grads(self._check_and_get(self._data, list), self.grad_req,
                                           self._grad_stype)

    def _reduce(self):
        """The value on CPU, averaged over the contexts; for a 'row_sparse' parameter, a
        RowSparseNDArray of every row (what MXNet saves for it; a Trainer is needed)."""
        if self._stype != "default":
            self._check_trainer_for_rows()
            t = self._check_and_get(self._data, list)[0]._t.detach().cpu()
            rows = torch.arange(t.shape[0], dtype=_storage.INDEX_DTYPE)
            return ndarray.sparse.wrap_stored(_storage.RowSparse(tuple(t.shape), t.clone(), rows))
        block = self.list_data()
        if len(block) == 1:
            return self.data().copyto(cpu())
        total = torch.stack([w._t.detach().cpu() for w in block]).sum(0)
        if total.is_floating_point():
            return NDArray(total / len(block))
        return NDArray(torch.div(total, len(block), rounding_mode="trunc"))

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        """(Re)initialize from loaded ``data``, checking shape and dtype (``cast_dtype``
        converts: to the parameter's dtype for ``dtype_source='current'``, the parameter to
        the saved dtype for ``'saved'``)."""
        if cast_dtype:
            _check(dtype_source in ("current", "saved"),
                   "dtype_source must be 'current' or 'saved', got %r" % (dtype_source,))
        if self._shape:
            for self_dim, data_dim in zip(self._shape, data.shape):
                _check(self_dim in (0, data_dim),
                       "Failed loading Parameter '%s' from saved params: shape incompatible expected %s vs saved %s"
                       % (self.name, str(self.shape), str(data.shape)))
            self.shape = tuple(j if i == 0 else i for i, j in zip(self._shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype).type != data.dtype:
                if dtype_source == "current":
                    data = data.astype(self.dtype, copy=False)
                else:
                    self.dtype = data.dtype
            else:
                _check(np.dtype(self.dtype).type == data.dtype,
                       "Failed loading Parameter '%s' from saved params: dtype incompatible expected %s vs saved %s. "
                       "Set cast_dtype=True to cast the dtype of saved params."
                       % (self.name, str(self.dtype), str(data.dtype)))
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                _check(ctx is None or set(ctx) == set(self._deferred_init[1]),
                       "Failed to load Parameter '%s' on %s because it was previous initialized on %s."
                       % (self.name, str(ctx), str(self.list_ctx())))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            with autograd.pause():
                self._init_impl(data, ctx)
        else:
            _check(ctx is None or set(ctx) == set(self.list_ctx()),
                   "Failed to load Parameter '%s' on %s because it was previous initialized on %s."
                   % (self.name, str(ctx), str(self.list_ctx())))
            self.set_data(data)
        self._deferred_init = ()

    # ------------------------------------------------------------------ modification
    def reset_ctx(self, ctx):
        """Move the value to ``ctx`` (a Context or a list: one copy each)."""
        ctx = _ctx_list(ctx)
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not been initialized."
                             % self.name)

    reset_device = reset_ctx

    def set_data(self, data):
        """Set the value on all contexts (kept for later while initialization is deferred)."""
        self.shape = data.shape
        if self._data is None:
            _check(self._deferred_init, "Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        with autograd.pause():
            for arr in self._check_and_get(self._data, list):
                arr[:] = data

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing to do without them)."""
        if self._grad is None:
            return
        with torch.no_grad():
            for g in self._grad:
                if g.stype != "default":  # a sparse buffer: nothing stored
                    s = g._storage
                    g._set(_storage.empty(s.stype, s.shape, s.data.dtype, s.data.device))
                else:
                    g._t.zero_()

    def cast(self, dtype):
        """Convert the value and gradient buffers to ``dtype``."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = [d.astype(dtype) for d in self._data]
            if self._grad is None:
                return
            old, self._grad = self._grad, autograd.attach_grads(self._data, self.grad_req, self._grad_stype)
            with torch.no_grad():
                for g, o in zip(self._grad, old):
                    if g.stype != "default":
                        o.astype(dtype).copyto(g)
                    else:
                        g._t.copy_(o._t)

    def var(self):
        """The Symbol variable of this parameter, with its shape, dtype, lr/wd multipliers
        and initializer as attributes (created once)."""
        if self._var is None:
            self._var = _sym_var(self.name, shape=self._shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                 wd_mult=self.wd_mult, init=self.init, stype=self._stype)
        return self._var


class Constant(Parameter):
    """A parameter that autograd and Trainer leave alone (``grad_req`` is always 'null');
    ``set_data`` still changes it. Its initializer is registered as
    ``Constant_<name>_<id>``, the ``__init__`` attribute MXNet writes for it."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = ndarray.array(value)
        self.value = value

        class Init(initializer.Initializer):
            """Copies the constant's value."""

            def _init_weight(self, _, arr):
                value.copyto(arr)

        init_name = "Constant_{}_{}".format(name, id(self))
        initializer.alias(init_name)(Init)
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype, init=init_name)

    def __repr__(self):
        return "Constant {name} (shape={shape}, dtype={dtype})".format(name=self.name, shape=self.shape,
                                                                      dtype=self.dtype)

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn('Constant parameter "{}" does not support grad_req other than "null", and new value "{}" '
                          'is ignored.'.format(self.name, req))
        self._grad_req = "null"  # what Trainer and the hybrid graph read, without the property


def _merge_shapes(desired, existing):
    """The shape agreeing with both (0/-1 = unknown), or None when they conflict."""
    if len(desired) != len(existing):
        return None
    merged = []
    for d, e in zip(desired, existing):
        if d != e and d > 0 and e > 0:
            return None
        merged.append(e if d in (0, -1) else d)
    return tuple(merged)


# Parameter settings that MXNet 1.9.1 stores under private names only: its ParameterDict.get
# finds no attribute of that name on an existing parameter, so it never compares them.
_CONSTRUCTOR_ONLY = frozenset(("allow_deferred_init", "differentiable", "stype", "grad_stype"))


class ParameterDict:
    """An ordered dict of Parameters whose ``get`` creates names ``prefix + name``, reusing
    parameters of the ``shared`` dict when present."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        name = self._prefix + " " if self._prefix else ""
        content = "\n".join(_indent("  {0}".format(v), 2) for v in self.values())
        return "{name}(\n{content}\n)".format(name=name, content=content)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        """The prefix prepended to the names of parameters created by ``get``."""
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The parameter ``prefix + name``: existing (here or in ``shared``; ``kwargs`` must
        agree with it, unknown shape dimensions are filled in) or created with ``kwargs``.
        Settings MXNet 1.9.1's Parameter keeps only from its constructor (``_CONSTRUCTOR_ONLY``)
        are not compared with an existing parameter's, as there: GluonNLP's evaluation BigRNN
        (dense, deferred) shares the training BigRNN's (row_sparse, not deferred) parameters."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if k in _CONSTRUCTOR_ONLY:
                continue
            existing = param._shape if k == "shape" else getattr(param, k, None)
            if existing is None:
                setattr(param, k, v)
                continue
            if k == "shape" and v is not None:
                merged = _merge_shapes((v,) if isinstance(v, int) else tuple(v), existing)
                if merged is not None:
                    param._shape = merged
                    continue
            elif k == "dtype" and np.dtype(v) == np.dtype(existing):
                continue
            _check(v is None or v == existing,
                   "Cannot retrieve Parameter '%s' because desired attribute does not match with stored for "
                   "attribute '%s': desired '%s' vs stored '%s'." % (name, k, str(v), str(existing)))
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``, created with ``value`` if new (a given ``value``
        must equal an existing constant's)."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '{}'. Please specify value if you want to create a new "
                               "constant.".format(name))
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            _check(isinstance(param, Constant), "Parameter '{}' already exists but it is not a constant."
                   .format(name))
            value = value.asnumpy() if isinstance(value, NDArray) else np.asarray(value)
            _check(param.shape == value.shape and (param.value.asnumpy() == value).all(),
                   "Constant '{}' already exists but it's value doesn't match new value".format(name))
        return param

    def update(self, other):
        """Add all parameters of ``other`` (a name already here must be the same Parameter)."""
        for k, v in other.items():
            if k in self._params:
                _check(self._params[k] is v, "Cannot update self with other because they have different "
                                             "Parameters with the same name '%s'" % k)
        for k, v in other.items():
            self._params[k] = v

    def select(self, select):
        """A ParameterDict (same prefix) of the parameters whose names match the regular
        expression ``select`` (``re.match``), as ``Block.collect_params(select)``."""
        pattern = re.compile(select)
        ret = ParameterDict(self._prefix)
        ret.update(OrderedDict((k, v) for k, v in self.items() if pattern.match(k)))
        return ret

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False, device=None):
        """Initialize every parameter; ``init`` is the default for those without their own."""
        if verbose:
            init = initializer.create(init)
            init.set_verbosity(verbose=verbose)
        ctx = _ctx_list(ctx, device)
        for v in self.values():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set all gradient buffers to 0."""
        for p in self.values():
            if p.grad_req != "null":
                p.zero_grad()

    def reset_ctx(self, ctx):
        """Move every parameter to ``ctx``."""
        for p in self.values():
            p.reset_ctx(ctx)

    reset_device = reset_ctx

    def list_ctx(self):
        """All contexts any parameter is initialized on."""
        s = set()
        for p in self.values():
            s.update(p.list_ctx())
        return list(s)

    list_device = list_ctx

    def setattr(self, name, value):
        """Set attribute ``name`` (``grad_req``, ``lr_mult``, ...) of every parameter."""
        for p in self.values():
            setattr(p, name, value)

    def save(self, filename, strip_prefix=""):
        """Save the values (averaged over contexts) to a ``.params`` file, named without
        ``strip_prefix``."""
        arg_dict = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' does not start with "
                    "'%s'. this may be due to your Block shares parameters from other Blocks or you forgot to use "
                    "'with name_scope()' when creating child blocks. %s"
                    % (strip_prefix, param.name, strip_prefix, _NAMING_HELP))
            arg_dict[param.name[len(strip_prefix):]] = param._reduce()
        ndarray.save(filename, arg_dict)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
             cast_dtype=False, dtype_source="current"):
        """Load values from a ``.params`` file, whose names get ``restore_prefix`` prepended."""
        if restore_prefix:
            for name in self.keys():
                _check(name.startswith(restore_prefix),
                       "restore_prefix is '%s' but Parameters name '%s' does not start with '%s'. %s"
                       % (restore_prefix, name, restore_prefix, _NAMING_HELP))
        self.load_dict(ndarray.load(filename), ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
                  filename=None, cast_dtype=False, dtype_source="current"):
        """Load values from a dict name -> NDArray (``arg:``/``aux:`` prefixes dropped)."""
        lprefix = len(restore_prefix)
        items = param_dict.items() if isinstance(param_dict, dict) else param_dict
        loaded = [(k[4:] if k.startswith(("arg:", "aux:")) else k, v) for k, v in items]
        arg_dict = OrderedDict((restore_prefix + k, v) for k, v in loaded)
        source = "file: %s" % filename if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                _check(name in arg_dict,
                       "Parameter '%s' is missing in %s, which contains parameters: %s. Please make sure source and "
                       "target networks have the same prefix.%s"
                       % (name[lprefix:], source, _brief_print_list(arg_dict.keys()), _NAMING_HELP))
        for name, value in arg_dict.items():
            if name not in self._params:
                _check(ignore_extra,
                       "Parameter '%s' loaded from %s is not present in ParameterDict, choices are: %s. Set "
                       "ignore_extra to True to ignore. Please make sure source and target networks have the same "
                       "prefix.%s" % (name[lprefix:], source, _brief_print_list(self._params.keys()), _NAMING_HELP))
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
