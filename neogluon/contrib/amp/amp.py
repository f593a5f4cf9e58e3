"""Automatic mixed precision (MXNet's ``mx.contrib.amp``) on torch's autocast.

MXNet's AMP rewrites its operator functions to cast inputs to float16/bfloat16 or float32
by its operator lists. neogluon's operators are torch kernels, so AMP is torch's autocast
with the same target types: ``init(target_dtype)`` turns autocast on for the whole
process (bfloat16 on CPU; float16 or bfloat16 on GPU — torch autocasts CPU code to
bfloat16 only, so ``init('float16')`` changes GPU code alone).
Low-precision results are shown as float32 arrays (numpy has no bfloat16) and
``asnumpy()`` gives float32 values. Loss scaling (``init_trainer``, ``scale_loss``,
``unscale``) is MXNet's: the dynamic :class:`LossScaler`, and the Trainer skips a step
whose gradients overflow. Converting a graph (``convert_symbol``, ``convert_model``,
``convert_bucketing_module``) is MXNet's own pass (:mod:`.reduce_precision`): it inserts the
``amp_cast`` nodes MXNet 1.9.1 inserts, with MXNet's names and parameter ``__dtype__``
marks, and the converted graph runs in float16 or bfloat16 on torch's kernels.
"""
import contextlib
import logging

import numpy as np
import torch

from ...base import MXNetError
from ...gluon import trainer
from ...gluon.block import HybridBlock
from ... import optimizer as opt
from .loss_scaler import LossScaler
from .reduce_precision import FLAGS, reduce_precision

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_symbol", "convert_model",
           "convert_hybrid_block", "list_lp16_ops",
           "list_fp32_ops", "list_lp16_fp32_ops", "list_conditional_fp32_ops", "list_widest_type_cast",
           "list_loss_output_functions", "list_lp16_use_fp32_params"]

bfloat16 = np.dtype([("bfloat16", np.uint16)])  # MXNet's numpy spelling of bfloat16
_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None
_autocast_state = None  # what init() changed, for _reset()


def _target(target_dtype):
    if isinstance(target_dtype, str) and target_dtype in ("float16", "bfloat16"):
        return target_dtype
    if target_dtype is np.float16 or (isinstance(target_dtype, np.dtype) and target_dtype == np.float16):
        return "float16"
    if isinstance(target_dtype, np.dtype) and target_dtype == bfloat16:
        return "bfloat16"
    raise AssertionError("AMP currently supports only float16 or bfloat16 as a target_dtype")


