"""Operators written in Python: MXNet's ``mx.operator.CustomOp``, ``CustomOpProp``,
``register`` and the registry operator ``Custom`` behind ``mx.nd.Custom``/``mx.sym.Custom``.

As in MXNet 1.9.1: ``@mx.operator.register("name")`` records a ``CustomOpProp`` subclass;
``Custom(*inputs, op_type="name", **kwargs)`` builds the prop with ``kwargs`` as strings,
which names the arguments, outputs and auxiliary states and infers shapes and types; the
prop's ``create_operator(ctx, shapes, dtypes)`` gives the ``CustomOp`` whose ``forward``
(and, under autograd, ``backward``) run on NDArrays with autograd paused, writing through
``self.assign(dst, req, src)``. The ``Custom`` node carries ``op_type`` and the other
attributes in ``-symbol.json``, so hybridized blocks run and export it. Under autograd the
operator is a ``torch.autograd.Function``: its backward calls the op's ``backward`` with
the head gradients, and auxiliary states are updated in place.
"""
import numpy as np
import torch

from ..base import MXNetError, _Null, np_dtype, torch_dtype
from . import registry

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]

_PROPS = {}       # op_type -> CustomOpProp subclass
_INSTANCES = {}   # (op_type, attribute items) -> prop instance


class CustomOp:
    """Base class of a Python operator's computation (MXNet's ``mx.operator.CustomOp``)."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` from ``in_data``; write with :meth:`assign`."""
        raise NotImplementedError()

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` from ``out_grad``; write with :meth:`assign`."""
        raise NotImplementedError()

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` as ``req`` says: 'write'/'inplace' copy, 'add' adds,
        'null' does nothing."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise MXNetError("CustomOp.assign: unknown req %r (expected 'null', 'write', 'inplace' or 'add')"
                             % (req,))


class CustomOpProp:
    """Base class of a Python operator's description (MXNet's ``mx.operator.CustomOpProp``):
    its inputs, outputs, shapes and types, and a factory for its :class:`CustomOp`."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(argument + aux shapes, output shapes, aux shapes); by default every output and
        aux state has the first input's shape."""
        return (in_shape, (in_shape[0],) * len(self.list_outputs()),
                (in_shape[0],) * len(self.list_auxiliary_states()))

    def infer_type(self, in_type):
        """(argument types, output types, aux types); by default all the first input's type."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        return (ograd_stype, in_stype, out_stype, ["default"] * len(igrad_stype),
                ["default"] * len(aux_stype))

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


def register(reg_name):
    """Class decorator: register a :class:`CustomOpProp` subclass as ``op_type=reg_name``."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise MXNetError("mx.operator.register(%r) expects a CustomOpProp subclass, got %r"
                             % (reg_name, prop_cls))
        _PROPS[reg_name] = prop_cls
        for key in [k for k in _INSTANCES if k[0] == reg_name]:
            del _INSTANCES[key]
        return prop_cls
    return do_register


def get_all_registered_operators():
    """The names of every registry operator (MXNet's list of its C++ operators)."""
    return registry.list_operators()


# ------------------------------------------------------------------------- the registry operator
def _prop(attrs):
    """The prop instance for parsed attributes (one per distinct attribute set)."""
    items = tuple(sorted((k, v) for k, v in attrs.items() if k != "is_train"))
    prop = _INSTANCES.get(items)
    if prop is None:
        kwargs = {k: v for k, v in items if k != "op_type"}
        try:
            prop = _PROPS[attrs["op_type"]](**kwargs)
        except TypeError as err:
            raise MXNetError("Custom operator %s: its CustomOpProp does not take the attributes %s (%s)"
                             % (attrs["op_type"], sorted(kwargs), err)) from None
        registry.remember(_INSTANCES, items, prop)
    return prop


