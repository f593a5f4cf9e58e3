"""The Python functions of MXNet's ``mx.nd.contrib`` (beside the generated ``_contrib_*``
operators): the imperative control flow ``foreach``, ``while_loop`` and ``cond`` (Python
loops over NDArrays, as in MXNet), ``isinf``/``isfinite``/``isnan``, and the optimizer
wrappers GluonNLP's BERTAdam and LAMB call (``adamw_update``, ``mp_adamw_update``,
``multi_adamw_update``, ``multi_mp_adamw_update``, ``multi_lamb_update``,
``multi_mp_lamb_update``), which pass a scalar ``rescale_grad`` as the array the
operators take and interleave the weights' lists.

The symbolic forms (``mx.sym.contrib.foreach``/``while_loop``/``cond``, one ``_foreach``/
``_while_loop``/``_cond`` node holding the body as a subgraph, which a hybridized block
using ``F.contrib.foreach`` gets) are in :mod:`neogluon.symbol.control_flow`.
"""
import warnings

import numpy as np

from ..base import MXNetError
from .ndarray import NDArray, invoke

__all__ = ["foreach", "while_loop", "cond", "isinf", "isfinite", "isnan", "adamw_update", "mp_adamw_update",
           "multi_adamw_update", "multi_mp_adamw_update", "multi_lamb_update", "multi_mp_lamb_update"]


# ----------------------------------------------------------------------------- nested lists
def _flatten(args, what):
    """``(flat list of NDArrays, format)``: an NDArray has format 0, a list the list of its
    items' formats (MXNet's ``_flatten``)."""
    if isinstance(args, NDArray):
        return [args], 0
    if not isinstance(args, (list, tuple)):
        raise MXNetError("%s must be (nested) list of NDArray, but got %s of type %s" % (what, args, type(args)))
    flat, fmts = [], []
    for a in args:
        f, fmt = _flatten(a, what)
        flat.extend(f)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    out = []
    for f in fmt:
        res, args = _regroup(args, f)
        out.append(res)
    return out, args


def _scalar(value, type_, what):
    if isinstance(value, NDArray):
        value = value.asscalar()
    try:
        return type_(value)
    except (TypeError, ValueError):
        raise ValueError("Cannot convert %s to python %s" % (what, type_.__name__)) from None


# ----------------------------------------------------------------------------- control flow
def foreach(body, data, init_states):
    """MXNet's ``contrib.foreach``: ``out, states = body(data[i], states)`` for each ``i``
    along axis 0 of ``data`` (an NDArray or a list of them); returns the stacked outputs
    (nested as ``body`` returns them) and the final states."""
    for what, value in (("data", data), ("init_states", init_states)):
        flat, _ = _flatten(value, "foreach " + what)
        if not all(isinstance(x, NDArray) for x in flat):
            raise MXNetError("foreach: %s should be an NDArray or a nested list of NDArrays" % what)
    single = isinstance(data, NDArray)
    steps = data.shape[0] if single else data[0].shape[0]
    states, outputs, fmt = init_states, [], None
    for i in range(steps):
        outs, states = body(data[i] if single else [d[i] for d in data], states)
        outs, fmt = _flatten(outs, "foreach output")
        outputs.append(outs)
    stacked = [invoke("stack", list(items), {"axis": 0, "num_args": len(items)}) for items in zip(*outputs)]
    if fmt is not None:
        stacked, _ = _regroup(stacked, fmt)
    return stacked, states


