"""Automatic mixed precision (MXNet's ``mx.contrib.amp``) on torch's autocast.

MXNet's AMP rewrites its operator functions to cast inputs to float16/bfloat16 or float32
by its operator lists. neogluon's operators are torch kernels, so AMP is torch's autocast
with the same target types: ``init(target_dtype)`` turns autocast on for the whole
process (bfloat16 on CPU; float16 or bfloat16 on GPU — torch autocasts CPU code to
bfloat16 only, so ``init('float16')`` changes GPU code alone), and
``convert_hybrid_block`` returns a block that runs its forward under autocast.
Low-precision results are shown as float32 arrays (numpy has no bfloat16) and
``asnumpy()`` gives float32 values. Loss scaling (``init_trainer``, ``scale_loss``,
``unscale``) is MXNet's: the dynamic :class:`LossScaler`, and the Trainer skips a step
whose gradients overflow. Converting a symbol or a symbolic model (``convert_symbol``,
``convert_model``) inserts MXNet's ``amp_cast`` nodes, which is not built yet.
"""
import contextlib
import logging

import numpy as np
import torch

from ...base import MXNetError
from ...gluon import trainer
from ...gluon.block import Block, HybridBlock
from ... import optimizer as opt
from .loss_scaler import LossScaler

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_hybrid_block", "list_lp16_ops",
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
    Custom operator lists are not supported: torch's autocast lists decide."""
    global _amp_initialized, _loss_scaler, _autocast_state  # pylint: disable=global-statement
    if _amp_initialized:
        return
    target = _target(target_dtype)
    if target_precision_ops or conditional_fp32_ops or fp32_ops:
        raise MXNetError("amp.init: custom operator lists are not implemented yet (neogluon's AMP uses "
                         "torch's autocast lists)")
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


class _AutocastBlock(Block):
    """A block whose forward runs its HybridBlock under torch's autocast at the target type
    (``hybridize()`` reaches the inner block, which then runs as one cached graph)."""

    def __init__(self, block, target):
        super().__init__(prefix=block.prefix, params=None)
        self._devices = _devices(target)
        self._target = target
        with self.name_scope():
            self.net = block

    def forward(self, *args):  # pylint: disable=arguments-differ
        with contextlib.ExitStack() as stack:
            for device, dtype in self._devices:
                stack.enter_context(torch.autocast(device, dtype=dtype))
            return self.net(*args)


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None,
                         cast_optional_params=False):
    """A block running ``block`` in mixed precision (its parameters stay float32)."""
    target = _target(target_dtype)
    if target_dtype_ops or fp32_ops or conditional_fp32_ops or excluded_sym_names:
        raise MXNetError("amp.convert_hybrid_block: custom operator lists are not implemented yet "
                         "(neogluon's AMP uses torch's autocast lists)")
    if not isinstance(block, HybridBlock):
        raise TypeError("convert_hybrid_block expects a HybridBlock, got %s" % type(block).__name__)
    return _AutocastBlock(block, target)


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
