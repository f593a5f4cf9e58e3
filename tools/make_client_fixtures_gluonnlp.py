"""Record MXNet 1.9.1's results of the GluonNLP 0.10.0 workflows of
``tests/test_client_gluonnlp.py`` into ``tests/fixtures/extra/gluonnlp/<workflow>.npz``.

Run with the reference interpreter (real MXNet 1.9.1 and GluonNLP 0.10.0; never imported by
neogluon or its tests)::

    /work/mxclients/bin/python tools/make_client_fixtures_gluonnlp.py [workflow ...]

Each workflow runs in its own process: MXNet reports a failed operator asynchronously, and the
ELMo workflow needs ``MXNET_MKLDNN_ENABLED=0`` (MXNet's MKLDNN build cannot read its LSTMP
outputs back), which must be set before ``import mxnet``.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests")
OUT = os.path.join(TESTS, "fixtures", "extra", "gluonnlp")
ENV = {"elmo": {"MXNET_MKLDNN_ENABLED": "0"}}


def record(name):
    sys.path.insert(0, TESTS)
    import numpy as np
    import test_client_gluonnlp as wf
    assert "neogluon" not in wf.mx.__file__, "run this with real MXNet 1.9.1"
    arrays = wf.WORKFLOWS[name]()
    np.savez_compressed(os.path.join(OUT, name + ".npz"), **{k: np.asarray(v) for k, v in arrays.items()})
    print("%-24s %d arrays" % (name, len(arrays)))


def main(names):
    if len(names) == 2 and names[0] == "--one":
        record(names[1])
        return
    os.makedirs(OUT, exist_ok=True)
    if not names:
        names = [n[len("wf_"):] for n in open(os.path.join(TESTS, "test_client_gluonnlp.py")).read().split("\ndef ")
                 if n.startswith("wf_")]
        names = [n.split("(")[0] for n in names]
    for name in names:
        env = dict(os.environ, MXNET_STORAGE_FALLBACK_LOG_VERBOSE="0", **ENV.get(name, {}))
        subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name], env=env, check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