def _devices(target):
    """(device type, torch dtype) pairs autocast runs for a target type."""
    dtype = torch.float16 if target == "float16" else torch.bfloat16
    devices = [("cuda", dtype)] if torch.cuda.is_available() else []
    if target == "bfloat16":
        devices.append(("cpu", torch.bfloat16))
    return devices


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Turn on mixed precision for every operator run afterwards (see the module docstring).
    Here torch's autocast lists decide which kernels run in low precision, so custom
    operator lists are refused (a deliberate difference); a graph converted by
    :func:`convert_hybrid_block` or :func:`convert_symbol` follows custom lists exactly."""
    global _amp_initialized, _loss_scaler, _autocast_state  # pylint: disable=global-statement
    if _amp_initialized:
        return
    target = _target(target_dtype)
    if target_precision_ops or conditional_fp32_ops or fp32_ops:
        raise MXNetError("amp.init: custom operator lists (target_precision_ops, conditional_fp32_ops, "
                         "fp32_ops) are not supported: neogluon's amp.init is torch's autocast, whose own lists "
                         "decide. To run a model by custom lists, convert it: amp.convert_hybrid_block(net, "
                         "target_dtype, target_dtype_ops=..., fp32_ops=..., conditional_fp32_ops=...) or "
                         "amp.convert_symbol/convert_model")
    _amp_initialized = True
    logging.info("Using AMP")
    state = []
    for device, dtype in _devices(target):
        state.append((device, torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)))
        torch.set_autocast_dtype(device, dtype)
        torch.set_autocast_enabled(device, True)
    if state:
        state.append(("cache", torch.is_autocast_cache_enabled(), None))
        torch.set_autocast_cache_enabled(False)  # no autocast scope ever exits to clear it
    _autocast_state = state
    _loss_scaler = LossScaler()


def _reset():
    """Undo :func:`init` (for tests; MXNet has no way back)."""
    global _amp_initialized, _amp_loss_scale_initialized, _loss_scaler, _autocast_state  # pylint: disable=global-statement
    for device, enabled, dtype in reversed(_autocast_state or []):
        if device == "cache":
            torch.set_autocast_cache_enabled(enabled)
        else:
            torch.set_autocast_enabled(device, enabled)
            torch.set_autocast_dtype(device, dtype)
    _amp_initialized = _amp_loss_scale_initialized = False
    _loss_scaler = _autocast_state = None


def init_trainer(optimizer_or_trainer):
    """Give a Gluon Trainer a dynamic loss scaler (the Trainer then skips overflowing steps)."""
    global _amp_loss_scale_initialized  # pylint: disable=global-statement
    assert _amp_initialized, "AMP not initialized, did you forget to call amp.init()?"
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        loss_scaler = _loss_scaler
    else:
        loss_scaler = LossScaler()
    if isinstance(optimizer_or_trainer, trainer.Trainer):
        optimizer_or_trainer._amp_loss_scaler = loss_scaler  # pylint: disable=protected-access
        optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale  # pylint: disable=protected-access
    elif isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    else:
        raise TypeError("optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is %s"
                        % type(optimizer_or_trainer))


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield the loss (or list of losses) multiplied by the loss scale; the trainer's
    gradient scale is divided by it, so the step sees unscaled gradients."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    assert scaler is not None, "Loss scaler is not initialized, did you forget to call amp.init_trainer()?"
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale  # pylint: disable=protected-access
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Unscale the gradients now (to clip them, say); the step then uses scale 1."""
    if isinstance(optimizer_or_trainer, trainer.Trainer):
        for p in optimizer_or_trainer._params:  # pylint: disable=protected-access
            if p._grad is not None:  # pylint: disable=protected-access
                for g in p.list_grad():
                    g[:] = g * optimizer_or_trainer._scale  # pylint: disable=protected-access
        optimizer_or_trainer._scale = 1.0  # pylint: disable=protected-access
    elif isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    else:
        raise TypeError("optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is %s"
                        % type(optimizer_or_trainer))


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None,
                         cast_optional_params=False):
    """A SymbolBlock running ``block``'s cached graph converted by :func:`convert_symbol`
    (the block must have been hybridized and run once, as in MXNet), with its parameters
    (those the pass marked cast to the target type) on ``ctx`` (MXNet's default is
    ``gpu(0)``; here the parameters' own context)."""
    from ...gluon import SymbolBlock
    _target(target_dtype)
    assert isinstance(block, HybridBlock), "block input should be a HybridBlock"
    if not block._cached_graph:  # pylint: disable=protected-access
        raise RuntimeError("Please first call block.hybridize() and then run forward with "
                           "this block at least once before calling export.")
    inputs, sym = block._cached_graph  # pylint: disable=protected-access
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names=[i.name for i in inputs],
                               cast_optional_params=cast_optional_params)
    params = {name: p.data() if ctx is None else p.data(ctx) for name, p in block.collect_params().items()}
    params = _cast_marked(params, converted.attr_dict())
    ret = SymbolBlock(converted, inputs)
    for name, param in ret.collect_params().items():
        value = params[name]
        if param.dtype != value.dtype:
            param.cast(value.dtype)
        param._load_init(value, ctx if ctx is not None else value.context)  # pylint: disable=protected-access
    return ret


