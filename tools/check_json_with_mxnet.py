"""Check that symbol JSON written by neogluon loads in real MXNet 1.9.1 (not part of CI).

    python3 tools/check_json_with_mxnet.py [--mxnet-python /tmp/mxref/bin/python]

Builds a set of graphs with neogluon (every fixture graph loaded and written back, plus
graphs built here: operators on symbols, BatchNorm with auxiliary states, a split, a
Group), writes their JSON to a temporary directory, then runs the side venv's Python,
which loads each file with ``mx.sym.load`` and compares list_arguments,
list_auxiliary_states, list_outputs and the re-serialised graph with what neogluon wrote.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import neogluon as mx  # noqa: E402
from neogluon.operator import registry  # noqa: E402

CHECK = r'''
import json, sys
import mxnet as mx
bad = 0
for path in sys.argv[1:]:
    info = json.load(open(path[:-len("-symbol.json")] + "-info.json"))
    s = mx.sym.load(path)
    got = {"args": s.list_arguments(), "aux": s.list_auxiliary_states(), "outputs": s.list_outputs(),
           "graph": json.loads(s.tojson())}
    for k in ("args", "aux", "outputs", "graph"):
        if got[k] != info[k]:
            bad += 1
            print("MISMATCH", path, k, str(got[k])[:200], "!=", str(info[k])[:200])
print("checked %d files, %d mismatches" % (len(sys.argv) - 1, bad))
sys.exit(1 if bad else 0)
'''


def built_graphs():
    s = mx.sym
    with mx.name.NameManager():
        x, y = s.var("x"), s.var("y", shape=(2, 3), lr_mult=2.0)
        yield "arith", s.Group([x + y, x - 1, 2 - x, x * y, x / 2, 2 ** x, x ** 2, x == y, x > 1, -x])
        yield "fc", s.FullyConnected(x, num_hidden=3, name="fc")
        yield "bn", s.BatchNorm(s.Convolution(x, kernel=(3, 3), num_filter=4), fix_gamma=False, name="bn")
        yield "split", s.split(x, num_outputs=3, axis=1)
        with mx.AttrScope(ctx_group="dev1"):
            yield "scoped", s.relu(s.FullyConnected(x, num_hidden=2, no_bias=True))


def fixture_graphs():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "mxnet-1.9.1", "*", "*-symbol.json"))):
        ops = {n["op"] for n in json.load(open(path))["nodes"]} - {"null"}
        if all(registry.exists(o) for o in ops):
            yield "fixture_" + os.path.basename(path)[:-len("-symbol.json")], mx.sym.load(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mxnet-python", default="/tmp/mxref/bin/python")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, sym in list(built_graphs()) + list(fixture_graphs()):
            path = os.path.join(tmp, name + "-symbol.json")
            sym.save(path)
            with open(os.path.join(tmp, name + "-info.json"), "w") as f:
                json.dump({"args": sym.list_arguments(), "aux": sym.list_auxiliary_states(),
                           "outputs": sym.list_outputs(), "graph": json.loads(sym.tojson())}, f)
            paths.append(path)
        script = os.path.join(tmp, "check.py")
        with open(script, "w") as f:
            f.write(CHECK)
        env = dict(os.environ, PYTHONPATH="")
        raise SystemExit(subprocess.call([args.mxnet_python, script] + paths, cwd=tmp, env=env))


if __name__ == "__main__":
    main()
