"""``NDArray.__getitem__`` / ``__setitem__`` with numpy's rules and MXNet 1.x's quirks.

Basic indexing (ints, slices with any step, ``None``, ``Ellipsis``) and advanced
indexing (lists, numpy arrays, NDArrays of indices) follow numpy. As in MXNet 1.x, a
result with no dimensions left is returned with shape ``(1,)``, except that with NumPy shape
semantics on (``mx.set_np_shape(True)``, which importing DGL does) an element taken by
integers alone, ``x[i]`` of a 1-d array or ``x[i, j]`` of a 2-d one, is 0-d (MXNet's
``NDArray._at``); ``x[i]`` and ``x[a:b]``
are views, as in torch and MXNet. Reads are an operator, :data:`GETITEM` (its attribute
is the key), so ``x[key]`` runs through ``Operator.call`` like any other operator: it is
recorded by autograd and traced in a hybridized ``forward`` (where basic keys become
``slice`` and ``squeeze`` nodes). Writes go into the array in place.
"""
import functools
import math
import operator

import numpy as np
import torch

from ..base import integer_types, numeric_types
from ..core import STATE as _STATE, check_assign
from ..np_mode import FLAGS as _NP_FLAGS
from ..operator.registry import Any, Operator

# index types of x[i]'s fast path: Python's int and numpy's (samplers yield numpy.int64)
_INT_KEYS = frozenset([int, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32, np.uint16, np.uint8])


def _index_tensor(idx, device):
    if hasattr(idx, "_t"):  # an NDArray of indices
        t = idx._t
    elif isinstance(idx, np.ndarray):
        t = torch.from_numpy(np.ascontiguousarray(idx))
    else:
        t = torch.as_tensor(idx)
    if t.dtype == torch.bool:
        return t.to(device)
    if t.is_floating_point():
        t = t.long()
    return t.to(device=device, dtype=torch.long)


def _reversed_slice(k, size):
    """The positive-step slice over the same elements as a negative-step ``k``; the
    selected elements are those of the result, in reverse order."""
    start, stop, step = k.indices(size)
    count = len(range(start, stop, step))
    if count == 0:
        return slice(0, 0)
    return slice(start + (count - 1) * step, start + 1, -step)


def _convert_key(key, shape, device):
    """Turn an MXNet/numpy index into one torch accepts.

    torch has no negative slice steps: such a slice becomes a positive-step slice of the
    input (``pre``, one slice per input axis) followed by a flip of that axis
    (``flips``), and ``slice(None)`` in the returned key. Returns (pre, flips, key)."""
    if not isinstance(key, tuple):
        key = (key,)
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise IndexError("too many indices (%d) for an array of shape %s" % (n_real, shape))
    out = []
    pre = [slice(None)] * len(shape)
    flips = []
    dim = 0
    for i, k in enumerate(key):
        if k is Ellipsis:
            out.append(k)
            dim += len(shape) - n_real  # the dimensions the ellipsis stands for
            continue
        if k is None:
            out.append(None)
            continue
        size = shape[dim]
        if isinstance(k, (bool, np.bool_)):
            raise IndexError("boolean scalars are not valid indices")
        if isinstance(k, integer_types):
            k = int(k)
            if not -size <= k < size:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (k, dim, size))
            out.append(k)
        elif isinstance(k, slice):
            if k.step is not None and k.step < 0:
                pre[dim] = _reversed_slice(k, size)
                flips.append(dim)
                out.append(slice(None))
            elif k.step == 0:
                raise ValueError("slice step cannot be zero")
            else:
                out.append(k)
        elif isinstance(k, numeric_types):
            raise ValueError("NDArray does not support slicing with key %r of type %s: only integers, slices, "
                             "None, Ellipsis and integer arrays are valid indices" % (k, type(k)))
        else:
            t = _index_tensor(k, device)
            if t.dtype != torch.bool:
                bad = (t >= size) | (t < -size)
                if t.numel() and bool(bad.any()):
                    raise IndexError("index %d is out of bounds for axis %d with size %d"
                                     % (int(t[bad].flatten()[0]), dim, size))
            out.append(t)
            dim += t.dim() - 1 if t.dtype == torch.bool else 0
        dim += 1
    return tuple(pre), flips, tuple(out)