def while_loop(cond, func, loop_vars, max_iterations=None):  # pylint: disable=redefined-outer-name
    """MXNet's ``contrib.while_loop``: ``step_output, loop_vars = func(*loop_vars)`` while
    ``cond(*loop_vars)`` and fewer than ``max_iterations`` steps ran; the step outputs are
    stacked and padded to ``max_iterations`` rows (with zeros: MXNet leaves that padding
    uninitialised)."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iteration")
    if isinstance(loop_vars, (list, tuple)) and len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    steps, outputs, fmt = 0, [], None
    while steps < max_iterations and _scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        step_output, fmt = _flatten(list(step_output) if isinstance(step_output, tuple) else step_output,
                                    "while output")
        outputs.append(step_output)
        steps += 1
        if len(step_output) != len(outputs[0]):
            raise ValueError("Number of elements in step_output should be the same in each step")
    stacked = []
    for items in zip(*outputs):
        items = [x.expand_dims(0) for x in items]
        if steps != max_iterations:
            items.append(invoke("_zeros", [], {"shape": (max_iterations - steps,) + tuple(items[0].shape[1:]),
                                               "dtype": np.dtype(items[0].dtype).name}))
        stacked.append(invoke("Concat", items, {"dim": 0, "num_args": len(items)}))
    if fmt is not None:
        stacked, _ = _regroup(stacked, fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def cond(pred, then_func, else_func):
    """MXNet's ``contrib.cond``: ``then_func()`` when ``pred`` (a scalar or a 1-element
    NDArray) is true, else ``else_func()``."""
    return then_func() if _scalar(pred, bool, "pred") else else_func()


# ----------------------------------------------------------------------------- float checks
def isinf(data):
    """1 where ``data`` is +-inf, else 0 (in ``data``'s dtype)."""
    return data.abs() == np.inf


def isfinite(data):
    """1 where ``data`` is neither NaN nor infinite, else 0 (in ``data``'s dtype)."""
    return invoke("_logical_and", [data.abs() != np.inf, data == data], {})  # pylint: disable=comparison-with-itself


def isnan(data):
    """1 where ``data`` is NaN, else 0 (in ``data``'s dtype)."""
    return data != data  # pylint: disable=comparison-with-itself


# ----------------------------------------------------------------------------- optimizer wrappers
def _rescale_grad(rescale_grad, like):
    if isinstance(rescale_grad, NDArray):
        return rescale_grad.as_in_context(like.context)
    return invoke("_full", [], {"shape": (1,), "value": float(rescale_grad), "ctx": str(like.context)})


def _interleave(*lists):
    return [x for group in zip(*lists) for x in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """``_adamw_update`` with ``rescale_grad`` given as a number or an NDArray."""
    return invoke("_adamw_update", [weight, grad, mean, var, _rescale_grad(rescale_grad, weight)],
                  dict(lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                       clip_gradient=clip_gradient, **kwargs), out=out)


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8,
                    wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """``_mp_adamw_update`` with ``rescale_grad`` given as a number or an NDArray."""
    return invoke("_mp_adamw_update", [weight, grad, mean, var, weight32, _rescale_grad(rescale_grad, weight)],
                  dict(lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                       clip_gradient=clip_gradient, **kwargs), out=out)


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """``_multi_adamw_update`` on lists of weights, gradients and moments."""
    inputs = _interleave(weights, grads, mean, var) + [_rescale_grad(rescale_grad, weights[0])]
    return invoke("_multi_adamw_update", inputs,
                  dict(num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, **kwargs), out=out)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None, name=None,
                          size=0, **kwargs):
    """``_multi_mp_adamw_update`` on lists of weights, gradients, moments and master weights."""
    inputs = _interleave(weights, grads, mean, var, weights32) + [_rescale_grad(rescale_grad, weights[0])]
    return invoke("_multi_mp_adamw_update", inputs,
                  dict(num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, **kwargs), out=out)


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0, **kwargs):
    """``_multi_lamb_update`` on lists of weights, gradients and moments."""
    return invoke("_multi_lamb_update", _interleave(weights, grads, mean, var),
                  dict(num_tensors=num_tensors or len(weights), step_count=step_count, learning_rates=lrs, wds=wds,
                       **kwargs), out=out)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None, num_tensors=0,
                         **kwargs):
    """``_multi_mp_lamb_update`` on lists of weights, gradients, moments and master weights."""
    return invoke("_multi_mp_lamb_update", _interleave(weights, grads, mean, var, weights32),
                  dict(num_tensors=num_tensors or len(weights), step_count=step_count, learning_rates=lrs, wds=wds,
                       **kwargs), out=out)


def histogram(a, bins=10, range=None):  # pylint: disable=redefined-builtin
    """MXNet's ``mx.nd.histogram``: ``(counts, edges)`` with ``bins`` equal bins over
    ``range`` (numpy's answer when no range is given, as MXNet) or the edges in the NDArray
    ``bins``."""
    if isinstance(bins, NDArray):
        return invoke("_histogram", [a, bins], {})
    if isinstance(bins, int) and not isinstance(bins, bool):
        if range is None:
            warnings.warn("range is not specified, using numpy's result to ensure consistency with numpy")
            counts, edges = np.histogram(a.asnumpy(), bins=bins)
            return _array(counts), _array(edges)
        return invoke("_histogram", [a], {"bin_cnt": bins, "range": range})
    raise ValueError("bins argument should be either an integer or an NDArray")


def _array(values):
    from . import array  # float32, as MXNet's mx.nd.array of numpy's answer
    return array(values)


# ----------------------------------------------------------------------------- sampling
def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """``num_sampled`` classes of ``[0, range_max)`` drawn with replacement from the
    approximately log-uniform (Zipfian) distribution
    ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)``, with the expected counts of
    the true and the sampled classes: ``(samples int64, expected_count_true float64,
    expected_count_sample float64)``, computed as MXNet's ``nd.contrib.rand_zipfian``."""
    from .. import ndarray as nd
    from ..context import current_context
    ctx = ctx or current_context()
    return zipfian(nd, true_classes.as_in_context(ctx), num_sampled, range_max, ctx=ctx)


def zipfian(F, true_classes, num_sampled, range_max, **uniform_kwargs):  # pylint: disable=invalid-name
    """``rand_zipfian``'s arithmetic in ``F`` (``mx.nd`` or ``mx.sym``, whose
    ``contrib.rand_zipfian`` is this on Symbols): log-uniform draws, exponentiated."""
    import math
    log_range = math.log(range_max + 1)
    rand = F.random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", **uniform_kwargs)
    sampled = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.astype("float64")
    expected_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_f = sampled.astype("float64")
    expected_sampled = ((sampled_f + 2.0) / (sampled_f + 1.0)).log() / log_range * num_sampled
    return sampled, expected_true, expected_sampled


__all__ += ["rand_zipfian"]