def _op_lists(target, target_dtype_ops, fp32_ops, conditional_fp32_ops):
    """The operator lists the pass uses, checked as MXNet checks them."""
    if target_dtype_ops is not None:
        assert isinstance(target_dtype_ops, list), "target_dtype_ops should be a list of strs"
    else:
        target_dtype_ops = list_lp16_ops(target)
    if fp32_ops is not None:
        assert isinstance(fp32_ops, list), "fp32_ops should be a list of strs"
    else:
        fp32_ops = list_fp32_ops(target)
    if conditional_fp32_ops is not None:
        assert isinstance(conditional_fp32_ops, list), "conditional_fp32_ops should be a list"
    else:
        conditional_fp32_ops = list_conditional_fp32_ops(target)
    for cond in conditional_fp32_ops:
        assert isinstance(cond[0], str) and isinstance(cond[1], str) and isinstance(cond[2], list), \
            "conditional_fp32_ops should be a list of (str, str, list of str)"
    conditional_names = [c[0] for c in conditional_fp32_ops]
    for (a, an), (b, bn) in (((target_dtype_ops, "target_dtype_ops"), (fp32_ops, "fp32_ops")),
                             ((target_dtype_ops, "target_dtype_ops"), (conditional_names, "conditional_fp32_ops")),
                             ((fp32_ops, "fp32_ops"), (conditional_names, "conditional_fp32_ops"))):
        common = set(a) & set(b)
        assert not common, "Ops cannot be in two or more lists. Common ops in %s and %s %s" % (an, bn, common)
    known = set(list_lp16_ops(target) + list_fp32_ops(target) + list_lp16_fp32_ops(target)
                + [c[0] for c in list_conditional_fp32_ops(target)])
    illegal = set(target_dtype_ops + fp32_ops + conditional_names) - known
    assert not illegal, ("Can only choose ops from one of the three lists for lp16_ops and fp32_ops "
                         "1. amp.list_lp16_ops(target_dtype) 2. amp.list_fp32_ops(target_dtype) "
                         "3. amp.list_lp16_fp32_ops(target_dtype) 4. amp.list_conditional_fp32_ops(target_dtype) "
                         "Op %s not in any of them" % illegal)
    return target_dtype_ops, fp32_ops, [tuple(c) for c in conditional_fp32_ops]


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """A float32 graph with MXNet's AMP casts to ``target_dtype`` ('float16' or 'bfloat16')
    by the operator lists (MXNet's defaults unless given). ``data_names`` are the inputs
    fed as float32 data (by default every input without a ``__dtype__`` attribute); the
    other inputs are parameters, cast in the graph or, with ``cast_optional_params``,
    marked with the target type for the caller to cast (see :func:`convert_model`)."""
    from ...symbol import Symbol
    assert isinstance(sym, Symbol), "First argument to convert_symbol should be Symbol"
    assert target_dtype in ("float16", "bfloat16"), "Only target_dtype float16 and bfloat16 are supported currently"
    target_dtype_ops, fp32_ops, conditional = _op_lists(target_dtype, target_dtype_ops, fp32_ops,
                                                        conditional_fp32_ops)
    if excluded_sym_names is not None:
        assert isinstance(excluded_sym_names, list), "excluded_sym_names should be a list of strs"
    if data_names is None:
        attrs = sym.attr_dict()
        data_names = [n for n in sym.list_inputs() if "__dtype__" not in attrs.get(n, {})]
    return reduce_precision(sym, target_dtype, target_dtype_ops, fp32_ops, list_widest_type_cast(target_dtype),
                            conditional, excluded_sym_names or [], data_names, cast_optional_params)


