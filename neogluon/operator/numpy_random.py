"""MXNet 1.9.1's NumPy-interface samplers beyond the legacy ones: ``_npi_multinomial``
(``np.random.multinomial``). Draws come from torch's generator (``mx.random.seed`` seeds
it): the distribution, shapes and dtypes are MXNet's, the numbers are not."""
import torch

from ..base import MXNetError
from .registry import Any, Bool, Dtype, Float, Int, Shape, Str, register

__all__ = []


@register("_npi_multinomial", inputs=lambda attrs: ("a",) if attrs["pvals"] is None else (),
          signature=("a",), params=dict(n=Int(), pvals=Any(None), size=Shape(None)))
def multinomial(a=None, *, n, pvals, size):
    """Counts of ``n`` draws over ``len(pvals)`` outcomes, ``size + (len(pvals),)`` int64
    (as NumPy, the last probability is what the others leave)."""
    p = a.to(torch.float64) if a is not None else torch.tensor(pvals, dtype=torch.float64)
    if p.dim() != 1 or p.numel() == 0:
        raise MXNetError("Operator _npi_multinomial: pvals must be a non-empty 1-d sequence, got shape %s"
                         % (tuple(p.shape),))
    if n < 0:
        raise MXNetError("Operator _npi_multinomial: n must be non-negative, got %d" % n)
    p = torch.cat([p[:-1], (1 - p[:-1].sum()).clamp_min(0).reshape(1)]).clamp_min(0)
    shape = tuple(size or ())
    draws = 1
    for d in shape:
        draws *= d
    k = p.numel()
    if n == 0:
        return torch.zeros(shape + (k,), dtype=torch.int64)
    picks = torch.multinomial(p.expand(draws, k), n, replacement=True)
    counts = torch.zeros(draws, k, dtype=torch.int64).scatter_add_(1, picks, torch.ones_like(picks))
    return counts.reshape(shape + (k,))


def _tensor_inputs(*names):
    """Input names: one ``input<k>`` per parameter given as an array (its attribute None)."""
    def inputs(attrs):
        return tuple("input%d" % (i + 1) for i in range(sum(attrs[n] is None for n in names)))
    return inputs


def _params(inputs, names, attrs):
    """The parameters: the arrays given, in order, for those whose attribute is None."""
    inputs = list(inputs)
    return [inputs.pop(0) if attrs[n] is None else attrs[n] for n in names]


def _draw_shape(size, values, name):
    """``size + broadcast(values)``: MXNet's ``_n`` samplers draw a batch of each parameter."""
    shapes = [tuple(v.shape) for v in values if isinstance(v, torch.Tensor)]
    try:
        base = tuple(torch.broadcast_shapes(*shapes)) if shapes else ()
    except RuntimeError:
        raise MXNetError("Operator %s: parameters of shapes %s do not broadcast" % (name, shapes)) from None
    return tuple(size or ()) + base


def _sampler(name, names, draw):
    def impl(*inputs, size, ctx, dtype, **attrs):
        from ..base import torch_dtype
        from .creation import device_of
        values = _params(inputs, names, attrs)
        device = next((v.device for v in values if isinstance(v, torch.Tensor)), device_of(ctx))
        shape = _draw_shape(size, values, name)
        values = [v.to(device, torch.float64) if isinstance(v, torch.Tensor)
                  else torch.tensor(float(v), dtype=torch.float64, device=device) for v in values]
        return draw(shape, *values).to(torch_dtype(dtype))
    impl.__doc__ = "``npx.random.%s``: a batch of draws, shape ``size + broadcast(parameters)``." % name[5:]
    return impl


_SAMPLE = dict(size=Shape(None), ctx=Str("cpu"), dtype=Dtype("float32"))
register("_npi_uniform_n", inputs=_tensor_inputs("low", "high"), signature=("input1", "input2"),
         params=dict(low=Float(None), high=Float(None), **_SAMPLE))(_sampler(
             "_npi_uniform_n", ("low", "high"),
             lambda shape, low, high: low + (high - low) * torch.rand(shape, dtype=torch.float64, device=low.device)))
register("_npi_normal_n", inputs=_tensor_inputs("loc", "scale"), signature=("input1", "input2"),
         params=dict(loc=Float(None), scale=Float(None), **_SAMPLE))(_sampler(
             "_npi_normal_n", ("loc", "scale"),
             lambda shape, loc, scale: loc + scale * torch.randn(shape, dtype=torch.float64, device=loc.device)))


@register("_npi_bernoulli", inputs=lambda attrs: ("input1",) if attrs["prob"] is None and attrs["logit"] is None
          else (), signature=("input1",),
          params=dict(prob=Float(None), logit=Float(None), size=Shape(None), ctx=Str("cpu"), dtype=Dtype("float32"),
                      is_logit=Bool(False)))
def bernoulli(input1=None, *, prob, logit, size, ctx, dtype, is_logit):
    """Draws of 1 with probability ``prob`` (or ``sigmoid(logit)``), shape ``size`` (the
    parameter's shape when no size), in ``dtype``."""
    from ..base import torch_dtype
    from .creation import device_of
    p = input1 if input1 is not None else torch.tensor(prob if not is_logit else logit, device=device_of(ctx))
    p = p.to(torch.float64)
    if is_logit:
        p = torch.sigmoid(p)
    if bool(((p < 0) | (p > 1)).any()):
        raise MXNetError("Operator _npi_bernoulli: prob must be in [0, 1]")
    shape = tuple(size) if size else tuple(p.shape)
    draws = torch.rand(shape, dtype=torch.float64, device=p.device) < p.expand(shape)
    return draws.to(torch_dtype(dtype))
