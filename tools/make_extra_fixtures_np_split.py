"""Record MXNet 1.9.1's ``mx.np`` split family (``split``, ``array_split``, ``hsplit``,
``vsplit``, ``dsplit``) and the ``_split_v2`` operator they run on (``_npi_split``): the
parts, and the errors of indices out of range, unordered indices and bad arguments.
MXNet's quirks recorded: ``hsplit`` and ``array_split`` with an int give that many parts
also when they do not divide the axis (the first ones longer); an index past the axis is
an error, not numpy's empty part.

Run with the reference interpreter (never imported by neogluon or its tests)::

    /work/mxref/bin/python tools/make_extra_fixtures_np_split.py

It writes ``tests/fixtures/extra/np_split/cases.json``; ``tests/test_np_split.py`` runs the
same expressions under neogluon (``a`` is ``np.arange(6).reshape(2, 3)``, ``b``
``np.arange(5)``, ``c`` ``np.arange(12).reshape(1, 2, 6)``).
"""
import json
import os

import mxnet as mx

EXPRS = {
    "split_sections": "np.split(a, 3, axis=-1)",
    "split_one": "np.split(b, 1)",
    "split_indices": "np.split(a, (1,), axis=1)",
    "split_set": "np.split(a, {1})",
    "split_unequal": "np.split(b, 2)",
    "split_index_past_axis": "np.split(b, [1, 7])",
    "split_unordered": "np.split(b, [3, 1])",
    "split_array_indices": "np.split(b, np.array([1, 2]))",
    "array_split_3": "np.array_split(b, 3)",
    "array_split_more_than_size": "np.array_split(b, 7)",
    "array_split_indices_past_axis": "np.array_split(b, [2, 9])",
    "array_split_0": "np.array_split(b, 0)",
    "hsplit_3": "np.hsplit(a, 3)",
    "hsplit_uneven": "np.hsplit(a, 2)",
    "hsplit_1d": "np.hsplit(b, [2])",
    "hsplit_1d_uneven": "np.hsplit(b, 2)",
    "hsplit_0d": "np.hsplit(np.array(3.), 1)",
    "vsplit": "np.vsplit(a, 2)",
    "vsplit_1d": "np.vsplit(b, 1)",
    "dsplit_indices": "np.dsplit(c, [1])",
    "dsplit_sections": "np.dsplit(c, 3)",
    "dsplit_2d": "np.dsplit(a, 1)",
    "split_v2_first_index_not_0": "nd._internal._split_v2(nd.arange(5), indices=(1, 3), axis=0)",
}


def run(expr):
    np, npx = mx.np, mx.npx
    npx.set_np()
    try:
        scope = {"np": np, "npx": npx, "nd": mx.nd, "a": np.arange(6).reshape(2, 3), "b": np.arange(5),
                 "c": np.arange(12).reshape(1, 2, 6)}
        try:
            res = eval(expr, scope)  # pylint: disable=eval-used
        except Exception as e:  # pylint: disable=broad-except
            lines = [line for line in str(e).split("\n") if line.strip()]
            err = [line for line in lines if "Check failed" in line or "Shape inconsistent" in line]
            return {"error": type(e).__name__, "message": (err or lines)[-1].strip()}
        res = res if isinstance(res, list) else [res]
        return {"type": "list", "parts": [{"shape": list(r.shape), "value": r.asnumpy().tolist()} for r in res]}
    finally:
        npx.reset_np()


# Gluon blocks splitting their input, run imperatively and hybridized (tests/test_np_split.py
# defines the same blocks): hybrid_forward's F.np.split on Symbols, forward's mx.np.split
BLOCKS = {
    "hybrid_forward": "a, b = F.np.split(x, 2, axis=1)\nc = F.np.array_split(x, [1], axis=1)\n"
                      "return a * 2 + b + c[0] + c[1][:, :1]",
    "forward": "a, b = mx.np.split(x, 2, axis=1)\nreturn a * 2 + b",
}


def run_block(kind, body):
    mx.npx.set_np()
    try:
        src = "def %s(self, %sx):\n%s\n" % (kind, "F, " if kind == "hybrid_forward" else "",
                                              "\n".join("    " + line for line in body.split("\n")))
        scope = {"mx": mx}
        exec(src, scope)  # pylint: disable=exec-used
        block = type("Split", (mx.gluon.HybridBlock,), {kind: scope[kind]})()
        block.initialize()
        x = mx.np.arange(8).reshape(2, 4)
        imperative = block(x).asnumpy().tolist()
        block.hybridize()
        return {"body": body, "imperative": imperative, "hybridized": block(x).asnumpy().tolist()}
    finally:
        mx.npx.reset_np()


def main():
    out = {name: dict(run(expr), expr=expr) for name, expr in EXPRS.items()}
    out.update({"block_" + kind: run_block(kind, body) for kind, body in BLOCKS.items()})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "extra", "np_split")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "cases.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": out}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
