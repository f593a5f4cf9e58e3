"""``Block``, ``HybridBlock`` and ``SymbolBlock``: MXNet 1.9.1's Gluon containers.

Naming follows MXNet 1.x exactly: a block's prefix comes from its class name and a
per-scope counter (``dense0_``, ``hybridsequential1_``), children created inside
``name_scope()`` nest their prefixes, and ``params`` is a ParameterDict with that prefix.

A HybridBlock runs ``hybrid_forward(F=mx.nd, ...)`` until ``hybridize()``; then the first
call traces ``hybrid_forward(F=mx.sym, ...)`` into a Symbol (inputs ``data`` or ``data0``,
``data1``..., parameters as their variables), finishes deferred initialisation from the
traced graph, and compiles it once (:mod:`neogluon.gluon.cached`); later calls run the
compiled graph without calling ``hybrid_forward``. Blocks that override ``forward`` with
``mx.nd`` code are traced the same way through :class:`~neogluon.gluon.cached.Traced`
arrays. ``export`` writes MXNet's ``-symbol.json`` and ``-%04d.params`` files, which
``SymbolBlock.imports`` loads back.
"""
import copy
import io
import json
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import name as _name
from .. import ndarray
from .. import symbol
from ..base import MXNetError
from ..context import Context
from ..fileio import atomic_write_all, read_file
from ..ndarray import serialization as _serialization
from ..np_mode import FLAGS as _NP
from ..numpy.multiarray import ndarray as _NP_ARRAY, as_np as _as_np_list
from .. import numpy_extension as _npx
from ..ndarray.ndarray import NDArray
from ..symbol import Symbol
from .parameter import Parameter, ParameterDict, DeferredInitializationError
from . import cached as _cached
from .cached import flatten as _flatten, regroup as _regroup, register_backend
from .utils import HookHandle, _brief_print_list, _indent

__all__ = ["Block", "HybridBlock", "SymbolBlock", "HookHandle", "register_backend"]


# ---------------------------------------------------------------------- helpers
def _pick_ctx(ctx, device):
    """``ctx=`` and its Gluon 2 spelling ``device=``."""
    if ctx is not None and device is not None:
        raise ValueError("give either ctx or device, not both")
    return ctx if ctx is not None else device