def _cast_marked(params, attrs):
    """``params`` with each array whose node the pass marked (``__dtype__``) in that type."""
    flags = {v: k for k, v in FLAGS.items()}
    out = dict(params)
    for name, arr in params.items():
        flag = attrs.get(name, {}).get("__dtype__")
        if flag is not None and flag != "-1" and flags.get(flag, "float32") != "float32":
            from ...ndarray import amp_cast
            out[name] = amp_cast(arr, dtype=flags[flag])
    return out


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """``(symbol, arg_params, aux_params)`` of a float32 model converted by
    :func:`convert_symbol`; parameters marked with the target type are cast to it."""
    from ...symbol import Symbol
    if excluded_sym_names is not None and not isinstance(excluded_sym_names, list):
        raise ValueError("excluded_sym_names must be a list of strings representing the names of the symbols "
                         "that should not be casted, while received type %s" % str(type(excluded_sym_names)))
    assert target_dtype in ("float16", "bfloat16"), "Only target_dtype float16 and bfloat16 are supported currently"
    assert isinstance(sym, Symbol), "First argument to convert_model should be Symbol"
    assert isinstance(arg_params, dict), "Second argument to convert_model should be a dict of name to ndarray"
    assert isinstance(aux_params, dict), "Third argument to convert_model should be a dict of name to ndarray"
    params = set(arg_params) | set(aux_params)
    data_names = [n for n in sym.list_inputs() if n not in params]
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names, cast_optional_params)
    attrs = converted.attr_dict()
    return converted, _cast_marked(arg_params, attrs), _cast_marked(aux_params, attrs)


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A BucketingModule whose buckets' symbols are converted by :func:`convert_model`,
    sharing the (cast) parameters of the given one."""
    from ...module import BucketingModule
    assert isinstance(bucketing_mod, BucketingModule), "module should be instance of bucketing module"
    assert len(bucketing_mod._buckets) > 0, "Bucketing Module should not be empty"  # pylint: disable=protected-access
    assert bucketing_mod.params_initialized, \
        "bucketing_mod params should be initialized for mixed precision conversion"
    current = bucketing_mod._curr_module  # pylint: disable=protected-access
    arg_params, aux_params = current._arg_params, current._aux_params  # pylint: disable=protected-access
    sym_dict = {}
    for key, module in bucketing_mod._buckets.items():  # pylint: disable=protected-access
        sym_dict[key], result_args, result_aux = convert_model(
            module._symbol, arg_params, aux_params, target_dtype=target_dtype,  # pylint: disable=protected-access
            target_dtype_ops=target_dtype_ops, fp32_ops=fp32_ops, conditional_fp32_ops=conditional_fp32_ops,
            excluded_sym_names=excluded_sym_names, cast_optional_params=cast_optional_params)
    m = bucketing_mod
    return BucketingModule.load_dict(  # pylint: disable=protected-access
        sym_dict, sym_gen=m._sym_gen, arg_params=result_args, aux_params=result_aux,
        default_bucket_key=m._default_bucket_key, logger=m.logger, context=m._context,
        work_load_list=m._work_load_list, fixed_param_names=m._fixed_param_names, state_names=m._state_names,
        group2ctxs=m._group2ctxs, compression_params=m._compression_params)


def _lists(target_dtype):
    from .lists import symbol_bf16, symbol_fp16
    return symbol_fp16 if _target(target_dtype) == "float16" else symbol_bf16


def list_lp16_ops(target_dtype):
    """MXNet's default list of operators AMP runs in low precision."""
    lists = _lists(target_dtype)
    return lists.FP16_FUNCS if lists.__name__.endswith("fp16") else lists.BF16_FUNCS


def list_fp32_ops(target_dtype):
    """MXNet's default list of operators AMP keeps in float32."""
    return _lists(target_dtype).FP32_FUNCS


def list_lp16_fp32_ops(target_dtype):
    """MXNet's operators that run in either precision."""
    lists = _lists(target_dtype)
    return lists.FP16_FP32_FUNCS if lists.__name__.endswith("fp16") else lists.BF16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype):
    """MXNet's operators kept in float32 for some attribute values."""
    return _lists(target_dtype).CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype):
    """MXNet's operators whose inputs are cast to the widest input type."""
    return _lists(target_dtype).WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype):
    """MXNet's loss-output operators."""
    return _lists(target_dtype).LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype):
    """MXNet's low-precision operators whose parameters stay float32 (bfloat16 only)."""
    lists = _lists(target_dtype)
    return getattr(lists, "BF16_USE_FP32_PARAMS", None) if not lists.__name__.endswith("fp16") else None