def _flipped(t, pre, flips):
    """``t`` with the negative-step slices of a key applied (see ``_convert_key``)."""
    return t[pre].flip(flips) if flips else t


def mxnet_view(key, shape):
    """Whether MXNet 1.9.1's basic indexing gives a view for ``key`` (a slice, or a tuple of
    ints and slices, no more than ``shape`` has axes) on an array of ``shape``; None for keys
    it does not decide (None, Ellipsis, arrays: neogluon gives a view). MXNet's rule
    (``_basic_indexing_slice_is_contiguous``): a view when the selection is contiguous in
    memory, i.e. from the last axis to the first, once an axis selects a proper subset every
    axis before it selects at most one element (and no axis selects several elements with a
    step other than 1); else ``slice``'s new memory (``x[0:2, 1:3]``, a crop, is a copy)."""
    if key.__class__ is not tuple:
        key = (key,)
    counts = []
    for k, n in zip(key, shape):
        if k.__class__ is slice:
            start, stop, step = k.indices(n)
            counts.append((len(range(start, stop, step)), step, n))
        elif isinstance(k, integer_types) and not isinstance(k, (bool, np.bool_)):
            counts.append((1, 1, n))
        else:
            return None
    counts.extend((n, 1, n) for n in shape[len(key):])
    if math.prod(c for c, _, _ in counts) <= 1:
        return True
    subset = False
    for count, step, n in reversed(counts):
        if count == 0:
            return True
        if count > 1 and (step != 1 or subset):
            return False
        subset = subset or count < n
    return True


def getitem(t, key):
    """``t[key]`` on a tensor, as MXNet 1.x indexes an NDArray (the kernel of GETITEM): a view
    where MXNet gives one (see ``mxnet_view``), else new memory."""
    cls = key.__class__
    if cls in _INT_KEYS and t.dim():  # x[i]: a view; (1,) for an element of a 1-d array
        n = t.shape[0]
        i = key + n if key < 0 else key
        if 0 <= i < n:
            return t[i:i + 1] if t.dim() == 1 and not _NP_FLAGS.shape else t[i]
    elif cls is slice and t.dim() and key.step is None:  # x[a:b]: a view
        return t[key]
    pre, flips, k = _convert_key(key, tuple(t.shape), t.device)
    try:
        r = _flipped(t, pre, flips)[k]
    except (IndexError, RuntimeError) as e:
        raise IndexError("NDArray index %r on shape %s: %s" % (key, tuple(t.shape), e)) from None
    if not flips and mxnet_view(key, tuple(t.shape)) is False:  # a flip has copied already
        r = r.clone(memory_format=torch.contiguous_format)
    if r.dim() == 0 and not (_NP_FLAGS.shape and _integers_only(key, t.dim())):
        r = r.reshape(1)
    return r


def _integers_only(key, ndim):
    """Whether ``key`` is one integer per axis, the key MXNet takes element by element with
    ``NDArray._at`` (0-d with NumPy shape semantics); ``x[i, ...]`` or ``x[i, None]`` are not."""
    if key.__class__ is not tuple:
        return key.__class__ in _INT_KEYS
    return len(key) == ndim and all(k.__class__ in _INT_KEYS for k in key)


def cache_key(key):
    """A hashable stand-in for a basic index (ints, slices, None, Ellipsis and tuples of
    them) for GETITEM's cache; TypeError for any other index (it is not cached)."""
    cls = key.__class__
    if cls in _INT_KEYS:
        return key
    if cls is slice:
        return (slice, key.start, key.stop, key.step)
    if key is None or key is Ellipsis:
        return key
    if cls is tuple:
        return (tuple,) + tuple(cache_key(k) for k in key)
    raise TypeError("not a basic index")


def plain_slices(key):
    """Whether a tuple index holds slices without a step only, at least one (``x[a:b, c:d]``):
    torch's ``t[key]`` is then the view MXNet's basic indexing gives, for every such key."""
    for k in key:
        if k.__class__ is not slice or k.step is not None:
            return False
    return bool(key)


