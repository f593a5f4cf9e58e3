"""Paired speed comparisons that another process on the machine cannot flip.

Two ways of doing the same work (imperative and hybridized steps, say) are timed in
adjacent pairs, in alternating order, so that a load that comes and goes slows both
members of a pair alike. The speed-up is the median of the per-pair ratios, with a
distribution-free 95% confidence interval from the binomial order statistics of the
median. When that interval is too wide, the machine was too busy for the measurement to
say anything, and :func:`describe` says so instead of printing a number.
"""
import math

__all__ = ["PairedRatio", "paired_ratio", "describe"]

# below this many pairs no interval is meaningful
MIN_PAIRS = 12
# the widest interval, relative to the median, that still supports a stated ratio
MAX_RELATIVE_WIDTH = 0.2


class PairedRatio:
    """The median ratio ``slow/fast`` of paired timings and its 95% confidence interval."""

    def __init__(self, median, low, high, pairs):
        self.median, self.low, self.high, self.pairs = median, low, high, pairs

    @property
    def conclusive(self):
        return (self.pairs >= MIN_PAIRS and self.median > 0
                and (self.high - self.low) / self.median <= MAX_RELATIVE_WIDTH)

    def __repr__(self):
        return "PairedRatio(median=%.3f, low=%.3f, high=%.3f, pairs=%d)" % (
            self.median, self.low, self.high, self.pairs)


def paired_ratio(baseline, candidate):
    """Ratios ``baseline[i] / candidate[i]`` (a speed-up when > 1): median and 95% interval."""
    if len(baseline) != len(candidate):
        raise ValueError("paired timings need equal lengths, got %d and %d" % (len(baseline), len(candidate)))
    ratios = sorted(b / c for b, c in zip(baseline, candidate) if c > 0)
    n = len(ratios)
    if n == 0:
        return PairedRatio(float("nan"), float("nan"), float("nan"), 0)
    median = _median(ratios)
    lo, hi = _median_interval(n)
    return PairedRatio(median, ratios[lo], ratios[hi], n)


def _median(sorted_values):
    n = len(sorted_values)
    mid = n // 2
    return sorted_values[mid] if n % 2 else 0.5 * (sorted_values[mid - 1] + sorted_values[mid])


def _median_interval(n, confidence=0.95):
    """Indices (lo, hi) of the order statistics that bracket the median with ``confidence``.

    The number of samples below the true median is Binomial(n, 1/2); the interval is the
    widest symmetric one whose tails hold at most (1 - confidence)/2 each.
    """
    tail = (1.0 - confidence) / 2
    below, k = 0.0, 0  # below = P(B < k)
    while k < n:
        below += math.comb(n, k) / 2.0 ** n
        if below > tail:
            break
        k += 1
    lo = max(k - 1, 0)  # the largest c with P(B <= c) <= tail (0 when n is too small for any)
    return lo, n - 1 - lo


def describe(result, what):
    """One sentence for a user: the ratio and its interval, or why there is none."""
    if result.pairs < MIN_PAIRS:
        return "%s: not measured (only %d paired timings; train longer to measure)" % (what, result.pairs)
    if not result.conclusive:
        return ("%s: the machine is too busy to conclude (paired ratios between %.2fx and %.2fx in the "
                "95%% interval over %d pairs; rerun on a quieter machine)" % (what, result.low, result.high,
                                                                            result.pairs))
    if result.low > 1.0:
        verdict = "faster"
    elif result.high < 1.0:
        verdict = "slower"
    else:
        verdict = "no measurable difference"
    return "%s: %.2fx (%s; 95%% interval %.2fx-%.2fx over %d paired timings)" % (
        what, result.median, verdict, result.low, result.high, result.pairs)