class _BlockScope:
    """Scope for collecting child Blocks: gives children their prefixes and parameter dicts."""
    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """The prefix and ParameterDict of a new Block created in the current scope."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            params = ParameterDict(prefix) if params is None else ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _gather_type_ctx_info(args):
    """(has Symbol, has NDArray, contexts, first context) of a nested argument list."""
    if isinstance(args, NDArray):
        return False, True, {args.context}, args.context
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_symbol = has_ndarray = False
        ctx_set, first_ctx = set(), None
        for ele in args:
            s, n, c, f = _gather_type_ctx_info(ele)
            has_symbol, has_ndarray = has_symbol or s, has_ndarray or n
            if first_ctx is None:
                first_ctx = f
            ctx_set |= c
            if has_symbol and has_ndarray:
                break
        return has_symbol, has_ndarray, ctx_set, first_ctx
    return False, False, set(), None


def _cpu_k(args):
    """``cpu(k)``, k > 0, when the first array among ``args`` (nested) is there, else None.

    torch has one CPU device; MXNet's ``cpu(k)`` (what multi-context training on one machine,
    d2l's ``split_batch`` among them, uses) is the array's ``_ctx``, which operators do not
    carry to their outputs. A Block called on such arrays therefore runs under ``with
    cpu(k)`` (every array made inside reports it, so each child picks its Parameters' copy
    of ``cpu(k)``) and its outputs keep that context (:func:`_keep_context`)."""
    for a in args:
        if isinstance(a, NDArray):  # its own cpu(k): one made inside an open cpu(k) reports it anyway
            ctx = getattr(a, "_ctx", None)  # (and a traced array has no context to ask)
            return ctx if ctx is not None and ctx.numbered_cpu else None
        if isinstance(a, (list, tuple)):
            ctx = _cpu_k(a)
            if ctx is not None:
                return ctx
    return None


def _keep_context(out, ctx):
    """``out`` with ``ctx`` recorded on its arrays (nested) that carry no context of their own."""
    if isinstance(out, NDArray):
        if getattr(out, "_ctx", None) is None:
            out._ctx = ctx  # pylint: disable=protected-access
    elif isinstance(out, (list, tuple)):
        for o in out:
            _keep_context(o, ctx)
    return out


# ---------------------------------------------------------------------- Block
def _load_parameter_file(filename):
    """MXNet's NDArray file, or the ``.npz`` that MXNet 2.0's ``save_parameters`` writes under
    ``npx.set_np()`` (a zip of ``.npy`` arrays): structural name -> NDArray."""
    path = _serialization._path(filename)  # pylint: disable=protected-access
    blob = read_file(path, "load_parameters")  # regular files only: a FIFO or a device cannot hang it
    if blob[:4] != b"PK\x03\x04":
        return _serialization.loads(blob, "file %r" % path)
    import zipfile
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as arrays:
            return {k: ndarray.array(arrays[k], dtype=arrays[k].dtype) for k in arrays.files}
    except (ValueError, OSError, zipfile.BadZipFile) as e:
        raise MXNetError("Invalid parameter file '%s': a zip archive, but not the .npz of arrays MXNet 2 "
                         "writes (%s)" % (filename, e)) from None


class Block:
    """Base class for all neural network layers and models (``mx.gluon.Block``).

    Children assigned as attributes are registered automatically (``register_child``
    for others); ``collect_params`` gathers their Parameters recursively."""

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        modstr = "\n".join("  ({key}): {block}".format(key=key, block=_indent(block.__repr__(), 2))
                           for key, block in self.__dict__.items() if isinstance(block, Block))
        return "{name}(\n{modstr}\n)".format(name=self.__class__.__name__, modstr=modstr)

    def __setattr__(self, name, value):
        """Registers children Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError("Changing attribute type for {name} from {type1} to {type2}"
                                "is not allowed.".format(name=name, type1=type(existing), type2=type(value)))
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            assert name not in self._reg_params, \
                "Overriding Parameter attribute %s is not allowed. If you want to share parameters between " \
                "blocks, please set 'params' at Block construction instead."
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        children = set(self._children.values())

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(e) for e in data)
            if isinstance(data, dict):
                return any(unregistered(v) for v in data.values())
            return isinstance(data, Block) and data not in children
        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if unregistered(v):
                    warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside '
                                  'the list, tuple or dict will not be registered automatically. Make sure to '
                                  'register them using register_child() or switching to '
                                  'nn.Sequential/nn.HybridSequential instead. '
                                  .format(name=self.__class__.__name__ + "." + k), stacklevel=3)

    def _alias(self):
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        """Prefix of this Block."""
        return self._prefix

    @property
    def name(self):
        """Name of this Block, without '_' in the end."""
        return self._name

    def name_scope(self):
        """A name space (``with`` statement) in which child Blocks and symbols get this block's prefix."""
        return self._scope

    @property
    def params(self):
        """This Block's ParameterDict (not including its children's Parameters)."""
        return self._params

    def collect_params(self, select=None):
        """A ParameterDict of this Block's and its children's Parameters, optionally only those
        whose names match the regular expression ``select``."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items() if pattern.match(name)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        """Parameters by structural name (``features.0.weight``)."""
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    # ------------------------------------------------------------------ saving and loading parameters
    def save_parameters(self, filename, deduplicate=False):
        """Save parameters by structural name; with ``deduplicate`` a shared one is saved once."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse_params = {v: k for k, v in params.items()}
            params = {v: k for k, v in reverse_params.items()}
        ndarray.save(filename, {key: val._reduce() for key, val in params.items()})

    def save_params(self, filename):
        """[Deprecated] Save parameters by full name without this block's prefix; use save_parameters."""
        warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you want load from "
                      "SymbolBlock later, please use export instead. For details, see "
                      "https://mxnet.apache.org/tutorials/gluon/save_load_params.html")
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as e:
            raise ValueError("%s\nsave_params is deprecated. Using save_parameters may resolve this error." % e)

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current", device=None):
        """Load parameters saved by ``save_parameters`` (or, with full-prefix names, by ``save_params``)."""
        ctx = _pick_ctx(ctx, device)
        loaded = _load_parameter_file(filename)
        if isinstance(loaded, list):
            raise ValueError("Parameter file '%s' holds an unnamed list of arrays, not parameters by name" % filename)
        loaded = self._expand_packed(loaded, "", "file '%s'" % filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in i for i in loaded.keys()):
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return
        self._load_structural(loaded, params, "file '%s'" % filename, ctx, allow_missing, ignore_extra,
                              cast_dtype, dtype_source)

    def _expand_packed(self, loaded, prefix, where):
        """``loaded`` (structural name -> array) with packed parameters of MXNet 2 (a recurrent
        layer's one flat ``rnn_param``) split into this block's own; the children's too."""
        for name, child in self._children.items():
            loaded = child._expand_packed(loaded, prefix + name + ".", where)
        return loaded

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                  dtype_source="current", device=None):
        """Load parameters from a dict of structural names (``features.0.weight``) or full names to NDArrays."""
        ctx = _pick_ctx(ctx, device)
        values = {k: v._reduce() if isinstance(v, Parameter) else v for k, v in param_dict.items()}
        values = self._expand_packed(values, "", "the dict")
        self._load_structural(self._as_structural(values, getattr(param_dict, "prefix", None)),
                              self._collect_params_with_prefix(), "the dict", ctx, allow_missing, ignore_extra,
                              cast_dtype, dtype_source)

    def _as_structural(self, mapping, prefix=None):
        """``mapping`` keyed by this block's structural names (``0.weight``): keys already
        structural or ``arg:``/``aux:``-tagged stay; full names (``collect_params()`` of this
        block, or of another block of the same architecture with ``prefix``, its ParameterDict's
        prefix, else the keys' common prefix) are matched by the name after the prefix, then,
        when that leaves some unmatched and the counts agree, by position (``collect_params()``
        lists Parameters in structural order). Unmatched keys stay as they are, so the caller's
        error or warning names them."""
        ours = self._collect_params_with_prefix()
        items = [(k[4:] if k.startswith(("arg:", "aux:")) else k, v) for k, v in mapping.items()]
        if all(k in ours for k, _ in items):
            return dict(items)
        by_full, order = {}, []
        for key, param in ours.items():
            if param.name not in by_full:
                by_full[param.name] = key
                order.append(key)
        if prefix is None:
            prefix = _common_prefix([k for k, _ in items])
            prefix = prefix[:prefix.rfind("_") + 1]
        relative = {name[len(self.prefix):]: key for name, key in by_full.items() if name.startswith(self.prefix)}
        out, unmatched = {}, []
        for k, v in items:
            key = k if k in ours else by_full.get(k) or (k.startswith(prefix) and relative.get(k[len(prefix):]))
            if key:
                out[key] = v
            else:
                unmatched.append((k, v))
        if unmatched and len(items) == len(order) and all(
                _shapes_agree(ours[key].shape, getattr(v, "shape", None)) for key, (_, v) in zip(order, items)):
            return dict(zip(order, (v for _, v in items)))
        out.update(unmatched)
        return out

    def _load_structural(self, loaded, params, where, ctx, allow_missing, ignore_extra, cast_dtype, dtype_source):
        if not allow_missing:
            params_inv = defaultdict(list)
            for k, v in params.items():
                params_inv[v].append(k)
            for name, param in params.items():
                assert any(p in loaded for p in params_inv[param]), \
                    "Parameter '%s' is missing in %s, which contains parameters: %s. " \
                    "Set allow_missing=True to ignore missing parameters." % (
                        name, where, _brief_print_list(loaded.keys()))
        for name in loaded:
            if not ignore_extra and name not in params:
                raise ValueError("Parameter '%s' loaded from %s is not present in ParameterDict, which contains "
                                 "parameters %s. Set ignore_extra=True to ignore. "
                                 % (name, where, _brief_print_list(self._params.keys())))
            if name in params:
                params[name]._load_init(loaded[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """[Deprecated] Please use load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.")
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # ------------------------------------------------------------------ children and hooks
    def register_child(self, block, name=None):
        """Register ``block`` as a child (attribute assignment does this automatically)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after each forward; returns a HookHandle."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Apply ``fn(block)`` to every child recursively, then to this block; returns this block."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ parameters as a whole
    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False, device=None):
        """Initialize the Parameters of this Block and its children (``collect_params().initialize``);
        ``init`` defaults to ``mx.init.Uniform()``."""
        if init is None:
            from .. import initializer
            init = initializer.Uniform()
        self.collect_params().initialize(init, _pick_ctx(ctx, device), verbose, force_reinit)

    def zero_grad(self):
        """Set the gradients of every Parameter to zero."""
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        """Move every Parameter to ``ctx`` (a Context or a list of them)."""
        self.collect_params().reset_ctx(ctx)

    def reset_device(self, device):
        """Gluon 2's name for ``reset_ctx``."""
        self.reset_ctx(device)

    def setattr(self, name, value):
        """Set an attribute (``grad_req``, ``lr_mult``, ...) on every Parameter."""
        for p in self.collect_params().values():
            setattr(p, name, value)

    def share_parameters(self, shared):
        """Use the Parameters of ``shared`` in place of this block's; returns this block.
        ``shared`` is MXNet 2's dict of structural names (``0.weight``) or what MXNet 1.x's
        ``collect_params()`` returns (a ParameterDict, or a ``dict`` of it, by full name) for
        this block or another of the same architecture."""
        if shared is None:
            return self
        if not isinstance(shared, (dict, ParameterDict)):
            raise ValueError("'shared' should be in type of Dict. Get type {}!".format(type(shared)))
        shared = self._as_structural(shared, getattr(shared, "prefix", None))
        remaining = set(shared.keys())
        self._share(shared, remaining)
        for name in remaining:
            warnings.warn("Parameter name {} is not in the current model!".format(name))
        return self

    def _share(self, shared, remaining, prefix=""):
        if prefix:
            prefix += "."
        for name, old in list(self._reg_params.items()):
            new = shared.get(prefix + name)
            if new is not None:
                self._reg_params[name] = new
                object.__setattr__(self, name, new)
                self._params._params[old.name] = new
                remaining.discard(prefix + name)
        for name, child in self._children.items():
            child._share(shared, remaining, prefix + name)
        if isinstance(self, HybridBlock):
            self._clear_cached_op()

    def hybridize(self, active=True, **kwargs):
        """A non-hybrid Block hybridizes its children (see ``HybridBlock.hybridize``)."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast every Parameter of this Block and its children to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    # ------------------------------------------------------------------ architecture files (Block.save/load)
    def save(self, prefix):
        """Save the structure (``<prefix>-model.json``, with hybridized graphs) and the parameters
        (``<prefix>-model.params``), as MXNet 1.9.1's ``Block.save``."""
        model = {}
        index = [0]

        def save_graphs(blk, structure):
            mdl = {"orig_name": blk.name}
            structure[type(blk).__name__.lower() + str(index[0])] = mdl
            if isinstance(blk, HybridBlock):
                mdl["hybridized"] = bool(blk._cached_graph)
                if blk._cached_graph:
                    syms, out = blk._cached_graph
                    mdl.update(in_format=blk._in_format, out_format=blk._out_format,
                               inputs=[s.tojson() for s in syms], symbol=out.tojson())
            mdl["children"] = children = {}
            for ch_name, child in blk._children.items():
                index[0] += 1
                children[child.name] = ch_name
                save_graphs(child, mdl)
        save_graphs(self, model)
        params = {key: val._reduce() for key, val in self._collect_params_with_prefix().items()}
        atomic_write_all([(prefix + "-model.json", json.dumps(model)),
                          (prefix + "-model.params", _serialization.dumps(params))], "Block.save")

    def load(self, prefix):
        """Load what ``save(prefix)`` wrote into a block built the same way (names and graphs restored)."""
        path = prefix + "-model.json"
        try:
            model = json.loads(read_file(path, "Block.load", text=True))
        except (ValueError, RecursionError) as e:
            raise MXNetError("Block.load: %r is not JSON: %s" % (path, e)) from None
        index = [0]

        def load_graphs(blk, structure):
            mdl = structure[type(blk).__name__.lower() + str(index[0])]
            blk._name = mdl["orig_name"]
            if isinstance(blk, HybridBlock) and mdl["hybridized"]:
                blk._in_format, blk._out_format = mdl["in_format"], mdl["out_format"]
                blk._cached_graph = ([symbol.load_json(s) for s in mdl["inputs"]], symbol.load_json(mdl["symbol"]))
                blk._active = True
            for p in list(blk.params.keys()):
                param = blk.params._params.pop(p)
                blk.params._params[blk.name + "_" + p[len(blk.params._prefix):]] = param
            for child in blk._children.values():
                index[0] += 1
                load_graphs(child, mdl)
            renamed = OrderedDict()
            for child in blk._children.values():
                renamed[mdl["children"][child.name]] = child
            blk._children = renamed
        try:
            load_graphs(self, model)
        except (KeyError, TypeError, AttributeError) as e:
            raise MXNetError("Block.load: %r does not describe this block: %s %s" % (path, type(e).__name__, e)) from None
        self.load_parameters(prefix + "-model.params")

    # ------------------------------------------------------------------ calling
    def __call__(self, *args):
        """Run the forward pre-hooks, ``forward`` and the forward hooks."""
        return self._hooked(self.forward, args)

    def _hooked(self, forward, args):
        """``forward(*args)`` between the hooks, as an mx.np array in NumPy mode; for inputs
        on ``cpu(k)``, k > 0, under ``with cpu(k)`` (see :func:`_cpu_k`)."""
        if Context.several_cpus:
            ctx = _cpu_k(args)
            if ctx is not None:
                with ctx:
                    return _keep_context(self._hooked_here(forward, args), ctx)
        return self._hooked_here(forward, args)

    def _hooked_here(self, forward, args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if _NP.array or (args and type(args[0]) is _NP_ARRAY):  # pylint: disable=unidiomatic-typecheck
            out = _as_np(out)
        return out

    def forward(self, *args):
        """Override to implement the forward computation on NDArrays."""
        raise MXNetError("%s must override forward(self, *args)" % type(self).__name__)

    def register_op_hook(self, callback, monitor_all=False):
        """Install ``callback(name, op_name, array)`` on the hybridized children."""
        for cld in self._children.values():
            cld.register_op_hook(callback, monitor_all)

    def summary(self, *inputs):
        """Print MXNet's table of every layer's output shape and parameter count for ``inputs``.
        The network must be initialised and not hybridized."""
        from .nn import Sequential, HybridSequential
        summary = OrderedDict()
        seen = set()
        hooks = []

        def register(block):
            assert not isinstance(block, HybridBlock) or not block._active, \
                '"{}" must not be hybridized to print summary.'.format(block.name)

            def hook(block, _, outputs):
                m_key = "%s-%i" % (block.__class__.__name__, len(summary))
                entry = summary[m_key] = OrderedDict(output_shape=_shape_str(outputs), trainable=0, shared=0)
                params = 0
                for p in block.params.values():
                    size = p.data().size
                    params += size
                    entry["trainable"] += 0 if p.grad_req == "null" else size
                    if p in seen:
                        entry["shared"] += size
                    else:
                        seen.add(p)
                entry["n_params"] = params
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(hook))

        summary["Input"] = OrderedDict(output_shape=_shape_str(inputs), n_params=0, trainable=0, shared=0)
        try:
            self.apply(register)
            self(*inputs)
            _print_summary(summary)
        finally:
            for h in hooks:
                h.detach()


def _shape_str(args):
    """MXNet's rendering of the shapes of a nested output for ``summary``."""
    def shapes(x):
        if isinstance(x, (list, tuple)):
            return [shapes(e) for e in x]
        return x.shape if isinstance(x, NDArray) else x
    res = shapes(args)
    text = str(res)[1:-1] if isinstance(res, list) else str(res)
    return text.replace("L", "")


def _print_summary(summary):
    line_format = "{:>20}  {:>42} {:>15}"
    print("-" * 80)
    print(line_format.format("Layer (type)", "Output Shape", "Param #"))
    print("=" * 80)
    total = trainable = shared = 0
    for layer, entry in summary.items():
        print(line_format.format(layer, str(entry["output_shape"]), entry["n_params"]))
        total += entry["n_params"]
        trainable += entry["trainable"]
        shared += entry["shared"]
    print("=" * 80)
    print("Parameters in forward computation graph, duplicate included")
    print("   Total params: " + str(total))
    print("   Trainable params: " + str(trainable))
    print("   Non-trainable params: " + str(total - trainable))
    print("Shared params in forward computation graph: " + str(shared))
    print("Unique parameters in model: " + str(total - shared))
    print("-" * 80)


# ---------------------------------------------------------------------- HybridBlock
class HybridBlock(Block):
    """A Block that runs on NDArrays (``hybrid_forward(F=mx.nd)``) or, after ``hybridize()``,
    as a cached compiled graph traced with ``F=mx.sym`` (``mx.gluon.HybridBlock``)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags = []
        self._callback = None
        self._monitor_all = False
        self._backend = None
        self._backend_opts = {}
        # a subclass that overrides forward with mx.nd code is hybridized by tracing forward;
        # one that also has its own hybrid_forward runs forward imperatively and its
        # super().forward(...) is the cached graph of hybrid_forward, as in MXNet 1.9.1
        # (GluonNLP's TransformerOneStepDecoder: forward prepares a varying number of states)
        self._traces_forward = type(self).forward is not HybridBlock.forward and \
            type(self).hybrid_forward is HybridBlock.hybrid_forward

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    # ------------------------------------------------------------------ tracing
    def _trace(self, inputs):
        """The output symbols of this block on input symbols (nested)."""
        try:
            if self._traces_forward:
                with self.name_scope(), _cached.tracing(self.name, self.collect_params().values()):
                    out = self.forward(*_cached.wrap_traced(list(inputs)))
                return _cached.unwrap_traced(out)
            params = {i: j.var() for i, j in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(_npx._SYM_F if _NP.array else symbol, *inputs, **params)
        except AttributeError as e:
            if "'Symbol' object has no attribute" not in str(e):
                raise
            raise MXNetError("HybridBlock %s: %s. While hybridized, hybrid_forward receives Symbols: values and "
                             "shapes (.shape, .asnumpy(), ...) are only available on NDArrays" % (self.name, e)) from None

    def _get_graph(self, *args):
        if not self._cached_graph:
            flatten_args, self._in_format = _flatten(args, "input")
            real_arg_num = sum(ele is not None for ele in flatten_args)
            if real_arg_num == 0:
                raise ValueError("All args are None and we do not support such a case. Received args={}".format(args))
            flatten_inputs, symbol_inputs = [], []
            for arg in flatten_args:
                if arg is None:
                    flatten_inputs.append(None)
                    continue
                name = "data%d" % len(symbol_inputs) if real_arg_num > 1 else "data"
                arg_sym = symbol.var(name)
                flatten_inputs.append(arg_sym)
                symbol_inputs.append(arg_sym)
            out = self._trace(_regroup(flatten_inputs, self._in_format))
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = symbol_inputs, symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args):
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        params = dict(self.collect_params().items())
        params.update({p.name: p for p in params.values() if p.name not in params})  # a shared Parameter's name
        input_names = out.list_inputs()
        expected = set(input_names)
        for name in expected:
            assert name in params or name in data_names, "Unknown input to HybridBlock: %s" % name
        _cached.check_unused(data_names, expected, [k if k in expected else p.name
                                                    for k, p in self.collect_params().items()])
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        if self._backend:
            arg_dict = {n: params[n].data() for n in out.list_arguments() if n in params}
            aux_dict = {n: params[n].data() for n in out.list_auxiliary_states() if n in params}
            out = _cached.partition(self.name, self._backend, out, arg_dict, aux_dict, self._backend_opts)
            self._cached_graph = data, out
        self._cached_op_args = [(True, data_names[name]) if name in data_names else (False, params[name])
                                for name in out.list_inputs()]
        # an input the graph does not use is still passed: the parameters come after every input
        self._cached_op = _cached.CachedOp(out, self._cached_op_args, self._flags + [("backend", self._backend)],
                                           num_data=len(data))

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as e:
            raise ValueError("Deferred initialization failed because shape cannot be inferred. {}".format(e)) from None

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            with args[0].context if isinstance(args[0], NDArray) else _null_scope():
                self._build_cache(*args)
        op = self._cached_op
        if self._callback is not None:
            op.callback, op.monitor_all = self._callback, self._monitor_all
            if self._static_flags():
                warnings.warn("register_op_hook is experimental when static_alloc=True / static_shape=True "
                              " and may not work correctly")
        if len(args) == 1 and type(args[0]) is NDArray and self._in_format == [0]:  # noqa: E721
            out = op(list(args))  # one array, as cached: nothing to flatten
        else:
            args, fmt = _flatten(args, "input")
            if fmt != self._in_format:
                self._check_format(fmt)
            out = op([a for a in args if a is not None])
        return out[0] if self._out_format == 0 else _regroup(out, self._out_format)

    def _static_flags(self):
        flags = dict(self._flags)
        return flags.get("static_alloc") or flags.get("static_shape")

    def _check_format(self, fmt):
        """MXNet accepts an input structure that differs from the cached one only by trailing Nones."""
        stored = self._in_format
        n = min(len(stored), len(fmt))
        longer = stored if len(stored) > len(fmt) else fmt
        valid = len(stored) != len(fmt) and fmt[:n] == stored[:n] and all(f == -1 for f in longer[n:])
        if not valid:
            raise ValueError("The argument structure of HybridBlock does not match the cached version. "
                             "Stored format = {}, input format = {}".format(fmt, self._in_format))

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    # ------------------------------------------------------------------ public API
    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError("Children of HybridBlock must also be HybridBlock, but %s has type %s. If you are "
                             "using Sequential, please try HybridSequential instead." % (str(block), str(type(block))))
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False, static_shape=False,
                  inline_limit=2, forward_bulk_size=None, backward_bulk_size=None, backend_opts=None,
                  partition_if_dynamic=False, **kwargs):
        """Activate (or, with ``active=False``, deactivate) hybrid execution here and in every child.

        ``backend`` names a graph backend (see ``register_backend``) applied when the graph is
        built; ``backend='inductor'``/``'MKLDNN'``/``'ONEDNN'``, or ``static_alloc`` with
        ``static_shape``, also compile the graph with ``torch.compile`` (executor/inductor.py);
        the bulk sizes are accepted and recorded."""
        if backend_opts:
            self._backend_opts = dict(backend_opts)
        if kwargs:
            self._backend_opts = kwargs
        self._backend = backend
        self._active = active
        self._flags = [("static_alloc", static_alloc), ("static_shape", static_shape), ("inline_limit", inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        if clear:
            self._clear_cached_op()
        if active and self._forward_hooks or self._forward_pre_hooks:
            warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. If "{block}" is '
                          'a child of HybridBlock, the hooks will not take effect.'.format(block=self))
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape, inline_limit=inline_limit,
                          forward_bulk_size=forward_bulk_size, backward_bulk_size=backward_bulk_size)

    def optimize_for(self, x, *args, backend=None, backend_opts=None, clear=False, static_alloc=False,
                     static_shape=False, inline_limit=2, forward_bulk_size=None, backward_bulk_size=None,
                     **kwargs):
        """Hybridize with ``backend`` and build the cached graph for these inputs without running it."""
        if backend_opts:
            self._backend_opts = dict(backend_opts)
        if kwargs:
            self._backend_opts = kwargs
        if not backend:
            raise ValueError('Must specify "backend" to optimize_for')
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit,
                       forward_bulk_size, backward_bulk_size)
        has_symbol, has_ndarray, ctx_set, _ = _gather_type_ctx_info([x] + list(args))
        if not has_symbol and not has_ndarray:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. "
                             "Please check the type of the args.\n")
        if len(ctx_set) > 1:
            raise ValueError("Found multiple contexts in the input, After hybridized, the HybridBlock only supports "
                             "one input context. You can print the ele.ctx in the input arguments to inspect their "
                             "contexts. Find all contexts = {}".format(ctx_set))
        with x.context if isinstance(x, NDArray) else _null_scope():
            self._build_cache(x, *args)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, infer_fn, attr, *args):
        inputs, out = self._get_graph(*args)
        args = [a for a in _flatten(args, "input")[0] if a is not None]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            arg_attrs, _, aux_attrs = getattr(out, infer_fn)(
                **{i.name: getattr(j, attr) for i, j in zip(inputs, args)})
            if arg_attrs is None:
                raise ValueError(str(w[0].message) if w else "%s failed for %s" % (infer_fn, self.name))
        sdict = dict(zip(out.list_arguments(), arg_attrs))
        sdict.update(zip(out.list_auxiliary_states(), aux_attrs))
        for p in self.collect_params().values():
            if p.name in sdict:
                setattr(p, attr, sdict[p.name])

    def infer_shape(self, *args):
        """Infer the shapes of the Parameters from the inputs' shapes."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args):
        """Infer the dtypes of the Parameters from the inputs' dtypes."""
        self._infer_attrs("infer_type", "dtype", *args)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` and ``path-%04d.params`` (keys ``arg:<name>``/``aux:<name>``),
        MXNet 1.9.1's formats, loadable by ``SymbolBlock.imports`` and by MXNet."""
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                               "once before calling export.")
        sym = self._cached_graph[1]
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for is_arg, param in self._cached_op_args:
            if is_arg:
                continue
            if param.name in arg_names:
                arg_dict["arg:%s" % param.name] = param._reduce()
            elif param.name in aux_names:
                arg_dict["aux:%s" % param.name] = param._reduce()
            else:
                warnings.warn('Parameter "{name}" is not found in the graph. '.format(name=param.name), stacklevel=3)
        atomic_write_all([("%s-symbol.json" % path, sym.tojson(remove_amp_cast=remove_amp_cast)),
                          ("%s-%04d.params" % (path, epoch), _serialization.dumps(arg_dict))], "export")

    def export_torch(self, path, *examples, name=None, exported_program=False, training=False):
        """Write the hybridized graph as a standalone PyTorch module: ``path/<name>.py`` (one
        ``torch.nn.Module`` class, importing only torch), ``path/<name>.pt`` (its state_dict)
        and, with ``exported_program``, ``path/<name>.pt2`` (``torch.export``). ``examples``:
        one NDArray or shape per input, the shapes the graph is captured on (see
        :mod:`neogluon.executor.torch_export`); ``name`` defaults to the block's name;
        ``training`` also captures the training pass, which ``forward`` runs in training mode.
        Returns the paths written, ``{"py": ..., "pt": ..., "pt2": ...}``."""
        from ..executor.torch_export import export_torch, identifier
        if not self._cached_graph:
            raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                               "once before calling export_torch.")
        data, sym = self._cached_graph
        if len(examples) != len(data):
            raise ValueError("export_torch: %d example(s) for the %d input(s) of %s (%s)"
                             % (len(examples), len(data), self.name, ", ".join(d.name for d in data)))
        shapes = {d.name: tuple(getattr(e, "shape", e)) for d, e in zip(data, examples)}
        dtypes = {d.name: e.dtype for d, e in zip(data, examples) if isinstance(e, NDArray)}
        params = self.collect_params()
        arrays = {n: params[n].data() for n in sym.list_inputs() if n in params}
        return export_torch(sym, arrays, path, shapes, dtypes, name=name or identifier(self.name),
                            exported_program=exported_program, training=training)

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` on every node output of the hybridized graph
        (and on node inputs with ``monitor_all``)."""
        self._callback = callback
        self._monitor_all = monitor_all
        for cld in self._children.values():
            cld._callback = callback
            cld._monitor_all = monitor_all

    def __call__(self, *args):
        if self._traces_forward and (self._active or _is_symbolic(args)):
            return self._hooked(self._traced_forward, args)
        return self._hooked(self.forward, args)

    def _traced_forward(self, *args):
        """``forward`` of a subclass that overrides it: traced symbolically, or run as a cached graph."""
        if _is_symbolic(args):
            traced = _cached.has_traced(args)
            out = self._trace(_cached.unwrap_traced(list(args)))
            return _cached.wrap_traced(out) if traced else out
        return self._call_cached_op(*args)

    def forward(self, x, *args):
        """Run ``hybrid_forward`` on NDArrays (or the cached graph once hybridized), or trace it on Symbols."""
        if type(x) is NDArray and all(  # pylint: disable=unidiomatic-typecheck
                type(a) is NDArray and a._t.device == x._t.device for a in args):  # noqa: E721
            if self._active:  # the common cases first: arrays on one device
                return self._call_cached_op(x, *args)
            return self._forward_ndarray(x.context, x, args)
        if _cached.has_traced([x] + list(args)):
            out = self._trace(_cached.unwrap_traced([x] + list(args)))
            return _cached.wrap_traced(out)
        has_symbol, has_ndarray, ctx_set, first_ctx = _gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError("In HybridBlock, we do not support mixed NDArrays and Symbols types for the input. "
                             "Please check the type of the args.\n")
        if not has_symbol and not has_ndarray:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the input. "
                             "Please check the type of the args.\n")
        if has_symbol:
            return self._trace([x] + list(args))
        if self._active:
            if len(ctx_set) > 1:
                raise ValueError("Find multiple contexts in the input, After hybridized, the HybridBlock only supports "
                             "one input context. You can print the ele.ctx in the input arguments to inspect their "
                             "contexts. Find all contexts = {}".format(ctx_set))
            with first_ctx:
                return self._call_cached_op(x, *args)
        return self._forward_ndarray(first_ctx, x, args)

    def _forward_ndarray(self, ctx, x, args):
        """``hybrid_forward`` with ``F = mx.nd`` and the parameters' data on ``ctx`` (the
        deferred ones initialised from the inputs' shapes first)."""
        with ctx:
            try:
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for _, v in self.params.items():
                    v._finish_deferred_init()
                params = {k: v.data(ctx) for k, v in self._reg_params.items()}
            return self.hybrid_forward(_npx._ND_F if _NP.array else ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override to build the computation with ``F`` (``mx.nd`` or ``mx.sym``)."""
        raise MXNetError("%s must override hybrid_forward(self, F, x, ...) or forward(self, x, ...)"
                         % type(self).__name__)


class _null_scope:  # pylint: disable=invalid-name
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _is_symbolic(args):
    """Whether the (nested) arguments hold Symbols or Traced arrays."""
    for a in args:
        if isinstance(a, (Symbol, _cached.Traced)) or isinstance(a, (list, tuple)) and _is_symbolic(a):
            return True
    return False


def _shapes_agree(shape, other):
    """Whether two Parameter shapes can be the same (0, or -1 under NumPy shape semantics, is
    any size)."""
    if not shape or not other:
        return True
    return len(shape) == len(other) and all(a in (0, -1, b) or b in (0, -1) for a, b in zip(shape, other))


def _common_prefix(names):
    """The longest common prefix of all names."""
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


# ---------------------------------------------------------------------- SymbolBlock
class SymbolBlock(HybridBlock):
    """A Block made from a Symbol (``outputs``) with the given input variables (``inputs``);
    the other variables become Parameters (shared from ``params`` where given)."""

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False, ignore_extra=False,
                device=None):
        """Load a model saved by ``HybridBlock.export`` (or ``Module.save_checkpoint``)."""
        ctx = _pick_ctx(ctx, device)
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(i, dtype=np.float32) for i in input_names]
        else:
            inputs = [symbol.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra, cast_dtype=True,
                                      dtype_source="saved")
        return ret

    def __repr__(self):
        out = self._cached_graph[1]
        modstr = "{block} : {numinputs} -> {numoutputs}".format(
            block=out, numinputs=len(self._cached_graph[0]), numoutputs=len(out.list_outputs()))
        return "{name}(\n{modstr}\n)".format(name=self.__class__.__name__, modstr=modstr)

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        self._traces_forward = False
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        input_names = set()
        for i in syms:
            assert len(i.get_internals().list_outputs()) == 1, \
                "Input symbols must be variable, but %s is an output of operators" % str(i)
            input_names.add(i.name)
        out = symbol.Group(out) if len(out) > 1 else out[0]
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for arg, dtype in zip(arg_params, arg_types):
            if arg not in input_names:
                self.params.get(arg, allow_deferred_init=True, dtype=dtype)
        for aux, dtype in zip(aux_params, aux_types):
            if aux not in input_names:
                self.params.get(aux, grad_req="null", allow_deferred_init=True, dtype=dtype)
        self._cached_graph = syms, out
        len_prefix = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[len_prefix:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        """Run the graph on NDArrays, or compose it with Symbols."""
        if isinstance(x, NDArray) and not isinstance(x, _cached.Traced):
            if self._cached_op is not None and not args and not self._callback:
                return _regroup(self._cached_op([x]), self._out_format)
            with x.context:
                return self._call_cached_op(x, *args)
        traced = _cached.has_traced([x] + list(args))
        if traced:
            x, args = _cached.unwrap_traced(x), _cached.unwrap_traced(list(args))
        assert isinstance(x, Symbol), \
            "HybridBlock requires the first argument to forward be either Symbol or NDArray, but got %s" % type(x)
        args, in_fmt = _flatten([x] + list(args), "input")
        assert in_fmt == self._in_format, "Invalid input format"
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], args)})
        out = _regroup(list(ret), self._out_format)
        return _cached.wrap_traced(out) if traced else out

    def _clear_cached_op(self):
        tmp = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = tmp

    def cast(self, dtype):
        """Cast the parameters; in float16, BatchNorm's statistics and gamma/beta stay float32 as in MXNet."""
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name != "float16":
            return
        params_list = self._cached_graph[1].get_internals().list_inputs()
        for node in params_list:
            for stat, mean in (("running_var", "running_mean"), ("moving_var", "moving_mean")):
                if node.endswith(stat):
                    prefix = node[:-len(stat)]
                    sibs = [prefix + t for t in (mean, "gamma", "beta")]
                    if all(p in params_list for p in sibs):
                        for p in [node] + sibs:
                            self.params.get(p).cast("float32")

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise MXNetError("SymbolBlock runs its symbol; it has no hybrid_forward")

    def reset_ctx(self, ctx):
        """Move every Parameter to ``ctx``."""
        for p in self.collect_params().values():
            p.reset_ctx(ctx)


def _infer_param_types(in_params, out_params, arg_params, aux_params, default_dtype=np.float32):
    """The dtypes of the arguments and auxiliary states, inferred from the inputs' declared
    dtypes where possible (float32 otherwise), as MXNet's SymbolBlock does."""
    arg_types = aux_types = None
    known = {}
    for p in in_params:
        dt = p.attr("__dtype__")
        if dt is None:
            known = None
            break
        known[p.name] = int(dt)
    if known:
        from ..base import FLAG_TO_DTYPE
        try:
            arg_types, _, aux_types = out_params.infer_type(**{k: FLAG_TO_DTYPE[v] for k, v in known.items()})
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params) or any(t is None for t in arg_types):
        arg_types = [default_dtype] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params) or any(t is None for t in aux_types):
        aux_types = [default_dtype] * len(aux_params)
    return arg_types, aux_types


def _as_np(out):
    """A block's outputs as ``mx.np.ndarray`` (under ``npx.set_np()``, or for an ``mx.np``
    input, as MXNet's NumPy-mode Gluon returns them): the same objects, re-typed."""
    if isinstance(out, (list, tuple)):
        return type(out)(_as_np(o) for o in out)
    return _as_np_list(out)