def slices(key, data):
    """``x[a:b, c:d]`` for a tuple of slices without a step: a view where MXNet gives one,
    else new memory (see ``mxnet_view``); getitem words an index with too many axes. The
    generated ``x[a:b, c:d]`` calls it."""
    if len(key) > data.dim():
        return getitem(data, key)
    shape = data.shape
    if mxnet_view(key, shape):
        return data[key]
    return data[key].clone(memory_format=torch.contiguous_format)


def element(key, data):
    """``x[i]`` for an integer ``i``: a view of a row; getitem words an index out of bounds
    and gives an element of a 1-d array the shape (1,). The generated ``x[i]`` calls it."""
    if data.dim() > 1 and -data.shape[0] <= key < data.shape[0]:
        return data[key]
    return getitem(data, key)


def _lower_getitem(*, key):
    """The kernel for one key: ``x[a:b]`` and ``x[i]`` take a view straight away."""
    cls = key.__class__
    if cls is slice and key.step is None:
        return operator.itemgetter(key)  # a view (torch's IndexError for a 0-d array)
    if cls in _INT_KEYS:
        return functools.partial(element, key)
    return lambda data: getitem(data, key)


def _no_check(attrs, tensors):
    """GETITEM's errors are numpy's (IndexError, ValueError), raised by its kernel itself."""


# one implementation: the kernel factory (a view for x[a:b] and x[i], getitem for any other key)
GETITEM = Operator("_getitem", None, params=dict(key=Any()), check=_no_check,
                   doc="``x[key]`` (NDArray.__getitem__), an operator of neogluon only: it is not in "
                       "the registry, and a traced key becomes slice/squeeze nodes.")
GETITEM.lowering = _lower_getitem


def setitem(x, key, value):
    t = x._t
    if t.dim() == 0:
        key, value = _scalar_key_value(key, value, getattr(x, "_SCALAR_KEYS", None))
    pre, flips, k = _convert_key(key, tuple(t.shape), t.device)
    if hasattr(value, "_t"):  # an NDArray
        v = value._t
        if not _STATE.recording:
            v = v.detach()
        v = v.to(device=t.device, dtype=t.dtype)
    elif isinstance(value, numeric_types):
        v = value.item() if isinstance(value, np.generic) else value  # torch refuses numpy scalars
    else:
        v = torch.as_tensor(np.asarray(value), device=t.device).to(t.dtype)
    if _STATE.recording:
        check_assign(t, v if isinstance(v, torch.Tensor) else None)
    try:
        with torch.no_grad():
            if flips:
                _put_flipped(t, pre, flips, k, v)
            else:
                t[k] = v
    except RuntimeError as e:
        raise ValueError("cannot assign a value of shape %s to NDArray%s of shape %s: %s"
                         % (tuple(v.shape) if isinstance(v, torch.Tensor) else (), _fmt(key), x.shape,
                            str(e).split("\n")[0])) from None


def _scalar_key_value(key, value, only_empty=None):
    """A 0-d array's key and value as MXNet 1.9.1 takes them: ``z[()] = v`` or ``z[:] = v``
    (any slice) with one value (a number, or an array of one element of any shape); returns
    the key and value for the write into every element. ``only_empty``: the keys said in the
    error of an array that takes ``()`` alone (``mx.np.ndarray``'s rule)."""
    if only_empty is not None:
        if key.__class__ is not tuple or key:
            raise IndexError("scalar tensor can only accept %s as index" % only_empty)
    elif not isinstance(key, (tuple, slice)) or (isinstance(key, tuple) and key):
        raise IndexError("scalar tensor can only accept `()` and `:` as index")
    if isinstance(value, numeric_types):
        return Ellipsis, value
    if not hasattr(value, "_t"):  # a numpy array or a sequence
        value = np.asarray(value)
    if value.size != 1:
        raise ValueError("setting an array element with a sequence.")
    return Ellipsis, value.reshape(())


def _put_flipped(t, pre, flips, k, v):
    """``t[key] = v`` for a key with negative steps: write through the flat positions the
    key selects (a flipped tensor is a copy, so it cannot be written through)."""
    pos = _flipped(torch.arange(t.numel(), device=t.device).reshape(t.shape), pre, flips)[k]
    vals = torch.as_tensor(v, dtype=t.dtype, device=t.device).expand(pos.shape)
    t.put_(pos.reshape(-1), vals.reshape(-1))


def _fmt(key):
    return "[%r]" % (key,)