def _shape_lists(prop, shapes):
    n_args = len(prop.list_arguments())
    ins, outs, aux = prop.infer_shape([list(s) if s is not None else [] for s in shapes[:n_args]])
    return [tuple(s) for s in ins] + [tuple(s) for s in aux], [tuple(s) for s in outs]


class CustomOperator(registry.Operator):
    """``Custom``: its attributes are free-form strings for the prop, and its inputs,
    outputs, shapes and types come from the prop registered under ``op_type``."""

    def parse_attrs(self, kwargs):
        attrs = {}
        for k, v in kwargs.items():
            if v is _Null or (k.startswith("__") and k.endswith("__")):
                continue
            attrs[k] = v if isinstance(v, str) else str(v)  # MXNet hands the prop strings
        if "op_type" not in attrs:
            raise MXNetError("Required parameter op_type of string is not presented, in operator %s"
                             % self.call_repr(kwargs))
        if attrs["op_type"] not in _PROPS:
            raise MXNetError("Cannot find custom operator %s (register it with @mx.operator.register(%r))"
                             % (attrs["op_type"], attrs["op_type"]))
        return attrs

    def format_attrs(self, attrs):
        return {k: str(v) for k, v in attrs.items() if k != "is_train"}


def _nd(t):
    from ..ndarray.ndarray import NDArray
    return NDArray(t)


class _CustomFunction(torch.autograd.Function):
    """One call of a custom operator: forward and backward run the user's CustomOp."""

    @staticmethod
    def forward(ctx, call, *tensors):
        from .. import autograd
        prop, attrs = call
        n_args = len(prop.list_arguments())
        args, aux = tensors[:n_args], tensors[n_args:]
        shapes = [tuple(t.shape) for t in tensors]
        in_types = [np_dtype(t.dtype).type for t in args]
        _, out_types, _ = prop.infer_type(list(in_types))
        out_shapes = _shape_lists(prop, shapes)[1]
        device = tensors[0].device if tensors else torch.device("cpu")
        from ..context import Context
        op_ctx = Context("cpu" if device.type == "cpu" else "gpu", device.index or 0)
        op = prop.create_operator(op_ctx, [list(s) for s in shapes], [np_dtype(t.dtype).type for t in tensors])
        in_data = [_nd(t.detach()) for t in args]
        aux_data = [_nd(t) for t in aux]  # written in place, as MXNet's auxiliary states are
        out_data = [_nd(torch.zeros(s, dtype=torch_dtype(d), device=device)) for s, d in zip(out_shapes, out_types)]
        is_train = bool(attrs.get("is_train", False))
        with autograd.pause(train_mode=is_train):
            op.forward(is_train=is_train, req=["write"] * len(out_data), in_data=in_data,
                       out_data=out_data, aux=aux_data)
        ctx.state = (op, in_data, out_data, aux_data, n_args, len(aux))
        outs = tuple(o._t for o in out_data)
        ctx.mark_non_differentiable(*[o for o, d in zip(outs, out_types) if not np.issubdtype(d, np.floating)])
        return outs

    @staticmethod
    def backward(ctx, *grads):
        from .. import autograd
        op, in_data, out_data, aux_data, n_args, n_aux = ctx.state
        out_grad = [_nd(g if g is not None else torch.zeros_like(o._t)) for g, o in zip(grads, out_data)]
        need = ctx.needs_input_grad[1:1 + n_args]
        in_grad = [_nd(torch.zeros_like(x._t)) for x in in_data]
        req = ["write" if n else "null" for n in need]
        with autograd.pause(train_mode=True):
            op.backward(req=req, out_grad=out_grad, in_data=in_data, out_data=out_data,
                        in_grad=in_grad, aux=aux_data)
        return (None,) + tuple(g._t if n else None for g, n in zip(in_grad, need)) + (None,) * n_aux


def _custom(*tensors, **attrs):
    """The kernel: the user's operator as one autograd node (outputs: one tensor, or a list)."""
    prop = _prop(attrs)
    outs = _CustomFunction.apply((prop, attrs), *tensors)
    return outs[0] if len(outs) == 1 else list(outs)


