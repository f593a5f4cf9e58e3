"""Reference values for MXNet 1.9.1's density operators ``_random_pdf_*``.

Run with the reference environment (never part of the project or CI)::

    /tmp/mxref/bin/python tools/make_extra_fixtures_random.py [OUTDIR]

OUTDIR (default tests/fixtures/extra/random) gets ``pdf.npz``; for each case
``<case>/in:<input>`` the inputs, ``<case>/out`` the density (``is_log`` as in the
case name) and ``<case>/grad:<input>`` the gradients for a head gradient of ones.
"""
import os
import sys

import numpy as np
import mxnet as mx

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                          "fixtures", "extra", "random")
rs = np.random.RandomState(2024)


def positive(*shape, lo=0.5, hi=3.0):
    return rs.uniform(lo, hi, shape)


def counts(*shape, hi=6):
    return rs.randint(0, hi, shape).astype(np.float64)


def simplex(*shape):
    x = rs.uniform(0.1, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


# distribution -> its inputs (sample first), with parameters of shape (2, 3) and 4 samples each
CASES = {
    "uniform": dict(sample=rs.uniform(0, 1, (2, 3, 4)), low=rs.uniform(-1, 0, (2, 3)), high=rs.uniform(1, 2, (2, 3))),
    "normal": dict(sample=rs.randn(2, 3, 4), mu=rs.randn(2, 3), sigma=positive(2, 3)),
    "gamma": dict(sample=positive(2, 3, 4), alpha=positive(2, 3), beta=positive(2, 3)),
    "exponential": dict(sample=positive(2, 3, 4), lam=positive(2, 3)),
    "poisson": dict(sample=counts(2, 3, 4), lam=positive(2, 3)),
    "negative_binomial": dict(sample=counts(2, 3, 4), k=positive(2, 3, lo=1, hi=5), p=rs.uniform(0.2, 0.8, (2, 3))),
    "generalized_negative_binomial": dict(sample=counts(2, 3, 4), mu=positive(2, 3), alpha=positive(2, 3, lo=0.2, hi=1)),
    "dirichlet": dict(sample=simplex(2, 4, 3), alpha=positive(2, 3)),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    out = {}
    for dist, inputs in CASES.items():
        for is_log in (False, True):
            case = "%s%s" % (dist, "_log" if is_log else "")
            arrays = {k: mx.nd.array(v, dtype="float64") for k, v in inputs.items()}
            for a in arrays.values():
                a.attach_grad()
            with mx.autograd.record():
                y = getattr(mx.nd, "random_pdf_" + dist)(is_log=is_log, **arrays)
            y.backward(mx.nd.ones_like(y))
            out[case + "/out"] = y.asnumpy()
            for k, a in arrays.items():
                out["%s/in:%s" % (case, k)] = inputs[k]
                out["%s/grad:%s" % (case, k)] = a.grad.asnumpy()
    np.savez(os.path.join(OUT, "pdf.npz"), **out)


if __name__ == "__main__":
    main()
