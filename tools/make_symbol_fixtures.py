"""Extra reference data for the symbol tests, made with real MXNet 1.9.1 (side venv only).

    /tmp/mxref/bin/python tools/make_symbol_fixtures.py

Writes under tests/fixtures/extra/symbol/:
  <model>-params.npz   the arrays of each fixture model's -0000.params ('arg:name'/'aux:name'),
                       so the model tests do not depend on the .params reader
  operators.json       name, operator and attributes MXNet gives each Python operator on symbols
"""
import glob
import json
import os

import mxnet as mx
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "tests", "fixtures", "mxnet-1.9.1", "models")
OUT = os.path.join(ROOT, "tests", "fixtures", "extra", "symbol")


def params():
    for path in sorted(glob.glob(os.path.join(MODELS, "*-0000.params"))):
        name = os.path.basename(path)[:-len("-0000.params")]
        arrays = {k: v.asnumpy() for k, v in mx.nd.load(path).items()}
        np.savez(os.path.join(OUT, name + "-params.npz"), **arrays)


def names():
    s = mx.sym
    cases = {}
    with mx.name.NameManager():
        x, y = s.var("x"), s.var("y")
        exprs = {"x+y": x + y, "x+1": x + 1, "1+x": 1 + x, "x-y": x - y, "x-1": x - 1, "2-x": 2 - x,
                 "x*y": x * y, "x*2": x * 2, "x/y": x / y, "x/2": x / 2, "2/x": 2 / x, "x%y": x % y,
                 "x%2": x % 2, "2%x": 2 % x, "x**y": x ** y, "x**2": x ** 2, "2**x": 2 ** x,
                 "x==y": x == y, "x==1": x == 1, "x!=1": x != 1, "x>1": x > 1, "x>=1": x >= 1,
                 "x<1": x < 1, "x<=1": x <= 1, "1<x": 1 < x, "x>y": x > y, "x<y": x < y, "-x": -x,
                 "x+1.5": x + 1.5, "x!=y": x != y, "x>=y": x >= y, "x<=y": x <= y}
        for k, v in exprs.items():
            node = json.loads(v.tojson())["nodes"][-1]
            cases[k] = {"name": v.name, "op": node["op"], "attrs": node.get("attrs", {})}
    with open(os.path.join(OUT, "operators.json"), "w") as f:
        json.dump(cases, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    params()
    names()

