"""``_contrib_hawkesll``: the log-likelihood of univariate Hawkes processes with
exponential kernels (MXNet's ``contrib.hawkesll``), on ragged, left-aligned batches of
inter-arrival times and marks. Gradients come from autograd through the same recursion,
restricted as MXNet 1.9.1's backward is: only the log-likelihood is differentiated (the
returned state passes no gradient) and ``state`` receives none."""
import torch

from ..base import MXNetError
from .registry import register, shape_rule

__all__ = []


class _NoGradient(torch.autograd.Function):
    """``value``, in the graph of ``anchor`` but passing it no gradient (MXNet's backward of
    hawkesll ignores the head gradient of the returned state)."""

    @staticmethod
    def forward(ctx, value, anchor):  # pylint: disable=arguments-differ
        return value.clone()

    @staticmethod
    def backward(ctx, g):  # pylint: disable=arguments-differ
        return None, None


@register("_contrib_hawkesll", inputs=("lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"),
          num_outputs=2)
def hawkesll(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    """``(loglike, out_state)`` for ``K`` processes per sample: the intensity of process
    ``k`` is ``lda[k] + alpha[k]*beta[k]*sum exp(-beta[k]*(t - t_i))`` over its earlier
    points; the first ``valid_length[i]`` points of row ``i`` (times accumulated from
    ``lags``, processes from ``marks``) are observed on ``(0, max_time[i]]``, starting from
    the memory ``state`` (returned at ``max_time``)."""
    n, k = lda.shape if lda.dim() == 2 else (None, None)
    if n is None or state.shape != lda.shape or alpha.shape != (k,) or beta.shape != (k,) \
            or lags.dim() != 2 or lags.shape != marks.shape or lags.shape[0] != n \
            or valid_length.shape != (n,) or max_time.shape != (n,):
        raise MXNetError("Operator _contrib_hawkesll: expected lda and state (N, K), alpha and beta (K,), lags and "
                         "marks (N, T), valid_length and max_time (N,); got lda %s, alpha %s, beta %s, state %s, "
                         "lags %s, marks %s, valid_length %s, max_time %s"
                         % tuple(tuple(t.shape) for t in (lda, alpha, beta, state, lags, marks, valid_length,
                                                          max_time)))
    classes = torch.arange(k, device=lda.device)
    s = state.detach()  # MXNet's backward gives the initial state no gradient
    last = torch.zeros_like(lda)
    t = torch.zeros(n, dtype=lda.dtype, device=lda.device)
    ll = torch.zeros(n, dtype=lda.dtype, device=lda.device)
    for j in range(lags.shape[1]):
        active = j < valid_length
        if not bool(active.any()):
            break
        c = marks[:, j].long().clamp(0, k - 1)
        hit = (classes == c.unsqueeze(1)) & active.unsqueeze(1)          # (N, K): the process of this point
        t = torch.where(active, t + lags[:, j].to(t.dtype), t)
        d = t.unsqueeze(1) - last
        ed = torch.exp(-beta * d)
        intensity = lda + alpha * beta * s * ed
        compensator = lda * d + alpha * s * (1 - ed)
        term = torch.where(hit, torch.log(torch.where(hit, intensity, torch.ones_like(intensity))) - compensator,
                           torch.zeros_like(intensity))
        ll = ll + term.sum(1)
        s = torch.where(hit, 1 + s * ed, s)
        last = torch.where(hit, t.unsqueeze(1).expand_as(last), last)
    d = max_time.to(lda.dtype).unsqueeze(1) - last
    ed = torch.exp(-beta * d)
    ll = ll - (lda * d + alpha * s * (1 - ed)).sum(1)
    return ll, _NoGradient.apply((ed * s).detach(), ll)


@shape_rule("_contrib_hawkesll")
def _hawkesll_shape(attrs, shapes):
    return [(shapes[0][0],), tuple(shapes[0])]
