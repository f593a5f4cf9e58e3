"""``_npx_reshape``: MXNet 1.9.1's ``npx.reshape`` with its special codes (different from the
legacy ``Reshape``'s): -1 infers, -2 copies a dimension, -3 drops a dimension of size 1,
-4 copies all remaining dimensions, -5 merges two dimensions, -6 splits one into the two
values that follow; ``reverse`` reads both shapes (and the codes) from the right.
(``contrib.arange_like``, which npx exposes too, is defined once, in ``indices.py``.)"""
from ..base import MXNetError
import torch

from .registry import Bool, Float, Int, Shape, Str, register
from .shape import _reshape_infer_inputs  # one unknown input dimension from the output's size

__all__ = []


def npx_shape(src, codes, reverse=False, name="_npx_reshape"):
    """The output shape of ``npx.reshape(x, codes)`` for an input of shape ``src``."""
    if reverse:
        src, codes = src[::-1], codes[::-1]
    out, i, k, infer = [], 0, 0, None
    fail = MXNetError("Operator %s: cannot reshape array of shape %s into shape %s"
                      % (name, tuple(src[::-1] if reverse else src), tuple(codes[::-1] if reverse else codes)))
    while k < len(codes):
        c = codes[k]
        if c >= 0:
            out.append(c)
            i += 1
        elif c == -1:
            if infer is not None:
                raise fail
            infer = len(out)
            out.append(1)
            i += 1
        elif c == -2:
            out.append(src[i])
            i += 1
        elif c == -3:
            if src[i] != 1:
                raise fail
            i += 1
        elif c == -4:
            out.extend(src[i:])
            i = len(src)
        elif c == -5:
            out.append(src[i] * src[i + 1])
            i += 2
        elif c == -6:
            a, b = codes[k + 1], codes[k + 2]
            if a == -1:
                a = src[i] // b
            if b == -1:
                b = src[i] // a
            if a * b != src[i]:
                raise fail
            out.extend([a, b])
            i += 1
            k += 2
        else:
            raise fail
        k += 1
    total = 1
    for d in src:
        total *= d
    if infer is not None:
        rest = 1
        for j, d in enumerate(out):
            if j != infer:
                rest *= d
        if rest == 0 or total % rest:
            raise fail
        out[infer] = total // rest
    known = 1
    for d in out:
        known *= d
    if known != total:
        raise fail
    return tuple(out[::-1]) if reverse else tuple(out)


@register("_npx_reshape", aliasing=True, inputs=("a",), params=dict(newshape=Shape(), reverse=Bool(False)))
def npx_reshape(a, *, newshape, reverse):
    """``npx.reshape(a, newshape, reverse)``."""
    return a.reshape(npx_shape(tuple(a.shape), newshape, reverse))


@register("_np_reshape", aliasing=True, inputs=("a",), params=dict(newshape=Shape(), order=Str("C")),
          infer_inputs=_reshape_infer_inputs)
def np_reshape(a, *, newshape, order):
    """NumPy's reshape (one -1 inferred; no special codes): ``np.reshape`` and ``x.reshape``."""
    if order != "C":
        raise MXNetError("Operator _np_reshape: only order='C' is supported, got %r" % order)
    if sum(d == -1 for d in newshape) > 1 or any(d < -1 for d in newshape):
        raise MXNetError("Operator _np_reshape: invalid shape %s for an array of shape %s"
                         % (tuple(newshape), tuple(a.shape)))
    try:
        return a.reshape(tuple(newshape))
    except RuntimeError:
        raise MXNetError("Operator _np_reshape: cannot reshape array of shape %s into shape %s"
                         % (tuple(a.shape), tuple(newshape))) from None


@register("_np_transpose", aliasing=True, inputs=("a",), params=dict(axes=Shape(None)))
def np_transpose(a, *, axes):
    """The axes permuted (reversed when ``axes`` is None)."""
    if axes is None or len(axes) == 0:
        return a.permute(*range(a.dim() - 1, -1, -1))
    if len(axes) != a.dim() or sorted(d % a.dim() for d in axes) != list(range(a.dim())):
        raise MXNetError("Operator _np_transpose: axes %s do not permute the axes of an array of shape %s"
                         % (tuple(axes), tuple(a.shape)))
    return a.permute(*[d % a.dim() for d in axes])


@register("_np_squeeze", aliasing=True, inputs=("a",), params=dict(axis=Shape(None)))
def np_squeeze(a, *, axis):
    """The size-1 axes removed (all, or those in ``axis``); no axes left gives a 0-d array."""
    if axis is None:
        return a.reshape(tuple(d for d in a.shape if d != 1))
    drop = set()
    for d in axis:
        if not -a.dim() <= d < a.dim():
            raise MXNetError("Operator _np_squeeze: axis %d is out of bounds for an array of shape %s"
                             % (d, tuple(a.shape)))
        if a.shape[d] != 1:
            raise MXNetError("Operator _np_squeeze: cannot select an axis to squeeze out which has size not "
                             "equal to one (axis %d of shape %s)" % (d, tuple(a.shape)))
        drop.add(d % a.dim())
    return a.reshape(tuple(s for i, s in enumerate(a.shape) if i not in drop))