def _infer_args(attrs, shapes):
    if not shapes or shapes[0] is None:
        return [None] * len(shapes)
    try:
        return _shape_lists(_prop(attrs), shapes)[0]
    except Exception:  # pylint: disable=broad-except
        return [None] * len(shapes)  # the prop needs more than the first shape


def _infer_shape(attrs, shapes):
    return _shape_lists(_prop(attrs), shapes)[1]


def _infer_type(attrs, dtypes):
    prop = _prop(attrs)
    n_args = len(prop.list_arguments())
    return [np_dtype(d) for d in prop.infer_type([np_dtype(d).type for d in dtypes[:n_args]])[1]]


_CUSTOM = CustomOperator(
    "Custom", _custom,
    inputs=lambda a: tuple(_prop(a).list_arguments()),
    aux=lambda a: tuple(_prop(a).list_auxiliary_states()),
    num_outputs=lambda a: len(_prop(a).list_outputs()),
    output_names=lambda a: list(_prop(a).list_outputs()),
    params={}, signature=(), mode_dependent=True,
    infer_args=_infer_args, infer_shape=_infer_shape, infer_type=_infer_type,
    doc="Apply a custom operator implemented in Python (``mx.operator.register``); "
        "``op_type`` names it, other keywords go to its CustomOpProp as strings.")
registry.register_operator(_CUSTOM)


# ------------------------------------------------------------------------- mx.nd.Custom / mx.sym.Custom
def _split_inputs(data, kwargs, kind):
    """(inputs in the prop's argument order, the attribute keywords): inputs may be given
    positionally or by their names in ``list_arguments()``/``list_auxiliary_states()``."""
    named = {k: v for k, v in kwargs.items() if isinstance(v, kind)}
    attrs = {k: v for k, v in kwargs.items() if not isinstance(v, kind)}
    parsed = _CUSTOM.parse_attrs(attrs)
    names = _CUSTOM.input_names(parsed)
    unknown = [k for k in named if k not in names]
    if unknown:
        raise MXNetError("Custom operator %s: keyword argument name %s not found; its inputs are %s"
                         % (parsed["op_type"], unknown[0], list(names)))
    return list(data), named, attrs, names


def ndarray_custom(invoke):
    """``mx.nd.Custom(*data, op_type=..., out=None, name=None, **kwargs)``."""
    from ..ndarray.ndarray import NDArray

    def Custom(*data, **kwargs):  # pylint: disable=invalid-name
        out = kwargs.pop("out", None)
        kwargs.pop("name", None)
        inputs, named, attrs, names = _split_inputs(data, kwargs, NDArray)
        inputs += [named[n] for n in names[len(inputs):] if n in named]
        return invoke(_CUSTOM, inputs, attrs, out)
    Custom.__doc__ = _CUSTOM.doc
    return Custom


def symbol_custom(create):
    """``mx.sym.Custom(*data, op_type=..., name=None, attr=None, **kwargs)``: missing inputs
    become variables named ``<name>_<input>``, as MXNet's compose makes them."""
    from ..symbol.symbol import Symbol

    def Custom(*data, **kwargs):  # pylint: disable=invalid-name
        name, attr = kwargs.pop("name", None), kwargs.pop("attr", None)
        inputs, named, attrs, names = _split_inputs(data, kwargs, Symbol)
        if any(not isinstance(s, Symbol) for s in inputs):
            raise TypeError("Custom: positional arguments must be Symbol instances")
        if len(inputs) > len(names):
            raise MXNetError("Custom operator %s takes %d inputs (%s), got %d"
                             % (attrs["op_type"], len(names), ", ".join(names), len(inputs)))
        named.update(zip(names, inputs))
        return create(_CUSTOM, (), dict(attrs, **named), name, attr, "custom")
    Custom.__doc__ = _CUSTOM.doc
    return Custom
